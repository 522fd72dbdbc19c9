"""Plane geometry in table millimetres (shapely): a piece against the track's edge.

Pure and camera-free: the ground truth of the synthetic scenes and the verdicts of
``check-flight`` both come from here, so they cannot disagree about what "clearance" is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points

REACH_COARSE_MM = 1.0
REACH_STEP_MM = 0.05
"""A piece's outline is searched for its point farthest past the edge every REACH_COARSE_MM, then
every REACH_STEP_MM where the coarse samples leave room for a farther one (:func:`_reach`)."""


@dataclass(frozen=True)
class Clearance:
    """A piece against the edge: ``clearance_mm`` is the distance to the nearest edge when
    the piece lies fully inside the drivable region, and minus how far it reaches past the
    edge otherwise (0 for a piece that just touches). ``contact_mm`` is the point on the
    edge nearest to the piece, or, when it touches, the middle of where it meets the edge."""

    clearance_mm: float
    contact_mm: tuple[float, float]

    @property
    def touches(self) -> bool:
        return self.clearance_mm <= 0.0


def polygon(points: np.ndarray) -> Polygon:
    """A valid polygon from (N, 2) points (made valid if it crosses itself)."""
    poly = Polygon([(float(x), float(y)) for x, y in points])
    return poly if poly.is_valid else shapely.make_valid(poly).buffer(0)


def place(points: np.ndarray, x: float, y: float, theta_rad: float) -> np.ndarray:
    """Points of a piece's own frame put on the table: rotated by *theta_rad*, then moved to (x, y)."""
    c, s = np.cos(theta_rad), np.sin(theta_rad)
    rot = np.array([[c, -s], [s, c]])
    return np.asarray(points @ rot.T + np.array([x, y]), np.float64)


def _reach(piece: Polygon, track: Polygon | MultiPolygon, edge: BaseGeometry) -> float:
    """How far *piece* reaches past *track*'s *edge*: the largest distance from the track of a
    point of the piece outside it. That point lies on the part of the piece's outline outside the
    track, often between its corners (a straight edge across a round infield). The distance changes
    by at most as much as the point moves, so a straight stretch of outline whose ends lie a and b
    from the edge, L apart, holds no point farther than (a + b + L) / 2: the outline is cut into
    stretches of at most REACH_COARSE_MM, and those that could hold a point farther than the
    farthest found by more than REACH_STEP_MM / 2 are searched every REACH_STEP_MM. Only the edge
    near that part of the outline is searched: no point of it is farther from the edge than the
    part is across (and away from the track), nor than the most a stretch could hold."""
    lines = shapely.get_parts(shapely.difference(piece.boundary, track))
    xy, part = shapely.get_coordinates(lines, return_index=True)
    same = part[1:] == part[:-1]
    a, b = xy[:-1][same], xy[1:][same]  # the straight stretches of outline outside the track
    if not len(a):
        return 0.0
    x0, y0, x1, y1 = shapely.total_bounds(lines)
    gap = 0.0 if piece.intersects(edge) else float(piece.distance(edge))  # a piece wholly off the track
    across = float(np.hypot(x1 - x0, y1 - y0)) + gap + REACH_COARSE_MM
    near = shapely.clip_by_rect(edge, x0 - across, y0 - across, x1 + across, y1 + across)
    pts, pair = _along(a, b, REACH_COARSE_MM)
    dist = _distance(near, pts)
    da, db = dist[pair], dist[pair + 1]
    best = float(dist.max())
    could = (da + db + np.hypot(*(pts[pair + 1] - pts[pair]).T)) / 2  # the most each stretch could hold
    reach = float(could.max())
    if reach <= best + REACH_STEP_MM / 2:
        return best
    # the stretches that could hold a farther point, finely; against only the edge within reach
    near = shapely.clip_by_rect(near, x0 - reach, y0 - reach, x1 + reach, y1 + reach)
    fine = could > best + REACH_STEP_MM / 2
    pts, _pair = _along(pts[pair[fine]], pts[pair[fine] + 1], REACH_STEP_MM)
    return max(best, float(_distance(near, pts).max()))


def _distance(edge: BaseGeometry, points: np.ndarray) -> np.ndarray:
    return np.asarray(shapely.distance(edge, shapely.points(points)), np.float64)


def _along(a: np.ndarray, b: np.ndarray, step: float) -> tuple[np.ndarray, np.ndarray]:
    """Points every *step* at most along the straight stretches from *a* to *b* (each (N, 2)), their
    ends included, and the index of each point that has a next one on the same stretch."""
    n = np.maximum(np.ceil(np.hypot(*(b - a).T) / step), 1).astype(int)
    stretch = np.repeat(np.arange(len(a)), n + 1)
    k = np.arange(len(stretch)) - np.repeat(np.cumsum(n + 1) - (n + 1), n + 1)
    pts = a[stretch] + (k / n[stretch])[:, None] * (b - a)[stretch]
    return pts, np.flatnonzero(k < n[stretch])


def clearance(piece: Polygon, track: Polygon | MultiPolygon) -> Clearance:
    """The signed clearance of *piece* against the edge of the drivable region *track*."""
    edge = track.boundary
    if piece.within(track) and not piece.intersects(edge):
        on_edge, _ = nearest_points(edge, piece)
        return Clearance(float(piece.distance(edge)), (on_edge.x, on_edge.y))
    reach = _reach(piece, track, edge)
    crossing = piece.intersection(edge)
    if not crossing.is_empty:
        mid = crossing.centroid if crossing.length == 0 else crossing.interpolate(0.5, normalized=True) \
            if crossing.geom_type == "LineString" else crossing.centroid
        contact = nearest_points(edge, mid)[0]
    else:
        contact = nearest_points(edge, piece)[0]
    return Clearance(-reach, (contact.x, contact.y))
