"""Synthetic table scenes of game pieces, with exact truth, for :mod:`vision.reading`.

Three kinds of drawn pieces (:func:`piece_art`), deterministic per *art seed*:

* ``coin``: Drakon-like coins, discs of 25 mm. Fronts ``"1"`` to ``"6"``: the value as
  text, on one of three metals (gold, silver, copper; two values share each), and a ring
  pattern of its own in a colour of its own (solid, double, dashed, dotted, zigzag,
  teeth). One shared back: teal with eight spokes and an eye.
* ``chamber``: dungeon tiles, squares of 50 mm. Fronts ``hall``, ``cross``, ``pit``,
  ``treasure``, ``dragon``, ``stairs``: the same flagstone floor in two stone colours,
  each with its own drawn room and its name along the top edge (so no tile looks the
  same turned a quarter). One back: brown, hatched, with a rune.
* ``card``: cards of 57 x 88 mm (portrait) with rounded corners. Fronts ``knight``,
  ``wizard``, ``archer``, ``healer``, ``thief``, ``giant``: a frame in one of three suit
  colours (two cards share each), a title band, a cost and a drawn picture of its own.
  One back: navy lattice with a gold oval.

:func:`make_library` registers each face from a clean flat "photo" of its art (the art
alone on a contrasting plain background), as a host would from good photos.

:func:`random_piece_scene` lays 8-20 of them (any position, any turn, a quarter face
down, about one in four overlapping another by 2-20 % of their area) on a cloth (plain
felt, gingham, polka dots or wood) with the layout's table markers on white stickers, plus
distractors that are no piece (a pen, a coffee cup's ring, one or two coloured blobs of
modelling clay), and photographs it through :func:`tests.support.synth.random_camera` with
random :class:`~tests.support.synth.Effects`. The table is composed as one top-down texture at
:data:`TEXTURE_PX_PER_MM` and rendered with :func:`tests.support.synth.render_texture_on_table`;
the empty table (same camera, cloth, light; fresh sensor noise) comes with it, for the
reader's ``empty=``.

Pieces are flat prints on the table's plane (no thickness, no shadow): what is measured
is the reader's segmentation and comparison, not its height correction.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from shapely.geometry import Point, Polygon
from shapely.ops import unary_union

from tests.support.synth import CameraModel, Effects, random_camera, render_texture_on_table, table_area
from vision.calibration import Lens
from vision.layout import Layout, load_layout
from vision.library import Library
from vision.reading.result import FoundPiece, ReadResult

TEXTURE_PX_PER_MM = 4.0
"""The table texture's (and each face's art's) resolution: the library's own scale."""
DRAW_PX_PER_MM = 8.0
"""Art is drawn at this resolution, then area-averaged down to :data:`TEXTURE_PX_PER_MM`."""
GAP_MM = 6.0
"""Pieces that do not overlap keep at least this far from every other piece and
distractor (4 px at the reader's segmentation scale, for a full-table 1280 x 720 view)."""
OVERLAP_RANGE = (0.02, 0.20)
"""An overlapping piece shares this share of its area (and of the other's) with others."""
OVERLAP_CHANCE = 0.15
"""The chance that a piece is laid over or under one already placed (when it can be)."""
DOWN_CHANCE = 0.25
"""The chance that a piece lies face down."""
EDGE_MM = 5.0
"""Pieces and distractors keep this far inside the play area and from marker stickers."""
QUIET_CELLS = (1.0, 1.4)
"""A table marker's white sticker reaches this many marker cells beyond its black border."""
KIND_WEIGHTS = {"coin": 0.35, "chamber": 0.3, "card": 0.35}
"""How often each kind is drawn for a scene."""

_DOWN = "down"
_UP = "up"


# -- the art ---------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class KindArt:
    """One kind's drawn faces, each BGR uint8 at :data:`TEXTURE_PX_PER_MM`, upright as the
    library stores them, with *mask* (float32, 0-1) the piece's outline at that size."""

    name: str
    shape: str
    size_mm: tuple[float, float]
    fronts: dict[str, np.ndarray]
    back: np.ndarray
    mask: np.ndarray

    def face(self, front: str | None) -> np.ndarray:
        """The art of *front*, or of the back when *front* is None."""
        return self.back if front is None else self.fronts[front]


Bgr = tuple[float, float, float]


def _jitter(rng: np.random.Generator, bgr: Bgr, amount: float = 12.0) -> Bgr:
    j = rng.uniform(-amount, amount, 3)
    return (float(np.clip(bgr[0] + j[0], 0, 255)), float(np.clip(bgr[1] + j[1], 0, 255)),
            float(np.clip(bgr[2] + j[2], 0, 255)))


def _shade(bgr: Bgr, f: float) -> Bgr:
    return (min(255.0, bgr[0] * f), min(255.0, bgr[1] * f), min(255.0, bgr[2] * f))


def _px(v: float) -> int:
    """mm on the drawing canvas -> its pixels."""
    return int(round(v * DRAW_PX_PER_MM))


def _pt(x: float, y: float) -> tuple[int, int]:
    return _px(x), _px(y)


def _text(img: np.ndarray, text: str, centre_mm: tuple[float, float], height_mm: float, colour: Bgr,
          weight_mm: float, font: int = cv2.FONT_HERSHEY_DUPLEX) -> None:
    """*text* centred at *centre_mm*, its capitals *height_mm* tall."""
    thick = max(1, _px(weight_mm))
    (w, h), _ = cv2.getTextSize(text, font, 1.0, thick)
    scale = _px(height_mm) / max(1, h)
    (w, h), _ = cv2.getTextSize(text, font, scale, thick)
    org = (_px(centre_mm[0]) - w // 2, _px(centre_mm[1]) + h // 2)
    cv2.putText(img, text, org, font, scale, colour, thick, cv2.LINE_AA)


def _poly(img: np.ndarray, pts_mm: Sequence[tuple[float, float]] | np.ndarray, colour: Bgr,
          thickness_mm: float | None = None, closed: bool = True) -> None:
    """A filled polygon (or, with *thickness_mm*, its outline) given in mm."""
    pts = np.round(np.asarray(pts_mm, np.float64) * DRAW_PX_PER_MM * 16).astype(np.int32).reshape(-1, 1, 2)
    if thickness_mm is None:
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA, shift=4)
    else:
        cv2.polylines(img, [pts], closed, colour, max(1, _px(thickness_mm)), cv2.LINE_AA, shift=4)


def _circle(img: np.ndarray, c_mm: tuple[float, float], r_mm: float, colour: Bgr,
            thickness_mm: float | None = None) -> None:
    t = -1 if thickness_mm is None else max(1, _px(thickness_mm))
    cv2.circle(img, (int(round(c_mm[0] * DRAW_PX_PER_MM * 16)), int(round(c_mm[1] * DRAW_PX_PER_MM * 16))),
               int(round(r_mm * DRAW_PX_PER_MM * 16)), colour, t, cv2.LINE_AA, shift=4)


def _star(c: tuple[float, float], r_out: float, r_in: float, points: int, turn: float = -math.pi / 2,
          ) -> list[tuple[float, float]]:
    return [(c[0] + (r_out if i % 2 == 0 else r_in) * math.cos(turn + i * math.pi / points),
             c[1] + (r_out if i % 2 == 0 else r_in) * math.sin(turn + i * math.pi / points))
            for i in range(2 * points)]


def _rounded_mask(w_mm: float, h_mm: float, r_mm: float) -> np.ndarray:
    """A rounded rectangle's coverage (float32, 0-1) on the drawing canvas."""
    w, h, r = _px(w_mm), _px(h_mm), _px(r_mm)
    m = np.zeros((h, w), np.uint8)
    if r <= 0:
        m[:] = 255
    else:
        cv2.rectangle(m, (r, 0), (w - 1 - r, h - 1), 255, -1)
        cv2.rectangle(m, (0, r), (w - 1, h - 1 - r), 255, -1)
        for cx, cy in ((r, r), (w - 1 - r, r), (w - 1 - r, h - 1 - r), (r, h - 1 - r)):
            cv2.circle(m, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return m.astype(np.float32) / 255.0


def _disc_mask(d_mm: float) -> np.ndarray:
    s = _px(d_mm)
    yy, xx = np.mgrid[0:s, 0:s].astype(np.float32)
    r = np.hypot(xx - (s - 1) / 2, yy - (s - 1) / 2)
    return np.asarray(np.clip(s / 2 - r + 0.5, 0.0, 1.0), np.float32)


def _finish(canvas: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drawing canvas -> the face at :data:`TEXTURE_PX_PER_MM` (outside the outline black) and
    its mask at that size."""
    f = TEXTURE_PX_PER_MM / DRAW_PX_PER_MM
    h, w = canvas.shape[:2]
    size = (max(1, round(w * f)), max(1, round(h * f)))
    img = canvas.astype(np.float32) * mask[..., None]
    small = np.asarray(cv2.resize(img, size, interpolation=cv2.INTER_AREA), np.float32)
    small_mask = np.asarray(cv2.resize(mask, size, interpolation=cv2.INTER_AREA), np.float32)
    # un-premultiply along the edge, so the face's own colour reaches its outline
    face = small / np.maximum(small_mask, 1e-3)[..., None]
    face = np.where(small_mask[..., None] > 1e-3, face, 0.0)
    return np.asarray(np.clip(np.round(face), 0, 255), np.uint8), np.clip(small_mask, 0.0, 1.0)


# coins --------------------------------------------------------------------------------------------

COIN_MM = 25.0
_METALS: tuple[Bgr, ...] = ((60, 175, 215), (195, 195, 188), (80, 125, 195))  # gold, silver, copper
_RING_COLOURS: tuple[Bgr, ...] = ((40, 40, 200), (180, 90, 30), (50, 140, 40), (140, 40, 130),
                                  (30, 30, 30), (20, 120, 235))


def _coin_front(value: int, rng: np.random.Generator) -> np.ndarray:
    s = _px(COIN_MM)
    c = (COIN_MM / 2, COIN_MM / 2)
    metal = _jitter(rng, _METALS[(value - 1) % 3], 8)
    ring = _jitter(rng, _RING_COLOURS[value - 1], 10)
    img = np.zeros((s, s, 3), np.uint8)
    img[:] = metal
    _circle(img, c, COIN_MM / 2 - 0.5, _shade(metal, 0.7), 1.0)  # the milled rim
    r = COIN_MM / 2 * 0.74
    phase = float(rng.uniform(0, 2 * math.pi))
    if value == 1:  # a solid ring
        _circle(img, c, r, ring, 1.8)
    elif value == 2:  # two thin rings
        _circle(img, c, r - 1.3, ring, 0.7)
        _circle(img, c, r + 1.0, ring, 0.7)
    elif value == 3:  # twelve dashes
        for i in range(12):
            a0 = phase + i * math.pi / 6
            arc = [(c[0] + r * math.cos(a0 + t), c[1] + r * math.sin(a0 + t)) for t in np.linspace(0, 0.3, 6)]
            _poly(img, arc, ring, 1.4, closed=False)
    elif value == 4:  # sixteen dots
        for i in range(16):
            a = phase + i * math.pi / 8
            _circle(img, (c[0] + r * math.cos(a), c[1] + r * math.sin(a)), 0.8, ring)
    elif value == 5:  # a zigzag
        radii = [r + (1.2 if i % 2 else -1.2) for i in range(28)]
        turns = [phase + i * math.pi / 14 for i in range(28)]
        pts = [(c[0] + ri * math.cos(a), c[1] + ri * math.sin(a)) for ri, a in zip(radii, turns, strict=True)]
        _poly(img, pts, ring, 0.6)
    else:  # eight teeth pointing out
        for i in range(8):
            a = phase + i * math.pi / 4
            tip = (c[0] + (r + 1.8) * math.cos(a), c[1] + (r + 1.8) * math.sin(a))
            left = (c[0] + (r - 1.2) * math.cos(a - 0.22), c[1] + (r - 1.2) * math.sin(a - 0.22))
            right = (c[0] + (r - 1.2) * math.cos(a + 0.22), c[1] + (r - 1.2) * math.sin(a + 0.22))
            _poly(img, [tip, right, left], ring)
    _text(img, str(value), (c[0], c[1] - 0.3), 9.0, (35, 35, 45), 1.1)
    _poly(img, [(c[0] - 2.5, c[1] + 6.2), (c[0] + 2.5, c[1] + 6.2)], ring, 0.8, closed=False)  # underline
    return img


def _coin_back(rng: np.random.Generator) -> np.ndarray:
    s = _px(COIN_MM)
    c = (COIN_MM / 2, COIN_MM / 2)
    body = _jitter(rng, (120, 110, 30), 8)  # teal
    img = np.zeros((s, s, 3), np.uint8)
    img[:] = body
    _circle(img, c, COIN_MM / 2 - 0.6, (200, 220, 225), 0.8)
    for i in range(8):
        a = i * math.pi / 4
        spoke = [(c[0] + 3.5 * math.cos(a), c[1] + 3.5 * math.sin(a)),
                 (c[0] + 10.5 * math.cos(a), c[1] + 10.5 * math.sin(a))]
        _poly(img, spoke, (200, 220, 225), 0.9, closed=False)
    cv2.ellipse(img, _pt(*c), (_px(3.2), _px(1.8)), 0, 0, 360, (60, 210, 240), -1, cv2.LINE_AA)
    _circle(img, c, 0.9, (20, 20, 20))
    return img


# chamber tiles ------------------------------------------------------------------------------------

TILE_MM = 50.0
_STONES: tuple[Bgr, ...] = ((150, 152, 150), (125, 170, 200))  # grey, sand
CHAMBERS = ("hall", "cross", "pit", "treasure", "dragon", "stairs")


def _tile_floor(stone: Bgr) -> np.ndarray:
    s = _px(TILE_MM)
    img = np.zeros((s, s, 3), np.uint8)
    img[:] = stone
    line = _shade(stone, 0.82)
    for k in range(1, 5):
        v = k * TILE_MM / 5
        _poly(img, [(v, 0), (v, TILE_MM)], line, 0.35, closed=False)
        _poly(img, [(0, v), (TILE_MM, v)], line, 0.35, closed=False)
    return img


def _tile_front(name: str, i: int, rng: np.random.Generator) -> np.ndarray:
    stone = _jitter(rng, _STONES[i % 2], 8)
    img = _tile_floor(stone)
    dark = _shade(stone, 0.45)
    T = TILE_MM
    if name == "hall":  # a passage across, with pillars
        _poly(img, [(2, 19), (T - 2, 19), (T - 2, 33), (2, 33)], dark)
        for x in (9.0, 21.0, 33.0, 45.0):
            _poly(img, [(x - 2, 14), (x + 2, 14), (x + 2, 17), (x - 2, 17)], (70, 70, 75))
            _poly(img, [(x - 2, 35), (x + 2, 35), (x + 2, 38), (x - 2, 38)], (70, 70, 75))
    elif name == "cross":  # crossing passages and a well
        _poly(img, [(2, 21), (T - 2, 21), (T - 2, 33), (2, 33)], dark)
        _poly(img, [(19, 11), (31, 11), (31, T - 2), (19, T - 2)], dark)
        _circle(img, (25, 27), 3.5, (150, 90, 40))
    elif name == "pit":  # concentric rings into the dark
        for r, f in ((16.0, 0.7), (12.0, 0.5), (8.0, 0.3), (4.0, 0.1)):
            _circle(img, (25, 29), r, _shade(stone, f))
    elif name == "treasure":  # a chest and gold
        _poly(img, [(12, 21), (38, 21), (38, 39), (12, 39)], (30, 75, 120))
        _poly(img, [(12, 21), (38, 21), (38, 26), (12, 26)], (40, 190, 230))
        _poly(img, [(23, 28), (27, 28), (27, 32), (23, 32)], (40, 190, 230))
        for x, y in ((8.0, 43.0), (14.0, 45.0), (41.0, 43.0), (44.0, 16.0)):
            _circle(img, (x, y), 2.0, (40, 200, 240))
    elif name == "dragon":  # red wings and an eye
        wings = [(25, 18), (45, 12), (38, 28), (44, 40), (25, 32), (6, 40), (12, 28), (5, 12)]
        _poly(img, wings, (40, 40, 185))
        cv2.ellipse(img, _pt(25, 26), (_px(4), _px(2)), 0, 0, 360, (40, 210, 240), -1, cv2.LINE_AA)
        _circle(img, (25, 26), 1.2, (20, 20, 20))
    else:  # stairs: steps going down to the right
        for k in range(6):
            x = 14 + 5.5 * k
            _poly(img, [(x, 12), (x + 5.5, 12), (x + 5.5, 44), (x, 44)], _shade(stone, 0.95 - 0.13 * k))
            _poly(img, [(x, 12), (x, 44)], _shade(stone, 0.3), 0.4, closed=False)
    # a thin edge, and the name on a plaque near the top
    _poly(img, [(0, 0), (T, 0), (T, T), (0, T)], _shade(stone, 0.6), 1.0)
    _poly(img, [(7, 2.5), (T - 7, 2.5), (T - 7, 9.5), (7, 9.5)], (45, 45, 50))
    _text(img, name.upper(), (T / 2, 6.0), 4.0, (225, 230, 235), 0.45, cv2.FONT_HERSHEY_SIMPLEX)
    return img


def _tile_back(rng: np.random.Generator) -> np.ndarray:
    s = _px(TILE_MM)
    body = _jitter(rng, (45, 80, 125), 8)  # brown
    img = np.zeros((s, s, 3), np.uint8)
    img[:] = body
    hatch = _shade(body, 1.45)
    for k in range(-10, 11):
        x = k * 5.0
        _poly(img, [(x, 0), (x + TILE_MM, TILE_MM)], hatch, 0.5, closed=False)
    _poly(img, [(0, 0), (TILE_MM, 0), (TILE_MM, TILE_MM), (0, TILE_MM)], (110, 170, 210), 2.0)
    _circle(img, (25, 25), 10, (30, 50, 80))
    _poly(img, [(25, 17), (25, 33)], (70, 200, 230), 1.2, closed=False)
    _poly(img, [(25, 20), (31, 25), (25, 30)], (70, 200, 230), 1.2, closed=False)
    return img


# cards --------------------------------------------------------------------------------------------

CARD_MM = (57.0, 88.0)
CARDS = ("knight", "wizard", "archer", "healer", "thief", "giant")
_SUITS: tuple[Bgr, ...] = ((50, 50, 180), (170, 100, 40), (60, 140, 60))  # red, blue, green


def _card_picture(img: np.ndarray, name: str) -> None:
    """The card's own picture, in the box x 8-49, y 17-55 mm."""
    cx, cy = 28.5, 36.0
    if name == "knight":  # a shield with a cross, a sword behind
        _poly(img, [(cx + 12, 19), (cx + 20, 27)], (90, 90, 95), 1.6, closed=False)
        _poly(img, [(cx - 12, 20), (cx + 12, 20), (cx + 12, 34), (cx, 52), (cx - 12, 34)], (150, 150, 155))
        _poly(img, [(cx - 2.5, 24), (cx + 2.5, 24), (cx + 2.5, 44), (cx - 2.5, 44)], (40, 40, 190))
        _poly(img, [(cx - 9, 29), (cx + 9, 29), (cx + 9, 34), (cx - 9, 34)], (40, 40, 190))
    elif name == "wizard":  # a pointed hat and stars
        _poly(img, [(cx - 14, 50), (cx + 14, 50), (cx + 3, 20)], (140, 40, 120))
        _poly(img, [(cx - 18, 50), (cx + 18, 50), (cx + 18, 53), (cx - 18, 53)], (110, 30, 95))
        for (sx, sy), r in (((cx - 12, 24), 3.5), ((cx + 13, 30), 2.5), ((cx - 3, 40), 2.5)):
            _poly(img, _star((sx, sy), r, r * 0.45, 5), (30, 190, 235))
    elif name == "archer":  # a bow and an arrow
        cv2.ellipse(img, _pt(cx - 8, cy), (_px(12), _px(17)), 0, -80, 80, (40, 80, 130), _px(1.8),
                    cv2.LINE_AA)
        _poly(img, [(cx - 6, cy - 16.7), (cx - 6, cy + 16.7)], (60, 60, 60), 0.4, closed=False)
        _poly(img, [(cx - 14, cy + 9), (cx + 16, cy - 9)], (50, 50, 50), 0.8, closed=False)
        _poly(img, [(cx + 18, cy - 10.2), (cx + 12.5, cy - 9.5), (cx + 15.5, cy - 5.5)], (50, 50, 50))
    elif name == "healer":  # a green cross on a white disc
        _circle(img, (cx, cy), 15, (240, 240, 240))
        _circle(img, (cx, cy), 15, (60, 140, 60), 1.0)
        _poly(img, [(cx - 3.5, cy - 11), (cx + 3.5, cy - 11), (cx + 3.5, cy + 11), (cx - 3.5, cy + 11)],
              (60, 160, 60))
        _poly(img, [(cx - 11, cy - 3.5), (cx + 11, cy - 3.5), (cx + 11, cy + 3.5), (cx - 11, cy + 3.5)],
              (60, 160, 60))
    elif name == "thief":  # a mask and a dagger
        cv2.ellipse(img, _pt(cx, cy - 6), (_px(16), _px(6)), 0, 0, 360, (35, 35, 40), -1, cv2.LINE_AA)
        for dx in (-7.0, 7.0):
            cv2.ellipse(img, _pt(cx + dx, cy - 6), (_px(3.5), _px(2)), 0, 0, 360, (235, 240, 245), -1,
                        cv2.LINE_AA)
        _poly(img, [(cx - 1, cy + 2), (cx + 1, cy + 2), (cx + 1, cy + 14), (cx, cy + 18), (cx - 1, cy + 14)],
              (170, 170, 175))
        _poly(img, [(cx - 5, cy + 1), (cx + 5, cy + 1), (cx + 5, cy + 3), (cx - 5, cy + 3)], (40, 80, 120))
    else:  # giant: a big head and a club
        _circle(img, (cx - 4, cy - 4), 11, (90, 140, 190))
        _circle(img, (cx - 8, cy - 6), 1.6, (20, 20, 20))
        _circle(img, (cx + 0, cy - 6), 1.6, (20, 20, 20))
        _poly(img, [(cx - 9, cy + 1), (cx + 1, cy + 1)], (20, 20, 20), 0.8, closed=False)
        club = [(cx + 9, cy + 16), (cx + 13, cy - 12), (cx + 19, cy - 11), (cx + 12, cy + 17)]
        _poly(img, club, (30, 70, 110))


def _card_front(name: str, i: int, rng: np.random.Generator) -> np.ndarray:
    w, h = CARD_MM
    paper = _jitter(rng, (225, 238, 244), 5)
    suit = _jitter(rng, _SUITS[i % 3], 10)
    img = np.zeros((_px(h), _px(w), 3), np.uint8)
    img[:] = paper
    _poly(img, [(3, 3), (w - 3, 3), (w - 3, h - 3), (3, h - 3)], suit, 1.6)  # the frame
    _poly(img, [(3, 3), (w - 3, 3), (w - 3, 14), (3, 14)], suit)  # the title band
    _text(img, name.upper(), (w / 2 + 3, 8.6), 5.0, (245, 245, 245), 0.55, cv2.FONT_HERSHEY_SIMPLEX)
    _circle(img, (8.5, 8.5), 4.2, (40, 40, 40))
    _text(img, str(2 + i % 5), (8.5, 8.5), 4.0, (245, 245, 245), 0.6, cv2.FONT_HERSHEY_SIMPLEX)
    _card_picture(img, name)
    for k in range(4):  # the rules text, as grey bars of this card's own lengths
        length = 38.0 - 6.0 * ((i + k) % 4)
        _poly(img, [(9, 61 + 5.5 * k), (9 + length, 61 + 5.5 * k), (9 + length, 63 + 5.5 * k),
                    (9, 63 + 5.5 * k)], (120, 120, 120))
    return img


def _card_back(rng: np.random.Generator) -> np.ndarray:
    w, h = CARD_MM
    img = np.zeros((_px(h), _px(w), 3), np.uint8)
    img[:] = (235, 240, 242)
    navy = _jitter(rng, (95, 45, 25), 6)
    _poly(img, [(3.5, 3.5), (w - 3.5, 3.5), (w - 3.5, h - 3.5), (3.5, h - 3.5)], navy)
    line = _shade(navy, 1.8)
    for k in range(-12, 13):
        x = k * 7.0
        _poly(img, [(x, 0), (x + h, h)], line, 0.5, closed=False)
        _poly(img, [(x + h, 0), (x, h)], line, 0.5, closed=False)
    _poly(img, [(0, 0), (w, 0), (w, h), (0, h)], (235, 240, 242), 3.5)  # the white border, again on top
    cv2.ellipse(img, _pt(w / 2, h / 2), (_px(14), _px(22)), 0, 0, 360, (50, 180, 220), -1, cv2.LINE_AA)
    cv2.ellipse(img, _pt(w / 2, h / 2), (_px(10), _px(17)), 0, 0, 360, navy, -1, cv2.LINE_AA)
    _poly(img, _star((w / 2, h / 2 - 4), 6, 2.5, 4), (50, 180, 220))
    return img


@functools.lru_cache(maxsize=4)
def piece_art(seed: int = 0) -> dict[str, KindArt]:
    """The three kinds' art (see the module's docstring), the same for the same *seed*:
    the seed varies colours and the coins' pattern phase, never the design."""
    streams = [np.random.default_rng(s) for s in np.random.SeedSequence([seed, 0x9A7]).spawn(3)]
    r_coin, r_tile, r_card = streams
    coin_mask = _disc_mask(COIN_MM)
    tile_mask = _rounded_mask(TILE_MM, TILE_MM, 1.0)
    card_mask = _rounded_mask(*CARD_MM, 3.0)
    kinds: dict[str, KindArt] = {}
    for name, shape, size, mask, fronts, back in (
            ("coin", "disc", (COIN_MM, COIN_MM), coin_mask,
             {str(v): _coin_front(v, r_coin) for v in range(1, 7)}, _coin_back(r_coin)),
            ("chamber", "rect", (TILE_MM, TILE_MM), tile_mask,
             {n: _tile_front(n, i, r_tile) for i, n in enumerate(CHAMBERS)}, _tile_back(r_tile)),
            ("card", "rect", CARD_MM, card_mask,
             {n: _card_front(n, i, r_card) for i, n in enumerate(CARDS)}, _card_back(r_card))):
        done = {k: _finish(v, mask) for k, v in fronts.items()}
        back_img, small_mask = _finish(back, mask)
        for img in [back_img, small_mask, *(d[0] for d in done.values())]:
            img.setflags(write=False)
        kinds[name] = KindArt(name, shape, (float(size[0]), float(size[1])),
                              {k: d[0] for k, d in done.items()}, back_img, small_mask)
    return kinds


def face_photo(art: KindArt, front: str | None, margin_mm: float = 12.0) -> np.ndarray:
    """A clean top-down "photo" of one face: the art on a plain background that contrasts
    with the piece's rim (dark under a light rim, light under a dark one), *margin_mm* around."""
    face = art.face(front).astype(np.float32)
    mask = art.mask
    inside = (mask > 0.5).astype(np.uint8)
    rim = (inside > 0) & (np.asarray(cv2.erode(inside, np.ones((9, 9), np.uint8))) == 0)
    brightness = float(face.max(axis=2)[rim].mean())
    bg = 28.0 if brightness >= 110 else 225.0
    m = int(round(margin_mm * TEXTURE_PX_PER_MM))
    h, w = mask.shape
    out = np.full((h + 2 * m, w + 2 * m, 3), bg, np.float32)
    out[m:m + h, m:m + w] = face * mask[..., None] + bg * (1.0 - mask[..., None])
    return np.asarray(np.clip(np.round(out), 0, 255), np.uint8)


def make_library(root: Path | str, seed: int = 0, left_out: Collection[str] = ()) -> Library:
    """A new library in folder *root* holding every kind of :func:`piece_art` (*seed*):
    each front and the back registered once, from :func:`face_photo`; not the fronts named
    (``"kind/front"``) in *left_out*."""
    library = Library.create(root)
    for art in piece_art(seed).values():
        for front in art.fronts:
            if f"{art.name}/{front}" in left_out:
                continue
            library.register(art.name, art.shape, art.size_mm, face_photo(art, front), front=front)
        library.register(art.name, art.shape, art.size_mm, face_photo(art, None), back=True)
    return library


# -- the scene -------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class PieceTruth:
    """A piece on the table as laid. ``angle_deg`` is the direction of the face's top edge
    (as stored in the library), clockwise from +x (table y points down), 0-360: what the
    reader reports. ``overlap`` is the share of its area that other pieces' footprints
    share (above or below it), ``covered`` the share hidden under pieces laid after it.
    ``outline_mm`` (N, 2) is its footprint in table mm; ``order`` its place in the stack
    (0 laid first, at the bottom)."""

    kind: str
    face: str
    front: str | None
    center_mm: tuple[float, float]
    angle_deg: float
    overlap: float
    covered: float
    outline_mm: np.ndarray = field(repr=False)
    order: int = 0

    @property
    def label(self) -> str:
        """``"kind/front"`` or ``"kind/back"``."""
        return f"{self.kind}/{self.front if self.front is not None else 'back'}"


@dataclass(frozen=True, eq=False)
class DistractorTruth:
    """Something on the table that is no piece: ``kind`` is ``"pen"``, ``"cup-ring"`` or
    ``"blob"``; ``outline_mm`` its footprint (a cup ring's: the whole disc it rings)."""

    kind: str
    center_mm: tuple[float, float]
    outline_mm: np.ndarray = field(repr=False)


@dataclass(frozen=True, eq=False)
class PieceScene:
    """A rendered scene and its truth. ``image`` and ``empty`` (the same table without
    pieces or distractors, fresh sensor noise; None when not asked for) are BGR uint8."""

    seed: int
    image: np.ndarray
    empty: np.ndarray | None
    camera: CameraModel
    layout: Layout
    pieces: list[PieceTruth]
    distractors: list[DistractorTruth]
    effects: Effects
    cloth: str
    art_seed: int = 0

    @property
    def lens(self) -> Lens:
        """The camera's lens, as ``companion vision calibrate-lens`` would know it."""
        return Lens(np.asarray(self.camera.K, np.float64), np.asarray(self.camera.dist, np.float64))


def _view_bounds(camera: CameraModel, area: tuple[float, float]) -> tuple[float, float, float, float]:
    """The table rectangle (mm) the camera sees, a little grown, whole mm."""
    w, h = camera.size
    t = np.linspace(0.0, 1.0, 33)
    border = np.vstack([np.column_stack([t * (w - 1), np.zeros_like(t)]),
                        np.column_stack([t * (w - 1), np.full_like(t, h - 1)]),
                        np.column_stack([np.zeros_like(t), t * (h - 1)]),
                        np.column_stack([np.full_like(t, w - 1), t * (h - 1)])])
    und = cv2.undistortPoints(border.reshape(-1, 1, 2), camera.K, camera.dist, P=camera.K)
    to_table = np.linalg.inv(camera.homography(0.0))
    mm = np.asarray(cv2.perspectiveTransform(np.asarray(und, np.float64), to_table), np.float64)
    mm = mm.reshape(-1, 2)
    x0, y0 = mm.min(axis=0) - 30.0
    x1, y1 = mm.max(axis=0) + 30.0
    # never less than the area, never absurdly more (a view that grazes the horizon)
    aw, ah = area
    x0, y0 = max(-aw, min(x0, -20.0)), max(-ah, min(y0, -20.0))
    x1, y1 = min(2 * aw, max(x1, aw + 20.0)), min(2 * ah, max(y1, ah + 20.0))
    return math.floor(x0), math.floor(y0), math.ceil(x1), math.ceil(y1)


_CLOTHS: tuple[tuple[str, Bgr], ...] = (
    ("green felt", (45, 95, 40)), ("navy felt", (85, 45, 30)), ("burgundy felt", (45, 35, 110)),
    ("charcoal felt", (58, 58, 60)), ("linen", (175, 195, 205)), ("teal felt", (95, 100, 35)))


def _cloth(rng: np.random.Generator, shape: tuple[int, int]) -> tuple[str, np.ndarray]:
    """A cloth texture (float32 BGR, *shape* at :data:`TEXTURE_PX_PER_MM`) and its name."""
    name, base = _CLOTHS[int(rng.integers(len(_CLOTHS)))]
    colour = np.asarray(_jitter(rng, base, 10), np.float32)
    h, w = shape
    lo = (max(2, h // 2), max(2, w // 2))  # patterns are worked out at 2 px/mm
    ppm = TEXTURE_PX_PER_MM / 2
    yy = (np.arange(lo[0], dtype=np.float32) / np.float32(ppm))[:, None]
    xx = (np.arange(lo[1], dtype=np.float32) / np.float32(ppm))[None, :]
    style = ["plain", "gingham", "dots", "wood"][int(rng.choice(4, p=[0.4, 0.2, 0.2, 0.2]))]
    gain = 1.0 + _smooth(rng, lo, 60.0 * ppm, 0.06)
    if style == "gingham":
        period = float(rng.uniform(16, 36))
        a, b = float(rng.uniform(0.1, 0.22)), float(rng.uniform(0.1, 0.22))
        band_x = ((xx % period) < period / 2).astype(np.float32)
        band_y = ((yy % period) < period / 2).astype(np.float32)
        gain *= (1 - a * band_x) * (1 - b * band_y)
    elif style == "dots":
        period = float(rng.uniform(14, 26))
        r = float(rng.uniform(1.5, 3.0))
        dx, dy = (xx % period) - period / 2, (yy % period) - period / 2
        dot = np.clip(r - np.sqrt(dx * dx + dy * dy), 0, 1)
        gain *= 1 + float(rng.choice([-1, 1])) * float(rng.uniform(0.15, 0.3)) * dot
    elif style == "wood":
        name = "wood"
        colour = np.asarray(_jitter(rng, (55, 105, 155), 15), np.float32)
        period = float(rng.uniform(6, 14))
        warp = _smooth(rng, lo, 40.0 * ppm, 12.0)
        gain *= 1 + 0.1 * np.sin(2 * np.pi * (yy + warp) / period) + _smooth(rng, lo, 4.0 * ppm, 0.03)
    field_ = np.asarray(gain, np.float32)[..., None] * colour
    big = np.asarray(cv2.resize(field_, (w, h), interpolation=cv2.INTER_LINEAR), np.float32)
    label = name if style in ("plain", "wood") else f"{name}, {style}"
    return label, big


def _smooth(rng: np.random.Generator, shape: tuple[int, int], cells: float, amplitude: float) -> np.ndarray:
    """A smooth random field (float32) with features about *cells* px across, +-amplitude."""
    h, w = shape
    gh, gw = max(2, int(h / cells) + 2), max(2, int(w / cells) + 2)
    coarse = rng.uniform(-amplitude, amplitude, (gh, gw)).astype(np.float32)
    return np.asarray(cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC), np.float32)


def _to_uint8(image: np.ndarray) -> np.ndarray:
    """A float image (0..255, never negative) rounded and saturated to uint8."""
    return np.asarray(cv2.convertScaleAbs(image), np.uint8)


class _Table:
    """The top-down texture being composed (BGR uint8) and its origin, in mm."""

    def __init__(self, origin_mm: tuple[float, float], image: np.ndarray) -> None:
        self.origin = origin_mm
        self.image = image

    def to_px(self, x_mm: float, y_mm: float) -> tuple[float, float]:
        """Table mm -> texture pixel-centre coordinates."""
        return ((x_mm - self.origin[0]) * TEXTURE_PX_PER_MM - 0.5,
                (y_mm - self.origin[1]) * TEXTURE_PX_PER_MM - 0.5)

    def paste(self, colour: np.ndarray, alpha: np.ndarray, center_mm: tuple[float, float],
              angle_deg: float) -> None:
        """Lay *colour* (h, w, 3; BGR, not premultiplied) with coverage *alpha* (h, w, 0-1), both
        at :data:`TEXTURE_PX_PER_MM`, centred at *center_mm*, turned *angle_deg* clockwise."""
        h, w = alpha.shape
        t = math.radians(angle_deg)
        rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
        c_tex = np.array(self.to_px(*center_mm))
        shift = c_tex - rot @ np.array([(w - 1) / 2, (h - 1) / 2])
        corners = np.array([[-1, -1], [w, -1], [w, h], [-1, h]], np.float64) @ rot.T + shift
        th, tw = self.image.shape[:2]
        x0, y0 = max(0, int(math.floor(corners[:, 0].min()))), max(0, int(math.floor(corners[:, 1].min())))
        x1 = min(tw, int(math.ceil(corners[:, 0].max())) + 1)
        y1 = min(th, int(math.ceil(corners[:, 1].max())) + 1)
        if x1 <= x0 or y1 <= y0:
            return
        m = np.column_stack([rot, shift - [x0, y0]])
        size = (x1 - x0, y1 - y0)
        pre = np.asarray(colour, np.float32) * alpha[..., None]
        wc = np.asarray(cv2.warpAffine(pre, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                       borderValue=(0, 0, 0)), np.float32)
        wa = np.asarray(cv2.warpAffine(np.asarray(alpha, np.float32), m, size, flags=cv2.INTER_LINEAR,
                                       borderMode=cv2.BORDER_CONSTANT, borderValue=0), np.float32)
        roi = self.image[y0:y1, x0:x1].astype(np.float32)
        roi *= 1.0 - wa[..., None]
        roi += wc
        self.image[y0:y1, x0:x1] = _to_uint8(roi)


def _draw_markers(table: _Table, layout: Layout, rng: np.random.Generator) -> list[Polygon]:
    """Each table marker on its white sticker; returns the stickers (mm)."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, layout.dictionary))
    stickers = []
    for m in layout.table_markers:
        cells = int(d.markerSize) + 2
        bits = np.asarray(cv2.aruco.generateImageMarker(d, m.id, cells), np.float32)
        c = np.asarray(m.corners_mm, np.float64)
        side = float(np.linalg.norm(c[1] - c[0]))
        quiet = float(rng.uniform(*QUIET_CELLS)) * side / cells
        # drawn exactly: 24 sub-pixels a cell, area-averaged to the texture's pixels
        fine = cv2.resize(bits, (cells * 24, cells * 24), interpolation=cv2.INTER_NEAREST)
        px = side * TEXTURE_PX_PER_MM
        pad = int(math.ceil(quiet * TEXTURE_PX_PER_MM))
        n = int(round(px)) + 2 * pad
        img = np.full((n, n), 255.0, np.float32)
        img[pad:pad + int(round(px)), pad:pad + int(round(px))] = np.asarray(
            cv2.resize(fine, (int(round(px)), int(round(px))), interpolation=cv2.INTER_AREA), np.float32)
        centre = c.mean(axis=0)
        angle = math.degrees(math.atan2(c[1][1] - c[0][1], c[1][0] - c[0][0]))
        sticker_side = (int(round(px)) + 2 * pad) / TEXTURE_PX_PER_MM
        table.paste(np.repeat(img[..., None], 3, axis=2) * np.float32(0.97), np.ones((n, n), np.float32),
                    (float(centre[0]), float(centre[1])), angle)
        u = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]) * sticker_side
        t = math.radians(angle)
        rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
        stickers.append(Polygon(u @ rot.T + centre))
    return stickers


def _outline(kind: KindArt, center: tuple[float, float], angle_deg: float) -> np.ndarray:
    w, h = kind.size_mm
    if kind.shape == "disc":
        a = np.linspace(0, 2 * math.pi, 72, endpoint=False)
        local = np.column_stack([np.cos(a), np.sin(a)]) * (w / 2)
    else:
        local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    t = math.radians(angle_deg)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    return np.asarray(local @ rot.T + np.asarray(center), np.float64)


# distractors --------------------------------------------------------------------------------------


def _pen(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    length, width = float(rng.uniform(125, 150)), float(rng.uniform(8.5, 11))
    body = _jitter(rng, [(150, 60, 20), (35, 35, 35), (40, 40, 180), (60, 140, 40)][int(rng.integers(4))], 10)
    w, h = _px(length), _px(width)
    img = np.zeros((h, w, 3), np.uint8)
    img[:] = body
    cap = _px(length * 0.28)
    img[:, :cap] = _shade(body, 0.7)
    cv2.rectangle(img, (_px(4), 0), (cap - _px(4), _px(1.6)), (200, 200, 205), -1)  # the clip
    img[h // 2 - _px(1.2):h // 2 - _px(0.4), cap:] = _shade(body, 1.5)  # a highlight
    mask = _rounded_mask(length, width, width / 2 - 0.3)
    tip = np.zeros((h, w), np.uint8)  # the writing end: a grey cone
    cone = np.array([[w - _px(14), 0], [w - 1, h // 2], [w - _px(14), h - 1]], np.int32)
    cv2.fillConvexPoly(tip, cone, 255, cv2.LINE_AA)
    img[:, w - _px(14):] = (175, 175, 180)
    mask[:, w - _px(16):] = 0.0
    mask[:, w - _px(16):w - _px(14)] = 1.0
    mask = np.maximum(mask, tip.astype(np.float32) / 255.0)
    return _finish(img, mask)


def _cup_ring(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    d, width = float(rng.uniform(72, 90)), float(rng.uniform(2.5, 5.0))
    s = _px(d) + 2
    yy, xx = np.mgrid[0:s, 0:s].astype(np.float32)
    r = np.hypot(xx - (s - 1) / 2, yy - (s - 1) / 2) / DRAW_PX_PER_MM
    ang = np.arctan2(yy - (s - 1) / 2, xx - (s - 1) / 2)
    inner = d / 2 - width
    across = np.clip((r - inner) / width, 0, 1)
    band = np.clip(d / 2 - r + 0.5 / DRAW_PX_PER_MM, 0, 1) * np.clip((r - inner) * DRAW_PX_PER_MM, 0, 1)
    strength = 0.35 + 0.65 * across**2  # the coffee dries to the ring's outer edge
    k = rng.uniform(0, 2 * math.pi, 3)
    waves = 0.35 * np.sin(ang + k[0]) + 0.25 * np.sin(2 * ang + k[1]) + 0.15 * np.sin(3 * ang + k[2])
    along = np.clip(0.55 + waves, 0.05, 1.0)
    alpha = (band * strength * along * float(rng.uniform(0.45, 0.8))).astype(np.float32)
    img = np.zeros((s, s, 3), np.uint8)
    img[:] = _jitter(rng, (25, 55, 95), 8)
    return _finish(img, alpha)


def _blob(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    size = float(rng.uniform(22, 55))
    s = _px(size * 1.5)
    a = np.linspace(0, 2 * math.pi, 180, endpoint=False)
    r = np.ones_like(a)
    for k in range(2, 6):
        r += rng.uniform(0, 0.12) * np.sin(k * a + rng.uniform(0, 2 * math.pi))
    r *= size / 2
    c = size * 0.75
    pts = np.column_stack([c + r * np.cos(a), c + r * np.sin(a)])
    mask8 = np.zeros((s, s), np.uint8)
    cv2.fillPoly(mask8, [np.round(pts * DRAW_PX_PER_MM * 16).astype(np.int32).reshape(-1, 1, 2)], 255,
                 cv2.LINE_AA, shift=4)
    colour = _jitter(rng, [(200, 60, 230), (40, 200, 240), (220, 170, 40), (60, 60, 220), (90, 210, 90)]
                     [int(rng.integers(5))], 15)
    img = np.zeros((s, s, 3), np.float32)
    img[:] = colour
    # modelling clay: lit from one side
    yy, xx = np.mgrid[0:s, 0:s].astype(np.float32)
    light = 1.0 + 0.15 * ((xx - yy) / s)
    img *= light[..., None]
    return _finish(np.asarray(np.clip(img, 0, 255), np.uint8), mask8.astype(np.float32) / 255.0)


_DISTRACTORS: dict[str, Callable[[np.random.Generator], tuple[np.ndarray, np.ndarray]]] = {
    "pen": _pen, "cup-ring": _cup_ring, "blob": _blob}


def _footprint(alpha: np.ndarray, center: tuple[float, float], angle_deg: float, disc: bool) -> np.ndarray:
    """The outline (mm, table) of an object whose coverage *alpha* is laid as :meth:`_Table.paste` lays it."""
    h, w = alpha.shape
    if disc:
        a = np.linspace(0, 2 * math.pi, 72, endpoint=False)
        local = np.column_stack([np.cos(a), np.sin(a)]) * (w / 2 / TEXTURE_PX_PER_MM)
    else:
        ys, xs = np.nonzero(alpha > 0.5)
        pts = np.column_stack([xs - (w - 1) / 2, ys - (h - 1) / 2]).astype(np.float32)
        hull = cv2.convexHull(pts).reshape(-1, 2) if len(pts) >= 3 else np.zeros((0, 2), np.float32)
        local = np.asarray(hull, np.float64) / TEXTURE_PX_PER_MM
    t = math.radians(angle_deg)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    return np.asarray(local @ rot.T + np.asarray(center), np.float64)


# placing ------------------------------------------------------------------------------------------


def _inside(poly: Polygon, area: tuple[float, float], stickers: list[Polygon]) -> bool:
    x0, y0, x1, y1 = poly.bounds
    if x0 < EDGE_MM or y0 < EDGE_MM or x1 > area[0] - EDGE_MM or y1 > area[1] - EDGE_MM:
        return False
    return not any(poly.distance(s) < EDGE_MM for s in stickers)


def _place_distractors(rng: np.random.Generator, area: tuple[float, float], stickers: list[Polygon],
                       ) -> list[tuple[DistractorTruth, np.ndarray, np.ndarray, float]]:
    """A pen, a cup ring and one or two blobs, clear of each other (the art, alpha and turn too)."""
    kinds = ["pen", "cup-ring", "blob"] + (["blob"] if rng.random() < 0.5 else [])
    out: list[tuple[DistractorTruth, np.ndarray, np.ndarray, float]] = []
    for kind in kinds:
        colour, alpha = _DISTRACTORS[kind](rng)
        for _ in range(200):
            c = (float(rng.uniform(0, area[0])), float(rng.uniform(0, area[1])))
            angle = float(rng.uniform(0, 360))
            outline = _footprint(alpha, c, angle, kind == "cup-ring")
            poly = Polygon(outline)
            if _inside(poly, area, stickers) and all(poly.distance(Polygon(o.outline_mm)) > 3 * GAP_MM
                                                     for o, *_ in out):
                out.append((DistractorTruth(kind, c, outline), colour, alpha, angle))
                break
    return out


@dataclass
class _Laid:
    kind: KindArt
    front: str | None
    center: tuple[float, float]
    angle: float
    poly: Polygon


def _place_pieces(rng: np.random.Generator, art: dict[str, KindArt], count: int, area: tuple[float, float],
                  stickers: list[Polygon], blocked: list[Polygon]) -> list[_Laid]:
    """Up to *count* pieces: each clear of everything by :data:`GAP_MM`, or (now and then)
    overlapping one or two pieces by :data:`OVERLAP_RANGE` and clear of the rest."""
    names = list(KIND_WEIGHTS)
    weights = np.asarray([KIND_WEIGHTS[n] for n in names])
    laid: list[_Laid] = []
    others = unary_union(blocked) if blocked else None
    for _ in range(count):
        kind = art[names[int(rng.choice(len(names), p=weights / weights.sum()))]]
        fronts = sorted(kind.fronts)
        front = None if rng.random() < DOWN_CHANCE else fronts[int(rng.integers(len(fronts)))]
        want_overlap = bool(laid) and rng.random() < OVERLAP_CHANCE
        piece = None
        for attempt in range(400):
            angle = float(rng.uniform(0, 360))
            if want_overlap and attempt < 300:
                target = laid[int(rng.integers(len(laid)))]
                reach = 0.5 * (max(kind.size_mm) + max(target.kind.size_mm))
                a = rng.uniform(0, 2 * math.pi)
                d = rng.uniform(0.45, 1.0) * reach
                c = (float(target.center[0] + d * math.cos(a)), float(target.center[1] + d * math.sin(a)))
            else:
                c = (float(rng.uniform(0, area[0])), float(rng.uniform(0, area[1])))
            poly = Polygon(_outline(kind, c, angle))
            if not _inside(poly, area, stickers):
                continue
            if others is not None and poly.distance(others) < GAP_MM:
                continue
            if _fits(poly, laid, overlap=want_overlap and attempt < 300):
                piece = _Laid(kind, front, c, angle, poly)
                break
        if piece is not None:
            laid.append(piece)
    return laid


def _fits(poly: Polygon, laid: list[_Laid], overlap: bool) -> bool:
    """Whether *poly* may join *laid*: clear of all by :data:`GAP_MM`; or, with *overlap*,
    overlapping at least one, every piece's total overlap within :data:`OVERLAP_RANGE`, and
    clear of the pieces it does not overlap."""
    lo, hi = OVERLAP_RANGE
    hits = []
    for other in laid:
        if poly.intersects(other.poly):
            if not overlap:
                return False
            hits.append(other)
        elif poly.distance(other.poly) < GAP_MM:
            return False
    if not overlap:
        return True
    if not hits:
        return False
    mine = sum(poly.intersection(o.poly).area for o in hits) / poly.area
    if not lo <= mine <= hi:
        return False
    for o in hits:
        others = [p.poly for p in laid if p is not o and p.poly.intersects(o.poly)] + [poly]
        share = unary_union([o.poly.intersection(p) for p in others]).area / o.poly.area
        if not lo <= share <= hi:
            return False
    return True


def random_piece_scene(seed: int, size: tuple[int, int] = (1280, 720), count: tuple[int, int] = (8, 20), *,
                       art_seed: int = 0, layout: Layout | None = None, effects: Effects | None = None,
                       with_empty: bool = True) -> PieceScene:
    """A random table of pieces (see the module's docstring) and its truth, the same for the
    same arguments. *count* is the inclusive range of pieces tried (a crowded draw may
    place fewer); *art_seed* picks the art (:func:`piece_art`, :func:`make_library`).

    The camera, cloth, placing, distractors, effects and each frame's sensor noise draw
    from independent streams of *seed*: ``effects=Effects.none()`` changes only the
    effects, and ``with_empty=False`` (no empty-table frame, half the time) changes nothing else.
    """
    lay = layout if layout is not None else load_layout()
    streams = [np.random.default_rng(s) for s in np.random.SeedSequence([seed, 0x5CE]).spawn(8)]
    r_cam, r_cloth, r_marks, r_place, r_distract, r_fx, r_noise, r_empty = streams
    area = table_area(lay)
    art = piece_art(art_seed)
    camera = random_camera(r_cam, size, area)
    x0, y0, x1, y1 = _view_bounds(camera, area)
    shape = (int(round((y1 - y0) * TEXTURE_PX_PER_MM)), int(round((x1 - x0) * TEXTURE_PX_PER_MM)))
    cloth_name, cloth = _cloth(r_cloth, shape)
    table = _Table((float(x0), float(y0)), _to_uint8(cloth))
    stickers = _draw_markers(table, lay, r_marks)
    bare = table.image.copy() if with_empty else None

    distractors = _place_distractors(r_distract, area, stickers)
    n = int(r_place.integers(count[0], count[1] + 1))
    laid = _place_pieces(r_place, art, n, area, stickers, [Polygon(d.outline_mm) for d, *_ in distractors])
    for d, colour, alpha, angle in distractors:
        table.paste(colour.astype(np.float32), alpha, d.center_mm, angle)
    truths: list[PieceTruth] = []
    for i, p in enumerate(laid):
        table.paste(p.kind.face(p.front).astype(np.float32), p.kind.mask, p.center, p.angle)
        others = [q.poly for q in laid if q is not p and q.poly.intersects(p.poly)]
        above = [q.poly for q in laid[i + 1:] if q.poly.intersects(p.poly)]
        overlap = unary_union([p.poly.intersection(o) for o in others]).area / p.poly.area if others else 0.0
        covered = unary_union([p.poly.intersection(o) for o in above]).area / p.poly.area if above else 0.0
        truths.append(PieceTruth(p.kind.name, _DOWN if p.front is None else _UP, p.front, p.center,
                                 p.angle % 360.0, float(overlap), float(covered),
                                 np.asarray(p.poly.exterior.coords[:-1], np.float64), i))

    fx = effects if effects is not None else Effects.random(r_fx)
    background = tuple(int(v) for v in np.median(cloth[::16, ::16].reshape(-1, 3), axis=0))
    bg = (background[0], background[1], background[2])
    mm_per_px = 1.0 / TEXTURE_PX_PER_MM
    image = render_texture_on_table(table.image, mm_per_px, (float(x0), float(y0)), camera, fx, r_noise, bg)
    empty = None
    if bare is not None:
        empty = render_texture_on_table(bare, mm_per_px, (float(x0), float(y0)), camera, fx, r_empty, bg)
    return PieceScene(seed, image, empty, camera, lay, truths, [d for d, *_ in distractors], fx, cloth_name,
                      art_seed)


# -- scoring a reading -----------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class PieceOutcome:
    """What became of one true piece: ``outcome`` is ``"right"`` (found, kind, face and
    front right), ``"misread"`` (found as another face or kind), ``"unknown"`` (reported
    as unknown) or ``"missed"`` (not reported at all). The errors are for a found piece
    (the angle for a right front only: a back may be symmetric)."""

    truth: PieceTruth
    outcome: str
    read_as: str | None = None
    position_error_mm: float | None = None
    angle_error_deg: float | None = None


@dataclass(frozen=True, eq=False)
class ReadingScore:
    """A reading of a :class:`PieceScene` against its truth. ``pieces`` has one outcome per
    true piece; ``extra`` lists the reported pieces that match none: ``("distractor", label)``
    on a distractor, ``("heap", label)`` on overlapping pieces (near no one's centre),
    ``("phantom", label)`` anywhere else."""

    pieces: list[PieceOutcome]
    extra: list[tuple[str, str]]

    def count(self, outcome: str, overlapping: bool | None = None) -> int:
        """How many true pieces had *outcome* (of those overlapping others, or not, or all)."""
        return sum(1 for p in self.pieces if p.outcome == outcome
                   and (overlapping is None or (p.truth.overlap > 0) == overlapping))

    @property
    def false_known(self) -> int:
        """Pieces reported as known that are not: misread pieces, distractors, phantoms."""
        return self.count("misread") + len(self.extra)


def _angle_diff(a: float, b: float) -> float:
    d = (a - b) % 360.0
    return min(d, 360.0 - d)


def score_reading(scene: PieceScene, result: ReadResult) -> ReadingScore:
    """Scores :func:`vision.reading.read`'s *result* (read with a calibration: centres in
    table mm) against *scene*'s truth.

    A reported piece is matched to the nearest true piece whose centre is within 35 % of
    that piece's shorter side (each report and each piece at most once, nearest pairs
    first); a true piece not matched is ``"unknown"`` when an unknown was reported as near.
    """
    art = piece_art(scene.art_seed)
    truths = scene.pieces
    reach = [0.35 * min(art[t.kind].size_mm) for t in truths]
    pairs = []
    for i, p in enumerate(result.pieces):
        for j, t in enumerate(truths):
            d = math.hypot(p.center[0] - t.center_mm[0], p.center[1] - t.center_mm[1])
            if d <= reach[j]:
                pairs.append((d, i, j))
    matched: dict[int, tuple[int, float]] = {}
    used: set[int] = set()
    for d, i, j in sorted(pairs):
        if i not in used and j not in matched:
            used.add(i)
            matched[j] = (i, d)
    unknowns = [u.center for u in result.unknown]
    free_unknown = list(unknowns)
    groups = _heaps(truths)
    outcomes = []
    for j, t in enumerate(truths):
        if j in matched:
            i, d = matched[j]
            p = result.pieces[i]
            label = _label(p)
            if label == t.label:
                err = None if t.front is None else _angle_diff(p.angle_deg, t.angle_deg)
                outcomes.append(PieceOutcome(t, "right", label, d, err))
            else:
                outcomes.append(PieceOutcome(t, "misread", label, d))
            continue
        near = [(d, k) for k, u in enumerate(free_unknown)
                if (d := math.hypot(u[0] - t.center_mm[0], u[1] - t.center_mm[1])) <= reach[j]]
        if near:
            free_unknown.pop(min(near)[1])
            outcomes.append(PieceOutcome(t, "unknown"))
        elif t.overlap > 0 and any(groups[j].contains(Point(u)) for u in unknowns):
            outcomes.append(PieceOutcome(t, "unknown"))  # one unknown blob for the pieces heaped together
        else:
            outcomes.append(PieceOutcome(t, "missed"))
    extra = []
    distractors = [Polygon(d.outline_mm).buffer(5.0) for d in scene.distractors]
    heaps = [g for g, t in zip(groups, truths, strict=True) if t.overlap > 0]
    for i, p in enumerate(result.pieces):
        if i not in used:
            at = Point(p.center)
            where = ("distractor" if any(poly.contains(at) for poly in distractors)
                     else "heap" if any(h.contains(at) for h in heaps) else "phantom")
            extra.append((where, _label(p)))
    return ReadingScore(outcomes, extra)


def _heaps(truths: list[PieceTruth]) -> list[Polygon]:
    """Per piece: the union of it and every piece it overlaps, directly or through others."""
    polys = [Polygon(t.outline_mm) for t in truths]
    heap = list(range(len(truths)))

    def root(i: int) -> int:
        while heap[i] != i:
            i = heap[i]
        return i

    for i in range(len(truths)):
        for j in range(i + 1, len(truths)):
            if polys[i].intersects(polys[j]):
                heap[root(i)] = root(j)
    members: dict[int, list[Polygon]] = {}
    for i, p in enumerate(polys):
        members.setdefault(root(i), []).append(p)
    unions = {r: unary_union(ps) for r, ps in members.items()}
    return [unions[root(i)] for i in range(len(truths))]


def _label(piece: FoundPiece) -> str:
    return f"{piece.kind}/{piece.front if piece.front is not None else 'back'}"
