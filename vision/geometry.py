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
every REACH_STEP_MM where the coarse samples leave room for a farther one."""


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
    point of the piece outside it. That point lies on the piece's own outline (the rest of the
    outline of the part outside is the track's edge), often between its corners (a straight edge
    across a round infield). The distance changes by at most the step along the outline, so only
    coarse samples within a step of the largest are searched finely. Only the edge near the part
    outside is searched: no point of it is farther from the edge than the part is across."""
    outside = piece.difference(track)
    if outside.is_empty:
        return 0.0
    x0, y0, x1, y1 = outside.bounds
    across = float(np.hypot(x1 - x0, y1 - y0)) + REACH_COARSE_MM
    near = shapely.clip_by_rect(edge, x0 - across, y0 - across, x1 + across, y1 + across)
    ring = shapely.get_coordinates(piece.exterior)
    at = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(ring, axis=0).T))])  # along the outline
    length = float(at[-1])

    def farthest(along: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        s = np.mod(along, length)
        xy = np.column_stack([np.interp(s, at, ring[:, 0]), np.interp(s, at, ring[:, 1])])
        out = ~shapely.contains_xy(track, xy[:, 0], xy[:, 1])
        return along[out], np.asarray(shapely.distance(near, shapely.points(xy[out])), np.float64)

    along, dist = farthest(np.arange(0.0, length, REACH_COARSE_MM))
    if not len(dist):
        return 0.0
    near_max = along[dist >= dist.max() - REACH_COARSE_MM]
    fine = (near_max[:, None] + np.arange(-REACH_COARSE_MM / 2, REACH_COARSE_MM / 2, REACH_STEP_MM)).ravel()
    _along, dist = farthest(np.concatenate([fine, near_max]))
    return float(dist.max()) if len(dist) else 0.0


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
