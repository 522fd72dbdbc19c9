"""A piece's pose from its own outline in the frame, where its markers alone leave it loose.

A flight-path template can be 250 mm long and carry one 18 mm marker: the marker's corners
fix its place well and its angle poorly, and at the far end a tenth of a degree is half a
millimetre. The template's own sides are long straight edges against the board. Starting from
the markers' pose, points every :data:`STEP_MM` along the outline are each looked for along the
outline's normal: the strongest change of colour whose inner side is the piece's own colour (its
median inside the outline, in CIELAB) and whose outer side is not, placed to a fraction of a
sample where the colour is half way between the two sides. A robust least-squares fit of those
displacements corrects the pose (a shift and a turn; a grow of the whole outline takes up an edge
seen a little in or out all round), twice. The corrected pose's covariance comes from the points'
scatter about the fit and from a bias each whole side may carry (a rim, a shadow).

:func:`fit_outline` gives nothing when too little of the outline is found, when the points found
do not pin the pose in every direction, or when the fit moves the piece further than its markers
allow: the markers' pose then stands.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np
import shapely

from vision import geometry
from vision.calibration import TableCalibration

STEP_MM = 2.0
"""Outline points are looked for this far apart (none within :data:`CORNER_MM` of a corner)."""
CORNER_MM = 3.0
PROFILE_STEP_MM = 0.25
"""Colours are read along each normal this far apart (mm)."""
INSIDE_MM = 3.0
"""The piece's colour is read from its inside at least this far in from the outline."""
MIN_INSIDE = 20
"""The fewest points inside a piece its colour is read from."""
SAME_DE = 20.0
"""ΔE: a sample this close to the piece's median colour is the piece (its art shades a little)."""
HALF_MM = 2.5
"""The colours an edge is half way between are read this far either side of its steepest change
(a camera's blur and JPEG's coarser colour spread an edge over a few pixels)."""
SIDE_MM = 0.75
"""An edge's sides are read this far either side of it."""
EDGE_MIN_DE = 20.0
"""ΔE: the colour past an outline point must differ this much from the piece's to count."""
MIN_FOUND_SHARE = 0.5
"""At least this share of the outline's points must be found (the rest hidden, or like the board)."""
MIN_INLIERS = 16
"""The fewest outline points a corrected pose may rest on."""
SIGMA_FLOOR_MM = 0.05
"""The least scatter assumed for one outline point."""
SPREAD_SHARE = 0.05
"""The outline points found must face more than one way: the least eigenvalue of the sum of their
normals' outer products, as a share of their number."""
SIDE_BIAS_MM = 0.15
"""How far a whole side may be seen in or out of the true outline (one standard deviation, mm): a
rim, a bevel's highlight, a shadow along one side."""
SETTLED = 1e-6
"""The robust fit stops once no parameter moves more than this (mm, radians) in a round."""
CORRELATION = 4.0
"""Neighbouring outline points share blur and print: their scatter counts as if 1 in this many
were independent."""


