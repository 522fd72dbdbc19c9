"""What every command group of the ``companion`` command shares."""

from __future__ import annotations

import signal
from collections.abc import Callable

EXIT_OK, EXIT_USAGE, EXIT_CANCELLED = 0, 2, 130


class UsageError(Exception):
    """Bad command-line arguments (raised by the parser instead of printing usage)."""


def signals_interrupt() -> Callable[[], None]:
    """SIGTERM (systemd, kill) cancels like Ctrl-C, so the same clean-up runs."""
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)

    def restore() -> None:
        signal.signal(signal.SIGTERM, previous)

    return restore
