"""Countdown timers: a pure :class:`Countdown` value and a :class:`TimerBoard` of named ones.

Every method takes ``now`` (monotonic seconds) and returns the new state with the
events it caused; nothing here reads the time or sleeps. The remaining time is
always ``deadline - now``: it is never summed from ticks, so a slow listener
cannot make a timer drift, and a wall-clock jump cannot touch it.

Warnings: each threshold at or below the time left when a run starts fires once
in that run, in descending order, before the expiry; a reset arms them again.
Time added after a warning fired does not make it fire a second time.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum

from companion.clock import Clock
from companion.errors import InvalidInput, TimerStateError, UnknownTimer
from companion.events import (
    EventBus,
    TimerAdjusted,
    TimerCancelled,
    TimerEvent,
    TimerExpired,
    TimerFlipped,
    TimerPaused,
    TimerReset,
    TimerRestored,
    TimerResumed,
    TimerStarted,
    TimerTicked,
    WarningReached,
)

DEFAULT_WARNINGS_S: tuple[float, ...] = (10.0, 3.0)
MAX_TIMER_S = 24 * 3600.0
MIN_TIMER_S = 1.0
"""The shortest duration a person may type or configure; the core itself takes any positive one."""
RESOLUTION_S = 1e-6
"""Time left under this after an adjustment or a flip counts as none: a deadline on the
monotonic clock (thousands of seconds) cannot hold less."""


class Phase(Enum):
    IDLE = "idle"  # not started since creation or the last reset
    RUNNING = "running"
    PAUSED = "paused"
    EXPIRED = "expired"


def check_duration(field: str, value: float, *, allow_zero: bool = False, at_least: float = 0.0) -> float:
    """Return *value* as a float if it is a usable duration in seconds.

    The core takes any positive duration up to :data:`MAX_TIMER_S`; what a person types or
    configures is also held to *at_least* (:data:`MIN_TIMER_S`, 1 s), except a zero that
    *allow_zero* permits.

    :raises InvalidInput: for a bool or non-number, NaN, infinity, a negative value, zero
        (unless allowed), less than *at_least* or more than a day.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidInput(field, value, "must be a number of seconds")
    seconds = float(value)
    if not math.isfinite(seconds):
        raise InvalidInput(field, value, "must be a finite number of seconds")
    if seconds < 0 or (seconds == 0 and not allow_zero):
        raise InvalidInput(field, value, "must be positive" if not allow_zero else "must not be negative")
    if 0 < seconds < at_least:
        raise InvalidInput(field, value, f"must be {'0 or ' if allow_zero else ''}at least {at_least:g} s")
    if seconds > MAX_TIMER_S:
        raise InvalidInput(field, value, f"must be at most {MAX_TIMER_S:.0f} s (a day)")
    return seconds


def normalise_warnings(warnings_s: Iterable[float]) -> tuple[float, ...]:
    """Distinct positive thresholds, largest first.

    :raises InvalidInput: for a threshold that is not a positive duration.
    """
    return tuple(sorted({check_duration("warnings_s", w) for w in warnings_s}, reverse=True))


