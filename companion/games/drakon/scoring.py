"""Drakon: the variants and their goals, teams and seating, who has won, and the ``companion score
drakon`` document (see :mod:`companion.games.drakon.rules` for its shape)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from companion.errors import InvalidInput
from companion.games._input import (
    expect_bool,
    expect_keys,
    expect_list,
    expect_object,
    expect_players,
    expect_str,
    winners_of,
)
from companion.games.drakon import rules
from companion.games.drakon.rules import Holdings, Measure, check_coin_supply, check_coin_value

# --- Variants ----------------------------------------------------------------------------


def has_ten_gold(side: Holdings) -> bool:
    """The standard goal: 10 gold or more, a win at once (:data:`STANDARD_GOAL_GOLD`)."""
    return side.gold >= rules.STANDARD_GOAL_GOLD


def has_escaped_with_eight_gold(side: Holdings) -> bool:
    """The escape goal: 8 gold or more and out through an Escape or a Teleport (:data:`ESCAPE_GOAL_GOLD`)."""
    return side.escaped and side.gold >= rules.ESCAPE_GOAL_GOLD


def has_twenty_team_gold(side: Holdings) -> bool:
    """The team goal: a team's pool worth 20 gold or more (:data:`TEAM_GOAL_GOLD`)."""
    return side.gold >= rules.TEAM_GOAL_GOLD


def has_five_coins(side: Holdings) -> bool:
    """The fixed-stake goal: 5 coins of any value (:data:`FIXED_STAKE_COINS`)."""
    return side.count >= rules.FIXED_STAKE_COINS


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


_ANY_COUNT: Final = frozenset(range(rules.MIN_PLAYERS, rules.MAX_PLAYERS + 1))

VARIANTS: Final[Mapping[str, Variant]] = {v.key: v for v in (
    Variant("standard", "First to 10 gold", "«Цель игры Drakon»; digest §5.3",
            _ANY_COUNT, frozenset(), False, has_ten_gold),
    Variant("escape", "Escape from Drakon's lair!", "«Вариант правил: Сваливаем из логова Дракона!»; "
            "digest §7.2", _ANY_COUNT, frozenset({"escaped"}), False, has_escaped_with_eight_gold),
    Variant("team", "Team game", "«Вариант правил: Командная игра (4 или 6 игроков)»; digest §7.3",
            rules.TEAM_PLAYER_COUNTS, frozenset({"team"}), True, has_twenty_team_gold),
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
    if len(players) not in rules.TEAM_PLAYER_COUNTS:
        raise InvalidInput(field, len(players), "the team variant is for 4 or 6 players")
    members: dict[str, list[str]] = {}
    for name in sorted(players):
        team = players[name].team
        if team is None:
            raise InvalidInput(f"{field}.{name}.team", None, "is required in the team variant")
        members.setdefault(team, []).append(name)
    for team, names in sorted(members.items()):
        if len(names) != rules.TEAM_SIZE:
            raise InvalidInput(f"{field}.{names[-1]}.team", team,
                               f"teams are pairs, but this team has {len(names)}: {', '.join(names)}")


def is_alternating_seating(teams_clockwise: Sequence[str], *,
                           strict: bool = rules.SEATING_IS_STRICT_ROTATION) -> bool:
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


def blocked_game_winners(sides: Mapping[str, Holdings], *, measure: Measure = rules.BLOCKED_GAME_MEASURE,
                         ties_share: bool = rules.BLOCKED_GAME_TIES_SHARE) -> list[str]:
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
    raw_players = expect_players(root, "players", rules.MIN_PLAYERS, rules.MAX_PLAYERS)
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
