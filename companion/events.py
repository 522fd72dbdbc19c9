"""Typed events and the synchronous bus that carries them.

Events are frozen dataclasses named in the past tense. Every event carries
``t_mono``: the monotonic time at which the core observed it.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

log = logging.getLogger(__name__)

Post = Callable[[Callable[[], None]], None]
"""Run a closure on the thread that owns the core (a queue in the CLI, Kivy's Clock in the app)."""

E = TypeVar("E")


# -- countdown timers -------------------------------------------------------------------------


@dataclass(frozen=True)
class TimerEvent:
    """Base of every countdown event: which timer, how much was left, and when."""

    timer: str
    remaining_s: float
    total_s: float
    t_mono: float


@dataclass(frozen=True)
class TimerStarted(TimerEvent):
    pass


@dataclass(frozen=True)
class TimerPaused(TimerEvent):
    pass


@dataclass(frozen=True)
class TimerResumed(TimerEvent):
    pass


@dataclass(frozen=True)
class TimerAdjusted(TimerEvent):
    """Time was added (positive ``delta_s``) or removed (negative)."""

    delta_s: float = 0.0


@dataclass(frozen=True)
class TimerReset(TimerEvent):
    """Back to its full length, stopped, warnings armed again."""


@dataclass(frozen=True)
class TimerFlipped(TimerEvent):
    """Turned over like an hourglass: what had run is now what is left."""


@dataclass(frozen=True)
class TimerRestored(TimerEvent):
    """A timer's state after the session was rebuilt (undo, redo, resume): ``phase`` is
    ``idle``, ``running``, ``paused`` or ``expired``. Outputs resynchronise to it, silently."""

    phase: str = "idle"


@dataclass(frozen=True)
class TimerCancelled(TimerEvent):
    """Removed from the board; nothing more comes from it."""


@dataclass(frozen=True)
class WarningReached(TimerEvent):
    """The remaining time fell to a warning threshold; ``index`` 0 is the earliest warning."""

    threshold_s: float = 0.0
    index: int = 0


@dataclass(frozen=True)
class TimerExpired(TimerEvent):
    """The deadline passed. ``deadline_mono`` is when it was due, ``t_mono`` when it was seen."""

    deadline_mono: float = 0.0


@dataclass(frozen=True)
class TimerTicked(TimerEvent):
    """A display tick; ``remaining_s`` is computed from the deadline, never by summing ticks."""


# -- the session's log -------------------------------------------------------------------------


@dataclass(frozen=True)
class SessionChanged:
    """A session recorded a command and applied it, began, or was undone or redone: ``kind`` is
    the stored kind (``score.set``, ``play.recorded``, ``session.started``, ``undo``, ``redo``...).
    For what follows the score sheet and the play log, which have no events of their own."""

    kind: str
    t_mono: float


# -- the turn clock ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnStarted:
    player: str
    remaining_s: float
    t_mono: float


@dataclass(frozen=True)
class TurnPassed:
    """``from_player`` ended a turn of ``used_s`` seconds; ``to_player`` is now on the clock."""

    from_player: str
    to_player: str
    used_s: float
    remaining_s: float
    t_mono: float


@dataclass(frozen=True)
class OvertimeReached:
    """A player's budget ran out during their turn; reported once per player."""

    player: str
    t_mono: float


class EventBus:
    """Typed, synchronous, single-threaded: :meth:`publish` returns after every handler ran.

    Main thread only; adapters on other threads go through a :data:`Post`.
    A handler subscribed to a base class also gets its subclasses' events.
    """

    def __init__(self) -> None:
        self._handlers: defaultdict[type, list[Callable[[Any], None]]] = defaultdict(list)

    def subscribe(self, kind: type[E], handler: Callable[[E], None]) -> Callable[[], None]:
        """Call *handler* with every event of *kind*; returns the unsubscriber."""
        self._handlers[kind].append(handler)
        return lambda: self._handlers[kind].remove(handler)

    def publish(self, event: object) -> None:
        for kind in type(event).__mro__:
            for handler in list(self._handlers.get(kind, ())):
                try:
                    handler(event)
                except Exception:  # one broken subscriber must not silence the buzzer
                    log.exception("handler %r failed on %r", handler, event)
