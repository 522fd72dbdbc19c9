"""Learning the track: the drivable region inside the printed edge line, in table mm.

From one frame of the empty board: the camera's view of the table is rectified to a top-down
colour image at :data:`PX_PER_MM`; the region the seed points reach without crossing the edge
line is found by colour (:func:`vision.track_edge.flood`); each ring of it is moved onto the
printed edge to a fraction of a pixel and measured there (:func:`vision.track_edge.refine`).
A hole in the region is kept when it is framed by the edge line (an infield, an island that
shows the table); print on the track (a ring, a filled symbol) is track.

The result checks itself before it is given: a track that runs out of view, an edge that
cannot be followed over a stretch or that runs along something else than the line's colour,
or a region that is not a valid polygon is refused with the place it happened. Short faint
stretches are interpolated from the clear edge either side and kept in the track as
``weak_mm``; ``check-flight`` widens its band near them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import shapely
from shapely.geometry import MultiPolygon, Point, Polygon

from vision import track_edge
from vision.calibration import TableCalibration
from vision.errors import CalibrationError, LayoutError, TrackRefused
from vision.layout import Layout, read_json

PX_PER_MM = 4.0
VIEW_MARGIN = 0.5
"""Without a play area in the layout, the board may reach past the table markers by this share
of their extent on each side (as far as the camera sees)."""
SLIVER_MM2 = 20.0
"""Holes smaller than this (mm²) are specks between printed strokes, never an island."""
ISLAND_CORE_MM = 3.0
"""A hole's inside is read this far in from its rim (past the edge line round it)."""
ISLAND_DIFFER_DE = 10.0
"""ΔE: an island's inside differs from the track, and from its rim unless it is an infield, by more
than this."""
ISLAND_RIM_DE = 8.0
"""ΔE: an island's rim is the edge line's own ink: this close to the colour past the outer edge."""
ISLAND_FOUND_SHARE = 0.8
"""An island's rim is a clear edge at least this share of the way round."""
INFIELD_MM2 = 2500.0
"""A hole framed by the line and as large as a 50 mm square is an infield even when its inside is
as dark as the line."""
WEAK_CONTRAST_DE = 12.0
"""ΔE: an edge with less contrast than this between track and line is faint."""
LINE_FOLLOW_SHARE = 0.7
"""An edge follows the line when the colour just past it comes nearer the line's than this share of
the track's distance from it (a thin line is blurred into what lies beyond it)."""
WEAK_RUN_MM = 10.0
"""A faint stretch of edge longer than this (mm) makes the track untrustworthy: refused."""
WEAK_SPACING_MM = 2.0
"""Faint places are kept in the track file every this many mm along the edge."""
BORDER_MM = 1.0
"""A track within this of the edge of what was looked at runs out of view."""


@dataclass(frozen=True)
class Track:
    """A learned track: the drivable region, and where its edge is faint."""

    region: Polygon
    weak_mm: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))  # (K, 2)
    seeds_mm: tuple[tuple[float, float], ...] = ()

    def weak_near(self, point: tuple[float, float], radius_mm: float) -> bool:
        """Whether the edge is faint within *radius_mm* of *point*."""
        if not len(self.weak_mm):
            return False
        return bool(np.min(np.hypot(*(self.weak_mm - np.asarray(point)).T)) <= radius_mm)


def play_area(layout: Layout) -> tuple[float, float, float, float]:
    """``(x0, y0, x1, y1)`` in mm: the layout's play area, or the table markers' extent."""
    if layout.play_area_mm is not None:
        return (0.0, 0.0, *layout.play_area_mm)
    pts = np.concatenate([m.corners_mm for m in layout.table_markers])
    return (float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max()))


