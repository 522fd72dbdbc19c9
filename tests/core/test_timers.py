from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import InvalidInput, TimerStateError, UnknownTimer
from companion.events import (
    EventBus,
    TimerAdjusted,
    TimerCancelled,
    TimerExpired,
    TimerPaused,
    TimerReset,
    TimerResumed,
    TimerStarted,
    TimerTicked,
    WarningReached,
)
from companion.timers import RESOLUTION_S, Countdown, Phase, TimerBoard
from tests.conftest import FakeClock, Recorder


def run(timer: Countdown, clock: FakeClock, seconds: float, step: float = 0.25):
    """Advance in steps, polling like a loop would; returns the timer and the events seen."""
    seen = []
    end = clock.now() + seconds
    while clock.now() < end - 1e-12:
        clock.advance(min(step, end - clock.now()))
        timer, events = timer.poll(clock.now())
        seen += events
    return timer, seen


def test_countdown_pause_freezes_remaining_time(clock: FakeClock) -> None:
    timer, _ = Countdown("market", 60).start(clock.now())
    clock.advance(15)
    timer, events = timer.pause(clock.now())
    clock.advance(600)
    assert timer.remaining_s(clock.now()) == 45
    assert events == [TimerPaused("market", 45, 60, 1015)]


def test_countdown_events_in_order_start_warnings_expiry(clock: FakeClock) -> None:
    timer, events = Countdown("negotiation", 60).start(clock.now())
    timer, more = run(timer, clock, 61, step=0.5)
    events += more
    assert [type(e) for e in events] == [TimerStarted, WarningReached, WarningReached, TimerExpired]
    assert [e.threshold_s for e in events if isinstance(e, WarningReached)] == [10, 3]
    assert [e.index for e in events if isinstance(e, WarningReached)] == [0, 1]
    expired = events[-1]
    assert isinstance(expired, TimerExpired) and expired.deadline_mono == 1060
    assert timer.phase is Phase.EXPIRED and timer.remaining_s(clock.now()) == 0


def test_countdown_three_second_timer_warns_at_three_only(clock: FakeClock) -> None:
    timer, events = Countdown("t", 3).start(clock.now())
    assert [type(e) for e in events] == [TimerStarted, WarningReached]
    assert events[1].threshold_s == 3 and events[1].remaining_s == 3
    timer, more = run(timer, clock, 3)
    assert [type(e) for e in more] == [TimerExpired]


def test_countdown_late_poll_delivers_everything_due_once_in_order(clock: FakeClock) -> None:
    timer, _ = Countdown("t", 30).start(clock.now())
    clock.advance(100)  # the loop was asleep through both warnings and the deadline
    timer, events = timer.poll(clock.now())
    assert [type(e) for e in events] == [WarningReached, WarningReached, TimerExpired]
    assert timer.poll(clock.now())[1] == []


def test_countdown_wall_clock_jump_changes_nothing(clock: FakeClock, monkeypatch) -> None:
    import time

    timer, _ = Countdown("t", 60).start(clock.now())
    monkeypatch.setattr(time, "time", lambda: 4_000_000_000.0)  # NTP sync after boot
    clock.advance(20)
    assert timer.remaining_s(clock.now()) == 40
    assert timer.poll(clock.now())[1] == []


def test_countdown_adjust_while_running_moves_deadline(clock: FakeClock) -> None:
    timer, _ = Countdown("t", 60).start(clock.now())
    clock.advance(10)
    timer, events = timer.adjust(+10, clock.now())
    assert timer.remaining_s(clock.now()) == 60
    assert events == [TimerAdjusted("t", 60, 60, 1010, delta_s=10)]
    assert timer.fraction_left(clock.now()) == 1.0


