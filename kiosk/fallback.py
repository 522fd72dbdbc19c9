"""The fallback page: plain text on tty1 when the app failed too often for systemd to go on.

After five failed starts in ten minutes the kiosk's unit gives up, and its ``OnFailure=``
starts this page instead of leaving a black screen: what went wrong (systemd's verdict, the
error the app recorded beside its config, the last lines of its log) and what a player can do.
It needs no graphics at all (the graphics may be what failed), only the console, and it is in
English: the console's font may have no Cyrillic, and the host is the one who reads the details.
The page then waits, doing nothing, until systemd stops it (a restart of the kiosk does).
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import textwrap
from dataclasses import dataclass
from pathlib import Path

from companion.config import default_config_path
from kiosk.host import last_error_path
from kiosk.units import SERVICE

WIDTH = 78
RESULTS = {
    "exit-code": "the app stopped with an error",
    "signal": "the app was killed by a signal",
    "core-dump": "the app crashed",
    "watchdog": "the app stopped answering (its screen froze) and was restarted too often",
    "timeout": "the app took too long to start",
    "start-limit-hit": "the app failed to start several times in a row",
    "resources": "the system could not start the app (a missing file, user or device)",
}
"""systemd's ``Result`` of the unit, in words."""


@dataclass(frozen=True)
class Failure:
    """What the page shows: systemd's verdict, the app's last error, its last log lines."""

    result: str
    restarts: str
    last_error: str
    log: tuple[str, ...]


def render_page(failure: Failure, width: int = WIDTH) -> str:
    """The page's text, every line at most *width* characters. Pure."""
    def wrap(text: str, indent: str = "  ") -> list[str]:
        out: list[str] = []
        for line in text.splitlines() or [""]:
            out += textwrap.wrap(line, width, initial_indent=indent, subsequent_indent=indent + "  ",
                                 break_long_words=True, replace_whitespace=False) or [indent.rstrip()]
        return out

    lines = ["", "  TABLE COMPANION: the app could not be started", "  " + "=" * 44, ""]
    verdict = RESULTS.get(failure.result, f"systemd says: {failure.result or 'unknown'}")
    lines += wrap(f"What happened: {verdict}" + (f" (restarted {failure.restarts} times)."
                                                 if failure.restarts not in ("", "0") else "."))
    lines.append("")
    if failure.last_error:
        lines += wrap("Last error:") + wrap(failure.last_error, "    ")
        lines.append("")
    if failure.log:
        lines += wrap("Last lines of its log:")
        lines += [line for entry in failure.log for line in wrap(entry, "    ")]
        lines.append("")
    lines += wrap("What to do: switch the table off and on again. If this page comes back, call the host.")
    lines.append("")
    lines += wrap("For the host: `journalctl -u companion-kiosk` has the whole log; `sudo systemctl restart "
                  "companion-kiosk` tries again; `companion kiosk status` says what is installed.")
    return "\n".join(line[:width] for line in lines) + "\n"


def _command(argv: list[str]) -> str:
    if shutil.which(argv[0]) is None:
        return ""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout if done.returncode == 0 else ""


def gather(config_path: Path) -> Failure:
    """What systemd and the app say about the failure; each part empty when it cannot be had."""
    shown = _command(["systemctl", "show", SERVICE, "--property=Result,NRestarts"])
    props = dict(line.split("=", 1) for line in shown.splitlines() if "=" in line)
    try:
        last_error = last_error_path(config_path).read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        last_error = ""
    log = _command(["journalctl", "--unit", SERVICE, "--lines", "8", "--output", "cat", "--no-pager",
                    "--quiet"]).splitlines()
    return Failure(props.get("Result", ""), props.get("NRestarts", ""), last_error[-2000:],
                   tuple(line for line in log if line.strip())[-8:])


def show_fallback(config_path: Path | None) -> int:
    """Clear the console, draw the page, and wait until systemd stops this (SIGTERM): returns 0."""
    for sig in (signal.SIGINT, signal.SIGQUIT, signal.SIGTSTP, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)  # a keyboard at the table cannot end the page
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})  # held for sigwait: none slips past
    page = render_page(gather(config_path if config_path is not None else default_config_path()))
    print("\x1b[2J\x1b[H" + page, end="", flush=True)
    signal.sigwait({signal.SIGTERM})
    return 0
