"""The host's requests to the machine from the screen: power off safely, leave kiosk mode.

The kiosk's app runs as an ordinary user with no right to power the Pi off. It asks by
creating a file in its runtime directory (``/run/table-companion``, made by systemd for the
unit: ``RuntimeDirectory=``); a root-owned systemd path unit watches for each file and runs
one fixed command (``systemctl poweroff``, or stop the app and open a login prompt). No
polkit rule, no sudo, nothing that takes arguments from the app. The Settings screen, behind
the admin PIN, is the only place that calls this.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path

from companion.errors import CompanionError

RUNTIME_DIR = Path("/run/table-companion")
POWEROFF = "poweroff"
LEAVE = "leave"
ACTIONS = (POWEROFF, LEAVE)


class HostRequests:
    """Files in *directory* that the kiosk's path units turn into actions. Main thread."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> HostRequests | None:
        """The requests of the unit that started this process (``RUNTIME_DIRECTORY``, set by
        systemd; the first one if it lists several), or None outside the kiosk's unit."""
        env = os.environ if environ is None else environ
        first = env.get("RUNTIME_DIRECTORY", "").split(":")[0]
        return cls(Path(first)) if first else None

    def request(self, action: str) -> Path:
        """Ask for *action* (``poweroff`` or ``leave``); returns the file made.

        :raises CompanionError: for an unknown action or a directory that cannot be written.
        """
        if action not in ACTIONS:
            raise CompanionError(f"host request: unknown action {action!r} (known: {', '.join(ACTIONS)})")
        path = self.directory / action
        try:
            path.write_text(action + "\n", encoding="ascii")
        except OSError as exc:
            raise CompanionError(f"host request: cannot write {path} ({exc.strerror})") from None
        return path


LAST_ERROR_FILE = "last-error.txt"
"""Beside the kiosk's config: what stopped the app last, for the fallback page after a crash loop."""


def last_error_path(config_path: Path) -> Path:
    return config_path.parent / LAST_ERROR_FILE


def record_last_error(config_path: Path, text: str) -> None:
    """Keep *text* (a one-line error, or a traceback's last lines) for the fallback page.

    Never raises: this runs while the app is already failing, and must not hide why.
    """
    path = last_error_path(config_path)
    try:
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text.rstrip("\n") + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass


def clear_last_error(config_path: Path) -> None:
    """The app came up: an old error would only mislead the next fallback page."""
    with contextlib.suppress(OSError):
        last_error_path(config_path).unlink(missing_ok=True)
