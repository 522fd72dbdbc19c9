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

from kiosk import units
from kiosk.pin import CONFIG_MIN_COST_N, hash_pin
from kiosk.units import KioskOptions
from tests.kiosk.conftest import ROOT, companion
from tests.processes import Lines, finish, run, runtime_dir, tail
from tests.slowdown import scaled

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
    env = {"XDG_DATA_HOME": str(tmp_path / "xdg-data"), "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
           "XDG_RUNTIME_DIR": runtime_dir(tmp_path / "xdg-run")}  # its accessory's auto finds no test's simulator
    return config, ini, env


KIVY_CUTBUFFER = "CRITICAL: kivy: Cutbuffer: Unable to find any valuable Cutbuffer provider"
"""Kivy on Linux probes xclip and xsel for the X cut buffer whenever a TextInput is made, and
says CRITICAL when neither is there (as on a Pi); the app never uses the cut buffer."""


def no_errors(stderr: str) -> None:
    """Any ERROR or CRITICAL log line fails, but Kivy's cut buffer probe (above)."""
    errors = [line for line in stderr.splitlines()
              if line.startswith(("ERROR:", "CRITICAL:", "Traceback")) and not line.startswith(KIVY_CUTBUFFER)]
    assert errors == [], tail(stderr)


def results(stdout: str) -> list[dict]:
    return [json.loads(line[7:]) for line in stdout.splitlines() if line.startswith("RESULT ")]


def drive(journey: str, tmp_path: Path, display: str, rotate: int = 0,
          env: dict[str, str] | None = None) -> list[dict]:
    """Run *journey* in a fresh driver process (its stderr shown if it fails or hangs)."""
    config, ini, base = kiosk_files(tmp_path, rotate)
    proc = subprocess.Popen([sys.executable, str(DRIVER), journey, str(config), str(ini)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**os.environ, **base, **(env or {}), "DISPLAY": display})
    out, err = finish(proc, f"kiosk journey {journey}", 100)
    assert proc.returncode == 0, tail(err)
    no_errors(err)
    return results(out)


@pytest.mark.slow
@pytest.mark.parametrize("rotate", [0, 90])
def test_kiosk_app_cannot_be_left_and_listens_on_no_port(tmp_path: Path, display: str, rotate: int) -> None:
    assert drive("lockdown", tmp_path, display, rotate) == [{"ok": True, "listening": [], "rotation": rotate}]


@pytest.mark.slow
def test_kiosk_app_pin_locks_out_then_the_host_shuts_down(tmp_path: Path, display: str) -> None:
    runtime = tmp_path / "run"
    runtime.mkdir()
    out = drive("pin_and_shutdown", tmp_path, display, env={"RUNTIME_DIRECTORY": str(runtime)})
    assert out == [{"ok": True, "requests": ["poweroff"]}]


@pytest.mark.slow
def test_kiosk_app_watchdog_is_fed_by_the_ui_loop_and_stops_when_it_blocks(tmp_path: Path, display: str) -> None:
    """Waits are for datagrams and lines (deadlines scaled by the slowdown). The one wait that
    must see nothing, while the loop stands still, cannot pass by luck: the loop is blocked on
    the test's next word, so nothing can come however long it waits."""
    config, ini, env = kiosk_files(tmp_path)
    address = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(address))
    proc = subprocess.Popen([sys.executable, str(DRIVER), "watchdog", str(config), str(ini)], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **env, "DISPLAY": display, "NOTIFY_SOCKET": str(address),
                                 "WATCHDOG_USEC": str(WATCHDOG_USEC)})
    app = Lines(proc, "the kiosk's app")

    def datagram(timeout_s: float) -> bytes:
        sock.settimeout(scaled(timeout_s))
        try:
            return sock.recv(4096)
        except TimeoutError:
            app.fail(f"no notification in {scaled(timeout_s):g} s")

    try:
        assert datagram(60) == b"READY=1\nSTATUS=running"
        assert [datagram(10) for _ in range(3)] == [b"WATCHDOG=1"] * 3  # the loop runs: it says so
        app.write("block\n")
        assert app.next(30) == "BLOCKING\n"
        sock.setblocking(False)
        while True:  # what the loop sent before it printed BLOCKING is already queued: drain it
            try:
                assert sock.recv(4096) == b"WATCHDOG=1"
            except BlockingIOError:
                break
        sock.settimeout(3 * WATCHDOG_USEC / 1e6)  # three whole periods: systemd would have killed it
        with pytest.raises(TimeoutError):
            sock.recv(4096)
        app.write("go\n")
        assert datagram(30) == b"WATCHDOG=1"  # the loop runs again, and says so
        app.write("done\n")
        assert app.wait(60) == 0, tail(app.stderr)
    finally:
        app.stop()
    err = app.stderr
    no_errors(err)
    assert results("".join(app.drain())) == [{"ok": True}]
    rest = []
    sock.setblocking(False)
    while True:
        try:
            rest.append(sock.recv(4096))
        except BlockingIOError:
            break
    assert rest[-1:] == [b"STOPPING=1"] and set(rest[:-1]) <= {b"WATCHDOG=1"}, (rest, tail(err))  # nothing after
    sock.close()


@pytest.mark.slow
def test_kiosk_run_without_a_display_is_one_line_and_kept_for_the_fallback(tmp_path: Path) -> None:
    config, ini, env = kiosk_files(tmp_path)
    env = {k: v for k, v in {**os.environ, **env}.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY",
                                                                       "SDL_VIDEODRIVER")}
    done = run([sys.executable, "-m", "companion", "kiosk", "run", "--config", str(config),
                "--kivy-config", str(ini)], timeout_s=60, env=env, cwd=ROOT)
    message = ("no display: the kiosk's unit sets SDL_VIDEODRIVER=kmsdrm (or runs under cage); elsewhere run it "
               "on a virtual display with xvfb-run")
    assert (done.returncode, done.stderr) == (2, f"companion: {message}\n")
    assert (config.parent / "last-error.txt").read_text() == message + "\n"


@pytest.mark.slow
def test_kiosk_run_refuses_a_config_not_in_kiosk_mode(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[ui]\nkiosk = false\n")
    done = companion("kiosk", "run", "--config", str(config))
    assert (done.returncode, done.stderr) == (2, f"companion: config {config}: ui.kiosk is false: the kiosk's "
                                                 "app runs only in kiosk mode (set ui.kiosk = true, or run "
                                                 "`companion app`)\n")
