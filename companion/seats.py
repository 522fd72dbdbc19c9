"""Where the players sit in table mode, and the angle each player's panel is turned by to face them."""

from __future__ import annotations

SEAT_LAYOUTS = ("side", "around")
AROUND_ANGLES = (0, 270, 180, 90)
"""Table mode: seats clockwise from the host's edge (bottom, left, top, right), as the angle in
degrees (counter-clockwise) that turns a panel to face that seat; a fifth and sixth player share
the bottom and top edges."""


def seat_angles(players: int, layout: str) -> list[int]:
    """The angle each player's panel is turned by: all 0 with everyone on one side, else round
    the table clockwise (:data:`AROUND_ANGLES`)."""
    if layout != "around":
        return [0] * players
    order = [0, 270, 180, 90, 0, 180] if players > 4 else list(AROUND_ANGLES)
    return order[:players]
