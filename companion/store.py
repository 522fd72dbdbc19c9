"""The session store: one SQLite database, every change an appended event.

WAL mode with ``synchronous=FULL``: a power cut loses at most the event being
written. Nothing is ever updated in place except a session's end mark and the
recent-players list; the state on screen is rebuilt by folding a session's events
(see :mod:`companion.session`), so undo, redo and resume need nothing more.

One app writes a database at a time: :meth:`Store.open` takes the writer's lock
(:class:`companion.disk.WriterLock`, a file beside the database) and a second writer is
refused with the first one's pid. :meth:`Store.open_read_only` (``export``, ``doctor``) takes
no lock, never creates anything and works beside a running app.

A write the disk refuses (full, read-only, failing) does not raise: the change is held in
memory, in order, and every read sees it; :attr:`Store.trouble` says what is wrong and
:meth:`Store.flush` (the app retries it) writes everything held once the disk takes it.

Main thread only (the thread that owns the core); SQLite objects stay on the
thread that made them.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.disk import (
    DAMAGED_CODES,
    SQLITE_CANTOPEN,
    StoreError,
    StoreLocked,
    WriterLock,
    disk_trouble,
    os_trouble,
    sqlite_code,
    startup_message,
)

__all__ = ["SCHEMA_VERSION", "SessionRow", "Store", "StoreError", "StoreLocked", "StoreMissing",
           "StoredEvent"]

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    created_wall REAL NOT NULL,
    ended_wall REAL
);
CREATE TABLE IF NOT EXISTS events (
    session_id INTEGER NOT NULL REFERENCES sessions(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    t_mono REAL NOT NULL,
    t_wall REAL NOT NULL,
    boot_id TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
CREATE TABLE IF NOT EXISTS players (
    name TEXT PRIMARY KEY,
    colour TEXT NOT NULL,
    last_used_wall REAL NOT NULL
);
"""
DAMAGED_HINT = "the file is damaged; restore a backup or move it away (a new one is then made)"


class StoreMissing(StoreError, FileNotFoundError):
    """A read-only open found no database at the path."""

    def __str__(self) -> str:  # OSError would print its args as a tuple
        return str(self.args[0])


@dataclass(frozen=True)
class StoredEvent:
    """One appended event. ``t_mono`` is valid only within the boot named by ``boot_id``."""

    seq: int
    kind: str
    data: Mapping[str, Any]
    t_mono: float
    t_wall: float
    boot_id: str


@dataclass(frozen=True)
class SessionRow:
    id: int
    game: str
    created_wall: float
    ended_wall: float | None

    @property
    def is_open(self) -> bool:
        return self.ended_wall is None


@dataclass(frozen=True)
class _Held:
    """One write not yet on disk: its statement, and what reads must see of it meanwhile."""

    sql: str
    params: tuple[Any, ...]
    session: SessionRow | None = None  # a new session
    ended: tuple[int, float] | None = None  # (session id, t_wall): an end mark
    reopened: int | None = None  # a session id: its end mark taken off
    event: tuple[int, StoredEvent] | None = None  # (session id, event)
    player: tuple[str, str, float] | None = None  # (name, colour, t_wall)


