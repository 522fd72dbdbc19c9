"""Pieces placed on the table with their truth: most near the track's edge at a chosen
clearance, the recorded clearance always the exact one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from shapely.geometry import LineString, Point, Polygon, box
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from tests.support.synth.markers import _sticker_keep_out, table_area
from tests.support.synth.raster import _fill, _rot, _transform
from vision import geometry
from vision.layout import Layout, PieceSpec

PIECE_KEEP_OUT_MM = 3.0
"""How far a piece keeps from a table marker's sticker, mm."""


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
