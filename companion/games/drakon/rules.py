"""Drakon's box, goals, the blocked game, team seating, the Heroes! counters and the holdings."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Final, Literal

from companion.errors import CompanionError, InvalidInput
from companion.games._input import (
    expect_count,
)

# --- The box («Состав игры Drakon»; digest §2) -------------------------------------------

COIN_VALUES: Final[tuple[int, ...]] = (1, 2, 3)
"""«Цена каждой монеты варьируется от 1 до 3»: every coin is worth 1, 2 or 3 gold."""

COINS_IN_BOX: Final = 28
"""«28 Монет»: the whole coin supply, across every player and the pool."""

COINS_BY_VALUE: Final[Mapping[int, int] | None] = None
"""How many coins of each value the box holds: unknown, so ``None``.

The rule book gives only the total (28) and the range of values (1 to 3); digest D5
agrees that the split is not given. So the only per-value limit the text supports is the
box total, and that is what :func:`check_coin_supply` enforces. Set this to the real
split (e.g. ``{1: 12, 2: 10, 3: 6}``) once someone counts a box, and the per-value check
switches on.
"""

HERO_COUNT: Final = 6
"""«6 Фигурок Героев», «6 Каунтеров способностей героев»."""

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 6
"""Player count: a reading (digest D3). The rule book never states it; six heroes, six
character sheets and six ability counters cap it at 6, and two is the least a game of
stealing from "the opponent next to you" can be played with."""

# --- Goals (digest §5.3, §7.2–§7.4) ---------------------------------------------------------

STANDARD_GOAL_GOLD: Final = 10
"""«Первый игрок, который соберет 10 золотых, немедленно выигрывает игру» («Цель игры Drakon»).

Two readings, both the digest's: the goal is gold *value*, not a count of coins, although
the story says «10 монет» (D1: the fixed-stake variant contrasts «не 10 золотых, а 5
монет»); and "collects 10" means 10 *or more*, since a 3-gold coin can carry 8 to 11
(digest example 1).
"""

ESCAPE_GOAL_GOLD: Final = 8
"""«должен первым собрать 8 золотых и использовать Выход (Escape) или Телепорт (Teleport)».

The rule book's «Чтобы выиграть в этом варианте правил, игрок должен…» makes escaping the
only way to win the variant, so 10 gold without leaving wins nothing (the digest marks
this as a reading; the text settles it). A hero marked ``escaped`` with fewer than 8 gold
has not reached the goal; the snapshot cannot tell when the gold arrived, so it is not
refused either.
"""

TEAM_GOAL_GOLD: Final = 20
"""«команда игроков пытается собрать в общей сумме 20 золотых» («Командная игра»)."""

TEAM_SIZE: Final = 2
TEAM_PLAYER_COUNTS: Final[frozenset[int]] = frozenset({4, 6})
"""«Если игроков четыре, то команды делятся 2 на 2, если шесть – 2 на 2 на 2»."""

FIXED_STAKE_COINS: Final = 5
"""«надо собрать не 10 золотых, а 5 монет любого достоинства» («Фиксированная ставка в золоте»)."""

# --- The blocked game («Ход игры Drakon»; digest §5.6, D4) --------------------------------

Measure = Literal["gold", "coins"]

BLOCKED_GAME_MEASURE: Final[Measure] = "gold"
"""What "most coins" means when nobody can act: a reading (digest D4).

The rule book says «игрок с большим числом монет выигрывает игру», literally "the player
with the larger number of coins". But the same text calls the 10-gold goal "10 монет" in
its story, so it uses "coins" loosely; the digest reads gold value, consistent with the
goal, and so does this module (in every variant, the fixed-stake one included). ``"coins"``
counts coins instead.
"""

BLOCKED_GAME_TIES_SHARE: Final = True
"""A tie for the most gold in a blocked game: a reading (digest D4: "tied values share the win").