def test_countdown_removing_all_time_expires_now(clock: FakeClock) -> None:
    timer, _ = Countdown("t", 60).start(clock.now())
    clock.advance(50)
    timer, events = timer.adjust(-30, clock.now())
    assert [type(e) for e in events] == [WarningReached, TimerAdjusted, WarningReached, TimerExpired]
    assert timer.phase is Phase.EXPIRED


def test_countdown_warning_does_not_fire_twice_after_time_added(clock: FakeClock) -> None:
    timer, _ = Countdown("t", 20).start(clock.now())
    timer, events = run(timer, clock, 12)
    assert [e.threshold_s for e in events if isinstance(e, WarningReached)] == [10]
    timer, _ = timer.adjust(30, clock.now())
    timer, events = run(timer, clock, 40)
    assert [e.threshold_s for e in events if isinstance(e, WarningReached)] == [3]


def test_countdown_reset_rearms_warnings(clock: FakeClock) -> None:
    timer, _ = Countdown("t", 12).start(clock.now())
    timer, _ = run(timer, clock, 13)
    timer, events = timer.reset(clock.now())
    assert events == [TimerReset("t", 12, 12, 1013)]
    assert timer.phase is Phase.IDLE and timer.remaining_s(clock.now()) == 12
    timer, _ = timer.start(clock.now())
    timer, events = run(timer, clock, 13)
    assert [type(e) for e in events] == [WarningReached, WarningReached, TimerExpired]


def test_countdown_refuses_commands_that_make_no_sense(clock: FakeClock) -> None:
    timer, _ = Countdown("t", 5).start(clock.now())
    with pytest.raises(TimerStateError, match="'t' is running"):
        timer.start(clock.now())
    with pytest.raises(TimerStateError):
        Countdown("t", 5).pause(clock.now())
    timer, _ = run(timer, clock, 6)
    with pytest.raises(TimerStateError, match="expired"):
        timer.adjust(5, clock.now())


@pytest.mark.parametrize("total", [0, -5, float("nan"), float("inf"), 90_000, True, "60"])
def test_countdown_rejects_bad_length(total: object) -> None:
    with pytest.raises(InvalidInput, match="total_s"):
        Countdown("t", total)  # type: ignore[arg-type]


def test_countdown_next_tick_is_on_the_deadline_grid(clock: FakeClock) -> None:
    timer, _ = Countdown("t", 10).start(clock.now())
    clock.advance(0.537)
    assert timer.next_tick(clock.now(), 10) == pytest.approx(1000.6)
    clock.advance(9.4)  # 0.063 s left: the next boundary is the expiry itself
    assert timer.next_tick(clock.now(), 10) is None


def test_a_sliver_of_time_added_to_an_empty_glass_is_none(clock: FakeClock) -> None:
    """Hypothesis found it: 1e-307 s added to a paused timer with nothing left could not be
    held in a deadline (now + 1e-307 == now), so the model ran on while the timer expired."""
    timer, _ = Countdown("t", 1.0).start(clock.now())
    timer, _ = timer.pause(clock.now())
    timer, _ = timer.adjust(-1.0, clock.now())
    timer, _ = timer.adjust(1.1065863790672568e-307, clock.now())
    assert timer.remaining_s(clock.now()) == 0.0
    timer, _ = timer.toggle(clock.now())
    assert timer.phase is Phase.EXPIRED


# -- hypothesis: the timer's arithmetic and its events ----------------------------------------

commands = st.lists(
    st.tuples(st.sampled_from(["toggle", "adjust", "reset", "wait"]),
              st.floats(min_value=-40, max_value=40, allow_nan=False),
              st.floats(min_value=0, max_value=30, allow_nan=False)),
    max_size=30)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(total=st.floats(min_value=0.5, max_value=120), script=commands)
