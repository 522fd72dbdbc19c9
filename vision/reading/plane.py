"""The view pieces are read in: the table seen from straight above at a known scale.

With a calibration the frame is warped onto the table plane at ``work_px_per_mm``; given the
frame's own scale (a top-down frame) it is only resized; with neither, the frame is taken as it
is (shrunk) and sizes are unknown: pieces are then told by their shape alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.calibration import TableCalibration
from vision.reading.params import Params

MAP_STEP_PX = 16
"""The warp's map is worked out every this many view pixels and interpolated between (px)."""


@dataclass(frozen=True)
class Plane:
    """How view pixels relate to the frame and to what is reported."""

    scale: float | None
    """View pixels per mm, or None when the frame's scale is unknown."""
    size: tuple[int, int]
    """The view's (width, height) in px."""
    calibration: TableCalibration | None
    origin_mm: tuple[float, float]
    """The table point at the view's pixel (0, 0), with a calibration."""
    frame_per_view: float
    """Without a calibration: frame pixels per view pixel."""

    @property
    def in_mm(self) -> bool:
        return self.calibration is not None

    def to_frame(self, points: np.ndarray) -> np.ndarray:
        """View px -> frame px (as seen)."""
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        if self.calibration is None:
            return (pts + 0.5) * self.frame_per_view - 0.5
        return self.calibration.to_image(self.to_report(pts))

    def to_report(self, points: np.ndarray) -> np.ndarray:
        """View px -> what a reading reports: table mm with a calibration, else frame px."""
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        if self.calibration is None:
            return self.to_frame(pts)
        assert self.scale is not None
        return np.asarray(self.origin_mm) + (pts + 0.5) / self.scale

    def from_frame(self, points: np.ndarray) -> np.ndarray:
        """Frame px -> view px."""
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        if self.calibration is None:
            return np.asarray((pts + 0.5) / self.frame_per_view - 0.5, np.float64)
        assert self.scale is not None
        mm = self.calibration.to_table(pts)
        return np.asarray((mm - np.asarray(self.origin_mm)) * self.scale - 0.5, np.float64)


def make_plane(image: np.ndarray, calibration: TableCalibration | None, px_per_mm: float | None,
               params: Params) -> tuple[Plane, Map]:
    """The plane for *image* and the map that warps a frame (the image, its empty twin) onto it."""
    height, width = image.shape[:2]
    if calibration is not None:
        corners = np.array([[0, 0], [width / 2, 0], [width, 0], [width, height / 2], [width, height],
                            [width / 2, height], [0, height], [0, height / 2]], np.float64) - 0.5
        mm = calibration.to_table(corners)
        x, y = mm[:, 0], mm[:, 1]
        seen_mm2 = abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))) / 2
        # no finer than the frame shows the table: a finer view only costs time
        scale = min(params.work_px_per_mm, math.sqrt(width * height / max(seen_mm2, 1e-9)))
        centre = calibration.to_table(np.array([[width / 2, height / 2]]))[0]
        half = params.max_table_mm / 2
        lo = np.maximum(mm.min(axis=0), centre - half)
        hi = np.minimum(mm.max(axis=0), centre + half)
        size = (max(1, int(np.ceil((hi[0] - lo[0]) * scale))), max(1, int(np.ceil((hi[1] - lo[1]) * scale))))
        plane = Plane(scale, size, calibration, (float(lo[0]), float(lo[1])), 1.0)
        return plane, Map.table(plane)
    if px_per_mm is not None:
        factor = params.work_px_per_mm / px_per_mm
    else:
        factor = min(1.0, params.free_long_side_px / max(height, width))
    size = (max(1, round(width * factor)), max(1, round(height * factor)))
    known = None if px_per_mm is None else params.work_px_per_mm
    return Plane(known, size, None, (0.0, 0.0), width / size[0]), Map.resize(size)


@dataclass(frozen=True)
class Map:
    """Warps a frame onto the view: a remap table, or a plain resize."""

    size: tuple[int, int]
    xy: tuple[np.ndarray, np.ndarray] | None = None

    @staticmethod
    def resize(size: tuple[int, int]) -> Map:
        return Map(size)

    @staticmethod
    def table(plane: Plane) -> Map:
        w, h = plane.size
        us = np.arange(0, w + MAP_STEP_PX, MAP_STEP_PX, dtype=np.float64)
        vs = np.arange(0, h + MAP_STEP_PX, MAP_STEP_PX, dtype=np.float64)
        grid = np.stack(np.meshgrid(us, vs), axis=-1).reshape(-1, 2)
        frame = plane.to_frame(grid).reshape(len(vs), len(us), 2).astype(np.float32)
        # view pixel (u, v) takes the coarse map at (u, v) / step, corner to corner
        back = np.array([[1.0 / MAP_STEP_PX, 0.0, 0.0], [0.0, 1.0 / MAP_STEP_PX, 0.0]])
        flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
        fx = cv2.warpAffine(frame[..., 0], back, (w, h), flags=flags, borderMode=cv2.BORDER_REPLICATE)
        fy = cv2.warpAffine(frame[..., 1], back, (w, h), flags=flags, borderMode=cv2.BORDER_REPLICATE)
        # in OpenCV's fixed-point form: each remap with it is quicker than with float maps
        fixed, fraction = cv2.convertMaps(np.ascontiguousarray(fx), np.ascontiguousarray(fy), cv2.CV_16SC2)
        return Map(plane.size, (fixed, fraction))

    def apply(self, frame: np.ndarray, border: int = 0) -> np.ndarray:
        """*frame* in the view (outside the frame: *border*)."""
        if self.xy is None:
            if (frame.shape[1], frame.shape[0]) == self.size:
                return frame
            return np.asarray(cv2.resize(frame, self.size, interpolation=cv2.INTER_AREA), frame.dtype)
        return np.asarray(cv2.remap(frame, self.xy[0], self.xy[1], cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_CONSTANT, borderValue=border), frame.dtype)

    def valid(self, frame_shape: tuple[int, ...]) -> np.ndarray:
        """1 where the view shows the frame, 0 elsewhere (uint8)."""
        ones = np.ones(frame_shape[:2], np.uint8)
        return self.apply(ones, 0)
