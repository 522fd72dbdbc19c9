"""The store on a disk that refuses writes: a real SQLITE_FULL (SQLite's page limit, or a tmpfs
filled to the last byte), a tmpfs remounted read-only, a file with garbage written over it.
Nothing already saved is lost; what could not be saved is held in order and written once the
disk takes it; the message on start tells a full disk, a read-only one and a damaged file apart."""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.events import EventBus
from companion.session import Player, TableSession
from companion.store import Store, StoreError
from tests.conftest import FakeClock
from tests.disks import SmallDisk, mounted_small_disk

BIG = "x" * 5000  # an event that needs pages of its own


@pytest.fixture
def small_disk() -> Iterator[SmallDisk]:
    yield from mounted_small_disk()


def _cap_pages(store: Store) -> None:
    """SQLite's own limit: no page beyond those the file has now (a real SQLITE_FULL)."""
    pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count={pages}")


def _uncap_pages(store: Store) -> None:
    store._conn.execute("PRAGMA max_page_count=1073741823")


def _saved(path: Path, sid: int) -> list[tuple[int, str, dict]]:
    store = Store.open_read_only(path)
    try:
        return [(e.seq, e.kind, dict(e.data)) for e in store.events(sid)]
    finally:
        store.close()


def test_store_full_page_limit_holds_events_in_order_and_writes_them_later(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    store = Store.open(path)
    sid = store.new_session("timer", 1.0)
    store.append(sid, "timer.add", {"name": "t", "total_s": 60}, t_mono=1, t_wall=1, boot_id="b")
    _cap_pages(store)
    for i in range(3):
        store.append(sid, "play.note", {"i": i, "pad": BIG}, t_mono=2 + i, t_wall=2 + i, boot_id="b")
    assert store.trouble == "full" and store.unsaved == 3
    assert [(e.seq, e.kind) for e in store.events(sid)] == [(1, "timer.add"), (2, "play.note"), (3, "play.note"),
                                                           (4, "play.note")]  # reads see the held ones
    assert _saved(path, sid) == [(1, "timer.add", {"name": "t", "total_s": 60})]  # saved stays saved
    assert store.flush() is False and store.trouble == "full"  # still no room
    _uncap_pages(store)
    assert store.flush() is True and store.trouble is None and store.unsaved == 0
    store.close()
    assert [(s, k, d.get("i")) for s, k, d in _saved(path, sid)] == [
        (1, "timer.add", None), (2, "play.note", 0), (3, "play.note", 1), (4, "play.note", 2)]


def test_store_full_sessions_players_and_end_marks_are_held_too(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    store = Store.open(path)
    first = store.new_session("gold", 1.0)
    _cap_pages(store)
    store.end_session(first, 2.0)
    second = store.new_session("drakon", 3.0)
    store.remember_player("Ágnes " + BIG[:2000], "red", 4.0)
    assert store.trouble == "full"
    assert [(r.id, r.game, r.is_open) for r in store.sessions()] == [(first, "gold", False), (second, "drakon", True)]
    assert store.open_session() is not None and store.open_session().id == second
    assert [c for _n, c in store.recent_players()] == ["red"]
    store.end_session(second, 5.0)
    store.reopen_session(second)  # held too: open again
    assert store.open_session() is not None and store.open_session().id == second
    _uncap_pages(store)
    assert store.flush()
    store.close()
    again = Store.open_read_only(path)
    assert [(r.id, r.game, r.is_open) for r in again.sessions()] == [(first, "gold", False), (second, "drakon", True)]
    assert [c for _n, c in again.recent_players()] == ["red"]
    again.close()


def test_store_full_a_session_plays_on_and_undo_sees_the_held_moves(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    store, clock = Store.open(path), FakeClock()
    session = TableSession.start(store, "timer", [Player("Anna", "red")], clock, EventBus(), boot="b")
    session.add_timer("market", 60)
    _cap_pages(store)
    session.add_timer("negotiation " + BIG, 30)  # not saved: the disk is full
    session.toggle("market")
    clock.advance(5)
    session.undo()  # takes back the toggle, rebuilt from the log with the held moves in it
    assert store.trouble == "full"
    assert session.board.names == ["market", "negotiation " + BIG]
    assert session.board["market"].phase.value == "idle"
    _uncap_pages(store)
    assert store.flush()
    store.close()
    again = Store.open(path)
    resumed = TableSession.resume(again, session.id, clock, EventBus(), boot="b")
    assert resumed.board.names == ["market", "negotiation " + BIG]
    assert resumed.board["market"].phase.value == "idle"
    again.close()


def test_store_full_real_disk_keeps_the_app_going_and_saves_when_there_is_room(small_disk: SmallDisk) -> None:
    path = small_disk.path / "c.sqlite3"
    store = Store.open(path)
    sid = store.new_session("timer", 1.0)
    store.append(sid, "timer.add", {"name": "t", "total_s": 60}, t_mono=1, t_wall=1, boot_id="b")
    small_disk.fill()
    for i in range(3):
        store.append(sid, "play.note", {"i": i, "pad": BIG}, t_mono=2 + i, t_wall=2 + i, boot_id="b")
    assert store.trouble == "full" and store.unsaved == 3
    assert store.flush() is False
    small_disk.make_room()
    assert store.flush() is True and store.trouble is None
    store.close()
    assert [(s, k) for s, k, _d in _saved(path, sid)] == [(1, "timer.add"), (2, "play.note"), (3, "play.note"),
                                                          (4, "play.note")]


# -- the message on start -------------------------------------------------------------------


def _start_error(path: Path) -> str:
    with pytest.raises(StoreError) as info:
        Store.open(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    return message


def test_store_start_on_a_full_disk_says_the_disk_is_full(small_disk: SmallDisk) -> None:
    small_disk.fill()
    message = _start_error(small_disk.path / "data" / "c.sqlite3")
    assert "the disk is full" in message and "free some space" in message
    assert "backup" not in message and "damaged" not in message
    assert not (small_disk.path / "data" / "c.sqlite3").exists()  # no empty database left behind


def test_store_start_on_a_read_only_disk_says_it_is_read_only(small_disk: SmallDisk) -> None:
    path = small_disk.path / "c.sqlite3"
    store = Store.open(path)
    store.new_session("timer", 1.0)
    store.close()
    before = path.read_bytes()
    small_disk.read_only()
    try:
        message = _start_error(path)
    finally:
        small_disk.read_write()
    assert "the disk is read-only" in message and "remount it read-write" in message
    assert "backup" not in message and "full" not in message
    assert path.read_bytes() == before


@pytest.mark.parametrize("where", ["all", "pages"])
def test_store_start_on_a_damaged_file_says_it_is_damaged(tmp_path: Path, where: str) -> None:
    path = tmp_path / "c.sqlite3"
    store = Store.open(path)
    sid = store.new_session("timer", 1.0)
    for i in range(40):
        store.append(sid, "play.note", {"i": i, "pad": BIG}, t_mono=i, t_wall=i, boot_id="b")
    store.close()
    data = bytearray(path.read_bytes())
    start = 0 if where == "all" else 4096  # everything, or every page after the first (header kept)
    data[start:] = os.urandom(len(data) - start)
    path.write_bytes(bytes(data))
    message = _start_error(path)
    assert "damaged" in message and "restore a backup" in message
    assert "disk is full" not in message and "read-only" not in message
    assert path.read_bytes() == bytes(data)


def test_store_start_messages_tell_the_three_apart(tmp_path: Path, small_disk: SmallDisk) -> None:
    """The same words never stand for two causes: what a user does next differs."""
    garbage = tmp_path / "c.sqlite3"
    garbage.write_bytes(os.urandom(8192))
    damaged = _start_error(garbage)
    small_disk.fill()
    full = _start_error(small_disk.path / "new" / "c.sqlite3")
    small_disk.make_room()
    Store.open(small_disk.path / "c.sqlite3").close()
    small_disk.read_only()
    try:
        read_only = _start_error(small_disk.path / "c.sqlite3")
    finally:
        small_disk.read_write()
    hints = [m.split(": ", 1)[1] for m in (damaged, full, read_only)]
    assert len({h.split(" (")[0] for h in hints}) == 3, hints


def test_store_read_only_store_refuses_writes_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    store = Store.open(path)
    sid = store.new_session("timer", 1.0)
    store.close()
    before = path.read_bytes()
    reader = Store.open_read_only(path)
    with pytest.raises(StoreError, match="opened read-only"):
        reader.append(sid, "x", {}, t_mono=1, t_wall=1, boot_id="b")
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        reader._conn.execute("DELETE FROM sessions")  # SQLite itself refuses: mode=ro
    reader.close()
    assert path.read_bytes() == before


def test_store_full_a_refused_constraint_is_raised_not_held(tmp_path: Path) -> None:
    """Only the disk's refusals are held: a write SQLite refuses on its merits is our bug."""
    store = Store.open(tmp_path / "c.sqlite3")
    with pytest.raises(sqlite3.IntegrityError):
        store.append(99, "x", {}, t_mono=1, t_wall=1, boot_id="b")  # no session 99
    assert store.trouble is None and store.unsaved == 0
    store.close()


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(steps=st.lists(st.sampled_from(["small", "big", "full", "room", "retry"]), min_size=1, max_size=30))
def test_store_full_whatever_fills_and_empties_the_disk_saves_every_event_in_order(steps: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "c.sqlite3"
        store = Store.open(path)
        sid = store.new_session("timer", 1.0)
        made: list[int] = []
        for i, step in enumerate(steps):
            if step == "full":
                _cap_pages(store)
            elif step == "room":
                _uncap_pages(store)
            elif step == "retry":
                store.flush()
            else:
                store.append(sid, "play.note", {"i": i, "pad": BIG if step == "big" else ""}, t_mono=i, t_wall=i,
                             boot_id="b")
                made.append(i)
            assert [e.data["i"] for e in store.events(sid)] == made  # reads always see every event
        _uncap_pages(store)
        store.close()
        saved = Store.open_read_only(path)
        assert [(e.seq, e.data["i"]) for e in saved.events(sid)] == list(enumerate(made, start=1))
        saved.close()
