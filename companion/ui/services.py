"""What the screens work with, built once by the app and handed to every screen.

Widgets get this object passed in; none of them reaches for the running app.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.clock import Clock, wall_now
from companion.config import Config, save_settings
from companion.errors import CompanionError
from companion.events import EventBus
from companion.games import games
from companion.history import SAND_TIMER, game_name
from companion.session import Player, TableSession
from companion.store import Store

log = logging.getLogger(__name__)


def game_choices() -> list[tuple[str, str]]:
    """What Home offers, in order, as ``(key, English title)``: the sand-timer, then every
    registered game (:data:`companion.games.PACKAGES`)."""
    return [(SAND_TIMER, game_name(SAND_TIMER)), *((g.key, g.title) for g in games())]


@dataclass
class Services:
    """The core objects behind the screens. Main thread only."""

    config: Config
    config_path: Path
    store: Store
    bus: EventBus
    clock: Clock
    """Monotonic seconds for everything the screens time: the real clock, or one a test moves."""
    session: TableSession | None = None
    unlocked: bool = False
    camera_check: Callable[[], dict[str, Any]] | None = None
    """The overhead camera's edge check (``vision.table_camera``), when a camera is set up; any
    thread; raises :class:`CompanionError` with one line when it cannot answer."""
    read_pieces: Callable[[], dict[str, Any]] | None = None
    """The overhead camera's piece reader (``vision.table_camera.TableCamera.read_pieces``: the
    pieces it matched in the piece library, the shapes it could not, and the frame), when a
    camera is set up; any thread; raises :class:`CompanionError` with one line when it cannot
    answer (no camera, no piece library yet...)."""

    resumed: Callable[[TableSession], None] = lambda _session: None
    """Told when :meth:`ensure_session` resumed the session left open."""

    def session_kwargs(self) -> dict[str, Any]:
        return {"tick_hz": self.config["timer.tick_hz"], "warnings_s": self.config["timer.warnings_s"]}

    def start_session(self, game: str, players: list[Player]) -> TableSession:
        """A new session of *game*; the one going, or else the one left open, is ended first (so
        that it is never offered to resume once another has begun)."""
        if self.session is not None:
            self.session.finish()
        else:
            left = self.store.open_session()
            if left is not None:
                self.store.end_session(left.id, wall_now())
        self.session = TableSession.start(self.store, game, players, self.clock, self.bus,
                                          **self.session_kwargs())
        return self.session

    def resume_session(self) -> TableSession | None:
        row = self.store.open_session()
        if row is None:
            return None
        self.session = TableSession.resume(self.store, row.id, self.clock, self.bus, **self.session_kwargs())
        return self.session

    def ensure_session(self) -> TableSession:
        """The running session; with none, the one left open (as Home's Resume would: a timer
        tapped or the button pressed after a restart goes on with the game, which stays
        resumable), told to :attr:`resumed`; else a new plain sand-timer one."""
        if self.session is None and self.store.open_session() is not None:
            try:
                self.resume_session()
            except CompanionError as exc:  # a session left with nothing to go on from
                log.warning("the session left open is not resumed: %s", exc)
            else:
                if self.session is not None:
                    self.resumed(self.session)
        return self.session if self.session is not None else self.start_session(SAND_TIMER, [])

    def save(self, changes: dict[str, Any]) -> Config:
        self.config = save_settings(self.config_path, changes)
        return self.config
