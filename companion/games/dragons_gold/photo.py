"""Dragon's Gold from a photo of the table: a treasure front's name is its disc (``gold``), and each
face-up disc is one of its colour on the player's sheet (see :mod:`companion.games.table_photo`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any, Final

from companion.errors import InvalidInput
from companion.games import dragons_gold
from companion.games.dragons_gold.rules import Disc
from companion.games.table_photo import PieceRules

TREASURE_KIND: Final = "treasure"
"""The library kind of Dragon's Gold's treasure discs."""


def parse_disc_front(name: str) -> Disc:
    """The Dragon's Gold disc a ``treasure`` front's name stands for: ``"gold"`` is gold.

    :raises InvalidInput: naming ``front`` for a name that is no disc.
    """
    try:
        return Disc(name.strip().lower())
    except ValueError:
        raise InvalidInput("front", name, "a treasure front is named after its disc: "
                                          + ", ".join(d.value for d in Disc)) from None


def to_disc_front(disc: Disc) -> str:
    """The :func:`parse_disc_front` name of *disc*."""
    return disc.value


PIECES: Final = PieceRules(
    "dragons-gold", TREASURE_KIND, tuple(d.value for d in Disc), lambda name: parse_disc_front(name).value)
"""A player's treasure pile: each face-up disc is one of its colour."""


def disc_counts(values: Iterable[str]) -> dict[str, int]:
    """Dragon's Gold: the nine disc counts (every field, 0 for a colour not in *values*)."""
    seen = Counter(values)
    return {d.value: seen[d.value] for d in Disc}


def dragons_gold_counts(doc: Mapping[str, Any], player: str, values: Iterable[str]) -> dict[str, int]:
    """*player*'s nine disc counts from a photo of their treasure, in place of what the sheet
    held, checked as a stepper's change is: the whole sheet with them must score.

    *doc* is the session's ``companion score dragons-gold`` document.

    :raises InvalidInput: as :func:`companion.games.dragons_gold.score_document` (more discs than
        the box holds, a second black diamond...), or naming ``player`` for one not on the sheet.
    """
    players = doc.get("players")
    if not isinstance(players, Mapping) or player not in players:
        raise InvalidInput("player", player, "is not on the sheet")
    counts = disc_counts(values)
    candidate = {**doc, "players": {**players, player: {**players[player], **counts}}}
    dragons_gold.score_document(candidate)
    return counts
