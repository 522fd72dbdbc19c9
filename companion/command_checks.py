"""What a command asks of a session's state before it is recorded.

:func:`check` raises, naming what is wrong, for a command the session's state refuses (a timer
that does not exist, a turn clock that is not set up, a score for a player not at the table...),
so a refused command is never logged; a command whose type has no check here asks nothing.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from companion import commands
from companion.commands import Command
from companion.errors import InvalidInput, TimerStateError
from companion.seats import SEAT_LAYOUTS
from companion.timers import Phase

if TYPE_CHECKING:
    from companion.session import TableSession


@functools.singledispatch
def check(command: Command, session: TableSession) -> None:
    """Most commands ask nothing of the state."""


@check.register(commands.TimerCommand)
def _check_timer(command: commands.TimerCommand, session: TableSession) -> None:
    session.board[command.name]  # raises UnknownTimer


@check.register(commands.TimerAdd)
def _check_timer_add(command: commands.TimerAdd, session: TableSession) -> None:
    if command.name in session.board:
        raise InvalidInput("name", command.name, "a timer with this name already exists")


@check.register(commands.TimerFlip)
def _check_timer_flip(command: commands.TimerFlip, session: TableSession) -> None:
    timer = session.board[command.name]
    if timer.phase not in (Phase.RUNNING, Phase.PAUSED):
        raise TimerStateError(f"timer {command.name!r} is {timer.phase.value}; only a running or paused "
                              "timer can be flipped")


@check.register(commands.TimerAdjust)
def _check_timer_adjust(command: commands.TimerAdjust, session: TableSession) -> None:
    if session.board[command.name].phase is Phase.EXPIRED:
        raise TimerStateError(f"timer {command.name!r} has expired; reset it to change its time")


@check.register(commands.TurnTap)
def _check_turn_tap(command: commands.TurnTap, session: TableSession) -> None:
    if session.turn_clock is None:
        raise TimerStateError("the turn clock is not set up")


@check.register(commands.TurnPause)
def _check_turn_pause(command: commands.TurnPause, session: TableSession) -> None:
    if session.turn_clock is None:
        raise TimerStateError("the turn clock is not set up")
    if not session.turn_clock.is_running:
        raise TimerStateError("the turn clock is not running")


@check.register(commands.ScoreSet)
def _check_score_set(command: commands.ScoreSet, session: TableSession) -> None:
    _check_score(session, command.player, command.field, command.value)


@check.register(commands.ScoreSetMany)
def _check_score_set_many(command: commands.ScoreSetMany, session: TableSession) -> None:
    for field, value in command.values.items():
        _check_score(session, command.player, field, value)


def _check_score(session: TableSession, player: str, field: str, value: Any) -> None:
    if player not in {p.name for p in session.players}:
        raise InvalidInput("player", player, "is not at this table")
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        raise InvalidInput(field, value, "must be a whole number, 0 or more")
    if not isinstance(value, (int, str, list, bool)):
        raise InvalidInput(field, value, "must be a number, a text, a flag or a list")


@check.register(commands.TableSeats)
def _check_seats(command: commands.TableSeats, session: TableSession) -> None:
    if command.layout not in SEAT_LAYOUTS:
        raise InvalidInput("seats", command.layout, "must be 'side' or 'around'")


@check.register(commands.PlayRecorded)
def _check_play(command: commands.PlayRecorded, session: TableSession) -> None:
    if not command.kind.replace("_", "").replace(".", "").isalnum():
        raise InvalidInput("kind", command.kind, "must be letters, digits, '_' and '.'")