def view_area(calibration: TableCalibration, layout: Layout) -> tuple[float, float, float, float]:
    """Where to look for the track, in mm: the layout's play area when it gives one, else the
    table markers' extent widened by :data:`VIEW_MARGIN` and cut to what the camera sees."""
    ax0, ay0, ax1, ay1 = play_area(layout)
    if layout.play_area_mm is not None:
        return ax0, ay0, ax1, ay1
    w, h = calibration.image_size
    t = np.linspace(0.0, 1.0, 17)
    border = np.concatenate([np.column_stack([t * w, 0 * t]), np.column_stack([t * w, 0 * t + h]),
                             np.column_stack([0 * t, t * h]), np.column_stack([0 * t + w, t * h])])
    seen = calibration.to_table(border)
    mx, my = VIEW_MARGIN * (ax1 - ax0), VIEW_MARGIN * (ay1 - ay0)
    return (max(float(seen[:, 0].min()), ax0 - mx), max(float(seen[:, 1].min()), ay0 - my),
            min(float(seen[:, 0].max()), ax1 + mx), min(float(seen[:, 1].max()), ay1 + my))


def rectify(image: np.ndarray, calibration: TableCalibration, area: tuple[float, float, float, float],
            px_per_mm: float = PX_PER_MM) -> np.ndarray:
    """The *area* seen from straight above, *px_per_mm* pixels to the mm (BGR, float32).
    Pixel (i, j) is centred on table point (x0 + (j + 0.5) / s, y0 + (i + 0.5) / s)."""
    x0, y0, x1, y1 = area
    w, h = round((x1 - x0) * px_per_mm), round((y1 - y0) * px_per_mm)
    # the map is smooth (a homography and a lens): project a grid every STEP pixels and
    # interpolate between, rather than every one of millions of pixels
    step = 8
    cols = np.arange(0, w + step, step, dtype=np.float64)
    rows = np.arange(0, h + step, step, dtype=np.float64)
    gx, gy = np.meshgrid(x0 + (cols + 0.5) / px_per_mm, y0 + (rows + 0.5) / px_per_mm)
    src = calibration.to_image(np.column_stack([gx.ravel(), gy.ravel()]))
    coarse_x = src[:, 0].reshape(len(rows), len(cols)).astype(np.float32)
    coarse_y = src[:, 1].reshape(len(rows), len(cols)).astype(np.float32)
    fc, fr = np.meshgrid(np.arange(w, dtype=np.float32) / step, np.arange(h, dtype=np.float32) / step)
    map_x = np.asarray(cv2.remap(coarse_x, fc, fr, cv2.INTER_LINEAR), np.float32)
    map_y = np.asarray(cv2.remap(coarse_y, fc, fr, cv2.INTER_LINEAR), np.float32)
    colour = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    return np.asarray(cv2.remap(colour.astype(np.float32), map_x, map_y, cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE), np.float32)


def learn_track(image: np.ndarray, calibration: TableCalibration, layout: Layout,
                seeds_mm: list[tuple[float, float]], px_per_mm: float = PX_PER_MM) -> Track:
    """The drivable region around *seeds_mm*, in table mm, checked.

    :raises CalibrationError: when a seed is outside the view or on the line, or the seeds lie
        in separate regions; :class:`TrackRefused` with the place when the track runs out of
        view, its edge cannot be followed, or it follows something else than the line.
    """
    if not seeds_mm:
        raise CalibrationError("give at least one --seed X,Y inside the track")
    area = view_area(calibration, layout)
    x0, y0, x1, y1 = area
    for x, y in seeds_mm:
        if not (x0 < x < x1 and y0 < y < y1):
            raise CalibrationError(f"seed {x:g},{y:g} is outside the area looked at "
                                   f"{x0:.0f},{y0:.0f} - {x1:.0f},{y1:.0f} mm")
    s = px_per_mm
    top = rectify(image, calibration, area, s)
    lab = cv2.GaussianBlur(track_edge.to_lab(top), (0, 0), track_edge.SMOOTH_MM * s)
    smooth = np.asarray(cv2.GaussianBlur(top, (0, 0), track_edge.SMOOTH_MM * s), np.float32)
    # the region is found at half the resolution (its edge is placed at the full one)
    h2, w2 = lab.shape[0] // 2, lab.shape[1] // 2
    half = np.asarray(cv2.resize(lab[:2 * h2, :2 * w2], (w2, h2), interpolation=cv2.INTER_AREA), np.float32)
    seeds_px = [(int((x - x0) * s / 2), int((y - y0) * s / 2)) for x, y in seeds_mm]
    flooded = track_edge.flood(half, seeds_px, s / 2)
    _refuse_if_out_of_view(flooded.mask, s / 2, (x0, y0), "the camera's view" if layout.play_area_mm is None
                           else "the play area")
    coarse = _seeded_part(_polygons(flooded.mask, s / 2, (x0, y0)), seeds_mm)
    coarse = shapely.geometry.polygon.orient(coarse, sign=1.0)  # right-hand normals point off the track
    shell = track_edge.refine(np.asarray(coarse.exterior.coords)[:-1], lab, s, (x0, y0), smooth)
    line_lab = np.median(shell.outside[shell.found], axis=0) if shell.found.any() else flooded.line_lab
    rings = [_through_faint(shell, line_lab)]
    for hole in coarse.interiors:
        edge = track_edge.refine(np.asarray(hole.coords)[:-1], lab, s, (x0, y0), smooth)
        if _is_island(edge, Polygon(hole.coords), lab, s, (x0, y0), line_lab, flooded.track_lab):
            rings.append(_through_faint(edge, line_lab))
    for ring in rings:
        _refuse_off_line(ring, track_edge.line_apart(ring, lab, s, (x0, y0), line_lab), line_lab)
    region = Polygon(rings[0].points, [r.points for r in rings[1:]])
    region = _tidy(region, seeds_mm)
    track = Track(region, _check_edges(rings), tuple((float(x), float(y)) for x, y in seeds_mm))
    try:
        track_from_json(track_to_json(track), "learned")
    except LayoutError:
        raise _near("the learned edge crosses itself", region.exterior.coords[0],
                    "light the board evenly and learn again") from None
    return track


