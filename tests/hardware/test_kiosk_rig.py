"""Tests for a Raspberry Pi with the kiosk installed (``sudo companion kiosk install``), run as root.

Skipped unless COMPANION_KIOSK_RIG names the rig (``COMPANION_KIOSK_RIG=pi4`` or ``=pi5``):
``sudo COMPANION_KIOSK_RIG=pi4 .venv/bin/python -m pytest tests/hardware/test_kiosk_rig.py``.
They check on the real system what the staging-tree tests cannot: that Kivy's SDL2 has
KMS/DRM, that systemd accepts the installed units, that the app is up and fed its watchdog,
that a frozen app is killed and restarted, and that a crash loop ends on the fallback page.
They use the real clock and restart the kiosk's service; the table shows the app again when
they are done. What a person must look at (one touch is one tap, the picture the right way
up, no cursor) is listed in the README under "Setting up a table".
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kiosk import units
from kiosk.display import check_sdl

RIG = os.environ.get("COMPANION_KIOSK_RIG", "")
pytestmark = [
    pytest.mark.hardware,
    pytest.mark.skipif(not RIG, reason="set COMPANION_KIOSK_RIG to run on a Pi with the kiosk installed"),
]


def show(prop: str, unit: str = units.SERVICE) -> str:
    return subprocess.run(["systemctl", "show", unit, f"--property={prop}", "--value"], capture_output=True,
                          text=True, timeout=10, check=True).stdout.strip()


def until(predicate: Callable[[], bool], timeout_s: float, what: str) -> None:
    end = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.5)


@pytest.fixture
def running_kiosk() -> Iterator[None]:
    subprocess.run(["systemctl", "reset-failed", units.SERVICE], timeout=10)
    subprocess.run(["systemctl", "start", units.SERVICE], timeout=150, check=True)
    until(lambda: show("ActiveState") == "active", 150, "the kiosk to be up")
    yield
    subprocess.run(["systemctl", "reset-failed", units.SERVICE], timeout=10)
    subprocess.run(["systemctl", "restart", units.SERVICE], timeout=150)


def test_kiosk_rig_kivy_sdl2_has_kmsdrm() -> None:
    check = check_sdl()
    assert check.has_kmsdrm is True, check.to_text()


def test_kiosk_rig_units_pass_systemd_analyze_verify() -> None:
    for unit in units.UNITS:
        done = subprocess.run(["systemd-analyze", "verify", f"/etc/systemd/system/{unit}"], capture_output=True,
                              text=True, timeout=60)
        assert (unit, done.returncode, done.stdout + done.stderr) == (unit, 0, "")


def test_kiosk_rig_app_is_up_on_tty1_and_watched(running_kiosk: None) -> None:
    assert show("WatchdogUSec") == "20s"
    assert show("StatusText") == "running"
    assert Path("/sys/class/tty/tty0/active").read_text().strip() == "tty1"
    pid = int(show("MainPID"))
    assert Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[2:4] == [b"kiosk", b"run"]


def test_kiosk_rig_frozen_app_is_killed_and_restarted(running_kiosk: None) -> None:
    pid = int(show("MainPID"))
    restarts = int(show("NRestarts"))
    os.kill(pid, signal.SIGSTOP)  # a frozen UI: the loop stops feeding the watchdog
    until(lambda: int(show("NRestarts")) > restarts, units.WATCHDOG_S + units.RESTART_S + 30, "a restart")
    until(lambda: show("ActiveState") == "active" and int(show("MainPID")) != pid, 150, "the app back")


def test_kiosk_rig_crash_loop_ends_on_the_fallback_page(running_kiosk: None) -> None:
    for _ in range(units.START_BURST + 1):
        until(lambda: show("ActiveState") in ("active", "activating", "failed"), 150, "a start")
        if show("ActiveState") == "failed":
            break
        subprocess.run(["systemctl", "kill", "--signal=SIGKILL", units.SERVICE], timeout=10)
        until(lambda: show("ActiveState") != "active", 30, "the kill")
    until(lambda: show("ActiveState", units.FALLBACK) == "active", 60, "the fallback page")
    assert show("Result") in ("start-limit-hit", "signal")


@pytest.mark.skipif(not os.environ.get("COMPANION_ACCESSORY"), reason="plug in the accessory and set "
                                                                       "COMPANION_ACCESSORY")
def test_kiosk_rig_accessory_has_its_stable_name() -> None:
    link = Path("/dev") / units.ACCESSORY_LINK
    assert link.exists(), "no /dev/table-accessory: is the accessory's USB id in accessory.usb_ids?"
    user = show("User")
    import pwd

    assert link.resolve().stat().st_uid == pwd.getpwnam(user).pw_uid
