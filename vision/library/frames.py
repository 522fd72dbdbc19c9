"""Fitting a piece's frame to its outline, and flattening the piece through that frame.

A *frame* is a 3 x 3 homography from the unit square (u right, v down, both 0-1: the piece's
own upright frame) to the plane the piece was fitted in (an image's pixels or table mm).
:func:`fit_rect` and :func:`fit_disc` find it from an outline and check the kind's shape (and,
in mm, its size); :func:`warp` resamples the piece through it; :func:`frame_point` and
:func:`frame_points` place points of the piece in the plane.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import cv2
import numpy as np

from vision.library.kind import PieceKind

RECT_FILL_MIN = 0.88
"""A rect piece's outline fills at least this share of the quad fitted to it. A card with
rounded corners fills 0.97-0.99 of it (measured on the Set photos), an ellipse 0.785, a
rhombus 0.5: anything between is two pieces touching, or a piece and its shadow."""
WARP_HOMOGRAPHY_PX = 0.2
"""See :func:`warp`: how far (px) a lens may bend a piece's map from a homography for the
homography to be used."""
WARP_MAP_STEP = 8
"""See :func:`warp`: where the lens bends a piece's map more, every this-many-th sample each
way is mapped through it, the ones between on straight lines."""
BITTEN_FILL_MIN = 0.6
"""With millimetres, where each kind's size is checked too, the outline's convex hull must
fill the fitted shape as above, and the outline itself only this much: where a piece's
print matches the cloth under it, segmentation bites into its outline."""
ASPECT_TOLERANCE = 0.16
"""How far (as |ln(ratio)|, ~17 %) a quad's side ratio may be from its kind's: a card
viewed at up to ~30 deg from straight above, measured without a calibration (the Set
scenes' cards are within 0.08)."""
SIZE_TOLERANCE = 0.15
"""With millimetres (a calibration, or a known scale), each side or the diameter may be
this share off its kind's: the outline is found to ~1 mm, the rest is the piece's height."""
DISC_CIRCULARITY_MIN = 0.86
"""A disc's convex outline has 4 pi area / perimeter^2 at least this (a circle 1.0, seen
at 45 deg 0.93; a square 0.785, a card 0.75)."""
DISC_FILL = (0.92, 1.08)
"""A disc's outline area over its fitted ellipse's: a notch or a bump fails it."""
DISC_AXIS_MIN = 0.55
"""The fitted ellipse's minor over major axis, in pixels (a disc seen at up to ~55 deg);
in millimetres it must be a circle, within :data:`SIZE_TOLERANCE`."""

UNIT_SQUARE = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]], np.float32)
"""The unit square's corners (float32), clockwise on screen: a frame maps them to the piece's."""
_WARP_CHECK = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0],
                        [0.5, 0.0], [1.0, 0.5], [0.5, 1.0], [0.0, 0.5], [0.5, 0.5]], np.float64)
_WARP_CHECK_MIDDLES = [(u, v) for u, v in _WARP_CHECK[4:].tolist()]  # the edges' middles and the centre
_SPAN_UV = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)]
_FLT_EPSILON = float(np.finfo(np.float32).eps)


