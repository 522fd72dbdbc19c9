"""What Drakon's test modules share: a score document maker."""

from __future__ import annotations

from typing import Any


def doc(variant: str, **players: Any) -> dict[str, Any]:
    """A score document; each player is a coin list, or a dict of fields."""
    return {"variant": variant,
            "players": {n: p if isinstance(p, dict) else {"coins": p} for n, p in players.items()}}
