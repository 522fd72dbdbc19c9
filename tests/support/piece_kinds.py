"""The synthetic game pieces' art, and a library of them, for :mod:`tests.support.synth_pieces`.

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

:func:`make_library` registers each face from a clean flat "photo" of its art
(:func:`face_photo`: the art alone on a contrasting plain background), as a host would from
good photos.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from tests.support.piece_drawing import (
    TEXTURE_PX_PER_MM,
    Bgr,
    circle,
    disc_mask,
    finish,
    jitter,
    poly,
    pt,
    put_text,
    px,
    rounded_mask,
    shade,
    star,
)
from vision.library import Library


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


# coins --------------------------------------------------------------------------------------------

COIN_MM = 25.0
_METALS: tuple[Bgr, ...] = ((60, 175, 215), (195, 195, 188), (80, 125, 195))  # gold, silver, copper
_RING_COLOURS: tuple[Bgr, ...] = ((40, 40, 200), (180, 90, 30), (50, 140, 40), (140, 40, 130),
                                  (30, 30, 30), (20, 120, 235))


def _coin_front(value: int, rng: np.random.Generator) -> np.ndarray:
    s = px(COIN_MM)
    c = (COIN_MM / 2, COIN_MM / 2)
    metal = jitter(rng, _METALS[(value - 1) % 3], 8)
    ring = jitter(rng, _RING_COLOURS[value - 1], 10)
    img = np.zeros((s, s, 3), np.uint8)
    img[:] = metal
    circle(img, c, COIN_MM / 2 - 0.5, shade(metal, 0.7), 1.0)  # the milled rim
    r = COIN_MM / 2 * 0.74
    phase = float(rng.uniform(0, 2 * math.pi))
    if value == 1:  # a solid ring
        circle(img, c, r, ring, 1.8)
    elif value == 2:  # two thin rings
        circle(img, c, r - 1.3, ring, 0.7)
        circle(img, c, r + 1.0, ring, 0.7)
    elif value == 3:  # twelve dashes
        for i in range(12):
            a0 = phase + i * math.pi / 6
            arc = [(c[0] + r * math.cos(a0 + t), c[1] + r * math.sin(a0 + t)) for t in np.linspace(0, 0.3, 6)]
            poly(img, arc, ring, 1.4, closed=False)
    elif value == 4:  # sixteen dots
        for i in range(16):
            a = phase + i * math.pi / 8
            circle(img, (c[0] + r * math.cos(a), c[1] + r * math.sin(a)), 0.8, ring)
    elif value == 5:  # a zigzag
        radii = [r + (1.2 if i % 2 else -1.2) for i in range(28)]
        turns = [phase + i * math.pi / 14 for i in range(28)]
        pts = [(c[0] + ri * math.cos(a), c[1] + ri * math.sin(a)) for ri, a in zip(radii, turns, strict=True)]
        poly(img, pts, ring, 0.6)
    else:  # eight teeth pointing out
        for i in range(8):
            a = phase + i * math.pi / 4
            tip = (c[0] + (r + 1.8) * math.cos(a), c[1] + (r + 1.8) * math.sin(a))
            left = (c[0] + (r - 1.2) * math.cos(a - 0.22), c[1] + (r - 1.2) * math.sin(a - 0.22))
            right = (c[0] + (r - 1.2) * math.cos(a + 0.22), c[1] + (r - 1.2) * math.sin(a + 0.22))
            poly(img, [tip, right, left], ring)
    put_text(img, str(value), (c[0], c[1] - 0.3), 9.0, (35, 35, 45), 1.1)
    poly(img, [(c[0] - 2.5, c[1] + 6.2), (c[0] + 2.5, c[1] + 6.2)], ring, 0.8, closed=False)  # underline
    return img


def _coin_back(rng: np.random.Generator) -> np.ndarray:
    s = px(COIN_MM)
    c = (COIN_MM / 2, COIN_MM / 2)
    body = jitter(rng, (120, 110, 30), 8)  # teal
    img = np.zeros((s, s, 3), np.uint8)
    img[:] = body
    circle(img, c, COIN_MM / 2 - 0.6, (200, 220, 225), 0.8)
    for i in range(8):
        a = i * math.pi / 4
        spoke = [(c[0] + 3.5 * math.cos(a), c[1] + 3.5 * math.sin(a)),
                 (c[0] + 10.5 * math.cos(a), c[1] + 10.5 * math.sin(a))]
        poly(img, spoke, (200, 220, 225), 0.9, closed=False)
    cv2.ellipse(img, pt(*c), (px(3.2), px(1.8)), 0, 0, 360, (60, 210, 240), -1, cv2.LINE_AA)
    circle(img, c, 0.9, (20, 20, 20))
    return img


# chamber tiles ------------------------------------------------------------------------------------

TILE_MM = 50.0
_STONES: tuple[Bgr, ...] = ((150, 152, 150), (125, 170, 200))  # grey, sand
CHAMBERS = ("hall", "cross", "pit", "treasure", "dragon", "stairs")


def _tile_floor(stone: Bgr) -> np.ndarray:
    s = px(TILE_MM)
    img = np.zeros((s, s, 3), np.uint8)
    img[:] = stone
    line = shade(stone, 0.82)
    for k in range(1, 5):
        v = k * TILE_MM / 5
        poly(img, [(v, 0), (v, TILE_MM)], line, 0.35, closed=False)
        poly(img, [(0, v), (TILE_MM, v)], line, 0.35, closed=False)
    return img


def _tile_front(name: str, i: int, rng: np.random.Generator) -> np.ndarray:
    stone = jitter(rng, _STONES[i % 2], 8)
    img = _tile_floor(stone)
    dark = shade(stone, 0.45)
    T = TILE_MM
    if name == "hall":  # a passage across, with pillars
        poly(img, [(2, 19), (T - 2, 19), (T - 2, 33), (2, 33)], dark)
        for x in (9.0, 21.0, 33.0, 45.0):
            poly(img, [(x - 2, 14), (x + 2, 14), (x + 2, 17), (x - 2, 17)], (70, 70, 75))
            poly(img, [(x - 2, 35), (x + 2, 35), (x + 2, 38), (x - 2, 38)], (70, 70, 75))
    elif name == "cross":  # crossing passages and a well
        poly(img, [(2, 21), (T - 2, 21), (T - 2, 33), (2, 33)], dark)
        poly(img, [(19, 11), (31, 11), (31, T - 2), (19, T - 2)], dark)
        circle(img, (25, 27), 3.5, (150, 90, 40))
    elif name == "pit":  # concentric rings into the dark
        for r, f in ((16.0, 0.7), (12.0, 0.5), (8.0, 0.3), (4.0, 0.1)):
            circle(img, (25, 29), r, shade(stone, f))
    elif name == "treasure":  # a chest and gold
        poly(img, [(12, 21), (38, 21), (38, 39), (12, 39)], (30, 75, 120))
        poly(img, [(12, 21), (38, 21), (38, 26), (12, 26)], (40, 190, 230))
        poly(img, [(23, 28), (27, 28), (27, 32), (23, 32)], (40, 190, 230))
        for x, y in ((8.0, 43.0), (14.0, 45.0), (41.0, 43.0), (44.0, 16.0)):
            circle(img, (x, y), 2.0, (40, 200, 240))
    elif name == "dragon":  # red wings and an eye
        wings = [(25, 18), (45, 12), (38, 28), (44, 40), (25, 32), (6, 40), (12, 28), (5, 12)]
        poly(img, wings, (40, 40, 185))
        cv2.ellipse(img, pt(25, 26), (px(4), px(2)), 0, 0, 360, (40, 210, 240), -1, cv2.LINE_AA)
        circle(img, (25, 26), 1.2, (20, 20, 20))
    else:  # stairs: steps going down to the right
        for k in range(6):
            x = 14 + 5.5 * k
            poly(img, [(x, 12), (x + 5.5, 12), (x + 5.5, 44), (x, 44)], shade(stone, 0.95 - 0.13 * k))
            poly(img, [(x, 12), (x, 44)], shade(stone, 0.3), 0.4, closed=False)
    # a thin edge, and the name on a plaque near the top
    poly(img, [(0, 0), (T, 0), (T, T), (0, T)], shade(stone, 0.6), 1.0)
    poly(img, [(7, 2.5), (T - 7, 2.5), (T - 7, 9.5), (7, 9.5)], (45, 45, 50))
    put_text(img, name.upper(), (T / 2, 6.0), 4.0, (225, 230, 235), 0.45, cv2.FONT_HERSHEY_SIMPLEX)
    return img


def _tile_back(rng: np.random.Generator) -> np.ndarray:
    s = px(TILE_MM)
    body = jitter(rng, (45, 80, 125), 8)  # brown
    img = np.zeros((s, s, 3), np.uint8)
    img[:] = body
    hatch = shade(body, 1.45)
    for k in range(-10, 11):
        x = k * 5.0
        poly(img, [(x, 0), (x + TILE_MM, TILE_MM)], hatch, 0.5, closed=False)
    poly(img, [(0, 0), (TILE_MM, 0), (TILE_MM, TILE_MM), (0, TILE_MM)], (110, 170, 210), 2.0)
    circle(img, (25, 25), 10, (30, 50, 80))
    poly(img, [(25, 17), (25, 33)], (70, 200, 230), 1.2, closed=False)
    poly(img, [(25, 20), (31, 25), (25, 30)], (70, 200, 230), 1.2, closed=False)
    return img


# cards --------------------------------------------------------------------------------------------

CARD_MM = (57.0, 88.0)
CARDS = ("knight", "wizard", "archer", "healer", "thief", "giant")
_SUITS: tuple[Bgr, ...] = ((50, 50, 180), (170, 100, 40), (60, 140, 60))  # red, blue, green


def _card_picture(img: np.ndarray, name: str) -> None:
    """The card's own picture, in the box x 8-49, y 17-55 mm."""
    cx, cy = 28.5, 36.0
    if name == "knight":  # a shield with a cross, a sword behind
        poly(img, [(cx + 12, 19), (cx + 20, 27)], (90, 90, 95), 1.6, closed=False)
        poly(img, [(cx - 12, 20), (cx + 12, 20), (cx + 12, 34), (cx, 52), (cx - 12, 34)], (150, 150, 155))
        poly(img, [(cx - 2.5, 24), (cx + 2.5, 24), (cx + 2.5, 44), (cx - 2.5, 44)], (40, 40, 190))
        poly(img, [(cx - 9, 29), (cx + 9, 29), (cx + 9, 34), (cx - 9, 34)], (40, 40, 190))
    elif name == "wizard":  # a pointed hat and stars
        poly(img, [(cx - 14, 50), (cx + 14, 50), (cx + 3, 20)], (140, 40, 120))
        poly(img, [(cx - 18, 50), (cx + 18, 50), (cx + 18, 53), (cx - 18, 53)], (110, 30, 95))
        for (sx, sy), r in (((cx - 12, 24), 3.5), ((cx + 13, 30), 2.5), ((cx - 3, 40), 2.5)):
            poly(img, star((sx, sy), r, r * 0.45, 5), (30, 190, 235))
    elif name == "archer":  # a bow and an arrow
        cv2.ellipse(img, pt(cx - 8, cy), (px(12), px(17)), 0, -80, 80, (40, 80, 130), px(1.8),
                    cv2.LINE_AA)
        poly(img, [(cx - 6, cy - 16.7), (cx - 6, cy + 16.7)], (60, 60, 60), 0.4, closed=False)
        poly(img, [(cx - 14, cy + 9), (cx + 16, cy - 9)], (50, 50, 50), 0.8, closed=False)
        poly(img, [(cx + 18, cy - 10.2), (cx + 12.5, cy - 9.5), (cx + 15.5, cy - 5.5)], (50, 50, 50))
    elif name == "healer":  # a green cross on a white disc
        circle(img, (cx, cy), 15, (240, 240, 240))
        circle(img, (cx, cy), 15, (60, 140, 60), 1.0)
        poly(img, [(cx - 3.5, cy - 11), (cx + 3.5, cy - 11), (cx + 3.5, cy + 11), (cx - 3.5, cy + 11)],
             (60, 160, 60))
        poly(img, [(cx - 11, cy - 3.5), (cx + 11, cy - 3.5), (cx + 11, cy + 3.5), (cx - 11, cy + 3.5)],
             (60, 160, 60))
    elif name == "thief":  # a mask and a dagger
        cv2.ellipse(img, pt(cx, cy - 6), (px(16), px(6)), 0, 0, 360, (35, 35, 40), -1, cv2.LINE_AA)
        for dx in (-7.0, 7.0):
            cv2.ellipse(img, pt(cx + dx, cy - 6), (px(3.5), px(2)), 0, 0, 360, (235, 240, 245), -1,
                        cv2.LINE_AA)
        poly(img, [(cx - 1, cy + 2), (cx + 1, cy + 2), (cx + 1, cy + 14), (cx, cy + 18), (cx - 1, cy + 14)],
             (170, 170, 175))
        poly(img, [(cx - 5, cy + 1), (cx + 5, cy + 1), (cx + 5, cy + 3), (cx - 5, cy + 3)], (40, 80, 120))
    else:  # giant: a big head and a club
        circle(img, (cx - 4, cy - 4), 11, (90, 140, 190))
        circle(img, (cx - 8, cy - 6), 1.6, (20, 20, 20))
        circle(img, (cx + 0, cy - 6), 1.6, (20, 20, 20))
        poly(img, [(cx - 9, cy + 1), (cx + 1, cy + 1)], (20, 20, 20), 0.8, closed=False)
        club = [(cx + 9, cy + 16), (cx + 13, cy - 12), (cx + 19, cy - 11), (cx + 12, cy + 17)]
        poly(img, club, (30, 70, 110))