class Store:
    """The SQLite database behind the app. Open with :meth:`open` (the writer) or
    :meth:`open_read_only`, close with :meth:`close`."""

    def __init__(self, conn: sqlite3.Connection, path: str, *, lock: WriterLock | None = None,
                 read_only: bool = False) -> None:
        self._conn = conn
        self.path = path
        self.is_read_only = read_only
        self._lock = lock
        self._held: list[_Held] = []
        self.trouble: str | None = None
        """Why the last write did not reach the disk (``full``, ``read-only``, ``no permission``,
        ``failing``: :mod:`companion.disk`), or None while everything is saved."""

    @property
    def unsaved(self) -> int:
        """How many writes are held in memory, waiting for the disk."""
        return len(self._held)

    @classmethod
    def open(cls, path: Path | str) -> Store:
        """Open (creating if need be) the database at *path* as its one writer; ``":memory:"``
        for tests.

        :raises StoreLocked: when another app is writing it (naming that app's pid).
        :raises StoreError: for a disk that is full, read-only or not ours to write, a file that
            is not a database or is damaged, or one written by a newer version. The message says
            which; the file is left as it was.
        """
        where = str(path)
        if where == ":memory:":
            return cls._setup(sqlite3.connect(where, isolation_level=None), where, None)
        file = Path(where)
        folder = file.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
            lock = WriterLock.take(Path(where + ".lock"), where)
        except StoreLocked:
            raise
        except OSError as exc:
            raise StoreError(startup_message(where, os_trouble(exc, folder), exc.strerror or str(exc),
                                             folder)) from None
        existed = file.exists()
        try:
            conn = sqlite3.connect(where, isolation_level=None)
        except sqlite3.Error as exc:
            lock.release()
            raise _open_error(where, exc, folder) from None
        try:
            return cls._setup(conn, where, lock)
        except BaseException:
            lock.release()
            if not existed and file.exists() and file.stat().st_size == 0:
                file.unlink()  # nothing of ours was in it: leave the folder as it was
            raise

    @classmethod
    def _setup(cls, conn: sqlite3.Connection, where: str, lock: WriterLock | None) -> Store:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            _check(conn, where)
            conn.executescript(_SCHEMA)
            row = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None:
                conn.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            else:
                _check_version(row[0], where)
        except sqlite3.Error as exc:
            conn.close()
            raise _open_error(where, exc, Path(where).parent) from None
        except StoreError:
            conn.close()
            raise
        return cls(conn, where, lock=lock)

    @classmethod
    def open_read_only(cls, path: Path | str) -> Store:
        """Open the existing database at *path* for reading (SQLite's ``mode=ro``): no lock, so
        it works beside a running app; it never creates a file or a folder.

        :raises StoreMissing: when there is no file at *path*.
        :raises StoreError: for a file that is not a database, a damaged one, or one written by
            a newer version.
        """
        file = Path(path).expanduser().absolute()
        where = str(path)
        if not file.is_file():
            raise StoreMissing(f"database {where}: no such file")
        try:
            conn = _connect_read_only(file)
            _check(conn, where)
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if not {"meta", "sessions", "events", "players"} <= tables:
                conn.close()
                raise StoreError(f"database {where}: not a companion database (it has no sessions table)")
            row = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is not None:
                _check_version(row[0], where)
        except sqlite3.Error as exc:
            raise _open_error(where, exc, file.parent) from None
        return cls(conn, where, read_only=True)

    def close(self) -> None:
        """Write what is held (if the disk takes it now), close, and let the writer's lock go."""
        if self._held and not self.flush():
            log.warning("database %s: closing with %d changes not saved (%s)", self.path, len(self._held),
                        self.trouble)
        self._conn.close()
        if self._lock is not None:
            self._lock.release()

    # -- writing -------------------------------------------------------------------------------

    def flush(self) -> bool:
        """Write every held change, oldest first, in one transaction. True when nothing is held
        any more; False (and :attr:`trouble` set) while the disk still refuses.

        :raises sqlite3.Error: for a write refused for a reason not the disk's (a constraint: our
            bug); the newest held write is dropped, the ones before it stay held.
        """
        if not self._held:
            return True
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            for held in self._held:
                self._conn.execute(held.sql, held.params)
            self._conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if self._conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("ROLLBACK")
            trouble = disk_trouble(exc, Path(self.path).parent)
            if trouble is None:
                self._held.pop()
                raise
            if trouble != self.trouble:
                log.warning("database %s: %s (%s): %d changes held in memory until it can be written",
                            self.path, trouble, exc, len(self._held))
            self.trouble = trouble
            return False
        if self.trouble is not None:
            log.warning("database %s: saving again (%d held changes written)", self.path, len(self._held))
        self._held.clear()
        self.trouble = None
        return True

    def _write(self, held: _Held) -> None:
        if self.is_read_only:
            raise StoreError(f"database {self.path}: opened read-only")
        self._held.append(held)
        self.flush()

    # -- sessions ------------------------------------------------------------------------------

    def new_session(self, game: str, t_wall: float) -> int:
        known = [h.session.id for h in self._held if h.session is not None]
        sid = max(known) + 1 if known else int(self._conn.execute(
            "SELECT COALESCE(MAX(id), 0) + 1 FROM sessions").fetchone()[0])
        self._write(_Held("INSERT INTO sessions (id, game, created_wall) VALUES (?, ?, ?)",
                          (sid, game, t_wall), session=SessionRow(sid, game, t_wall, None)))
        return sid

    def end_session(self, session_id: int, t_wall: float) -> None:
        self._write(_Held("UPDATE sessions SET ended_wall=? WHERE id=? AND ended_wall IS NULL",
                          (t_wall, session_id), ended=(session_id, t_wall)))

    def reopen_session(self, session_id: int) -> None:
        """Take a session's end mark off: its game was put right after it was finished, and it is
        the one to offer to resume again."""
        self._write(_Held("UPDATE sessions SET ended_wall=NULL WHERE id=?", (session_id,),
                          reopened=session_id))

    def open_session(self) -> SessionRow | None:
        """The newest session not yet ended (the one to offer to resume), or None."""
        if not self._held:
            row = self._conn.execute("SELECT id, game, created_wall, ended_wall FROM sessions "
                                     "WHERE ended_wall IS NULL ORDER BY id DESC LIMIT 1").fetchone()
            return SessionRow(*row) if row else None
        return next((r for r in reversed(self.sessions()) if r.is_open), None)

    def sessions(self) -> list[SessionRow]:
        rows = self._conn.execute("SELECT id, game, created_wall, ended_wall FROM sessions ORDER BY id")
        merged = {r[0]: SessionRow(*r) for r in rows}
        for held in self._held:
            if held.session is not None:
                merged[held.session.id] = held.session
            elif held.ended is not None:
                sid, t_wall = held.ended
                row = merged.get(sid)
                if row is not None and row.ended_wall is None:
                    merged[sid] = SessionRow(row.id, row.game, row.created_wall, t_wall)
            elif held.reopened is not None and (row := merged.get(held.reopened)) is not None:
                merged[row.id] = SessionRow(row.id, row.game, row.created_wall, None)
        return [merged[k] for k in sorted(merged)]

    # -- events --------------------------------------------------------------------------------

    def append(self, session_id: int, kind: str, data: Mapping[str, Any], *, t_mono: float, t_wall: float,
               boot_id: str) -> StoredEvent:
        """Append one event; durable when this returns (WAL, synchronous=FULL, autocommit), or,
        while the disk refuses (:attr:`trouble`), held in memory in order until it takes it."""
        payload = json.dumps(data, ensure_ascii=False, sort_keys=True)
        mine = [h.event[1].seq for h in self._held if h.event is not None and h.event[0] == session_id]
        seq = mine[-1] + 1 if mine else int(self._conn.execute(
            "SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE session_id=?", (session_id,)).fetchone()[0])
        event = StoredEvent(seq, kind, data, t_mono, t_wall, boot_id)
        self._write(_Held("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)",
                          (session_id, seq, kind, payload, t_mono, t_wall, boot_id),
                          event=(session_id, event)))
        return event

    def events(self, session_id: int) -> Iterator[StoredEvent]:
        """The session's events in order: those on disk, then those held."""
        rows = self._conn.execute("SELECT seq, kind, data, t_mono, t_wall, boot_id FROM events "
                                  "WHERE session_id=? ORDER BY seq", (session_id,)).fetchall()
        held = [h.event[1] for h in self._held if h.event is not None and h.event[0] == session_id]
        for seq, kind, data, t_mono, t_wall, boot_id in rows:
            yield StoredEvent(seq, kind, json.loads(data), t_mono, t_wall, boot_id)
        yield from held

    # -- recent players ------------------------------------------------------------------------

    def remember_player(self, name: str, colour: str, t_wall: float) -> None:
        self._write(_Held("INSERT INTO players VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET "
                          "colour=excluded.colour, last_used_wall=excluded.last_used_wall",
                          (name, colour, t_wall), player=(name, colour, t_wall)))

    def recent_players(self, limit: int = 12) -> list[tuple[str, str]]:
        held = [h.player for h in self._held if h.player is not None]
        rows = self._conn.execute("SELECT name, colour, last_used_wall FROM players "
                                  "ORDER BY last_used_wall DESC LIMIT ?", (limit + len(held),))
        players = {n: (c, t) for n, c, t in rows}
        for name, colour, t_wall in held:
            players[name] = (colour, t_wall)
        newest = sorted(players.items(), key=lambda p: p[1][1], reverse=True)[:limit]
        return [(n, c) for n, (c, _t) in newest]


