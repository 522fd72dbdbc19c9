"""Volatio: the start grid, the order of flight and the finish (§3, §4.1, §5.2, §5.11)."""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from companion.errors import InvalidInput
from companion.games.volatio import rules
from companion.games.volatio.dragon import Dragon, _check_count
from companion.games.volatio.rules import check_dial

# -- the start (§3, §4.1; book p. 3-4) ----------------------------------------------------------

@dataclass(frozen=True)
class AvolatioCard:
    """A start card: start field (= its number), spell cards, energy tokens and DP (§3 step 9)."""

    number: int
    energy: int
    spell_cards: int
    speed: int

    def __post_init__(self) -> None:
        if isinstance(self.number, bool) or not isinstance(self.number, int) \
                or not 1 <= self.number <= rules.MAX_PLAYERS:
            raise InvalidInput("number", self.number, f"Avolatio cards are numbered 1 to {rules.MAX_PLAYERS}")
        _check_count(self.energy, f"avolatio.{self.number}.energy", rules.ENERGY_LIMIT)
        _check_count(self.spell_cards, f"avolatio.{self.number}.spell_cards", rules.HAND_LIMIT)
        check_dial(self.speed, f"avolatio.{self.number}.speed")


AVOLATIO_CARDS: Mapping[int, AvolatioCard] = MappingProxyType(
    {1: AvolatioCard(1, energy=2, spell_cards=1, speed=500)})
"""V18: the book spells out only card 1 (field 1 front right, 2 tokens, 1 card, 500 DP, book
p. 4); cards 2-6 are printed on the cards, so a game needs a table with them."""

SMALL_START_TILE_MAX_PLAYERS = 4
"""§2, book p. 3: one start tile takes up to four dragons, the other five or six."""


class StartTile(StrEnum):
    UP_TO_4 = "up-to-4"
    FIVE_OR_SIX = "5-or-6"


@dataclass(frozen=True)
class StartGrid:
    """The race as set up: tile, each mage's start field, the start flight order and the dragons."""

    tile: StartTile
    fields: Mapping[str, int]  # the start field is the Avolatio number
    order: tuple[str, ...]  # the start flight (§4.1): in start-number order
    dragons: Mapping[str, Dragon]


def start_tile(players: int) -> StartTile:
    """The start tile for *players* dragons (§3 step 2).

    :raises InvalidInput: naming ``players`` outside 2-6.
    """
    _check_players(players)
    return StartTile.UP_TO_4 if players <= SMALL_START_TILE_MAX_PLAYERS else StartTile.FIVE_OR_SIX


def avolatio_deck(players: int) -> tuple[int, ...]:
    """The Avolatio cards in play: 1 to N for N mages, the rest back in the box (§3 step 6)."""
    _check_players(players)
    return tuple(range(1, players + 1))


def deal_avolatio(names: Sequence[str], rng: random.Random) -> dict[str, int]:
    """Shuffle the Avolatio cards 1..N and give each mage one (§3 step 6).

    :raises InvalidInput: naming ``players`` for a count outside 2-6 or a repeated name.
    """
    if len(set(names)) != len(names):
        raise InvalidInput("players", list(names), "each mage needs a different name")
    numbers = list(avolatio_deck(len(names)))
    rng.shuffle(numbers)
    return dict(zip(names, numbers, strict=True))


def start_grid(cards: Mapping[str, int],
               table: Mapping[int, AvolatioCard] = AVOLATIO_CARDS) -> StartGrid:
    """Set up the race from each mage's Avolatio card (§3 steps 8-9, §4.1).

    *cards* maps a mage to their Avolatio number; *table* gives each card's data. Each
    dragon starts with the card's tokens, cards and DP on both pointers.

    :raises InvalidInput: naming ``players.<name>`` for a number outside 1..N or used twice,
        ``avolatio.<n>`` for a card missing from *table*.
    """
    _check_players(len(cards))
    seen: dict[int, str] = {}
    for name, number in cards.items():
        field = f"players.{name}"
        if not name.strip():
            raise InvalidInput("players", name, "a mage needs a name")
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= len(cards):
            raise InvalidInput(field, number, f"with {len(cards)} mages the cards are 1 to {len(cards)}")
        if number in seen:
            raise InvalidInput(field, number, f"{seen[number]} already has Avolatio card {number}")
        seen[number] = name
        if number not in table:
            raise InvalidInput(f"avolatio.{number}", None, "this card's tokens, cards and DP are not in the "
                                                           "table (the book prints only card 1)")
    dragons = {name: Dragon(energy=table[n].energy, hand=table[n].spell_cards,
                            silver=table[n].speed, coloured=table[n].speed) for name, n in cards.items()}
    return StartGrid(start_tile(len(cards)), dict(cards), start_order(cards), dragons)


