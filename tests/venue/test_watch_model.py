"""The watcher's model (venue.watch.Venue): folding messages in, repeats, clears, offline tables."""

from __future__ import annotations

import queue
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.slowdown import examples
from venue.protocol import Heard, Topics, encode, parse_topic
from venue.watch import Change, LinkState, Received, TableView, Venue, time_left, watch

NOW = 1_764_921_600.0
T1 = Topics("companion", "t1")


def timer(name: str, state: str, seq: int, *, left: float = 60.0, deadline: float | None = None) -> dict[str, Any]:
    return {"name": name, "state": state, "remaining_s": left, "total_s": 60.0, "deadline": deadline,
            "t": NOW, "seq": seq}


def heard(topic: str, body: dict[str, Any] | None) -> Heard:
    """A message as it comes off the wire, through the protocol's own parser."""
    parsed = parse_topic("companion", topic, b"" if body is None else encode(body))
    assert parsed is not None, topic
    return parsed


def test_a_timer_then_its_repeat_then_an_older_one() -> None:
    venue = Venue()
    first = venue.heard(heard(T1.timer("market"), timer("market", "running", 5, deadline=NOW + 60)), NOW)
    assert first == Change(NOW, "t1", "timer", "market", 5, timer("market", "running", 5, deadline=NOW + 60))
    assert venue.heard(heard(T1.timer("market"), timer("market", "running", 5, deadline=NOW + 60)), NOW + 1) is None
    assert venue.heard(heard(T1.timer("market"), timer("market", "idle", 4)), NOW + 2) is None
    assert venue.tables["t1"].timers["market"]["state"] == "running"
    later = venue.heard(heard(T1.timer("market"), timer("market", "paused", 6, left=30.0)), NOW + 3)
    assert later is not None and later.seq == 6
    assert venue.tables["t1"].timers["market"]["state"] == "paused"
    assert venue.tables["t1"].changed == NOW + 3


def test_seq_is_per_topic() -> None:
    """A topic's seq says nothing of another's: the game at seq 3 after the timer at 9 is news."""
    venue = Venue()
    assert venue.heard(heard(T1.timer("a"), timer("a", "idle", 9)), NOW) is not None
    game = {"key": "volatio", "title": "Volatio", "players": ["Anna", "Béla"], "round": None, "t": NOW, "seq": 3}
    assert venue.heard(heard(T1.game, game), NOW) is not None
    assert venue.tables["t1"].game == game


def test_a_timer_cleared_stays_gone_through_an_old_repeat() -> None:
    venue = Venue()
    venue.heard(heard(T1.timer("a/b c"), timer("a/b c", "idle", 3)), NOW)
    gone = venue.heard(heard(T1.timer("a/b c"), None), NOW + 1)
    assert gone == Change(NOW + 1, "t1", "timer", "a/b c", None, None)
    assert venue.tables["t1"].timers == {}
    assert venue.heard(heard(T1.timer("a/b c"), None), NOW + 2) is None  # cleared twice: nothing new
    assert venue.heard(heard(T1.timer("a/b c"), timer("a/b c", "idle", 3)), NOW + 3) is None
    assert venue.tables["t1"].timers == {}
    assert venue.heard(heard(T1.timer("a/b c"), timer("a/b c", "idle", 7)), NOW + 4) is not None
    assert list(venue.tables["t1"].timers) == ["a/b c"]


def test_main_cleared_means_no_timer() -> None:
    venue = Venue()
    venue.heard(heard(T1.main, timer("market", "running", 2, deadline=NOW + 9)), NOW)
    assert venue.heard(heard(T1.main, None), NOW) is not None
    assert venue.tables["t1"].main is None


