"""The venue outbox: messages kept on disk until the broker has them, and the table's seq."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from companion.store import Store
from venue.outbox import Outbox


def _add(box: Outbox, topic: str) -> int:
    return box.add(topic, lambda seq: f'{{"seq":{seq}}}'.encode()).seq


def test_what_was_not_acknowledged_is_there_after_a_restart_in_order(tmp_path: Path) -> None:
    db = tmp_path / "companion.sqlite3"
    box = Outbox(db, "companion/t1", wall_ms=lambda: 1000)
    seqs = [_add(box, f"companion/t1/timer/{i}") for i in range(5)]
    box.done(seqs[1])
    box.close()  # no clean shutdown is needed: each add is committed
    again = Outbox(db, "companion/t1", wall_ms=lambda: 1000)
    pending = again.pending()
    assert [p.seq for p in pending] == [seqs[0], *seqs[2:]]
    assert pending[0].payload == f'{{"seq":{seqs[0]}}}'.encode()
    assert _add(again, "companion/t1/alarm") > seqs[-1]  # seq only grows, the clock notwithstanding


def test_seq_starts_above_the_wall_clock_and_never_repeats_after_all_are_done(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    box = Outbox(db, "p/t1", wall_ms=lambda: 5_000)
    first = _add(box, "p/t1/alarm")
    assert first == 5_001
    box.done(first)
    box.close()
    assert _add(Outbox(db, "p/t1", wall_ms=lambda: 10), "p/t1/alarm") == 5_002  # a clock set back


def test_two_tables_share_a_database_without_seeing_each_others_messages(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    one, two = Outbox(db, "p/t1"), Outbox(db, "p/t2")
    _add(one, "p/t1/alarm")
    _add(two, "p/t2/alarm")
    assert [p.topic for p in one.pending()] == ["p/t1/alarm"]
    assert [p.topic for p in two.pending()] == ["p/t2/alarm"]


def test_the_session_store_opens_a_database_the_outbox_wrote(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    box = Outbox(db, "p/t1")
    _add(box, "p/t1/alarm")
    store = Store.open(db)
    try:
        session = store.new_session("timer", 1.0)
        store.append(session, "timer.add", {"name": "x", "total_s": 5.0}, t_mono=1.0, t_wall=1.0, boot_id="b")
        assert store.flush()
    finally:
        store.close()
    assert len(box.pending()) == 1


def test_a_database_it_cannot_write_leaves_the_messages_in_memory(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    box = Outbox(blocker / "c.sqlite3", "p/t1")
    seq = _add(box, "p/t1/alarm")
    assert box.trouble is not None
    assert [p.seq for p in box.pending()] == [seq]
    box.done(seq)
    assert box.pending() == []


def test_a_damaged_database_leaves_the_messages_in_memory(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    db.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    box = Outbox(db, "p/t1")
    assert box.trouble is not None
    assert box.pending() == [] and _add(box, "p/t1/alarm") > 0


@given(st.lists(st.tuples(st.booleans(), st.integers(0, 9)), max_size=40))
def test_pending_is_every_message_added_and_not_done_in_order(steps: list[tuple[bool, int]]) -> None:
    box = Outbox(None, "p/t1")
    alive: list[int] = []
    for add, pick in steps:
        if add or not alive:
            alive.append(_add(box, "p/t1/x"))
        else:
            box.done(alive.pop(pick % len(alive)))
    assert [p.seq for p in box.pending()] == alive == sorted(alive)


def test_the_outbox_table_is_in_the_session_database(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    _add(Outbox(db, "p/t1"), "p/t1/alarm")
    names = {r[0] for r in sqlite3.connect(db).execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"venue_outbox", "venue_seq"} <= names


def test_an_acknowledgement_reaches_the_disk_with_the_next_write(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    box = Outbox(db, "p/t1")
    first = _add(box, "p/t1/alarm")
    box.done(first)
    assert box.pending() == []
    assert [p.seq for p in Outbox(db, "p/t1").pending()] == [first]  # killed now: sent again, a repeat
    second = _add(box, "p/t1/alarm")
    assert [p.seq for p in Outbox(db, "p/t1").pending()] == [second]


def test_a_changes_messages_are_written_together_with_consecutive_seqs(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "c.sqlite3", "p/t1")
    made = box.add_all([("p/t1/timer/a", lambda s: b"%d" % s), ("p/t1/main", lambda s: b"%d" % s)])
    assert [p.seq for p in made] == [made[0].seq, made[0].seq + 1]
    assert [p.payload for p in made] == [b"%d" % p.seq for p in made]
