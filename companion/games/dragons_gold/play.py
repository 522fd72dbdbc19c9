"""Dragon's Gold at the table: the session's play log folded into what the screen shows.

Pure: a tuple of moves in, a :class:`TableState` out, every rule from
:mod:`companion.games.dragons_gold`. The dragons' printed values are entered as each one is
turned up (A5: the rule book does not list them), and the bag is counted, not drawn: the
discs come out of the real bag, the app keeps the tally (§5.10).

Moves (``session.record_play("dg.<move>", data)``):

* ``reveal`` ``{slot, strength, known, hidden}``: a dragon turned up into an empty slot; its
  known treasure is drawn from the bag (fewer if the bag runs out, A9).
* ``place`` ``{slot, player, role, strength}``: an adventurer placed under a dragon (§5.2).
* ``kill`` ``{slot, hidden_drawn, red}``: the dragon died; how many hidden discs were drawn
  (none in the end phase) and how many red discs the whole treasure holds (for §5.6).
* ``shared`` ``{slot, outcome}``: the sharing ended, ``deal`` or ``timeout`` (§5.5: the
  treasure leaves the game); the dragon leaves the row, the team comes back face down.
* ``market`` ``{}``: the market card came up; trading (60 s) is over when this is logged.
* ``variant`` ``{strategic}``: the strategic variant (§7.2) on or off.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from companion.errors import InvalidInput
from companion.games import LogEntry, fold_moves
from companion.games.dragons_gold.rules import (
    BOX,
    MARKET_AFTER_DECK_CARDS,
    ROW_SIZE,
    Attacker,
    Disc,
    Dragon,
    DragonInPlay,
    Role,
    Rules,
    Sharing,
    share,
)

BAG_SIZE = sum(BOX.values())
DECK_DRAGONS = 18


@dataclass(frozen=True)
class Slot:
    """One place in the row of face-up dragons."""

    dragon: DragonInPlay | None = None
    treasure_discs: int = 0  # discs on the card (known, then with the hidden ones)
    red: int = 0  # red discs among them, as the table counted them at the kill
    killed: bool = False

    @property
    def is_empty(self) -> bool:
        return self.dragon is None


@dataclass(frozen=True)
class TableState:
    rules: Rules = Rules.SIMPLE
    strategic: bool = False
    slots: tuple[Slot, ...] = field(default_factory=lambda: (Slot(),) * ROW_SIZE)
    bag: int = BAG_SIZE
    revealed: int = 0  # dragons turned up so far, the opening four included
    market_done: bool = False
    removed: int = 0  # discs out of the game after failed negotiations
    messages: tuple[str, ...] = ()

    @property
    def is_end_phase(self) -> bool:
        """§5.10: the last disc is out of the bag."""
        return self.bag == 0

    @property
    def is_market_due(self) -> bool:
        """§5.9 with reading A2: after the opening four, 7 dragons come from the deck, then the
        market card (before the 8th replacement), unless the bag ran out first."""
        return not self.market_done and self.revealed >= ROW_SIZE + MARKET_AFTER_DECK_CARDS \
            and not self.is_end_phase

    @property
    def can_reveal(self) -> bool:
        """A dragon may be turned up: an empty slot, dragons left, not the end phase (§5.1)."""
        return (any(s.is_empty for s in self.slots) and self.revealed < DECK_DRAGONS
                and not self.is_end_phase and not self.is_market_due)

    @property
    def is_over(self) -> bool:
        """§5.10: no dragon left to fight, and none can come."""
        return all(s.is_empty for s in self.slots) and (self.is_end_phase or self.revealed >= DECK_DRAGONS)

    def sharing(self, slot: int) -> Sharing:
        """The sharing of a killed dragon, by the rules core (its treasure's discs: the red ones
        the table counted, the rest as silver since only their number matters here)."""
        s = self.slots[slot]
        if s.dragon is None or not s.killed:
            raise InvalidInput("slot", slot, "holds no killed dragon")
        discs = (Disc.RED,) * s.red + (Disc.SILVER,) * (s.treasure_discs - s.red)
        return share(DragonInPlay(s.dragon.dragon, discs, s.dragon.attackers), self.rules,
                     strategic=self.strategic)


PREFIX = "dg."
"""Dragon's Gold's moves in the session's play log are ``dg.<move>``."""


