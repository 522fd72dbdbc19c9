"""A game at the table as an event log: timers, the turn clock and the players, rebuilt from the store.

Every command is appended to the store first, then applied; undo and redo are appended
too, and the state is then rebuilt by replaying the log without what was undone (the
``push``/``pop`` of a chess board, made durable). Replaying uses each event's recorded
monotonic time, so a timer comes back exactly as it was. Across a reboot monotonic times
mean nothing, so an event recorded under another boot is replayed at its wall time moved
into this boot's monotonic clock, and :attr:`TableSession.resume_note` says so.

Each command is one of the types of :mod:`companion.commands`, stored as its event kind and
data; the session checks it against the state before recording it
(:mod:`companion.command_checks`), and applies it, live and on replay alike, with the handler
registered for its type. Each change of the log (a command, the start, an undo or a redo) is
then announced on the bus as :class:`~companion.events.SessionChanged`. Which events stand after
the undos and redos, and the clock and bus a replay runs with, are :mod:`companion.replay`'s.

Main thread only.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion import commands
from companion.clock import Clock, boot_id, wall_now
from companion.command_checks import check
from companion.commands import Command
from companion.errors import CompanionError, InvalidInput, TimerStateError
from companion.events import EventBus, SessionChanged
from companion.replay import UNDOABLE_PREFIXES, QuietableBus, ReplayableClock, effective
from companion.seats import AROUND_ANGLES as AROUND_ANGLES
from companion.seats import SEAT_LAYOUTS as SEAT_LAYOUTS
from companion.seats import seat_angles
from companion.store import Store, StoredEvent
from companion.timers import DEFAULT_WARNINGS_S, Phase, TimerBoard
from companion.turnclock import TurnClock

PLAYER_COLOURS: tuple[str, ...] = ("red", "blue", "green", "yellow", "purple", "orange", "white", "black")
"""The colours a player can take: the adventurer colours of the boxes at this table."""

log = logging.getLogger(__name__)

BASE_KINDS = ("session.started",)


@dataclass(frozen=True)
class Player:
    name: str
    colour: str


@dataclass(frozen=True)
class SessionRebuilt:
    """The state was rebuilt from the log (undo, redo, resume): redraw everything."""

    reason: str


class TableSession:
    """One session: a game, its players, any number of timers and an optional turn clock.

    Build with :meth:`start` or :meth:`resume`. Commands append to the store, then apply;
    queries read the live :attr:`board` and :attr:`turn_clock`.
    """

    def __init__(self, store: Store, session_id: int, clock: Clock, bus: EventBus, *,
                 tick_hz: float = 10.0, warnings_s: Sequence[float] = DEFAULT_WARNINGS_S,
                 wall: Callable[[], float] = wall_now, boot: str | None = None) -> None:
        self.store = store
        self.id = session_id
        self.bus = bus
        self._clock = ReplayableClock(clock)
        self._quiet = QuietableBus(bus)
        self._wall = wall
        self._boot = boot if boot is not None else boot_id()
        self.board = TimerBoard(self._clock, self._quiet, tick_hz=tick_hz, warnings_s=warnings_s)
        self.turn_clock: TurnClock | None = None
        self.game = ""
        self.players: tuple[Player, ...] = ()
        self.resume_note: str | None = None
        self.ran_out: tuple[str, ...] = ()
        """After :meth:`resume`: the timers that were running when the log ends and had run out
        by the time it was resumed (while the app was closed), in the board's order."""
        self.score_sheet: dict[str, dict[str, Any]] = {}
        self.score_rules: str | None = None
        self.score_options: dict[str, Any] = {}
        self._result: dict[str, Any] | None = None
        self._result_sheet: str | None = None  # the digest of the sheet it was worked out from
        self._ended = False  # the store marks it ended
        self.play_log: list[tuple[str, dict[str, Any], float]] = []  # (kind, data, t_mono)
        self.seats = "side"
        self._log: list[StoredEvent] = []
        self._undone: list[StoredEvent] = []
        self._ran_out_on_rebuild: tuple[str, ...] = ()

    # -- life cycle ----------------------------------------------------------------------------

    @classmethod
    def start(cls, store: Store, game: str, players: Sequence[Player], clock: Clock, bus: EventBus,
              **kwargs: Any) -> TableSession:
        """A new session for *game* (``"timer"`` for the sand-timer alone)."""
        wall = kwargs.get("wall", wall_now)
        session = cls(store, store.new_session(game, wall()), clock, bus, **kwargs)
        for p in players:
            store.remember_player(p.name, p.colour, wall())
        event = session._record(commands.SessionStarted(game, tuple((p.name, p.colour) for p in players)))
        session._apply(event, session.now())
        session.bus.publish(SessionChanged(event.kind, session.now()))
        return session

    @classmethod
    def resume(cls, store: Store, session_id: int, clock: Clock, bus: EventBus,
               **kwargs: Any) -> TableSession:
        """The session as its log left it; running timers keep their deadlines."""
        session = cls(store, session_id, clock, bus, **kwargs)
        events = list(store.events(session_id))
        if not events:
            raise InvalidInput("session", session_id, "has no events to resume from")
        session._ended = any(row.id == session_id and not row.is_open for row in store.sessions())
        session._log = events
        session._undone = []
        crossed = any(e.boot_id != session._boot for e in events)
        session._rebuild("resumed")
        session.ran_out = session._ran_out_on_rebuild
        if crossed and session.board.names:
            session.resume_note = ("the machine restarted since this session was saved: running timers "
                                   "were recomputed from the wall clock")
        return session

    def finish(self) -> None:
        """End the session: it is no longer the one offered to resume."""
        if not self._ended:
            self.store.end_session(self.id, self._wall())
            self._ended = True

    def _mark_end(self) -> None:
        """A session with a result logged is ended while that result stands and open while it
        does not (the sheet put right after Finish: the session is the one to resume), each
        time an action, an undo or a redo changes which."""
        if self._result is None:
            return
        if self.result is None and self._ended:
            self.store.reopen_session(self.id)
            self._ended = False
        elif self.result is not None and not self._ended:
            self.finish()

    # -- commands ------------------------------------------------------------------------------

    def add_timer(self, name: str, total_s: float) -> None:
        self._do(commands.TimerAdd(name, total_s))

    def toggle(self, name: str) -> None:
        """Start, pause or resume; a timer that has run out starts again from full."""
        self._do(commands.TimerToggle(name))

    def adjust(self, name: str, delta_s: float) -> None:
        self._do(commands.TimerAdjust(name, delta_s))

    def flip(self, name: str) -> None:
        self._do(commands.TimerFlip(name))

    def reset(self, name: str) -> None:
        self._do(commands.TimerReset(name))

    def cancel(self, name: str) -> None:
        self._do(commands.TimerCancel(name))

    def setup_turns(self, players: Sequence[str], budget_s: float, increment_s: float = 0.0) -> None:
        self._do(commands.TurnSetup(tuple(players), budget_s, increment_s))

    def pass_turn(self) -> None:
        """The tap: starts the turn clock if it is not running, else passes the turn."""
        self._do(commands.TurnTap())

    def pause_turns(self) -> None:
        self._do(commands.TurnPause())

    # -- the end-of-game score sheet ----------------------------------------------------------

    def set_score(self, player: str, field: str, value: Any) -> None:
        """One entry on the score sheet, as the game's ``companion score`` document names it: a
        count (Dragon's Gold), a list of cards (Gold!), a list of coins or a flag (Drakon).

        The game's screen checks the whole sheet with the game's ``score_document`` first.
        """
        self._do(commands.ScoreSet(player, field, value))

    def set_scores(self, player: str, values: Mapping[str, Any]) -> None:
        """Several entries of one player's sheet as one change (one undo takes them all back):
        what a photo of the player's pieces gives. Each entry as :meth:`set_score` takes it."""
        if values:
            self._do(commands.ScoreSetMany(player, dict(values)))

    def set_score_option(self, key: str, value: Any) -> None:
        """A sheet-wide option of the game's document (``variant`` for Drakon)."""
        self._do(commands.ScoreOption(key, value))

    def set_seats(self, layout: str) -> None:
        """Table mode: ``side`` (every panel faces the host) or ``around`` (each faces its seat)."""
        self._do(commands.TableSeats(layout))

    def panel_angles(self) -> dict[str, int]:
        """Each player's panel angle for the chosen seat layout."""
        angles = seat_angles(len(self.players), self.seats)
        return {p.name: a for p, a in zip(self.players, angles, strict=True)}

    def record_play(self, kind: str, data: Mapping[str, Any]) -> None:
        """One move of a game's play screen (``place``, ``kill``, ``crash``...), logged and undoable.

        The game's screen folds :attr:`play_log` with its rules module; the session only keeps it.
        """
        self._do(commands.PlayRecorded(kind, dict(data)))

    def set_score_rules(self, rules: str) -> None:
        self._do(commands.ScoreRules(rules))

    def score_document(self) -> dict[str, Any]:
        """The sheet as the game's ``companion score`` document (every player, missing counts 0)."""
        sheet = {p.name: dict(self.score_sheet.get(p.name, {})) for p in self.players}
        doc: dict[str, Any] = {**self.score_options, "players": sheet}
        if self.score_rules is not None:
            doc["rules"] = self.score_rules
        return doc

    @property
    def result(self) -> dict[str, Any] | None:
        """The game's result, while it stands: the last one logged, as long as the sheet (the
        scores, their rules and options, the moves played) is what it was worked out from. A
        sheet put right after Finish leaves the game without a result until Finish records the
        new one; put back as it was (an undo, a redo, a value entered again), the old one stands
        again. A result logged before its sheet was kept always stands."""
        if self._result is None or self._result_sheet in (None, self._sheet_digest()):
            return self._result
        return None

    def _sheet_digest(self) -> str:
        """A digest of what a result is worked out from, as the log stores it."""
        sheet = {"sheet": self.score_sheet, "rules": self.score_rules, "options": self.score_options,
                 "play": [[kind, data] for kind, data, _t in self.play_log]}
        text = json.dumps(_as_stored(sheet), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()

    def finish_game(self, result: Mapping[str, Any]) -> None:
        """Record the final result (what ``companion score`` answered) and end the session. The
        result that stands already (Finish tapped again, the sheet as it was) is not logged
        twice; another one (the sheet put right since) is, and the last one logged is the game's
        result."""
        if self.result is None or _as_stored(result) != _as_stored(self.result):
            self._do(commands.GameFinished(dict(result), self._sheet_digest()))
        self.finish()

    @property
    def can_undo(self) -> bool:
        return any(e.kind.startswith(UNDOABLE_PREFIXES) for e in self._log)

    @property
    def can_redo(self) -> bool:
        return bool(self._undone)

    def undo(self) -> StoredEvent:
        """Take back the last action (durably: ``undo`` is logged); the event taken back."""
        if not self.can_undo:
            raise TimerStateError("nothing to undo")
        self._record(commands.Undo())
        self._rebuild("undo")
        self._mark_end()
        self.bus.publish(SessionChanged(commands.Undo.KIND, self.now()))
        return self._undone[-1]

    def redo(self) -> StoredEvent:
        """Put back the last action undone (durably: ``redo`` is logged); the event put back."""
        if not self.can_redo:
            raise TimerStateError("nothing to redo")
        event = self._undone[-1]
        self._record(commands.Redo())
        self._rebuild("redo")
        self._mark_end()
        self.bus.publish(SessionChanged(commands.Redo.KIND, self.now()))
        return event

    def poll(self) -> tuple[str, ...]:
        """Publish what has fallen due: warnings, expiries, a player running out of time; the
        timers that ran out. Live, their running out is noted in the log
        (:class:`~companion.commands.Seen`), so that a resume does not report it as having
        happened while the app was closed."""
        ran_out = self.board.poll()
        if ran_out and not self._quiet.quiet:
            self._record(commands.Seen())
        if self.turn_clock is not None:
            self.turn_clock, events = self.turn_clock.poll(self._clock.now())
            for event in events:
                self._quiet.publish(event)
        return ran_out

    # -- the log -------------------------------------------------------------------------------

    def _do(self, command: Command) -> None:
        """Check, record, apply. Checking first means a refused command is never logged."""
        check(command, self)
        event = self._record(command)
        self._undone.clear()
        self._apply(event, self._clock.now())
        self._mark_end()
        self.bus.publish(SessionChanged(event.kind, self._clock.now()))

    def _record(self, command: Command) -> StoredEvent:
        kind, data = command.to_event()
        event = self.store.append(self.id, kind, data, t_mono=self._clock.now(), t_wall=self._wall(),
                                  boot_id=self._boot)
        if isinstance(command, (commands.Undo, commands.Redo)):
            return event
        self._log.append(event)
        return event

    def _apply(self, event: StoredEvent, now: float) -> None:
        """Apply one event as the command it stands for, decoded from its stored form both live
        and on replay, so the two do the same."""
        if event.kind.startswith("timer."):
            # What fell due before the command counts first: live, the frame pump has always
            # polled by then; on replay nothing else would (a tap on an expired glass restarts it).
            self.board.poll()
        self._handle(commands.from_event(event.kind, event.data), now)

    # -- what each command does, live and on replay ---------------------------------------------

    @functools.singledispatchmethod
    def _handle(self, command: Command, now: float) -> None:
        raise TypeError(f"{type(command).__name__} is never applied")

    @_handle.register
    def _on_unrecognised(self, command: commands.Unrecognised, now: float) -> None:
        """Nothing: the event stays in the log for the version that knows it."""

    @_handle.register
    def _on_seen(self, command: commands.Seen, now: float) -> None:
        self.board.poll()  # what ran out by then ran out with the app open

    @_handle.register
    def _on_session_started(self, command: commands.SessionStarted, now: float) -> None:
        self.game = command.game
        self.players = tuple(Player(n, c) for n, c in command.players)

    @_handle.register
    def _on_timer_add(self, command: commands.TimerAdd, now: float) -> None:
        self.board.add(command.name, command.total_s)

    @_handle.register
    def _on_timer_toggle(self, command: commands.TimerToggle, now: float) -> None:
        if self.board[command.name].phase is Phase.EXPIRED:
            self.board.reset(command.name)
        self.board.toggle(command.name)

    @_handle.register
    def _on_timer_adjust(self, command: commands.TimerAdjust, now: float) -> None:
        self.board.adjust(command.name, command.delta_s)

    @_handle.register
    def _on_timer_flip(self, command: commands.TimerFlip, now: float) -> None:
        self.board.flip(command.name)

    @_handle.register
    def _on_timer_reset(self, command: commands.TimerReset, now: float) -> None:
        self.board.reset(command.name)

    @_handle.register
    def _on_timer_cancel(self, command: commands.TimerCancel, now: float) -> None:
        self.board.cancel(command.name)

    @_handle.register
    def _on_score_set(self, command: commands.ScoreSet, now: float) -> None:
        self.score_sheet.setdefault(command.player, {})[command.field] = command.value

    @_handle.register
    def _on_score_set_many(self, command: commands.ScoreSetMany, now: float) -> None:
        self.score_sheet.setdefault(command.player, {}).update(command.values)

    @_handle.register
    def _on_score_option(self, command: commands.ScoreOption, now: float) -> None:
        self.score_options[command.key] = command.value

    @_handle.register
    def _on_score_rules(self, command: commands.ScoreRules, now: float) -> None:
        self.score_rules = command.rules

    @_handle.register
    def _on_table_seats(self, command: commands.TableSeats, now: float) -> None:
        self.seats = command.layout

    @_handle.register
    def _on_play(self, command: commands.PlayRecorded, now: float) -> None:
        self.play_log.append((command.kind, dict(command.data), now))

    @_handle.register
    def _on_game_finished(self, command: commands.GameFinished, now: float) -> None:
        self._result, self._result_sheet = dict(command.result), command.sheet

    @_handle.register
    def _on_turn_setup(self, command: commands.TurnSetup, now: float) -> None:
        self.turn_clock = TurnClock.for_players(command.players, command.budget_s, command.increment_s)

    @_handle.register
    def _on_turn_tap(self, command: commands.TurnTap, now: float) -> None:
        tc = self.turn_clock
        if tc is None:
            return
        tc, events = tc.pass_turn(now) if tc.is_running else tc.start(now)
        self._publish_turns(tc, events)

    @_handle.register
    def _on_turn_pause(self, command: commands.TurnPause, now: float) -> None:
        if self.turn_clock is not None:
            self._publish_turns(*self.turn_clock.pause(now))

    def _publish_turns(self, tc: TurnClock, events: Sequence[object]) -> None:
        self.turn_clock = tc
        for e in events:
            self._quiet.publish(e)

    # -- replay --------------------------------------------------------------------------------

    def _rebuild(self, reason: str) -> None:
        events = list(self.store.events(self.id))
        done, undone = effective(events)
        offset = self._clock.real.now() - self._wall()  # wall -> this boot's monotonic
        self.board.clear()
        self.turn_clock = None
        self.score_sheet, self.score_rules, self.score_options, self._result = {}, None, {}, None
        self._result_sheet = None
        self.play_log = []
        self.seats = "side"
        self._quiet.quiet = True
        try:
            for e in done:
                t = e.t_mono if e.boot_id == self._boot else e.t_wall + offset
                with self._clock.at(t):
                    try:
                        self._apply(e, t)
                    except CompanionError as exc:  # a log from an older version, or hand-edited
                        log.warning("session %d: event %d (%s) skipped on replay: %s", self.id, e.seq,
                                    e.kind, exc)
            ran_out = self.poll()  # what fell due while replaying or while the app was down: not re-announced
            self._ran_out_on_rebuild = tuple(n for n in self.board.names if n in ran_out)
        finally:
            self._quiet.quiet = False
        self._log, self._undone = done, undone
        self.board.restore()
        self.bus.publish(SessionRebuilt(reason))

    # -- queries -------------------------------------------------------------------------------

    def now(self) -> float:
        return self._clock.now()


def _as_stored(data: Mapping[str, Any]) -> Any:
    """*data* as the log gives it back (tuples as lists, keys as strings)."""
    return json.loads(json.dumps(data, sort_keys=True))
