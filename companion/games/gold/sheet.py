"""Gold!'s end-of-game score sheet: adding and removing cards, and the colour scoring as steps.

The sheet is a ``companion score gold`` document (``{"players": {NAME: {"scored": [CARD, ...],
"display": [CARD, ...]}}}``, CARD ``"colour:value"``), as the touch screen keeps it in the
session. This module says whether a card can go on it (the box has so many copies of each
card, digest §3) and lays out the colour scoring (rule book, *SZÍN PONTOZÁSA*; digest §5.5)
and the final scoring with its tie-break (*VÉGSŐ PONTOZÁS*; digest §5.6) as data a screen
shows step by step. Every rule is :mod:`companion.games.gold`'s; this module only counts
cards on the sheet and arranges that module's answers.

Stdlib only, no time, no I/O.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from companion.errors import InvalidInput
from companion.games import gold
from companion.games.gold import COLOURS, Card, Colour, ColourScoring, GameEnd

DISPLAY: Final = "display"
"""The document's name for a player's open holding (see :mod:`companion.games.gold`)."""
SCORED: Final = "scored"
"""The document's name for a player's face-down scoring pile."""
FIELDS: Final[tuple[str, ...]] = (DISPLAY, SCORED)

VALUES: Final[tuple[int | None, ...]] = (3, 4, 5, 6, 7, 8, None)
"""The values a card can have, lowest gold first, the donkey (``None``) last: a screen's columns."""


def card_of(colour: Colour | str, gold_value: int | None) -> Card:
    """The card of *colour* worth *gold_value* (``None`` for a donkey).

    :raises InvalidInput: for a colour or a value the game has not got.
    """
    try:
        return Card(Colour(colour), gold_value)
    except ValueError:
        raise InvalidInput("colour", colour, "unknown colour; Gold! has " + ", ".join(COLOURS)) from None


def colour_order(card: Card) -> tuple[int, int]:
    """The rule book's colour order, then value, donkeys last: how a pile of sets reads best."""
    return COLOURS.index(card.colour), 99 if card.gold is None else card.gold


def by_colour(cards: Iterable[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=colour_order))


# --- Reading the sheet -------------------------------------------------------------------------


