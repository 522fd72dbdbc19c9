"""A running timer is one message per run, whatever else the link publishes meanwhile: another
timer's change or a refresh reads its time left again, and that is no change (its deadline says it).

No broker needed: the link writes every state message to its outbox before it is sent, so the
outbox holds what the broker would get.
"""

from __future__ import annotations

import json
from pathlib import Path

from companion.events import EventBus
from companion.timers import TimerBoard
from tests.conftest import FakeClock
from venue.link import VenueLink, VenueSettings
from venue.outbox import Outbox
from venue.protocol import Broker

EPOCH = 1_764_921_600.0


def test_a_running_timer_is_one_message_while_the_other_timers_change(tmp_path: Path) -> None:
    clock, bus = FakeClock(), EventBus()
    board = TimerBoard(clock, bus)
    board.add("market", 60)
    board.add("negotiation", 90)
    outbox = Outbox(tmp_path / "db.sqlite3", "companion/t1")
    link = VenueLink(VenueSettings(Broker("127.0.0.1", 1883, False), "t1"), outbox, lambda fn: fn(), clock,
                     wall=lambda: EPOCH + clock.now())  # never started: nothing goes out, all is kept
    link.attach(bus, lambda: {n: board[n] for n in board.names})
    link.refresh()

    def states(name: str) -> list[tuple[str, object]]:
        bodies = [json.loads(p.payload) for p in outbox.pending() if p.topic == f"companion/t1/{name}"]
        return [(b["state"], b["deadline"]) for b in bodies]

    board.start("market")
    for step in (lambda: board.start("negotiation"), lambda: board.pause("negotiation"), link.refresh,
                 lambda: board.reset("negotiation")):
        clock.advance(5)
        step()
    end = EPOCH + 1_000.0 + 60
    assert states("timer/market") == [("idle", None), ("running", end)]
    assert states("main") == [("idle", None), ("running", end)]  # market ends first throughout
    board.adjust("market", 10)  # a real change: a new deadline
    assert states("timer/market")[-1] == ("running", end + 10)
    assert [s for s, _d in states("timer/negotiation")] == ["idle", "running", "paused", "idle"]
    outbox.close()
