"""ArUco markers on paper: a marker's cells, the sticker and ink of one placed anywhere, and the
room the table markers' stickers take up on the table.
"""

from __future__ import annotations

import cv2
import numpy as np
from shapely.geometry import box
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from tests.support.synth.raster import _transform
from vision import geometry
from vision.layout import Layout

QUIET_CELLS = (1.0, 1.4)
"""Range of the white margin around a table marker, in marker cells."""

_BITS: dict[tuple[str, int], np.ndarray] = {}


def _marker_bits(dictionary: str, marker_id: int) -> np.ndarray:
    """The marker's cells with its black border, (n+2, n+2) bool, True = black, as cv2.aruco draws it."""
    key = (dictionary, marker_id)
    if key not in _BITS:
        d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
        n = int(d.markerSize) + 2
        img = np.asarray(cv2.aruco.generateImageMarker(d, marker_id, n))
        _BITS[key] = img < 128
    return _BITS[key]


_INK: dict[tuple[str, int], BaseGeometry] = {}


def _marker_geoms(dictionary: str, marker_id: int, corners: np.ndarray, quiet_cells: float,
                  ) -> tuple[BaseGeometry, BaseGeometry]:
    """The white sticker (marker plus *quiet_cells* of margin) and the black ink of a marker
    whose outer corners (TL, TR, BR, BL) are at *corners* (4, 2), both in *corners*' frame."""
    key = (dictionary, marker_id)
    bits = _marker_bits(dictionary, marker_id)
    n = bits.shape[0]
    if key not in _INK:
        cells = [box(c / n, r / n, (c + 1) / n, (r + 1) / n) for r, c in zip(*np.nonzero(bits), strict=True)]
        _INK[key] = unary_union(cells)
    q = quiet_cells / n
    sticker = box(-q, -q, 1 + q, 1 + q)
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    H = np.asarray(cv2.getPerspectiveTransform(unit, np.asarray(corners, np.float32)), np.float64)
    return _transform(sticker, H), _transform(_INK[key], H)


def _marker_side(corners: np.ndarray) -> float:
    """Mean side length of a square marker's corners (4, 2)."""
    return float(np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1).mean())


def _sticker_keep_out(layout: Layout) -> list[BaseGeometry]:
    """Each table marker's square grown by the widest quiet zone: where its sticker may be, mm."""
    out: list[BaseGeometry] = []
    for m in layout.table_markers:
        cell = _marker_side(m.corners_mm) / _marker_bits(layout.dictionary, m.id).shape[0]
        out.append(geometry.polygon(m.corners_mm).buffer(QUIET_CELLS[1] * cell, join_style="mitre"))
    return out


def table_area(layout: Layout) -> tuple[float, float]:
    """The play area's (width, height) mm: the layout's, else what the table markers span."""
    if layout.play_area_mm is not None:
        return layout.play_area_mm
    pts = np.vstack([m.corners_mm for m in layout.table_markers])
    return float(pts[:, 0].max() + 10.0), float(pts[:, 1].max() + 10.0)
