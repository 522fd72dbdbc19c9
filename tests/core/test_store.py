from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from companion.store import Store, StoreError


def test_store_appends_and_reads_back_in_order(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "db" / "c.sqlite3")
    sid = store.new_session("timer", 1.0)
    store.append(sid, "timer.add", {"name": "t", "total_s": 60}, t_mono=5.0, t_wall=100.0, boot_id="b")
    store.append(sid, "timer.toggle", {"name": "t"}, t_mono=6.0, t_wall=101.0, boot_id="b")
    events = list(store.events(sid))
    assert [(e.seq, e.kind, dict(e.data)) for e in events] == [
        (1, "timer.add", {"name": "t", "total_s": 60}), (2, "timer.toggle", {"name": "t"})]
    assert store.open_session() is not None and store.open_session().id == sid
    store.end_session(sid, 2.0)
    assert store.open_session() is None
    store.reopen_session(sid)  # its game put right after the finish
    assert store.open_session() is not None and store.open_session().id == sid


def test_store_is_wal_and_synchronous_full(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    Store.open(path).close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_store_survives_reopen(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    store = Store.open(path)
    sid = store.new_session("gold", 1.0)
    store.append(sid, "x", {"a": "ő ы"}, t_mono=1, t_wall=1, boot_id="b")
    store.close()
    again = Store.open(path)
    assert [e.data for e in again.events(sid)] == [{"a": "ő ы"}]


def test_store_not_a_database_is_a_clear_error_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    junk = b"this is not a database at all, just text\n" * 200
    path.write_bytes(junk)
    with pytest.raises(StoreError) as info:
        Store.open(path)
    assert str(info.value).startswith(f"database {path}: not usable (file is not a database)")
    assert "\n" not in str(info.value)
    assert path.read_bytes() == junk  # loses nothing


def test_store_recent_players_newest_first(tmp_path: Path) -> None:
    store = Store.open(":memory:")
    store.remember_player("Anna", "red", 1)
    store.remember_player("Борис", "blue", 2)
    store.remember_player("Anna", "green", 3)
    assert store.recent_players() == [("Anna", "green"), ("Борис", "blue")]
