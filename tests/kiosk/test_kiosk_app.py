"""The kiosk's app for real: made as ``companion kiosk run`` makes it, in a window on Xvfb, one
process per journey; the test plays systemd (its notification socket, its runtime directory)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from companion.pin import CONFIG_MIN_COST_N, hash_pin
from kiosk import units
from kiosk.units import KioskOptions
from tests.kiosk.conftest import ROOT, companion

DRIVER = Path(__file__).with_name("driver.py")
WATCHDOG_USEC = 400_000  # a 0.4 s watchdog: the app says it is alive every 0.1 s


def kiosk_files(tmp_path: Path, rotate: int = 0) -> tuple[Path, Path, dict[str, str]]:
    """The kiosk's config (PIN 2468) and Kivy settings, as install writes them, in *tmp_path*."""
    data = tmp_path / "data"
    data.mkdir()
    config = data / "config.toml"
    config.write_text(units.kiosk_config(hash_pin("2468", cost_n=CONFIG_MIN_COST_N))
                      .replace(units.DATABASE_PATH, str(data / "companion.sqlite3")))
    ini = tmp_path / "kivy.ini"
    panel = "touch-display-2" if rotate else None
    ini.write_text(units.kivy_settings(KioskOptions(user="pi", companion="/c", rotate=rotate, panel=panel)))
    env = {"XDG_DATA_HOME": str(tmp_path / "xdg-data"), "XDG_CONFIG_HOME": str(tmp_path / "xdg-config")}
    return config, ini, env


KIVY_CUTBUFFER = "CRITICAL: kivy: Cutbuffer: Unable to find any valuable Cutbuffer provider"
"""Kivy on Linux probes xclip and xsel for the X cut buffer whenever a TextInput is made, and
says CRITICAL when neither is there (as on a Pi); the app never uses the cut buffer."""


def no_errors(stderr: str) -> None:
    """Any ERROR or CRITICAL log line fails, but Kivy's cut buffer probe (above)."""
    errors = [line for line in stderr.splitlines()
              if line.startswith(("ERROR:", "CRITICAL:", "Traceback")) and not line.startswith(KIVY_CUTBUFFER)]
    assert errors == [], stderr[-3000:]


def results(stdout: str) -> list[dict]:
    return [json.loads(line[7:]) for line in stdout.splitlines() if line.startswith("RESULT ")]


def drive(journey: str, tmp_path: Path, display: str, rotate: int = 0,
          env: dict[str, str] | None = None) -> list[dict]:
    config, ini, base = kiosk_files(tmp_path, rotate)
    done = subprocess.run([sys.executable, str(DRIVER), journey, str(config), str(ini)], capture_output=True,
                          text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, **base, **(env or {}), "DISPLAY": display})
    assert done.returncode == 0, done.stderr[-3000:]
    no_errors(done.stderr)
    return results(done.stdout)


@pytest.mark.parametrize("rotate", [0, 90])
def test_kiosk_app_cannot_be_left_and_listens_on_no_port(tmp_path: Path, display: str, rotate: int) -> None:
    assert drive("lockdown", tmp_path, display, rotate) == [{"ok": True, "listening": [], "rotation": rotate}]


def test_kiosk_app_pin_locks_out_then_the_host_shuts_down(tmp_path: Path, display: str) -> None:
    runtime = tmp_path / "run"
    runtime.mkdir()
    out = drive("pin_and_shutdown", tmp_path, display, env={"RUNTIME_DIRECTORY": str(runtime)})
    assert out == [{"ok": True, "requests": ["poweroff"]}]


def test_kiosk_app_watchdog_is_fed_by_the_ui_loop_and_stops_when_it_blocks(tmp_path: Path, display: str) -> None:
    config, ini, env = kiosk_files(tmp_path)
    address = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(address))
    proc = subprocess.Popen([sys.executable, str(DRIVER), "watchdog", str(config), str(ini)], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **env, "DISPLAY": display, "NOTIFY_SOCKET": str(address),
                                 "WATCHDOG_USEC": str(WATCHDOG_USEC)})
    assert proc.stdin is not None and proc.stdout is not None
    try:
        sock.settimeout(60)
        assert sock.recv(4096) == b"READY=1\nSTATUS=running"
        assert [sock.recv(4096) for _ in range(3)] == [b"WATCHDOG=1"] * 3  # the loop runs: it says so
        proc.stdin.write("block\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "BLOCKING\n"
        sock.setblocking(False)
        while True:  # what the loop sent before it printed BLOCKING is already queued: drain it
            try:
                assert sock.recv(4096) == b"WATCHDOG=1"
            except BlockingIOError:
                break
        sock.settimeout(3 * WATCHDOG_USEC / 1e6)  # three whole periods: systemd would have killed it
        with pytest.raises(TimeoutError):
            sock.recv(4096)
        proc.stdin.write("go\n")
        proc.stdin.flush()
        sock.settimeout(30)
        assert sock.recv(4096) == b"WATCHDOG=1"  # the loop runs again, and says so
        proc.stdin.write("done\n")
        proc.stdin.flush()
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        sock.settimeout(5)
    assert proc.returncode == 0, err[-3000:]
    no_errors(err)
    assert results(out) == [{"ok": True}]
    rest = []
    sock.setblocking(False)
    while True:
        try:
            rest.append(sock.recv(4096))
        except BlockingIOError:
            break
    assert rest[-1:] == [b"STOPPING=1"] and set(rest[:-1]) <= {b"WATCHDOG=1"}  # and nothing after it
    sock.close()


def test_kiosk_run_without_a_display_is_one_line_and_kept_for_the_fallback(tmp_path: Path) -> None:
    config, ini, env = kiosk_files(tmp_path)
    env = {k: v for k, v in {**os.environ, **env}.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY",
                                                                       "SDL_VIDEODRIVER")}
    done = subprocess.run([sys.executable, "-m", "companion", "kiosk", "run", "--config", str(config),
                           "--kivy-config", str(ini)], capture_output=True, text=True, timeout=60, env=env, cwd=ROOT)
    message = ("no display: the kiosk's unit sets SDL_VIDEODRIVER=kmsdrm (or runs under cage); elsewhere run it "
               "on a virtual display with xvfb-run")
    assert (done.returncode, done.stderr) == (2, f"companion: {message}\n")
    assert (config.parent / "last-error.txt").read_text() == message + "\n"


def test_kiosk_run_refuses_a_config_not_in_kiosk_mode(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[ui]\nkiosk = false\n")
    done = companion("kiosk", "run", "--config", str(config))
    assert (done.returncode, done.stderr) == (2, f"companion: config {config}: ui.kiosk is false: the kiosk's "
                                                 "app runs only in kiosk mode (set ui.kiosk = true, or run "
                                                 "`companion app`)\n")
