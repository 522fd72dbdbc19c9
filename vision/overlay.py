"""Pictures of the edge check drawn over the camera's photo: people would rather look than read.

- :func:`draw_track`: the learned track's edge (its outer ring and every infield), the faint
  places on it and the seeds; or, for a track that was refused, the place it failed and why.
- :func:`draw_flight`: the track's edge, and each template and dragon base's fitted outline in
  the colour of its verdict (red touch, green clear, amber uncertain) with its clearance in mm
  beside its contact point.

Everything is drawn in the photo's own pixels (the track and the outlines are taken from table
mm through the calibration, lens included), with lines and text scaled to the photo's size.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import cv2
import numpy as np
import shapely

from vision.calibration import TableCalibration
from vision.errors import VisionError
from vision.flight import FlightCheck
from vision.track import Track

TRACK_BGR = (255, 200, 0)
FAINT_BGR = (255, 0, 255)
VERDICT_BGR = {"touch": (40, 40, 230), "clear": (60, 200, 60), "uncertain": (0, 190, 255)}
TEXT_BGR = (255, 255, 255)


def _scale(image: np.ndarray) -> float:
    """Line and text size for *image*: 1 at 1280 pixels across."""
    return float(max(image.shape[1], image.shape[0] * 16 / 9) / 1280)


def _to_px(calibration: TableCalibration, points_mm: np.ndarray, step_mm: float = 2.0) -> np.ndarray:
    """A ring in table mm as image pixels, sampled every *step_mm* so a lens bends it right."""
    ring = shapely.segmentize(shapely.linearrings(np.asarray(points_mm, np.float64)), step_mm)
    return np.asarray(calibration.to_image(shapely.get_coordinates(ring)[:-1]), np.float64)


def _polyline(image: np.ndarray, px: np.ndarray, colour: tuple[int, int, int], width: int) -> None:
    shift = 4  # sub-pixel positions: 1/16 px
    cv2.polylines(image, [np.round(px * (1 << shift)).astype(np.int32)], True, colour, width, cv2.LINE_AA,
                  shift)


def _label(image: np.ndarray, text: str, at: Sequence[float], colour: tuple[int, int, int],
           larger: float = 1.0) -> None:
    """*text* at pixel *at*, in *colour* on a dark box, kept inside the image; *larger* for a
    picture that will be shown small."""
    s = _scale(image) * larger
    font, size, thick = cv2.FONT_HERSHEY_SIMPLEX, 0.6 * s, max(1, round(1.5 * s))
    (w, h), base = cv2.getTextSize(text, font, size, thick)
    pad = max(2, round(4 * s))
    x = int(min(max(at[0] - w / 2, pad), image.shape[1] - w - pad))
    y = int(min(max(at[1] - 12 * s, h + pad), image.shape[0] - base - pad))
    cv2.rectangle(image, (x - pad, y - h - pad), (x + w + pad, y + base + pad), (20, 20, 20), -1)
    cv2.putText(image, text, (x, y), font, size, colour, thick, cv2.LINE_AA)


def _draw_edge(image: np.ndarray, calibration: TableCalibration, track: Track) -> None:
    s = _scale(image)
    for ring in [track.region.exterior, *track.region.interiors]:
        px = _to_px(calibration, np.asarray(ring.coords)[:-1])
        _polyline(image, px, TRACK_BGR, max(1, round(2 * s)))
    for point in _to_px_points(calibration, track.weak_mm):
        cv2.circle(image, (int(point[0]), int(point[1])), max(2, round(5 * s)), FAINT_BGR,
                   max(1, round(2 * s)), cv2.LINE_AA)


def _to_px_points(calibration: TableCalibration, points_mm: Iterable[Sequence[float]]) -> np.ndarray:
    pts = np.asarray(list(points_mm), np.float64).reshape(-1, 2)
    return np.asarray(calibration.to_image(pts), np.float64) if len(pts) else pts


def draw_track(image: np.ndarray, calibration: TableCalibration, track: Track | None,
               seeds_mm: Sequence[tuple[float, float]] = (), refused: str | None = None,
               refused_at_mm: tuple[float, float] | None = None) -> np.ndarray:
    """The learned *track* over *image* (a copy), or why and where it was *refused*."""
    out = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    s = _scale(out)
    if track is not None:
        _draw_edge(out, calibration, track)
    for point in _to_px_points(calibration, seeds_mm):
        cv2.drawMarker(out, (int(point[0]), int(point[1])), TEXT_BGR, cv2.MARKER_CROSS, round(16 * s),
                       max(1, round(2 * s)), cv2.LINE_AA)
    if refused is not None:
        where = out.shape[1] / 2, out.shape[0] / 2
        if refused_at_mm is not None:
            [where] = _to_px_points(calibration, [refused_at_mm])
            cv2.circle(out, (int(where[0]), int(where[1])), round(30 * s), VERDICT_BGR["touch"],
                       max(2, round(3 * s)), cv2.LINE_AA)
        _label(out, refused, (where[0], where[1] - 30 * s), VERDICT_BGR["touch"])
    elif track is not None:
        faint = f", faint at {len(track.weak_mm)} place(s)" if len(track.weak_mm) else ""
        infields = len(track.region.interiors)
        _label(out, f"track {track.region.area / 1e6:.3f} m2, {infields} infield(s){faint}",
               (out.shape[1] / 2, 40 * s), TRACK_BGR)
    return out


def draw_flight(image: np.ndarray, calibration: TableCalibration, track: Track,
                check: FlightCheck, larger: float = 1.0) -> np.ndarray:
    """The track's edge and every piece's outline, verdict and clearance over *image* (a copy);
    lines and labels *larger* for a picture that will be shown small."""
    out = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    s = _scale(out) * larger
    _draw_edge(out, calibration, track)
    for piece in check.pieces:
        colour = VERDICT_BGR[piece.verdict]
        if piece.spec.height_mm == 0:
            outline = _to_px(calibration, piece.outline_mm, 1.0)
        else:  # its top, where the camera sees its outline
            outline = np.asarray(calibration.to_image(piece.outline_mm, piece.spec.height_mm), np.float64)
        _polyline(out, outline, colour, max(2, round(3 * s)))
        [contact] = _to_px_points(calibration, [piece.contact_mm])
        cv2.circle(out, (int(contact[0]), int(contact[1])), max(3, round(6 * s)), colour, -1, cv2.LINE_AA)
        _label(out, f"{piece.verdict} {piece.clearance_mm:+.1f} mm", contact, colour, larger)
    return out


def save_picture(path: Path, image: np.ndarray) -> None:
    """Write *image* to *path* (its suffix says the format). :raises VisionError: naming the file."""
    try:
        ok = cv2.imwrite(str(path), image)
    except cv2.error:
        ok = False
    if not ok:
        raise VisionError(f"--overlay {path}: cannot write a picture there "
                          "(a .png or .jpg in a folder that exists)")
