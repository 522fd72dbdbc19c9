"""Dragon's Gold (Bruno Faidutti, 2011 Hungarian edition): the discs, the bag, the dragons, fights.

Pure and stdlib-only. Section numbers (§) are those of ``shared/rules/dragons_gold.md``,
which restates the Hungarian rule book; where the book is silent, the reading the
digest gives is a named constant here, and its docstring says so. The final scoring (§6)
is :mod:`companion.games.dragons_gold.scoring`.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from companion.errors import CompanionError, InvalidInput

MIN_PLAYERS, MAX_PLAYERS = 3, 6


class Disc(StrEnum):
    """The treasure discs (§2)."""

    SILVER = "silver"
    GOLD = "gold"
    RED = "red"  # magic items
    GREEN = "green"
    BLUE = "blue"
    PURPLE = "purple"
    YELLOW = "yellow"
    WHITE = "white"
    BLACK = "black"  # the black diamond


BOX: Mapping[Disc, int] = {Disc.SILVER: 35, Disc.GOLD: 20, Disc.RED: 16, Disc.BLUE: 12, Disc.GREEN: 12,
                           Disc.PURPLE: 12, Disc.YELLOW: 12, Disc.WHITE: 6, Disc.BLACK: 1}
"""What the bag holds at the start: 126 discs (§2)."""

GEMS: tuple[Disc, ...] = (Disc.GREEN, Disc.BLUE, Disc.PURPLE, Disc.YELLOW, Disc.WHITE)
"""The five colours scored by majority (§6)."""


class Rules(StrEnum):
    SIMPLE = "simple"  # the basic game (the rule book's "egyszerű játék")
    ADVANCED = "advanced"


# -- the treasure bag (§2, §5.10, A9) -----------------------------------------------------------


@dataclass(frozen=True)
class TreasureBag:
    """The cloth bag: how many of each disc are left. Draws take an explicit, seedable RNG."""

    contents: Mapping[Disc, int] = field(default_factory=lambda: dict(BOX))

    @property
    def remaining(self) -> int:
        return sum(self.contents.values())

    @property
    def is_empty(self) -> bool:
        return self.remaining == 0

    def draw(self, n: int, rng: random.Random) -> tuple[TreasureBag, tuple[Disc, ...]]:
        """Draw *n* discs at random, or as many as are left (reading A9: a dragon simply gets
        fewer discs, and the end phase starts when the last one comes out)."""
        if n < 0:
            raise InvalidInput("n", n, "cannot draw a negative number of discs")
        left = Counter({d: c for d, c in self.contents.items() if c})
        drawn: list[Disc] = []
        for _ in range(min(n, sum(left.values()))):
            disc = rng.choices(list(left), weights=list(left.values()))[0]
            drawn.append(disc)
            left[disc] -= 1
            if not left[disc]:
                del left[disc]
        return TreasureBag(dict(left)), tuple(drawn)


# -- dragons, the deck and the market (§3, §5.1, §5.9, A2, A3) -----------------------------------


@dataclass(frozen=True)
class Dragon:
    """A dragon card: the values printed on it (A5: the text gives none of them)."""

    name: str
    strength: int
    known: int  # bottom-left: discs put on it when it is revealed
    hidden: int  # bottom-right: discs drawn when it dies (none in the end phase)


@dataclass(frozen=True)
class MarketCard:
    """The market: 60 s of free trading when it comes up (§5.9)."""

    name: str = "market"


Card = Dragon | MarketCard
MARKET_AFTER_DECK_CARDS = 7
"""Reading A2: the market goes in after the opening four are revealed, between the 7th and
8th of the remaining 14, so it comes up after 7 dragons have come from the deck."""
TRADING_TIME_S = 60.0
NEGOTIATION_TIME_S = 60.0
ROW_SIZE = 4


class GameOver(CompanionError, RuntimeError):
    """A move after the game has ended."""


@dataclass(frozen=True)
class Attacker:
    """An adventurer placed under a dragon (§5.2)."""

    player: str
    role: Role
    strength: int


class Role(StrEnum):
    KNIGHT = "knight"
    THIEF = "thief"
    WIZARD = "wizard"


@dataclass(frozen=True)
class DragonInPlay:
    """A face-up dragon, its treasure on the card, and the adventurers under it in order."""

    dragon: Dragon
    treasure: tuple[Disc, ...] = ()
    attackers: tuple[Attacker, ...] = ()

    @property
    def attack(self) -> int:
        return sum(a.strength for a in self.attackers)

    @property
    def is_dead(self) -> bool:
        # A1: compared with the dragon's strength (a caption's "treasure" is a slip).
        return self.attack >= self.dragon.strength


@dataclass(frozen=True)
class Revealed:
    """What turning cards from the deck did: dragons put out, and whether the market came up."""

    dragons: tuple[DragonInPlay, ...]
    market: bool


@dataclass(frozen=True)
class Table:
    """The middle of the table: bag, deck, face-up dragons, and discs out of the game."""

    bag: TreasureBag
    deck: tuple[Card, ...]
    row: tuple[DragonInPlay, ...]
    removed: Mapping[Disc, int] = field(default_factory=dict)
    deck_drawn: int = 0

    @property
    def is_end_phase(self) -> bool:
        """§5.10: from the last disc drawn, no dragon is replaced and no hidden treasure drawn."""
        return self.bag.is_empty

    @property
    def is_over(self) -> bool:
        return not self.row and (self.is_end_phase or not self.deck)


def new_table(dragons: Sequence[Dragon], rng: random.Random) -> tuple[Table, Revealed]:
    """Setup (§3 steps 2-5): shuffle, reveal four with their known treasure, insert the market.

    :raises InvalidInput: for an empty deck of dragons.
    """
    if not dragons:
        raise InvalidInput("dragons", [], "the deck needs dragons")
    deck: list[Card] = list(dragons)
    rng.shuffle(deck)
    opening, rest = deck[:ROW_SIZE], deck[ROW_SIZE:]
    at = min(MARKET_AFTER_DECK_CARDS, len(rest))
    rest.insert(at, MarketCard())
    table = Table(TreasureBag(), tuple(rest), ())
    row: list[DragonInPlay] = []
    bag = table.bag
    for card in opening:
        assert isinstance(card, Dragon)
        bag, discs = bag.draw(card.known, rng)
        row.append(DragonInPlay(card, discs))
    table = replace(table, bag=bag, row=tuple(row))
    return table, Revealed(tuple(row), market=False)


def refill_row(table: Table, rng: random.Random) -> tuple[Table, Revealed]:
    """Turn dragons from the deck until four show (§5.1), unless the end phase has begun.

    The market, when it comes up, is set aside and replaced (reading A3); the caller starts
    the 60 s trading timer.
    """
    row, deck, bag = list(table.row), list(table.deck), table.bag
    put: list[DragonInPlay] = []
    market = False
    drawn = table.deck_drawn
    while len(row) < ROW_SIZE and deck and not bag.is_empty:
        card = deck.pop(0)
        drawn += 1
        if isinstance(card, MarketCard):
            market = True
            continue
        bag, discs = bag.draw(card.known, rng)
        placed = DragonInPlay(card, discs)
        row.append(placed)
        put.append(placed)
    return (replace(table, row=tuple(row), deck=tuple(deck), bag=bag, deck_drawn=drawn),
            Revealed(tuple(put), market))


# -- fights and sharing (§5.2-§5.8, §7.2) ----------------------------------------------------------


@dataclass(frozen=True)
class Theft:
    """One thief's steal, after the sharing, in joining order (§5.7)."""

    thief_of: str
    victims: tuple[str, ...]  # other players who took part in this kill
    may_look: bool  # the same player's wizard was in the team: look and choose, not draw blind