def players_of(doc: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The document's players, each with its fields.

    :raises InvalidInput: naming ``players`` when the document has no object of players.
    """
    players = doc.get("players")
    if not isinstance(players, Mapping):
        raise InvalidInput("players", players, "the sheet must have an object of players")
    return {str(name): entry if isinstance(entry, Mapping) else {} for name, entry in players.items()}


def card_texts(doc: Mapping[str, Any], player: str, field: str) -> list[str]:
    """The card strings of *player*'s *field* as entered (a missing list is an empty one).

    :raises InvalidInput: naming ``player`` or ``field`` when the sheet has no such one.
    """
    players = players_of(doc)
    if player not in players:
        raise InvalidInput("player", player, "is not on the sheet: " + ", ".join(sorted(players)))
    if field not in FIELDS:
        raise InvalidInput("field", field, "must be one of " + ", ".join(FIELDS))
    texts = players[player].get(field, [])
    return [str(text) for text in texts] if isinstance(texts, list) else []


def cards(doc: Mapping[str, Any], player: str, field: str) -> tuple[Card, ...]:
    """*player*'s *field* as cards, in the order entered.

    :raises InvalidInput: as :func:`card_texts`, and naming the entry for a card that does not exist.
    """
    return tuple(gold.parse_card(text, f"players.{player}.{field}[{i}]")
                 for i, text in enumerate(card_texts(doc, player, field)))


def where_entered(doc: Mapping[str, Any], card: Card) -> tuple[tuple[str, str], ...]:
    """Every place *card* is on the sheet, one ``(player, field)`` per copy, by name then field.

    :raises InvalidInput: as :func:`cards`.
    """
    return tuple((name, field) for name in sorted(players_of(doc)) for field in FIELDS
                 for entered in cards(doc, name, field) if entered == card)


def cards_entered(doc: Mapping[str, Any]) -> int:
    return sum(len(card_texts(doc, name, field)) for name in players_of(doc) for field in FIELDS)


def cards_left(doc: Mapping[str, Any]) -> Counter[Card]:
    """How many copies of each card the box still has for the sheet (0 for a card all entered).

    :raises InvalidInput: for a player count other than 2 or 3, or as :func:`cards`.
    """
    left = gold.deck(len(players_of(doc)))
    for name in players_of(doc):
        for field in FIELDS:
            left.subtract(cards(doc, name, field))
    return Counter({card: max(0, n) for card, n in left.items()})


# --- Changing the sheet ------------------------------------------------------------------------


@dataclass(frozen=True)
class NoCopyLeft:
    """The box has no more of *card*: a game of *player_count* players uses *copies*, all entered."""

    card: Card
    player_count: int
    copies: int
    entered: tuple[tuple[str, str], ...]   # (player, field) of each copy already on the sheet


@dataclass(frozen=True)
class AllCardsEntered:
    """Every card in play is on the sheet already (58 with 3 players, 52 with 2: digest §3, G7)."""

    player_count: int
    limit: int


SheetRefusal = NoCopyLeft | AllCardsEntered


def check_add(doc: Mapping[str, Any], player: str, field: str, card: Card) -> SheetRefusal | None:
    """Why *card* cannot go on *player*'s *field*, or ``None`` when it can.

    The box holds one of each gold card but the 3s (two), and three donkeys a colour (two
    with 2 players; rule book, TARTOZÉKOK and A JÁTÉK ELŐKÉSZÍTÉSE); 2 cards never come
    out of the box, so at most 58 (or 52) are on a sheet. Past these counts the rules
    core has the last word: the sheet with the card added must be a document
    :func:`companion.games.gold.parse_document` accepts.

    :raises InvalidInput: for an unknown player or field, a player count other than 2 or 3,
        or a sheet the rules core refuses for another reason (its message names the entry).
    """
    card_texts(doc, player, field)   # the player and field exist
    count = gold.check_player_count(len(players_of(doc)))
    copies = gold.copies_in_game(card, count)
    entered = where_entered(doc, card)
    if len(entered) >= copies:
        return NoCopyLeft(card, count, copies, entered)
    if cards_entered(doc) >= gold.cards_in_play(count):
        return AllCardsEntered(count, gold.cards_in_play(count))
    gold.parse_document(with_card(doc, player, field, card))
    return None


def with_card(doc: Mapping[str, Any], player: str, field: str, card: Card) -> dict[str, Any]:
    """A copy of the sheet with *card* added at the end of *player*'s *field* (unchecked).

    :raises InvalidInput: as :func:`card_texts`.
    """
    return _with_list(doc, player, field, [*card_texts(doc, player, field), gold.to_card_text(card)])


def without_card(doc: Mapping[str, Any], player: str, field: str, card: Card) -> dict[str, Any]:
    """A copy of the sheet with one copy of *card* taken off *player*'s *field*.

    :raises InvalidInput: naming the field when *card* is not on it, or as :func:`card_texts`.
    """
    texts = card_texts(doc, player, field)
    for i, text in enumerate(texts):
        if gold.parse_card(text, f"players.{player}.{field}[{i}]") == card:
            return _with_list(doc, player, field, texts[:i] + texts[i + 1:])
    raise InvalidInput(f"players.{player}.{field}", gold.to_card_text(card), "that card is not on the list")


def _with_list(doc: Mapping[str, Any], player: str, field: str, texts: list[str]) -> dict[str, Any]:
    players = {name: dict(entry) for name, entry in players_of(doc).items()}
    players[player][field] = texts
    return {**doc, "players": players}


# --- Warnings: states no table reaches, scored as written by the rules core ----------------------


@dataclass(frozen=True)
class SheetWarning:
    """A list no real table leaves: *count* cards of *colour* (a third in a display; a pile
    whose count of a colour is not a whole number of sets). Scored anyway, as written."""

    player: str
    field: str
    colour: Colour
    count: int


def sheet_warnings(doc: Mapping[str, Any]) -> tuple[SheetWarning, ...]:
    """Every odd colour of every list, by player name, field, then the rule book's colour order.

    Whether a colour is odd is the rules core's call: :func:`~companion.games.gold.check_holding`
    and :func:`~companion.games.gold.check_pile`, asked one colour at a time.

    :raises InvalidInput: as :func:`cards`.
    """
    checks = {DISPLAY: gold.check_holding, SCORED: gold.check_pile}
    found: list[SheetWarning] = []
    for name in sorted(players_of(doc)):
        for field in FIELDS:
            listed = cards(doc, name, field)
            for colour in COLOURS:
                mine = [card for card in listed if card.colour is colour]
                try:
                    checks[field](mine, field)
                except InvalidInput:
                    found.append(SheetWarning(name, field, colour, len(mine)))
    return tuple(found)


# --- The colour scoring, step by step ----------------------------------------------------------


@dataclass(frozen=True)
class Standing:
    """A scoring pile's points (donkeys -2) and number of cards."""

    points: int
    cards: int


class StepOutcome(enum.Enum):
    """How one colour's scoring went (rule book, SZÍN PONTOZÁSA)."""

    NOBODY = "nobody holds the colour"
    NO_GOLD = "only donkeys: the colour is not scored"
    LEADER = "one highest sum banks its highest gold card"
    TIE = "tied highest sums each bank their highest gold card"


@dataclass(frozen=True)
class ColourStep:
    """One colour of the end: the rules core's :class:`~companion.games.gold.ColourScoring`,
    each player's cards of the colour, and every pile's standing once the colour is done."""

    scoring: ColourScoring
    held: Mapping[str, tuple[Card, ...]]
    piles: Mapping[str, Standing]

    @property
    def colour(self) -> Colour:
        return self.scoring.colour

    @property
    def outcome(self) -> StepOutcome:
        if not any(self.held.values()):
            return StepOutcome.NOBODY
        if not self.scoring.scored:
            return StepOutcome.NO_GOLD
        return StepOutcome.TIE if len(self.scoring.leaders) > 1 else StepOutcome.LEADER

    @property
    def top_sum(self) -> int:
        """The leaders' sum (0 when the colour is not scored)."""
        leaders = self.scoring.leaders
        return self.scoring.sums[leaders[0]] if leaders else 0


class TieBreakKind(enum.Enum):
    CLEAR = "one player has the most points"
    CARDS = "tied on points; the most cards in the scoring pile decides"
    SHARED = "tied on points and on cards: all of them win"


@dataclass(frozen=True)
class TieBreak:
    """How the winners came out of the final scoring (rule book, VÉGSŐ PONTOZÁS; digest §5.6)."""

    points: int                       # the top score
    tied: tuple[str, ...]             # everyone on it, sorted
    cards: int                        # the most pile cards among them
    winners: tuple[str, ...]          # the rules core's answer

    @property
    def kind(self) -> TieBreakKind:
        if len(self.tied) == 1:
            return TieBreakKind.CLEAR
        return TieBreakKind.SHARED if self.winners == self.tied else TieBreakKind.CARDS


@dataclass(frozen=True)
class ScoringWalk:
    """The end of a game laid out for a screen: the piles before, each colour, the result."""

    players: tuple[str, ...]                    # sorted
    before: Mapping[str, Standing]
    steps: tuple[ColourStep, ...]               # in the rule book's colour order
    end: GameEnd
    tie_break: TieBreak

    @property
    def banked(self) -> Mapping[str, tuple[Card, ...]]:
        """The cards each player banked in the colour scoring, in colour order."""
        return {name: tuple(step.scoring.banked[name] for step in self.steps if name in step.scoring.banked)
                for name in self.players}


def walk(doc: Any) -> ScoringWalk:
    """The colour scoring of the sheet *doc*, step by step, and the final scoring.

    The numbers are :func:`companion.games.gold.end_game`'s, so the last step's piles and
    the winners are what ``companion score gold`` answers for the same document.

    :raises InvalidInput: as :func:`companion.games.gold.parse_document`.
    """
    tableaus = gold.parse_document(doc)
    end = gold.end_game(tableaus)
    names = tuple(sorted(tableaus))
    standing = {name: Standing(gold.points(tableaus[name].pile), len(tableaus[name].pile)) for name in names}
    before = dict(standing)
    steps: list[ColourStep] = []
    for scoring in end.colours:
        for name, card in scoring.banked.items():
            standing[name] = Standing(standing[name].points + card.value, standing[name].cards + 1)
        held = {name: gold.sorted_cards(c for c in tableaus[name].holding if c.colour is scoring.colour)
                for name in names}
        steps.append(ColourStep(scoring, held, dict(standing)))
    return ScoringWalk(names, before, tuple(steps), end, _tie_break(end))


def _tie_break(end: GameEnd) -> TieBreak:
    scores, sizes = end.result.scores, end.result.pile_sizes
    top = max(scores.values())
    tied = tuple(sorted(name for name, score in scores.items() if score == top))
    return TieBreak(top, tied, max(sizes[name] for name in tied), tuple(end.result.winners))
