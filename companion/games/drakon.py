"""Drakon (third edition): coins, goals, the blocked game and the Heroes! counters, as pure code.

The rule book is the Russian text "Drakon правила игры" (shared seed ``003``); sections
are cited by its headings (``«Цель игры Drakon»``) and by the English digest's numbers
(``digest §5.3``). Where the two differ the rule book wins; every point the rule book
leaves open is a named constant below whose docstring says it is a reading.

``companion score drakon`` reads (see :func:`parse_document`)::

    {"variant": "standard" | "escape" | "team" | "five-coins",      optional, default "standard"
     "players": {"NAME": {"coins": [1, 3, ...],                      required, may be empty
                          "escaped": true | false,                   escape variant; default false
                          "team": "A"}}}                             team variant, required there

``escaped`` and ``team`` are checked (a boolean, a non-empty name) in every variant and
ignored where the variant has no use for them. It answers (see :func:`to_document`)::

    {"totals": {"NAME": gold, ...},           every player's gold, by name
     "team_totals": {"TEAM": gold, ...},      team variant only
     "goal_reached": [...],                   sides holding the variant's goal now
     "leaders": [...]}                        sides that would win if the game blocked now

A *side* is a player, or in the team variant a team (the rule book pools a team's coins,
and a team wins or loses as one). Every list is sorted, so the order of the input never
changes an answer. The document is a snapshot: it cannot say who reached a goal first, so
``goal_reached`` lists every side that holds it; nor does it check that a position is
reachable in play (only that the box holds the coins it names).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Final, Literal

from companion.errors import CompanionError, InvalidInput
from companion.games import GameInfo
from companion.games._input import (
    expect_bool,
    expect_count,
    expect_keys,
    expect_list,
    expect_object,
    expect_players,
    expect_str,
    winners_of,
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


# --- Variants ----------------------------------------------------------------------------


def has_ten_gold(side: Holdings) -> bool:
    """The standard goal: 10 gold or more, a win at once (:data:`STANDARD_GOAL_GOLD`)."""
    return side.gold >= STANDARD_GOAL_GOLD


def has_escaped_with_eight_gold(side: Holdings) -> bool:
    """The escape goal: 8 gold or more and out through an Escape or a Teleport (:data:`ESCAPE_GOAL_GOLD`)."""
    return side.escaped and side.gold >= ESCAPE_GOAL_GOLD


def has_twenty_team_gold(side: Holdings) -> bool:
    """The team goal: a team's pool worth 20 gold or more (:data:`TEAM_GOAL_GOLD`)."""
    return side.gold >= TEAM_GOAL_GOLD


def has_five_coins(side: Holdings) -> bool:
    """The fixed-stake goal: 5 coins of any value (:data:`FIXED_STAKE_COINS`)."""
    return side.count >= FIXED_STAKE_COINS


@dataclass(frozen=True)
class Variant:
    """One way to win: who plays, which player fields mean something, and the goal of a side.

    ``goal`` is asked of a side's holdings: a player's, or a team's pool when
    ``is_team_game``. ``fields`` are the player fields the variant reads besides ``coins``.
    """

    key: str
    title: str
    section: str  # where the rule book says so
    player_counts: frozenset[int]
    fields: frozenset[str]
    is_team_game: bool
    goal: Callable[[Holdings], bool]


_ANY_COUNT: Final = frozenset(range(MIN_PLAYERS, MAX_PLAYERS + 1))

VARIANTS: Final[Mapping[str, Variant]] = {v.key: v for v in (
    Variant("standard", "First to 10 gold", "«Цель игры Drakon»; digest §5.3",
            _ANY_COUNT, frozenset(), False, has_ten_gold),
    Variant("escape", "Escape from Drakon's lair!", "«Вариант правил: Сваливаем из логова Дракона!»; "
            "digest §7.2", _ANY_COUNT, frozenset({"escaped"}), False, has_escaped_with_eight_gold),
    Variant("team", "Team game", "«Вариант правил: Командная игра (4 или 6 игроков)»; digest §7.3",
            TEAM_PLAYER_COUNTS, frozenset({"team"}), True, has_twenty_team_gold),
    Variant("five-coins", "Fixed stake: 5 coins", "«Вариант правил: Фиксированная ставка в золоте»; "
            "digest §7.4", _ANY_COUNT, frozenset(), False, has_five_coins),
)}
"""Every variant by its CLI name. The Heroes! rules combine with any of them."""


def find_variant(name: str, field: str = "variant") -> Variant:
    """The variant called *name*.

    :raises InvalidInput: naming *field* for a name no variant has.
    """
    return VARIANTS[expect_str(name, field, choices=tuple(VARIANTS))]


# --- Teams -------------------------------------------------------------------------------