@dataclass(frozen=True)
class Sharing:
    """What happens when a dragon dies: who shares what, how, and what follows.

    ``participants`` are in the order their first adventurer joined.
    """

    participants: tuple[str, ...]
    treasure: tuple[Disc, ...]
    needs_negotiation: bool  # two or more players, not the strategic variant
    negotiation_s: float | None
    red_to_wizard: str | None  # basic: the single wizard's owner takes every red disc first
    red_taken: int
    to_share: tuple[Disc, ...]  # what the negotiation (or the division) is about
    thefts: tuple[Theft, ...]
    magic_item_eligible: tuple[str, ...]  # advanced: one card per red disc got in the sharing
    choosing_order: tuple[str, ...] = ()  # strategic variant: the divider is last
    parts: int = 0  # strategic variant: how many parts the divider makes


STRATEGIC_TIE_LATER_DIVIDES = True
"""Reading A8a: with tied least strength, the player who placed their first adventurer later
ranks lower and so divides (the book's own tie-break, applied to the bottom too)."""
STRATEGIC_FEWER_DISCS_FEWER_PARTS = True
"""Reading A8b: with fewer discs than participants, there are as many parts as discs; the
lowest-ranked players get none."""
STRATEGIC_KEEPS_WIZARDS_AND_THIEVES = True
"""Reading A8c: the single-wizard grab comes before the division and thefts after the choosing."""
SOLO_THIEF_STEALS_NOTHING = True
"""Reading §5.4: a player who killed alone has nobody to steal from."""