def test_status_has_no_seq_and_the_latest_word_wins() -> None:
    venue = Venue()
    online = {"state": "online", "t": NOW, "protocol": 1, "version": "0.1.0"}
    assert venue.heard(heard(T1.status, online), NOW) == Change(NOW, "t1", "status", None, None, online)
    assert venue.tables["t1"].online is True
    assert venue.heard(heard(T1.status, online), NOW + 1) is None  # the same word again
    offline = {"state": "offline", "t": NOW + 2, "protocol": 1}
    assert venue.heard(heard(T1.status, offline), NOW + 5) is not None
    assert venue.tables["t1"].online is False
    assert venue.tables["t1"].offline_since == NOW + 5  # heard live: when it was heard
    back = {"state": "online", "t": NOW + 9, "protocol": 1}
    assert venue.heard(heard(T1.status, back), NOW + 9) is not None
    assert venue.tables["t1"].online is True and venue.tables["t1"].offline_since is None


def test_a_retained_offline_is_as_old_as_it_says() -> None:
    """Heard on subscribing, an offline status may be hours old: its own time is shown."""
    venue = Venue()
    will = {"state": "offline", "t": NOW - 3600, "protocol": 1}
    venue.heard(heard(T1.status, will), NOW, retained=True)
    assert venue.tables["t1"].online is False
    assert venue.tables["t1"].offline_since == NOW - 3600


def test_what_is_not_state_changes_nothing() -> None:
    venue = Venue()
    assert venue.heard(heard(T1.command("start"), {}), NOW) is None
    assert venue.heard(heard(T1.reply, {"command": {"action": "start"}, "ok": True, "why": None, "t": NOW}),
                       NOW) is None
    assert venue.heard(heard(T1.timer("gone"), None), NOW) is None  # a clear of a table never heard
    assert venue.tables == {}
    # A state message without a seq is not this protocol's.
    assert venue.heard(heard(T1.alarm, {"state": "on", "timer": "a", "t": NOW}), NOW) is None
    assert venue.heard(heard(T1.alarm, {"state": "on", "timer": "a", "t": NOW, "seq": True}), NOW) is None
    assert venue.heard(heard(T1.alarm, {"state": "on", "timer": "a", "t": NOW, "seq": -1}), NOW) is None


def test_tables_in_order_of_their_ids() -> None:
    venue = Venue()
    for table in ("t10", "bar", "t2"):
        venue.heard(heard(Topics("companion", table).status, {"state": "online", "t": NOW}), NOW)
    assert [v.table for v in venue.in_order()] == ["bar", "t10", "t2"]


def test_time_left_counts_down_from_the_deadline_while_running() -> None:
    running = timer("a", "running", 1, left=54.2, deadline=NOW + 54.2)
    assert time_left(running, NOW + 10) == pytest.approx(44.2)
    assert time_left(running, NOW + 100) == 0.0
    assert time_left(timer("a", "paused", 1, left=30.0), NOW + 100) == 30.0
    assert time_left(timer("a", "running", 1, left=12.0, deadline=None), NOW) == 12.0
    assert time_left({"state": "running", "deadline": "soon", "remaining_s": float("nan")}, NOW) is None
    assert time_left({"state": "paused", "remaining_s": 10 ** 400}, NOW) is None


# --- properties: at-least-once delivery ------------------------------------------------------

TIMERS = ("market", "a/b", "round 2")


@st.composite
def streams(draw: st.DrawFn, *, with_clears: bool) -> list[tuple[str, dict[str, Any] | None]]:
    """A table's messages in the order it sent them: each carries the table's next seq; a timer
    is sometimes cleared (an empty payload, no seq)."""
    out: list[tuple[str, dict[str, Any] | None]] = []
    seq = draw(st.integers(0, 1000))
    for _ in range(draw(st.integers(1, 25))):
        seq += 1
        kind = draw(st.sampled_from(["timer", "main", "alarm", "game", "scores", "clear"]
                                    if with_clears else ["timer", "main", "alarm", "game", "scores"]))
        name = draw(st.sampled_from(TIMERS))
        if kind == "clear":
            out.append((T1.timer(name), None))
        elif kind in ("timer", "main"):
            topic = T1.timer(name) if kind == "timer" else T1.main
            out.append((topic, timer(name, draw(st.sampled_from(["idle", "running", "paused"])), seq)))
        elif kind == "alarm":
            out.append((T1.alarm, {"state": draw(st.sampled_from(["on", "off"])), "timer": name, "t": NOW,
                                   "seq": seq}))
        elif kind == "game":
            out.append((T1.game, {"key": "gold", "title": "Gold", "players": ["A"] * draw(st.integers(1, 6)),
                                  "round": None, "t": NOW, "seq": seq}))
        else:
            out.append((T1.scores, {"players": {"A": seq}, "leader": "A", "final": False, "t": NOW, "seq": seq}))
    return out


