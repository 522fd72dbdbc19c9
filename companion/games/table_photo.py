"""A photo of the table, as the overhead camera read it, turned into a score sheet's entries.

The camera's reading (``vision.table_camera.TableCamera.read_pieces``, handed over as plain
data) lists every piece it matched in the piece library, with the piece's library *kind*, the
face it lies on and the name of the front it shows, and every shape it outlined but could not
match. A game takes one library kind and reads a value from the name of each front (each game's
``photo`` module says how, with its :class:`PieceRules`):

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
checks a tap on the screen goes through (``dragons_gold_counts``, ``drakon_coins`` and
``gold_cards`` in the games' ``photo`` modules).

Stdlib only, no time, no I/O.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.errors import InvalidInput
from companion.games._input import expect_list, expect_object

Point = tuple[float, float]


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


