"""Dragon's Gold's final scoring (§6): coins, the black diamond, the gem majorities and the
advanced set bonus, and the ``companion score dragons-gold`` document.

Pure and stdlib-only. The discs, the box and the two rule sets are in
:mod:`companion.games.dragons_gold.rules`; where the rule book is silent, the reading the
digest gives is a named constant here, and its docstring says so.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.errors import InvalidInput
from companion.games._input import (
    expect_count,
    expect_keys,
    expect_object,
    expect_players,
    expect_str,
    winners_of,
)
from companion.games.dragons_gold.rules import BOX, GEMS, MAX_PLAYERS, MIN_PLAYERS, Disc, Rules

COIN_POINTS: Mapping[Disc, int] = {Disc.SILVER: 1, Disc.GOLD: 3, Disc.RED: 1}
BLACK_DIAMOND_POINTS: Mapping[Rules, int] = {Rules.SIMPLE: 7, Rules.ADVANCED: 19}
MAJORITY_POINTS: Mapping[Rules, Mapping[int, int]] = {
    Rules.SIMPLE: {3: 15, 4: 12, 5: 12, 6: 10},
    Rules.ADVANCED: {3: 12, 4: 10, 5: 10, 6: 8},
}
SET_BONUS_POINTS = 5
"""Advanced: at least one disc of each of the five gem colours (§6.2 f)."""

MAJORITY_NEEDS_A_DISC = True
"""Reading A6: a colour nobody holds scores for nobody; a "tie at zero" is no majority."""

CURSED_TWO_WAY_TIE_GIVES_OTHER_HALF = True
"""Reading A7: when the black diamond's owner ties for the most with one other player, the
other still gets the half score and the owner gets nothing (the book only says the owner
gets no majority points, and that a colour whose *sole* leader is the owner scores for nobody)."""


@dataclass(frozen=True)
class Hoard:
    """What one player has behind the screen at the end: a count per disc colour."""

    counts: Mapping[Disc, int] = field(default_factory=dict)

    def __getitem__(self, disc: Disc) -> int:
        return self.counts.get(disc, 0)

    @classmethod
    def of(cls, **counts: int) -> Hoard:
        return cls({Disc(k): v for k, v in counts.items() if v})

    @property
    def is_cursed(self) -> bool:
        return self[Disc.BLACK] > 0


@dataclass(frozen=True)
class Majority:
    """How one gem colour was scored: who led, and what each leader got."""

    colour: Disc
    most: int
    leaders: tuple[str, ...]
    points: Mapping[str, int]
    why: str


@dataclass(frozen=True)
class Score:
    """One player's final score, item by item."""

    total: int
    coins: Mapping[Disc, int]  # silver, gold, red
    black_diamond: int
    majorities: Mapping[Disc, int]
    set_bonus: int
    is_cursed: bool


@dataclass(frozen=True)
class Result:
    scores: Mapping[str, Score]
    winners: tuple[str, ...]
    majorities: tuple[Majority, ...]


def score_majority(colour: Disc, hoards: Mapping[str, Hoard], rules: Rules) -> Majority:
    """Score one gem colour (§6.1 e, §6.2 d-e), with the curse and both readings above."""
    value = MAJORITY_POINTS[rules][len(hoards)]
    most = max((h[colour] for h in hoards.values()), default=0)
    leaders = tuple(sorted(n for n, h in hoards.items() if h[colour] == most))
    if most == 0 and MAJORITY_NEEDS_A_DISC:
        return Majority(colour, 0, (), {}, "nobody holds it")
    if rules is Rules.SIMPLE:  # every tied leader gets the full value (§6.1)
        return Majority(colour, most, leaders, dict.fromkeys(leaders, value),
                        "sole leader" if len(leaders) == 1 else f"{len(leaders)}-way tie: full value each")
    if len(leaders) >= 3:
        return Majority(colour, most, leaders, {}, f"{len(leaders)}-way tie: nobody scores")
    if len(leaders) == 1:
        if hoards[leaders[0]].is_cursed:
            return Majority(colour, most, leaders, {}, "the black diamond's owner leads alone: nobody scores")
        return Majority(colour, most, leaders, {leaders[0]: value}, "sole leader")
    half = value // 2
    paid = {n: half for n in leaders if not hoards[n].is_cursed}
    if len(paid) < len(leaders) and not CURSED_TWO_WAY_TIE_GIVES_OTHER_HALF:
        paid = {}
    why = "2-way tie: half each" if len(paid) == 2 else "2-way tie: half, none for the cursed owner"
    return Majority(colour, most, leaders, paid, why)


