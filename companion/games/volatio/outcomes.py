"""Volatio: what a move did, as data (the events each rule function returns beside the new state)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from companion.games.volatio.rules import HIT_DRAGON_PLACEMENT, Crash, Placement, Spell

# -- what happened: outcomes as data ------------------------------------------------------------

@dataclass(frozen=True)
class SpeedRevealed:
    previous: int  # DP, the silver pointer before
    speed: int  # DP, both pointers now


@dataclass(frozen=True)
class CardLaid:
    """A spell card went from the hand to beside the indicator, face down (§4.2 phase 2)."""


@dataclass(frozen=True)
class LaidCardPlayed:
    spell: Spell


@dataclass(frozen=True)
class LaidCardDiscarded:
    """An unused laid card went to the discards at the end of the round (§5.4)."""


@dataclass(frozen=True)
class ColouredPointerSet:
    speed: int  # Cooperatio Subrepta: the coloured pointer back to the silver one


@dataclass(frozen=True)
class ShieldRaised:
    """Amuletum: no hostile spell reaches this dragon for the rest of the round."""


@dataclass(frozen=True)
class AttackBlocked:
    spell: Spell


@dataclass(frozen=True)
class EnergyGained:
    tokens: int  # offered
    refused: int = 0  # of those, what the energy limit turned away for good (§5.5)


@dataclass(frozen=True)
class EnergyLost:
    tokens: int  # paid to the supply
    unpaid: int = 0  # owed beyond what the mage had: this fatigues the dragon


@dataclass(frozen=True)
class CardsDrawn:
    cards: int
    discarded: int = 0  # over the hand limit: the mage discards this many of their choice at once


@dataclass(frozen=True)
class CardsRefused:
    cards: int  # symbols touched by a fatigued dragon, which may not draw (§5.9)


@dataclass(frozen=True)
class TrapSprung:
    value: int


@dataclass(frozen=True)
class Crashed:
    part: Crash


@dataclass(frozen=True)
class Collided:
    hit_dragon: Placement = HIT_DRAGON_PLACEMENT  # where its owner puts the dragon that was hit


@dataclass(frozen=True)
class PointersSet:
    speed: int  # both pointers


@dataclass(frozen=True)
class DragonPlaced:
    where: Placement


@dataclass(frozen=True)
class DebilitatusDrawn:
    cards: int  # Debilitatus cards now in front of the mage


@dataclass(frozen=True)
class DebilitatusDiscarded:
    """Recovery: the dragon stopped at an energy field (§5.9)."""


@dataclass(frozen=True)
class SpellCardsDiscarded:
    cards: int  # the whole hand, plus the laid card (V10)


@dataclass(frozen=True)
class Eliminated:
    """A second Debilitatus card: the dragon leaves the track (§5.9)."""


Event: TypeAlias = (SpeedRevealed | CardLaid | LaidCardPlayed | LaidCardDiscarded | ColouredPointerSet
                    | ShieldRaised | AttackBlocked | EnergyGained | EnergyLost | CardsDrawn | CardsRefused
                    | TrapSprung | Crashed | Collided | PointersSet | DragonPlaced | DebilitatusDrawn
                    | DebilitatusDiscarded | SpellCardsDiscarded | Eliminated)
Events: TypeAlias = tuple[Event, ...]