def fold(messages: list[tuple[str, dict[str, Any] | None]]) -> tuple[TableView | None, list[Change]]:
    venue = Venue()
    changes = [c for topic, body in messages if (c := venue.heard(heard(topic, body), NOW)) is not None]
    return venue.tables.get("t1"), changes


@pytest.mark.slow
@settings(max_examples=examples(150), deadline=None)
@given(data=st.data(), sent=streams(with_clears=False))
def test_any_order_with_repeats_ends_where_the_stream_ends(data: st.DataObject,
                                                           sent: list[tuple[str, dict[str, Any] | None]]) -> None:
    """Every message delivered at least once, in any order, repeats anywhere: the same view."""
    extra = data.draw(st.lists(st.sampled_from(sent), max_size=len(sent) * 2))
    delivered = data.draw(st.permutations(sent + extra))
    assert fold(delivered)[0] == fold(sent)[0]


@pytest.mark.slow
@settings(max_examples=examples(150), deadline=None)
@given(data=st.data(), sent=streams(with_clears=True))
def test_redeliveries_report_nothing_new(data: st.DataObject, sent: list[tuple[str, dict[str, Any] | None]]) -> None:
    """The stream in order, each message possibly repeated at once, and any message with a seq
    delivered again at any later point (a resend, a retained copy on resubscribing): the same
    changes reported as the stream alone, and the same view."""
    delivered: list[tuple[str, dict[str, Any] | None]] = []
    for i, message in enumerate(sent):
        delivered.append(message)
        delivered.extend([message] * data.draw(st.integers(0, 2), label=f"repeats of {i}"))
    with_seq = [m for m in sent if m[1] is not None]
    resent = data.draw(st.lists(st.sampled_from(with_seq), max_size=10)) if with_seq else []
    for message in resent:
        at = data.draw(st.integers(delivered.index(message) + 1, len(delivered)))
        delivered.insert(at, message)
    assert fold(delivered) == fold(sent)


# --- the loop that owns the model ------------------------------------------------------------


class Recorded:
    """An output that keeps what it is given."""

    draw_every_s: float | None = 0.001  # how long an empty queue is waited on, in real seconds

    def __init__(self) -> None:
        self.links: list[LinkState] = []
        self.changes: list[Change] = []
        self.draws = 0

    def link(self, state: LinkState) -> None:
        self.links.append(state)

    def change(self, change: Change, venue: Venue) -> None:
        assert venue.tables[change.table] is not None
        self.changes.append(change)

    def draw(self, venue: Venue, now_wall: float) -> None:
        self.draws += 1


def test_watch_folds_the_queue_and_stops_after_its_time() -> None:
    events: queue.SimpleQueue[Received | LinkState] = queue.SimpleQueue()
    status = heard(T1.status, {"state": "online", "t": NOW})
    running = heard(T1.main, timer("market", "running", 4, deadline=NOW + 60))
    for event in (LinkState("connected"), Received(status, True, NOW), Received(running, True, NOW),
                  Received(running, False, NOW + 1), LinkState("reconnecting", "connection lost")):
        events.put(event)
    ticks = iter(range(10_000))
    out = Recorded()
    venue = watch(events, out, for_s=0.05, clock=lambda: float(next(ticks)) / 1000, wall=lambda: NOW)
    assert [str(s) for s in out.links] == ["connected", "reconnecting: connection lost"]
    assert [(c.part, c.seq) for c in out.changes] == [("status", None), ("main", 4)]
    assert venue.tables["t1"].main is not None and venue.tables["t1"].online is True
    assert out.draws >= 2