def _tidy(region: Polygon, seeds_mm: list[tuple[float, float]]) -> Polygon:
    """*region* valid (vertices moved onto the edge can cross where the edge turns sharply), on
    the track file's 0.001 mm grid, without the slivers a crossing leaves as holes."""
    for _ in range(2):  # snapping to the grid can leave a crossing of its own: once more
        if not region.is_valid:
            region = _seeded_part(shapely.make_valid(region), seeds_mm)
        region = Polygon(region.exterior, [h for h in region.interiors if Polygon(h).area >= SLIVER_MM2])
        region = _seeded_part(shapely.set_precision(region, 1e-3), seeds_mm)
    return region


def _near(what: str, point: Any, advice: str) -> TrackRefused:
    at = (float(point[0]), float(point[1]))
    return TrackRefused(f"{what} near {at[0]:.0f},{at[1]:.0f} mm: {advice}", at)


def _refuse_if_out_of_view(mask: np.ndarray, s: float, origin: tuple[float, float], view: str) -> None:
    edge = max(int(round(BORDER_MM * s)), 1)
    frame = np.zeros_like(mask)
    frame[:edge, :] = frame[-edge:, :] = 1
    frame[:, :edge] = frame[:, -edge:] = 1
    rows, cols = np.nonzero(mask & frame)
    if len(rows):
        i = len(rows) // 2
        at = (origin[0] + (cols[i] + 0.5) / s, origin[1] + (rows[i] + 0.5) / s)
        raise _near(f"the track runs out of {view}", at,
                    "the edge line is not seen all round it: is the whole board in view, its line unbroken "
                    "and the light even (no glare)?")


def _polygons(mask: np.ndarray, s: float, origin: tuple[float, float]) -> Polygon | MultiPolygon:
    """The mask's outline in mm: outer rings with every hole larger than a sliver."""
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    if hierarchy is None:
        raise CalibrationError("no track found around the seeds")
    polys = []
    hier = hierarchy[0]
    for i, c in enumerate(contours):
        if hier[i][3] != -1 or len(c) < 3:
            continue
        holes = []
        j = hier[i][2]
        while j != -1:
            if len(contours[j]) >= 3 and cv2.contourArea(contours[j]) >= SLIVER_MM2 * s * s:
                holes.append(_to_mm(contours[j], s, origin))
            j = hier[j][0]
        poly = Polygon(_to_mm(c, s, origin), holes)
        polys.append(poly if poly.is_valid else shapely.make_valid(poly))
    # contour pixels are the region's outermost pixels: its edge is half a pixel further out
    union = shapely.unary_union(polys).buffer(0.5 / s, join_style="mitre")
    return union.simplify(0.25 / s)


