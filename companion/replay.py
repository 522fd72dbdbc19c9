"""Replaying a session's log: which events stand after its undos and redos, and the clock and
bus a replay runs the session's state with.

A replay re-applies each event at the time it was recorded (:class:`ReplayableClock`) and
announces nothing while it does (:class:`QuietableBus`).
"""

from __future__ import annotations

import bisect
import contextlib
from collections.abc import Iterator, Sequence

from companion import commands
from companion.clock import Clock
from companion.events import EventBus
from companion.store import StoredEvent

UNDOABLE_PREFIXES = ("timer.", "turn.", "score.", "play.", "table.")


class ReplayableClock:
    """The real clock, or during a replay the time of the event being replayed."""

    def __init__(self, real: Clock) -> None:
        self.real = real
        self._at: float | None = None

    def now(self) -> float:
        return self.real.now() if self._at is None else self._at

    @contextlib.contextmanager
    def at(self, t: float) -> Iterator[None]:
        self._at = t
        try:
            yield
        finally:
            self._at = None


class QuietableBus(EventBus):
    """The app's bus, which a replay can silence (a replay re-applies, it does not re-announce)."""

    def __init__(self, bus: EventBus) -> None:
        super().__init__()
        self._outer = bus
        self.quiet = False

    def publish(self, event: object) -> None:
        if not self.quiet:
            self._outer.publish(event)


def effective(events: Sequence[StoredEvent]) -> tuple[list[StoredEvent], list[StoredEvent]]:
    """The log's events that stand, in the order they were logged, and those undone and not yet
    redone (the last undone last), as the ``undo`` and ``redo`` events in *events* leave them.
    A redone event stands where it was logged: before what the log noted meanwhile (a timer
    seen to run out while the action was undone), as it happened."""
    done: list[StoredEvent] = []
    undone: list[StoredEvent] = []
    for e in events:
        if e.kind == commands.Undo.KIND:
            for i in range(len(done) - 1, -1, -1):
                if done[i].kind.startswith(UNDOABLE_PREFIXES):
                    undone.append(done.pop(i))
                    break
        elif e.kind == commands.Redo.KIND:
            if undone:
                bisect.insort(done, undone.pop(), key=lambda event: event.seq)
        else:
            done.append(e)
            if e.kind not in _NO_ACTION:  # a new action: what was undone can no longer be redone
                undone.clear()
    return done, undone


_NO_ACTION = (commands.SessionStarted.KIND, commands.Seen.KIND)
"""What the log notes that no one did: it leaves what was undone to be redone, as live."""