def fit_rect(points: np.ndarray, kind: PieceKind, *, in_mm: bool = False) -> np.ndarray | None:
    """The frame of a rect piece whose outline is *points* (N x 2, in px or, with *in_mm*,
    table mm), or None when it is not the kind's shape (or, in mm, size).

    The quad is the convex hull simplified to four corners; its corners are ordered so that
    the frame's top edge is a short side for a portrait kind (a long one for a landscape
    kind) and points as near to +x as it can.
    """
    pts = np.asarray(points, np.float32).reshape(-1, 1, 2)
    if len(pts) < 4:
        return None
    hull = cv2.convexHull(pts)
    perimeter = cv2.arcLength(hull, True)
    quad32 = None  # float32, as cv2 gives it
    for eps in (0.02, 0.03, 0.04, 0.05, 0.06, 0.08):
        approx = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(approx) == 4:
            quad32 = np.asarray(approx, np.float32).reshape(4, 2)
            break
        if len(approx) < 4:
            break
    if quad32 is None:
        quad32 = np.asarray(cv2.boxPoints(cv2.minAreaRect(pts)), np.float32)
    quad = quad32.astype(np.float64)
    quad_area = abs(float(cv2.contourArea(quad32)))
    if quad_area <= 0:
        return None
    area = abs(float(cv2.contourArea(pts)))
    if in_mm:  # the size is checked below: a bitten outline's hull may stand in for it
        hull_fill = abs(float(cv2.contourArea(hull))) / quad_area
        if hull_fill < RECT_FILL_MIN or area / quad_area < BITTEN_FILL_MIN:
            return None
    elif area / quad_area < RECT_FILL_MIN:
        return None
    # the sides' lengths in plain floats, as numpy's norm along an axis works them out
    # (the root of dx * dx + dy * dy, to the bit): 0.6 against 9 us with np.roll
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = quad.tolist()
    a = (math.sqrt((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0))
         + math.sqrt((x3 - x2) * (x3 - x2) + (y3 - y2) * (y3 - y2))) / 2
    b = (math.sqrt((x2 - x1) * (x2 - x1) + (y2 - y1) * (y2 - y1))
         + math.sqrt((x0 - x3) * (x0 - x3) + (y0 - y3) * (y0 - y3))) / 2
    short, long_ = min(a, b), max(a, b)
    if abs(math.log(short / long_ / kind.aspect)) > ASPECT_TOLERANCE:
        return None
    if in_mm:
        k_short, k_long = min(kind.size_mm), max(kind.size_mm)
        if abs(short / k_short - 1) > SIZE_TOLERANCE or abs(long_ / k_long - 1) > SIZE_TOLERANCE:
            return None
    return frame_from_quad(quad, kind)


def disc_frame(centre: Sequence[float] | np.ndarray, kind: PieceKind) -> np.ndarray:
    """The frame of a disc of *kind* centred at *centre*, upright: the unit square to the
    square around it."""
    d = kind.size_mm[0]
    return np.array([[d, 0.0, centre[0] - d / 2], [0.0, d, centre[1] - d / 2], [0.0, 0.0, 1.0]])


def frame_from_quad(quad: np.ndarray, kind: PieceKind) -> np.ndarray:
    """The frame (unit square -> *quad*'s plane) of a rect piece of *kind* whose corners are
    *quad* (4 x 2, any order): its top edge is a short side for a portrait kind (a long one
    for a landscape kind), pointing as near to +x as it can."""
    corners = [(float(x), float(y)) for x, y in quad.tolist()]
    if quad.dtype == np.float64 and len(corners) == 4:  # the mean in plain floats, numpy's to the bit
        cx = (((corners[0][0] + corners[1][0]) + corners[2][0]) + corners[3][0]) / 4
        cy = (((corners[0][1] + corners[1][1]) + corners[2][1]) + corners[3][1]) / 4
    else:
        cx, cy = quad.mean(axis=0).tolist()
    # numpy's arctan2, not math.atan2: they differ in the last bit, which may order two
    # corners at the same angle differently
    angles = np.arctan2(quad[:, 1] - cy, quad[:, 0] - cx)
    pts = [corners[i] for i in np.argsort(angles).tolist()]  # clockwise on screen (y down)
    portrait = kind.size_mm[0] < kind.size_mm[1]
    best: tuple[float, int] | None = None
    for start in range(4):  # plain floats: this runs for every outline fitted
        (x0, y0), (x1, y1), (x3, y3) = pts[start], pts[(start + 1) % 4], pts[(start + 3) % 4]
        top, left = math.hypot(x1 - x0, y1 - y0), math.hypot(x3 - x0, y3 - y0)
        if not kind.is_square and (top < left) != portrait:
            continue
        turn = abs(math.atan2(y1 - y0, x1 - x0))
        if best is None or turn < best[0]:
            best = (turn, start)
    assert best is not None
    q = np.array([pts[(best[1] + i) % 4] for i in range(4)], np.float32)
    return np.asarray(cv2.getPerspectiveTransform(UNIT_SQUARE, q), np.float64)


