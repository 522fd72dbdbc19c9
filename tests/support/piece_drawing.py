"""Drawing in mm, for the synthetic pieces and distractors of :mod:`tests.support.synth_pieces`.

Art is drawn on a canvas at :data:`DRAW_PX_PER_MM` (antialiased, coordinates in mm), then
:func:`finish` area-averages it with its outline's mask down to :data:`TEXTURE_PX_PER_MM`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

TEXTURE_PX_PER_MM = 4.0
"""The table texture's (and each face's art's) resolution: the library's own scale."""
DRAW_PX_PER_MM = 8.0
"""Art is drawn at this resolution, then area-averaged down to :data:`TEXTURE_PX_PER_MM`."""

Bgr = tuple[float, float, float]
"""A colour: blue, green, red, 0-255."""


def jitter(rng: np.random.Generator, bgr: Bgr, amount: float = 12.0) -> Bgr:
    """*bgr* with each channel moved at random by up to *amount*."""
    j = rng.uniform(-amount, amount, 3)
    return (float(np.clip(bgr[0] + j[0], 0, 255)), float(np.clip(bgr[1] + j[1], 0, 255)),
            float(np.clip(bgr[2] + j[2], 0, 255)))


def shade(bgr: Bgr, f: float) -> Bgr:
    """*bgr* times *f*, saturated at 255."""
    return (min(255.0, bgr[0] * f), min(255.0, bgr[1] * f), min(255.0, bgr[2] * f))


def px(v: float) -> int:
    """mm on the drawing canvas -> its pixels."""
    return int(round(v * DRAW_PX_PER_MM))


def pt(x: float, y: float) -> tuple[int, int]:
    """A point in mm on the drawing canvas -> its pixel."""
    return px(x), px(y)


def put_text(img: np.ndarray, text: str, centre_mm: tuple[float, float], height_mm: float, colour: Bgr,
             weight_mm: float, font: int = cv2.FONT_HERSHEY_DUPLEX) -> None:
    """*text* centred at *centre_mm*, its capitals *height_mm* tall."""
    thick = max(1, px(weight_mm))
    (w, h), _ = cv2.getTextSize(text, font, 1.0, thick)
    scale = px(height_mm) / max(1, h)
    (w, h), _ = cv2.getTextSize(text, font, scale, thick)
    org = (px(centre_mm[0]) - w // 2, px(centre_mm[1]) + h // 2)
    cv2.putText(img, text, org, font, scale, colour, thick, cv2.LINE_AA)


def poly(img: np.ndarray, pts_mm: Sequence[tuple[float, float]] | np.ndarray, colour: Bgr,
         thickness_mm: float | None = None, closed: bool = True) -> None:
    """A filled polygon (or, with *thickness_mm*, its outline) given in mm."""
    pts = np.round(np.asarray(pts_mm, np.float64) * DRAW_PX_PER_MM * 16).astype(np.int32).reshape(-1, 1, 2)
    if thickness_mm is None:
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA, shift=4)
    else:
        cv2.polylines(img, [pts], closed, colour, max(1, px(thickness_mm)), cv2.LINE_AA, shift=4)


def circle(img: np.ndarray, c_mm: tuple[float, float], r_mm: float, colour: Bgr,
           thickness_mm: float | None = None) -> None:
    """A filled disc (or, with *thickness_mm*, a ring) given in mm."""
    t = -1 if thickness_mm is None else max(1, px(thickness_mm))
    cv2.circle(img, (int(round(c_mm[0] * DRAW_PX_PER_MM * 16)), int(round(c_mm[1] * DRAW_PX_PER_MM * 16))),
               int(round(r_mm * DRAW_PX_PER_MM * 16)), colour, t, cv2.LINE_AA, shift=4)


def star(c: tuple[float, float], r_out: float, r_in: float, points: int, turn: float = -math.pi / 2,
         ) -> list[tuple[float, float]]:
    """The corners of a star of *points* points about *c*, the first at angle *turn*."""
    return [(c[0] + (r_out if i % 2 == 0 else r_in) * math.cos(turn + i * math.pi / points),
             c[1] + (r_out if i % 2 == 0 else r_in) * math.sin(turn + i * math.pi / points))
            for i in range(2 * points)]


def rounded_mask(w_mm: float, h_mm: float, r_mm: float) -> np.ndarray:
    """A rounded rectangle's coverage (float32, 0-1) on the drawing canvas."""
    w, h, r = px(w_mm), px(h_mm), px(r_mm)
    m = np.zeros((h, w), np.uint8)
    if r <= 0:
        m[:] = 255
    else:
        cv2.rectangle(m, (r, 0), (w - 1 - r, h - 1), 255, -1)
        cv2.rectangle(m, (0, r), (w - 1, h - 1 - r), 255, -1)
        for cx, cy in ((r, r), (w - 1 - r, r), (w - 1 - r, h - 1 - r), (r, h - 1 - r)):
            cv2.circle(m, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return m.astype(np.float32) / 255.0


def disc_mask(d_mm: float) -> np.ndarray:
    """A disc's coverage (float32, 0-1) on the drawing canvas."""
    s = px(d_mm)
    yy, xx = np.mgrid[0:s, 0:s].astype(np.float32)
    r = np.hypot(xx - (s - 1) / 2, yy - (s - 1) / 2)
    return np.asarray(np.clip(s / 2 - r + 0.5, 0.0, 1.0), np.float32)


def finish(canvas: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drawing canvas -> the face at :data:`TEXTURE_PX_PER_MM` (outside the outline black) and
    its mask at that size."""
    f = TEXTURE_PX_PER_MM / DRAW_PX_PER_MM
    h, w = canvas.shape[:2]
    size = (max(1, round(w * f)), max(1, round(h * f)))
    img = canvas.astype(np.float32) * mask[..., None]
    small = np.asarray(cv2.resize(img, size, interpolation=cv2.INTER_AREA), np.float32)
    small_mask = np.asarray(cv2.resize(mask, size, interpolation=cv2.INTER_AREA), np.float32)
    # un-premultiply along the edge, so the face's own colour reaches its outline
    face = small / np.maximum(small_mask, 1e-3)[..., None]
    face = np.where(small_mask[..., None] > 1e-3, face, 0.0)
    return np.asarray(np.clip(np.round(face), 0, 255), np.uint8), np.clip(small_mask, 0.0, 1.0)
