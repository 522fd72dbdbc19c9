"""The table calibration: from image pixels to table millimetres, and back.

The table markers' corners (found with sub-pixel refinement) against their corners in
the layout give the table->image homography; its error is reported in millimetres on the
table. With a lens calibration the pixels are undistorted first, and the camera's pose
comes from ``solvePnP``: then a plane at any height above the table (a piece's top) has
its own homography, which is how the pieces' height is corrected for.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision import markers
from vision.errors import CalibrationError, LayoutError
from vision.layout import Layout, read_json

BUMP_TOLERANCE_PX = 2.0
"""A table marker that moved more than this (mean of its corners) means the camera moved."""


@dataclass(frozen=True)
class Lens:
    """The camera's intrinsics and distortion (from ``companion vision calibrate-lens``)."""

    K: np.ndarray
    dist: np.ndarray

    @classmethod
    def load(cls, path: Path) -> Lens:
        """The lens in a ``calibrate-lens`` file. :raises LayoutError: for a bad file."""
        from vision.lens import LensCalibration

        cal = LensCalibration.load(path)
        return cls(cal.K, cal.dist)

    def undistort_points(self, points_px: np.ndarray) -> np.ndarray:
        pts = np.asarray(points_px, np.float64).reshape(-1, 1, 2)
        return np.asarray(cv2.undistortPoints(pts, self.K, self.dist, P=self.K), np.float64).reshape(-1, 2)


@dataclass(frozen=True)
class TableCalibration:
    """Image <-> table for one camera position. ``homography`` maps table mm (z = 0) to
    (undistorted, with a lens) pixels; ``marker_px`` is where each table marker was seen."""

    homography: np.ndarray
    reprojection_error_mm: float
    markers_found: tuple[int, ...]
    marker_px: dict[int, np.ndarray]
    image_size: tuple[int, int]
    lens: Lens | None = None
    rvec: np.ndarray | None = None
    tvec: np.ndarray | None = None

    @property
    def has_pose(self) -> bool:
        return self.lens is not None and self.rvec is not None and self.tvec is not None

    def plane_homography(self, height_mm: float = 0.0) -> np.ndarray:
        """Table (x, y) on a plane *height_mm* above the table -> pixels. Without a pose,
        the table's own (no height correction)."""
        if not self.has_pose or height_mm == 0.0:
            return self.homography
        assert self.lens is not None and self.rvec is not None and self.tvec is not None
        rot, _ = cv2.Rodrigues(self.rvec)
        z = -height_mm  # z points into the table
        m = np.column_stack([rot[:, 0], rot[:, 1], rot[:, 2] * z + self.tvec.reshape(3)])
        h = self.lens.K @ m
        return np.asarray(h / h[2, 2], np.float64)

    @functools.cached_property
    def _from_image(self) -> np.ndarray:
        """Pixels (undistorted) -> table mm: worked out once (a reading maps a few dozen outlines)."""
        return np.asarray(np.linalg.inv(self.homography), np.float64)

    def to_table(self, points_px: np.ndarray, height_mm: float = 0.0) -> np.ndarray:
        """Pixels (as seen, distorted) -> table mm on the plane at *height_mm*."""
        pts = np.asarray(points_px, np.float64).reshape(-1, 2)
        if self.lens is not None:
            pts = self.lens.undistort_points(pts)
        inv = self._from_image if height_mm == 0.0 else np.linalg.inv(self.plane_homography(height_mm))
        return np.asarray(cv2.perspectiveTransform(pts.reshape(-1, 1, 2), inv), np.float64).reshape(-1, 2)

    def to_image(self, points_mm: np.ndarray, height_mm: float = 0.0) -> np.ndarray:
        """Table mm on the plane at *height_mm* -> pixels as seen (distorted, with a lens)."""
        pts = np.asarray(points_mm, np.float64).reshape(-1, 2)
        if self.has_pose:
            assert self.lens is not None and self.rvec is not None and self.tvec is not None
            obj = np.column_stack([pts, np.full(len(pts), -height_mm)])
            img, _ = cv2.projectPoints(obj, self.rvec, self.tvec, self.lens.K, self.lens.dist)
            return np.asarray(img, np.float64).reshape(-1, 2)
        return np.asarray(cv2.perspectiveTransform(pts.reshape(-1, 1, 2), self.plane_homography(height_mm)),
                          np.float64).reshape(-1, 2)

    def is_bumped(self, seen: dict[int, np.ndarray], tolerance_px: float = BUMP_TOLERANCE_PX) -> bool:
        """Whether the table markers in *seen* (from :func:`markers.detect`) moved since
        this calibration: the camera was bumped. Markers hidden by a hand count for nothing."""
        moved = [float(np.linalg.norm(seen[m] - self.marker_px[m], axis=1).mean())
                 for m in self.marker_px if m in seen]
        return bool(moved) and max(moved) > tolerance_px

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "reprojection_error_mm": round(self.reprojection_error_mm, 4),
            "markers_found": list(self.markers_found),
            "homography": [[float(v) for v in row] for row in self.homography],
            "image_size": list(self.image_size),
            "marker_px": {str(k): v.round(3).tolist() for k, v in self.marker_px.items()},
        }
        if self.lens is not None:
            doc["lens"] = {"K": self.lens.K.tolist(), "dist": self.lens.dist.reshape(-1).tolist()}
        if self.rvec is not None and self.tvec is not None:
            doc["pose"] = {"rvec": self.rvec.reshape(-1).tolist(), "tvec": self.tvec.reshape(-1).tolist()}
        return doc

    def save(self, path: Path) -> None:
        try:
            path.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")
        except OSError as exc:
            raise LayoutError(f"calibration {path}: cannot write it ({exc.strerror})") from None

    @classmethod
    def load(cls, path: Path) -> TableCalibration:
        doc = read_json(path, "calibration")
        try:
            h = np.asarray(doc["homography"], np.float64)
            if h.shape != (3, 3) or not np.isfinite(h).all():
                raise ValueError("homography must be 3x3")
            lens = None
            if "lens" in doc:
                lens = Lens(np.asarray(doc["lens"]["K"], np.float64).reshape(3, 3),
                            np.asarray(doc["lens"]["dist"], np.float64).reshape(-1))
            rvec = tvec = None
            if "pose" in doc:
                rvec = np.asarray(doc["pose"]["rvec"], np.float64).reshape(3, 1)
                tvec = np.asarray(doc["pose"]["tvec"], np.float64).reshape(3, 1)
            return cls(h, float(doc["reprojection_error_mm"]), tuple(int(m) for m in doc["markers_found"]),
                       {int(k): np.asarray(v, np.float64).reshape(4, 2) for k, v in doc["marker_px"].items()},
                       (int(doc["image_size"][0]), int(doc["image_size"][1])), lens, rvec, tvec)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise LayoutError(f"calibration {path}: not a calibration file ({exc})") from None


