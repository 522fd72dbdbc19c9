"""The canvas a scene is composed on: supersampled, undistorted, float32 BGR.

Each flat layer is warped into it exactly by its plane's homography; the finished canvas is
bent through the lens distortion *at the supersampled resolution* (a remap through the
inverse distortion map) and only then box-filtered down to the sensor's pixels with
``INTER_AREA``, so each sensor pixel averages the light on its own square of the distorted image.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence

import cv2
import numpy as np
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from tests.support.synth.camera import CameraModel
from tests.support.synth.raster import _apply_h, _edge_band, _fill, _paint, _translate

SUPERSAMPLE = 2
"""Canvas pixels per sensor pixel along each axis."""
_MAP_STEP = 16  # distortion map: exact on a grid this coarse (canvas px), bilinear in between
_PREFILTER = 0.6  # Gaussian sigma (canvas px) a texture is band-limited with before it is warped


_MAPS: OrderedDict[bytes, tuple[np.ndarray, np.ndarray, int, int, int, int]] = OrderedDict()


def _distortion_map(camera: CameraModel, ss: int = SUPERSAMPLE,
                    ) -> tuple[np.ndarray, np.ndarray, int, int, int, int]:
    """Where each supersampled *distorted* pixel looks in the supersampled *undistorted* canvas.

    Returns ``(map_x, map_y, x0, y0, canvas_w, canvas_h)``: float32 maps (ss*h, ss*w) into a
    canvas whose pixel (0, 0) is the undistorted supersampled position (x0, y0), big enough
    for every sample. Supersampled coordinates: ``u_ss = ss * u + (ss - 1) / 2``. Exact
    (``cv2.undistortPoints`` iterated to 1e-12) on a grid every 16 canvas px and bilinear in
    between (off by under 0.002 sensor px): the full grid through ``undistortPoints`` would
    cost half a second per camera. Cached per camera (a scene's camera is new each time).
    """
    key = b"".join(np.asarray(a, np.float64).tobytes() for a in (camera.K, camera.dist)) + \
        np.array([*camera.size, ss], np.int64).tobytes()
    hit = _MAPS.get(key)
    if hit is not None:
        _MAPS.move_to_end(key)
        return hit
    w, h = camera.size
    W, Hh = w * ss, h * ss
    g = _MAP_STEP
    nx, ny = int(math.ceil(W / g)) + 4, int(math.ceil(Hh / g)) + 4
    xs = (np.arange(nx) - 2) * g + (g - 1) / 2
    ys = (np.arange(ny) - 2) * g + (g - 1) / 2
    gx, gy = np.meshgrid(xs, ys)
    pts = np.column_stack([gx.ravel(), gy.ravel()])
    pts = (pts - (ss - 1) / 2) / ss
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 1e-12)
    und = np.asarray(cv2.undistortPoints(pts.reshape(-1, 1, 2), camera.K, camera.dist, P=camera.K,
                                         criteria=crit), np.float64).reshape(-1, 2)
    und = und * ss + (ss - 1) / 2

    def upsample(coarse: np.ndarray) -> np.ndarray:
        # bilinear, which is exact for the map's linear part (cv2's bicubic is not)
        full = np.asarray(cv2.resize(coarse.reshape(ny, nx).astype(np.float32), (nx * g, ny * g),
                                     interpolation=cv2.INTER_LINEAR))
        return full[2 * g:2 * g + Hh, 2 * g:2 * g + W]

    mx, my = upsample(und[:, 0]), upsample(und[:, 1])
    x0 = int(math.floor(float(mx.min()))) - 2
    y0 = int(math.floor(float(my.min()))) - 2
    cw = int(math.ceil(float(mx.max()))) - x0 + 3
    ch = int(math.ceil(float(my.max()))) - y0 + 3
    out = (np.ascontiguousarray(mx - x0), np.ascontiguousarray(my - y0), x0, y0, cw, ch)
    _MAPS[key] = out
    while len(_MAPS) > 2:  # a 1080p pair of maps is 66 MB
        _MAPS.popitem(last=False)
    return out


def _min_scale(H: np.ndarray, w: int, h: int) -> float:
    """The least stretch (output px per input px, any direction) of homography *H* over a w x h image."""
    pts = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1], [(w - 1) / 2, (h - 1) / 2]], np.float64)
    base = _apply_h(H, pts)
    jx = _apply_h(H, pts + [1.0, 0.0]) - base
    jy = _apply_h(H, pts + [0.0, 1.0]) - base
    least = min(float(np.linalg.svd(np.column_stack([jx[i], jy[i]]), compute_uv=False)[-1])
                for i in range(len(pts)))
    return max(least, 1e-6)


class _Canvas:
    """A supersampled undistorted float32 BGR canvas, composited layer by layer, then distorted."""

    def __init__(self, camera: CameraModel, ss: int = SUPERSAMPLE) -> None:
        self.camera = camera
        self.ss = ss
        self.map_x, self.map_y, x0, y0, cw, ch = _distortion_map(camera, ss)
        self.image = np.zeros((ch, cw, 3), np.float32)
        # undistorted sensor pixel u -> canvas pixel
        half = (ss - 1) / 2
        self.from_pixels = np.array([[ss, 0.0, half - x0], [0.0, ss, half - y0], [0.0, 0.0, 1.0]])

    def plane(self, height_mm: float) -> np.ndarray:
        """3x3 map from table (x, y) mm at *height_mm* to canvas pixels."""
        return np.asarray(self.from_pixels @ self.camera.homography(height_mm), np.float64)

    def px_per_mm(self, points_mm: np.ndarray, height_mm: float = 0.0) -> float:
        """The finest canvas sampling (px per mm) over table points (N, 2) at *height_mm*."""
        H = self.plane(height_mm)
        p = np.asarray(points_mm, np.float64).reshape(-1, 2)
        best = 0.0
        for dx, dy in ((1.0, 0.0), (0.0, 1.0)):
            q = _apply_h(H, p + [dx, dy]) - _apply_h(H, p)
            best = max(best, float(np.linalg.norm(q, axis=1).max()))
        return best

    def fill(self, bgr: np.ndarray) -> None:
        """Cover the whole canvas with *bgr* (a colour (3,) or an image resized to the canvas)."""
        if bgr.ndim == 1:
            self.image[:] = bgr.astype(np.float32)
        else:
            ch, cw = self.image.shape[:2]
            cv2.resize(bgr.astype(np.float32), (cw, ch), dst=self.image, interpolation=cv2.INTER_LINEAR)

    def layer(self, texture: np.ndarray, tex_to_table: np.ndarray, height_mm: float) -> None:
        """Composite a texture lying flat at *height_mm*; *tex_to_table* maps its pixel-centre
        coordinates to table mm (3x3).

        A BGR uint8 texture is opaque up to its outer edge, which is drawn exact-edged; a
        BGRA float32 texture holds premultiplied colour and alpha, both 0..255. The texture is
        Gaussian-filtered (sigma 0.6 canvas px where the canvas samples it most coarsely, at
        least 0.6 texture px) before the bilinear warp, so its edges land where they should.
        """
        H = self.plane(height_mm) @ tex_to_table
        th, tw = texture.shape[:2]
        corners = np.array([[-0.5, -0.5], [tw - 0.5, -0.5], [tw - 0.5, th - 0.5], [-0.5, th - 0.5]])
        pc = _apply_h(H, corners)
        ch, cw = self.image.shape[:2]
        c0, r0 = max(0, int(math.floor(pc[:, 0].min())) - 1), max(0, int(math.floor(pc[:, 1].min())) - 1)
        c1, r1 = min(cw, int(math.ceil(pc[:, 0].max())) + 2), min(ch, int(math.ceil(pc[:, 1].max())) + 2)
        if c1 <= c0 or r1 <= r0:
            return
        Hroi = _translate(-c0, -r0) @ H
        roi = self.image[r0:r1, c0:c1]
        # band-limit the texture first: a sharp edge sampled bilinearly more coarsely than its
        # own pixels would come out jagged (by up to half a canvas pixel)
        sigma = _PREFILTER * max(1.0, 1.0 / _min_scale(H, tw, th))
        texture = np.asarray(cv2.GaussianBlur(texture, (0, 0), sigma, borderType=cv2.BORDER_REPLICATE))
        if texture.shape[2] == 3:
            warped = np.asarray(cv2.warpPerspective(texture, Hroi, (c1 - c0, r1 - r0), flags=cv2.INTER_LINEAR,
                                                    borderMode=cv2.BORDER_REPLICATE))
            quad = Polygon(pc - [c0, r0])
            idx, cov = _edge_band(quad, (r1 - r0, c1 - c0))
            rows, cols = np.divmod(idx, c1 - c0)
            under = roi[rows, cols]  # a copy, taken before the centres inside are covered
            inside = np.zeros((r1 - r0, c1 - c0), np.uint8)
            _fill(inside, quad, 1)
            np.copyto(roi, warped, where=inside[..., None] > 0, casting="unsafe")
            roi[rows, cols] = warped[rows, cols] * cov[:, None] + under * (1.0 - cov[:, None])
            return
        warped = np.asarray(cv2.warpPerspective(texture, Hroi, (c1 - c0, r1 - r0), flags=cv2.INTER_LINEAR,
                                                borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0)),
                            np.float32)
        alpha = warped[..., 3:4] * np.float32(1.0 / 255.0)
        roi *= 1.0 - alpha
        roi += warped[..., :3]

    def paint(self, geom_px: BaseGeometry, colour: Sequence[float], alpha: float = 1.0) -> None:
        """Paint a region given in canvas pixel coordinates, exact-edged."""
        _paint(self.image, geom_px, colour, alpha)

    def finish(self) -> np.ndarray:
        """The sensor image, float32 (h, w, 3) 0..255: distorted at the supersampled size, then
        area-averaged down to the sensor's pixels."""
        distorted = cv2.remap(self.image, self.map_x, self.map_y, cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
        return np.asarray(cv2.resize(distorted, self.camera.size, interpolation=cv2.INTER_AREA), np.float32)


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cells: float,
                  amplitude: float) -> np.ndarray:
    """Smooth random field (h, w) float32 around 0 with features about *cells* px across, +-amplitude."""
    h, w = shape
    gh, gw = max(2, int(h / cells) + 2), max(2, int(w / cells) + 2)
    coarse = rng.uniform(-amplitude, amplitude, (gh, gw)).astype(np.float32)
    return np.asarray(cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC), np.float32)
