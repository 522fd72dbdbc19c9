"""Regions to pixels: homographies applied to points and to shapely geometry, and regions drawn
into arrays, exact-edged or with OpenCV's antialiasing.

A region is given in its array's pixel-centre coordinates: pixel ``(row i, col j)`` has its
centre at ``(x=j, y=i)``. Exact edges take each pixel's coverage within 1.5 px of an edge
from its signed distance to the polygon, so an edge's 50 % point is where the geometry says.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np
import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

_BAND_PX = 1.5  # pixels this close to an edge get their coverage from the exact distance
_SEG_PX = 4.0  # edges are cut into pieces this long (px) before the distance pass


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


def _rot(theta: float) -> np.ndarray:
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s], [s, c]])


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
