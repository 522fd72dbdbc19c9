"""The config's [venue] keys and the --venue / --table options of a table's commands."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest

from companion.config import parse_config, save_settings
from companion.errors import ConfigError


def test_a_venue_config_reads_back() -> None:
    config = parse_config('[venue]\nbroker = "mqtts://hall.example:8884"\ntable = "t07"\n'
                          'prefix = "cafe/companion"\naccept_commands = true\ndiscovery_prefix = ""\n')
    assert config["venue.broker"] == "mqtts://hall.example:8884"
    assert config["venue.table"] == "t07" and config["venue.prefix"] == "cafe/companion"
    assert config["venue.accept_commands"] is True and config["venue.discovery_prefix"] == ""
    assert parse_config("")["venue.broker"] == ""  # by default a table is on no broker


@pytest.mark.parametrize(("line", "why"), [
    ('broker = "http://hall"', "must be mqtt://HOST"),
    ('broker = "mqtt://user:secret@hall"', "credentials go in venue.username"),
    ('broker = "mqtt://hall:70000"', "not a broker address"),
    ('broker = "mqtt://hall/some/path"', "must be mqtt://HOST"),
    ("broker = 1883", "must be a string"),
    ('table = "t/07"', "a table id is 1-64"),
    ('table = "t+"', "a table id is 1-64"),
    ('prefix = ""', "a topic prefix is 1-64"),
    ('prefix = "a//b"', "a topic prefix is 1-64"),
    ('prefix = "cafe/#"', "a topic prefix is 1-64"),
    ("accept_commands = 1", "must be true or false"),
    ('brokr = "mqtt://hall"', "did you mean 'venue.broker'"),
])
def test_a_bad_venue_key_names_itself_and_its_line(line: str, why: str) -> None:
    with pytest.raises(ConfigError, match=why) as caught:
        parse_config(f"[venue]\n{line}\n", "c.toml")
    assert "line 2" in str(caught.value)


def test_a_config_holding_the_brokers_password_is_kept_from_other_users(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[ui]\nlanguage = "en"\n')
    path.chmod(0o644)
    save_settings(path, {"venue.password": "s3cret"})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.parametrize(("args", "why"), [
    (["--venue", "http://hall"], "--venue: "),
    (["--venue", "mqtt://127.0.0.1:1"], "--table: "),
    (["--venue", "mqtt://127.0.0.1:1", "--table", "t 7"], "a table id is 1-64"),
])
def test_a_bad_venue_option_is_one_line_and_exit_2(args: list[str], why: str, tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text("")
    done = subprocess.run([sys.executable, "-m", "companion", "--config", str(config), "timer", "5",
                           "--gpio", "off", "--accessory", "none", *args],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert why in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr


def test_a_ca_file_that_is_not_one_is_one_line_and_exit_2(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text(f'[venue]\nca_file = "{tmp_path / "missing.pem"}"\n')
    done = subprocess.run([sys.executable, "-m", "companion", "--config", str(config), "timer", "5",
                           "--gpio", "off", "--accessory", "none", "--venue", "mqtts://127.0.0.1:1",
                           "--table", "t1"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "venue.ca_file" in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
