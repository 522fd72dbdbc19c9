"""Registration: finding the one piece in a photo or scan and flattening it to its stored size.

:func:`normalise` turns a registration image into the face's stored image; :func:`find_piece`
finds the piece against the surface round it; :func:`whole_image_frame` takes the whole image
as the piece (a full-bleed scan).
"""

from __future__ import annotations

import math

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
RIM_REACH = 0.25
"""How far past what stood out a piece's rim is looked for: this share of the piece's size (a
rim that is nearly the surface's colour stands out from it only on average)."""
RIM_DELTA_MIN = 1.0
"""A band round the piece is part of its rim where, in every sector round its centre
(:data:`RIM_SECTORS`), its mean colour is this far from the surface's (CIELAB) ..."""
RIM_SIGMAS = 4.0
"""... and this many of that mean's own spread (the surface's, over the root of its pixels)."""
RIM_SECTORS = 8
"""The sectors round a piece's centre in which its rim is looked for (a shadow falls to one side)."""
RIM_WIDTH_MIN_PX = 4
"""A rim is at least this wide (px, in the image shrunk for finding) past the band just
outside what stood out (the blur of the piece's own edge); its edge is where it falls to
half its median difference from the surface ..."""
RIM_FLAT = 0.6
"""... its outer half differs from the surface at least this share as much as its inner half
(a rim is of one colour; a soft shadow fades) ..."""
RIM_EDGE_PX = 4
"""... and this far (px) past its edge, every sector differs from the surface by less than
:data:`RIM_DELTA_MIN` and :data:`RIM_EDGE_SHARE` of the rim's difference: a piece's edge is
sharp, a shadow's is not."""
RIM_EDGE_SHARE = 0.2
"""See :data:`RIM_EDGE_PX`: the rim's difference is its bands' median."""
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
    only (the faint difference was something round the piece, such as its shadow). A rim of
    nearly the surface's colour, which stands out from it only on average, is then taken in as
    well (:data:`RIM_REACH` ... :data:`RIM_EDGE_SHARE`)."""
    scale = min(1.0, 800.0 / max(image.shape[:2]))
    small = image if scale == 1.0 else np.asarray(
        cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), np.uint8)
    lab = np.asarray(cv2.cvtColor(cv2.GaussianBlur(small.astype(np.float32) / 255.0, (0, 0), 1.0),
                                  cv2.COLOR_BGR2Lab), np.float32)
    band = _border_px(lab.shape)
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
            return _rim_grown(lab, frame, kind, scale, surface, spread)
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
        frame = _outline_frame(c, kind, scale)
        if frame is not None:
            return frame
    return None


def _outline_frame(contour: np.ndarray, kind: PieceKind, scale: float) -> np.ndarray | None:
    """The frame (in the image's pixels) of a piece of *kind* whose outline is *contour* (in
    the image shrunk by *scale*), or None where it does not have the kind's shape."""
    pts = (np.asarray(contour, np.float32).reshape(-1, 2) + 0.5) / scale - 0.5
    if kind.shape != "rect":
        return fit_disc(pts, kind)
    # the smallest rectangle round it: a tile's rounded corners are inside it
    box = np.asarray(cv2.boxPoints(cv2.minAreaRect(pts)), np.float32)
    fill = cv2.contourArea(pts) / max(cv2.contourArea(box), 1e-6)
    return fit_rect(box, kind) if fill >= RECT_FILL_MIN else None


def _border_px(shape: tuple[int, ...]) -> int:
    """How wide (px) the border of an image of *shape* is that shows the surface round a piece."""
    return max(2, round(0.03 * min(shape[:2])))