def _card_front(name: str, i: int, rng: np.random.Generator) -> np.ndarray:
    w, h = CARD_MM
    paper = jitter(rng, (225, 238, 244), 5)
    suit = jitter(rng, _SUITS[i % 3], 10)
    img = np.zeros((px(h), px(w), 3), np.uint8)
    img[:] = paper
    poly(img, [(3, 3), (w - 3, 3), (w - 3, h - 3), (3, h - 3)], suit, 1.6)  # the frame
    poly(img, [(3, 3), (w - 3, 3), (w - 3, 14), (3, 14)], suit)  # the title band
    put_text(img, name.upper(), (w / 2 + 3, 8.6), 5.0, (245, 245, 245), 0.55, cv2.FONT_HERSHEY_SIMPLEX)
    circle(img, (8.5, 8.5), 4.2, (40, 40, 40))
    put_text(img, str(2 + i % 5), (8.5, 8.5), 4.0, (245, 245, 245), 0.6, cv2.FONT_HERSHEY_SIMPLEX)
    _card_picture(img, name)
    for k in range(4):  # the rules text, as grey bars of this card's own lengths
        length = 38.0 - 6.0 * ((i + k) % 4)
        poly(img, [(9, 61 + 5.5 * k), (9 + length, 61 + 5.5 * k), (9 + length, 63 + 5.5 * k),
                   (9, 63 + 5.5 * k)], (120, 120, 120))
    return img


