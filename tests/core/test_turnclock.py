from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import InvalidInput, TimerStateError
from companion.events import OvertimeReached, TurnPassed, TurnStarted
from companion.turnclock import TurnClock
from tests.conftest import FakeClock


def test_turnclock_tap_passes_turn_and_charges_the_player(clock: FakeClock) -> None:
    tc, events = TurnClock.for_players(["Anna", "Bence", "Csilla"], 60).start(clock.now())
    assert events == [TurnStarted("Anna", 60, 1000)]
    clock.advance(20)
    tc, events = tc.pass_turn(clock.now())
    assert events == [TurnPassed("Anna", "Bence", 20, 60, 1020)]
    clock.advance(5)
    assert tc.player == "Bence"
    assert tc.remaining_s("Anna", clock.now()) == 40
    assert tc.remaining_s("Bence", clock.now()) == 55
    assert tc.remaining_s("Csilla", clock.now()) == 60


def test_turnclock_reports_overtime_once_and_keeps_counting(clock: FakeClock) -> None:
    tc, _ = TurnClock.for_players(["A", "B"], 10).start(clock.now())
    clock.advance(9)
    tc, events = tc.poll(clock.now())
    assert events == []
    assert tc.next_due() == 1010
    clock.advance(4)
    tc, events = tc.poll(clock.now())
    assert events == [OvertimeReached("A", 1013)]
    clock.advance(4)
    assert tc.poll(clock.now())[1] == []
    assert tc.overtime_s("A", clock.now()) == 7
    tc, events = tc.pass_turn(clock.now())
    assert [type(e) for e in events] == [TurnPassed]
    assert tc.remaining_s("A", clock.now()) == -7


def test_turnclock_increment_is_given_back_after_each_turn(clock: FakeClock) -> None:
    tc, _ = TurnClock.for_players(["A", "B"], 60, increment_s=5).start(clock.now())
    clock.advance(12)
    tc, _ = tc.pass_turn(clock.now())
    assert tc.remaining_s("A", clock.now()) == 53


def test_turnclock_pause_stops_the_players_clock(clock: FakeClock) -> None:
    tc, _ = TurnClock.for_players(["A", "B"], 60).start(clock.now())
    clock.advance(10)
    tc, _ = tc.pause(clock.now())
    clock.advance(500)
    assert tc.remaining_s("A", clock.now()) == 50
    with pytest.raises(TimerStateError):
        tc.pass_turn(clock.now())
    tc, events = tc.start(clock.now())
    assert events == [TurnStarted("A", 50, clock.now())]


@pytest.mark.parametrize("players", [["A"], ["A", "A"]])
def test_turnclock_rejects_bad_tables(players: list[str]) -> None:
    with pytest.raises(InvalidInput, match="players"):
        TurnClock.for_players(players, 60)


@settings(max_examples=200, deadline=None)
@given(turns=st.lists(st.floats(min_value=0, max_value=100), min_size=1, max_size=30),
       n=st.integers(min_value=2, max_value=6))
@pytest.mark.slow
def test_turnclock_time_used_adds_up(turns: list[float], n: int) -> None:
    """Every second that passes is charged to exactly one player."""
    clock = FakeClock()
    players = [f"p{i}" for i in range(n)]
    tc, _ = TurnClock.for_players(players, 300).start(clock.now())
    overtime: list[str] = []
    for gap in turns:
        clock.advance(gap)
        tc, events = tc.pass_turn(clock.now())
        overtime += [e.player for e in events if isinstance(e, OvertimeReached)]
    used = sum(300 - tc.remaining_s(p, clock.now()) for p in players)
    assert used == pytest.approx(sum(turns))
    assert len(overtime) == len(set(overtime))
    assert set(overtime) == {p for p in players if tc.remaining_s(p, clock.now()) <= 0}