def fit_disc(points: np.ndarray, kind: PieceKind, *, in_mm: bool = False) -> np.ndarray | None:
    """The frame of a disc whose outline is *points* (N x 2, px or table mm with *in_mm*),
    or None when it is not round enough (or, in mm, the kind's size). The frame keeps the
    image's orientation: its x axis is the image's, as near as the ellipse allows.

    In mm the disc is the kind's own size at the ellipse's centre (:func:`disc_frame`): an
    outline grown by blur or a shadow would otherwise shrink the face in the warp."""
    pts = np.asarray(points, np.float32).reshape(-1, 1, 2)
    if len(pts) < 6:
        return None
    hull = cv2.convexHull(pts)
    area = abs(float(cv2.contourArea(hull)))
    perimeter = float(cv2.arcLength(hull, True))
    if perimeter <= 0 or 4 * math.pi * area / perimeter**2 < DISC_CIRCULARITY_MIN:
        return None
    (cx, cy), (ax_w, ax_h), angle = cv2.fitEllipse(hull)
    if min(ax_w, ax_h) <= 0:
        return None
    ellipse_area = math.pi * ax_w * ax_h / 4
    fill = (area if in_mm else abs(float(cv2.contourArea(pts)))) / ellipse_area
    if not DISC_FILL[0] <= fill <= DISC_FILL[1]:
        return None
    if in_mm and abs(float(cv2.contourArea(pts))) / ellipse_area < BITTEN_FILL_MIN:
        return None
    ratio = min(ax_w, ax_h) / max(ax_w, ax_h)
    if in_mm:
        d = kind.size_mm[0]
        if ratio < 1 - SIZE_TOLERANCE or abs((ax_w + ax_h) / 2 / d - 1) > SIZE_TOLERANCE:
            return None
        return disc_frame((cx, cy), kind)
    if ratio < DISC_AXIS_MIN:
        return None
    t = math.radians(angle)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    m = rot @ np.diag([ax_w / 2, ax_h / 2]) @ rot.T  # unit disc -> ellipse, no extra turn
    # unit square (u, v) in [0, 1]^2 -> disc coordinates 2 (u, v) - 1 -> the ellipse
    to_disc = np.array([[2.0, 0.0, -1.0], [0.0, 2.0, -1.0], [0.0, 0.0, 1.0]])
    affine = np.array([[m[0, 0], m[0, 1], cx], [m[1, 0], m[1, 1], cy], [0.0, 0.0, 1.0]])
    return np.asarray(affine @ to_disc, np.float64)


def warp(image: np.ndarray, frame: np.ndarray, size_px: tuple[int, int],
         to_image: Callable[[np.ndarray], np.ndarray] | None = None) -> np.ndarray:
    """The piece whose *frame* is given, resampled to ``size_px = (width, height)``.

    A frame is a 3 x 3 homography from the unit square (u right, v down, both 0-1, the
    piece's own upright frame) to the plane the piece was fitted in: *image*'s pixels, or
    any plane (table mm) that *to_image* (a function of an (N, 2) array of plane points)
    maps to *image*'s pixels. The piece is sampled at up to 4 x 4 points per output pixel
    and averaged, so fine print (stripes) does not alias. Through *to_image*, a piece is
    small enough that the map is a homography to within :data:`WARP_HOMOGRAPHY_PX` (a
    lens's distortion bends it little over a card): then the one through the corners is
    used (checked at the edges' middles and the centre); else every :data:`WARP_MAP_STEP`-th
    sample each way is mapped, and the samples between are placed on straight lines between
    them (a lens bends smoothly).
    """
    w, h = size_px
    if to_image is not None:  # the corners' homography, checked at the edges' middles and the centre
        seen = np.asarray(to_image(_apply(frame, _WARP_CHECK)), np.float64)
        corners = seen[:4].astype(np.float32)
        fitted = np.asarray(cv2.getPerspectiveTransform(UNIT_SQUARE, corners), np.float64)
        # all within the tolerance (a NaN is not, as it fails the max of the differences)
        if all(abs(x - sx) <= WARP_HOMOGRAPHY_PX and abs(y - sy) <= WARP_HOMOGRAPHY_PX
               for (x, y), (sx, sy) in zip(_unit_points(fitted, _WARP_CHECK_MIDDLES), seen[4:].tolist(),
                                           strict=True)):
            frame, to_image = fitted, None
    if to_image is None:
        (x0, y0), (x1, y1), (x3, y3) = _unit_points(frame, _SPAN_UV)
    else:
        (x0, y0), (x1, y1), _, (x3, y3) = seen[:4].tolist()
    # the longer side's pixels per output pixel, in plain floats; where that lies within
    # 1e-9 of a whole number, numpy's norm (as the over-sampling's ceiling is worked out
    # from it) says which side it is on
    dx1, dy1, dx3, dy3 = x1 - x0, y1 - y0, x3 - x0, y3 - y0
    span_px = max(math.sqrt(dx1 * dx1 + dy1 * dy1) / w, math.sqrt(dx3 * dx3 + dy3 * dy3) / h)
    if abs(span_px - round(span_px)) < 1e-9:
        span_px = float(max(np.linalg.norm(np.array([dx1, dy1])) / w,
                            np.linalg.norm(np.array([dx3, dy3])) / h))
    over = int(min(4, max(1, math.ceil(span_px))))
    ow, oh = w * over, h * over
    # output pixel (x, y) -> unit square ((x + 0.5) / ow, (y + 0.5) / oh)
    to_unit = np.array([[1.0 / ow, 0.0, 0.5 / ow], [0.0, 1.0 / oh, 0.5 / oh], [0.0, 0.0, 1.0]])
    if to_image is None:
        out = np.asarray(cv2.warpPerspective(image, frame @ to_unit, (ow, oh),
                                             flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                             borderMode=cv2.BORDER_REPLICATE), np.uint8)
    else:
        src = _sample_map(frame @ to_unit, to_image, ow, oh)
        out = np.asarray(cv2.remap(image, src[..., 0], src[..., 1], cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE), np.uint8)
    if over > 1:
        out = np.asarray(cv2.resize(out, (w, h), interpolation=cv2.INTER_AREA), np.uint8)
    return out


