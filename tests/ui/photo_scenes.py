"""Close-up photos of a few pieces on plain cloth, and a piece library to read them with, for the
scoring screens' photo journeys (tests/ui/journeys/photo.py).

The pieces are :mod:`tests.support.synth_pieces`' drawn art, registered under the names the games read
(README, "Scores from a photo"): the synthetic coins' six fronts stand in for Dragon's Gold's
treasure discs and, as ``1``-``3``, for Drakon's coins; the synthetic cards' six fronts for Gold!
cards (one of them under a name that is no card); a chamber tile is a piece of another kind.
Each photo is composed top-down, the pieces well apart on felt, where the reader is reliable;
the journeys still compare what the screen shows with what :func:`vision.reading.read` reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from tests.support.synth_pieces import KindArt, face_photo, piece_art
from vision.library import Library

TREASURE_FRONTS = {"1": "silver", "2": "gold", "3": "red", "4": "green", "5": "blue", "6": "purple"}
"""The synthetic coins' fronts, registered as Dragon's Gold treasure discs."""
COIN_FRONTS = {"1": "1", "2": "2", "3": "3"}
"""The synthetic coins' fronts registered as Drakon's coins."""
CARD_FRONTS = {"knight": "red-5", "wizard": "blue-donkey", "archer": "green-8", "healer": "purple-3",
               "thief": "orange-4", "giant": "joker"}
"""The synthetic cards' fronts, registered as Gold! cards ("joker" is no card of the game)."""


@dataclass(frozen=True)
class Laid:
    """One piece in a photo: its art (``coin``, ``card`` or ``chamber``), the art's front (None:
    face down), where its centre is (px) and its turn (degrees, counter-clockwise); or, with
    *art* ``blob``, a lump of modelling clay that is no piece."""

    art: str
    front: str | None
    x: int
    y: int
    angle: float = 0.0


@dataclass(frozen=True)
class Photo:
    size: tuple[int, int]
    px_per_art_px: float
    pieces: tuple[Laid, ...]


PHOTOS: dict[str, Photo] = {
    # Anna's treasure: 2 silver, a gold, a red, a disc face down, a chamber tile, a purple.
    "treasure": Photo((960, 760), 1.6, (
        Laid("coin", "1", 150, 150, 10), Laid("coin", "1", 400, 150, 80), Laid("coin", "2", 650, 150, 200),
        Laid("coin", "3", 150, 420, 30), Laid("coin", None, 400, 420), Laid("chamber", "hall", 700, 460, 15),
        Laid("coin", "6", 150, 620))),
    # Anna's coins at the reveal: 3, 1, 2, 3, one still face down, and a lump of clay.
    "coins": Photo((960, 720), 1.6, (
        Laid("coin", "3", 160, 170, 10), Laid("coin", "1", 480, 170, 70), Laid("coin", "2", 800, 190, 200),
        Laid("coin", None, 300, 520), Laid("coin", "3", 640, 530, 300), Laid("blob", None, 860, 560))),
    # Anna's display: red 5, blue donkey, green 8, a "joker", one face down, purple 3.
    "cards": Photo((1280, 800), 0.8, (
        Laid("card", "knight", 180, 200, 5), Laid("card", "wizard", 480, 200, -10),
        Laid("card", "archer", 800, 200, 90), Laid("card", "giant", 1100, 200),
        Laid("card", None, 180, 580), Laid("card", "healer", 520, 580, 30))),
}


def art() -> dict[str, KindArt]:
    return piece_art(0)


LIBRARIES: dict[str, tuple[str, ...]] = {"treasure": ("treasure", "chamber"), "coins": ("coin",),
                                          "cards": ("card", "chamber")}
"""The kinds each photo's library holds: a table's library holds its own game's pieces (the
treasure and the coins are the same drawn discs, which one library could not tell apart)."""


def make_library(root: Path, kinds: tuple[str, ...]) -> Library:
    """A piece library with *kinds*: ``treasure``, ``coin``, ``card`` and ``chamber``."""
    drawn = art()
    coin, card, tile = drawn["coin"], drawn["card"], drawn["chamber"]
    library = Library.create(root)
    for kind, fronts in (("treasure", TREASURE_FRONTS), ("coin", COIN_FRONTS)):
        if kind in kinds:
            for front, name in fronts.items():
                library.register(kind, "disc", coin.size_mm, face_photo(coin, front), front=name)
            library.register(kind, "disc", coin.size_mm, face_photo(coin, None), back=True)
    if "card" in kinds:
        for front, name in CARD_FRONTS.items():
            library.register("card", "rect", card.size_mm, face_photo(card, front), front=name)
        library.register("card", "rect", card.size_mm, face_photo(card, None), back=True)
    if "chamber" in kinds:
        library.register("chamber", "rect", tile.size_mm, face_photo(tile, "hall"), front="hall")
    return library


def render(photo: Photo) -> np.ndarray:
    """The photo, BGR: green felt with a little noise, each piece pasted on it, turned."""
    width, height = photo.size
    rng = np.random.default_rng(7)
    felt = np.full((height, width, 3), (40, 90, 40), np.int16) + rng.integers(-6, 7, (height, width, 3))
    canvas = np.clip(felt, 0, 255).astype(np.float32)
    kinds = art()
    for laid in photo.pieces:
        if laid.art == "blob":
            face = np.zeros((90, 150, 3), np.uint8)
            face[:] = (40, 60, 220)  # red clay
            mask = np.zeros((90, 150), np.float32)
            cv2.ellipse(mask, (75, 45), (70, 40), 0, 0, 360, 1.0, -1)
        else:
            kind = kinds[laid.art]
            face = cv2.resize(kind.face(laid.front), None, fx=photo.px_per_art_px, fy=photo.px_per_art_px,
                              interpolation=cv2.INTER_AREA)
            mask = cv2.resize(kind.mask, None, fx=photo.px_per_art_px, fy=photo.px_per_art_px,
                              interpolation=cv2.INTER_AREA)
        _paste(canvas, face, mask, laid)
    return np.clip(np.round(canvas), 0, 255).astype(np.uint8)


def _paste(canvas: np.ndarray, face: np.ndarray, mask: np.ndarray, laid: Laid) -> None:
    h, w = mask.shape
    side = int(np.ceil(np.hypot(h, w)))
    big = np.zeros((side, side, 3), np.float32)
    big_mask = np.zeros((side, side), np.float32)
    top, left = (side - h) // 2, (side - w) // 2
    big[top:top + h, left:left + w] = face
    big_mask[top:top + h, left:left + w] = mask
    turn = cv2.getRotationMatrix2D((side / 2, side / 2), laid.angle, 1.0)
    big = cv2.warpAffine(big, turn, (side, side))
    big_mask = cv2.warpAffine(big_mask, turn, (side, side))[..., None]
    y0, x0 = laid.y - side // 2, laid.x - side // 2
    region = canvas[y0:y0 + side, x0:x0 + side]
    assert region.shape[:2] == (side, side), f"{laid} does not fit in the photo"
    canvas[y0:y0 + side, x0:x0 + side] = big * big_mask + region * (1 - big_mask)


def set_up(data_home: Path, tmp: Path, photo: str) -> Path:
    """The app's piece library in its data folder (``<data>/table-companion/vision/library``) and
    the photo *photo* as a PNG the camera source reads; returns the photo's path."""
    make_library(data_home / "table-companion" / "vision" / "library", LIBRARIES[photo])
    path = tmp / f"{photo}.png"
    cv2.imwrite(str(path), render(PHOTOS[photo]))
    return path