def score_game(hoards: Mapping[str, Hoard], rules: Rules) -> Result:
    """Final scores and winners (§6): every player tied on the top score wins (§5.10).

    :raises InvalidInput: for a player count outside 3-6 or more discs than the box holds.
    """
    check_hoards(hoards)
    majorities = tuple(score_majority(c, hoards, rules) for c in GEMS)
    scores: dict[str, Score] = {}
    for name, hoard in hoards.items():
        coins = {d: hoard[d] * p for d, p in COIN_POINTS.items()}
        black = BLACK_DIAMOND_POINTS[rules] * hoard[Disc.BLACK]
        cursed = rules is Rules.ADVANCED and hoard.is_cursed
        gems = {m.colour: m.points.get(name, 0) for m in majorities}
        has_set = all(hoard[c] > 0 for c in GEMS)
        bonus = SET_BONUS_POINTS if rules is Rules.ADVANCED and has_set and not cursed else 0
        total = sum(coins.values()) + black + sum(gems.values()) + bonus
        scores[name] = Score(total, coins, black, gems, bonus, cursed)
    winners = tuple(winners_of({n: s.total for n, s in scores.items()}))
    return Result(scores, winners, majorities)


def check_hoards(hoards: Mapping[str, Hoard]) -> None:
    """:raises InvalidInput: for a wrong player count, a negative count or more than the box holds."""
    if not MIN_PLAYERS <= len(hoards) <= MAX_PLAYERS:
        raise InvalidInput("players", len(hoards),
                           f"Dragon's Gold is for {MIN_PLAYERS} to {MAX_PLAYERS} players")
    seen: Counter[Disc] = Counter()
    holder: dict[Disc, str] = {}
    for name, hoard in hoards.items():
        for disc, n in hoard.counts.items():
            where = f"players.{name}.{disc.value}"
            if n < 0:
                raise InvalidInput(where, n, "must not be negative")
            seen[disc] += n
            if disc is Disc.BLACK and n and disc in holder:
                raise InvalidInput(where, n, f"there is only one black diamond and {holder[disc]} has it")
            if n:
                holder.setdefault(disc, name)
            if seen[disc] > BOX[disc]:
                raise InvalidInput(where, n, f"that makes {seen[disc]} {disc.value} discs in all; "
                                             f"the box holds {BOX[disc]}")


def parse_hoards(doc: Any) -> tuple[Rules, dict[str, Hoard]]:
    """The ``companion score dragons-gold`` input: rules and each player's disc counts.

    :raises InvalidInput: naming the field (``players.Anna.silver``) for anything wrong.
    """
    doc = expect_object(doc, "document")
    expect_keys(doc, "", ("rules", "players"), required=("players",))
    rules = Rules(expect_str(doc.get("rules", Rules.SIMPLE.value), "rules", [r.value for r in Rules]))
    players = expect_players(doc, "players", MIN_PLAYERS, MAX_PLAYERS)
    hoards: dict[str, Hoard] = {}
    for name, body in players.items():
        body = expect_object(body, f"players.{name}")
        expect_keys(body, f"players.{name}", [d.value for d in Disc])
        hoards[name] = Hoard({Disc(k): expect_count(v, f"players.{name}.{k}", BOX[Disc(k)])
                              for k, v in body.items()})
    check_hoards(hoards)
    return rules, hoards


def score_document(doc: Any) -> dict[str, Any]:
    """``companion score dragons-gold``: scores, winners and a breakdown per player."""
    rules, hoards = parse_hoards(doc)
    result = score_game(hoards, rules)
    breakdown = {
        name: {
            "silver": s.coins[Disc.SILVER], "gold": s.coins[Disc.GOLD], "red": s.coins[Disc.RED],
            "black": s.black_diamond,
            "majorities": {c.value: s.majorities[c] for c in GEMS},
            "set_bonus": s.set_bonus, "cursed": s.is_cursed, "total": s.total,
        }
        for name, s in result.scores.items()
    }
    return {"scores": {n: s.total for n, s in result.scores.items()}, "winners": list(result.winners),
            "breakdown": breakdown}