The rule book gives no tie rule. The other plausible reading is that nobody wins (the story
lets exactly one hero survive); ``False`` selects it, and then a tie has no winner.
"""

# --- Team seating («Командная игра»; digest §7.3) ------------------------------------------

SEATING_IS_STRICT_ROTATION: Final = True
"""What "the teams alternate" demands of six players: a reading.

«Игроки садятся так, чтобы команды чередовались (Игрок команды 1 — Игрок команды 2 — Игрок
команды 3 — Игрок команды 1 и т. п.)». The example is a strict rotation, 1-2-3-1-2-3, and
this module follows it. Read loosely, "alternate" only keeps teammates from sitting side by
side, which also allows A-B-A-C-B-C; ``False`` selects that. With four players the two
readings agree.
"""

# --- Heroes! («Необязательные правила: «Герои!»»; digest §7.1, D6) ------------------------

KNIGHT_REACTS_ON_ANY_TURN: Final = True
"""The Knight may save a coin on any player's turn: a reading (digest D6).

Abilities are used «в свой ход до основного действия или после» (on your own turn), yet the
Knight answers an opponent taking a coin, which happens on the opponent's turn (a steal, or
Drakon moved by someone else). The digest reads the Knight as the exception, and so does
this module; ``False`` holds the Knight to its owner's turns as well.
"""


class Hero(StrEnum):
    """The six heroes of the Heroes! rules, each with one ability usable once per game."""

    AMAZON = "amazon"
    BARBARIAN = "barbarian"
    DWARF = "dwarf"
    KNIGHT = "knight"
    THIEF = "thief"
    WIZARD = "wizard"


HERO_ABILITIES: Final[Mapping[Hero, str]] = {
    Hero.AMAZON: "move through 2 rooms in one move, carrying out both rooms' actions",
    Hero.BARBARIAN: "move a hero in the same room 1 room (it carries out that room's action), "
                    "then take 1 random room from its owner's hand",
    Hero.DWARF: "discard unwanted rooms from your hand and draw as many; with fewer than 4, draw up to 4",
    Hero.KNIGHT: "keep a coin an opponent or an action would take, before its value is revealed",
    Hero.THIEF: "steal 1 coin from an opponent in the same room, "
                "or secretly swap one of your coins for a random coin from the pool",
    Hero.WIZARD: "pass once through any door, even one without an arrow (not against a Magic Harp)",
}
"""What each counter lets its owner do once («Ниже представлен список героев…»)."""

REACTIVE_HEROES: Final[frozenset[Hero]] = frozenset({Hero.KNIGHT} if KNIGHT_REACTS_ON_ANY_TURN else ())
"""Heroes whose ability may be used on another player's turn (see :data:`KNIGHT_REACTS_ON_ANY_TURN`)."""


class AbilityRefused(CompanionError, RuntimeError):
    """A Heroes! ability used a second time, or at a moment the rules do not allow."""


@dataclass(frozen=True)
class AbilityCounter:
    """One hero's ability counter: in front of its owner until used, then set aside.

    «Положите свой перед собой и, как только используете способность героя, отложите его в
    сторону»: every ability works once per game («всего один раз»).
    """

    hero: Hero
    used: bool = False

    def can_use(self, *, on_own_turn: bool = True) -> bool:
        """Whether the ability may be used now: unused, and on the owner's turn unless reactive."""
        return not self.used and (on_own_turn or self.hero in REACTIVE_HEROES)

    def use(self, *, on_own_turn: bool = True) -> AbilityCounter:
        """The counter set aside.

        :raises AbilityRefused: if it was used already, or if it is not the owner's turn
            and the hero is not one that reacts (only the Knight does).
        """
        if self.used:
            raise AbilityRefused(f"the {self.hero.value!r} ability was used already: once per game")
        if not self.can_use(on_own_turn=on_own_turn):
            raise AbilityRefused(f"the {self.hero.value!r} ability is used on its owner's own turn only")
        return replace(self, used=True)


