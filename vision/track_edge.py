"""Finding the track's printed edge in a top-down colour image of the board.

The edge line contrasts with the track in colour, not necessarily in darkness, so everything
here is measured in CIELAB, where a distance (ΔE) is a perceived difference in colour:

- :func:`flood`: the track is what the seed points reach without crossing a sharp change of
  colour (the track's own art, clouds and parchment, changes softly), joined across thin
  print that crosses the track (guide lines) but never across the edge line's own colour;
- :func:`refine`: each vertex of a ring is moved along the ring's normal to where the colour
  changes fastest going outward, then to where the image's colour is half way between the track's
  and the line's there, to a fraction of a pixel; the contrast there, the colour just inside and
  the colour of the line just outside are measured.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.errors import CalibrationError

SMOOTH_MM = 0.5
"""Blur (Gaussian sigma) before colour gradients are taken: sensor noise and print grain."""
GRADIENT_MAX = 10.0
"""ΔE per mm: a softer change of colour than this is the track's own art, a sharper one a printed edge."""
SIMILAR_DE = 15.0
"""ΔE: a part of the board cut off by thin print is track when its mean colour is this close to
the track's around a seed."""
MIN_PART_MM2 = 4.0
"""Parts smaller than this (mm²) are never joined to the track: specks between printed strokes."""
BRIDGE_MM = 10.0
"""Print narrower than this (its blurred sides included) that crosses the track is bridged."""
LINE_GAP_MM = 3.0
"""Gaps in the edge line narrower than this (mm), where blur thins it, are closed."""
PRINT_BORDER_SHARE = 0.5
"""Print the flood leaves out is filled in when it borders the track more than this share as much
as it borders the line."""
PRINT_WIDTH_MM = 30.0
"""Print on the track that the flood leaves out is filled in when nowhere wider than this (mm)."""
LINE_PAST_MM = (0.25, 2.5)
"""Where the line's colour is looked for past an edge (mm)."""
LINE_MATCH_DE = 15.0
"""ΔE: a pixel this close to the edge line's colour is line, and is never bridged."""
LINE_BAND_MM = (0.5, 3.0)
"""Where the line's colour is first sampled: this band (mm) outside the flooded region."""
EDGE_WINDOW_MM = (-2.0, 3.0)
"""Along each normal, the edge is searched from this far inside the flooded region to this far outside."""
EDGE_STEP_MM = 0.05
EDGE_PEAK_MIN = 8.0
"""ΔE per mm: a vertex whose strongest change of colour along its normal is weaker has no edge."""
PEAK_SHARE = 0.5
"""The edge is the first local peak of colour change, going outward, at least this share of the strongest."""
HALF_WAY_ROUNDS = 3
"""The edge is placed half way between the colours either side of it this many times over."""
SAMPLE_MM = 1.0
"""The colours either side of an edge are read this far from it: the track inside, the line outside
(every edge line is at least 2 mm wide)."""


def to_lab(top: np.ndarray) -> np.ndarray:
    """A BGR image (0-255, float) in CIELAB: L 0-100, a and b about -128-127."""
    return np.asarray(cv2.cvtColor(np.clip(top / 255.0, 0.0, 1.0).astype(np.float32), cv2.COLOR_BGR2Lab),
                      np.float32)


def colour_gradient(lab: np.ndarray, px_per_mm: float) -> np.ndarray:
    """How fast the colour changes at each pixel, in ΔE per mm."""
    gx = cv2.Sobel(lab, cv2.CV_32F, 1, 0, ksize=3) * (px_per_mm / 8)
    gy = cv2.Sobel(lab, cv2.CV_32F, 0, 1, ksize=3) * (px_per_mm / 8)
    return np.asarray(np.sqrt((gx * gx + gy * gy).sum(axis=2)), np.float32)


def _disc(radius_px: float) -> np.ndarray:
    r = max(int(round(radius_px)), 1)
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))