def test_countdown_remaining_matches_a_model(total: float, script) -> None:
    """Any sequence of start/pause/add-time/reset gives the exact remaining time."""
    clock, timer = FakeClock(), Countdown("t", total)
    left, running, expired = total, False, False  # the model: plain bookkeeping
    for command, delta, gap in script:
        now = clock.now()
        if command == "toggle" and not expired:
            timer, _ = timer.toggle(now)
            running = not running
        elif command == "adjust" and not expired:
            timer, _ = timer.adjust(delta, now)
            left = max(0.0, left + delta)
            left = 0.0 if left < RESOLUTION_S else left  # a deadline cannot hold less
        elif command == "reset":
            timer, _ = timer.reset(now)
            left, running, expired = total, False, False
        if running and left <= 0:
            running, expired = False, True
        clock.advance(gap)
        timer, _ = timer.poll(clock.now())
        if running:
            left = max(0.0, left - gap)
            if left <= 0:
                running, expired = False, True
        assert timer.remaining_s(clock.now()) == pytest.approx(left, abs=1e-6)
        assert timer.is_running == running
        assert (timer.phase is Phase.EXPIRED) == expired


@settings(max_examples=300, deadline=None)
@given(total=st.floats(min_value=0.5, max_value=60),
       warnings=st.lists(st.floats(min_value=0.1, max_value=90), max_size=4),
       script=commands)
@pytest.mark.slow
def test_countdown_each_warning_and_expiry_fire_once_in_order(total, warnings, script) -> None:
    """Within one run (start to reset), each warning fires at most once, in descending order,
    and every one armed at the start fires before the single expiry."""
    clock, timer = FakeClock(), Countdown("t", total, tuple(warnings))
    runs: list[list[object]] = [[]]
    for command, delta, gap in [*script, ("finish", 0, 0), ("wait", 0, 10_000)]:
        now = clock.now()
        if command == "finish":  # make sure the last run is running, then wait it out
            command = "toggle" if timer.phase in (Phase.IDLE, Phase.PAUSED) else "wait"
        try:
            if command == "toggle":
                timer, events = timer.toggle(now)
            elif command == "adjust":
                timer, events = timer.adjust(delta, now)
            elif command == "reset":
                timer, events = timer.reset(now)
                runs.append([])
            else:
                events = []
        except TimerStateError:
            events = []
        runs[-1] += events
        clock.advance(gap)
        timer, events = timer.poll(clock.now())
        runs[-1] += events
    for events in runs:
        fired = [e.threshold_s for e in events if isinstance(e, WarningReached)]
        assert fired == sorted(set(fired), reverse=True)
        expiries = [i for i, e in enumerate(events) if isinstance(e, TimerExpired)]
        assert len(expiries) <= 1
        if expiries:
            assert all(not isinstance(e, WarningReached) for e in events[expiries[0]:])
            assert events[expiries[0]] is events[-1] or all(
                isinstance(e, TimerReset) for e in events[expiries[0] + 1:])
    final = runs[-1]
    starts = [e for e in final if isinstance(e, TimerStarted)]
    if starts:  # the last run was started and waited out: every warning armed at its start fired
        armed = sorted({w for w in timer.warnings_s if w <= starts[0].remaining_s}, reverse=True)
        fired = [e.threshold_s for e in final if isinstance(e, WarningReached)]
        assert fired == armed
        assert isinstance(final[-1], TimerExpired)


@settings(max_examples=200, deadline=None)
@given(total=st.floats(min_value=1, max_value=100),
       gaps=st.lists(st.floats(min_value=0, max_value=5), min_size=1, max_size=40))
@pytest.mark.slow
def test_countdown_slow_listener_does_not_drift(total: float, gaps: list[float]) -> None:
    """However irregular the polling, expiry is seen at the first poll at or after the deadline."""
    clock = FakeClock()
    timer, _ = Countdown("t", total).start(clock.now())
    deadline = clock.now() + total
    for gap in gaps:
        clock.advance(gap)
        timer, events = timer.poll(clock.now())
        expired = [e for e in events if isinstance(e, TimerExpired)]
        if expired:
            assert expired[0].deadline_mono == deadline
            assert clock.now() >= deadline
            return
        assert clock.now() < deadline
        assert timer.remaining_s(clock.now()) == pytest.approx(deadline - clock.now())