def _sample_map(to_plane: np.ndarray, to_image: Callable[[np.ndarray], np.ndarray],
                w: int, h: int) -> np.ndarray:
    """Where each of *w* x *h* samples (x, y: the plane at ``to_plane @ (x, y, 1)``) lies in
    the image (h x w x 2, float32): every :data:`WARP_MAP_STEP`-th mapped by *to_image*, and
    the rest linearly between them."""
    step = WARP_MAP_STEP
    gw, gh = (w - 1) // step + 2, (h - 1) // step + 2  # reaching past the last sample
    xs, ys = np.meshgrid(np.arange(gw, dtype=np.float64) * step, np.arange(gh, dtype=np.float64) * step)
    grid = np.asarray(to_image(_apply(to_plane, np.column_stack([xs.ravel(), ys.ravel()]))),
                      np.float64).reshape(gh, gw, 2)

    def between(n: int) -> tuple[np.ndarray, np.ndarray]:
        at = np.arange(n)
        return at // step, (at % step / step)[:, None]

    kx, tx = between(w)
    across = grid[:, kx] * (1 - tx) + grid[:, kx + 1] * tx  # gh x w x 2
    ky, ty = between(h)
    return np.asarray(across[ky] * (1 - ty)[:, None] + across[ky + 1] * ty[:, None], np.float32)


def _unit_points(frame: np.ndarray, uv: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """:func:`_apply` to a few points of the unit square whose coordinates are 0, 0.5 or 1,
    in plain floats (three points: 1.6 against 3.3 us, and no arrays to take apart after):
    their products are exact, so the sums and the reciprocal are cv2's to the bit."""
    (a, b, c), (d, e, f), (g, h, i) = np.asarray(frame, np.float64).tolist()
    out = []
    for u, v in uv:
        w = u * g + v * h + i
        if abs(w) > _FLT_EPSILON:
            w = 1.0 / w
            out.append(((u * a + v * b + c) * w, (u * d + v * e + f) * w))
        else:  # as cv2.perspectiveTransform
            out.append((0.0, 0.0))
    return out


def _apply(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(pts, np.asarray(h, np.float64)), np.float64).reshape(-1, 2)


def frame_points(frame: np.ndarray, uv: np.ndarray) -> np.ndarray:
    """The plane points (N x 2) at *uv* (N x 2) of the piece's own unit square."""
    return _apply(frame, uv)


def frame_point(frame: np.ndarray, u: float, v: float) -> tuple[float, float]:
    """The plane point at (u, v) of the piece's own unit square (0.5, 0.5: its centre), worked
    out in plain floats: a few times faster than an array through cv2 for one point."""
    (a, b, c), (d, e, f), (g, h, i) = np.asarray(frame, np.float64).tolist()
    w = g * u + h * v + i
    return (a * u + b * v + c) / w, (d * u + e * v + f) / w