def team_pools(players: Mapping[str, Holdings], field: str = "players") -> dict[str, Holdings]:
    """Each team's coins taken together, by team name.

    «если игрока монеты лишают, то она берется из командного пула»: a team's coins form one
    pool, which is what the team goal and a steal are counted against.

    :raises InvalidInput: naming ``players.NAME.team`` for a player without a team.
    """
    coins: dict[str, list[int]] = {}
    for name in sorted(players):
        team = players[name].team
        if team is None:
            raise InvalidInput(f"{field}.{name}.team", None, "is required in the team variant")
        coins.setdefault(team, []).extend(players[name].coins)
    return {team: Holdings(tuple(sorted(c)), team=team) for team, c in sorted(coins.items())}


def team_totals(players: Mapping[str, Holdings]) -> dict[str, int]:
    """Each team's gold: the sum of its members' coins."""
    return {team: pool.gold for team, pool in team_pools(players).items()}


def check_teams(players: Mapping[str, Holdings], field: str = "players") -> None:
    """Refuse teams that are not as «Командная игра» requires: 4 or 6 players, teams of 2.

    :raises InvalidInput: naming *field* for the wrong number of players, or
        ``players.NAME.team`` (the last member by name) for a team that is not a pair.
    """
    if len(players) not in TEAM_PLAYER_COUNTS:
        raise InvalidInput(field, len(players), "the team variant is for 4 or 6 players")
    members: dict[str, list[str]] = {}
    for name in sorted(players):
        team = players[name].team
        if team is None:
            raise InvalidInput(f"{field}.{name}.team", None, "is required in the team variant")
        members.setdefault(team, []).append(name)
    for team, names in sorted(members.items()):
        if len(names) != TEAM_SIZE:
            raise InvalidInput(f"{field}.{names[-1]}.team", team,
                               f"teams are pairs, but this team has {len(names)}: {', '.join(names)}")


def is_alternating_seating(teams_clockwise: Sequence[str], *,
                           strict: bool = SEATING_IS_STRICT_ROTATION) -> bool:
    """Whether the teams, read clockwise round the table, alternate as «Командная игра» asks.

    *teams_clockwise* is each seat's team, in clockwise order from any seat. Strictly (the
    default, see :data:`SEATING_IS_STRICT_ROTATION`) the seats must repeat one rotation of
    the teams, 1-2-3-1-2-3; loosely, no two neighbours may be teammates.
    """
    n, k = len(teams_clockwise), len(set(teams_clockwise))
    if k < 2:
        return False
    if strict:
        return n % k == 0 and all(teams_clockwise[i] == teams_clockwise[i % k] for i in range(n))
    return all(teams_clockwise[i] != teams_clockwise[(i + 1) % n] for i in range(n))


def seating_plan(teams: Mapping[str, Collection[str]]) -> list[str]:
    """Player names in clockwise seat order with the teams alternating (digest §9's seating plan).

    Teams are taken in sorted order and members in sorted order: team 1's first, team 2's
    first, …, then each team's second.

    :raises InvalidInput: naming ``teams.TEAM`` for a team whose size differs from the first's.
    """
    ordered = {team: sorted(names) for team, names in sorted(teams.items())}
    sizes = {len(names) for names in ordered.values()}
    if len(sizes) > 1:
        size = len(next(iter(ordered.values())))
        for team, names in ordered.items():
            if len(names) != size:
                raise InvalidInput(f"teams.{team}", names, f"every team needs {size} players")
    return [names[i] for i in range(max(sizes, default=0)) for names in ordered.values()]


class Direction(StrEnum):
    """Which neighbour a Steal a Coin room robs."""

    CLOCKWISE = "clockwise"
    COUNTER_CLOCKWISE = "counter-clockwise"


def steal_target(seating_clockwise: Sequence[str], thief: str, direction: Direction) -> str:
    """The opponent a Steal a Coin room robs: the next one clockwise or counter-clockwise.

    «Возьмите случайную монету у оппонента, сидящего следующим по часовой стрелке от Вас»
    (digest §5.9). With two players both directions name the same opponent (digest example 6).

    :raises InvalidInput: naming ``thief`` for a name not seated, or ``seating`` for a
        table of fewer than 2 or with a name twice.
    """
    if len(seating_clockwise) < 2 or len(set(seating_clockwise)) != len(seating_clockwise):
        raise InvalidInput("seating", list(seating_clockwise), "needs 2 or more different players")
    if thief not in seating_clockwise:
        raise InvalidInput("thief", thief, f"is not seated at {list(seating_clockwise)}")
    step = 1 if direction is Direction.CLOCKWISE else -1
    return seating_clockwise[(seating_clockwise.index(thief) + step) % len(seating_clockwise)]


# --- Outcomes ----------------------------------------------------------------------------


def sides_of(variant: Variant, players: Mapping[str, Holdings]) -> dict[str, Holdings]:
    """The holdings that win or lose: each player's, or each team's pool in the team variant."""
    return team_pools(players) if variant.is_team_game else dict(sorted(players.items()))


