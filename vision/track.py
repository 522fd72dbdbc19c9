"""Learning the track: the drivable region inside the printed edge line, in table mm.

From one frame of the empty board: the play area is rectified to a top-down image at
:data:`PX_PER_MM`; each pixel's brightness is taken relative to the brightest surface
around it, so uneven light divides out; the bright region connected to the seed points,
stopped by anything dark (the printed line, the board outside, dark print), is the track.
Its edge is then measured at each vertex along the edge's normal: where the brightness is
half way between the surface just inside and the line, which is where the printed line
begins, to a fraction of a pixel.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import shapely
from shapely.geometry import MultiPolygon, Point, Polygon

from vision.calibration import TableCalibration
from vision.errors import CalibrationError, LayoutError
from vision.layout import Layout, read_json

PX_PER_MM = 4.0
INFIELD_MM2 = 2500.0
"""The least area of an infield: a hole in the track smaller than a 50 mm square is a symbol
printed on it (an energy field, a trap), not board a dragon flies round."""
SLIVER_MM2 = 20.0
"""Holes smaller than this are slivers of the edge refinement, not anything printed."""
ENVELOPE_MM = 25.0
BARRIER = 0.75
"""The fill from the seeds stops at pixels with less than this share of the surface's
brightness around them: the printed line (a few per cent of it), the board outside, dark
print. Only what is connected matters here; where the edge lies is measured afterwards."""


def play_area(layout: Layout) -> tuple[float, float, float, float]:
    """``(x0, y0, x1, y1)`` in mm: the layout's play area, or the table markers' extent."""
    if layout.play_area_mm is not None:
        return (0.0, 0.0, *layout.play_area_mm)
    pts = np.concatenate([m.corners_mm for m in layout.table_markers])
    return (float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max()))


def rectify(image: np.ndarray, calibration: TableCalibration, area: tuple[float, float, float, float],
            px_per_mm: float = PX_PER_MM) -> np.ndarray:
    """The play area seen from straight above, *px_per_mm* pixels to the mm (brightness, float32).
    Pixel (i, j) is centred on table point (x0 + (j + 0.5) / s, y0 + (i + 0.5) / s)."""
    x0, y0, x1, y1 = area
    w, h = round((x1 - x0) * px_per_mm), round((y1 - y0) * px_per_mm)
    # The map is smooth (a homography and a lens): project a grid every STEP pixels and
    # interpolate between, rather than every one of millions of pixels.
    step = 8
    cols = np.arange(0, w + step, step, dtype=np.float64)
    rows = np.arange(0, h + step, step, dtype=np.float64)
    gx, gy = np.meshgrid(x0 + (cols + 0.5) / px_per_mm, y0 + (rows + 0.5) / px_per_mm)
    src = calibration.to_image(np.column_stack([gx.ravel(), gy.ravel()]))
    coarse_x = src[:, 0].reshape(len(rows), len(cols))
    coarse_y = src[:, 1].reshape(len(rows), len(cols))
    fine_c = np.arange(w, dtype=np.float32) / step
    fine_r = np.arange(h, dtype=np.float32) / step
    fc, fr = np.meshgrid(fine_c, fine_r)
    map_x = np.asarray(cv2.remap(coarse_x.astype(np.float32), fc, fr, cv2.INTER_LINEAR), np.float32)
    map_y = np.asarray(cv2.remap(coarse_y.astype(np.float32), fc, fr, cv2.INTER_LINEAR), np.float32)
    # brightness as the strongest channel (HSV's value): the printed edge line is dark in
    # every channel, while coloured print (yellow guide lines, red symbols) is bright in one
    gray = image if image.ndim == 2 else image.max(axis=2)
    return np.asarray(cv2.remap(gray.astype(np.float32), map_x, map_y, cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE), np.float32)


def relative_brightness(top: np.ndarray, px_per_mm: float = PX_PER_MM) -> np.ndarray:
    """Each pixel's brightness as a share of the brightest surface around it (within
    :data:`ENVELOPE_MM`): light falling unevenly across the table divides out, and the
    printed line, the board outside the track and dark symbols all fall well below 1."""
    k = int(round(ENVELOPE_MM * px_per_mm)) | 1
    smooth = cv2.GaussianBlur(top, (0, 0), 0.35 * px_per_mm)  # sensor noise, not the edge
    envelope = cv2.dilate(smooth, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    envelope = cv2.GaussianBlur(envelope, (0, 0), 0.2 * k)
    return np.asarray(smooth / np.maximum(envelope, 1.0), np.float32)


def learn_track(image: np.ndarray, calibration: TableCalibration, layout: Layout,
                seeds_mm: list[tuple[float, float]], px_per_mm: float = PX_PER_MM) -> Polygon:
    """The drivable region around *seeds_mm*, in table mm.

    :raises CalibrationError: when a seed is outside the play area or on the line, or the
        seeds lie in separate regions.
    """
    if not seeds_mm:
        raise CalibrationError("give at least one --seed X,Y inside the track")
    area = play_area(layout)
    x0, y0, x1, y1 = area
    for x, y in seeds_mm:
        if not (x0 < x < x1 and y0 < y < y1):
            raise CalibrationError(f"seed {x:g},{y:g} is outside the play area "
                                   f"{x0:g},{y0:g} - {x1:g},{y1:g} mm")
    top = rectify(image, calibration, area, px_per_mm)
    free = (relative_brightness(top, px_per_mm) > BARRIER).astype(np.uint8)
    seeds_px = [(int((x - x0) * px_per_mm), int((y - y0) * px_per_mm)) for x, y in seeds_mm]
    n, labels = cv2.connectedComponents(free, connectivity=4)
    chosen = {int(labels[py, px]) for px, py in seeds_px}
    if not all(free[py, px] for px, py in seeds_px):
        raise CalibrationError("a seed lies on something dark (the edge line, a symbol): "
                               "put each seed on the open track")
    mask = np.isin(labels, list(chosen)).astype(np.uint8)
    region = _polygons(mask, top, px_per_mm, (x0, y0))
    region = _refine(region, top, px_per_mm, (x0, y0))
    seed_parts = {i for i, part in enumerate(_parts(region))
                  for x, y in seeds_mm if part.contains(Point(x, y))}
    if len(seed_parts) > 1:
        raise CalibrationError(f"the seeds lie in {len(seed_parts)} separate regions: is the edge line "
                               "broken, or a seed outside the track?")
    parts = [p for i, p in enumerate(_parts(region)) if i in seed_parts]
    if not parts:
        raise CalibrationError("no track found around the seeds")
    track = parts[0]
    holes = [h for h in track.interiors if Polygon(h).area >= SLIVER_MM2]
    return Polygon(track.exterior, holes)


def _parts(region: Polygon | MultiPolygon) -> list[Polygon]:
    return list(region.geoms) if isinstance(region, MultiPolygon) else [region]


def _polygons(mask: np.ndarray, top: np.ndarray, s: float,
              origin: tuple[float, float]) -> Polygon | MultiPolygon:
    """The mask's outline in mm: outer rings with their holes. A hole whose inside is as
    bright as the track around it (a symbol printed in outline on the track) is filled; one
    that is darker inside (the board in the middle of a circuit) is an infield and stays."""
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    if hierarchy is None:
        raise CalibrationError("no track found around the seeds")
    polys = []
    hier = hierarchy[0]
    for i, c in enumerate(contours):
        if hier[i][3] != -1 or len(c) < 3:
            continue
        shell = _to_mm(c, s, origin)
        holes = []
        j = hier[i][2]
        while j != -1:
            if len(contours[j]) >= 3 and _is_infield(mask, top, contours, j, s):
                holes.append(_to_mm(contours[j], s, origin))
            j = hier[j][0]
        poly = Polygon(shell, holes)
        polys.append(poly if poly.is_valid else shapely.make_valid(poly))
    # contour pixels are the region's outermost pixels: its edge is half a pixel further out
    union = shapely.unary_union(polys).buffer(0.5 / s, join_style="mitre")
    return union.simplify(0.25 / s)


def _is_infield(mask: np.ndarray, top: np.ndarray, contours: Any, j: int, s: float) -> bool:
    """Whether hole *j* of the track mask is darker inside than the track just around it."""
    hole = np.zeros(mask.shape, np.uint8)
    cv2.drawContours(hole, contours, j, 1, thickness=-1)
    rim = int(round(2 * s))  # 2 mm: the printed line and its blur
    core = cv2.erode(hole, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8))
    around = cv2.dilate(hole, np.ones((8 * rim + 1, 8 * rim + 1), np.uint8)) & mask & (1 - hole)
    if hole.sum() < INFIELD_MM2 * s * s or not core.any() or not around.any():
        return False  # smaller than any infield a dragon could fly round: print on the track
    return float(np.median(top[core > 0])) < BARRIER * float(np.median(top[around > 0]))


def _to_mm(contour: np.ndarray, s: float, origin: tuple[float, float]) -> np.ndarray:
    pts = contour.reshape(-1, 2).astype(np.float64)
    return np.asarray((pts + 0.5) / s + np.asarray(origin), np.float64)


def _refine(region: Polygon | MultiPolygon, top: np.ndarray, s: float,
            origin: tuple[float, float]) -> Polygon | MultiPolygon:
    """Move each vertex along its ring's normal to the printed line's inner edge: where the
    brightness is half way between the track's surface just inside and the line's darkest,
    both measured right there (so light falling across the table does not shift it),
    interpolated between samples (a fraction of a pixel)."""
    inner_mm, outer_mm, step_mm = 2.0, 5.0, 0.05
    steps = np.arange(-inner_mm, outer_mm + step_mm / 2, step_mm)

    def ring(coords: np.ndarray) -> np.ndarray:
        pts = coords[:-1]
        if len(pts) < 4:
            return coords
        tangent = np.roll(pts, -2, axis=0) - np.roll(pts, 2, axis=0)  # over 4 vertices: less jagged
        tangent /= np.maximum(np.linalg.norm(tangent, axis=1, keepdims=True), 1e-9)
        # oriented (shell counter-clockwise, holes clockwise, in x/y terms), the right-hand
        # normal points away from the region on every ring
        normal = np.column_stack([tangent[:, 1], -tangent[:, 0]])
        samples = pts[:, None, :] + steps[None, :, None] * normal[:, None, :]
        px = (samples - np.asarray(origin)) * s - 0.5
        prof = np.asarray(cv2.remap(top, px[..., 0].astype(np.float32), px[..., 1].astype(np.float32),
                                    cv2.INTER_LINEAR), np.float64)
        n_in = int(round(1.0 / step_mm))  # the surface: the first mm inside
        surface = np.median(prof[:, :n_in], axis=1)
        darkest = prof.min(axis=1)
        level = (surface + darkest) / 2
        out = pts.copy()
        for k in range(len(pts)):
            if surface[k] - darkest[k] < 15:
                continue  # no line here (a hand, glare): keep the pixel edge
            below = prof[k] < level[k]
            first = int(np.argmax(below))  # the first sample darker than half way, going outward
            if first == 0 or not below[first]:
                continue
            a, b = prof[k, first - 1], prof[k, first]
            f = (a - level[k]) / (a - b) if a != b else 0.5
            out[k] = samples[k, first - 1] + f * (samples[k, first] - samples[k, first - 1])
        return np.vstack([out, out[:1]])

    fixed = []
    for part in _parts(region):
        part = shapely.geometry.polygon.orient(part, sign=1.0)
        shell = ring(np.asarray(part.exterior.coords))
        holes = [ring(np.asarray(h.coords)) for h in part.interiors]
        poly = Polygon(shell, holes)
        fixed.append(poly if poly.is_valid else shapely.make_valid(poly).buffer(0))
    return shapely.unary_union(fixed)


# -- the track file ---------------------------------------------------------------------------------


def track_to_json(track: Polygon) -> dict[str, Any]:
    rings = [track.exterior, *track.interiors]
    return {"polygons_mm": [[[round(x, 3), round(y, 3)] for x, y in r.coords] for r in rings],
            "area_mm2": round(float(track.area), 1)}


def save_track(track: Polygon, path: Path, seeds_mm: list[tuple[float, float]]) -> None:
    doc = {**track_to_json(track), "seeds_mm": [list(s) for s in seeds_mm]}
    try:
        path.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    except OSError as exc:
        raise LayoutError(f"--out {path}: cannot write the track ({exc.strerror})") from None


def load_track(path: Path) -> Polygon:
    """The drivable region from a track file. :raises LayoutError:"""
    doc = read_json(path, "track")
    try:
        rings = doc["polygons_mm"]
        poly = Polygon(rings[0], rings[1:])
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise LayoutError(f"track {path}: polygons_mm must be rings of [x, y] points ({exc})") from None
    if poly.is_empty or not poly.is_valid or poly.area <= 0:
        raise LayoutError(f"track {path}: polygons_mm is not a valid region")
    return poly
