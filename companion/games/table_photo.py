"""A photo of the table, as the overhead camera read it, turned into a score sheet's entries.

The camera's reading (``vision.table_camera.TableCamera.read_pieces``, handed over as plain
data) lists every piece it matched in the piece library, with the piece's library *kind*, the
face it lies on and the name of the front it shows, and every shape it outlined but could not
match. A game takes one library kind and reads a value from the name of each front:

- Dragon's Gold: kind ``treasure``, fronts named after the discs (``silver``, ``gold``, ``red``,
  ``green``, ``blue``, ``purple``, ``yellow``, ``white``, ``black``); each face-up disc is one of
  its colour on the player's sheet.
- Drakon: kind ``coin``, fronts ``1``, ``2``, ``3``; each coin is worth its front.
- Gold!: kind ``card``, fronts ``COLOUR-VALUE`` (``red-5``, ``red-donkey``); each is that card
  (``red:5``).

(A library name cannot hold ``:``, so a Gold! card's front is its ``companion score`` spelling
with ``-`` instead.) Nothing is counted silently: a piece lying face down, one the camera could
not match, one whose front name the game has no value for, and a piece of another kind are
*open* (:class:`Call`) until a player gives it a value or drops it as "not a piece"
(:meth:`PhotoTally.correct`). What is counted then becomes the sheet's entry through the same
checks a tap on the screen goes through (:func:`dragons_gold_counts`, :func:`drakon_coins`,
:func:`gold_cards`).

Stdlib only, no time, no I/O.
"""

from __future__ import annotations

import enum
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from companion.errors import InvalidInput
from companion.games import dragons_gold, drakon, gold
from companion.games._input import expect_list, expect_object
from companion.games.dragons_gold import Disc
from companion.games.drakon import play as drakon_play
from companion.games.gold import Card
from companion.games.gold import sheet as gold_sheet
from companion.games.gold.sheet import SheetRefusal

Point = tuple[float, float]

TREASURE_KIND: Final = "treasure"
"""The library kind of Dragon's Gold's treasure discs."""
COIN_KIND: Final = "coin"
"""The library kind of Drakon's coins."""
CARD_KIND: Final = "card"
"""The library kind of Gold!'s cards."""

FRONT_SEPARATOR: Final = "-"
"""Between a Gold! card's colour and value in its front's name: the card text's ``:``."""


# --- The reading --------------------------------------------------------------------------------


@dataclass(frozen=True)
class PhotoPiece:
    """One thing the camera outlined in the photo.

    A matched piece has its library ``kind``, its ``face`` (``"up"`` or ``"down"``) and, face
    up, its ``front``'s name; a shape the camera could not match has all three ``None``.
    ``outline_px`` is its outline in the photo's pixels (x right, y down).
    """

    kind: str | None
    face: str | None
    front: str | None
    outline_px: tuple[Point, ...]
    confidence: float = 0.0

    @property
    def is_matched(self) -> bool:
        return self.kind is not None

    @property
    def center_px(self) -> Point:
        """The middle of the outline (its vertices' mean), where its label goes."""
        if not self.outline_px:
            return (0.0, 0.0)
        xs, ys = zip(*self.outline_px, strict=True)
        return (sum(xs) / len(xs), sum(ys) / len(ys))


def parse_reading(doc: Any) -> tuple[PhotoPiece, ...]:
    """The pieces of a camera reading: the matched ones first, then the shapes it could not
    match, each in the reading's own order (the order the screen numbers them in).

    :raises InvalidInput: naming the field (``pieces[2].face``) for a reading that is not the
        camera's shape.
    """
    root = expect_object(doc, "reading")
    found: list[PhotoPiece] = []
    for i, raw in enumerate(expect_list(root.get("pieces", []), "pieces")):
        where = f"pieces[{i}]"
        item = expect_object(raw, where)
        kind = item.get("kind")
        if not isinstance(kind, str) or not kind:
            raise InvalidInput(f"{where}.kind", kind, "a matched piece has a library kind")
        face = item.get("face")
        if face not in ("up", "down"):
            raise InvalidInput(f"{where}.face", face, "must be 'up' or 'down'")
        front = item.get("front")
        if front is not None and not isinstance(front, str):
            raise InvalidInput(f"{where}.front", front, "must be a front's name or null")
        found.append(PhotoPiece(kind, face, front if face == "up" else None,
                                _outline(item.get("outline_px", []), f"{where}.outline_px"),
                                _confidence(item.get("confidence", 0.0), f"{where}.confidence")))
    for i, raw in enumerate(expect_list(root.get("unknown", []), "unknown")):
        where = f"unknown[{i}]"
        item = expect_object(raw, where)
        outline = _outline(item.get("outline_px", []), f"{where}.outline_px")
        found.append(PhotoPiece(None, None, None, outline))
    return tuple(found)


