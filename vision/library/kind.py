"""A kind of piece: its outline's shape and size, and the scale its faces are stored at.

Kind and front names (:data:`NAME`) become file names in the library's folder.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

SHAPES = ("disc", "rect")
"""The outlines a kind may have: a disc (round) or a rect (four corners)."""
PX_PER_MM = 4.0
"""The scale of the stored images: 4 px/mm keeps a card's print (lines ~0.7 mm) a few
pixels wide, and a 57 x 88 mm card at 228 x 352 px, about 100 kB of PNG."""
MAX_SIDE_PX = 1024
"""A piece larger than 256 mm (a board) is stored at a lower scale, this many px along its
longer side."""
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
"""Kind and front names become file names: letters, digits, '.', '_' and '-'."""


@dataclass(frozen=True)
class PieceKind:
    """One kind of piece: its outline's shape and its size in mm (width, height as stored;
    for a disc both are the diameter)."""

    name: str
    shape: str
    size_mm: tuple[float, float]

    @property
    def is_square(self) -> bool:
        """Whether a quarter turn leaves the outline unchanged (a disc, or a square tile)."""
        w, h = self.size_mm
        return self.shape == "disc" or abs(w - h) <= 0.02 * max(w, h)

    @property
    def area_mm2(self) -> float:
        """The piece's area in mm² (a disc's is its circle's)."""
        w, h = self.size_mm
        return w * h * (math.pi / 4 if self.shape == "disc" else 1.0)

    @property
    def aspect(self) -> float:
        """Shorter side over longer side (1.0 for a disc)."""
        w, h = self.size_mm
        return min(w, h) / max(w, h)

    @property
    def px_per_mm(self) -> float:
        """The scale of this kind's stored images, px/mm."""
        return min(PX_PER_MM, MAX_SIDE_PX / max(self.size_mm))

    @property
    def size_px(self) -> tuple[int, int]:
        """``(width, height)`` of this kind's stored images in px."""
        s = self.px_per_mm
        return max(8, round(self.size_mm[0] * s)), max(8, round(self.size_mm[1] * s))