@dataclass(frozen=True)
class Countdown:
    """One named countdown. Pure: every command takes *now* and returns ``(new, events)``.

    ``left_s`` is the time left while not running; ``deadline`` is set while running.
    ``pending`` holds the warning thresholds not yet delivered in this run.
    """

    name: str
    total_s: float
    warnings_s: tuple[float, ...] = DEFAULT_WARNINGS_S
    phase: Phase = Phase.IDLE
    deadline: float | None = None
    left_s: float | None = None
    pending: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if not self.name.strip():
            raise InvalidInput("name", self.name, "a timer needs a name")
        check_duration("total_s", self.total_s)
        object.__setattr__(self, "warnings_s", normalise_warnings(self.warnings_s))

    # -- queries --------------------------------------------------------------------------

    @property
    def is_running(self) -> bool:
        return self.phase is Phase.RUNNING

    def remaining_s(self, now: float) -> float:
        """Seconds left at *now*, never negative; computed from the deadline while running."""
        if self.deadline is not None:
            return max(0.0, self.deadline - now)
        if self.phase is Phase.EXPIRED:
            return 0.0
        return self.total_s if self.left_s is None else self.left_s

    def fraction_left(self, now: float) -> float:
        """Remaining over total, clamped to 0..1 (time added beyond the total shows full)."""
        return min(1.0, self.remaining_s(now) / self.total_s)

    def next_due(self) -> float | None:
        """Monotonic time of this timer's next warning or expiry, or None when not running."""
        if self.deadline is None:
            return None
        return self.deadline - (self.pending[0] if self.pending else 0.0)

    def next_tick(self, now: float, tick_hz: float) -> float | None:
        """When the remaining time next crosses a multiple of ``1 / tick_hz``, or None.

        Derived from the deadline alone, so ticks stay on the same grid however late
        the previous one was handled.
        """
        if self.deadline is None:
            return None
        steps_left = math.ceil((self.deadline - now) * tick_hz - 1e-9) - 1
        if steps_left < 1:  # the next boundary is the expiry itself, which is not a tick
            return None
        return self.deadline - steps_left / tick_hz

    # -- commands -------------------------------------------------------------------------

    def start(self, now: float) -> tuple[Countdown, list[TimerEvent]]:
        """Start a fresh run or continue a paused one.

        :raises TimerStateError: when already running or expired (reset it first).
        """
        if self.phase is Phase.PAUSED:
            return self.resume(now)
        if self.phase is not Phase.IDLE:
            raise TimerStateError(f"timer {self.name!r} is {self.phase.value}; cannot start it")
        left = self.remaining_s(now)
        armed = tuple(w for w in self.warnings_s if w <= left)
        started = replace(self, phase=Phase.RUNNING, deadline=now + left, left_s=None, pending=armed)
        first: list[TimerEvent] = [TimerStarted(self.name, left, self.total_s, now)]
        after, due = started.poll(now)
        return after, first + due

    def pause(self, now: float) -> tuple[Countdown, list[TimerEvent]]:
        """:raises TimerStateError: when not running."""
        if self.phase is not Phase.RUNNING:
            raise TimerStateError(f"timer {self.name!r} is {self.phase.value}; cannot pause it")
        after, due = self.poll(now)  # what fell due before the pause is still delivered
        if after.phase is Phase.EXPIRED:
            return after, due
        left = after.remaining_s(now)
        paused = replace(after, phase=Phase.PAUSED, deadline=None, left_s=left)
        return paused, [*due, TimerPaused(self.name, left, self.total_s, now)]

    def resume(self, now: float) -> tuple[Countdown, list[TimerEvent]]:
        """:raises TimerStateError: when not paused."""
        if self.phase is not Phase.PAUSED:
            raise TimerStateError(f"timer {self.name!r} is {self.phase.value}; cannot resume it")
        left = self.remaining_s(now)
        resumed = replace(self, phase=Phase.RUNNING, deadline=now + left, left_s=None)
        after, due = resumed.poll(now)
        return after, [TimerResumed(self.name, left, self.total_s, now), *due]

    def toggle(self, now: float) -> tuple[Countdown, list[TimerEvent]]:
        """Start or resume when stopped, pause when running: what one tap on a sand-timer does.

        :raises TimerStateError: when expired.
        """
        return self.pause(now) if self.phase is Phase.RUNNING else self.start(now)

    def adjust(self, delta_s: float, now: float) -> tuple[Countdown, list[TimerEvent]]:
        """Add (positive) or remove (negative) time; the time left never goes below zero.

        Removing all the time from a running timer expires it now.

        :raises TimerStateError: when expired.
        :raises InvalidInput: for a delta that is not a finite number.
        """
        if isinstance(delta_s, bool) or not isinstance(delta_s, (int, float)) or not math.isfinite(delta_s):
            raise InvalidInput("delta_s", delta_s, "must be a finite number of seconds")
        if self.phase is Phase.EXPIRED:
            raise TimerStateError(f"timer {self.name!r} has expired; reset it to change its time")
        after, due = self.poll(now)
        if after.phase is Phase.EXPIRED:
            return after, due
        left = _time_left(after.remaining_s(now) + delta_s)
        if after.deadline is not None:
            changed = replace(after, deadline=now + left)
        else:
            changed = replace(after, left_s=left)
        event = TimerAdjusted(self.name, left, self.total_s, now, delta_s=float(delta_s))
        final, more = changed.poll(now)
        return final, [*due, event, *more]

    def flip(self, now: float) -> tuple[Countdown, list[TimerEvent]]:
        """Turn it over like an hourglass mid-run: the time that has run becomes the time left.

        Warnings still ahead of the new time left are armed again (a flip starts the sand
        afresh); one at or below it is not, so nothing fires the instant it is flipped.

        :raises TimerStateError: unless running or paused (a full or empty glass has nothing
            to turn).
        """
        if self.phase not in (Phase.RUNNING, Phase.PAUSED):
            raise TimerStateError(f"timer {self.name!r} is {self.phase.value}; only a running or paused "
                                  "timer can be flipped")
        after, due = self.poll(now)
        if after.phase is Phase.EXPIRED:
            return after, due
        left = _time_left(after.total_s - after.remaining_s(now))
        armed = tuple(w for w in after.warnings_s if w < left)
        if after.deadline is not None:
            flipped = replace(after, deadline=now + left, pending=armed)
        else:
            flipped = replace(after, left_s=left, pending=armed)
        final, more = flipped.poll(now)
        return final, [*due, TimerFlipped(self.name, left, self.total_s, now), *more]

    def reset(self, now: float) -> tuple[Countdown, list[TimerEvent]]:
        """Back to the full length, stopped, with its warnings armed again."""
        fresh = replace(self, phase=Phase.IDLE, deadline=None, left_s=None, pending=())
        return fresh, [TimerReset(self.name, self.total_s, self.total_s, now)]

    def poll(self, now: float) -> tuple[Countdown, list[TimerEvent]]:
        """Deliver every warning and the expiry that fell due by *now*, in order, once each."""
        if self.phase is not Phase.RUNNING or self.deadline is None:
            return self, []
        left = self.remaining_s(now)
        events: list[TimerEvent] = []
        pending = self.pending
        while pending and pending[0] >= left:
            threshold = pending[0]
            index = self.warnings_s.index(threshold)
            events.append(WarningReached(self.name, left, self.total_s, now, threshold, index))
            pending = pending[1:]
        if left <= 0.0:
            events.append(TimerExpired(self.name, 0.0, self.total_s, now, self.deadline))
            return replace(self, phase=Phase.EXPIRED, deadline=None, left_s=0.0, pending=()), events
        return (replace(self, pending=pending) if events else self), events