@dataclass(frozen=True)
class Flooded:
    """The flood's result: the track's pixels, and the colours it was told apart by."""

    mask: np.ndarray  # uint8, 1 on the track
    track_lab: np.ndarray  # (3,) the mean colour of the track around the seeds
    line_lab: np.ndarray  # (3,) the first estimate of the edge line's colour


def flood(lab: np.ndarray, seeds_px: list[tuple[int, int]], px_per_mm: float) -> Flooded:
    """The track's pixels in the rectified, smoothed CIELAB image *lab*, from seed pixels ``(col, row)``.

    :raises CalibrationError: when a seed lies on a sharp change of colour (the line, print).
    """
    s = px_per_mm
    grad = colour_gradient(lab, s)
    free = (grad < GRADIENT_MAX).astype(np.uint8)
    if not all(free[r, c] for c, r in seeds_px):
        raise CalibrationError("a seed lies on the edge line or on print: put each seed on the open track")
    n, labels = cv2.connectedComponents(free, connectivity=4)
    flat = labels.ravel()
    counts = np.bincount(flat, minlength=n).astype(np.float64)
    sums = np.stack([np.bincount(flat, weights=lab[..., c].ravel(), minlength=n) for c in range(3)], axis=1)
    means = sums.astype(np.float64) / np.maximum(counts, 1.0)[:, None]
    seed_ids = sorted({int(labels[r, c]) for c, r in seeds_px})
    seed_lab = means[seed_ids]
    apart = np.min(np.linalg.norm(means[:, None, :] - seed_lab[None], axis=2), axis=1)
    keep = (apart < SIMILAR_DE) & (counts >= MIN_PART_MM2 * s * s)
    keep[0] = False  # the label of everything not free
    keep[seed_ids] = True
    parts = keep[labels].astype(np.uint8)

    # the line's colour: of what lies just outside the seeds' parts, the quarter least like the track
    first = np.isin(labels, seed_ids).astype(np.uint8)
    outer = np.asarray(cv2.dilate(first, _disc(LINE_BAND_MM[1] * s)), np.uint8)
    band = outer & (1 - np.asarray(cv2.dilate(first, _disc(LINE_BAND_MM[0] * s)), np.uint8))
    near = lab[band > 0]
    if not len(near):
        raise CalibrationError("the track fills the whole view: is the board in the picture?")
    unlike = np.min(np.linalg.norm(near[:, None, :] - seed_lab[None], axis=2), axis=1)
    line_lab = np.median(near[unlike >= np.percentile(unlike, 75)], axis=0)

    line = np.linalg.norm(lab - line_lab, axis=2) < LINE_MATCH_DE
    # thin print across the track is bridged; the line, its small gaps closed (a thin line blurred
    # where it turns sharply), is a wall the track never crosses
    wall = np.asarray(cv2.dilate(line.astype(np.uint8), _disc(LINE_GAP_MM * s / 2)), np.uint8)
    closed = np.asarray(cv2.morphologyEx(parts, cv2.MORPH_CLOSE, _disc(BRIDGE_MM * s / 2)), np.uint8)
    bridged = closed & (1 - wall)
    if not all(bridged[r, c] for c, r in seeds_px):
        raise CalibrationError("a seed lies on the edge line or next to it: put each seed on the open track")
    _n, joined = cv2.connectedComponents(bridged, connectivity=4)
    chosen = sorted({int(joined[r, c]) for c, r in seeds_px})
    mask = _fill_print(np.isin(joined, chosen).astype(np.uint8), wall > 0, s)
    weights = counts[seed_ids][:, None]
    return Flooded(mask, (seed_lab * weights).sum(axis=0) / weights.sum(), line_lab)


