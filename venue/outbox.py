"""The venue's outbox: every state message a table has not yet seen acknowledged, on disk.

A table of the session database (``venue_outbox``, beside the sessions, in WAL mode with
``synchronous=FULL``): a change's messages are written in one transaction before they are
handed to the MQTT client, and removed (in the next write) when the broker has acknowledged
them, so what a killed or unplugged table had not delivered is sent when it starts again, in
order. It also hands out ``seq``, the table's change counter, which
only grows: it starts above both the last stored one and the wall clock in milliseconds.

When the database cannot be written (a full disk, a damaged file) the outbox keeps its
messages in memory and says why in :attr:`Outbox.trouble`; the table goes on playing.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS venue_outbox (
    seq INTEGER PRIMARY KEY,
    channel TEXT NOT NULL,
    topic TEXT NOT NULL,
    payload BLOB NOT NULL,
    retain INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS venue_seq (channel TEXT PRIMARY KEY, last INTEGER NOT NULL);
"""


@dataclass(frozen=True)
class Pending:
    """One message waiting for the broker's acknowledgement."""

    seq: int
    topic: str
    payload: bytes
    retain: bool


class Outbox:
    """The messages of one *channel* (``PREFIX/TABLE``) in the database at *path* (None: memory
    only). Used from one thread, the core's."""

    def __init__(self, path: Path | str | None, channel: str, *,
                 wall_ms: Callable[[], int] = lambda: int(time.time() * 1000)) -> None:
        self.channel = channel
        self.trouble: str | None = None
        self._memory: dict[int, Pending] = {}
        self._done: list[int] = []  # acknowledged, still on the disk until the next write
        self._conn: sqlite3.Connection | None = None
        last = 0
        if path is not None:
            try:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(str(path), isolation_level=None, timeout=5.0)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=FULL")
                conn.executescript(_SCHEMA)
                row = conn.execute("SELECT max(seq) FROM venue_outbox WHERE channel=?", (channel,)).fetchone()
                kept = conn.execute("SELECT last FROM venue_seq WHERE channel=?", (channel,)).fetchone()
                last = max(row[0] or 0, kept[0] if kept else 0)
                self._conn = conn
            except (sqlite3.Error, OSError) as exc:
                self._fail(exc)
        self._last = max(last, wall_ms())

    def add(self, topic: str, make: Callable[[int], bytes], *, retain: bool = True) -> Pending:
        """Write the next message: *make* gets its ``seq`` and returns the payload."""
        return self.add_all([(topic, make)], retain=retain)[0]

    def add_all(self, messages: list[tuple[str, Callable[[int], bytes]]], *,
                retain: bool = True) -> list[Pending]:
        """Write the next messages in one transaction (one change's topics: one write to the disk),
        each *make* getting its ``seq``; the messages :meth:`done` since the last write go in it."""
        made = []
        for topic, make in messages:
            self._last += 1
            made.append(Pending(self._last, topic, make(self._last), retain))
        if self._conn is not None and self._write(made):
            return made
        self._memory.update((p.seq, p) for p in made)
        return made

    def done(self, seq: int) -> None:
        """The broker has the message *seq*: forget it (on the disk at the next write or
        :meth:`flush`; one acknowledged and then resent after a crash is a repeat, which the
        protocol allows)."""
        if self._memory.pop(seq, None) is None and self._conn is not None:
            self._done.append(seq)

    def flush(self) -> None:
        """Write what :meth:`done` has forgotten since the last write."""
        if self._conn is not None and self._done:
            self._write([])

    def _write(self, made: list[Pending]) -> bool:
        assert self._conn is not None
        try:
            with self._conn:
                self._conn.execute("BEGIN IMMEDIATE")
                self._conn.executemany("DELETE FROM venue_outbox WHERE seq=? AND channel=?",
                                       [(seq, self.channel) for seq in self._done])
                rows = [(p.seq, self.channel, p.topic, p.payload, int(p.retain)) for p in made]
                self._conn.executemany("INSERT INTO venue_outbox VALUES (?, ?, ?, ?, ?)", rows)
                if made:
                    self._conn.execute("INSERT INTO venue_seq VALUES (?, ?) ON CONFLICT(channel) "
                                       "DO UPDATE SET last=excluded.last", (self.channel, made[-1].seq))
            self._done.clear()
            return True
        except sqlite3.Error as exc:
            self._fail(exc)
            return False

    def pending(self) -> list[Pending]:
        """Every message not yet acknowledged, oldest first."""
        rows: list[Pending] = []
        if self._conn is not None:
            try:
                done = set(self._done)
                rows = [Pending(s, t, bytes(p), bool(r)) for s, t, p, r in self._conn.execute(
                    "SELECT seq, topic, payload, retain FROM venue_outbox WHERE channel=? ORDER BY seq",
                    (self.channel,)) if s not in done]
            except sqlite3.Error as exc:
                self._fail(exc)
        return sorted(rows + list(self._memory.values()), key=lambda p: p.seq)

    def close(self) -> None:
        self.flush()
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _fail(self, exc: BaseException) -> None:
        if self.trouble is None:
            log.warning("venue outbox: the database cannot be written (%s): keeping messages in memory", exc)
        self.trouble = str(exc)
        if self._conn is not None:
            self._conn.close()
            self._conn = None
