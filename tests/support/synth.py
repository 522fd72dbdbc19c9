"""Synthetic overhead-camera scenes of the Volatio table, with exact ground truth.

The world frame is the table's, in millimetres: x right, y down, z *into* the table (a point
``h`` mm above the table has ``z = -h``). A :class:`CameraModel` is a pinhole camera with
OpenCV's five-term lens distortion; a scene is built from flat layers (the printed board
with its table markers, then each piece's top face at its height), each a top-down texture
warped exactly into a supersampled *undistorted* canvas by its plane's homography, then
bent through the lens distortion and area-averaged down to the sensor's pixels.

Conventions that everything here relies on:

* image coordinates are OpenCV's: pixel ``(row i, col j)`` has its centre at ``(x=j, y=i)``;
* texture pixel ``(i, j)`` of a layer covers the table square whose centre is
  ``origin_mm + (j + 0.5, i + 0.5) * mm_per_px`` (its top-left corner is ``origin_mm``);
* region edges (the track, the printed line, markers, piece outlines) are rasterised with
  exact fractional coverage (signed distance to the polygon within 1.5 px of its edge), so
  an edge's 50 % point is where the geometry says it is, to well under a tenth of a pixel;
* the canvas is rendered at :data:`SUPERSAMPLE` times the sensor's resolution, lens
  distortion is applied *at that resolution* (a remap through the inverse distortion map),
  and only then is it box-filtered down with ``INTER_AREA``: each sensor pixel averages
  the light that falls on its own square in the distorted image. Downsampling before the
  remap would instead average undistorted squares and then interpolate bilinearly, which
  blurs by up to another half pixel and misplaces the footprint near the corners.

Nothing here is tuned to be easy for a detector: translucent templates, side walls seen in
perspective, soft shadows, distractors touching the edge line, lighting, noise, blur and
JPEG are all in. Only this package may import cv2.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import shapely
from shapely.geometry import LineString, Point, Polygon, box
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points, unary_union

from vision import geometry
from vision.layout import Layout, PieceSpec, load_layout

SUPERSAMPLE = 2
"""Canvas pixels per sensor pixel along each axis."""
BOARD_PX_PER_MM = 4.0
"""Resolution of the printed board's texture (the edge is exact to about 0.02 mm at this)."""
LINE_WIDTH_MM = (2.0, 4.0)
"""Range of the printed edge line's width, mm (the line lies outside the drivable region)."""
HALF_WIDTH_MM = (80.0, 140.0)
"""Range of the track band's half-width, mm."""
QUIET_CELLS = (1.0, 1.4)
"""Range of the white margin around a table marker, in marker cells."""
TRACK_KEEP_OUT_MM = 10.0
"""How far the drivable region keeps from a table marker's sticker, mm."""
PIECE_KEEP_OUT_MM = 3.0
"""How far a piece keeps from a table marker's sticker, mm."""

_BAND_PX = 1.5  # pixels this close to an edge get their coverage from the exact distance
_SEG_PX = 4.0  # edges are cut into pieces this long (px) before the distance pass
_MAP_STEP = 16  # distortion map: exact on a grid this coarse (canvas px), bilinear in between
_PREFILTER = 0.6  # Gaussian sigma (canvas px) a texture is band-limited with before it is warped

_DRAGON_BGR: dict[str, tuple[float, float, float]] = {
    "red": (45, 45, 190), "blue": (170, 95, 40), "green": (60, 150, 55), "yellow": (40, 200, 225),
    "purple": (140, 50, 125), "white": (232, 234, 236), "black": (40, 40, 40), "orange": (40, 130, 235),
}


# --------------------------------------------------------------------------- camera


@dataclass(frozen=True, eq=False)
class CameraModel:
    """A pinhole camera with OpenCV lens distortion, looking at the table.

    ``K`` is the 3x3 intrinsic matrix (pixels), ``dist`` OpenCV's ``(k1, k2, p1, p2, k3)``,
    ``rvec``/``tvec`` the world (table mm) to camera transform in OpenCV's convention
    (``X_cam = R X_world + t``, mm), ``size`` the image's ``(width, height)`` in pixels.
    """

    K: np.ndarray
    dist: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    size: tuple[int, int]

    @property
    def R(self) -> np.ndarray:
        """The 3x3 world-to-camera rotation."""
        return np.asarray(cv2.Rodrigues(np.asarray(self.rvec, np.float64))[0], np.float64)

    @property
    def center_mm(self) -> np.ndarray:
        """The camera's optical centre in table mm (its z is negative: above the table)."""
        return np.asarray(-self.R.T @ np.asarray(self.tvec, np.float64), np.float64)

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """Pixel positions (N, 2) of table points (N, 3) in mm, through the lens distortion."""
        pts = np.asarray(points_mm, np.float64).reshape(-1, 3)
        if len(pts) == 0:
            return np.zeros((0, 2))
        img, _ = cv2.projectPoints(pts, self.rvec, self.tvec, self.K, self.dist)
        return np.asarray(img, np.float64).reshape(-1, 2)

    def project_undistorted(self, points_mm: np.ndarray) -> np.ndarray:
        """Pixel positions (N, 2) of table points (N, 3) in mm for the same camera without distortion."""
        pts = np.asarray(points_mm, np.float64).reshape(-1, 3)
        cam = pts @ self.R.T + np.asarray(self.tvec, np.float64)
        hom = cam @ np.asarray(self.K, np.float64).T
        return np.asarray(hom[:, :2] / hom[:, 2:3], np.float64)

    def homography(self, height_mm: float = 0.0) -> np.ndarray:
        """3x3 map from table ``(x, y)`` mm at *height_mm* above the table to undistorted pixels.

        ``K [r1 r2 r3*z + t]`` with ``z = -height_mm``, normalised so its last entry is 1.
        """
        R = self.R
        t = np.asarray(self.tvec, np.float64).reshape(3)
        M = np.column_stack([R[:, 0], R[:, 1], R[:, 2] * (-height_mm) + t])
        H = np.asarray(self.K, np.float64) @ M
        return np.asarray(H / H[2, 2], np.float64)


