"""What Volatio's test modules share: a dragon maker, the fatigue events, the finish line."""

from __future__ import annotations

from companion.games.volatio import (
    DebilitatusDrawn,
    Dragon,
    DragonPlaced,
    EnergyGained,
    Placement,
    PointersSet,
)

FATIGUE_EVENTS = (DebilitatusDrawn(1), DragonPlaced(Placement.NEAREST_PASSED_ENERGY_FIELD),
                  PointersSet(300), EnergyGained(2, 0))


def dragon(energy: int = 3, hand: int = 1, speed: int = 500, **kw: object) -> Dragon:
    return Dragon(energy=energy, hand=hand, silver=speed, coloured=speed, **kw)  # type: ignore[arg-type]


FINISH_MM = 1000.0