def deal_heroes(players: Collection[str], rng: random.Random) -> dict[str, AbilityCounter]:
    """A random hero and an unused counter for each player («Персонажи выбираются в случайном порядке»).

    Pure given *rng*: players are dealt in sorted order, so the same seed gives the same
    deal whatever order the names come in.

    :raises InvalidInput: naming ``players`` for fewer than 1 or more than 6 players.
    """
    names = sorted(set(players))
    if not 1 <= len(names) <= HERO_COUNT:
        raise InvalidInput("players", len(names), f"the box has {HERO_COUNT} heroes")
    heroes = rng.sample(list(Hero), len(names))
    return {name: AbilityCounter(hero) for name, hero in zip(names, heroes, strict=True)}


# --- Holdings ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Holdings:
    """The coins in front of one player (or a team's pool), and whether its hero has escaped.

    ``coins`` are values in gold, in no particular order; ``team`` is set only in the team
    variant; ``escaped`` matters only in the escape variant.

    :raises InvalidInput: naming ``coins[i]`` for a value no coin has, or ``team`` for an
        empty team name.
    """

    coins: tuple[int, ...] = ()
    escaped: bool = False
    team: str | None = None

    def __post_init__(self) -> None:
        for i, value in enumerate(self.coins):
            check_coin_value(value, f"coins[{i}]")
        if self.team is not None and not self.team.strip():
            raise InvalidInput("team", self.team, "a team needs a name")

    @property
    def gold(self) -> int:
        """The total value in gold."""
        return sum(self.coins)

    @property
    def count(self) -> int:
        """The number of coins, whatever their values."""
        return len(self.coins)

    def with_coin(self, value: int) -> Holdings:
        """These holdings after gaining a coin worth *value* (Find a Coin, a steal).

        :raises InvalidInput: naming ``coin`` for a value no coin has.
        """
        return replace(self, coins=(*self.coins, check_coin_value(value, "coin")))

    def without_coin(self, value: int) -> Holdings:
        """These holdings after losing one coin worth *value* (Drakon, Lose a Gold, a steal).

        :raises InvalidInput: naming ``coin`` if no coin of that value is held.
        """
        if value not in self.coins:
            raise InvalidInput("coin", value, f"no coin of that value is held (coins: {list(self.coins)})")
        i = self.coins.index(value)
        return replace(self, coins=self.coins[:i] + self.coins[i + 1:])


def check_coin_value(value: object, field: str) -> int:
    """*value* as a coin's worth in gold, if some Drakon coin is worth that.

    :raises InvalidInput: naming *field* for a non-integer, a negative value, or anything
        but 1, 2 or 3.
    """
    worth = expect_count(value, field)
    if worth not in COIN_VALUES:
        raise InvalidInput(field, value, "no Drakon coin is worth that; coins are worth 1, 2 or 3 gold")
    return worth


def check_coin_supply(players: Mapping[str, Holdings], *, field: str = "players",
                      coins_by_value: Mapping[int, int] | None = COINS_BY_VALUE) -> None:
    """Refuse holdings that need more coins than the box has («28 Монет»).

    Checks the total against :data:`COINS_IN_BOX` and, when *coins_by_value* is known,
    each value against its own count.

    :raises InvalidInput: naming *field* and quoting the number of coins held.
    """
    held = Counter(v for h in players.values() for v in h.coins)
    total = sum(held.values())
    if total > COINS_IN_BOX:
        raise InvalidInput(field, total, f"the players hold more coins than the box's {COINS_IN_BOX}")
    if coins_by_value is not None:
        for value in sorted(held):
            if held[value] > coins_by_value.get(value, 0):
                raise InvalidInput(field, held[value], f"the players hold more coins worth {value} "
                                                       f"than the box's {coins_by_value.get(value, 0)}")