def _look_at(center: np.ndarray, target: np.ndarray, yaw_rad: float) -> np.ndarray:
    """World-to-camera rotation of a camera at *center* looking at *target*, its x along world x
    turned by *yaw_rad*."""
    z = target - center
    z = z / np.linalg.norm(z)
    xw = np.array([math.cos(yaw_rad), math.sin(yaw_rad), 0.0])
    x = xw - z * float(xw @ z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    return np.stack([x, y, z])


def _rect_outline(x0: float, y0: float, x1: float, y1: float, per_side: int = 32) -> np.ndarray:
    """Points (4*per_side, 2) along a rectangle's edges, corners included."""
    t = np.linspace(0.0, 1.0, per_side, endpoint=False)
    top = np.column_stack([x0 + (x1 - x0) * t, np.full_like(t, y0)])
    right = np.column_stack([np.full_like(t, x1), y0 + (y1 - y0) * t])
    bottom = np.column_stack([x1 - (x1 - x0) * t, np.full_like(t, y1)])
    left = np.column_stack([np.full_like(t, x0), y1 - (y1 - y0) * t])
    return np.vstack([top, right, bottom, left])


def random_camera(rng: np.random.Generator, size: tuple[int, int] = (1280, 720),
                  area_mm: tuple[float, float] = (800.0, 500.0)) -> CameraModel:
    """A plausible overhead webcam that sees the whole play area (plus 10 mm) in frame.

    0.7-1.3 m above the area, its centre within 15 % of the area's size of the middle, aimed
    near the middle (tilt at most 12 degrees), yaw within +-10 degrees, principal point
    within 2 % of the image centre, k1 in [-0.12, 0.05], small k2 and tangential terms.
    The focal length is 80-97 % of the longest that keeps the area in frame without distortion;
    a draw whose area (projected through the distortion, edges sampled densely) then leaves the
    frame is redrawn.
    """
    w, h = size
    aw, ah = area_mm
    border = _rect_outline(-10.0, -10.0, aw + 10.0, ah + 10.0)
    border3 = np.column_stack([border, np.zeros(len(border))])
    for _ in range(500):
        height = rng.uniform(700.0, 1300.0)
        off = rng.uniform(-0.15, 0.15, 2)
        center = np.array([aw * (0.5 + off[0]), ah * (0.5 + off[1]), -height])
        aim = rng.uniform(-0.05, 0.05, 2)
        target = np.array([aw * (0.5 + aim[0]), ah * (0.5 + aim[1]), 0.0])
        axis = (target - center) / np.linalg.norm(target - center)
        if math.degrees(math.acos(min(1.0, float(axis[2])))) > 12.0:
            continue
        R = _look_at(center, target, math.radians(rng.uniform(-10.0, 10.0)))
        t = -R @ center
        cx = (w - 1) / 2 + rng.uniform(-0.02, 0.02) * w
        cy = (h - 1) / 2 + rng.uniform(-0.02, 0.02) * h
        cam_pts = border3 @ R.T + t
        xn = cam_pts[:, 0] / cam_pts[:, 2]
        yn = cam_pts[:, 1] / cam_pts[:, 2]
        with np.errstate(divide="ignore"):
            fx_lim = np.where(xn > 0, (w - 1 - cx) / xn, np.where(xn < 0, -cx / xn, np.inf))
            fy_lim = np.where(yn > 0, (h - 1 - cy) / yn, np.where(yn < 0, -cy / yn, np.inf))
        f = float(min(fx_lim.min(), fy_lim.min())) * rng.uniform(0.80, 0.97)
        K = np.array([[f, 0.0, cx], [0.0, f, cy], [0.0, 0.0, 1.0]])
        dist = np.array([rng.uniform(-0.12, 0.05), rng.uniform(-0.03, 0.03),
                         rng.uniform(-0.001, 0.001), rng.uniform(-0.001, 0.001), 0.0])
        rvec = np.asarray(cv2.Rodrigues(R)[0], np.float64).reshape(3)
        cam = CameraModel(K, dist, rvec, t.astype(np.float64), (int(w), int(h)))
        px = cam.project(border3)
        if px.min() >= 1.0 and px[:, 0].max() <= w - 2.0 and px[:, 1].max() <= h - 2.0:
            return cam
    raise RuntimeError("random_camera: no camera keeps the play area in frame")  # pragma: no cover


# --------------------------------------------------------------------------- rasterising


def _apply_h(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Points (N, 2) through a 3x3 homography."""
    p = np.asarray(pts, np.float64).reshape(-1, 2)
    hom = p @ H[:, :2].T + H[:, 2]
    return np.asarray(hom[:, :2] / hom[:, 2:3], np.float64)


def _transform(geom: BaseGeometry, H: np.ndarray) -> BaseGeometry:
    """*geom* with every vertex moved through the 3x3 homography *H* (exact: lines stay lines)."""
    def fn(coords: np.ndarray) -> np.ndarray:
        return _apply_h(H, coords)
    return shapely.transform(geom, fn)


def _translate(dx: float, dy: float) -> np.ndarray:
    return np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])


def _polygons(geom: BaseGeometry) -> list[Polygon]:
    """The polygons in *geom* (a Polygon, MultiPolygon or collection), empty ones dropped."""
    if geom.is_empty:
        return []
    if isinstance(geom, Polygon):
        return [geom]
    if hasattr(geom, "geoms"):
        out: list[Polygon] = []
        for g in geom.geoms:
            out.extend(_polygons(g))
        return out
    return []


def _rings(geom: BaseGeometry) -> list[np.ndarray]:
    """Closed rings (N, 2) of *geom*'s polygons, exteriors counter-clockwise, holes clockwise
    (in the coordinates' own sense, so the region lies to the left of every edge)."""
    rings: list[np.ndarray] = []
    for poly in _polygons(geom):
        for k, ring in enumerate([poly.exterior, *poly.interiors]):
            c = np.asarray(ring.coords, np.float64)
            if len(c) < 4:
                continue
            area2 = float(np.dot(c[:-1, 0], c[1:, 1]) - np.dot(c[1:, 0], c[:-1, 1]))
            if (area2 > 0) != (k == 0):
                c = c[::-1]
            rings.append(c)
    return rings


def _fill(img: np.ndarray, geom_px: BaseGeometry, colour: Sequence[float] | float) -> None:
    """Fill a region (pixel-centre coordinates of *img*) with *colour*, hard-edged (cv2, 1/256 px)."""
    rings = _rings(geom_px)
    if rings:
        cv2.fillPoly(img, [np.round(r[:-1] * 256.0).astype(np.int32) for r in rings], colour, cv2.LINE_8, 8)


def _edge_band(geom: BaseGeometry, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Exact coverage of the pixels near a region's edges, the region in the array's pixel-centre coordinates.

    Returns ``(idx, cov)``: the flat index of every pixel whose centre is within 1.5 px of an
    edge, and its coverage ``clip(0.5 + signed distance, 0, 1)`` (positive inside). Pixels
    farther away are wholly in or out, and :func:`_fill` gets them right.
    """
    h, w = shape
    rings = _rings(geom)
    empty = (np.zeros(0, np.int64), np.zeros(0, np.float32))
    if not rings or h == 0 or w == 0:
        return empty
    p0 = np.vstack([r[:-1] for r in rings])
    p1 = np.vstack([r[1:] for r in rings])
    lo, hi = np.minimum(p0, p1), np.maximum(p0, p1)
    near = ((hi[:, 0] >= -_BAND_PX - 1) & (lo[:, 0] <= w + _BAND_PX) & (hi[:, 1] >= -_BAND_PX - 1)
            & (lo[:, 1] <= h + _BAND_PX))
    p0, p1 = p0[near], p1[near]
    if len(p0) == 0:
        return empty
    # cut long edges so a small fixed window around each piece holds every pixel near it
    n = np.maximum(1, np.ceil(np.linalg.norm(p1 - p0, axis=1) / _SEG_PX)).astype(np.int64)
    seg = np.repeat(np.arange(len(p0)), n)
    k = np.arange(len(seg)) - np.repeat(np.cumsum(n) - n, n)
    d = p1 - p0
    a = p0[seg] + d[seg] * (k / n[seg])[:, None]
    b = p0[seg] + d[seg] * ((k + 1) / n[seg])[:, None]
    gx0 = np.floor(np.minimum(a[:, 0], b[:, 0]) - _BAND_PX).astype(np.int32)
    gy0 = np.floor(np.minimum(a[:, 1], b[:, 1]) - _BAND_PX).astype(np.int32)
    g = int(math.ceil(_SEG_PX + 2 * _BAND_PX)) + 1
    oy, ox = np.divmod(np.arange(g * g, dtype=np.int32), g)
    px = gx0[:, None] + ox[None, :]
    py = gy0[:, None] + oy[None, :]
    # float32 relative to each piece's window corner: exact enough (1e-5 px) and half the memory traffic
    ax = (a[:, 0] - gx0).astype(np.float32)[:, None]
    ay = (a[:, 1] - gy0).astype(np.float32)[:, None]
    ex = (b[:, 0] - a[:, 0]).astype(np.float32)[:, None]
    ey = (b[:, 1] - a[:, 1]).astype(np.float32)[:, None]
    qx = ox.astype(np.float32)[None, :] - ax
    qy = oy.astype(np.float32)[None, :] - ay
    ee = np.maximum(ex * ex + ey * ey, np.float32(1e-12))
    t = np.clip((qx * ex + qy * ey) / ee, 0.0, 1.0)
    rx, ry = qx - t * ex, qy - t * ey
    dist = np.sqrt(rx * rx + ry * ry)
    inside = (ex * qy - ey * qx) > 0  # left of the edge = inside (rings are oriented so)
    ok = (dist < _BAND_PX) & (px >= 0) & (px < w) & (py >= 0) & (py < h)
    lin = py[ok].astype(np.int64) * w + px[ok]
    dist = dist[ok]
    signed = np.where(inside[ok], dist, -dist)
    # the nearest edge piece decides; at a shared vertex both pieces agree on the side
    order = np.argsort(lin * 8192 + (dist * 4096).astype(np.int64))  # by pixel, then distance
    lin, signed = lin[order], signed[order]
    first = np.ones(len(lin), bool)
    first[1:] = lin[1:] != lin[:-1]
    return lin[first], np.clip(0.5 + signed[first], 0.0, 1.0).astype(np.float32)


def _coverage(geom: BaseGeometry, shape: tuple[int, int]) -> np.ndarray:
    """Dense float32 coverage (h, w) in [0, 1] of a region in the array's pixel-centre coordinates."""
    out = np.zeros(shape, np.float32)
    _fill(out, geom, 1.0)
    idx, cov = _edge_band(geom, shape)
    out.reshape(-1)[idx] = cov
    return out


def _paint(img: np.ndarray, geom_px: BaseGeometry, colour: Sequence[float], alpha: float = 1.0) -> None:
    """Paint a region (pixel-centre coordinates of *img*) over *img* in place, exact-edged.

    *img* is uint8 or float32 BGR, or float32 premultiplied BGRA with alpha 0..255 (then
    *colour* is BGR and the paint goes "over" with opacity *alpha*).
    """
    if geom_px.is_empty:
        return
    h, w = img.shape[:2]
    x0, y0, x1, y1 = geom_px.bounds
    c0, r0 = max(0, int(math.floor(x0)) - 2), max(0, int(math.floor(y0)) - 2)
    c1, r1 = min(w, int(math.ceil(x1)) + 3), min(h, int(math.ceil(y1)) + 3)
    if c1 <= c0 or r1 <= r0:
        return
    dense = _coverage(_transform(geom_px, _translate(-c0, -r0)), (r1 - r0, c1 - c0))
    vec = np.asarray(list(colour) + ([255.0] if img.shape[2] == 4 else []), np.float32)
    if geom_px.area > 0.3 * dense.size:  # mostly covered: work on the whole box
        wgt2 = dense * np.float32(alpha)
        roi = img[r0:r1, c0:c1].astype(np.float32)
        roi *= (1.0 - wgt2)[..., None]
        roi += wgt2[..., None] * vec
        img[r0:r1, c0:c1] = np.clip(roi + 0.5, 0, 255).astype(np.uint8) if img.dtype == np.uint8 else roi
        return
    cov = dense.reshape(-1)
    sel = np.flatnonzero(cov)
    if len(sel) == 0:
        return
    wgt = (cov[sel] * np.float32(alpha))[:, None]
    rows, cols = np.divmod(sel, c1 - c0)
    rows += r0
    cols += c0
    old = img[rows, cols].astype(np.float32)
    new = vec[None, :] * wgt + old * (1.0 - wgt)
    img[rows, cols] = np.clip(new + 0.5, 0, 255).astype(np.uint8) if img.dtype == np.uint8 else new


def _print(img: np.ndarray, geom_px: BaseGeometry, colour: Sequence[float], alpha: float = 1.0) -> None:
    """Draw a region (pixel-centre coordinates of uint8 *img*) with OpenCV's antialiasing: quick,
    its edges up to 0.7 px fat, for decoration whose exact edge nobody measures."""
    rings = [np.round(r[:-1] * 256.0).astype(np.int32) for r in _rings(geom_px)]
    if not rings:
        return
    if alpha >= 1.0:
        cv2.fillPoly(img, rings, [float(c) for c in colour], cv2.LINE_AA, 8)
        return
    h, w = img.shape[:2]
    x0, y0, x1, y1 = geom_px.bounds
    c0, r0 = max(0, int(x0) - 2), max(0, int(y0) - 2)
    c1, r1 = min(w, int(x1) + 3), min(h, int(y1) + 3)
    if c1 <= c0 or r1 <= r0:
        return
    roi = img[r0:r1, c0:c1]
    drawn = roi.copy()
    cv2.fillPoly(drawn, rings, [float(c) for c in colour], cv2.LINE_AA, 8, (-c0, -r0))
    img[r0:r1, c0:c1] = np.asarray(cv2.addWeighted(drawn, alpha, roi, 1.0 - alpha, 0.0), np.uint8)


# --------------------------------------------------------------------------- markers

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


# --------------------------------------------------------------------------- canvas


_MAPS: OrderedDict[bytes, tuple[np.ndarray, np.ndarray, int, int, int, int]] = OrderedDict()


def _distortion_map(camera: CameraModel, ss: int = SUPERSAMPLE,
                    ) -> tuple[np.ndarray, np.ndarray, int, int, int, int]:
    """Where each supersampled *distorted* pixel looks in the supersampled *undistorted* canvas.

    Returns ``(map_x, map_y, x0, y0, canvas_w, canvas_h)``: float32 maps (ss*h, ss*w) into a
    canvas whose pixel (0, 0) is the undistorted supersampled position (x0, y0), big enough
    for every sample. Supersampled coordinates: ``u_ss = ss * u + (ss - 1) / 2``. Exact
    (``cv2.undistortPoints`` iterated to 1e-12) on a grid every 16 canvas px and bilinear in
    between (off by under 0.002 sensor px): the full grid through ``undistortPoints`` would
    cost half a second per camera. Cached per camera (a scene's camera is new each time).
    """
    key = b"".join(np.asarray(a, np.float64).tobytes() for a in (camera.K, camera.dist)) + \
        np.array([*camera.size, ss], np.int64).tobytes()
    hit = _MAPS.get(key)
    if hit is not None:
        _MAPS.move_to_end(key)
        return hit
    w, h = camera.size
    W, Hh = w * ss, h * ss
    g = _MAP_STEP
    nx, ny = int(math.ceil(W / g)) + 4, int(math.ceil(Hh / g)) + 4
    xs = (np.arange(nx) - 2) * g + (g - 1) / 2
    ys = (np.arange(ny) - 2) * g + (g - 1) / 2
    gx, gy = np.meshgrid(xs, ys)
    pts = np.column_stack([gx.ravel(), gy.ravel()])
    pts = (pts - (ss - 1) / 2) / ss
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 1e-12)
    und = np.asarray(cv2.undistortPoints(pts.reshape(-1, 1, 2), camera.K, camera.dist, P=camera.K,
                                         criteria=crit), np.float64).reshape(-1, 2)
    und = und * ss + (ss - 1) / 2

    def upsample(coarse: np.ndarray) -> np.ndarray:
        # bilinear, which is exact for the map's linear part (cv2's bicubic is not)
        full = np.asarray(cv2.resize(coarse.reshape(ny, nx).astype(np.float32), (nx * g, ny * g),
                                     interpolation=cv2.INTER_LINEAR))
        return full[2 * g:2 * g + Hh, 2 * g:2 * g + W]

    mx, my = upsample(und[:, 0]), upsample(und[:, 1])
    x0 = int(math.floor(float(mx.min()))) - 2
    y0 = int(math.floor(float(my.min()))) - 2
    cw = int(math.ceil(float(mx.max()))) - x0 + 3
    ch = int(math.ceil(float(my.max()))) - y0 + 3
    out = (np.ascontiguousarray(mx - x0), np.ascontiguousarray(my - y0), x0, y0, cw, ch)
    _MAPS[key] = out
    while len(_MAPS) > 2:  # a 1080p pair of maps is 66 MB
        _MAPS.popitem(last=False)
    return out


def _min_scale(H: np.ndarray, w: int, h: int) -> float:
    """The least stretch (output px per input px, any direction) of homography *H* over a w x h image."""
    pts = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1], [(w - 1) / 2, (h - 1) / 2]], np.float64)
    base = _apply_h(H, pts)
    jx = _apply_h(H, pts + [1.0, 0.0]) - base
    jy = _apply_h(H, pts + [0.0, 1.0]) - base
    least = min(float(np.linalg.svd(np.column_stack([jx[i], jy[i]]), compute_uv=False)[-1])
                for i in range(len(pts)))
    return max(least, 1e-6)


