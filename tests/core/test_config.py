from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.config import SCHEMA, ConfigError, defaults, key_lines, load_config, parse_config


def test_config_defaults_when_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    config = load_config(None)
    assert config.source is None
    assert config["timer.warnings_s"] == (10.0, 3.0)
    assert config.presets == {"negotiation": 60.0, "market": 60.0}


def test_config_reads_values_and_user_presets() -> None:
    config = parse_config("""
[timer]
warnings_s = [3, 10, 30]
[timer.presets]
negotiation = 90
auction = 45
[gpio]
buzzer_type = "tonal"
status_led_pin = false
""")
    assert config["timer.warnings_s"] == (30.0, 10.0, 3.0)
    assert config.presets == {"negotiation": 90.0, "market": 60.0, "auction": 45.0}
    assert config["gpio.buzzer_type"] == "tonal"
    assert config["gpio.status_led_pin"] is None


@pytest.mark.parametrize(("text", "message"), [
    ("[gpio]\n\nbuzer_pin = 5\n",
     "config f.toml, line 3: gpio.buzer_pin: unknown key (did you mean 'gpio.buzzer_pin'?)"),
    ("[timer]\ntick_hz = -1\n",
     "config f.toml, line 2: timer.tick_hz: must be more than 0 and at most 100 (got -1)"),
    ("[timer.presets]\nmarket = -60\n",
     "config f.toml, line 2: timer.presets.market: must be a positive number of seconds (got -60)"),
    ("[gpio]\nbutton_pin = 17\nbuzzer_pin = 17\n",
     "config f.toml, line 3: gpio.buzzer_pin: GPIO17 is used by both gpio.buzzer_pin and "
     "gpio.button_pin; one pin drives one part"),
    ("[gpio]\nbar_pins = [5, 6, 5]\n",
     "config f.toml, line 2: gpio.bar_pins: GPIO5 is listed twice; one pin drives one part"),
    ("[gpio]\nmode = \"fake\"\n",
     "config f.toml, line 2: gpio.mode: must be one of 'auto', 'real', 'mock', 'off' (got 'fake')"),
    ("[gpio]\nbuzzer_pin = 40\n",
     "config f.toml, line 2: gpio.buzzer_pin: must be a BCM pin number from 0 to 27, or false "
     "when not wired (got 40)"),
    ("[sound]\nvolume = 3\n", "config f.toml, line 1: sound: unknown section"),
    ("[timer\n", "config f.toml, line 1: not valid TOML: Expected ']' at the end of a table declaration"),
    ("[gpio]\nalarm_s = \"4\"\n", "config f.toml, line 2: gpio.alarm_s: must be a number (got '4')"),
])
def test_config_errors_name_the_key_and_the_line(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(text, "f.toml")
    assert str(info.value) == message
    assert "\n" not in str(info.value)


def test_config_named_file_missing_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "nope.toml")


def test_config_not_utf8_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_bytes(b"[timer]\ntick_hz = 5 # \xff\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(path)


def test_config_every_key_is_documented_in_the_readme() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    missing = [k.path for k in SCHEMA if f"`{k.path}`" not in readme]
    assert missing == []


def test_config_defaults_pass_their_own_checks() -> None:
    assert parse_config("").values == defaults().values


def test_key_lines_finds_tables_dotted_and_quoted_keys() -> None:
    text = '# c\n[gpio]\nmode = "x"\n\n[timer . presets]\n"long game" = 5\ntimer.tick_hz = 3\n'
    assert key_lines(text) == {"gpio": 2, "gpio.mode": 3, "timer.presets": 5,
                               "timer.presets.long game": 6, "timer.presets.timer.tick_hz": 7}


@given(st.text(max_size=200))
def test_config_any_text_gives_a_config_or_a_config_error(text: str) -> None:
    try:
        parse_config(text, "f.toml")
    except ConfigError as exc:
        assert "\n" not in str(exc)
