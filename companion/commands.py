"""The commands of a session's log, one frozen dataclass per event kind, and their stored form.

Each command is stored as an event: a kind string and a data mapping (JSON in the store).
:meth:`Command.to_event` gives that pair, :func:`from_event` reads it back; a command decoded
from its stored form converts its fields as the replay always has (``str``, ``float``), and
anything it does not convert is kept as stored. A kind this version does not know comes back as
:class:`Unrecognised`, which applies as nothing. What a command does to a session is
:class:`companion.session.TableSession`'s handler for its type.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

PLAY_PREFIX = "play."
"""The kinds of a game's play screen, one family: ``play.`` then the game's own kind."""

_BY_KIND: dict[str, type[Command]] = {}


@dataclass(frozen=True)
class Command:
    """One entry of the log. A subclass named with ``kind=`` is what :func:`from_event` reads
    for that kind; by default it is stored as its fields under their own names."""

    KIND: ClassVar[str]

    def __init_subclass__(cls, kind: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if kind is not None:
            cls.KIND = kind
            _BY_KIND[kind] = cls

    def to_event(self) -> tuple[str, dict[str, Any]]:
        """The kind and data the store keeps for this command."""
        return self.KIND, {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Self:
        """The command from its stored data (raising as the conversions of its fields do); one
        without fields ignores the data."""
        return cls()


def from_event(kind: str, data: Mapping[str, Any]) -> Command:
    """The command an event of the log stands for: its own class, a :class:`PlayRecorded` for
    any ``play.`` kind, else :class:`Unrecognised`."""
    known = _BY_KIND.get(kind)
    if known is not None:
        return known.from_data(data)
    if kind.startswith(PLAY_PREFIX):
        return PlayRecorded(kind[len(PLAY_PREFIX):], dict(data))
    return Unrecognised(kind, data)


# -- the session -------------------------------------------------------------------------------


@dataclass(frozen=True)
class SessionStarted(Command, kind="session.started"):
    """The first event: the game and its players as (name, colour) pairs."""

    game: str
    players: tuple[tuple[str, str], ...]

    def to_event(self) -> tuple[str, dict[str, Any]]:
        return self.KIND, {"game": self.game, "players": [[n, c] for n, c in self.players]}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Self:
        return cls(str(data["game"]), tuple((n, c) for n, c in data["players"]))


@dataclass(frozen=True)
class Undo(Command, kind="undo"):
    """Takes back the last undoable command; the replay reads it, nothing applies it."""


@dataclass(frozen=True)
class Redo(Command, kind="redo"):
    """Puts back the last command undone; the replay reads it, nothing applies it."""


@dataclass(frozen=True)
class Seen(Command, kind="session.seen"):
    """The app was open and saw a timer run out: a later resume does not say that it ran out
    while the app was closed. No action: undo passes over it."""


@dataclass(frozen=True)
class Unrecognised(Command):
    """An event of a kind this version does not know (a later version's log, or a hand-edited
    one): kept in the log as stored, applied as nothing."""

    kind: str
    data: Mapping[str, Any]

    def to_event(self) -> tuple[str, dict[str, Any]]:
        return self.kind, dict(self.data)


# -- timers ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TimerCommand(Command):
    """A command to the timer of this name."""

    name: str

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Self:
        return cls(str(data["name"]))


@dataclass(frozen=True)
class TimerAdd(TimerCommand, kind="timer.add"):
    total_s: float

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Self:
        return cls(str(data["name"]), float(data["total_s"]))


@dataclass(frozen=True)
class TimerToggle(TimerCommand, kind="timer.toggle"):
    """Start, pause or resume; a timer that has run out starts again from full."""


@dataclass(frozen=True)
class TimerAdjust(TimerCommand, kind="timer.adjust"):
    delta_s: float

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Self:
        return cls(str(data["name"]), float(data["delta_s"]))


@dataclass(frozen=True)
class TimerFlip(TimerCommand, kind="timer.flip"):
    """Turn it over like an hourglass: the time that has run becomes the time left."""


@dataclass(frozen=True)
class TimerReset(TimerCommand, kind="timer.reset"):
    """Back to the full length, stopped."""


@dataclass(frozen=True)
class TimerCancel(TimerCommand, kind="timer.cancel"):
    """The timer taken off the table."""


# -- the turn clock ----------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnSetup(Command, kind="turn.setup"):
    players: tuple[str, ...]
    budget_s: float
    increment_s: float

    def to_event(self) -> tuple[str, dict[str, Any]]:
        return self.KIND, {"players": list(self.players), "budget_s": self.budget_s,
                           "increment_s": self.increment_s}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Self:
        return cls(tuple(data["players"]), float(data["budget_s"]), float(data["increment_s"]))


@dataclass(frozen=True)
class TurnTap(Command, kind="turn.tap"):
    """Starts the turn clock if it is not running, else passes the turn."""


@dataclass(frozen=True)
class TurnPause(Command, kind="turn.pause"):
    pass


# -- the score sheet, the table and the game ---------------------------------------------------


@dataclass(frozen=True)
class ScoreSet(Command, kind="score.set"):
    player: str
    field: str
    value: Any

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Self:
        return cls(str(data["player"]), str(data["field"]), data["value"])


@dataclass(frozen=True)
class ScoreSetMany(Command, kind="score.set_many"):
    """Several entries of one player's sheet as one change."""

    player: str
    values: Mapping[str, Any]

    def to_event(self) -> tuple[str, dict[str, Any]]:
        return self.KIND, {"player": self.player, "values": dict(self.values)}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Self:
        return cls(str(data["player"]), {str(f): v for f, v in dict(data["values"]).items()})


@dataclass(frozen=True)
class ScoreOption(Command, kind="score.option"):
    key: str
    value: Any

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Self:
        return cls(str(data["key"]), data["value"])


@dataclass(frozen=True)
class ScoreRules(Command, kind="score.rules"):
    rules: str

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Self:
        return cls(str(data["rules"]))


@dataclass(frozen=True)
class TableSeats(Command, kind="table.seats"):
    layout: str

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Self:
        return cls(str(data["layout"]))


@dataclass(frozen=True)
class PlayRecorded(Command):
    """One move of a game's play screen, stored as ``play.<kind>`` with its data as it is."""

    kind: str
    data: Mapping[str, Any]

    def to_event(self) -> tuple[str, dict[str, Any]]:
        return PLAY_PREFIX + self.kind, dict(self.data)


@dataclass(frozen=True)
class GameFinished(Command, kind="game.finished"):
    result: Mapping[str, Any]
    sheet: str | None
    """A digest of what the result was worked out from (the session's sheet); None in a log
    written before it was kept."""

    def to_event(self) -> tuple[str, dict[str, Any]]:
        return self.KIND, {"result": dict(self.result), "sheet": self.sheet}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Self:
        sheet = data.get("sheet")
        return cls(dict(data["result"]), None if sheet is None else str(sheet))
