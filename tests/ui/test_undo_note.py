"""The strip's note after Undo and Redo of a timer's start or pause: told apart by what the
action left, even once the timer would have run out."""

from __future__ import annotations

import os

os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_FILELOG", "1")

from companion.events import EventBus  # noqa: E402
from companion.session import TableSession  # noqa: E402
from companion.store import Store  # noqa: E402
from companion.ui.undo_note import redo_with_note as redone  # noqa: E402
from companion.ui.undo_note import undo_with_note as undone  # noqa: E402
from tests.conftest import FakeClock  # noqa: E402


def market(clock: FakeClock) -> TableSession:
    session = TableSession.start(Store.open(":memory:"), "timer", [], clock, EventBus())
    session.add_timer("market", 10)
    session.toggle("market")  # started
    return session


def test_a_pause_undone_after_its_timer_would_have_run_out_is_a_pause() -> None:
    clock = FakeClock()
    session = market(clock)
    clock.advance(4)
    session.toggle("market")  # paused with 6 s left
    clock.advance(30)  # past the deadline it had while running
    assert undone(session) == "Undone: Market paused"
    assert redone(session) == "Redone: Market paused"


def test_a_start_redone_after_its_timer_would_have_run_out_is_a_start() -> None:
    clock = FakeClock()
    session = market(clock)
    clock.advance(1)
    assert undone(session) == "Undone: Market started"
    clock.advance(30)
    session.poll()
    assert redone(session) == "Redone: Market started"  # started 31 s ago: run out since
    assert undone(session) == "Undone: Market started"


def test_a_pause_redone_after_its_timer_ran_out_meanwhile_is_a_pause() -> None:
    clock = FakeClock()
    session = market(clock)
    clock.advance(4)
    session.toggle("market")  # paused with 6 s left
    clock.advance(1)
    assert undone(session) == "Undone: Market paused"
    clock.advance(6)
    assert session.poll() == ("market",)  # ran out while the pause was undone
    clock.advance(9)
    assert redone(session) == "Redone: Market paused"
