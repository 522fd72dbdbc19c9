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
