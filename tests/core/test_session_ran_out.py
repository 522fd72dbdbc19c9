"""Resume tells which timers ran out while the app was closed (and only those)."""

from __future__ import annotations

import pytest

from companion.events import EventBus
from companion.session import TableSession
from companion.store import Store
from companion.timers import Phase
from tests.conftest import FakeClock
from tests.core.test_session import Wall, advance, start


@pytest.fixture
def store() -> Store:
    return Store.open(":memory:")


def test_session_resume_names_the_timer_that_ran_out_while_closed(store: Store, clock: FakeClock,
                                                                   bus: EventBus) -> None:
    wall = Wall()
    s = start(store, clock, bus, wall)
    s.add_timer("negotiation", 5)
    s.add_timer("market", 600)
    s.toggle("negotiation")
    s.toggle("market")
    advance(clock, wall, 60)  # the app is closed meanwhile: negotiation runs out, market does not
    again = TableSession.resume(store, s.id, clock, bus, wall=wall, boot="boot-1")
    assert again.ran_out == ("negotiation",)
    assert again.resume_note is None


def test_session_resume_names_no_timer_that_ran_out_before_the_last_action(store: Store, clock: FakeClock,
                                                                          bus: EventBus) -> None:
    wall = Wall()
    s = start(store, clock, bus, wall)
    s.add_timer("negotiation", 5)
    s.add_timer("market", 60)
    s.toggle("negotiation")
    advance(clock, wall, 10)  # the negotiation ran out with the app open...
    s.toggle("market")  # ...and the table went on
    advance(clock, wall, 5)
    again = TableSession.resume(store, s.id, clock, bus, wall=wall, boot="boot-1")
    assert again.ran_out == ()
    assert again.board["market"].is_running


def test_session_resume_names_nothing_for_paused_or_idle_timers(store: Store, clock: FakeClock,
                                                                bus: EventBus) -> None:
    wall = Wall()
    s = start(store, clock, bus, wall)
    s.add_timer("negotiation", 5)
    s.toggle("negotiation")
    s.toggle("negotiation")  # paused with 5 s left
    s.add_timer("market", 5)
    advance(clock, wall, 60)
    again = TableSession.resume(store, s.id, clock, bus, wall=wall, boot="boot-1")
    assert again.ran_out == ()


def test_session_undo_does_not_name_ran_out_timers(store: Store, clock: FakeClock, bus: EventBus) -> None:
    wall = Wall()
    s = start(store, clock, bus, wall)
    s.add_timer("negotiation", 5)
    s.toggle("negotiation")
    advance(clock, wall, 60)
    s.undo()  # a rebuild, but not a resume
    assert s.ran_out == ()


def test_session_resume_names_no_timer_that_ran_out_with_the_app_open(store: Store, clock: FakeClock,
                                                                      bus: EventBus) -> None:
    wall = Wall()
    s = start(store, clock, bus, wall)
    s.add_timer("negotiation", 5)
    s.add_timer("market", 60)
    s.toggle("negotiation")
    s.toggle("market")
    advance(clock, wall, 10)
    s.poll()  # the app is open: the negotiation's alarm goes off here
    advance(clock, wall, 120)  # then the plug is pulled; the market runs out meanwhile
    again = TableSession.resume(store, s.id, clock, bus, wall=wall, boot="boot-1")
    assert again.ran_out == ("market",)
    assert again.board["negotiation"].phase is Phase.EXPIRED


def test_a_timer_running_out_leaves_undo_and_redo_as_they_were(store: Store, clock: FakeClock,
                                                              bus: EventBus) -> None:
    wall = Wall()
    s = start(store, clock, bus, wall)
    s.add_timer("negotiation", 5)
    s.toggle("negotiation")
    s.add_timer("round", 30)
    s.undo()
    advance(clock, wall, 10)
    s.poll()  # the negotiation runs out: noted in the log, but no action
    assert s.can_redo
    s.redo()
    assert "round" in s.board.names
    s.undo()
    s.undo()  # takes back the negotiation's start, not its running out
    assert s.board["negotiation"].phase is Phase.IDLE
    again = TableSession.resume(store, s.id, clock, bus, wall=wall, boot="boot-1")
    assert again.board["negotiation"].phase is Phase.IDLE
    assert again.ran_out == ()