def share(dragon: DragonInPlay, rules: Rules, *, strategic: bool = False,
          hidden: Sequence[Disc] = ()) -> Sharing:
    """The sharing of a dead dragon's treasure (its known treasure plus *hidden*, drawn by the
    caller unless it is the end phase).

    :raises InvalidInput: when the dragon is not dead.
    """
    if not dragon.is_dead:
        raise InvalidInput("dragon", dragon.dragon.name,
                           f"is not dead ({dragon.attack} against strength {dragon.dragon.strength})")
    treasure = (*dragon.treasure, *hidden)
    participants = tuple(dict.fromkeys(a.player for a in dragon.attackers))
    wizards = [a for a in dragon.attackers if a.role is Role.WIZARD]
    red_to = wizards[0].player if rules is Rules.SIMPLE and len(wizards) == 1 else None
    if strategic and not STRATEGIC_KEEPS_WIZARDS_AND_THIEVES:
        red_to = None
    red_taken = treasure.count(Disc.RED) if red_to is not None else 0
    to_share = tuple(d for d in treasure if not (red_to is not None and d is Disc.RED))
    with_wizard = {a.player for a in wizards}
    thefts: list[Theft] = []
    if len(participants) > 1 and (not strategic or STRATEGIC_KEEPS_WIZARDS_AND_THIEVES):
        for a in dragon.attackers:
            if a.role is Role.THIEF:
                victims = tuple(p for p in participants if p != a.player)
                thefts.append(Theft(a.player, victims, a.player in with_wizard))
    solo = len(participants) == 1
    order: tuple[str, ...] = ()
    parts = 0
    if strategic and not solo:
        order = strategic_order(dragon.attackers)
        parts = min(len(order), len(to_share)) if STRATEGIC_FEWER_DISCS_FEWER_PARTS else len(order)
    negotiation = not solo and not strategic
    eligible = tuple(p for p in participants if p in with_wizard) if rules is Rules.ADVANCED else ()
    return Sharing(
        participants=participants, treasure=treasure, needs_negotiation=negotiation,
        negotiation_s=NEGOTIATION_TIME_S if negotiation else None,
        red_to_wizard=red_to, red_taken=red_taken, to_share=to_share, thefts=tuple(thefts),
        magic_item_eligible=eligible, choosing_order=order, parts=parts)


def strategic_order(attackers: Sequence[Attacker]) -> tuple[str, ...]:
    """§7.2: most total strength first; a tie goes to whoever placed a first adventurer earlier.

    The last in the order divides the treasure and chooses last.
    """
    totals: dict[str, int] = {}
    first: dict[str, int] = {}
    for i, a in enumerate(attackers):
        totals[a.player] = totals.get(a.player, 0) + a.strength
        first.setdefault(a.player, i)
    return tuple(sorted(totals, key=lambda p: (-totals[p], first[p])))


def negotiation_failed(sharing: Sharing) -> tuple[Disc, ...]:
    """§5.5: time ran out; what leaves the game (the single wizard keeps the red discs, §5.6)."""
    return sharing.to_share


def magic_item_cards(sharing: Sharing, red_obtained: Mapping[str, int]) -> dict[str, int]:
    """§5.6A (advanced): cards drawn per red disc got in the sharing, by players who had a
    wizard in the team. Red discs stolen afterwards are not counted (§5.7)."""
    return {p: n for p, n in red_obtained.items() if p in sharing.magic_item_eligible and n > 0}


# -- each player's adventurers (§4 step 1, §5.8) ----------------------------------------------------


@dataclass(frozen=True)
class Team:
    """One player's four adventurers: ready (face up), fighting (under a dragon), exhausted."""

    ready: tuple[Attacker, ...]
    fighting: tuple[Attacker, ...] = ()
    exhausted: tuple[Attacker, ...] = ()

    @classmethod
    def of(cls, player: str, strengths: Mapping[Role, Iterable[int]]) -> Team:
        return cls(tuple(Attacker(player, role, s) for role, values in strengths.items() for s in values))

    def start_turn(self) -> tuple[Team, str]:
        """§4 step 1: ``"play"``, ``"refreshed"`` (face-down ones turned up; reading A4: the
        player then plays), or ``"pass"`` (every adventurer is under a dragon)."""
        if self.ready:
            return self, "play"
        if self.exhausted:
            return replace(self, ready=self.exhausted, exhausted=()), "refreshed"
        return self, "pass"

    def send(self, attacker: Attacker) -> Team:
        if attacker not in self.ready:
            raise InvalidInput("adventurer", attacker.role.value,
                               "is not ready (face up) in front of its player")
        ready = list(self.ready)
        ready.remove(attacker)
        return replace(self, ready=tuple(ready), fighting=(*self.fighting, attacker))

    def come_back(self, attackers: Iterable[Attacker]) -> Team:
        """§5.8: after the sharing, the team's adventurers return face down."""
        back = [a for a in attackers if a in self.fighting]
        fighting = tuple(a for a in self.fighting if a not in back)
        return replace(self, fighting=fighting, exhausted=(*self.exhausted, *back))