def fold(players: Sequence[str], play_log: Iterable[LogEntry], *, rules: str | None = None) -> TableState:
    """The table after every ``dg.`` move of *play_log*, under the session's *rules* (default simple).

    A move the state refuses is skipped with a warning (see :mod:`companion.games`).
    """
    return fold_moves(TableState(rules=Rules(rules or "simple")), PREFIX, play_log, play)


def play(state: TableState, kind: str, data: Mapping[str, Any]) -> TableState:
    """One move (``dg.reveal`` or ``reveal``).

    :raises InvalidInput: naming the field, for a move that cannot happen now.
    """
    kind = kind.removeprefix(PREFIX)
    slots = list(state.slots)
    if kind == "reveal":
        i = _slot(data, state)
        if not state.can_reveal or not slots[i].is_empty:
            raise InvalidInput("slot", i, "no dragon can be turned up there now")
        dragon = Dragon(f"dragon {state.revealed + 1}", _count(data, "strength", 1),
                        _count(data, "known"), _count(data, "hidden"))
        drawn = min(dragon.known, state.bag)
        slots[i] = Slot(DragonInPlay(dragon), treasure_discs=drawn)
        return replace(state, slots=tuple(slots), bag=state.bag - drawn, revealed=state.revealed + 1)
    if kind == "place":
        i = _slot(data, state)
        s = slots[i]
        if s.dragon is None or s.killed:
            raise InvalidInput("slot", i, "has no live dragon to attack")
        attacker = Attacker(str(data["player"]), Role(str(data["role"])), _count(data, "strength", 1))
        slots[i] = replace(s, dragon=replace(s.dragon, attackers=(*s.dragon.attackers, attacker)))
        return replace(state, slots=tuple(slots))
    if kind == "kill":
        i = _slot(data, state)
        s = slots[i]
        if s.dragon is None or s.killed or not s.dragon.is_dead:
            raise InvalidInput("slot", i, "holds no dragon that has just been killed")
        hidden = 0 if state.is_end_phase else min(_count(data, "hidden_drawn"), state.bag)
        discs = s.treasure_discs + hidden
        red = _count(data, "red")
        if red > discs:
            raise InvalidInput("red", red, f"the treasure has only {discs} discs")
        slots[i] = replace(s, treasure_discs=discs, red=red, killed=True)
        return replace(state, slots=tuple(slots), bag=state.bag - hidden)
    if kind == "shared":
        i = _slot(data, state)
        s = slots[i]
        if not s.killed:
            raise InvalidInput("slot", i, "holds no killed dragon")
        outcome = str(data["outcome"])
        if outcome not in ("deal", "timeout", "solo"):
            raise InvalidInput("outcome", outcome, "must be deal, timeout or solo")
        lost = 0
        if outcome == "timeout":  # §5.5: the treasure leaves the game; a single wizard keeps the reds
            lost = len(state.sharing(i).to_share)
        slots[i] = Slot()
        return replace(state, slots=tuple(slots), removed=state.removed + lost)
    if kind == "variant":
        return replace(state, strategic=bool(data.get("strategic")))
    if kind == "market":
        if not state.is_market_due:
            raise InvalidInput("market", kind, "the market card is not due")
        return replace(state, market_done=True)
    raise InvalidInput("move", kind, "is not a Dragon's Gold move")


def _slot(data: Mapping[str, Any], state: TableState) -> int:
    i = data.get("slot")
    if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(state.slots):
        raise InvalidInput("slot", i, f"must be 0 to {len(state.slots) - 1}")
    return i


def _count(data: Mapping[str, Any], key: str, low: int = 0) -> int:
    v = data.get(key, 0)
    if isinstance(v, bool) or not isinstance(v, int) or v < low or v > BAG_SIZE:
        raise InvalidInput(key, v, f"must be a whole number from {low} to {BAG_SIZE}")
    return v