def _outline(raw: Any, where: str) -> tuple[Point, ...]:
    points: list[Point] = []
    for j, point in enumerate(expect_list(raw, where)):
        if (not isinstance(point, (list, tuple)) or len(point) != 2
                or not all(_is_number(v) and math.isfinite(v) for v in point)):
            raise InvalidInput(f"{where}[{j}]", point, "a point is [x, y] in pixels")
        points.append((float(point[0]), float(point[1])))
    return tuple(points)


def _confidence(raw: Any, where: str) -> float:
    if not _is_number(raw) or not math.isfinite(raw):
        raise InvalidInput(where, raw, "must be a number")
    return float(raw)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def piece_at(pieces: Sequence[PhotoPiece], point: Point, slack_px: float = 0.0) -> int | None:
    """The index of the piece under *point* (photo pixels): the smallest outline holding it,
    else the outline nearest it within *slack_px* (a fingertip is wider than a coin's edge),
    else None."""
    holding = [i for i, p in enumerate(pieces) if len(p.outline_px) >= 3 and _inside(point, p.outline_px)]
    if holding:
        return min(holding, key=lambda i: _area(pieces[i].outline_px))
    best: tuple[float, int] | None = None
    for i, p in enumerate(pieces):
        if not p.outline_px:
            continue
        d = _distance_to_outline(point, p.outline_px)
        if d <= slack_px and (best is None or d < best[0]):
            best = (d, i)
    return None if best is None else best[1]


def _inside(point: Point, polygon: Sequence[Point]) -> bool:
    x, y = point
    inside = False
    for (x1, y1), (x2, y2) in zip(polygon, [*polygon[1:], polygon[0]], strict=True):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def _area(polygon: Sequence[Point]) -> float:
    return abs(sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in
                   zip(polygon, [*polygon[1:], polygon[0]], strict=True))) / 2


def _distance_to_outline(point: Point, polygon: Sequence[Point]) -> float:
    px, py = point
    if len(polygon) == 1:
        return math.hypot(px - polygon[0][0], py - polygon[0][1])
    best = math.inf
    for (x1, y1), (x2, y2) in zip(polygon, [*polygon[1:], polygon[0]], strict=True):
        dx, dy = x2 - x1, y2 - y1
        length2 = dx * dx + dy * dy
        t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((px - x1) * dx + (py - y1) * dy) / length2))
        best = min(best, math.hypot(px - (x1 + t * dx), py - (y1 + t * dy)))
    return best


# --- Front names: a parser and a formatter per game ---------------------------------------------


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


# --- A game's rules for reading pieces -----------------------------------------------------------


@dataclass(frozen=True)
class PieceRules:
    """How one game reads a photo: the library *kind* it takes, the *values* a player may give
    a piece by touch (as the game's sheet spells them: ``"gold"``, ``"3"``, ``"red:5"``), and
    *parse_front*, which reads a front's name into one of them.
    """

    game: str
    kind: str
    values: tuple[str, ...]
    parse_front: Callable[[str], str]

    def value_of(self, front: str | None) -> str | None:
        """The value a front's name stands for, or None when the game has none for it."""
        if front is None:
            return None
        try:
            value = self.parse_front(front)
        except InvalidInput:
            return None
        return value if value in self.values else None


DRAGONS_GOLD_PIECES: Final = PieceRules(
    "dragons-gold", TREASURE_KIND, tuple(d.value for d in Disc), lambda name: parse_disc_front(name).value)
"""A player's treasure pile: each face-up disc is one of its colour."""

DRAKON_PIECES: Final = PieceRules(
    "drakon", COIN_KIND, tuple(str(v) for v in drakon.COIN_VALUES), lambda name: str(parse_coin_front(name)))
"""A player's coins, turned face up at the reveal: each is worth its front."""

GOLD_PIECES: Final = PieceRules(
    "gold", CARD_KIND,
    tuple(gold.to_card_text(gold_sheet.card_of(c, v)) for c in gold.COLOURS for v in gold_sheet.VALUES),
    lambda name: gold.to_card_text(parse_card_front(name)))
"""A player's display or scoring pile, laid out face up: each card is itself."""

RULES: Final[Mapping[str, PieceRules]] = {
    r.game: r for r in (DRAGONS_GOLD_PIECES, DRAKON_PIECES, GOLD_PIECES)}
"""Each game's rules, by its ``companion score`` name."""


# --- The tally ------------------------------------------------------------------------------------