def _to_mm(contour: np.ndarray, s: float, origin: tuple[float, float]) -> np.ndarray:
    pts = contour.reshape(-1, 2).astype(np.float64)
    return np.asarray((pts + 0.5) / s + np.asarray(origin), np.float64)


def _seeded_part(region: Any, seeds_mm: list[tuple[float, float]]) -> Polygon:
    """The one polygon of *region* that holds the seeds."""
    parts = [p for p in shapely.get_parts(region) if p.geom_type == "Polygon"]
    holding = {i for i, part in enumerate(parts) for x, y in seeds_mm if part.contains(Point(x, y))}
    if len(holding) > 1:
        raise CalibrationError(f"the seeds lie in {len(holding)} separate regions: is the edge line "
                               "broken, or a seed outside the track?")
    if not holding:
        raise CalibrationError("no track found around the seeds: put each seed on the open track")
    return parts[holding.pop()]


def _is_island(edge: track_edge.RingEdge, hole: Polygon, lab: np.ndarray, s: float,
               origin: tuple[float, float], line_lab: np.ndarray, track_lab: np.ndarray) -> bool:
    """Whether a hole in the track is framed by the edge line (an infield or an island), not
    print on the track: its rim has the line's colour and its inside another colour than
    both the rim and the track."""
    if edge.found.mean() < ISLAND_FOUND_SHARE:
        return False
    rim = np.median(edge.outside[edge.found], axis=0)
    core_poly = hole.buffer(-ISLAND_CORE_MM)
    if core_poly.is_empty:
        return False
    core_mask = np.zeros(lab.shape[:2], np.uint8)
    for part in shapely.get_parts(core_poly):
        ring = np.round((np.asarray(part.exterior.coords) - np.asarray(origin)) * s - 0.5).astype(np.int32)
        cv2.fillPoly(core_mask, [ring], 1)
    if not core_mask.any():
        return False
    core = np.median(lab[core_mask > 0], axis=0)
    return bool(np.linalg.norm(rim - line_lab) < ISLAND_RIM_DE
                and (np.linalg.norm(core - rim) > ISLAND_DIFFER_DE or hole.area >= INFIELD_MM2)
                and np.linalg.norm(core - track_lab) > ISLAND_DIFFER_DE)


def _faint(ring: track_edge.RingEdge) -> np.ndarray:
    """The vertices of *ring* where no edge was found, or one with too little contrast."""
    return np.asarray(~ring.found | (ring.contrast < WEAK_CONTRAST_DE))


def _through_faint(ring: track_edge.RingEdge, line_lab: np.ndarray) -> track_edge.RingEdge:
    """*ring* with each untrusted vertex put on the line between the trusted ones either side of
    it (along the ring), rather than where the region's outline happened to pass. Untrusted: a
    faint vertex, or one in a short run (at most :data:`WEAK_RUN_MM`) with something else than
    the line's colour past it (print on the track that meets the line)."""
    off_line = np.linalg.norm(ring.outside - line_lab, axis=1) >= track_edge.LINE_MATCH_DE
    untrusted = _faint(ring) | (off_line & _short_runs(off_line, ring.points))
    if not untrusted.any() or untrusted.all():
        return ring
    arc = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(ring.points, axis=0), axis=1))])
    closed = arc[-1] + float(np.linalg.norm(ring.points[0] - ring.points[-1]))
    keep = np.flatnonzero(~untrusted)
    # trusted vertices one lap before and after, so a run across the ring's start interpolates too
    at = np.concatenate([arc[keep] - closed, arc[keep], arc[keep] + closed])
    xy = np.concatenate([ring.points[keep]] * 3)
    points = ring.points.copy()
    for axis in (0, 1):
        points[untrusted, axis] = np.interp(arc[untrusted], at, xy[:, axis])
    return track_edge.RingEdge(points, ring.found, ring.contrast, ring.inside, ring.outside,
                               ring.normal)


def _runs(flags: np.ndarray) -> list[np.ndarray]:
    """The runs of True in a closed ring of *flags*, each as vertex indices in ring order."""
    if flags.all():
        return [np.arange(len(flags))]
    start = int(np.argmin(flags))  # walk from a False vertex, so no run wraps round the start
    order = np.roll(np.arange(len(flags)), -start)
    cuts = np.flatnonzero(np.diff(flags[order].astype(np.int8)) != 0) + 1
    return [part for part in np.split(order, cuts) if flags[part[0]]]


