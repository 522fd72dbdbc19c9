"""Resume tells which timers ran out while the app was closed (and only those)."""

from __future__ import annotations

import pytest

from companion.events import EventBus
from companion.session import TableSession
from companion.store import Store
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