def _rim_grown(lab: np.ndarray, frame: np.ndarray, kind: PieceKind, scale: float, surface: np.ndarray,
               spread: np.ndarray) -> np.ndarray:
    """*frame* (of the piece in *lab*, an image shrunk by *scale*) grown over the piece's rim
    (:func:`_rim_px`); *frame* itself where it has none."""
    h, w = lab.shape[:2]
    to_small = np.array([[scale, 0.0, 0.5 * scale - 0.5], [0.0, scale, 0.5 * scale - 0.5], [0.0, 0.0, 1.0]])
    corners = frame_points(to_small @ frame, UNIT_SQUARE.astype(np.float64))
    size = min(np.linalg.norm(corners[1] - corners[0]), np.linalg.norm(corners[3] - corners[0]))
    reach = int(math.ceil(RIM_REACH * size)) + RIM_EDGE_PX
    edge = _border_px(lab.shape)  # the border that the surface was measured on
    # only the part of the image within reach of the piece, less that border
    low, high = corners.min(axis=0), corners.max(axis=0)
    x0, y0 = (max(edge, math.floor(v) - reach - 1) for v in low)
    x1, y1 = (min(n - edge, math.ceil(v) + reach + 2) for v, n in zip(high, (w, h), strict=True))
    if x1 <= x0 or y1 <= y0:
        return frame
    lab = lab[y0:y1, x0:x1]
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float64)
    uvw = np.linalg.inv(to_small @ frame) @ np.stack([xs.ravel(), ys.ravel(), np.ones(xs.size)])
    u, v = (uvw[:2] / uvw[2]).reshape(2, *xs.shape)  # each pixel in the piece's unit square
    inside = ((2 * u - 1) ** 2 + (2 * v - 1) ** 2 <= 1.0) if kind.shape == "disc" else (
        (u >= 0) & (u <= 1) & (v >= 0) & (v <= 1))
    away = cv2.distanceTransform((~inside).astype(np.uint8), cv2.DIST_L2, 5)
    centre = corners.mean(axis=0)
    turn = np.arctan2(ys - centre[1], xs - centre[0]) + math.pi
    sector = np.minimum((turn * (RIM_SECTORS / (2 * math.pi))).astype(np.int64), RIM_SECTORS - 1)
    band = np.ceil(away).astype(np.int64)  # 0 inside, k for (k - 1, k] px outside
    use = (band >= 1) & (band <= reach)
    key = band[use] * RIM_SECTORS + sector[use]
    bins = (reach + 1) * RIM_SECTORS
    count = np.bincount(key, minlength=bins).reshape(reach + 1, RIM_SECTORS)
    sums = np.stack([np.bincount(key, (lab[:, :, c] - surface[c])[use], minlength=bins) for c in range(3)],
                    axis=-1).astype(np.float64)
    mean = sums.reshape(reach + 1, RIM_SECTORS, 3) / np.maximum(count, 1)[:, :, None]
    sure = (count > 0) & (np.sqrt(((mean / spread) ** 2).sum(axis=2) * count) >= RIM_SIGMAS)
    grown = _rim_px(np.where(count > 0, np.sqrt((mean ** 2).sum(axis=2)), np.inf), sure)
    if grown == 0:
        return frame
    rim = (away <= grown).astype(np.uint8)
    contours, _ = cv2.findContours(rim, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE, offset=(x0, y0))
    wider = _outline_frame(max(contours, key=cv2.contourArea), kind, scale)
    return frame if wider is None else wider


def _rim_px(delta: np.ndarray, sure: np.ndarray) -> int:
    """How far (px) past a piece's found edge its rim reaches, or 0 where it has none: from
    *delta*, each band's mean colour difference from the surface (a row per band, a pixel wide,
    from the piece outward; a column per sector round its centre; infinite where the band has
    no pixels there), and *sure*, where that mean stands out from the surface's noise
    (:data:`RIM_SIGMAS`)."""
    level = np.where(sure, delta, 0.0).min(axis=1)  # each band's, in the sector that differs least
    kept = (level >= RIM_DELTA_MIN) & sure.all(axis=1)
    stop = 1  # the band just outside is the blur of the piece's own edge
    while stop + 1 < len(level) - RIM_EDGE_PX and kept[stop + 1]:
        stop += 1
    if stop - 1 < RIM_WIDTH_MIN_PX:
        return 0
    half = float(np.median(level[2:stop + 1])) / 2
    grown = 1
    while grown < stop and level[grown + 1] >= half:
        grown += 1
    inner, outer = np.array_split(level[2:grown + 1], 2)
    past = delta[grown + RIM_EDGE_PX]
    if (grown - 1 < RIM_WIDTH_MIN_PX or np.median(outer) < RIM_FLAT * np.median(inner)
            or (past >= min(RIM_DELTA_MIN, 2 * RIM_EDGE_SHARE * half)).any()):
        return 0  # a fading shadow, or an edge that runs on
    return grown


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