def _run_length(run: np.ndarray, points: np.ndarray) -> float:
    """The length of ring from the first vertex of *run* to its last."""
    step = np.linalg.norm(np.roll(points, -1, axis=0) - points, axis=1)
    return float(step[run[:-1]].sum())


def _short_runs(flags: np.ndarray, points: np.ndarray) -> np.ndarray:
    short = np.zeros(len(flags), bool)
    for run in _runs(flags):
        if len(run) < len(flags) and _run_length(run, points) <= WEAK_RUN_MM:
            short[run] = True
    return short


def _refuse_off_line(ring: track_edge.RingEdge, apart: np.ndarray, line_lab: np.ndarray) -> None:
    """:raises TrackRefused: where the edge runs for more than :data:`WEAK_RUN_MM` with the colour
    just past it no nearer the line's than :data:`LINE_FOLLOW_SHARE` of the track's distance from
    it: it follows print, or a patch the flood left out, not the line."""
    from_track = np.linalg.norm(ring.inside - line_lab, axis=1)
    for run in _runs(ring.found & (apart >= LINE_FOLLOW_SHARE * from_track)):
        if _run_length(run, ring.points) > WEAK_RUN_MM:
            raise _near("the edge follows something else than the edge line",
                        ring.points[run[len(run) // 2]], "add a seed there, or clear what lies on the track")


def _check_edges(rings: list[track_edge.RingEdge]) -> np.ndarray:
    """Where the edge is faint, every :data:`WEAK_SPACING_MM` along it.

    :raises CalibrationError: at the middle of a faint stretch longer than :data:`WEAK_RUN_MM`.
    """
    weak_points = []
    for ring in rings:
        weak = _faint(ring)
        if weak.all():
            raise _near("the edge could not be followed anywhere", ring.points[0],
                        "is the edge line in view, and the board lit?")
        for run in _runs(weak):
            if _run_length(run, ring.points) > WEAK_RUN_MM:
                raise _near("the edge could not be followed", ring.points[run[len(run) // 2]],
                            "add a seed there, light the board evenly, or clear the edge")
            steps = np.linalg.norm(np.diff(ring.points[run], axis=0), axis=1)
            along = np.concatenate([[0.0], np.cumsum(steps)])
            every = np.unique(np.searchsorted(along, np.arange(0.0, along[-1] + 1e-9, WEAK_SPACING_MM)))
            weak_points += [ring.points[run[k]] for k in every]
    return np.asarray(weak_points, np.float64).reshape(-1, 2)


# -- the track file ---------------------------------------------------------------------------------


def track_to_json(track: Track) -> dict[str, Any]:
    region = track.region
    rings = [region.exterior, *region.interiors]
    return {"polygons_mm": [[[round(x, 3), round(y, 3)] for x, y in r.coords] for r in rings],
            "area_mm2": round(float(region.area), 1),
            "weak_mm": [[round(float(x), 1), round(float(y), 1)] for x, y in track.weak_mm],
            "seeds_mm": [list(s) for s in track.seeds_mm]}


def track_from_json(doc: Any, source: str) -> Track:
    """A track from its JSON form. :raises LayoutError: naming *source*."""
    try:
        rings = doc["polygons_mm"]
        poly = Polygon(rings[0], rings[1:])
        weak = np.asarray(doc.get("weak_mm", []), np.float64).reshape(-1, 2)
        seeds = tuple((float(x), float(y)) for x, y in doc.get("seeds_mm", []))
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise LayoutError(f"track {source}: polygons_mm must be rings of [x, y] points ({exc})") from None
    if poly.is_empty or not poly.is_valid or poly.area <= 0:
        raise LayoutError(f"track {source}: polygons_mm is not a valid region")
    return Track(poly, weak, seeds)


def save_track(track: Track, path: Path) -> None:
    try:
        path.write_text(json.dumps(track_to_json(track)) + "\n", encoding="utf-8")
    except OSError as exc:
        raise LayoutError(f"--out {path}: cannot write the track ({exc.strerror})") from None


def load_track(path: Path) -> Track:
    """The learned track from a track file. :raises LayoutError:"""
    return track_from_json(read_json(path, "track"), str(path))
