"""The venue's view of a table's timers: each countdown as its ``timer/NAME`` body.

Pure: read from the core's :class:`~companion.timers.Countdown` values at a monotonic and a wall
time, so a running timer's deadline goes on the wire as a wall time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from companion.timers import Countdown
from venue.protocol import timer_body

TimerSource = Callable[[], Mapping[str, Countdown]]
"""The table's timers now, by name, in the board's order."""


def timer_states(timers: Mapping[str, Countdown], now_mono: float,
                 now_wall: float) -> dict[str, dict[str, Any]]:
    """Each timer's body (``docs/venue-protocol.md``), in the board's order."""
    states = {}
    for name, timer in timers.items():
        remaining = timer.remaining_s(now_mono)
        deadline = None if timer.deadline is None else now_wall + (timer.deadline - now_mono)
        states[name] = timer_body(name, timer.phase.value, remaining, timer.total_s, deadline, now_wall)
    return states