class Call(enum.Enum):
    """What becomes of one piece in a game's tally."""

    READ = "read"               # counted: the game's kind, face up, a front the game has a value for
    GIVEN = "given"             # counted: a player gave it its value
    DROPPED = "dropped"         # left out: a player said it is not a piece
    FACE_DOWN = "face-down"     # open: the game's kind, lying face down, so no value can be seen
    UNKNOWN = "unknown"         # open: the camera could not match it to a library piece
    UNMAPPED = "unmapped"       # open: the game's kind, but a front name the game has no value for
    OTHER_KIND = "other-kind"   # open: a library piece of another kind, not for this game

    @property
    def is_counted(self) -> bool:
        return self in (Call.READ, Call.GIVEN)

    @property
    def is_open(self) -> bool:
        """Neither counted nor dropped: a player must give it a value or drop it."""
        return not self.is_counted and self is not Call.DROPPED


@dataclass(frozen=True)
class PieceCall:
    """One piece's call: counted with *value*, dropped, or open (*value* None for both)."""

    piece: PhotoPiece
    call: Call
    value: str | None


def first_call(piece: PhotoPiece, rules: PieceRules) -> PieceCall:
    """What the camera's reading alone makes of *piece* in the game of *rules*."""
    if not piece.is_matched:
        return PieceCall(piece, Call.UNKNOWN, None)
    if piece.kind != rules.kind:
        return PieceCall(piece, Call.OTHER_KIND, None)
    if piece.face != "up":
        return PieceCall(piece, Call.FACE_DOWN, None)
    value = rules.value_of(piece.front)
    if value is None:
        return PieceCall(piece, Call.UNMAPPED, None)
    return PieceCall(piece, Call.READ, value)


@dataclass(frozen=True)
class PhotoTally:
    """A photo's pieces as one game counts them, with the players' corrections.

    *corrections* maps a piece's index to the value a player gave it, or to None for "not a
    piece". Pure: :meth:`correct` returns a new tally.
    """

    rules: PieceRules
    pieces: tuple[PhotoPiece, ...]
    corrections: Mapping[int, str | None] = field(default_factory=dict)

    @classmethod
    def of(cls, doc: Any, rules: PieceRules) -> PhotoTally:
        """The tally of a camera reading (see :func:`parse_reading`).

        :raises InvalidInput: as :func:`parse_reading`.
        """
        return cls(rules, parse_reading(doc))

    def correct(self, index: int, value: str | None) -> PhotoTally:
        """This tally with piece *index* given *value* (one of the rules' values), or dropped
        when *value* is None.

        :raises InvalidInput: naming ``piece`` for an index out of range, or ``value`` for a
            value the game has not got.
        """
        if not 0 <= index < len(self.pieces):
            raise InvalidInput("piece", index, f"the photo has {len(self.pieces)} pieces")
        if value is not None and value not in self.rules.values:
            raise InvalidInput("value", value, f"not a {self.rules.game} value")
        return PhotoTally(self.rules, self.pieces, {**self.corrections, index: value})

    def call(self, index: int) -> PieceCall:
        piece = self.pieces[index]
        if index not in self.corrections:
            return first_call(piece, self.rules)
        value = self.corrections[index]
        return PieceCall(piece, Call.DROPPED if value is None else Call.GIVEN, value)

    def calls(self) -> tuple[PieceCall, ...]:
        return tuple(self.call(i) for i in range(len(self.pieces)))

    @property
    def values(self) -> tuple[str, ...]:
        """The counted values, in the pieces' order."""
        return tuple(c.value for c in self.calls() if c.value is not None and c.call.is_counted)

    @property
    def open(self) -> tuple[int, ...]:
        """The indexes of the pieces a player must still give a value or drop."""
        return tuple(i for i, c in enumerate(self.calls()) if c.call.is_open)

    @property
    def is_complete(self) -> bool:
        """Nothing left open: the tally may go on the sheet."""
        return not self.open


# --- Onto the sheet, through the games' own checks ------------------------------------------------


def disc_counts(values: Iterable[str]) -> dict[str, int]:
    """Dragon's Gold: the nine disc counts (every field, 0 for a colour not in *values*)."""
    seen = Counter(values)
    return {d.value: seen[d.value] for d in Disc}


def coin_worths(values: Iterable[str]) -> list[int]:
    """Drakon: the coins' worths, highest first (the reveal's order)."""
    return sorted((int(v) for v in values), reverse=True)


def card_list(values: Iterable[str]) -> list[str]:
    """Gold!: the cards as the sheet spells them, in the rule book's colour order."""
    return [gold.to_card_text(c) for c in gold_sheet.by_colour(gold.parse_card(v) for v in values)]


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
