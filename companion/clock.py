"""Time for the core: monotonic seconds, injected so tests can drive it.

A Raspberry Pi has no real-time clock; its wall clock jumps when NTP syncs after
boot. Timers therefore never look at wall time: only :class:`MonotonicClock`
reads the time, and only from ``time.monotonic()``.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """Something that tells monotonic seconds."""

    def now(self) -> float: ...


class MonotonicClock:
    """The real clock: ``time.monotonic()``. The only core code that reads the time."""

    def now(self) -> float:
        return time.monotonic()


def wall_now() -> float:
    """Wall-clock seconds since the epoch: only ever written into records, never used to time."""
    return time.time()


BOOT_ID_FILE = "/proc/sys/kernel/random/boot_id"


def boot_id() -> str:
    """This boot's id: monotonic times recorded under another boot id mean nothing now.

    Linux gives each boot a random id; elsewhere the answer is ``"unknown"`` (treated as
    another boot, so times are recomputed from the wall clock).
    """
    try:
        with open(BOOT_ID_FILE, encoding="ascii") as f:
            return f.read().strip() or "unknown"
    except OSError:
        return "unknown"