# -- the board ----------------------------------------------------------------------------------


def test_board_runs_several_timers_and_publishes_in_time_order(clock: FakeClock, bus: EventBus) -> None:
    board = TimerBoard(clock, bus, warnings_s=())
    seen = Recorder(bus)
    board.add("market", 5)
    board.add("negotiation", 3)
    board.start("market")
    board.start("negotiation")
    clock.advance(10)
    assert board.poll() == ("negotiation", "market")  # those that ran out, in time order
    assert [(type(e).__name__, e.timer) for e in seen.events] == [
        ("TimerStarted", "market"), ("TimerStarted", "negotiation"),
        ("TimerExpired", "negotiation"), ("TimerExpired", "market")]
    assert board.poll() == ()


def test_board_cancel_publishes_time_left_and_forgets(clock: FakeClock, bus: EventBus) -> None:
    board = TimerBoard(clock, bus)
    seen = Recorder(bus, TimerCancelled)
    board.add("t", 60)
    board.start("t")
    clock.advance(25)
    board.cancel("t")
    assert seen.events == [TimerCancelled("t", 35, 60, 1025)]
    with pytest.raises(UnknownTimer, match="no timer named 't'"):
        board.pause("t")


def test_board_tick_reports_remaining_from_deadline(clock: FakeClock, bus: EventBus) -> None:
    board = TimerBoard(clock, bus, tick_hz=4)
    seen = Recorder(bus, TimerTicked)
    board.add("t", 60)
    board.start("t")
    assert board.next_tick() == pytest.approx(1000.25)
    clock.advance(0.3)
    board.tick()
    assert seen.events == [TimerTicked("t", pytest.approx(59.7), 60, 1000.3)]


def test_board_pause_resume_round_trip(clock: FakeClock, bus: EventBus) -> None:
    board = TimerBoard(clock, bus)
    seen = Recorder(bus)
    board.add("t", 30)
    board.toggle("t")
    clock.advance(5)
    board.toggle("t")
    clock.advance(100)
    board.toggle("t")
    assert [type(e) for e in seen.events] == [TimerStarted, TimerPaused, TimerResumed]
    assert seen.events[-1].remaining_s == 25
    assert board.next_due() == pytest.approx(clock.now() + 15)


def test_board_rejects_a_second_timer_with_the_same_name(clock: FakeClock, bus: EventBus) -> None:
    board = TimerBoard(clock, bus)
    board.add("t", 5)
    with pytest.raises(InvalidInput, match="already exists"):
        board.add("t", 5)


def test_countdown_flip_swaps_remaining_and_elapsed(clock: FakeClock) -> None:
    timer, _ = Countdown("t", 60).start(clock.now())
    clock.advance(45)
    timer, events = timer.flip(clock.now())
    assert timer.remaining_s(clock.now()) == 45
    assert [type(e).__name__ for e in events] == ["TimerFlipped"]
    assert timer.pending == (10.0, 3.0)  # warnings ahead of the new time left are armed again
    clock.advance(40)
    timer, events = timer.poll(clock.now())
    assert [e.threshold_s for e in events] == [10.0]


def test_countdown_flip_paused_stays_paused(clock: FakeClock) -> None:
    timer, _ = Countdown("t", 60).start(clock.now())
    clock.advance(20)
    timer, _ = timer.pause(clock.now())
    timer, _ = timer.flip(clock.now())
    clock.advance(100)
    assert timer.phase is Phase.PAUSED and timer.remaining_s(clock.now()) == 20


def test_countdown_flip_idle_is_refused(clock: FakeClock) -> None:
    with pytest.raises(TimerStateError, match="only a running or paused"):
        Countdown("t", 60).flip(clock.now())