def _fill_print(mask: np.ndarray, line: np.ndarray, px_per_mm: float) -> np.ndarray:
    """*mask* with print on the track filled in: every patch outside it and off the *line* (its
    wall), clear of the image's border and nowhere wider than :data:`PRINT_WIDTH_MM`, that
    borders the track more than :data:`PRINT_BORDER_SHARE` as much as the line (guide lines too
    wide to bridge, print along the line). An infield is wide, an island borders only the line,
    and the board outside reaches the border."""
    rest = ((mask == 0) & ~line).astype(np.uint8)
    n, labels = cv2.connectedComponents(rest, connectivity=4)
    depth = cv2.distanceTransform(rest, cv2.DIST_L2, 3)
    widest = np.zeros(n, np.float32)
    np.maximum.at(widest, labels.ravel(), depth.ravel())
    ring = np.ones((3, 3), np.uint8)
    by_track = np.bincount(labels[(cv2.dilate(mask, ring) > 0) & (rest > 0)], minlength=n)
    by_line = np.bincount(labels[(cv2.dilate(line.astype(np.uint8), ring) > 0) & (rest > 0)], minlength=n)
    edge = np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]))
    fill = (by_track > PRINT_BORDER_SHARE * by_line) & (2 * widest <= PRINT_WIDTH_MM * px_per_mm)
    fill[0] = False
    fill[edge] = False
    return mask | fill[labels].astype(np.uint8)


@dataclass(frozen=True)
class RingEdge:
    """One ring of the track moved onto the printed edge, with what was measured at each vertex."""

    points: np.ndarray  # (N, 2) mm, the refined vertices (the ring not closed)
    found: np.ndarray  # (N,) bool: an edge was found along this vertex's normal
    contrast: np.ndarray  # (N,) ΔE between the colour just inside and just outside the edge
    inside: np.ndarray  # (N, 3) CIELAB just inside
    outside: np.ndarray  # (N, 3) CIELAB just outside (the line)
    normal: np.ndarray  # (N, 2) the unit normal each vertex moved along, away from the track


def refine(ring_mm: np.ndarray, lab: np.ndarray, px_per_mm: float, origin: tuple[float, float],
           bgr: np.ndarray | None = None) -> RingEdge:
    """Each vertex of *ring_mm* (open, oriented so that its right-hand normal points away from
    the track) moved along that normal to the edge, and measured there: the edge is the first
    local peak of colour change going outward that is at least :data:`PEAK_SHARE` of the strongest,
    placed, where *bgr* (the image *lab* was made from) is given, where its colour is half way
    between the two sides (:func:`half_way`)."""
    pts = np.asarray(ring_mm, np.float64)
    n = len(pts)
    tangent = np.roll(pts, -2, axis=0) - np.roll(pts, 2, axis=0)  # over 4 vertices: less jagged
    tangent /= np.maximum(np.linalg.norm(tangent, axis=1, keepdims=True), 1e-9)
    normal = np.column_stack([tangent[:, 1], -tangent[:, 0]])
    steps = np.arange(EDGE_WINDOW_MM[0], EDGE_WINDOW_MM[1] + EDGE_STEP_MM / 2, EDGE_STEP_MM)
    prof = _sample(lab, pts[:, None, :] + steps[None, :, None] * normal[:, None, :], px_per_mm, origin)
    change = np.linalg.norm(np.diff(prof, axis=1), axis=2) / EDGE_STEP_MM  # ΔE per mm, between samples
    change = cv2.GaussianBlur(change.astype(np.float32), (0, 0), sigmaX=2.0, sigmaY=1e-3)
    strongest = change.max(axis=1)
    mid = change[:, 1:-1]
    peaks = (mid >= change[:, :-2]) & (mid >= change[:, 2:]) & (mid >= PEAK_SHARE * strongest[:, None])
    found = peaks.any(axis=1) & (strongest >= EDGE_PEAK_MIN)
    i = np.argmax(peaks, axis=1) + 1
    rows = np.arange(n)
    a, b, c = change[rows, i - 1], change[rows, i], change[rows, i + 1]
    den = a - 2 * b + c
    off = np.where(np.abs(den) > 1e-9, 0.5 * (a - c) / np.where(den == 0, 1.0, den), 0.0)
    t = steps[i] + EDGE_STEP_MM / 2 + np.clip(off, -1.0, 1.0) * EDGE_STEP_MM
    t = np.where(found, t, 0.0)
    if bgr is not None:
        for _ in range(HALF_WAY_ROUNDS):  # the sides read again about the new place each time
            t = np.where(found, t + half_way(bgr, pts + t[:, None] * normal, normal, px_per_mm, origin), 0.0)
    moved = pts + t[:, None] * normal
    inside = _sample(lab, (moved - SAMPLE_MM * normal)[:, None, :], px_per_mm, origin)[:, 0]
    outside = _sample(lab, (moved + SAMPLE_MM * normal)[:, None, :], px_per_mm, origin)[:, 0]
    contrast = np.linalg.norm(outside - inside, axis=1)
    return RingEdge(moved, found, np.where(found, contrast, 0.0), inside, outside, normal)


