"""Drakon from a photo of the table: a coin front's name is its worth (``3``), and the coins turned up
at the reveal are the player's (see :mod:`companion.games.table_photo`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from companion.errors import InvalidInput
from companion.games import drakon
from companion.games.drakon import play as drakon_play
from companion.games.table_photo import PieceRules

COIN_KIND: Final = "coin"
"""The library kind of Drakon's coins."""


def parse_coin_front(name: str) -> int:
    """A Drakon coin's worth from its ``coin`` front's name: ``"3"`` is worth 3.

    :raises InvalidInput: naming ``front`` for a name that is not a coin's worth.
    """
    text = name.strip()
    if text not in {str(v) for v in drakon.COIN_VALUES}:   # not int(): "03" and "+3" are typos
        raise InvalidInput("front", name, "a coin front is named after its worth: "
                                          + ", ".join(str(v) for v in drakon.COIN_VALUES))
    return int(text)


def to_coin_front(worth: int) -> str:
    """The :func:`parse_coin_front` name of a coin worth *worth*."""
    return str(worth)


PIECES: Final = PieceRules(
    "drakon", COIN_KIND, tuple(str(v) for v in drakon.COIN_VALUES), lambda name: str(parse_coin_front(name)))
"""A player's coins, turned face up at the reveal: each is worth its front."""


def coin_worths(values: Iterable[str]) -> list[int]:
    """Drakon: the coins' worths, highest first (the reveal's order)."""
    return sorted((int(v) for v in values), reverse=True)


def drakon_coins(doc: Mapping[str, Any], player: str, values: Iterable[str]) -> list[int]:
    """*player*'s coin worths from a photo of their coins at the reveal, in place of what the
    sheet held, checked as a tap on +1/+2/+3 is.

    *doc* is a :func:`companion.games.drakon_play.sheet_document`.

    :raises InvalidInput: as :func:`companion.games.drakon_play.check_coins` (more coins than
        the box holds), or naming ``player`` for one not on the sheet.
    """
    if player not in doc.get("players", {}):
        raise InvalidInput("player", player, "is not on the sheet")
    coins = coin_worths(values)
    drakon_play.check_coins(doc, player, coins)
    return coins
