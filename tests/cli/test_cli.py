"""The ``companion`` command end to end: real processes, real clock, gpiozero's mock pins."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from companion import cli
from companion.cli import timer as timer_cli
from companion.loop import CoreLoop
from firmware_bridge.board import is_raspberry_pi
from firmware_bridge.gpio import PinSetup

BAR = (5, 6, 13, 19, 26, 16, 20, 21)


def companion(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True,
                          timeout=timeout)


def events(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]


@pytest.fixture
def quick_config(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text("[timer]\nwarnings_s = [2, 1]\n[timer.presets]\nnegotiation = 2.2\n"
                    "[gpio]\nalarm_s = 0.2\n")
    return path


@pytest.mark.slow
def test_cli_timer_json_three_seconds() -> None:
    """The contract as written: start, the warnings inside 3 s, one expiry, exit 0."""
    done = companion("timer", "3", "--gpio", "mock", "--json")
    assert done.returncode == 0, done.stderr
    got = events(done.stdout)
    assert [e["event"] for e in got] == ["start", "warning", "expired"]
    assert got[1]["threshold_s"] == 3
    assert all(set(e) >= {"event", "name", "remaining_s", "t_monotonic"} for e in got)
    assert got[2]["remaining_s"] == 0
    assert got[2]["t_monotonic"] - got[0]["t_monotonic"] == pytest.approx(3, abs=0.05)
    assert "MockFactory" in done.stderr


@pytest.mark.slow
def test_cli_timer_preset_from_config(quick_config: Path) -> None:
    done = companion("--config", str(quick_config), "timer", "--preset", "negotiation", "--json")
    assert done.returncode == 0, done.stderr
    got = events(done.stdout)
    assert [(e["event"], e.get("threshold_s")) for e in got] == [
        ("start", None), ("warning", 2), ("warning", 1), ("expired", None)]
    assert {e["name"] for e in got} == {"negotiation"}
    assert got[0]["remaining_s"] == 2.2


@pytest.mark.parametrize(("args", "message"), [
    (["timer", "-5"], "companion: SECONDS: must be seconds (90 or 2.5), M:SS (1:30), H:MM:SS (1:02:03) or 1h2m3s (minutes and seconds "
                        "under 60 after a larger unit), from 1 s to 24 h (got '-5')"),
    (["timer", "soon"], "companion: SECONDS: must be seconds (90 or 2.5), M:SS (1:30), H:MM:SS (1:02:03) or 1h2m3s (minutes and seconds "
                        "under 60 after a larger unit), from 1 s to 24 h (got 'soon')"),
    (["timer"], "companion: SECONDS: give a length in seconds, or --preset NAME (got None)"),
    (["timer", "--preset", "lunch"],
     "companion: --preset: no such preset (known: market, negotiation) (got 'lunch')"),
    (["timer", "5", "--gpio", "maybe"],
     "companion timer: argument --gpio: invalid choice: 'maybe' (choose from auto, real, mock, off)"),
    (["dance"], "companion: argument COMMAND: invalid choice: 'dance' (choose from timer, accessory, score, rules, export, app, vision, doctor, kiosk, venue)"),
])
@pytest.mark.slow
def test_cli_bad_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    done = companion(*args)
    assert done.returncode == 2
    assert done.stderr.strip().replace("'", "") == message.replace("'", "")
    assert done.stdout == ""


@pytest.mark.slow
@pytest.mark.parametrize("args", [[], ["app"], ["app", "--lang", "hu"]])
def test_cli_app_without_a_display_says_how_in_one_line(args: list[str]) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    done = subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, timeout=30,
                          env=env)
    assert done.returncode == 2
    assert done.stderr.strip() == ("companion: no display here: run the app on a screen, or on a virtual one "
                                   "with `xvfb-run -a companion app`")


@pytest.mark.slow
def test_cli_app_bad_size_is_one_line() -> None:
    done = companion("app", "--size", "huge")
    assert done.returncode == 2
    assert done.stderr.strip() == "companion: --size: must be WIDTHxHEIGHT in pixels, like 800x480 (got 'huge')"


@pytest.mark.slow
def test_cli_bad_config_names_key_and_line(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[gpio]\nbutton_pin = 17\nbar_pins = [5, 17]\n")
    done = companion("--config", str(path), "timer", "5", "--gpio", "mock")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        f"companion: config {path}, line 3: gpio.bar_pins: GPIO17 is used by both gpio.button_pin "
        "and gpio.bar_pins; one pin drives one part")
    assert "Traceback" not in done.stderr


@pytest.mark.slow
@pytest.mark.skipif(is_raspberry_pi(), reason="a Pi has real GPIO")
def test_cli_real_gpio_off_a_pi_is_a_clear_error() -> None:
    done = companion("timer", "5", "--gpio", "real")
    assert done.returncode == 2
    assert done.stderr.startswith("companion: no real GPIO here (")
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_cli_signal_cancels_cleanly(sig: signal.Signals) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "companion", "timer", "60", "--gpio", "mock", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    first = json.loads(proc.stdout.readline())
    assert first["event"] == "start"
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=10)
    assert proc.returncode == 130
    got = events(out)
    assert [e["event"] for e in got] == ["cancelled"]
    assert 55 < got[0]["remaining_s"] <= 60
    assert "Traceback" not in err


@pytest.mark.slow
def test_cli_station_resets_once_after_each_alarm() -> None:
    """--repeat with no GPIO: the alarm is over at once, the timer resets (once) and waits."""
    proc = subprocess.Popen([sys.executable, "-m", "companion", "timer", "1", "--gpio", "off",
                             "--repeat", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    seen = []
    while not seen or seen[-1]["event"] != "reset":
        seen.append(json.loads(proc.stdout.readline()))
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=10)
    seen += events(out)
    assert [e["event"] for e in seen] == ["start", "expired", "reset", "cancelled"]
    assert seen[-1]["remaining_s"] == 1  # waiting, full, for the next press
    assert proc.returncode == 130


@pytest.mark.slow
def test_cli_doctor_json_reports_everything(tmp_path: Path) -> None:
    bad = tmp_path / "c.toml"
    bad.write_text("[gpio]\nmode = 3\n")
    done = companion("doctor", "--json", "--config", str(bad))
    assert done.returncode == 0
    report = json.loads(done.stdout)
    assert set(report) == {"platform", "gpio", "serial_ports", "video_devices", "config",
                           "database", "display"}
    assert report["config"] == {"path": str(bad), "exists": True, "valid": False,
                                "error": f"config {bad}, line 2: gpio.mode: must be one of 'auto', "
                                         "'real', 'mock', 'off' (got 3)"}
    assert report["gpio"]["pins"] == {"buzzer": 18, "bar": list(BAR), "status_led": 24, "button": 17}
    assert report["gpio"]["pin_factory"] in ("mock", "lgpio", "rpigpio", "pigpio", "native")
    assert isinstance(report["serial_ports"], list)
    assert isinstance(report["platform"]["raspberry_pi"], bool)
    assert report["database"]["path"].endswith("companion.sqlite3")
    assert set(report["display"]) == {"available", "x11", "wayland", "drm"}


@pytest.mark.slow
def test_cli_doctor_text_exits_0() -> None:
    done = companion("doctor")
    assert done.returncode == 0
    assert done.stdout.startswith("board:")


# -- in-process: the button, and every output off however the run ends --------------------------


OUTPUTS = (18, 24, *BAR)


@pytest.fixture
def pins(monkeypatch: pytest.MonkeyPatch) -> dict[int, MockPWMPin]:
    """The pins the CLI will use, made up front so their histories outlive the factory's close."""
    factory = MockFactory(pin_class=MockPWMPin)
    made = {p: factory.pin(p) for p in (17, *OUTPUTS)}
    monkeypatch.setattr(timer_cli, "choose_pin_factory",
                        lambda mode: PinSetup("mock", "mock", factory, "test pins"))
    return made