def goal_reached(variant: Variant, players: Mapping[str, Holdings]) -> list[str]:
    """Every side that holds the variant's goal, sorted (a snapshot cannot say who was first)."""
    return sorted(name for name, side in sides_of(variant, players).items() if variant.goal(side))


def blocked_game_winners(sides: Mapping[str, Holdings], *, measure: Measure = BLOCKED_GAME_MEASURE,
                         ties_share: bool = BLOCKED_GAME_TIES_SHARE) -> list[str]:
    """Who wins when nobody can place a room or move («Ход игры Drakon»; digest §5.6, D4).

    The side with the most gold (or, by *measure*, the most coins) wins; a tie shares the
    win, or with ``ties_share=False`` leaves nobody winning. Sorted.
    """
    best = winners_of({name: side.gold if measure == "gold" else side.count for name, side in sides.items()})
    return best if ties_share or len(best) == 1 else []


@dataclass(frozen=True)
class Table:
    """A scoring snapshot: the variant played and every player's holdings."""

    variant: Variant
    players: Mapping[str, Holdings]


@dataclass(frozen=True)
class Score:
    """What a snapshot comes to: the outcome as data, every name list sorted.

    ``leaders`` are the sides that would win if the game blocked now (most gold);
    ``team_totals`` is ``None`` outside the team variant.
    """

    totals: Mapping[str, int]
    goal_reached: tuple[str, ...]
    leaders: tuple[str, ...]
    team_totals: Mapping[str, int] | None = None


def score(table: Table) -> Score:
    """Totals, who holds the goal, and who leads, for one snapshot."""
    sides = sides_of(table.variant, table.players)
    return Score(
        totals={name: h.gold for name, h in sorted(table.players.items())},
        goal_reached=tuple(goal_reached(table.variant, table.players)),
        leaders=tuple(blocked_game_winners(sides)),
        team_totals={team: side.gold for team, side in sides.items()} if table.variant.is_team_game else None,
    )


_PLAYER_FIELDS: Final = frozenset({"coins", "escaped", "team"})


def parse_document(doc: Any) -> Table:
    """The table a ``companion score drakon`` document describes (see the module docstring).

    :raises InvalidInput: naming the field, for an unknown variant or field, the wrong
        number of players for the variant, a coin value no coin has, more coins than the
        box holds, a field the variant does not use, or teams not in pairs.
    """
    root = expect_object(doc, "document")
    expect_keys(root, "", {"variant", "players"}, required={"players"})
    variant = find_variant(root.get("variant", "standard"))
    raw_players = expect_players(root, "players", MIN_PLAYERS, MAX_PLAYERS)
    if len(raw_players) not in variant.player_counts:
        counts = " or ".join(str(n) for n in sorted(variant.player_counts))
        raise InvalidInput("players", len(raw_players),
                           f"the {variant.key!r} variant is for {counts} players")
    players = {name: _parse_player(raw_players[name], f"players.{name}", variant)
               for name in sorted(raw_players)}
    check_coin_supply(players)
    if variant.is_team_game:
        check_teams(players)
    return Table(variant, players)


def _parse_player(raw: Any, field: str, variant: Variant) -> Holdings:
    player = expect_object(raw, field)
    required = {"coins"} | ({"team"} if variant.is_team_game else set())
    expect_keys(player, field, _PLAYER_FIELDS, required=required)
    # ``escaped`` and ``team`` are checked everywhere but only count in the variants that use
    # them: the contract's player object carries all three fields whatever the variant.
    coins = expect_list(player["coins"], f"{field}.coins")
    return Holdings(
        coins=tuple(check_coin_value(v, f"{field}.coins[{i}]") for i, v in enumerate(coins)),
        escaped=expect_bool(player.get("escaped", False), f"{field}.escaped"),
        team=_parse_team(player["team"], f"{field}.team") if "team" in player else None,
    )


def _parse_team(raw: Any, field: str) -> str:
    team = expect_str(raw, field)
    if not team.strip():
        raise InvalidInput(field, team, "a team needs a name")
    return team


def to_document(result: Score) -> dict[str, Any]:
    """The JSON answer for a :class:`Score`; ``team_totals`` appears only in the team variant."""
    doc: dict[str, Any] = {"totals": dict(result.totals)}
    if result.team_totals is not None:
        doc["team_totals"] = dict(result.team_totals)
    doc["goal_reached"] = list(result.goal_reached)
    doc["leaders"] = list(result.leaders)
    return doc


def score_document(doc: Any) -> dict[str, Any]:
    """Answer ``companion score drakon``: a parsed JSON document in, a JSON document out.

    :raises InvalidInput: naming the offending field (see :func:`parse_document`).
    """
    return to_document(score(parse_document(doc)))


GAME = GameInfo(key="drakon", title="Drakon", min_players=MIN_PLAYERS, max_players=MAX_PLAYERS,
                aliases=("дракон", "drakon-3e"), score_document=score_document)
