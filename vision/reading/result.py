"""What a reading returns: the pieces identified, and what could not be."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class FoundPiece:
    """A piece read on the table.

    ``center`` is in table mm when ``in_mm`` (a calibration was given), else in the frame's
    pixels. ``angle_deg`` is the direction of the piece's top edge (left to right as stored in
    the library), clockwise from the +x axis (y points down), 0-360. ``confidence`` is 0-1: how
    far the match clears the reader's bars (it ranks answers; it is not a probability);
    ``score`` is the face's correlation and ``margin`` its lead over the next face.
    ``outline_px`` is the fitted outline in the frame's pixels, for drawing it over the photo.
    """

    kind: str
    face: str
    front: str | None
    center: tuple[float, float]
    in_mm: bool
    angle_deg: float
    confidence: float
    score: float
    margin: float
    outline_px: tuple[tuple[float, float], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """``{"kind", "face", "front", "center_mm" or "center_px", "angle_deg", "confidence"}``."""
        return {"kind": self.kind, "face": self.face, "front": self.front,
                "center_mm" if self.in_mm else "center_px": _rounded(self.center),
                "angle_deg": round(self.angle_deg, 1), "confidence": round(self.confidence, 3)}


@dataclass(frozen=True)
class UnknownPiece:
    """Something on the table that is no piece of the library, or none surely enough.

    ``best`` (``"kind/front"`` or ``"kind/back"``), ``score`` and ``margin`` say what it was
    nearest to when it fitted a kind's shape at all; they are for diagnosis, not for use.
    ``outline_px`` is its outline, in the frame's pixels.
    """

    center: tuple[float, float]
    in_mm: bool
    best: str | None = None
    score: float | None = None
    margin: float | None = None
    outline_px: tuple[tuple[float, float], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """``{"center_mm" or "center_px": [x, y]}``."""
        return {"center_mm" if self.in_mm else "center_px": _rounded(self.center)}


@dataclass(frozen=True)
class ReadResult:
    """What a reading found: the pieces it identified, and what it could not."""

    pieces: tuple[FoundPiece, ...]
    unknown: tuple[UnknownPiece, ...]

    def to_json(self) -> dict[str, Any]:
        """``{"pieces": [...], "unknown": [...]}`` as documented on each."""
        return {"pieces": [p.to_json() for p in self.pieces], "unknown": [u.to_json() for u in self.unknown]}


def _rounded(point: tuple[float, float]) -> list[float]:
    return [round(point[0], 2), round(point[1], 2)]
