"""Drakon at the table: the touch screen's play log folded into counts, heroes and the reveal.

The rules live in :mod:`companion.games.drakon`; this module only keeps track of what the
shared screen records between the rules' moments, and calls the rules for every check:

- each player's coin *count* (public: coins lie face down, «чтобы другие игроки не знали
  точный их номинал», so everybody sees how many and nobody sees their worth);
- the Heroes! deal and which ability counters are set aside (:class:`drakon.AbilityCounter`);
- whether the coins were revealed at the end.

The coin *values* are not here: a player enters them in private and the screen writes them to
the session's score sheet as the ``companion score drakon`` document's ``coins`` list.
:func:`sheet_document` turns that sheet into a document the rules accept.

The play log is the session's ``play_log``: ``(kind, data, t_mono)`` with these kinds::

    ("count",   {"player": NAME, "count": n})            a coin count set on the shared screen
    ("heroes",  {"heroes": {NAME: HERO, ...}})            the Heroes! deal (§7.1: at random)
    ("ability", {"player": NAME})                         NAME's ability counter set aside
    ("reveal",  {})                                       every coin turned face up

Pure and stdlib-only; no clock (the log's times are not used).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from companion.errors import InvalidInput
from companion.games import LogEntry, drakon, fold_moves
from companion.games._input import expect_count, expect_object, expect_str
from companion.games.drakon.rules import AbilityCounter, Hero, Holdings

log = logging.getLogger(__name__)

SHEET_FIELDS: Final = ("coins", "escaped", "team")
"""The player fields of a ``companion score drakon`` document, the only ones the sheet keeps."""

TEAM_NAMES: Final = ("A", "B", "C")
"""Team names the screen hands out: one letter per pair (at most 6 players, so 3 teams)."""


@dataclass(frozen=True)
class DrakonPlay:
    """What the shared screen shows besides the secret values: counts, counters, the reveal.

    ``counts`` holds every player at the table (0 until set); ``heroes`` is empty until the
    Heroes! deal, then holds one counter per player.
    """

    players: tuple[str, ...]
    counts: Mapping[str, int] = field(default_factory=dict)
    heroes: Mapping[str, AbilityCounter] = field(default_factory=dict)
    revealed: bool = False

    @classmethod
    def new(cls, players: Sequence[str]) -> DrakonPlay:
        return cls(tuple(players), {name: 0 for name in players})

    @property
    def has_heroes(self) -> bool:
        return bool(self.heroes)

    def apply(self, kind: str, data: Mapping[str, Any]) -> DrakonPlay:
        """This state after one logged move; check a move by applying it before logging it.

        :raises InvalidInput: naming the field, for an unknown kind or player, a count the
            box cannot hold (28 coins in all, «28 Монет»), a second deal, an ability before
            the deal, or a second reveal.
        :raises drakon.AbilityRefused: for an ability counter already set aside.
        """
        if kind == "count":
            player = self._player(data.get("player"))
            count = expect_count(data.get("count"), f"counts.{player}", at_most=drakon.COINS_IN_BOX)
            counts = {**self.counts, player: count}
            # The box's total, whatever the coins are worth: no values are known on this screen.
            drakon.check_coin_supply({n: Holdings((1,) * c) for n, c in counts.items()},
                                     field="counts", coins_by_value=None)
            return replace(self, counts=counts)
        if kind == "heroes":
            if self.heroes:
                raise InvalidInput("heroes", sorted(self.heroes), "the heroes are dealt already")
            return replace(self, heroes=self._parse_deal(data.get("heroes")))
        if kind == "ability":
            player = self._player(data.get("player"))
            if player not in self.heroes:
                raise InvalidInput("ability", player, "deal the heroes first")
            return replace(self, heroes={**self.heroes, player: self.heroes[player].use()})
        if kind == "reveal":
            if self.revealed:
                raise InvalidInput("reveal", True, "the coins are revealed already")
            return replace(self, revealed=True)
        raise InvalidInput("kind", kind, "not a Drakon move; known: ability, count, heroes, reveal")

    def _player(self, name: object) -> str:
        if not isinstance(name, str) or name not in self.players:
            raise InvalidInput("player", name, f"is not at this table ({', '.join(self.players)})")
        return name

    def _parse_deal(self, raw: object) -> dict[str, AbilityCounter]:
        deal = expect_object(raw, "heroes")
        if sorted(deal) != sorted(self.players):
            raise InvalidInput("heroes", sorted(deal),
                               f"needs one hero for each of {', '.join(self.players)}")
        heroes = {name: Hero(expect_str(deal[name], f"heroes.{name}", choices=tuple(h.value for h in Hero)))
                  for name in self.players}
        if len(set(heroes.values())) != len(heroes):
            raise InvalidInput("heroes", sorted(h.value for h in heroes.values()), "each hero is dealt once")
        return {name: AbilityCounter(hero) for name, hero in heroes.items()}


PREFIX = "drakon."
"""Drakon's moves in the session's play log are ``drakon.<kind>``."""


def fold(players: Sequence[str], play_log: Iterable[LogEntry], *, rules: str | None = None) -> DrakonPlay:
    """The state after every ``drakon.*`` move in *play_log* (the session's, after undo and redo).

    A move that no longer applies is skipped with a warning (see :mod:`companion.games`);
    *rules* is unused: the variant is a move of its own.
    """
    return fold_moves(DrakonPlay.new(players), PREFIX, play_log, play)


def play(state: DrakonPlay, kind: str, data: Mapping[str, Any]) -> DrakonPlay:
    """*state* after one move (``drakon.deal`` or ``deal``); see :meth:`DrakonPlay.apply`."""
    return state.apply(kind.removeprefix(PREFIX), data)


def deal(players: Sequence[str], rng: random.Random) -> dict[str, Any]:
    """The data of a ``heroes`` move: a random hero for each player (:func:`drakon.deal_heroes`)."""
    counters = drakon.deal_heroes(players, rng)
    return {"heroes": {name: counter.hero.value for name, counter in counters.items()}}


def standings(players: Sequence[str], doc: Mapping[str, Any], state: Any) -> dict[str, Any]:
    """Each player's gold so far, once the coins are revealed; until then None for everyone:
    the coins lie face down, and their values are nobody's business yet."""
    if not getattr(state, "revealed", False):
        return dict.fromkeys(players)
    totals = drakon.score_document(sheet_document(doc, players))["totals"]
    return {name: totals.get(name) for name in players}


def sheet_document(doc: Mapping[str, Any], players: Sequence[str]) -> dict[str, Any]:
    """The ``companion score drakon`` document of a session's score sheet, for every player.

    A player who has entered no values yet holds no coins (``"coins": []``); a field the
    document does not know (a sheet from another game's session) is left out. ``variant``
    defaults to ``"standard"`` as in the rules.
    """
    sheet = doc.get("players", {})
    out: dict[str, Any] = {}
    for name in players:
        entry = sheet.get(name, {}) if isinstance(sheet, Mapping) else {}
        fields = {key: entry[key] for key in SHEET_FIELDS if key in entry}
        fields.setdefault("coins", [])
        out[name] = fields
    variant = doc.get("variant", "standard")
    return {"variant": variant if variant in drakon.VARIANTS else "standard", "players": out}


def coins_of(doc: Mapping[str, Any], player: str) -> list[int]:
    """The coin values *player* has entered on the sheet (empty when none)."""
    coins = doc.get("players", {}).get(player, {}).get("coins", [])
    return list(coins) if isinstance(coins, list) else []


def check_coins(doc: Mapping[str, Any], player: str, coins: Sequence[int]) -> None:
    """Refuse values for *player* that no coin has, or that need more coins than the box holds.

    *doc* is a :func:`sheet_document`; the other players keep what they entered.

    :raises InvalidInput: naming ``coins[i]`` or ``players`` (quoting only a count, never a value
        another player entered).
    """
    holdings = {name: Holdings(tuple(coins_of(doc, name))) for name in doc.get("players", {})}
    holdings[player] = Holdings(tuple(coins))
    drakon.check_coin_supply(holdings)


def default_teams(players: Sequence[str]) -> dict[str, str]:
    """Teams for the team variant from the seating, alternating as «Командная игра» asks.

    *players* are in seat order; seat ``i`` joins team ``i mod k`` for ``k`` pairs, so four
    players sit A-B-A-B and six A-B-C-A-B-C (:func:`drakon.is_alternating_seating`, strictly).
    """
    k = max(1, len(players) // drakon.TEAM_SIZE)
    return {name: TEAM_NAMES[i % k] for i, name in enumerate(players)}


def next_team(team: str | None, players: int) -> str:
    """The team after *team* when a player taps their team: A, B (, C with six) and round again."""
    names = TEAM_NAMES[:max(1, players // drakon.TEAM_SIZE)]
    return names[(names.index(team) + 1) % len(names)] if team in names else names[0]


def winners(result: Mapping[str, Any]) -> list[str]:
    """Who won, from a ``companion score drakon`` answer: the sides holding the goal, which win
    at once (digest §5.3, §7), or when nobody does, the game was blocked and the leaders win
    (digest §5.6). Sorted; team names in the team variant.
    """
    return list(result.get("goal_reached") or result.get("leaders") or [])


def to_coins_text(coins: Sequence[int]) -> str:
    """Coin values as the reveal shows them: ``"3 · 3 · 2 · 1"``, highest first."""
    return " · ".join(str(v) for v in sorted(coins, reverse=True))
