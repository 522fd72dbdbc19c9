"""The session store: one SQLite database, every change an appended event.

WAL mode with ``synchronous=FULL``: a power cut loses at most the event being
written. Nothing is ever updated in place except a session's end mark and the
recent-players list; the state on screen is rebuilt by folding a session's events
(see :mod:`companion.session`), so undo, redo and resume need nothing more.

Main thread only (the thread that owns the core); SQLite objects stay on the
thread that made them.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.errors import CompanionError

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


class StoreError(CompanionError, OSError):
    """The database cannot be used: names the file and what is wrong, and touches nothing."""


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


class Store:
    """The SQLite database behind the app. Open with :meth:`open`, close with :meth:`close`."""

    def __init__(self, conn: sqlite3.Connection, path: str) -> None:
        self._conn = conn
        self.path = path

    @classmethod
    def open(cls, path: Path | str) -> Store:
        """Open (creating if need be) the database at *path*; ``":memory:"`` for tests.

        :raises StoreError: for a file that is not a database, a damaged one, one written by a
            newer version, or a folder that cannot be written. The file is left as it was.
        """
        where = str(path)
        if where != ":memory:":
            try:
                Path(where).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"database {where}: cannot make its folder ({exc.strerror})") from None
        try:
            conn = sqlite3.connect(where, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"database {where}: cannot open it ({exc})") from None
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            check = conn.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise StoreError(f"database {where}: damaged ({check}); restore a backup or move it away")
            conn.executescript(_SCHEMA)
            row = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None:
                conn.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif int(row[0]) > SCHEMA_VERSION:
                raise StoreError(f"database {where}: written by a newer version (schema {row[0]}); "
                                 "update the companion")
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise StoreError(f"database {where}: not usable ({exc}); restore a backup or move it away") \
                from None
        except StoreError:
            conn.close()
            raise
        return cls(conn, where)

    def close(self) -> None:
        self._conn.close()

    # -- sessions ------------------------------------------------------------------------------

    def new_session(self, game: str, t_wall: float) -> int:
        cur = self._conn.execute("INSERT INTO sessions (game, created_wall) VALUES (?, ?)", (game, t_wall))
        return int(cur.lastrowid or 0)

    def end_session(self, session_id: int, t_wall: float) -> None:
        self._conn.execute("UPDATE sessions SET ended_wall=? WHERE id=? AND ended_wall IS NULL",
                           (t_wall, session_id))

    def open_session(self) -> SessionRow | None:
        """The newest session not yet ended (the one to offer to resume), or None."""
        row = self._conn.execute("SELECT id, game, created_wall, ended_wall FROM sessions "
                                 "WHERE ended_wall IS NULL ORDER BY id DESC LIMIT 1").fetchone()
        return SessionRow(*row) if row else None

    def sessions(self) -> list[SessionRow]:
        rows = self._conn.execute("SELECT id, game, created_wall, ended_wall FROM sessions ORDER BY id")
        return [SessionRow(*r) for r in rows]

    # -- events --------------------------------------------------------------------------------

    def append(self, session_id: int, kind: str, data: Mapping[str, Any], *, t_mono: float, t_wall: float,
               boot_id: str) -> StoredEvent:
        """Append one event; durable when this returns (WAL, synchronous=FULL, autocommit)."""
        payload = json.dumps(data, ensure_ascii=False, sort_keys=True)
        with self._conn:  # one transaction: read the next seq and write it
            self._conn.execute("BEGIN IMMEDIATE")
            seq = self._conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE session_id=?",
                                     (session_id,)).fetchone()[0]
            self._conn.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)",
                               (session_id, seq, kind, payload, t_mono, t_wall, boot_id))
        return StoredEvent(int(seq), kind, data, t_mono, t_wall, boot_id)

    def events(self, session_id: int) -> Iterator[StoredEvent]:
        rows = self._conn.execute("SELECT seq, kind, data, t_mono, t_wall, boot_id FROM events "
                                  "WHERE session_id=? ORDER BY seq", (session_id,))
        for seq, kind, data, t_mono, t_wall, boot_id in rows:
            yield StoredEvent(seq, kind, json.loads(data), t_mono, t_wall, boot_id)

    # -- recent players ------------------------------------------------------------------------

    def remember_player(self, name: str, colour: str, t_wall: float) -> None:
        self._conn.execute("INSERT INTO players VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET "
                           "colour=excluded.colour, last_used_wall=excluded.last_used_wall",
                           (name, colour, t_wall))

    def recent_players(self, limit: int = 12) -> list[tuple[str, str]]:
        rows = self._conn.execute("SELECT name, colour FROM players ORDER BY last_used_wall DESC LIMIT ?",
                                  (limit,))
        return [(n, c) for n, c in rows]