def start_order(cards: Mapping[str, int]) -> tuple[str, ...]:
    """The start flight's order: Avolatio number 1 first, then 2, and so on (§4.1, book p. 4)."""
    return tuple(sorted(cards, key=lambda name: cards[name]))


def _check_players(players: int) -> None:
    if not rules.MIN_PLAYERS <= players <= rules.MAX_PLAYERS:
        raise InvalidInput("players", players,
                           f"Volatio is for {rules.MIN_PLAYERS} to {rules.MAX_PLAYERS} mages")


# -- order of flight and the finish (§5.2, §5.11; book p. 6-7, 15) ------------------------------

FINISH_TIE_BREAK_INNER_SIDE = True
"""Reading V16: two dragons exactly as far past the finish line are ranked as the flight order
ranks a tie, nearer the inner side first. False leaves them tied (both win if first)."""


@dataclass(frozen=True)
class TrackPosition:
    """Where a dragon is, as far as the order and the finish need it.

    ``progress_mm``: how far the front of the base is along the track (judged by the yellow
    guide lines when in doubt, §5.2). ``inner_mm``: how far the base is from the inner side.

    :raises InvalidInput: naming the field for a value that is not a finite number, or a
        negative ``inner_mm``.
    """

    progress_mm: float
    inner_mm: float = 0.0

    def __post_init__(self) -> None:
        for field, value in (("progress_mm", self.progress_mm), ("inner_mm", self.inner_mm)):
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise InvalidInput(field, value, "must be a finite number of mm")
        if self.inner_mm < 0:
            raise InvalidInput("inner_mm", self.inner_mm, "must not be negative")


def _ahead_key(name: str, position: TrackPosition) -> tuple[float, float, str]:
    # The name only orders dragons at the very same spot, which two bases cannot share;
    # it is there so that no input order ever changes an answer.
    return (-position.progress_mm, position.inner_mm, name)


def fly_order(positions: Mapping[str, TrackPosition]) -> tuple[str, ...]:
    """Everyone ranked for flight: furthest along first, a tie to the one nearer the inner side (§5.2).

    Pass the dragons still racing. Within a round the order is judged again after every
    flight, so use :func:`next_to_fly` as the round goes on.
    """
    return tuple(sorted(positions, key=lambda name: _ahead_key(name, positions[name])))


def next_to_fly(positions: Mapping[str, TrackPosition], flown: Collection[str]) -> str | None:
    """The furthest-ahead dragon that has not flown this round, from positions now (§5.2, book p. 7).

    A dragon sent back (by fatigue, say) after flying does not fly again (Example 5).
    Returns None when everyone has flown.
    """
    waiting = {name: pos for name, pos in positions.items() if name not in flown}
    order = fly_order(waiting)
    return order[0] if order else None


@dataclass(frozen=True)
class RaceResult:
    """The finish check at the end of a round (§5.11)."""

    is_over: bool  # someone's base front has reached the finish line
    ranking: tuple[str, ...]  # every racing dragon: first place first
    winners: tuple[str, ...]  # empty while the race goes on; more than one only on a true tie
    past_line_mm: Mapping[str, float]  # the dragons that crossed, and by how much


def race_result(positions: Mapping[str, TrackPosition], finish_mm: float) -> RaceResult:
    """Whether the race ended this round, and the places (§5.11, book p. 15).

    A dragon has crossed when the front of its base touches or passes the line
    (``progress_mm >= finish_mm``). Of those, the one furthest past the line wins;
    everyone else is placed by track position, which for dragons past the line is the
    same thing. Pass only the dragons still racing: the eliminated are unplaced.
    """
    past = {name: pos.progress_mm - finish_mm for name, pos in positions.items()
            if pos.progress_mm >= finish_mm}
    ranking = fly_order(positions)
    if not past:
        return RaceResult(False, ranking, (), {})

    def place_key(name: str) -> tuple[float, float]:
        pos = positions[name]
        return (-pos.progress_mm, pos.inner_mm if FINISH_TIE_BREAK_INNER_SIDE else 0.0)

    best = place_key(ranking[0])
    winners = tuple(sorted(name for name in ranking if place_key(name) == best))
    return RaceResult(True, ranking, winners, past)