class TimerBoard:
    """Any number of named countdowns at once, on one clock, publishing to one bus.

    Main thread only (the thread that owns the core). The owner calls :meth:`poll`
    at :meth:`next_due` and :meth:`tick` at :meth:`next_tick`; see ``companion.loop``.
    """

    def __init__(self, clock: Clock, bus: EventBus, *, tick_hz: float = 10.0,
                 warnings_s: Sequence[float] = DEFAULT_WARNINGS_S) -> None:
        if not (isinstance(tick_hz, (int, float)) and 0 < tick_hz <= 100):
            raise InvalidInput("tick_hz", tick_hz, "must be between 0 and 100")
        self.clock = clock
        self.bus = bus
        self.tick_hz = float(tick_hz)
        self.warnings_s = normalise_warnings(warnings_s)
        self._timers: dict[str, Countdown] = {}

    def __contains__(self, name: object) -> bool:
        return name in self._timers

    def __getitem__(self, name: str) -> Countdown:
        try:
            return self._timers[name]
        except KeyError:
            raise UnknownTimer(f"no timer named {name!r}") from None

    @property
    def names(self) -> list[str]:
        return list(self._timers)

    def add(self, name: str, total_s: float, *, warnings_s: Sequence[float] | None = None) -> Countdown:
        """Create a stopped timer.

        :raises InvalidInput: for a name already in use or a bad duration.
        """
        if name in self._timers:
            raise InvalidInput("name", name, "a timer with this name already exists")
        timer = Countdown(name, total_s, self.warnings_s if warnings_s is None else tuple(warnings_s))
        self._timers[name] = timer
        return timer

    def _apply(self, name: str, result: tuple[Countdown, list[TimerEvent]]) -> None:
        self._timers[name], events = result
        for event in events:
            self.bus.publish(event)

    def start(self, name: str) -> None:
        self._apply(name, self[name].start(self.clock.now()))

    def pause(self, name: str) -> None:
        self._apply(name, self[name].pause(self.clock.now()))

    def resume(self, name: str) -> None:
        self._apply(name, self[name].resume(self.clock.now()))

    def toggle(self, name: str) -> None:
        self._apply(name, self[name].toggle(self.clock.now()))

    def adjust(self, name: str, delta_s: float) -> None:
        self._apply(name, self[name].adjust(delta_s, self.clock.now()))

    def reset(self, name: str) -> None:
        self._apply(name, self[name].reset(self.clock.now()))

    def flip(self, name: str) -> None:
        self._apply(name, self[name].flip(self.clock.now()))

    def restore(self) -> None:
        """Publish every timer's current state as :class:`TimerRestored` (after a rebuild)."""
        now = self.clock.now()
        for name, timer in self._timers.items():
            self.bus.publish(TimerRestored(name, timer.remaining_s(now), timer.total_s, now,
                                           phase=timer.phase.value))

    def clear(self) -> None:
        """Forget every timer without a word (the session is about to replay its log)."""
        self._timers.clear()

    def cancel(self, name: str) -> None:
        """Remove a timer; publishes :class:`TimerCancelled` with the time it had left."""
        now = self.clock.now()
        timer = self[name]
        del self._timers[name]
        self.bus.publish(TimerCancelled(name, timer.remaining_s(now), timer.total_s, now))

    def poll(self) -> tuple[str, ...]:
        """Publish every warning and expiry that has fallen due, across all timers, in time order;
        the names of the timers that ran out."""
        now = self.clock.now()
        due: list[tuple[float, int, str, Countdown, list[TimerEvent]]] = []
        for order, (name, timer) in enumerate(self._timers.items()):
            when = timer.next_due()
            if when is not None and when <= now:
                after, events = timer.poll(now)
                due.append((when, order, name, after, events))
        due.sort(key=lambda d: (d[0], d[1]))
        for _, _, name, after, events in due:
            self._apply(name, (after, events))
        return tuple(name for _, _, name, after, _ in due if after.phase is Phase.EXPIRED)

    def tick(self) -> None:
        """Publish a :class:`TimerTicked` for every running timer, its time left from the deadline."""
        now = self.clock.now()
        for name, timer in list(self._timers.items()):
            if timer.is_running:
                self.bus.publish(TimerTicked(name, timer.remaining_s(now), timer.total_s, now))

    def next_due(self) -> float | None:
        """Earliest monotonic time at which :meth:`poll` has something to publish."""
        times = [t for t in (timer.next_due() for timer in self._timers.values()) if t is not None]
        return min(times, default=None)

    def next_tick(self) -> float | None:
        """Earliest monotonic time at which some running timer's display should tick."""
        now = self.clock.now()
        times = [t for t in (timer.next_tick(now, self.tick_hz) for timer in self._timers.values())
                 if t is not None]
        return min(times, default=None)

    @property
    def is_idle(self) -> bool:
        """True when no timer is running or paused (nothing left to wait for)."""
        return all(t.phase in (Phase.IDLE, Phase.EXPIRED) for t in self._timers.values())


def main_timer(timers: Mapping[str, Countdown]) -> str | None:
    """The table's main timer among *timers* (by name, in the board's order): the running one
    that ends first, else the first one; None when there are none."""
    running = [(t.deadline if t.deadline is not None else math.inf, i, name)
               for i, (name, t) in enumerate(timers.items()) if t.phase is Phase.RUNNING]
    if running:
        return min(running)[2]
    return next(iter(timers), None)


def _time_left(seconds: float) -> float:
    """*seconds* of time left, within 0 and :data:`MAX_TIMER_S`, and 0 under :data:`RESOLUTION_S`."""
    left = min(MAX_TIMER_S, max(0.0, seconds))
    return 0.0 if left < RESOLUTION_S else left
