"""The camera: a pinhole with OpenCV's five-term lens distortion, and random overhead webcams.

Its world frame is the table's, in millimetres: x right, y down, z *into* the table (a point
``h`` mm above the table has ``z = -h``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True, eq=False)
class CameraModel:
    """A pinhole camera with OpenCV lens distortion, looking at the table.

    ``K`` is the 3x3 intrinsic matrix (pixels), ``dist`` OpenCV's ``(k1, k2, p1, p2, k3)``,
    ``rvec``/``tvec`` the world (table mm) to camera transform in OpenCV's convention
    (``X_cam = R X_world + t``, mm), ``size`` the image's ``(width, height)`` in pixels.
    """

    K: np.ndarray
    dist: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    size: tuple[int, int]

    @property
    def R(self) -> np.ndarray:
        """The 3x3 world-to-camera rotation."""
        return np.asarray(cv2.Rodrigues(np.asarray(self.rvec, np.float64))[0], np.float64)

    @property
    def center_mm(self) -> np.ndarray:
        """The camera's optical centre in table mm (its z is negative: above the table)."""
        return np.asarray(-self.R.T @ np.asarray(self.tvec, np.float64), np.float64)

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """Pixel positions (N, 2) of table points (N, 3) in mm, through the lens distortion."""
        pts = np.asarray(points_mm, np.float64).reshape(-1, 3)
        if len(pts) == 0:
            return np.zeros((0, 2))
        img, _ = cv2.projectPoints(pts, self.rvec, self.tvec, self.K, self.dist)
        return np.asarray(img, np.float64).reshape(-1, 2)

    def project_undistorted(self, points_mm: np.ndarray) -> np.ndarray:
        """Pixel positions (N, 2) of table points (N, 3) in mm for the same camera without distortion."""
        pts = np.asarray(points_mm, np.float64).reshape(-1, 3)
        cam = pts @ self.R.T + np.asarray(self.tvec, np.float64)
        hom = cam @ np.asarray(self.K, np.float64).T
        return np.asarray(hom[:, :2] / hom[:, 2:3], np.float64)

    def homography(self, height_mm: float = 0.0) -> np.ndarray:
        """3x3 map from table ``(x, y)`` mm at *height_mm* above the table to undistorted pixels.

        ``K [r1 r2 r3*z + t]`` with ``z = -height_mm``, normalised so its last entry is 1.
        """
        R = self.R
        t = np.asarray(self.tvec, np.float64).reshape(3)
        M = np.column_stack([R[:, 0], R[:, 1], R[:, 2] * (-height_mm) + t])
        H = np.asarray(self.K, np.float64) @ M
        return np.asarray(H / H[2, 2], np.float64)


def _look_at(center: np.ndarray, target: np.ndarray, yaw_rad: float) -> np.ndarray:
    """World-to-camera rotation of a camera at *center* looking at *target*, its x along world x
    turned by *yaw_rad*."""
    z = target - center
    z = z / np.linalg.norm(z)
    xw = np.array([math.cos(yaw_rad), math.sin(yaw_rad), 0.0])
    x = xw - z * float(xw @ z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    return np.stack([x, y, z])


def _rect_outline(x0: float, y0: float, x1: float, y1: float, per_side: int = 32) -> np.ndarray:
    """Points (4*per_side, 2) along a rectangle's edges, corners included."""
    t = np.linspace(0.0, 1.0, per_side, endpoint=False)
    top = np.column_stack([x0 + (x1 - x0) * t, np.full_like(t, y0)])
    right = np.column_stack([np.full_like(t, x1), y0 + (y1 - y0) * t])
    bottom = np.column_stack([x1 - (x1 - x0) * t, np.full_like(t, y1)])
    left = np.column_stack([np.full_like(t, x0), y1 - (y1 - y0) * t])
    return np.vstack([top, right, bottom, left])


def random_camera(rng: np.random.Generator, size: tuple[int, int] = (1280, 720),
                  area_mm: tuple[float, float] = (800.0, 500.0)) -> CameraModel:
    """A plausible overhead webcam that sees the whole play area (plus 10 mm) in frame.

    0.7-1.3 m above the area, its centre within 15 % of the area's size of the middle, aimed
    near the middle (tilt at most 12 degrees), yaw within +-10 degrees, principal point
    within 2 % of the image centre, k1 in [-0.12, 0.05], small k2 and tangential terms.
    The focal length is 80-97 % of the longest that keeps the area in frame without distortion;
    a draw whose area (projected through the distortion, edges sampled densely) then leaves the
    frame is redrawn.
    """
    w, h = size
    aw, ah = area_mm
    border = _rect_outline(-10.0, -10.0, aw + 10.0, ah + 10.0)
    border3 = np.column_stack([border, np.zeros(len(border))])
    for _ in range(500):
        height = rng.uniform(700.0, 1300.0)
        off = rng.uniform(-0.15, 0.15, 2)
        center = np.array([aw * (0.5 + off[0]), ah * (0.5 + off[1]), -height])
        aim = rng.uniform(-0.05, 0.05, 2)
        target = np.array([aw * (0.5 + aim[0]), ah * (0.5 + aim[1]), 0.0])
        axis = (target - center) / np.linalg.norm(target - center)
        if math.degrees(math.acos(min(1.0, float(axis[2])))) > 12.0:
            continue
        R = _look_at(center, target, math.radians(rng.uniform(-10.0, 10.0)))
        t = -R @ center
        cx = (w - 1) / 2 + rng.uniform(-0.02, 0.02) * w
        cy = (h - 1) / 2 + rng.uniform(-0.02, 0.02) * h
        cam_pts = border3 @ R.T + t
        xn = cam_pts[:, 0] / cam_pts[:, 2]
        yn = cam_pts[:, 1] / cam_pts[:, 2]
        with np.errstate(divide="ignore"):
            fx_lim = np.where(xn > 0, (w - 1 - cx) / xn, np.where(xn < 0, -cx / xn, np.inf))
            fy_lim = np.where(yn > 0, (h - 1 - cy) / yn, np.where(yn < 0, -cy / yn, np.inf))
        f = float(min(fx_lim.min(), fy_lim.min())) * rng.uniform(0.80, 0.97)
        K = np.array([[f, 0.0, cx], [0.0, f, cy], [0.0, 0.0, 1.0]])
        dist = np.array([rng.uniform(-0.12, 0.05), rng.uniform(-0.03, 0.03),
                         rng.uniform(-0.001, 0.001), rng.uniform(-0.001, 0.001), 0.0])
        rvec = np.asarray(cv2.Rodrigues(R)[0], np.float64).reshape(3)
        cam = CameraModel(K, dist, rvec, t.astype(np.float64), (int(w), int(h)))
        px = cam.project(border3)
        if px.min() >= 1.0 and px[:, 0].max() <= w - 2.0 and px[:, 1].max() <= h - 2.0:
            return cam
    raise RuntimeError("random_camera: no camera keeps the play area in frame")  # pragma: no cover
