"""The fallback page: what it says, and the process the unit runs (it waits until systemd stops it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from kiosk.fallback import WIDTH, Failure, render_page
from tests.kiosk.conftest import ROOT


def test_fallback_page_names_the_failure_and_what_to_do() -> None:
    page = render_page(Failure("watchdog", "5", "companion: config /var/lib/table-companion/config.toml, line 3: "
                                                "ui.admin_pin: a PIN in plain text is no longer read",
                               ("Traceback (most recent call last):", "ZeroDivisionError: division by zero")))
    assert "TABLE COMPANION: the app could not be started" in page
    page = " ".join(page.split())  # the words, whatever the wrapping
    assert "the app stopped answering (its screen froze) and was restarted too often (restarted 5 times)." in page
    assert "ui.admin_pin" in page and "ZeroDivisionError: division by zero" in page
    assert "What to do: switch the table off and on again." in page
    assert "For the host: `journalctl -u companion-kiosk` has the whole log;" in page


@given(result=st.text(max_size=30), error=st.text(max_size=500),
       log=st.lists(st.text(max_size=200), max_size=8))
def test_fallback_page_fits_the_console(result: str, error: str, log: list[str]) -> None:
    page = render_page(Failure(result, "", error, tuple(log)))
    assert all(len(line) <= WIDTH for line in page.splitlines())


def test_fallback_process_shows_the_last_error_and_waits_for_sigterm(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    (tmp_path / "last-error.txt").write_text("companion: no display: the kiosk's unit sets SDL_VIDEODRIVER\n")
    proc = subprocess.Popen([sys.executable, "-m", "companion", "kiosk", "fallback", "--config", str(config)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**os.environ, "PATH": "/nonexistent"})  # no systemctl, no journalctl: still a page
    assert proc.stdout is not None
    lines: list[str] = []
    while "says what is installed." not in " ".join(" ".join(lines).split()):
        line = proc.stdout.readline()
        assert line, proc.stderr.read() if proc.stderr else ""
        lines.append(line.rstrip("\n"))
    assert lines[0].startswith("\x1b[2J\x1b[H")
    assert "    companion: no display: the kiosk's unit sets SDL_VIDEODRIVER" in lines
    proc.send_signal(signal.SIGINT)  # a keyboard's Ctrl+C: ignored
    proc.send_signal(signal.SIGTERM)  # systemd stopping it
    assert proc.wait(timeout=30) == 0
    assert proc.stderr is not None and proc.stderr.read() == ""
