"""Volatio at the table: the session's play log folded into the race, move by move, with the rules core.

Pure and stdlib-only, like :mod:`companion.games.volatio`, whose functions decide every rule;
this module only keeps the race between moves (the dragons, the track positions the players
enter, the round and who has flown in it) and says which rule each logged move is. The
touch screen checks a move with :func:`play` before logging it, and rebuilds the race with
:func:`fold` from :attr:`companion.session.TableSession.play_log` after any change, so undo,
redo and resume need nothing of their own.

Moves are logged as ``volatio.<move>`` (:class:`Move`) with a small JSON-able dict:

======================  ==================================  ===========================================
move                    data                                rule
======================  ==================================  ===========================================
``start_card``          ``player``, ``energy``, ``cards``   the Avolatio card's tokens and cards (§3/9)
``reveal``              ``player``, ``speed`` (DP)          the indicator turned up (§4.2, §5.3, §5.9)
``crash``               ``player``, ``part`` (base|path)    §5.7
``collision``           ``player``                          §5.8 (the mover's penalty)
``energy_field``        ``player``                          +1 token and recovery (§5.5, §5.9)
``lose_energy``         ``player``, ``tokens``              a fireball head, a trap... (§5.5, §5.9)
``draw_card``           ``player``                          a spell-card symbol touched (§5.4)
``lay_card``            ``player``                          phase 2: a card beside the indicator (§4.2)
``progress``            ``player``, ``progress``            where the dragon is, in track units (§5.2)
``next_round``          (nothing)                           the round ends (§4.2, §5.4)
``finish``              ``past_line_mm``: {player: mm}      who crossed, and how far (§5.11)
======================  ==================================  ===========================================

Round 0 is the start flight (§4.1): each dragon begins from the Avolatio card the table
enters (by default card 1's, the only one the book prints: 2 tokens, 1 card, 500 DP), and
its reveal sets the card's DP on both pointers with no change check (reading V9).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from companion.errors import InvalidInput
from companion.games import LogEntry, fold_moves
from companion.games import volatio as v
from companion.games.volatio.dragon import Dragon
from companion.games.volatio.grid import RaceResult, TrackPosition
from companion.games.volatio.outcomes import Events
from companion.games.volatio.rules import IllegalMove

log = logging.getLogger(__name__)

PREFIX = "volatio."
"""The play-log kinds this module folds: ``volatio.<move>``; any other kind is ignored."""

START_ROUND = 0
"""The start flight (§4.1) is round 0; the movement rounds (§4.2) are 1, 2, ..."""

START_CARD = v.AVOLATIO_CARDS[1]
"""What a dragon starts with until the table enters its own Avolatio card (V18: only card 1 is printed)."""

MAX_PROGRESS = 999
"""Track units a dragon can be entered at: far more than any track has guide lines."""


class RoundNotPlayed(IllegalMove):
    """The round cannot end yet: ``waiting`` (start-number order) have not flown (§4.2, §5.11).

    ``what`` is the move refused (``next round`` or ``finish``); the screen says who, in the
    player's language, from these fields rather than from the message.
    """

    def __init__(self, round_no: int, what: str, waiting: tuple[str, ...]) -> None:
        super().__init__("round", round_no, f"{what}: " + ", ".join(waiting)
                         + " has not flown yet; the round is always played to its end (§4.2, §5.11)")
        self.what = what
        self.waiting = waiting


class NobodyCrossed(IllegalMove):
    """The finish was asked for with no dragon past the line (§5.11): the race goes on."""

    def __init__(self, past: object) -> None:
        super().__init__("past_line_mm", past, "nobody has crossed the finish line: the race goes on (§5.11)")


class Move(StrEnum):
    """The moves of the play screen, as logged after ``volatio.``."""

    START_CARD = "start_card"
    REVEAL = "reveal"
    CRASH = "crash"
    COLLISION = "collision"
    ENERGY_FIELD = "energy_field"
    LOSE_ENERGY = "lose_energy"
    DRAW_CARD = "draw_card"
    LAY_CARD = "lay_card"
    PROGRESS = "progress"
    NEXT_ROUND = "next_round"
    FINISH = "finish"


@dataclass(frozen=True)
class Race:
    """The race between two moves.

    ``players`` is in start-number order (the Avolatio cards 1..N follow the table's order);
    ``progress`` is in track units, as the players count them along the guide lines;
    ``flown`` lists this round's flights in the order they were made; ``last_player`` and
    ``last_events`` say what the latest move did (the screen shows it).
    """

    players: tuple[str, ...]
    dragons: Mapping[str, Dragon]
    progress: Mapping[str, int]
    round: int = START_ROUND
    flown: tuple[str, ...] = ()
    result: RaceResult | None = None
    last_player: str | None = None
    last_events: Events = ()

    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def racing(self) -> tuple[str, ...]:
        """The dragons still on the track, in start-number order."""
        return tuple(p for p in self.players if not self.dragons[p].eliminated)

    @property
    def eliminated(self) -> tuple[str, ...]:
        return tuple(p for p in self.players if self.dragons[p].eliminated)

    @property
    def waiting(self) -> tuple[str, ...]:
        """The racing dragons that have not flown this round."""
        return tuple(p for p in self.racing if p not in self.flown)

    def positions(self) -> dict[str, TrackPosition]:
        """The racing dragons' positions as the rules core reads them (track units as its mm)."""
        return {p: TrackPosition(float(self.progress[p])) for p in self.racing}

    def order(self) -> tuple[str, ...]:
        """This round's order of flight: who has flown, then the rest as they stand now (§5.2, §4.1).

        The start flight goes by start number (§4.1); a movement round furthest first, judged
        again after every flight (§5.2). Only dragons still racing: one eliminated after its
        flight leaves the order.
        """
        waiting = self.waiting
        done = tuple(p for p in self.flown if not self.dragons[p].eliminated)
        if self.round == START_ROUND:
            numbers = {p: i + 1 for i, p in enumerate(self.players)}
            rest = tuple(n for n in v.start_order(numbers) if n in waiting)
        else:
            positions = self.positions()
            rest = v.fly_order({p: positions[p] for p in waiting})
        return done + rest

    def next_to_fly(self) -> str | None:
        """Who flies next this round, or None when the round is over (§4.1, §5.2)."""
        if self.round == START_ROUND:
            return self.waiting[0] if self.waiting else None  # already in start-number order
        return v.next_to_fly(self.positions(), self.flown)

    def legal_dials(self, player: str) -> tuple[int, ...]:
        """The dial values *player* may reveal now (any value on the start flight, V9)."""
        dragon = self.dragons[player]
        if dragon.eliminated:
            return ()
        if self.round == START_ROUND:
            return v.DIAL_SPEEDS
        return v.legal_dials(dragon)


def new_race(players: Sequence[str]) -> Race:
    """The race before the start: every dragon with :data:`START_CARD`'s tokens, cards and DP.

    :raises InvalidInput: naming ``players`` for a count outside 2-6 or a repeated name.
    """
    names = tuple(players)
    if not v.MIN_PLAYERS <= len(names) <= v.MAX_PLAYERS:
        raise InvalidInput("players", len(names), f"Volatio is for {v.MIN_PLAYERS} to {v.MAX_PLAYERS} mages")
    if len(set(names)) != len(names):
        raise InvalidInput("players", list(names), "each mage needs a different name")
    start = Dragon(energy=START_CARD.energy, hand=START_CARD.spell_cards, silver=START_CARD.speed,
                   coloured=START_CARD.speed)
    return Race(names, MappingProxyType(dict.fromkeys(names, start)),
                MappingProxyType(dict.fromkeys(names, 0)))


def fold(players: Sequence[str], play_log: Iterable[LogEntry], *, rules: str | None = None) -> Race:
    """The race after every ``volatio.*`` move of *play_log* (the session's, oldest first).

    A move the rules refuse is skipped with a warning (see :mod:`companion.games`); *rules* is
    unused: Volatio has one set.

    :raises InvalidInput: as :func:`new_race`.
    """
    return fold_moves(new_race(players), PREFIX, play_log, play)


def play(race: Race, kind: str, data: Mapping[str, Any]) -> Race:
    """*race* after the move *kind* (``volatio.reveal`` or ``reveal``) with *data*.

    :raises InvalidInput: naming ``kind`` for an unknown move, or the field of *data* that
        is missing or wrong.
    :raises IllegalMove: for a move the rules forbid now (an illegal dial change, a crash
        before the flight...); :class:`RoundNotPlayed` for a round ended before everyone
        flew, :class:`NobodyCrossed` for a finish with nobody past the line.
    """
    name = kind.removeprefix(PREFIX)
    try:
        move = Move(name)
    except ValueError:
        raise InvalidInput("kind", kind, "unknown Volatio move; known: "
                           + ", ".join(m.value for m in Move)) from None
    if race.is_over:
        raise IllegalMove("race", move.value, "the race is over (§5.11)")
    if move is Move.NEXT_ROUND:
        return _next_round(race)
    if move is Move.FINISH:
        return _finish(race, data.get("past_line_mm"))
    player = _player(race, data)
    dragon = race.dragons[player]
    if dragon.eliminated:
        raise IllegalMove("player", player, "this dragon is out of the race (§5.9)")
    events: Events = ()
    if move is Move.START_CARD:
        dragon = _start_card(race, player, data)
    elif move is Move.REVEAL:
        dragon, events = _reveal(race, player, data.get("speed"))
        race = replace(race, flown=race.flown + (player,))
    elif move is Move.PROGRESS:
        return replace(race, progress=_with(race.progress, player, _progress(data.get("progress"))),
                       last_player=player, last_events=())
    elif move is Move.LAY_CARD:
        _before_flight(race, player)
        dragon, events = v.lay_card(dragon)
    elif move is Move.LOSE_ENERGY:
        dragon, events = v.lose_energy(dragon, data.get("tokens", 1))
    else:
        _after_flight(race, player, move)
        if move is Move.CRASH:
            dragon, events = _crash(dragon, data.get("part"))
        elif move is Move.COLLISION:
            dragon, events = v.collide(dragon)
        elif move is Move.ENERGY_FIELD:
            dragon, events = v.reach_energy_field(dragon)
        else:  # Move.DRAW_CARD
            dragon, events = v.draw_cards(dragon, 1)
    return replace(race, dragons=_with(race.dragons, player, dragon), last_player=player, last_events=events)


def result_document(race: Race) -> dict[str, Any]:
    """The finished race as the session's result: places, winners, points for the chart.

    ``scores`` gives each placed dragon one point per dragon it beat plus one (last place 1),
    and an eliminated dragon 0, in finishing order; ``past_line_mm`` is how far each
    crossing dragon's base is past the line.

    :raises IllegalMove: naming ``race`` while it is not over.
    """
    if race.result is None:
        raise IllegalMove("race", "running", "no dragon has been recorded past the finish line yet")
    result = race.result
    return {"ranking": list(result.ranking), "winners": list(result.winners), "scores": ranking_points(race),
            "past_line_mm": dict(result.past_line_mm), "eliminated": list(race.eliminated),
            "rounds": race.round}


def ranking_points(race: Race) -> dict[str, int]:
    """Points by place for a results chart: first of N placed gets N, last 1, the eliminated 0.

    Winners tied exactly past the line (:data:`~companion.games.volatio.FINISH_TIE_BREAK_INNER_SIDE`
    off, or the same spot) all get the first place's N.
    """
    ranking = race.result.ranking if race.result is not None else race.order()
    winners = race.result.winners if race.result is not None else ()
    points = {name: len(ranking) if name in winners else len(ranking) - i for i, name in enumerate(ranking)}
    return {**points, **dict.fromkeys(race.eliminated, 0)}


# -- the moves ----------------------------------------------------------------------------------

def _player(race: Race, data: Mapping[str, Any]) -> str:
    player = data.get("player")
    if not isinstance(player, str) or player not in race.dragons:
        raise InvalidInput("player", player, "is not a mage in this race: " + ", ".join(race.players))
    return player


def _with(mapping: Mapping[str, Any], key: str, value: Any) -> Mapping[str, Any]:
    return MappingProxyType({**mapping, key: value})


def _start_card(race: Race, player: str, data: Mapping[str, Any]) -> Dragon:
    if race.round != START_ROUND or player in race.flown:
        raise IllegalMove("player", player, "the Avolatio card's tokens and cards are set before the start "
                                            "flight (§3 step 9)")
    dragon = race.dragons[player]
    return Dragon(energy=data.get("energy", dragon.energy), hand=data.get("cards", dragon.hand),
                  silver=dragon.silver, coloured=dragon.coloured)  # raises naming energy or hand


def _reveal(race: Race, player: str, speed: object) -> tuple[Dragon, Events]:
    if player in race.flown:
        raise IllegalMove("player", player, f"has already flown in round {race.round} (§5.2)")
    dragon = race.dragons[player]
    if race.round == START_ROUND:  # V9: the start flight flies the Avolatio card's DP
        dial = v.check_dial(speed, "speed")
        return replace(dragon, silver=dial, coloured=dial), (v.SpeedRevealed(dragon.silver, dial),)
    return v.reveal_speed(dragon, v.check_dial(speed, "speed"))


def _crash(dragon: Dragon, part: object) -> tuple[Dragon, Events]:
    if part == v.Crash.BASE.value:
        return v.crash_base(dragon)
    if part == v.Crash.PATH.value:
        return v.crash_path(dragon)
    raise InvalidInput("part", part, "must be 'base' or 'path' (§5.7)")


def _before_flight(race: Race, player: str) -> None:
    if race.round == START_ROUND:
        raise IllegalMove("player", player, "no spell card is laid for the start flight (§4.1, V9)")
    if player in race.flown:
        raise IllegalMove("player", player, "has flown: a card is laid before the flights (§4.2 phase 2)")


def _after_flight(race: Race, player: str, move: Move) -> None:
    if player not in race.flown:
        raise IllegalMove("player", player, f"{move.value}: has not flown this round yet; reveal its speed "
                                            "first (§4.2 phase 3)")


def _progress(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_PROGRESS:
        raise InvalidInput("progress", value, f"must be whole track units from 0 to {MAX_PROGRESS}")
    return value


def _round_played(race: Race, what: str) -> None:
    if race.waiting:
        raise RoundNotPlayed(race.round, what, race.waiting)


def _next_round(race: Race) -> Race:
    _round_played(race, "next round")
    dragons = dict(race.dragons)
    events: Events = ()
    for name in race.racing:
        dragons[name], more = v.end_round(dragons[name])
        events += more
    return replace(race, dragons=MappingProxyType(dragons), round=race.round + 1, flown=(),
                   last_player=None, last_events=events)


def _finish(race: Race, past: object) -> Race:
    """§5.11: the finish line is put one track unit past the furthest entry, so every dragon that
    did not cross stays behind it in the order its progress gives, and each one that did is
    placed by its own distance past the line."""
    _round_played(race, "finish")
    if not isinstance(past, Mapping) or not past:
        raise NobodyCrossed(past)
    racing = race.racing
    for name, mm in past.items():
        field = f"past_line_mm.{name}"
        if name not in racing:
            raise InvalidInput(field, mm, "is not a dragon still racing: " + ", ".join(racing))
        if isinstance(mm, bool) or not isinstance(mm, int | float) or not math.isfinite(mm) or mm < 0:
            raise InvalidInput(field, mm, "must be 0 or more mm past the line (0: the base touches it)")
    line = float(max(race.progress[p] for p in racing) + 1)
    positions = {p: TrackPosition(line + float(past[p]) if p in past else float(race.progress[p]))
                 for p in racing}
    return replace(race, result=v.race_result(positions, line), last_player=None, last_events=())
