"""Registration: finding the one piece in a photo or scan and flattening it to its stored size.

:func:`normalise` turns a registration image into the face's stored image; :func:`find_piece`
finds the piece against the surface round it; :func:`whole_image_frame` takes the whole image
as the piece (a full-bleed scan).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.library.frames import RECT_FILL_MIN, UNIT_SQUARE, fit_disc, fit_rect, frame_points, warp
from vision.library.kind import PieceKind

PIECE_AREA_MIN = 0.03
"""Registration: a piece found in a photo covers at least this share of it."""
PIECE_AREA_ALONE = 0.10
"""... and below this share only when nothing else in the photo stands out from the surface
(:data:`STRAY_SHARE_MAX`): else it is print on a piece that fills the image (a scan)."""
STRAY_SHARE_MAX = 0.01
"""The share of a photo outside a small piece that may stand out from the surface (specks)."""

SURFACE_SIGMAS = 6.0
"""Registration: a pixel is the piece when its colour is this many of the surface's spreads
away from the surface's (what the photo's border shows)."""
SURFACE_SPREAD_MIN = 0.6
"""The least spread taken for a surface's colour (CIELAB): an 8-bit image's own rounding."""
SURFACE_SPREAD_STRICT = 2.0
"""... and the least taken where nothing of the kind's shape stands out by that: a plain
surface's noise."""
FULL_BLEED_SHARE = 0.8
"""A piece found spanning this share of a registration image both ways means the image is the
piece (a scan): a photo of a piece on a surface shows the surface round it."""


def normalise(image: np.ndarray, kind: PieceKind) -> np.ndarray:
    """*image* holding one piece of *kind* -> the piece flat and upright at the kind's
    :attr:`PieceKind.size_px` (BGR uint8). The piece is the largest region that stands out
    from the surface round it (:func:`find_piece`), covers :data:`PIECE_AREA_MIN` of the
    image and fits the kind's shape; failing that, or when it spans the image
    (:data:`FULL_BLEED_SHARE`), the image is taken to be the piece."""
    frame = find_piece(image, kind)
    if frame is None or _fills_image(frame, image.shape):
        # a full-bleed scan: what stood out was a line printed on the face, not its edge
        frame = whole_image_frame(image.shape[1], image.shape[0], kind)
    w, h = kind.size_px
    return warp(image, frame, (w, h))


def find_piece(image: np.ndarray, kind: PieceKind) -> np.ndarray | None:
    """The frame (see :func:`warp`) of the one piece of *kind* in *image*, in pixels, or None
    when nothing fitting stands out from the surface round it.

    The surface is what the image's border shows: a pixel is the piece where its colour
    (CIELAB) is :data:`SURFACE_SIGMAS` of the border's own spread away from the border's. The
    spread is first taken down to :data:`SURFACE_SPREAD_MIN` (a faint rim is the piece's);
    where nothing of the kind's shape stands out so, down to :data:`SURFACE_SPREAD_STRICT`
    only (the faint difference was something round the piece, such as its shadow)."""
    scale = min(1.0, 800.0 / max(image.shape[:2]))
    small = image if scale == 1.0 else np.asarray(
        cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), np.uint8)
    lab = np.asarray(cv2.cvtColor(cv2.GaussianBlur(small.astype(np.float32) / 255.0, (0, 0), 1.0),
                                  cv2.COLOR_BGR2Lab), np.float32)
    h, w = lab.shape[:2]
    band = max(2, round(0.03 * min(h, w)))
    ring = np.concatenate([lab[:band].reshape(-1, 3), lab[-band:].reshape(-1, 3),
                           lab[:, :band].reshape(-1, 3), lab[:, -band:].reshape(-1, 3)])
    surface = np.median(ring, axis=0)
    for least in (SURFACE_SPREAD_MIN, SURFACE_SPREAD_STRICT):
        spread = np.maximum(1.4826 * np.median(np.abs(ring - surface), axis=0), least)
        mask = (np.sqrt((((lab - surface) / spread) ** 2).sum(axis=2)) > SURFACE_SIGMAS).astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        # the outline's own pixels are part piece, part surface: one pixel in is the piece
        mask = np.asarray(cv2.erode(mask, np.ones((3, 3), np.uint8)), np.uint8)
        frame = _piece_in(mask, kind, scale)
        if frame is not None:
            return frame
    return None


def _piece_in(mask: np.ndarray, kind: PieceKind, scale: float) -> np.ndarray | None:
    """The frame of the largest part of *mask* (of an image shrunk by *scale*) that has the
    shape of *kind*, or None."""
    h, w = mask.shape
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    area_min = PIECE_AREA_MIN * h * w
    for c in sorted(contours, key=cv2.contourArea, reverse=True):
        if cv2.contourArea(c) < area_min:
            break
        if cv2.contourArea(c) < PIECE_AREA_ALONE * h * w and _stray(mask, c) > STRAY_SHARE_MAX:
            continue
        pts = (np.asarray(c, np.float32).reshape(-1, 2) + 0.5) / scale - 0.5
        if kind.shape == "rect":
            # the smallest rectangle round it: a tile's rounded corners are inside it
            box = np.asarray(cv2.boxPoints(cv2.minAreaRect(pts)), np.float32)
            fill = cv2.contourArea(pts) / max(cv2.contourArea(box), 1e-6)
            frame = fit_rect(box, kind) if fill >= RECT_FILL_MIN else None
        else:
            frame = fit_disc(pts, kind)
        if frame is not None:
            return frame
    return None


def _stray(mask: np.ndarray, contour: np.ndarray) -> float:
    """The share of *mask*'s pixels outside *contour* (grown by a few pixels) that are set."""
    inside = np.zeros_like(mask)
    cv2.drawContours(inside, [contour], -1, 1, cv2.FILLED)
    inside = cv2.dilate(inside, np.ones((7, 7), np.uint8))
    outside = inside == 0
    return float(mask[outside].mean()) if outside.any() else 0.0


def _fills_image(frame: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Whether the piece at *frame* spans :data:`FULL_BLEED_SHARE` of the image both ways."""
    corners = frame_points(frame, UNIT_SQUARE.astype(np.float64))
    span = corners.max(axis=0) - corners.min(axis=0)
    return bool(span[0] >= FULL_BLEED_SHARE * shape[1] and span[1] >= FULL_BLEED_SHARE * shape[0])


def whole_image_frame(width_px: int, height_px: int, kind: PieceKind) -> np.ndarray:
    """The frame of a piece that is the whole image (a rect turned a quarter if the image's
    orientation is not the kind's; a disc: the centred square)."""
    w, h = float(width_px), float(height_px)
    if kind.shape == "disc":
        side = min(w, h)
        x0, y0 = (w - side) / 2, (h - side) / 2
        quad = np.array([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]], np.float32)
    else:
        quad = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) - 0.5
        if (w > h) != (kind.size_mm[0] > kind.size_mm[1]) and not kind.is_square:
            quad = np.roll(quad, -1, axis=0)  # a quarter turn: the piece's top edge is the image's right
    return np.asarray(cv2.getPerspectiveTransform(UNIT_SQUARE, quad), np.float64)