def all_off(pins: dict[int, MockPWMPin]) -> bool:
    return all(pins[p].states[-1].state == 0 for p in OUTPUTS)


def later(seconds: float, fn) -> threading.Timer:
    timer = threading.Timer(seconds, fn)
    timer.start()
    return timer


@pytest.mark.slow
def test_cli_button_pauses_and_resumes(pins: dict[int, MockPWMPin], quick_config: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    def tap() -> None:
        pins[17].drive_low()
        pins[17].drive_high()

    later(0.2, tap)
    later(0.5, tap)
    code = cli.main(["--config", str(quick_config), "timer", "3", "--json"])
    assert code == 0
    kinds = [e["event"] for e in events(capsys.readouterr().out)]
    assert kinds == ["start", "paused", "resumed", "warning", "warning", "expired"]
    assert all_off(pins)


def test_cli_ctrl_c_switches_every_output_off(pins: dict[int, MockPWMPin], quick_config: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    import _thread

    later(0.3, _thread.interrupt_main)
    code = cli.main(["--config", str(quick_config), "timer", "30", "--json"])
    assert code == 130
    assert [e["event"] for e in events(capsys.readouterr().out)] == ["start", "cancelled"]
    assert [s.state for s in pins[BAR[0]].states] == [0, 1, 0]  # lit while running, off after
    assert pins[24].states[-2].state == 1  # the status LED was on until the end
    assert all_off(pins)


def test_cli_exception_switches_every_output_off(pins: dict[int, MockPWMPin], quick_config: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    def broken_run(self: object) -> None:
        raise RuntimeError("a bug of ours")

    monkeypatch.setattr(CoreLoop, "run", broken_run)
    with pytest.raises(RuntimeError, match="a bug of ours"):  # a bug keeps its traceback
        cli.main(["--config", str(quick_config), "timer", "30", "--json"])
    assert [s.state for s in pins[BAR[0]].states] == [0, 1, 0]
    assert all_off(pins)


@pytest.mark.parametrize(("given", "kept"), [(None, "1"), ("3", "3")])
def test_the_command_keeps_numpys_blas_to_one_thread_unless_told(given: str | None, kept: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    code = ("import os, sys; from companion.cli import main; loaded = 'numpy' in sys.modules; "
            "main(['timer', '--no-such-option']); print(loaded, os.environ['OPENBLAS_NUM_THREADS'])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", kept]  # set before anything loaded numpy