def half_way(bgr: np.ndarray, points_mm: np.ndarray, normal: np.ndarray, px_per_mm: float,
             origin: tuple[float, float]) -> np.ndarray:
    """How far along each *normal* from *points_mm* (an edge's steepest change of colour) the colour
    of *bgr* is half way between the colours :data:`SAMPLE_MM` either side (mm; 0 where it does not
    cross there). Blur spreads an edge evenly either side of it in the image's own values, while
    CIELAB's steepest change leans to the darker side."""
    offsets = np.arange(-SAMPLE_MM, SAMPLE_MM + EDGE_STEP_MM / 2, EDGE_STEP_MM)
    where = points_mm[:, None, :] + offsets[None, :, None] * normal[:, None, :]
    prof = _sample(bgr, where, px_per_mm, origin)
    inside, outside = prof[:, 0], prof[:, -1]
    span = outside - inside
    share = np.einsum("nsk,nk->ns", prof - inside[:, None, :], span)
    share /= np.maximum((span ** 2).sum(axis=1), 1e-9)[:, None]
    cross = (share[:, :-1] < 0.5) & (share[:, 1:] >= 0.5)
    middle = len(offsets) // 2
    i = np.argmin(np.where(cross, np.abs(np.arange(len(offsets) - 1) - middle + 0.5), np.inf), axis=1)
    rows = np.arange(len(points_mm))
    s0, s1 = share[rows, i], share[rows, i + 1]
    at = offsets[i] + (0.5 - s0) / np.where(s1 > s0, s1 - s0, 1.0) * EDGE_STEP_MM
    return np.where(cross.any(axis=1), at, 0.0)


def line_apart(ring: RingEdge, lab: np.ndarray, px_per_mm: float, origin: tuple[float, float],
               line_lab: np.ndarray) -> np.ndarray:
    """For each vertex of *ring*, how close (ΔE) the colour just past its edge comes to the
    line's: the least over :data:`LINE_PAST_MM` beyond it (a thin line is blurred into what
    lies on either side of it)."""
    past = np.arange(LINE_PAST_MM[0], LINE_PAST_MM[1] + 1e-9, 0.25)
    points = ring.points[:, None, :] + past[None, :, None] * ring.normal[:, None, :]
    return np.asarray(np.linalg.norm(_sample(lab, points, px_per_mm, origin) - line_lab, axis=2).min(axis=1))


def _sample(lab: np.ndarray, points_mm: np.ndarray, px_per_mm: float,
            origin: tuple[float, float]) -> np.ndarray:
    """CIELAB at table points (..., 2) mm, interpolated: (..., 3)."""
    px = ((points_mm - np.asarray(origin)) * px_per_mm - 0.5).reshape(-1, 2).astype(np.float32)
    count = len(px)
    width = 1024  # remap's maps must stay under 32,767 pixels a side: sample in rows of this many
    px = np.concatenate([px, np.zeros((-count % width, 2), np.float32)]).reshape(-1, width, 2)
    out = cv2.remap(lab, px[..., 0], px[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out, np.float64).reshape(-1, 3)[:count].reshape(*points_mm.shape[:-1], 3)
