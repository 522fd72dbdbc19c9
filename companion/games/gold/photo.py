"""Gold! from a photo of the table: a card front's name is its ``companion score`` spelling with ``-``
for ``:`` (``red-5``, ``red-donkey``: a library name cannot hold ``:``), and each card is itself
(see :mod:`companion.games.table_photo`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from companion.errors import InvalidInput
from companion.games import gold
from companion.games.gold import sheet as gold_sheet
from companion.games.gold.rules import Card
from companion.games.gold.sheet import SheetRefusal
from companion.games.table_photo import PieceRules

CARD_KIND: Final = "card"
"""The library kind of Gold!'s cards."""


FRONT_SEPARATOR: Final = "-"
"""Between a Gold! card's colour and value in its front's name: the card text's ``:``."""


def parse_card_front(name: str) -> Card:
    """The Gold! card a ``card`` front's name stands for: ``"red-5"`` is the red 5 and
    ``"red-donkey"`` the red donkey (:func:`companion.games.gold.parse_card` with ``-`` for ``:``).

    :raises InvalidInput: naming ``front`` for a name that is no card.
    """
    colour, sep, value = name.strip().partition(FRONT_SEPARATOR)
    if not sep or ":" in name:
        raise InvalidInput("front", name, "a card front is named COLOUR-VALUE, e.g. 'red-5' or 'red-donkey'")
    return gold.parse_card(f"{colour}:{value}", "front")


def to_card_front(card: Card) -> str:
    """The :func:`parse_card_front` name of *card*."""
    return gold.to_card_text(card).replace(":", FRONT_SEPARATOR)


PIECES: Final = PieceRules(
    "gold", CARD_KIND,
    tuple(gold.to_card_text(gold_sheet.card_of(c, v)) for c in gold.COLOURS for v in gold_sheet.VALUES),
    lambda name: gold.to_card_text(parse_card_front(name)))
"""A player's display or scoring pile, laid out face up: each card is itself."""


def card_list(values: Iterable[str]) -> list[str]:
    """Gold!: the cards as the sheet spells them, in the rule book's colour order."""
    return [gold.to_card_text(c) for c in gold_sheet.by_colour(gold.parse_card(v) for v in values)]


def gold_cards(doc: Mapping[str, Any], player: str, where: str,
               values: Iterable[str]) -> list[str] | SheetRefusal:
    """*player*'s *where* (``display`` or ``scored``) from a photo of it, in place of what the
    sheet held: each card checked as a tap on its button is, against the sheet without the old
    list and with the photo's cards before it. The first refusal is returned instead.

    :raises InvalidInput: as :func:`companion.games.gold_sheet.check_add`.
    """
    cards = card_list(values)
    gold_sheet.card_texts(doc, player, where)   # the player and the field exist
    sheet = {**doc, "players": {**gold_sheet.players_of(doc), player: {
        **gold_sheet.players_of(doc)[player], where: []}}}
    for text in cards:
        card = gold.parse_card(text)
        refusal = gold_sheet.check_add(sheet, player, where, card)
        if refusal is not None:
            return refusal
        sheet = gold_sheet.with_card(sheet, player, where, card)
    return cards
