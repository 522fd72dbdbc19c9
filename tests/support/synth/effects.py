"""What the camera and the room do to a picture: lighting gradient, vignette, colour cast, blur,
sensor noise and JPEG.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

_NORMAL_TABLE: list[np.ndarray] = []


def _gaussian_noise(rng: np.random.Generator, shape: tuple[int, ...], sigma: float) -> np.ndarray:
    """Gaussian noise (float32) of standard deviation *sigma*: 16 random bits per sample looked up
    in the normal distribution's quantiles (twice as fast as ``standard_normal``; tails cut at 4.3 sigma)."""
    if not _NORMAL_TABLE:
        from statistics import NormalDist
        inv = NormalDist().inv_cdf
        _NORMAL_TABLE.append(np.array([inv((i + 0.5) / 65536) for i in range(65536)], np.float32))
    table = _NORMAL_TABLE[0] * np.float32(sigma)
    return np.asarray(table[rng.integers(0, 65536, shape, dtype=np.uint16)], np.float32)


@dataclass(frozen=True)
class Effects:
    """What the camera and room do to the picture, applied to the sensor image in this order.

    ``gain_from``/``gain_to``: a multiplicative lighting gradient across the image along the
    direction ``gain_angle_rad`` (0 = left to right); ``vignette``: how much the corners darken
    (0 = none); ``colour_bgr``: white-balance gains per channel; ``blur_sigma``: Gaussian blur,
    pixels (0 = none); ``noise_sigma``: Gaussian sensor noise, in 0..255 units;
    ``jpeg_quality``: JPEG re-encoding quality, None = none.
    """

    gain_from: float = 1.0
    gain_to: float = 1.0
    gain_angle_rad: float = 0.0
    vignette: float = 0.0
    colour_bgr: tuple[float, float, float] = (1.0, 1.0, 1.0)
    blur_sigma: float = 0.0
    noise_sigma: float = 0.0
    jpeg_quality: int | None = None

    @classmethod
    def none(cls) -> Effects:
        """No effect at all: the image is only rounded to uint8."""
        return cls()

    @classmethod
    def random(cls, rng: np.random.Generator) -> Effects:
        """A typical room and webcam: gains 0.7-1.2 across, vignette half the time (up to 35 %),
        a mild colour cast, blur 0-1 px, noise 1-6 (of 255), JPEG quality 70-95."""
        return cls(
            gain_from=float(rng.uniform(0.7, 1.2)),
            gain_to=float(rng.uniform(0.7, 1.2)),
            gain_angle_rad=float(rng.uniform(0, 2 * math.pi)),
            vignette=float(rng.uniform(0.05, 0.35)) if rng.random() < 0.5 else 0.0,
            colour_bgr=(float(rng.uniform(0.92, 1.08)), 1.0, float(rng.uniform(0.92, 1.08))),
            blur_sigma=float(rng.uniform(0.0, 1.0)),
            noise_sigma=float(rng.uniform(1.0, 6.0)),
            jpeg_quality=int(rng.integers(70, 96)),
        )

    def apply(self, image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The effects on a float (h, w, 3) 0..255 image; returns BGR uint8."""
        img = np.array(image, np.float32)  # a copy: scaled in place below
        h, w = img.shape[:2]
        gains = np.asarray(self.colour_bgr, np.float32)
        if self.gain_from != 1.0 or self.gain_to != 1.0 or self.vignette > 0.0:
            # the field is smooth: worked out on a coarse grid, then interpolated
            gh, gw = max(2, h // 8), max(2, w // 8)
            yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
            xn = (xx * 8 + 3.5) / max(1, w - 1) - 0.5
            yn = (yy * 8 + 3.5) / max(1, h - 1) - 0.5
            c, s = math.cos(self.gain_angle_rad), math.sin(self.gain_angle_rad)
            along = (xn * c + yn * s) / (0.5 * (abs(c) + abs(s))) * 0.5 + 0.5  # 0..1 corner to corner
            field = self.gain_from + (self.gain_to - self.gain_from) * along
            if self.vignette > 0.0:
                r2 = (xn * xn + yn * yn) / 0.5
                field = field * (1.0 - self.vignette * r2 * r2)
            full = np.asarray(cv2.resize(field.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR))
            img *= full[..., None] * gains
        elif not np.all(gains == 1.0):
            img *= gains
        if self.blur_sigma > 0.05:
            img = np.asarray(cv2.GaussianBlur(img, (0, 0), self.blur_sigma), np.float32)
        if self.noise_sigma > 0.0:
            img += _gaussian_noise(rng, img.shape, self.noise_sigma)
        out = np.asarray(cv2.convertScaleAbs(np.maximum(img, 0.0)), np.uint8)  # rounds and saturates
        if self.jpeg_quality is not None:
            ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(self.jpeg_quality)])
            if ok:
                out = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
        return out
