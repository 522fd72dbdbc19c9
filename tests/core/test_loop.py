"""The core loop, driven by a fake clock that travels to each wake-up instead of sleeping."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from companion.events import EventBus, TimerExpired, TimerTicked, WarningReached
from companion.loop import CoreLoop
from companion.timers import TimerBoard
from tests.conftest import FakeClock, Recorder


class TimeTravelLoop(CoreLoop):
    """A CoreLoop whose waits move the fake clock; closures can be scheduled at fake times."""

    def __init__(self, board: TimerBoard, clock: FakeClock) -> None:
        super().__init__(board, clock)
        self.fake = clock
        self.scheduled: list[tuple[float, Callable[[], None]]] = []

    def at(self, t: float, fn: Callable[[], None]) -> None:
        self.scheduled.append((t, fn))
        self.scheduled.sort(key=lambda s: s[0])

    def _wait(self, timeout: float | None) -> Callable[[], None] | None:
        wake = None if timeout is None else self.fake.now() + timeout
        if self.scheduled and (wake is None or self.scheduled[0][0] <= wake):
            t, fn = self.scheduled.pop(0)
            self.fake.t = max(self.fake.t, t)
            return fn
        if wake is None:
            raise AssertionError("the loop would sleep forever")
        self.fake.t = wake
        return None


def make(clock: FakeClock, bus: EventBus, tick_hz: float = 10) -> tuple[TimerBoard, TimeTravelLoop]:
    board = TimerBoard(clock, bus, tick_hz=tick_hz)
    return board, TimeTravelLoop(board, clock)


def test_loop_fires_warnings_and_expiry_exactly_at_their_times(clock: FakeClock, bus: EventBus) -> None:
    board, loop = make(clock, bus)
    seen = Recorder(bus)
    bus.subscribe(TimerExpired, lambda e: loop.stop())
    board.add("t", 60)
    board.start("t")
    loop.run()
    warnings = [e for e in seen.events if isinstance(e, WarningReached)]
    assert [(w.threshold_s, w.t_mono) for w in warnings] == [(10, 1050), (3, 1057)]
    expired = seen.events[-1]
    assert isinstance(expired, TimerExpired) and expired.t_mono == expired.deadline_mono == 1060
    ticks = [e for e in seen.events if isinstance(e, TimerTicked)]
    assert len(ticks) == 599  # 59.9, 59.8, ... 0.1: on the grid, none at the expiry itself
    assert ticks[0].remaining_s == pytest.approx(59.9)
    assert ticks[-1].remaining_s == pytest.approx(0.1)


def test_loop_slow_tick_listener_neither_drifts_nor_delays_the_expiry(
    clock: FakeClock, bus: EventBus
) -> None:
    board, loop = make(clock, bus, tick_hz=20)  # a tick every 50 ms ...
    seen = Recorder(bus)
    bus.subscribe(TimerTicked, lambda e: clock.advance(0.07))  # ... whose handler takes 70 ms
    bus.subscribe(TimerExpired, lambda e: loop.stop())
    board.add("t", 60)
    board.start("t")
    loop.run()
    expired = [e for e in seen.events if isinstance(e, TimerExpired)]
    assert len(expired) == 1 and expired[0].t_mono == expired[0].deadline_mono
    for w in (e for e in seen.events if isinstance(e, WarningReached)):
        assert w.remaining_s == w.threshold_s  # seen on time, not after a tick finished
    ticks = [e for e in seen.events if isinstance(e, TimerTicked)]
    for tick in ticks:  # each tick reports the truth at the moment it ran
        assert tick.remaining_s == pytest.approx(expired[0].deadline_mono - tick.t_mono)
    assert 500 < len(ticks) < 1200
    assert loop.ticks_skipped >= 1


def test_loop_runs_posted_closures_in_order(clock: FakeClock, bus: EventBus) -> None:
    board, loop = make(clock, bus)
    seen = Recorder(bus)
    board.add("t", 30)
    loop.at(1000, lambda: board.start("t"))
    loop.at(1005, lambda: board.pause("t"))
    loop.at(1100, lambda: board.resume("t"))
    loop.at(1200, loop.stop)
    loop.run()
    kinds = [k for k in seen.kinds() if k != "TimerTicked"]
    assert kinds == ["TimerStarted", "TimerPaused", "TimerResumed", "WarningReached",
                     "WarningReached", "TimerExpired"]
    assert seen.events[-1].t_mono == 1125