def calibrate(image: np.ndarray, layout: Layout, lens: Lens | None = None,
              seen: dict[int, np.ndarray] | None = None) -> TableCalibration:
    """The table calibration from one frame in which at least two table markers show.

    :raises CalibrationError: naming the markers found and those missing.
    """
    if seen is None:
        seen = markers.detect(image, layout.dictionary)
    table = [m for m in layout.table_markers if m.id in seen]
    if len(table) < 2:
        wanted = [m.id for m in layout.table_markers]
        raise CalibrationError(f"need at least 2 of the table markers {wanted} in view; found "
                               f"{sorted(m.id for m in table) or 'none'}")
    obj = np.concatenate([m.corners_mm for m in table])
    img = np.concatenate([seen[m.id] for m in table])
    und = lens.undistort_points(img) if lens is not None else img
    h, _mask = cv2.findHomography(obj, und, 0)
    if h is None:
        raise CalibrationError("the table markers' corners give no homography (are they on one line?)")
    inv = np.linalg.inv(h)
    back = cv2.perspectiveTransform(und.reshape(-1, 1, 2), inv).reshape(-1, 2)
    # RMS over the corners, on the table: what a point's position is off by, in mm
    error = float(np.sqrt(np.mean(np.sum((back - obj) ** 2, axis=1))))
    rvec = tvec = None
    if lens is not None:
        obj3 = np.column_stack([obj, np.zeros(len(obj))])
        ok, rvec, tvec = cv2.solvePnP(obj3, img, lens.K, lens.dist, flags=cv2.SOLVEPNP_IPPE)
        if ok:
            rvec, tvec = cv2.solvePnPRefineLM(obj3, img, lens.K, lens.dist, rvec, tvec)
        else:
            rvec = tvec = None
    size = (int(image.shape[1]), int(image.shape[0]))
    return TableCalibration(np.asarray(h / h[2, 2], np.float64), error, tuple(sorted(m.id for m in table)),
                            {m.id: seen[m.id] for m in table}, size, lens, rvec, tvec)