def _check(conn: sqlite3.Connection, where: str) -> None:
    check = conn.execute("PRAGMA quick_check").fetchone()[0]
    if check != "ok":
        conn.close()
        raise StoreError(f"database {where}: damaged ({check}); {DAMAGED_HINT}")


def _check_version(value: str, where: str) -> None:
    if int(value) > SCHEMA_VERSION:
        raise StoreError(f"database {where}: written by a newer version (schema {value}); "
                         "update the companion")


def _connect_read_only(file: Path) -> sqlite3.Connection:
    """``mode=ro``; on a read-only disk with no writer's log beside the file (so no app can be
    writing it), ``immutable=1``, since SQLite cannot make its shared-memory file there."""
    try:
        conn = sqlite3.connect(file.as_uri() + "?mode=ro", uri=True, isolation_level=None)
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return conn
    except sqlite3.Error as exc:
        if sqlite_code(exc) != SQLITE_CANTOPEN or Path(f"{file}-wal").exists():
            raise
    return sqlite3.connect(file.as_uri() + "?mode=ro&immutable=1", uri=True, isolation_level=None)


def _open_error(where: str, exc: sqlite3.Error, folder: Path) -> StoreError:
    """The one line for a database that would not open: damaged, or the disk's fault (full,
    read-only, not ours to write), each with what to do about it."""
    trouble = None if sqlite_code(exc) in DAMAGED_CODES else disk_trouble(exc, folder)
    if trouble is None:
        return StoreError(f"database {where}: not usable ({exc}): {DAMAGED_HINT}")
    return StoreError(startup_message(where, trouble, str(exc), folder))
