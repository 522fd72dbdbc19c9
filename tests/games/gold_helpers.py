"""What Gold!'s test modules share: card makers, documents, and the worked examples' tables."""

from __future__ import annotations

from typing import Any

from companion.games import gold
from companion.games.gold import Card, Tableau


def c(text: str) -> Card:
    return gold.parse_card(text)


def cs(*texts: str) -> tuple[Card, ...]:
    return tuple(c(text) for text in texts)


def doc_of(players: dict[str, tuple[list[str], list[str]]]) -> dict[str, Any]:
    """A ``companion score gold`` document from {name: (scored, display)}."""
    return {"players": {name: {"scored": scored, "display": display}
                        for name, (scored, display) in players.items()}}


ALL_CARDS = sorted(gold.deck(3), key=gold.card_sort_key)


# --- Worked examples that more than one test module uses ----------------------------------------

# Digest §6, Example 2: a set with a restricted bonus steal.
EXAMPLE_2 = {
    "A": Tableau(holding=cs("blue:6", "blue:4", "red:donkey", "green:5", "blue:3")),
    "B": Tableau(holding=cs("red:8", "orange:7", "green:3")),
    "C": Tableau(holding=cs("blue:8", "green:6")),
}

# Digest §6, Example 3 (3 players): colour ties, an unscored colour, the card-count tie-break;
# {name: (scoring pile, display)}.
EXAMPLE_3_PILES = {
    "A": (["purple:8", "purple:7", "purple:6", "green:8", "green:7", "green:donkey"],
          ["red:8", "red:donkey", "blue:5", "pink:donkey", "green:3"]),
    "B": (["purple:5", "purple:4", "purple:3", "pink:8", "pink:3", "pink:3"],
          ["red:6", "blue:7", "blue:3", "orange:6"]),
    "C": (["pink:7", "pink:6", "pink:donkey", "blue:8", "blue:6", "blue:donkey",
           "orange:7", "orange:5", "orange:donkey"],
          ["blue:4", "orange:3", "orange:3", "green:5", "green:donkey"]),
}
EXAMPLE_3 = doc_of(EXAMPLE_3_PILES)

# Digest §6, Example 4 (2 players), as it stands after X's final turn: the orange set is
# in X's pile and the stolen blue 8 in X's holding (digest G4).
EXAMPLE_4_AFTER = doc_of({
    "X": (["purple:8", "purple:7", "purple:5", "red:3", "red:3", "red:donkey",
           "orange:7", "orange:3", "orange:5"],
          ["green:4", "blue:8"]),
    "Y": (["red:8", "red:6", "red:4", "pink:8", "pink:7", "pink:3", "purple:3", "purple:3", "purple:donkey"],
          ["green:6", "green:donkey", "pink:5"]),
})

# Rule book, SZÍN PONTOZÁSA: Karcsi, Dani and Bruno compare red, then green.
RULE_BOOK_COLOURS = doc_of({
    "Karcsi": ([], ["red:6", "green:donkey"]),
    "Dani": ([], ["red:8", "red:donkey"]),
    "Bruno": ([], []),
})