class _Canvas:
    """A supersampled undistorted float32 BGR canvas, composited layer by layer, then distorted."""

    def __init__(self, camera: CameraModel, ss: int = SUPERSAMPLE) -> None:
        self.camera = camera
        self.ss = ss
        self.map_x, self.map_y, x0, y0, cw, ch = _distortion_map(camera, ss)
        self.image = np.zeros((ch, cw, 3), np.float32)
        # undistorted sensor pixel u -> canvas pixel
        half = (ss - 1) / 2
        self.from_pixels = np.array([[ss, 0.0, half - x0], [0.0, ss, half - y0], [0.0, 0.0, 1.0]])

    def plane(self, height_mm: float) -> np.ndarray:
        """3x3 map from table (x, y) mm at *height_mm* to canvas pixels."""
        return np.asarray(self.from_pixels @ self.camera.homography(height_mm), np.float64)

    def px_per_mm(self, points_mm: np.ndarray, height_mm: float = 0.0) -> float:
        """The finest canvas sampling (px per mm) over table points (N, 2) at *height_mm*."""
        H = self.plane(height_mm)
        p = np.asarray(points_mm, np.float64).reshape(-1, 2)
        best = 0.0
        for dx, dy in ((1.0, 0.0), (0.0, 1.0)):
            q = _apply_h(H, p + [dx, dy]) - _apply_h(H, p)
            best = max(best, float(np.linalg.norm(q, axis=1).max()))
        return best

    def fill(self, bgr: np.ndarray) -> None:
        """Cover the whole canvas with *bgr* (a colour (3,) or an image resized to the canvas)."""
        if bgr.ndim == 1:
            self.image[:] = bgr.astype(np.float32)
        else:
            ch, cw = self.image.shape[:2]
            cv2.resize(bgr.astype(np.float32), (cw, ch), dst=self.image, interpolation=cv2.INTER_LINEAR)

    def layer(self, texture: np.ndarray, tex_to_table: np.ndarray, height_mm: float) -> None:
        """Composite a texture lying flat at *height_mm*; *tex_to_table* maps its pixel-centre
        coordinates to table mm (3x3).

        A BGR uint8 texture is opaque up to its outer edge, which is drawn exact-edged; a
        BGRA float32 texture holds premultiplied colour and alpha, both 0..255. The texture is
        Gaussian-filtered (sigma 0.6 canvas px where the canvas samples it most coarsely, at
        least 0.6 texture px) before the bilinear warp, so its edges land where they should.
        """
        H = self.plane(height_mm) @ tex_to_table
        th, tw = texture.shape[:2]
        corners = np.array([[-0.5, -0.5], [tw - 0.5, -0.5], [tw - 0.5, th - 0.5], [-0.5, th - 0.5]])
        pc = _apply_h(H, corners)
        ch, cw = self.image.shape[:2]
        c0, r0 = max(0, int(math.floor(pc[:, 0].min())) - 1), max(0, int(math.floor(pc[:, 1].min())) - 1)
        c1, r1 = min(cw, int(math.ceil(pc[:, 0].max())) + 2), min(ch, int(math.ceil(pc[:, 1].max())) + 2)
        if c1 <= c0 or r1 <= r0:
            return
        Hroi = _translate(-c0, -r0) @ H
        roi = self.image[r0:r1, c0:c1]
        # band-limit the texture first: a sharp edge sampled bilinearly more coarsely than its
        # own pixels would come out jagged (by up to half a canvas pixel)
        sigma = _PREFILTER * max(1.0, 1.0 / _min_scale(H, tw, th))
        texture = np.asarray(cv2.GaussianBlur(texture, (0, 0), sigma, borderType=cv2.BORDER_REPLICATE))
        if texture.shape[2] == 3:
            warped = np.asarray(cv2.warpPerspective(texture, Hroi, (c1 - c0, r1 - r0), flags=cv2.INTER_LINEAR,
                                                    borderMode=cv2.BORDER_REPLICATE))
            quad = Polygon(pc - [c0, r0])
            idx, cov = _edge_band(quad, (r1 - r0, c1 - c0))
            rows, cols = np.divmod(idx, c1 - c0)
            under = roi[rows, cols]  # a copy, taken before the centres inside are covered
            inside = np.zeros((r1 - r0, c1 - c0), np.uint8)
            _fill(inside, quad, 1)
            np.copyto(roi, warped, where=inside[..., None] > 0, casting="unsafe")
            roi[rows, cols] = warped[rows, cols] * cov[:, None] + under * (1.0 - cov[:, None])
            return
        warped = np.asarray(cv2.warpPerspective(texture, Hroi, (c1 - c0, r1 - r0), flags=cv2.INTER_LINEAR,
                                                borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0)),
                            np.float32)
        alpha = warped[..., 3:4] * np.float32(1.0 / 255.0)
        roi *= 1.0 - alpha
        roi += warped[..., :3]

    def paint(self, geom_px: BaseGeometry, colour: Sequence[float], alpha: float = 1.0) -> None:
        """Paint a region given in canvas pixel coordinates, exact-edged."""
        _paint(self.image, geom_px, colour, alpha)

    def finish(self) -> np.ndarray:
        """The sensor image, float32 (h, w, 3) 0..255: distorted at the supersampled size, then
        area-averaged down to the sensor's pixels."""
        distorted = cv2.remap(self.image, self.map_x, self.map_y, cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
        return np.asarray(cv2.resize(distorted, self.camera.size, interpolation=cv2.INTER_AREA), np.float32)


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cells: float,
                  amplitude: float) -> np.ndarray:
    """Smooth random field (h, w) float32 around 0 with features about *cells* px across, +-amplitude."""
    h, w = shape
    gh, gw = max(2, int(h / cells) + 2), max(2, int(w / cells) + 2)
    coarse = rng.uniform(-amplitude, amplitude, (gh, gw)).astype(np.float32)
    return np.asarray(cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC), np.float32)


