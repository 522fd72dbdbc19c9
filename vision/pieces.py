"""Measuring a real piece: its outline from a photo, in its own frame, for the layout file.

The piece lies alone on a plain surface that differs from it (a dark cloth under a light
template), in view of the table markers. The plane at the piece's height is rectified
around its markers; the piece is the region, connected to its markers, on the same side of
an Otsu threshold as the marker's white quiet zone; its outline is taken into the piece's
own frame (the layout's, fitted to its markers; or, for a piece the layout does not know,
its marker's: origin at the marker's centre, x along its top edge).
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import shapely
from shapely.geometry import Polygon

from vision import markers
from vision.calibration import TableCalibration
from vision.errors import CalibrationError
from vision.flight import rigid_fit
from vision.layout import Layout

PX_PER_MM = 4.0
MARGIN_MM = 400.0
"""How far from its marker the piece may reach (the longest template and then some)."""


def measure_outline(image: np.ndarray, calibration: TableCalibration, layout: Layout, marker_id: int,
                    height_mm: float | None = None,
                    seen: dict[int, np.ndarray] | None = None) -> dict[str, Any]:
    """The piece carrying *marker_id*: ``{"marker_id", "outline_mm", "marker_corners_mm",
    "height_mm", "area_mm2"}`` with everything in the piece's own frame.

    :raises CalibrationError: when its marker is not in view or the piece does not stand out.
    """
    if seen is None:
        seen = markers.detect(image, layout.dictionary)
    if marker_id not in seen:
        raise CalibrationError(f"marker {marker_id} is not in view")
    spec = layout.piece_for(marker_id)
    height = height_mm if height_mm is not None else (spec.height_mm if spec is not None else 0.0)
    ids = [m for m in (spec.markers if spec is not None else {marker_id: None}) if m in seen]
    table_corners = {m: calibration.to_table(seen[m], height) for m in ids}
    if spec is not None:
        own = np.concatenate([spec.markers[m] for m in ids])
        rot, t, _rms = rigid_fit(own, np.concatenate([table_corners[m] for m in ids]))
    else:  # a new piece: its frame is its marker's
        c = table_corners[marker_id]
        side = float(np.linalg.norm(c[1] - c[0]))
        half = side / 2
        own = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
        rot, t, _rms = rigid_fit(own, c)
    region = _piece_region(image, calibration, height, table_corners)
    local = np.asarray(region.exterior.coords)[:-1]
    outline = (local - t) @ rot  # table -> piece frame (rot is orthonormal)
    corners = spec.markers[marker_id] if spec is not None else own
    return {"marker_id": marker_id,
            "outline_mm": [[round(float(x), 2), round(float(y), 2)] for x, y in outline],
            "marker_corners_mm": [[round(float(x), 3), round(float(y), 3)] for x, y in corners],
            "height_mm": height, "area_mm2": round(float(region.area), 1)}


def _piece_region(image: np.ndarray, calibration: TableCalibration, height: float,
                  table_corners: dict[int, np.ndarray]) -> Polygon:
    pts = np.concatenate(list(table_corners.values()))
    x0, y0 = pts.min(axis=0) - MARGIN_MM
    x1, y1 = pts.max(axis=0) + MARGIN_MM
    s = PX_PER_MM
    w, h = int((x1 - x0) * s), int((y1 - y0) * s)
    to_rect = np.array([[s, 0, -x0 * s - 0.5], [0, s, -y0 * s - 0.5], [0, 0, 1.0]])
    # table (x, y) at the piece's height -> undistorted pixels; rectify through it
    plane = calibration.plane_homography(height)
    lens = calibration.lens
    src = image if lens is None else cv2.undistort(image, lens.K, lens.dist)
    top = cv2.warpPerspective(src, to_rect @ np.linalg.inv(plane), (w, h), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    value = cv2.GaussianBlur(np.asarray(top).max(axis=2), (0, 0), 0.5 * s)
    inside_px = [((c - (x0, y0)) * s) for c in table_corners.values()]
    quiet = []  # the white quiet zone just outside each marker: the piece's surface side
    for c in inside_px:
        centre = c.mean(axis=0)
        ring = centre + (c - centre) * 1.12
        quiet += [value[int(p[1]), int(p[0])] for p in ring if 0 <= p[0] < w and 0 <= p[1] < h]
    threshold, _ = cv2.threshold(value.astype(np.uint8), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    bright = float(np.median(quiet)) > threshold
    mask = ((value > threshold) == bright).astype(np.uint8)
    for c in inside_px:  # the marker's black cells belong to the piece
        cv2.fillConvexPoly(mask, np.round(c).astype(np.int32), 1)
    _n, labels = cv2.connectedComponents(mask, connectivity=4)
    centre = np.mean([c.mean(axis=0) for c in inside_px], axis=0)
    label = int(labels[int(centre[1]), int(centre[0])])
    if label == 0:
        raise CalibrationError("the piece does not stand out from what it lies on: lay it on a plain, "
                               "contrasting surface")
    piece = (labels == label).astype(np.uint8)
    # Otsu split the whole view; the edge is where the brightness is half way between the
    # piece and what it lies on, both measured right beside the edge
    band = int(3 * s)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * band + 1, 2 * band + 1))
    inner = cv2.erode(piece, kernel).astype(bool)
    touching = cv2.dilate(piece, np.ones((3, 3), np.uint8)).astype(bool)
    outer = cv2.dilate(piece, kernel).astype(bool) & ~touching
    if inner.any() and outer.any():
        level = (float(np.median(value[inner & (mask > 0)])) + float(np.median(value[outer]))) / 2
        mask = ((value > level) == bright).astype(np.uint8)
        for c in inside_px:
            cv2.fillConvexPoly(mask, np.round(c).astype(np.int32), 1)
        _n, labels = cv2.connectedComponents(mask, connectivity=4)
        again = int(labels[int(centre[1]), int(centre[0])])
        if again != 0:
            piece = (labels == again).astype(np.uint8)
    if piece[0].any() or piece[-1].any() or piece[:, 0].any() or piece[:, -1].any():
        raise CalibrationError("the piece runs into its surroundings: lay it alone on a plain, contrasting "
                               "surface")
    contours, _ = cv2.findContours(piece, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    contour = max(contours, key=cv2.contourArea).reshape(-1, 2).astype(np.float64)
    mm = (contour + 0.5) / s + (x0, y0)
    poly = Polygon(mm).buffer(0.5 / s, join_style="mitre")  # contour pixels are the outermost inside
    poly = shapely.make_valid(poly) if not poly.is_valid else poly
    return poly.simplify(0.15)
