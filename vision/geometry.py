"""Plane geometry in table millimetres (shapely): a piece against the track's edge.

Pure and camera-free: the ground truth of the synthetic scenes and the verdicts of
``check-flight`` both come from here, so they cannot disagree about what "clearance" is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import MultiPolygon, Polygon
from shapely.ops import nearest_points

REACH_STEP_MM = 0.05
"""How finely the outline of a piece's part past the edge is searched for its farthest point."""


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


def clearance(piece: Polygon, track: Polygon | MultiPolygon) -> Clearance:
    """The signed clearance of *piece* against the edge of the drivable region *track*."""
    edge = track.boundary
    if piece.within(track) and not piece.intersects(edge):
        on_edge, _ = nearest_points(edge, piece)
        return Clearance(float(piece.distance(edge)), (on_edge.x, on_edge.y))
    outside = piece.difference(track)
    reach = 0.0
    if not outside.is_empty:
        # the farthest point of the part outside lies on that part's outline (where the piece's
        # edge crosses an infield, often between the outline's vertices): sampled every REACH_STEP_MM
        points = shapely.get_coordinates(shapely.segmentize(shapely.boundary(outside), REACH_STEP_MM))
        if len(points):
            reach = float(shapely.distance(track, shapely.points(points)).max())
    crossing = piece.intersection(edge)
    if not crossing.is_empty:
        mid = crossing.centroid if crossing.length == 0 else crossing.interpolate(0.5, normalized=True) \
            if crossing.geom_type == "LineString" else crossing.centroid
        contact = nearest_points(edge, mid)[0]
    else:
        contact = nearest_points(edge, piece)[0]
    return Clearance(-reach, (contact.x, contact.y))