# --------------------------------------------------------------------------- effects


_NORMAL_TABLE: list[np.ndarray] = []


def _gaussian_noise(rng: np.random.Generator, shape: tuple[int, ...], sigma: float) -> np.ndarray:
    """Gaussian noise (float32) of standard deviation *sigma*: 16 random bits per sample looked up
    in the normal distribution's quantiles (twice as fast as ``standard_normal``; tails cut at 4.3 sigma)."""
    if not _NORMAL_TABLE:
        from statistics import NormalDist
        inv = NormalDist().inv_cdf
        _NORMAL_TABLE.append(np.array([inv((i + 0.5) / 65536) for i in range(65536)], np.float32))
    table = _NORMAL_TABLE[0] * np.float32(sigma)
    return np.asarray(table[rng.integers(0, 65536, shape, dtype=np.uint16)], np.float32)


@dataclass(frozen=True)
class Effects:
    """What the camera and room do to the picture, applied to the sensor image in this order.

    ``gain_from``/``gain_to``: a multiplicative lighting gradient across the image along the
    direction ``gain_angle_rad`` (0 = left to right); ``vignette``: how much the corners darken
    (0 = none); ``colour_bgr``: white-balance gains per channel; ``blur_sigma``: Gaussian blur,
    pixels (0 = none); ``noise_sigma``: Gaussian sensor noise, in 0..255 units;
    ``jpeg_quality``: JPEG re-encoding quality, None = none.
    """

    gain_from: float = 1.0
    gain_to: float = 1.0
    gain_angle_rad: float = 0.0
    vignette: float = 0.0
    colour_bgr: tuple[float, float, float] = (1.0, 1.0, 1.0)
    blur_sigma: float = 0.0
    noise_sigma: float = 0.0
    jpeg_quality: int | None = None

    @classmethod
    def none(cls) -> Effects:
        """No effect at all: the image is only rounded to uint8."""
        return cls()

    @classmethod
    def random(cls, rng: np.random.Generator) -> Effects:
        """A typical room and webcam: gains 0.7-1.2 across, vignette half the time (up to 35 %),
        a mild colour cast, blur 0-1 px, noise 1-6 (of 255), JPEG quality 70-95."""
        return cls(
            gain_from=float(rng.uniform(0.7, 1.2)),
            gain_to=float(rng.uniform(0.7, 1.2)),
            gain_angle_rad=float(rng.uniform(0, 2 * math.pi)),
            vignette=float(rng.uniform(0.05, 0.35)) if rng.random() < 0.5 else 0.0,
            colour_bgr=(float(rng.uniform(0.92, 1.08)), 1.0, float(rng.uniform(0.92, 1.08))),
            blur_sigma=float(rng.uniform(0.0, 1.0)),
            noise_sigma=float(rng.uniform(1.0, 6.0)),
            jpeg_quality=int(rng.integers(70, 96)),
        )

    def apply(self, image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The effects on a float (h, w, 3) 0..255 image; returns BGR uint8."""
        img = np.array(image, np.float32)  # a copy: scaled in place below
        h, w = img.shape[:2]
        gains = np.asarray(self.colour_bgr, np.float32)
        if self.gain_from != 1.0 or self.gain_to != 1.0 or self.vignette > 0.0:
            # the field is smooth: worked out on a coarse grid, then interpolated
            gh, gw = max(2, h // 8), max(2, w // 8)
            yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
            xn = (xx * 8 + 3.5) / max(1, w - 1) - 0.5
            yn = (yy * 8 + 3.5) / max(1, h - 1) - 0.5
            c, s = math.cos(self.gain_angle_rad), math.sin(self.gain_angle_rad)
            along = (xn * c + yn * s) / (0.5 * (abs(c) + abs(s))) * 0.5 + 0.5  # 0..1 corner to corner
            field = self.gain_from + (self.gain_to - self.gain_from) * along
            if self.vignette > 0.0:
                r2 = (xn * xn + yn * yn) / 0.5
                field = field * (1.0 - self.vignette * r2 * r2)
            full = np.asarray(cv2.resize(field.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR))
            img *= full[..., None] * gains
        elif not np.all(gains == 1.0):
            img *= gains
        if self.blur_sigma > 0.05:
            img = np.asarray(cv2.GaussianBlur(img, (0, 0), self.blur_sigma), np.float32)
        if self.noise_sigma > 0.0:
            img += _gaussian_noise(rng, img.shape, self.noise_sigma)
        out = np.asarray(cv2.convertScaleAbs(np.maximum(img, 0.0)), np.uint8)  # rounds and saturates
        if self.jpeg_quality is not None:
            ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(self.jpeg_quality)])
            if ok:
                out = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
        return out


# --------------------------------------------------------------------------- track


def _catmull_rom(points: np.ndarray, closed: bool, per_span: int = 200) -> np.ndarray:
    """A centripetal Catmull-Rom curve (M, 2) through *points* (N, 2), vertices about 2 mm apart;
    closed curves repeat their first point."""
    P = np.asarray(points, np.float64)
    P = np.vstack([P[-1], P, P[0], P[1]]) if closed else np.vstack([2 * P[0] - P[1], P, 2 * P[-1] - P[-2]])
    out = []
    for i in range(len(P) - 3):
        p0, p1, p2, p3 = P[i:i + 4]
        t0 = 0.0
        t1 = t0 + max(1e-6, float(np.linalg.norm(p1 - p0)) ** 0.5)
        t2 = t1 + max(1e-6, float(np.linalg.norm(p2 - p1)) ** 0.5)
        t3 = t2 + max(1e-6, float(np.linalg.norm(p3 - p2)) ** 0.5)
        t = np.linspace(t1, t2, per_span, endpoint=False)[:, None]
        a1 = (t1 - t) / (t1 - t0) * p0 + (t - t0) / (t1 - t0) * p1
        a2 = (t2 - t) / (t2 - t1) * p1 + (t - t1) / (t2 - t1) * p2
        a3 = (t3 - t) / (t3 - t2) * p2 + (t - t2) / (t3 - t2) * p3
        b1 = (t2 - t) / (t2 - t0) * a1 + (t - t0) / (t2 - t0) * a2
        b2 = (t3 - t) / (t3 - t1) * a2 + (t - t1) / (t3 - t1) * a3
        out.append((t2 - t) / (t2 - t1) * b1 + (t - t1) / (t2 - t1) * b2)
    curve = np.vstack(out)
    curve = np.vstack([curve, curve[:1]]) if closed else np.vstack([curve, P[-2]])
    return _resample(curve, 2.0)


def _resample(curve: np.ndarray, step: float) -> np.ndarray:
    """A polyline (N, 2) re-sampled at equal arc-length steps of about *step* (its ends kept)."""
    seglen = np.linalg.norm(np.diff(curve, axis=0), axis=1)
    s = np.concatenate([[0.0], np.cumsum(seglen)])
    n = max(2, int(math.ceil(s[-1] / step)) + 1)
    t = np.linspace(0.0, s[-1], n)
    return np.column_stack([np.interp(t, s, curve[:, 0]), np.interp(t, s, curve[:, 1])])


def _centreline(rng: np.random.Generator, area_mm: tuple[float, float], hw: float) -> tuple[np.ndarray, bool]:
    """A random smooth centreline (N, 2) mm and whether it is closed: a loop, an S-curve or a hairpin."""
    aw, ah = area_mm
    kind = rng.random()
    if kind < 0.45:  # a loop with an infield
        n = int(rng.integers(5, 9))
        ang = 2 * np.pi * (np.arange(n) + rng.uniform(-0.3, 0.3, n)) / n + rng.uniform(0, 2 * np.pi)
        cx, cy = aw / 2 + rng.uniform(-0.06, 0.06) * aw, ah / 2 + rng.uniform(-0.06, 0.06) * ah
        rx = rng.uniform(min(hw + 60, aw / 2), aw / 2 + 20)
        ry = rng.uniform(min(hw + 35, ah / 2), ah / 2 + 20)
        jit = rng.uniform(0.85, 1.15, n)
        pts = np.column_stack([cx + rx * jit * np.cos(ang), cy + ry * jit * np.sin(ang)])
        return _catmull_rom(pts, closed=True), True
    if kind < 0.8:  # an S-curve across the board
        n = int(rng.integers(3, 6))
        along = np.linspace(-0.15, 1.15, n + 2) + np.r_[0, rng.uniform(-0.06, 0.06, n), 0]
        across = rng.uniform(0.2, 0.8, n + 2)
        if rng.random() < 0.3:  # across the short side instead
            pts = np.column_stack([across * aw, along * ah])
        else:
            pts = np.column_stack([along * aw, across * ah])
        return _catmull_rom(pts, closed=False), False
    # a hairpin: two legs joined by a U-turn
    gap = hw + rng.uniform(25, 60)
    cy = ah / 2 + rng.uniform(-0.08, 0.08) * ah
    turn = rng.uniform(0.65, 0.9) * aw
    pts = np.array([[-0.15 * aw, cy - gap + rng.uniform(-20, 20)],
                    [0.4 * aw, cy - gap + rng.uniform(-30, 30)],
                    [turn - 0.05 * aw, cy - gap * 0.95], [turn + gap * 0.8, cy],
                    [turn - 0.05 * aw, cy + gap * 0.95],
                    [0.4 * aw, cy + gap + rng.uniform(-30, 30)],
                    [-0.15 * aw, cy + gap + rng.uniform(-20, 20)]])
    if rng.random() < 0.5:
        pts[:, 0] = aw - pts[:, 0]
    return _catmull_rom(pts, closed=False), False


def random_track(rng: np.random.Generator, area_mm: tuple[float, float], keep_out: list[BaseGeometry],
                 ) -> Polygon:
    """A random drivable region (mm, may have holes): a band of half-width 80-140 mm around a
    smooth loop, S-curve or hairpin, clipped to the area less a 10-25 mm margin and less the
    *keep_out* polygons (grown by the widest printed line, so the line stays out of them too),
    with corners rounded to 4 mm, slivers and holes under 3000 mm^2 dropped. The largest part."""
    aw, ah = area_mm
    for _ in range(100):
        hw = float(rng.uniform(*HALF_WIDTH_MM))
        curve, closed = _centreline(rng, area_mm, hw)
        band = LineString(curve).buffer(hw, quad_segs=16, cap_style="round" if closed else "flat")
        margin = float(rng.uniform(10.0, 25.0))
        region = band.intersection(box(margin, margin, aw - margin, ah - margin))
        if keep_out:
            region = region.difference(unary_union([k.buffer(LINE_WIDTH_MM[1] + 1.0, join_style="mitre")
                                                    for k in keep_out]))
        region = region.buffer(-4.0, quad_segs=8).buffer(4.0, quad_segs=8)
        parts = _polygons(region)
        if not parts:
            continue
        best = max(parts, key=lambda p: p.area)
        holes = [r for r in best.interiors if Polygon(r).area >= 3000.0]
        best = Polygon(best.exterior, holes).simplify(0.01)
        if not isinstance(best, Polygon) or not best.is_valid:
            continue
        if best.area < 0.15 * aw * ah:
            continue
        return best
    raise RuntimeError("random_track: no usable track")  # pragma: no cover


# --------------------------------------------------------------------------- pieces


@dataclass(frozen=True, eq=False)
class PlacedPiece:
    """A piece on the table and its ground truth.

    ``x_mm``, ``y_mm``, ``theta_rad`` place the piece's own frame (``geometry.place``);
    ``outline_mm`` (N, 2) is its footprint on the table; ``markers_mm`` maps each marker id
    to its corners (4, 2) TL, TR, BR, BL in table x, y at the top face, ``height_mm`` above the
    table; ``clearance_mm`` and ``contact_mm`` are ``geometry.clearance`` of the footprint
    against the drivable region.
    """

    spec: PieceSpec
    x_mm: float
    y_mm: float
    theta_rad: float
    outline_mm: np.ndarray
    markers_mm: dict[int, np.ndarray]
    height_mm: float
    clearance_mm: float
    contact_mm: tuple[float, float]

    @property
    def polygon(self) -> Polygon:
        """The footprint as a shapely polygon, mm."""
        return geometry.polygon(self.outline_mm)


class _SDF:
    """Approximate signed distance to the track's edge (mm, positive inside) from a 2 px/mm raster."""

    def __init__(self, track: Polygon, bounds: tuple[float, float, float, float], ppm: float = 2.0) -> None:
        x0, y0, x1, y1 = bounds
        self.x0, self.y0, self.ppm = x0, y0, ppm
        w, h = int(math.ceil((x1 - x0) * ppm)) + 1, int(math.ceil((y1 - y0) * ppm)) + 1
        to_px = np.array([[ppm, 0, -x0 * ppm], [0, ppm, -y0 * ppm], [0, 0, 1.0]])
        mask = np.zeros((h, w), np.uint8)
        _fill(mask, _transform(track, to_px), 1)
        din = np.asarray(cv2.distanceTransform(mask, cv2.DIST_L2, cv2.DIST_MASK_5), np.float32)
        dout = np.asarray(cv2.distanceTransform(1 - mask, cv2.DIST_L2, cv2.DIST_MASK_5), np.float32)
        self.field = np.where(mask > 0, din - 0.5, 0.5 - dout) / np.float32(ppm)

    def __call__(self, pts: np.ndarray) -> np.ndarray:
        """Signed distances (...) at table points (..., 2), mm; far outside beyond the raster."""
        p = np.asarray(pts, np.float64)
        shape = p.shape[:-1]
        n = int(np.prod(shape))
        cols = 1024
        rows = max(1, -(-n // cols))
        u = np.full(rows * cols, -10.0, np.float32)
        v = np.full(rows * cols, -10.0, np.float32)
        u[:n] = ((p[..., 0] - self.x0) * self.ppm).ravel()
        v[:n] = ((p[..., 1] - self.y0) * self.ppm).ravel()
        val = np.asarray(cv2.remap(self.field, u.reshape(rows, cols), v.reshape(rows, cols), cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=-1000.0))
        return np.asarray(val.ravel()[:n].reshape(shape), np.float64)


def _densify(outline: np.ndarray, step: float = 2.0) -> np.ndarray:
    """Points (M, 2) along a closed outline (N, 2), at most *step* mm apart."""
    out = []
    for a, b in zip(outline, np.roll(outline, -1, axis=0), strict=True):
        n = max(1, int(math.ceil(float(np.linalg.norm(b - a)) / step)))
        out.append(a + (b - a) * (np.arange(n) / n)[:, None])
    return np.vstack(out)


def _rot(theta: float) -> np.ndarray:
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s], [s, c]])


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