@dataclass(frozen=True)
class OutlinePose:
    """A piece's pose corrected by its outline: rotation, translation (table mm, as
    :func:`vision.flight.rigid_fit` gives them), the covariance of (x, y, turn) about the
    centre it was fitted at, and how many outline points it rests on."""

    rot: np.ndarray
    t: np.ndarray
    centre: np.ndarray
    covariance: np.ndarray
    points: int

    @property
    def dof(self) -> int:
        """Degrees of freedom of the scatter, counting neighbouring points as one in :data:`CORRELATION`."""
        return max(self.points // round(CORRELATION) - 4, 3)

    def sigma_at(self, point: np.ndarray) -> float:
        """The largest standard deviation (mm) of where *point* of the piece lies, in any direction."""
        r = np.asarray(point, np.float64) - self.centre
        jac = np.array([[1.0, 0.0, -r[1]], [0.0, 1.0, r[0]]])
        return float(np.sqrt(np.linalg.eigvalsh(jac @ self.covariance @ jac.T)[-1]))


@dataclass(frozen=True)
class _Shape:
    """A piece's outline in its own frame, as :func:`fit_outline` looks at it: points along it
    (none near a corner), their outward unit normals and which side each is on; and points every
    :data:`GRID_MM` inside it with how far each lies in from the outline."""

    points: np.ndarray
    normals: np.ndarray
    sides: np.ndarray
    grid: np.ndarray
    depth: np.ndarray


GRID_MM = 1.5
"""The piece's own colour is read at points this far apart inside it."""


@functools.lru_cache(maxsize=64)
def _shape(outline: bytes) -> _Shape:
    """The :class:`_Shape` of an outline given as the bytes of its (N, 2) float64 points (a layout
    has few kinds of piece, each seen in every frame)."""
    poly = geometry.polygon(np.frombuffer(outline, np.float64).reshape(-1, 2))
    shell = poly.exterior if poly.geom_type == "Polygon" else poly.convex_hull.exterior
    ring = shapely.get_coordinates(shell)
    ccw = shapely.LinearRing(ring).is_ccw
    points, normals, sides = [np.zeros((0, 2))], [np.zeros((0, 2))], [np.zeros(0, int)]
    for k, (a, b) in enumerate(zip(ring[:-1], ring[1:], strict=True)):
        d = b - a
        length = float(np.hypot(*d))
        if length < 2 * CORNER_MM + STEP_MM:
            continue
        d /= length
        n = np.array([d[1], -d[0]]) if ccw else np.array([-d[1], d[0]])  # outward
        along = np.arange(CORNER_MM, length - CORNER_MM + 1e-9, STEP_MM)
        points.append(a + along[:, None] * d)
        normals.append(np.broadcast_to(n, (len(along), 2)))
        sides.append(np.full(len(along), k))
    x0, y0, x1, y1 = poly.bounds
    xs, ys = np.meshgrid(np.arange(x0, x1, GRID_MM), np.arange(y0, y1, GRID_MM))
    grid = np.column_stack([xs.ravel(), ys.ravel()])
    grid = grid[shapely.contains_xy(poly, grid[:, 0], grid[:, 1])]
    depth = np.asarray(shapely.distance(poly.boundary, shapely.points(grid)), np.float64)
    return _Shape(np.concatenate(points), np.concatenate(normals), np.concatenate(sides), grid, depth)


def _colours_at(image: np.ndarray, px: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """BGR (0-1) and CIELAB, each (..., 3) in float32, of BGR *image* at pixel positions *px* (..., 2)."""
    flat = px.reshape(-1, 1, 2).astype(np.float32)
    bgr = cv2.remap(image, flat[..., 0], flat[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    bgr = np.clip(np.asarray(bgr, np.float32) / 255.0, 0.0, 1.0)
    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab)
    shape = (*px.shape[:-1], 3)
    return bgr.reshape(shape), lab.reshape(shape)


def _length(v: np.ndarray) -> np.ndarray:
    """The Euclidean length of each vector along *v*'s last axis."""
    return np.asarray(np.sqrt(np.einsum("...k,...k->...", v, v)))


def _piece_colour(image: np.ndarray, calibration: TableCalibration, shape: _Shape,
                  rot: np.ndarray, t: np.ndarray, height_mm: float, inset_mm: float) -> np.ndarray | None:
    """The median CIELAB colour of the piece's inside, *inset_mm* in from its outline."""
    grid = shape.grid[shape.depth >= inset_mm]
    if len(grid) < MIN_INSIDE:
        return None
    _bgr, lab = _colours_at(image, calibration.to_image(grid @ rot.T + t, height_mm))
    return np.asarray(np.median(lab, axis=0), np.float64)


def _find_edges(image: np.ndarray, calibration: TableCalibration, points: np.ndarray, normals: np.ndarray,
                colour: np.ndarray, height_mm: float, reach_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """For each table point and outward normal, how far along the normal (mm, to a fraction of a
    sample) the piece's edge is, and whether one was found: of the peaks of colour change there,
    the strongest whose inner side is the piece's colour (within :data:`SAME_DE`) and
    whose outer side is not (at least :data:`EDGE_MIN_DE` from it)."""
    steps = np.arange(-reach_mm - SIDE_MM, reach_mm + SIDE_MM + PROFILE_STEP_MM / 2, PROFILE_STEP_MM)
    where = points[:, None, :] + steps[None, :, None] * normals[:, None, :]
    px = calibration.to_image(where.reshape(-1, 2), height_mm).reshape(*where.shape)
    bgr, lab = _colours_at(image, px)
    change = _length(lab[:, 2:] - lab[:, :-2])  # centred: at sample i + 1
    side = int(round(SIDE_MM / PROFILE_STEP_MM))
    centre = np.arange(side, len(steps) - side)
    c = centre - 1  # change's index for sample centre
    after = np.minimum(c + 1, change.shape[1] - 1)
    peak = (change[:, c] >= change[:, c - 1]) & (change[:, c] >= change[:, after])
    colour = colour.astype(np.float32)
    inner = _length(lab[:, centre - side] - colour)
    outer = _length(lab[:, centre + side] - colour)
    good = peak & (inner < SAME_DE) & (outer >= EDGE_MIN_DE)
    found = good.any(axis=1)
    strongest = np.argmax(np.where(good, change[:, c], -1.0), axis=1)
    rows = np.arange(len(points))
    # to a fraction of a sample: where the colour is half way from the inside's to the outside's
    # (blur spreads an edge evenly either side of it in the image's own colour values)
    k = centre[strongest]
    half = int(round(HALF_MM / PROFILE_STEP_MM))
    lo, hi = np.maximum(k - half, 0), np.minimum(k + half, len(steps) - 1)
    inside, outside = bgr[rows, lo], bgr[rows, hi]
    span = outside - inside
    span2 = np.maximum(np.einsum("nk,nk->n", span, span), 1e-9)
    share = np.einsum("nsk,nk->ns", bgr - inside[:, None, :], span) / span2[:, None]
    idx = np.arange(len(steps) - 1)[None, :]
    within = (idx >= lo[:, None]) & (idx < hi[:, None])
    cross = within & (share[:, :-1] < 0.5) & (share[:, 1:] >= 0.5)
    # of the crossings between the two sides, the one nearest the peak
    i = np.argmin(np.where(cross, np.abs(idx - k[:, None]), 10 ** 6), axis=1)
    found &= cross.any(axis=1)
    s0, s1 = share[rows, i], share[rows, i + 1]
    at = steps[i] + (0.5 - s0) / np.where(s1 > s0, s1 - s0, 1.0) * PROFILE_STEP_MM
    return at, found


def _jacobian(points: np.ndarray, normals: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """How each point's shift along its normal answers a move (dx, dy), a turn about *centre*, and
    a grow of the whole outline (an edge seen a little in or out all round: blur, a rim)."""
    r = points - centre
    turn = normals[:, 1] * r[:, 0] - normals[:, 0] * r[:, 1]
    return np.column_stack([normals[:, 0], normals[:, 1], turn, np.ones(len(points))])


def _robust_step(jac: np.ndarray, shift: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The parameters of *jac* (:func:`_jacobian`) that best explain the points' shifts, by
    Tukey-weighted least squares (until the parameters settle to :data:`SETTLED`); the residuals
    and the final weights."""
    w = np.ones(len(shift))
    delta = np.zeros(jac.shape[1])
    for _ in range(8):
        a = jac * w[:, None]
        try:
            step = np.linalg.solve(a.T @ jac, a.T @ shift)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(a.T @ jac, a.T @ shift, rcond=None)[0]
        settled = bool(np.max(np.abs(step - delta)) < SETTLED)
        delta = step
        res = shift - jac @ delta
        kept = np.abs(res[w > 0])
        scale = max(1.4826 * float(np.median(kept)) if len(kept) else 0.0, SIGMA_FLOOR_MM)
        u = res / (4.685 * scale)
        w = np.where(np.abs(u) < 1.0, (1 - u ** 2) ** 2, 0.0)
        if settled:
            break
    return delta, res, w


def fit_outline(image: np.ndarray, calibration: TableCalibration, outline_mm: np.ndarray,
                height_mm: float, rot: np.ndarray, t: np.ndarray, loose_mm: float) -> OutlinePose | None:
    """The pose of a piece whose outline (its own frame) is *outline_mm*, corrected from the
    markers' *rot*, *t* by its outline's edges in BGR *image*; *loose_mm* is how far (3 sigma)
    the markers' pose may put any point of the outline. None where the outline cannot be
    trusted to do better (see the module's docstring)."""
    shape = _shape(np.ascontiguousarray(outline_mm, np.float64).tobytes())
    own_points, own_normals, own_sides = shape.points, shape.normals, shape.sides
    if len(own_points) < MIN_INLIERS:
        return None
    reach = float(np.clip(loose_mm + 1.0, 1.5, 8.0))
    colour = _piece_colour(image, calibration, shape, rot, t, height_mm, max(INSIDE_MM, reach + 1.0))
    if colour is None:
        return None
    centre = own_points.mean(axis=0) @ rot.T + t
    first_rot, first_t = rot, t
    # the first, wide look needs only every other point of a long outline; the close look takes all
    thin = 2 if len(own_points) >= 4 * MIN_INLIERS else 1
    for reach_now, every in ((reach, thin), (1.5, 1)):
        pts, nrm = own_points[::every] @ rot.T + t, own_normals[::every] @ rot.T
        at, found = _find_edges(image, calibration, pts, nrm, colour, height_mm, reach_now)
        if found.mean() < MIN_FOUND_SHARE:
            return None
        delta, res, w = _robust_step(_jacobian(pts[found], nrm[found], centre), at[found])
        c, s = np.cos(delta[2]), np.sin(delta[2])
        turn = np.array([[c, -s], [s, c]])
        rot, t = turn @ rot, turn @ (t - centre) + centre + delta[:2]
    inliers = w > 0.5
    if inliers.sum() < MIN_INLIERS:
        return None
    pts, nrm, side = pts[found][inliers], nrm[found][inliers], own_sides[found][inliers]
    if np.linalg.eigvalsh(nrm.T @ nrm)[0] < SPREAD_SHARE * len(nrm):
        return None  # the points found lie along one side only: they do not pin its shift along it
    jac = _jacobian(pts, nrm, centre)
    normal = jac.T @ jac
    if np.linalg.cond(normal) > 1e12:
        return None
    inverse = np.linalg.inv(normal)
    scatter = max(float(np.sqrt(np.sum(res[inliers] ** 2) / max(inliers.sum() - 4, 1))), SIGMA_FLOOR_MM)
    # each side may be seen a little in or out as a whole (a rim, a shadow): shared by its points
    per_side = np.stack([jac[side == k].sum(axis=0) for k in np.unique(side)])
    bias = SIDE_BIAS_MM ** 2 * inverse @ (per_side.T @ per_side) @ inverse
    covariance = (CORRELATION * scatter ** 2 * inverse + bias)[:3, :3]
    moved = (own_points @ rot.T + t) - (own_points @ first_rot.T + first_t)
    if float(np.max(np.hypot(*moved.T))) > loose_mm:
        return None  # the outline disagrees with the markers: something else was followed
    return OutlinePose(rot, t, centre, covariance, int(inliers.sum()))