def _card_back(rng: np.random.Generator) -> np.ndarray:
    w, h = CARD_MM
    img = np.zeros((px(h), px(w), 3), np.uint8)
    img[:] = (235, 240, 242)
    navy = jitter(rng, (95, 45, 25), 6)
    poly(img, [(3.5, 3.5), (w - 3.5, 3.5), (w - 3.5, h - 3.5), (3.5, h - 3.5)], navy)
    line = shade(navy, 1.8)
    for k in range(-12, 13):
        x = k * 7.0
        poly(img, [(x, 0), (x + h, h)], line, 0.5, closed=False)
        poly(img, [(x + h, 0), (x, h)], line, 0.5, closed=False)
    poly(img, [(0, 0), (w, 0), (w, h), (0, h)], (235, 240, 242), 3.5)  # the white border, again on top
    cv2.ellipse(img, pt(w / 2, h / 2), (px(14), px(22)), 0, 0, 360, (50, 180, 220), -1, cv2.LINE_AA)
    cv2.ellipse(img, pt(w / 2, h / 2), (px(10), px(17)), 0, 0, 360, navy, -1, cv2.LINE_AA)
    poly(img, star((w / 2, h / 2 - 4), 6, 2.5, 4), (50, 180, 220))
    return img


@functools.lru_cache(maxsize=4)
def piece_art(seed: int = 0) -> dict[str, KindArt]:
    """The three kinds' art (see the module's docstring), the same for the same *seed*:
    the seed varies colours and the coins' pattern phase, never the design."""
    streams = [np.random.default_rng(s) for s in np.random.SeedSequence([seed, 0x9A7]).spawn(3)]
    r_coin, r_tile, r_card = streams
    coin_mask = disc_mask(COIN_MM)
    tile_mask = rounded_mask(TILE_MM, TILE_MM, 1.0)
    card_mask = rounded_mask(*CARD_MM, 3.0)
    kinds: dict[str, KindArt] = {}
    for name, shape, size, mask, fronts, back in (
            ("coin", "disc", (COIN_MM, COIN_MM), coin_mask,
             {str(v): _coin_front(v, r_coin) for v in range(1, 7)}, _coin_back(r_coin)),
            ("chamber", "rect", (TILE_MM, TILE_MM), tile_mask,
             {n: _tile_front(n, i, r_tile) for i, n in enumerate(CHAMBERS)}, _tile_back(r_tile)),
            ("card", "rect", CARD_MM, card_mask,
             {n: _card_front(n, i, r_card) for i, n in enumerate(CARDS)}, _card_back(r_card))):
        done = {k: finish(v, mask) for k, v in fronts.items()}
        back_img, small_mask = finish(back, mask)
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