def _make_piece(spec: PieceSpec, x: float, y: float, theta: float, track: Polygon) -> PlacedPiece:
    """A piece placed at (x, y, theta) with its exact clearance against *track*."""
    outline = geometry.place(spec.outline_mm, x, y, theta)
    c = geometry.clearance(geometry.polygon(outline), track)
    markers = {mid: geometry.place(corners, x, y, theta) for mid, corners in spec.markers.items()}
    return PlacedPiece(spec, float(x), float(y), float(theta), outline, markers, float(spec.height_mm),
                       float(c.clearance_mm), (float(c.contact_mm[0]), float(c.contact_mm[1])))


def _edge_points(track: Polygon) -> list[LineString]:
    """The track's edge rings as LineStrings."""
    return [LineString(r.coords) for r in [track.exterior, *track.interiors]]


def random_pieces(rng: np.random.Generator, layout: Layout, track: Polygon, count: int, *,
                  keep_out: list[BaseGeometry] | None = None,
                  contact_chance: float = 0.1) -> list[PlacedPiece]:
    """Up to *count* distinct pieces of *layout* placed on the table, most of them near the edge.

    70 % get a target clearance uniform in [-6, 6] mm: a random point of the edge, a heading
    (mostly along the edge), then the piece is slid along the edge's normal until its
    clearance (from a distance raster) meets the target; the rest go anywhere in the area or
    6-40 mm off the edge either way. The recorded clearance is always the exact
    ``geometry.clearance``. Pieces stay inside the play area, 3 mm clear of the table markers'
    stickers (*keep_out*, by default worked out from the layout) and 6 mm clear of each other,
    except that with probability *contact_chance* one dragon is put against a template
    (gap -1.5..1.5 mm: touching, or just overlapping, the dragon drawn above).
    """
    aw, ah = table_area(layout)
    stickers = keep_out if keep_out is not None else _sticker_keep_out(layout)
    blocked = unary_union([k.buffer(PIECE_KEEP_OUT_MM) for k in stickers]) if stickers else Polygon()
    inside = box(1.0, 1.0, aw - 1.0, ah - 1.0)
    sdf = _SDF(track, (-5.0, -5.0, aw + 5.0, ah + 5.0))
    rings = _edge_points(track)
    lengths = np.array([r.length for r in rings])
    specs = list(layout.pieces)
    order = [specs[i] for i in rng.permutation(len(specs))]
    placed: list[PlacedPiece] = []
    want_contact = (count >= 2 and rng.random() < contact_chance
                    and any(s.kind == "template" for s in specs) and any(s.kind == "dragon" for s in specs))

    def fits(outline: np.ndarray, others: list[PlacedPiece], gap: float = 6.0) -> bool:
        poly = geometry.polygon(outline)
        if not poly.within(inside) or poly.intersects(blocked):
            return False
        return all(poly.distance(o.polygon) >= gap for o in others)

    def near_edge(spec: PieceSpec, target: float) -> PlacedPiece | None:
        local = _densify(spec.outline_mm, 3.0)
        centroid = np.asarray(geometry.polygon(spec.outline_mm).centroid.coords[0])
        radius = float(np.linalg.norm(local - centroid, axis=1).max())
        for _ in range(40):
            ring = rings[int(rng.choice(len(rings), p=lengths / lengths.sum()))]
            s = float(rng.uniform(0, ring.length))
            p = np.asarray(ring.interpolate(s).coords[0])
            ahead, behind = ring.interpolate(s + 0.5).coords[0], ring.interpolate(s - 0.5).coords[0]
            tangent = np.asarray(ahead) - np.asarray(behind)
            if np.linalg.norm(tangent) < 1e-6:
                continue
            tangent /= np.linalg.norm(tangent)
            normal = np.array([-tangent[1], tangent[0]])
            if sdf(p + 2.0 * normal) < sdf(p - 2.0 * normal):
                normal = -normal  # point it into the drivable region
            if rng.random() < 0.6:  # roughly along the edge, either way round
                heading = (math.atan2(float(tangent[1]), float(tangent[0])) + float(rng.uniform(-0.45, 0.45))
                           + math.pi * int(rng.integers(0, 2)))
            else:
                heading = float(rng.uniform(-math.pi, math.pi))
            rot = _rot(heading)
            body = (local - centroid) @ rot.T
            ts = np.linspace(-radius - 5.0, radius + 5.0, int(2 * radius + 10) // 2 + 1)
            centres = p[None, :] + ts[:, None] * normal[None, :]
            clear = sdf(centres[:, None, :] + body[None, :, :]).min(axis=1)
            hit = np.nonzero(clear >= target)[0]
            if len(hit) == 0 or hit[0] == 0:
                continue
            lo, hi = float(ts[hit[0] - 1]), float(ts[hit[0]])
            for _ in range(9):
                mid = 0.5 * (lo + hi)
                if sdf((p + mid * normal)[None, :] + body).min() >= target:
                    hi = mid
                else:
                    lo = mid
            origin = p + hi * normal - rot @ centroid
            outline = geometry.place(spec.outline_mm, origin[0], origin[1], heading)
            if fits(outline, placed):
                return _make_piece(spec, float(origin[0]), float(origin[1]), heading, track)
        return None

    def anywhere(spec: PieceSpec) -> PlacedPiece | None:
        for _ in range(40):
            heading = rng.uniform(-math.pi, math.pi)
            x, y = rng.uniform(0, aw), rng.uniform(0, ah)
            outline = geometry.place(spec.outline_mm, x, y, heading)
            if fits(outline, placed):
                return _make_piece(spec, x, y, heading, track)
        return None

    def against(dragon: PieceSpec, template: PlacedPiece) -> PlacedPiece | None:
        poly = template.polygon
        for _ in range(40):
            s = float(rng.uniform(0, poly.exterior.length))
            q = np.asarray(poly.exterior.interpolate(s).coords[0])
            a = np.asarray(poly.exterior.interpolate(s - 0.5).coords[0])
            b = np.asarray(poly.exterior.interpolate(s + 0.5).coords[0])
            tangent = (b - a) / max(1e-9, float(np.linalg.norm(b - a)))
            normal = np.array([-tangent[1], tangent[0]])
            if poly.contains(Point(*(q + 1.0 * normal))):
                normal = -normal
            heading = rng.uniform(-math.pi, math.pi)
            body = dragon.outline_mm @ _rot(heading).T
            reach = float((body @ -normal).max())  # how far the dragon reaches towards the template
            gap = rng.uniform(-1.5, 1.5)
            origin = q + normal * (reach + gap)
            outline = geometry.place(dragon.outline_mm, origin[0], origin[1], heading)
            others = [o for o in placed if o is not template]
            if fits(outline, others) and geometry.polygon(outline).distance(poly) <= 2.0:
                return _make_piece(dragon, float(origin[0]), float(origin[1]), heading, track)
        return None

    if want_contact:  # a template among the first placed, the dragon saved for the last slot
        first_template = next(i for i, sp in enumerate(order) if sp.kind == "template")
        order.insert(0, order.pop(first_template))
    normal_count = count - 1 if want_contact else count
    for spec in order:
        if len(placed) >= normal_count:
            break
        roll = rng.random()
        if roll < 0.7:
            piece = near_edge(spec, float(rng.uniform(-6.0, 6.0)))
        elif roll < 0.85:
            piece = anywhere(spec)
        else:
            piece = near_edge(spec, float(rng.uniform(6.0, 40.0) * rng.choice([-1.0, 1.0])))
        if piece is not None:
            placed.append(piece)
    if want_contact:
        used = {p.spec.marker_id for p in placed}
        templates = [p for p in placed if p.spec.kind == "template"]
        dragons = [sp for sp in order if sp.kind == "dragon" and sp.marker_id not in used]
        if templates and dragons:
            d = against(dragons[0], templates[int(rng.integers(0, len(templates)))])
            if d is not None:
                placed.append(d)
    return placed


# --------------------------------------------------------------------------- scene


@dataclass(frozen=True, eq=False)
class Scene:
    """A rendered scene and its truth: the image (BGR uint8), the camera, the layout, the
    drivable region (table mm), the pieces, 2-3 seed points (mm) well inside the track and
    clear of pieces and printed distractors, the effects applied, and the printed line's width (mm)."""

    image: np.ndarray
    camera: CameraModel
    layout: Layout
    track: Polygon
    pieces: list[PlacedPiece]
    seeds_mm: list[tuple[float, float]]
    effects: Effects
    line_width_mm: float = 0.0


def _shade(bgr: Sequence[float], f: float) -> tuple[float, float, float]:
    return (float(bgr[0]) * f, float(bgr[1]) * f, float(bgr[2]) * f)


def _board(rng: np.random.Generator, area: tuple[float, float], track: Polygon,
           line_w: float, stickers: list[tuple[BaseGeometry, BaseGeometry]], pieces: list[PlacedPiece],
           ) -> tuple[np.ndarray, np.ndarray, list[BaseGeometry]]:
    """The printed mat with markers and the pieces' shadows: (BGR uint8 texture, texture->table
    3x3, the distractors printed inside the track as mm geometry)."""
    aw, ah = area
    s = 1.0 / BOARD_PX_PER_MM
    m = float(rng.uniform(5.0, 25.0))
    tw, th = int(math.ceil((aw + 2 * m) / s)), int(math.ceil((ah + 2 * m) / s))
    to_table = np.array([[s, 0, -m + 0.5 * s], [0, s, -m + 0.5 * s], [0, 0, 1.0]])
    to_px = np.linalg.inv(to_table)

    # the off-track print: a darker blue-green with soft colourful clouds, at 1 px/mm then upsampled
    cw_, ch_ = int(math.ceil(tw * s)), int(math.ceil(th * s))
    base = np.array([rng.uniform(95, 150), rng.uniform(85, 135), rng.uniform(15, 60)], np.float32)
    outside = np.empty((ch_, cw_, 3), np.float32)
    outside[:] = base
    outside *= 1.0 + _smooth_noise(rng, (ch_, cw_), 60.0, 0.10)[..., None]
    for _ in range(int(rng.integers(4, 10))):
        col = tuple(float(v) for v in rng.uniform(70, 220, 3))  # never as dark as the edge line
        centre = (int(rng.uniform(0, cw_)), int(rng.uniform(0, ch_)))
        axes = (int(rng.uniform(15, 80)), int(rng.uniform(10, 50)))
        cv2.ellipse(outside, centre, axes, float(rng.uniform(0, 180)), 0, 360, col, -1, cv2.LINE_AA)
    outside = np.asarray(cv2.GaussianBlur(outside, (0, 0), 2.0), np.float32)
    outside += _smooth_noise(rng, (ch_, cw_), 4.0, 6.0)[..., None]
    board = np.asarray(cv2.resize(np.clip(outside, 0, 255).astype(np.uint8), (tw, th),
                                  interpolation=cv2.INTER_LINEAR), np.uint8)

    # the track surface: light, mildly printed
    light = np.array([rng.uniform(185, 235), rng.uniform(190, 235), rng.uniform(180, 230)], np.float32)
    surf = np.empty((ch_, cw_, 3), np.float32)
    surf[:] = light
    surf *= 1.0 + _smooth_noise(rng, (ch_, cw_), 40.0, 0.04)[..., None]
    surf += _smooth_noise(rng, (ch_, cw_), 3.0, 4.0)[..., None]
    surface = np.asarray(cv2.resize(np.clip(surf, 0, 255).astype(np.uint8), (tw, th),
                                    interpolation=cv2.INTER_LINEAR), np.uint8)

    # distractors printed inside the track: yellow guide lines across it, energy fields, spell symbols
    distractors: list[BaseGeometry] = []
    edge = track.boundary
    minx, miny, maxx, maxy = track.bounds

    def inner_point(min_depth: float) -> np.ndarray | None:
        for _ in range(200):
            q = Point(rng.uniform(minx, maxx), rng.uniform(miny, maxy))
            if track.contains(q) and edge.distance(q) >= min_depth:
                return np.asarray(q.coords[0])
        return None

    lines_wanted, tries = int(rng.integers(2, 6)), 0
    while lines_wanted > 0 and tries < 30:
        tries += 1
        q = inner_point(25.0)
        if q is None:
            break
        near = np.asarray(nearest_points(edge, Point(*q))[0].coords[0])
        d = q - near
        d /= max(1e-9, float(np.linalg.norm(d)))
        d = _rot(float(rng.uniform(-0.2, 0.2))) @ d
        cut = LineString([q - 600 * d, q + 600 * d]).intersection(track)
        parts = [g for g in getattr(cut, "geoms", [cut])
                 if isinstance(g, LineString) and g.distance(Point(*q)) < 1e-6]
        if not parts or parts[0].length > 2.4 * HALF_WIDTH_MM[1]:
            continue  # runs along the track rather than across it
        lines_wanted -= 1
        width = float(rng.uniform(0.8, 2.5))
        stripe = parts[0].buffer(width / 2, cap_style="flat")
        yellow = (rng.uniform(20, 70), rng.uniform(180, 225), rng.uniform(210, 245))
        _print(surface, _transform(stripe, to_px), yellow)
        distractors.append(stripe)
    for _ in range(int(rng.integers(2, 6))):
        r = float(rng.uniform(8.0, 35.0))
        q = inner_point(r + 3.0)
        if q is None:
            break
        disc = Point(*q).buffer(r, quad_segs=32)
        col = tuple(float(v) for v in rng.uniform(20, 240, 3))
        if rng.random() < 0.5:
            ring = disc.difference(Point(*q).buffer(r - rng.uniform(1.5, 5.0)))
            _print(surface, _transform(ring, to_px), col)
        else:
            _print(surface, _transform(disc, to_px), col, float(rng.uniform(0.4, 1.0)))
        distractors.append(disc)
    for _ in range(int(rng.integers(0, 4))):
        r = float(rng.uniform(6.0, 15.0))
        q = inner_point(r + 3.0)
        if q is None:
            break
        k = int(rng.integers(5, 8))
        ang = np.arange(2 * k) * np.pi / k + rng.uniform(0, np.pi)
        rad = np.where(np.arange(2 * k) % 2 == 0, r, r * 0.45)
        star = Polygon(np.column_stack([q[0] + rad * np.cos(ang), q[1] + rad * np.sin(ang)]))
        _print(surface, _transform(star, to_px), tuple(float(v) for v in rng.uniform(20, 200, 3)))
        distractors.append(star)

    # compose: outside, then the line (outside the drivable region), then the track
    line_col = np.array([rng.uniform(15, 60), rng.uniform(15, 55), rng.uniform(15, 55)], np.float32)
    flat = board.reshape(-1, 3)
    outer = _transform(track.buffer(line_w, quad_segs=32), to_px)
    oidx, ocov = _edge_band(outer, (th, tw))
    under = flat[oidx].astype(np.float32)
    _fill(board, outer, [float(v) for v in line_col])
    flat[oidx] = np.clip(line_col[None, :] * ocov[:, None] + under * (1 - ocov[:, None]) + 0.5, 0, 255
                         ).astype(np.uint8)
    inner = _transform(track, to_px)
    iidx, icov = _edge_band(inner, (th, tw))
    under = flat[iidx].astype(np.float32)  # the line, before the surface covers the centres inside
    inner_mask = np.zeros((th, tw), np.uint8)
    _fill(inner_mask, inner, 1)
    board = np.asarray(cv2.copyTo(surface, inner_mask, board), np.uint8)
    flat = board.reshape(-1, 3)
    sflat = surface.reshape(-1, 3)
    flat[iidx] = np.clip(sflat[iidx].astype(np.float32) * icov[:, None] + under * (1 - icov[:, None]) + 0.5,
                         0, 255).astype(np.uint8)

    # table markers: printed stickers stuck on the mat
    for sticker, ink in stickers:
        paper = _shade((rng.uniform(232, 250), rng.uniform(235, 250), rng.uniform(232, 250)), 1.0)
        _paint(board, _transform(sticker, to_px), paper)
        _paint(board, _transform(ink, to_px), _shade((rng.uniform(15, 35),) * 3, 1.0))

    # soft shadows of the pieces under one light
    if pieces:
        light_dir = _rot(float(rng.uniform(-math.pi, math.pi))) @ np.array([1.0, 0.0])
        darkness = float(rng.uniform(0.15, 0.35))
        soft = float(rng.uniform(1.0, 3.0))  # mm
        slope = float(rng.uniform(0.35, 0.9))
        for piece in pieces:
            off = light_dir * (1.5 + piece.height_mm * slope)
            fp = piece.outline_mm
            shifted = fp + off
            quads = [Polygon([fp[i], fp[(i + 1) % len(fp)], shifted[(i + 1) % len(fp)], shifted[i]]).buffer(0)
                     for i in range(len(fp))]
            shadow = unary_union([geometry.polygon(fp), geometry.polygon(shifted), *quads])
            # the shadow is soft: drawn and blurred at 1 px/mm, then stretched over the board's pixels
            x0, y0, x1, y1 = shadow.bounds
            pad = 4.0 * soft + 2.0
            c0 = max(0, int((x0 - pad + m) * BOARD_PX_PER_MM))
            r0 = max(0, int((y0 - pad + m) * BOARD_PX_PER_MM))
            c1 = min(tw, int(math.ceil((x1 + pad + m) * BOARD_PX_PER_MM)))
            r1 = min(th, int(math.ceil((y1 + pad + m) * BOARD_PX_PER_MM)))
            if c1 <= c0 or r1 <= r0:
                continue
            k = int(BOARD_PX_PER_MM)
            lw, lh = -(-(c1 - c0) // k), -(-(r1 - r0) // k)
            coarse = to_px.copy()
            coarse[:2] /= k
            coarse = _translate(-c0 / k + 0.5 / k - 0.5, -r0 / k + 0.5 / k - 0.5) @ coarse
            mask = np.zeros((lh, lw), np.float32)
            rings = [np.round(r[:-1] * 256).astype(np.int32) for r in _rings(_transform(shadow, coarse))]
            cv2.fillPoly(mask, rings, 1.0, cv2.LINE_AA, 8)
            mask = np.asarray(cv2.GaussianBlur(mask, (0, 0), soft), np.float32)
            fine = np.asarray(cv2.resize(mask, (lw * k, lh * k), interpolation=cv2.INTER_LINEAR))
            fine = fine[:r1 - r0, :c1 - c0]
            roi = board[r0:r1, c0:c1].astype(np.float32)
            roi *= (1.0 - darkness * fine)[..., None]
            board[r0:r1, c0:c1] = np.clip(roi + 0.5, 0, 255).astype(np.uint8)

    return board, to_table, distractors


def _piece_colours(rng: np.random.Generator, spec: PieceSpec) -> tuple[tuple[float, float, float], float]:
    """Body colour (BGR) and opacity of a piece: translucent cream/grey plastic, or the dragon's colour."""
    if spec.kind == "template":
        tone = [(205, 222, 232), (214, 216, 218), (200, 215, 215)][int(rng.integers(0, 3))]
        col = tuple(float(np.clip(v + rng.uniform(-10, 10), 0, 255)) for v in tone)
        return (col[0], col[1], col[2]), float(rng.uniform(0.78, 0.92))
    named = _DRAGON_BGR.get((spec.name or "").lower())
    base = named if named is not None else tuple(float(v) for v in rng.uniform(30, 220, 3))
    col = tuple(float(np.clip(v * rng.uniform(0.9, 1.1), 0, 255)) for v in base)
    return (col[0], col[1], col[2]), 1.0


def _draw_piece(canvas: _Canvas, rng: np.random.Generator, layout: Layout, piece: PlacedPiece) -> None:
    """The piece's visible side walls, then its top face (body and marker stickers) as a layer."""
    spec = piece.spec
    body, alpha = _piece_colours(rng, spec)
    h = piece.height_mm
    # side walls: in the undistorted canvas, the walls' silhouette less the top face
    bottom = _apply_h(canvas.plane(0.0), piece.outline_mm)
    top = _apply_h(canvas.plane(h), piece.outline_mm)
    if h > 0:
        n = len(bottom)
        quads = [Polygon([bottom[i], bottom[(i + 1) % n], top[(i + 1) % n], top[i]]).buffer(0)
                 for i in range(n)]
        walls = unary_union([geometry.polygon(bottom), *quads]).difference(geometry.polygon(top))
        canvas.paint(walls, _shade(body, float(rng.uniform(0.55, 0.8))), alpha)
    # the top face texture, in the piece's own frame, at least as fine as the canvas samples it
    ppm = max(4.0, canvas.px_per_mm(piece.outline_mm, h))
    s = 1.0 / ppm
    lo = spec.outline_mm.min(axis=0) - 1.0
    hi = spec.outline_mm.max(axis=0) + 1.0
    tw, th = int(math.ceil((hi[0] - lo[0]) / s)), int(math.ceil((hi[1] - lo[1]) / s))
    local_to_px = np.array([[ppm, 0, -lo[0] * ppm - 0.5], [0, ppm, -lo[1] * ppm - 0.5], [0, 0, 1.0]])
    tex = np.zeros((th, tw, 4), np.float32)
    outline = geometry.polygon(spec.outline_mm)
    _paint(tex, _transform(outline, local_to_px), body, alpha)
    for mid, corners in spec.markers.items():
        sticker, ink = _marker_geoms(layout.dictionary, mid, corners, 1.0 + float(rng.uniform(0.0, 0.3)))
        paper = (float(rng.uniform(232, 250)), float(rng.uniform(235, 250)), float(rng.uniform(232, 250)))
        _paint(tex, _transform(sticker.intersection(outline), local_to_px), paper)
        ink_grey = float(rng.uniform(15, 35))
        _paint(tex, _transform(ink.intersection(outline), local_to_px), (ink_grey, ink_grey, ink_grey))
    c, sn = math.cos(piece.theta_rad), math.sin(piece.theta_rad)
    place = np.array([[c, -sn, piece.x_mm], [sn, c, piece.y_mm], [0, 0, 1.0]])
    canvas.layer(tex, place @ np.linalg.inv(local_to_px), h)


def _table_background(canvas: _Canvas, rng: np.random.Generator,
                      colour: Sequence[float] | None = None) -> None:
    """The table around the mat: a wood-ish (or given) colour with gentle shading."""
    ch, cw = canvas.image.shape[:2]
    base = np.asarray(colour if colour is not None else
                      (rng.uniform(50, 110), rng.uniform(80, 140), rng.uniform(110, 180)), np.float32)
    small = (max(2, ch // 16), max(2, cw // 16))
    field = (1.0 + _smooth_noise(rng, small, 6.0, 0.08))[..., None] * base
    field += _smooth_noise(rng, small, 1.5, 3.0)[..., None]
    canvas.fill(field)


def _seeds(rng: np.random.Generator, track: Polygon, pieces: list[PlacedPiece],
           distractors: list[BaseGeometry]) -> list[tuple[float, float]]:
    """2-3 points well inside the track (30 mm from the edge if it can be), 20 mm clear of
    pieces and 8 mm clear of printed distractors, spread apart."""
    avoid = unary_union([p.polygon.buffer(20.0) for p in pieces] + [d.buffer(8.0) for d in distractors])
    edge = track.boundary
    minx, miny, maxx, maxy = track.bounds
    cand: list[np.ndarray] = []
    for depth in (30.0, 20.0, 10.0):
        xs = rng.uniform(minx, maxx, 600)
        ys = rng.uniform(miny, maxy, 600)
        ok = shapely.contains_xy(track, xs, ys) & ~shapely.contains_xy(avoid, xs, ys)
        pts = shapely.points(xs[ok], ys[ok])
        deep = shapely.distance(pts, edge) >= depth
        cand = [np.array([x, y]) for x, y in zip(xs[ok][deep], ys[ok][deep], strict=True)]
        if len(cand) >= 3:
            break
    if not cand:
        return []
    want = int(rng.integers(2, 4))
    chosen = [cand[0]]
    while len(chosen) < min(want, len(cand)):
        far = max(cand, key=lambda c: min(float(np.linalg.norm(c - q)) for q in chosen))
        chosen.append(far)
    return [(float(c[0]), float(c[1])) for c in chosen]


def random_scene(seed: int, size: tuple[int, int] = (1280, 720), layout: Layout | None = None,
                 pieces: tuple[int, int] = (2, 6), empty: bool = False,
                 effects: Effects | None = None) -> Scene:
    """A random table scene and its truth, the same for the same arguments.

    The camera, track, pieces, print and effects draw from independent streams of *seed*, so
    e.g. passing ``effects=Effects.none()`` changes only the effects. *pieces* is the
    inclusive range of how many pieces to try to place (fewer may fit); *empty* gives the
    same table, camera and lighting with no pieces on it (for learning the track), its
    sensor noise drawn afresh as in any other frame.
    """
    lay = layout if layout is not None else load_layout()
    streams = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(9)]
    r_cam, r_track, r_pieces, r_board, r_fx, r_draw, r_seeds = streams[:7]
    r_noise = streams[8] if empty else streams[7]  # two frames never share their sensor noise
    area = table_area(lay)
    camera = random_camera(r_cam, size, area)
    stickers: list[tuple[BaseGeometry, BaseGeometry]] = []
    keep_out: list[BaseGeometry] = []
    for m in lay.table_markers:
        quiet = float(r_board.uniform(*QUIET_CELLS))
        sticker, ink = _marker_geoms(lay.dictionary, m.id, m.corners_mm, quiet)
        stickers.append((sticker, ink))
        keep_out.append(sticker.buffer(TRACK_KEEP_OUT_MM, join_style="mitre"))
    track = random_track(r_track, area, keep_out)
    placed: list[PlacedPiece] = []
    if not empty:
        count = int(r_pieces.integers(pieces[0], pieces[1] + 1))
        placed = random_pieces(r_pieces, lay, track, count, keep_out=[s for s, _ in stickers])
    fx = effects if effects is not None else Effects.random(r_fx)
    line_w = float(r_board.uniform(*LINE_WIDTH_MM))

    canvas = _Canvas(camera)
    _table_background(canvas, r_draw)
    tex, to_table, distractors = _board(r_board, area, track, line_w, stickers, placed)
    canvas.layer(tex, to_table, 0.0)
    for piece in sorted(placed, key=lambda p: p.height_mm):
        _draw_piece(canvas, r_draw, lay, piece)
    image = fx.apply(canvas.finish(), r_noise)
    seeds = _seeds(r_seeds, track, placed, distractors)
    return Scene(image, camera, lay, track, placed, seeds, fx, line_w)


def render_texture_on_table(texture: np.ndarray, mm_per_px: float, origin_mm: tuple[float, float],
                            camera: CameraModel, effects: Effects, rng: np.random.Generator,
                            background_bgr: tuple[int, int, int] = (90, 110, 90)) -> np.ndarray:
    """A flat printed sheet (grey or BGR uint8 *texture*, *mm_per_px* mm per pixel, its top-left
    corner at *origin_mm*) lying on a table of *background_bgr*, photographed by *camera*
    with *effects*. Returns BGR uint8. A sheet much finer than the camera sees it (a 300 dpi
    print) is first area-averaged down to about 1.5 texture px per canvas px."""
    tex = np.asarray(texture)
    if tex.ndim == 2:
        tex = np.asarray(cv2.cvtColor(tex, cv2.COLOR_GRAY2BGR))
    elif tex.shape[2] == 4:
        tex = np.asarray(cv2.cvtColor(tex, cv2.COLOR_BGRA2BGR))
    tex = tex.astype(np.uint8)
    canvas = _Canvas(camera)
    _table_background(canvas, rng, background_bgr)
    th, tw = tex.shape[:2]
    ox, oy = origin_mm
    corners = np.array([[ox, oy], [ox + tw * mm_per_px, oy], [ox + tw * mm_per_px, oy + th * mm_per_px],
                        [ox, oy + th * mm_per_px]])
    need = 1.5 * canvas.px_per_mm(corners)
    sx = sy = mm_per_px
    if 1.0 / mm_per_px > 1.5 * need:
        nw, nh = max(1, int(round(tw * mm_per_px * need))), max(1, int(round(th * mm_per_px * need)))
        tex = np.asarray(cv2.resize(tex, (nw, nh), interpolation=cv2.INTER_AREA), np.uint8)
        sx, sy = mm_per_px * tw / nw, mm_per_px * th / nh
    to_table = np.array([[sx, 0, ox + 0.5 * sx], [0, sy, oy + 0.5 * sy], [0, 0, 1.0]])
    canvas.layer(tex, to_table, 0.0)
    return effects.apply(canvas.finish(), rng)
