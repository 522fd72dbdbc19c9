"""The drivable region: a band around a random smooth centreline (a loop, an S-curve or a
hairpin), clear of what it must keep out of.
"""

from __future__ import annotations

import math

import numpy as np
from shapely.geometry import LineString, Polygon, box
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from tests.support.synth.raster import _polygons

LINE_WIDTH_MM = (2.0, 4.0)
"""Range of the printed edge line's width, mm (the line lies outside the drivable region)."""
HALF_WIDTH_MM = (80.0, 140.0)
"""Range of the track band's half-width, mm."""


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
