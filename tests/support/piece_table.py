"""The table under the synthetic pieces of :mod:`tests.support.synth_pieces`: the part of it a
camera sees, its cloth (plain felt, gingham, polka dots or wood), the top-down texture being
composed (:class:`TableTexture`), the layout's table markers on white stickers, and the art of
the distractors that are no piece (a pen, a coffee cup's ring, a blob of modelling clay).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import cv2
import numpy as np
from shapely.geometry import Polygon

from tests.support.piece_drawing import (
    DRAW_PX_PER_MM,
    TEXTURE_PX_PER_MM,
    Bgr,
    finish,
    jitter,
    px,
    rounded_mask,
    shade,
)
from tests.support.synth import CameraModel
from vision.layout import Layout

QUIET_CELLS = (1.0, 1.4)
"""A table marker's white sticker reaches this many marker cells beyond its black border."""


def view_bounds(camera: CameraModel, area: tuple[float, float]) -> tuple[float, float, float, float]:
    """The table rectangle (mm) the camera sees, a little grown, whole mm."""
    w, h = camera.size
    t = np.linspace(0.0, 1.0, 33)
    border = np.vstack([np.column_stack([t * (w - 1), np.zeros_like(t)]),
                        np.column_stack([t * (w - 1), np.full_like(t, h - 1)]),
                        np.column_stack([np.zeros_like(t), t * (h - 1)]),
                        np.column_stack([np.full_like(t, w - 1), t * (h - 1)])])
    und = cv2.undistortPoints(border.reshape(-1, 1, 2), camera.K, camera.dist, P=camera.K)
    to_table = np.linalg.inv(camera.homography(0.0))
    mm = np.asarray(cv2.perspectiveTransform(np.asarray(und, np.float64), to_table), np.float64)
    mm = mm.reshape(-1, 2)
    x0, y0 = mm.min(axis=0) - 30.0
    x1, y1 = mm.max(axis=0) + 30.0
    # never less than the area, never absurdly more (a view that grazes the horizon)
    aw, ah = area
    x0, y0 = max(-aw, min(x0, -20.0)), max(-ah, min(y0, -20.0))
    x1, y1 = min(2 * aw, max(x1, aw + 20.0)), min(2 * ah, max(y1, ah + 20.0))
    return math.floor(x0), math.floor(y0), math.ceil(x1), math.ceil(y1)


_CLOTHS: tuple[tuple[str, Bgr], ...] = (
    ("green felt", (45, 95, 40)), ("navy felt", (85, 45, 30)), ("burgundy felt", (45, 35, 110)),
    ("charcoal felt", (58, 58, 60)), ("linen", (175, 195, 205)), ("teal felt", (95, 100, 35)))


def random_cloth(rng: np.random.Generator, shape: tuple[int, int]) -> tuple[str, np.ndarray]:
    """A cloth texture (float32 BGR, *shape* at :data:`TEXTURE_PX_PER_MM`) and its name."""
    name, base = _CLOTHS[int(rng.integers(len(_CLOTHS)))]
    colour = np.asarray(jitter(rng, base, 10), np.float32)
    h, w = shape
    lo = (max(2, h // 2), max(2, w // 2))  # patterns are worked out at 2 px/mm
    ppm = TEXTURE_PX_PER_MM / 2
    yy = (np.arange(lo[0], dtype=np.float32) / np.float32(ppm))[:, None]
    xx = (np.arange(lo[1], dtype=np.float32) / np.float32(ppm))[None, :]
    style = ["plain", "gingham", "dots", "wood"][int(rng.choice(4, p=[0.4, 0.2, 0.2, 0.2]))]
    gain = 1.0 + _smooth(rng, lo, 60.0 * ppm, 0.06)
    if style == "gingham":
        period = float(rng.uniform(16, 36))
        a, b = float(rng.uniform(0.1, 0.22)), float(rng.uniform(0.1, 0.22))
        band_x = ((xx % period) < period / 2).astype(np.float32)
        band_y = ((yy % period) < period / 2).astype(np.float32)
        gain *= (1 - a * band_x) * (1 - b * band_y)
    elif style == "dots":
        period = float(rng.uniform(14, 26))
        r = float(rng.uniform(1.5, 3.0))
        dx, dy = (xx % period) - period / 2, (yy % period) - period / 2
        dot = np.clip(r - np.sqrt(dx * dx + dy * dy), 0, 1)
        gain *= 1 + float(rng.choice([-1, 1])) * float(rng.uniform(0.15, 0.3)) * dot
    elif style == "wood":
        name = "wood"
        colour = np.asarray(jitter(rng, (55, 105, 155), 15), np.float32)
        period = float(rng.uniform(6, 14))
        warp = _smooth(rng, lo, 40.0 * ppm, 12.0)
        gain *= 1 + 0.1 * np.sin(2 * np.pi * (yy + warp) / period) + _smooth(rng, lo, 4.0 * ppm, 0.03)
    field_ = np.asarray(gain, np.float32)[..., None] * colour
    big = np.asarray(cv2.resize(field_, (w, h), interpolation=cv2.INTER_LINEAR), np.float32)
    label = name if style in ("plain", "wood") else f"{name}, {style}"
    return label, big


def _smooth(rng: np.random.Generator, shape: tuple[int, int], cells: float, amplitude: float) -> np.ndarray:
    """A smooth random field (float32) with features about *cells* px across, +-amplitude."""
    h, w = shape
    gh, gw = max(2, int(h / cells) + 2), max(2, int(w / cells) + 2)
    coarse = rng.uniform(-amplitude, amplitude, (gh, gw)).astype(np.float32)
    return np.asarray(cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC), np.float32)


def to_uint8(image: np.ndarray) -> np.ndarray:
    """A float image (0..255, never negative) rounded and saturated to uint8."""
    return np.asarray(cv2.convertScaleAbs(image), np.uint8)


class TableTexture:
    """The top-down texture being composed (BGR uint8) and its origin, in mm."""

    def __init__(self, origin_mm: tuple[float, float], image: np.ndarray) -> None:
        self.origin = origin_mm
        self.image = image

    def to_px(self, x_mm: float, y_mm: float) -> tuple[float, float]:
        """Table mm -> texture pixel-centre coordinates."""
        return ((x_mm - self.origin[0]) * TEXTURE_PX_PER_MM - 0.5,
                (y_mm - self.origin[1]) * TEXTURE_PX_PER_MM - 0.5)

    def paste(self, colour: np.ndarray, alpha: np.ndarray, center_mm: tuple[float, float],
              angle_deg: float) -> None:
        """Lay *colour* (h, w, 3; BGR, not premultiplied) with coverage *alpha* (h, w, 0-1), both
        at :data:`TEXTURE_PX_PER_MM`, centred at *center_mm*, turned *angle_deg* clockwise."""
        h, w = alpha.shape
        t = math.radians(angle_deg)
        rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
        c_tex = np.array(self.to_px(*center_mm))
        shift = c_tex - rot @ np.array([(w - 1) / 2, (h - 1) / 2])
        corners = np.array([[-1, -1], [w, -1], [w, h], [-1, h]], np.float64) @ rot.T + shift
        th, tw = self.image.shape[:2]
        x0, y0 = max(0, int(math.floor(corners[:, 0].min()))), max(0, int(math.floor(corners[:, 1].min())))
        x1 = min(tw, int(math.ceil(corners[:, 0].max())) + 1)
        y1 = min(th, int(math.ceil(corners[:, 1].max())) + 1)
        if x1 <= x0 or y1 <= y0:
            return
        m = np.column_stack([rot, shift - [x0, y0]])
        size = (x1 - x0, y1 - y0)
        pre = np.asarray(colour, np.float32) * alpha[..., None]
        wc = np.asarray(cv2.warpAffine(pre, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                       borderValue=(0, 0, 0)), np.float32)
        wa = np.asarray(cv2.warpAffine(np.asarray(alpha, np.float32), m, size, flags=cv2.INTER_LINEAR,
                                       borderMode=cv2.BORDER_CONSTANT, borderValue=0), np.float32)
        roi = self.image[y0:y1, x0:x1].astype(np.float32)
        roi *= 1.0 - wa[..., None]
        roi += wc
        self.image[y0:y1, x0:x1] = to_uint8(roi)


def draw_markers(table: TableTexture, layout: Layout, rng: np.random.Generator) -> list[Polygon]:
    """Each table marker on its white sticker; returns the stickers (mm)."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, layout.dictionary))
    stickers = []
    for m in layout.table_markers:
        cells = int(d.markerSize) + 2
        bits = np.asarray(cv2.aruco.generateImageMarker(d, m.id, cells), np.float32)
        c = np.asarray(m.corners_mm, np.float64)
        side = float(np.linalg.norm(c[1] - c[0]))
        quiet = float(rng.uniform(*QUIET_CELLS)) * side / cells
        # drawn exactly: 24 sub-pixels a cell, area-averaged to the texture's pixels
        fine = cv2.resize(bits, (cells * 24, cells * 24), interpolation=cv2.INTER_NEAREST)
        side_px = side * TEXTURE_PX_PER_MM
        pad = int(math.ceil(quiet * TEXTURE_PX_PER_MM))
        n = int(round(side_px)) + 2 * pad
        img = np.full((n, n), 255.0, np.float32)
        img[pad:pad + int(round(side_px)), pad:pad + int(round(side_px))] = np.asarray(
            cv2.resize(fine, (int(round(side_px)), int(round(side_px))), interpolation=cv2.INTER_AREA),
            np.float32)
        centre = c.mean(axis=0)
        angle = math.degrees(math.atan2(c[1][1] - c[0][1], c[1][0] - c[0][0]))
        sticker_side = (int(round(side_px)) + 2 * pad) / TEXTURE_PX_PER_MM
        table.paste(np.repeat(img[..., None], 3, axis=2) * np.float32(0.97), np.ones((n, n), np.float32),
                    (float(centre[0]), float(centre[1])), angle)
        u = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]) * sticker_side
        t = math.radians(angle)
        rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
        stickers.append(Polygon(u @ rot.T + centre))
    return stickers


# distractors --------------------------------------------------------------------------------------


def _pen(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    length, width = float(rng.uniform(125, 150)), float(rng.uniform(8.5, 11))
    body = jitter(rng, [(150, 60, 20), (35, 35, 35), (40, 40, 180), (60, 140, 40)][int(rng.integers(4))], 10)
    w, h = px(length), px(width)
    img = np.zeros((h, w, 3), np.uint8)
    img[:] = body
    cap = px(length * 0.28)
    img[:, :cap] = shade(body, 0.7)
    cv2.rectangle(img, (px(4), 0), (cap - px(4), px(1.6)), (200, 200, 205), -1)  # the clip
    img[h // 2 - px(1.2):h // 2 - px(0.4), cap:] = shade(body, 1.5)  # a highlight
    mask = rounded_mask(length, width, width / 2 - 0.3)
    tip = np.zeros((h, w), np.uint8)  # the writing end: a grey cone
    cone = np.array([[w - px(14), 0], [w - 1, h // 2], [w - px(14), h - 1]], np.int32)
    cv2.fillConvexPoly(tip, cone, 255, cv2.LINE_AA)
    img[:, w - px(14):] = (175, 175, 180)
    mask[:, w - px(16):] = 0.0
    mask[:, w - px(16):w - px(14)] = 1.0
    mask = np.maximum(mask, tip.astype(np.float32) / 255.0)
    return finish(img, mask)


def _cup_ring(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    d, width = float(rng.uniform(72, 90)), float(rng.uniform(2.5, 5.0))
    s = px(d) + 2
    yy, xx = np.mgrid[0:s, 0:s].astype(np.float32)
    r = np.hypot(xx - (s - 1) / 2, yy - (s - 1) / 2) / DRAW_PX_PER_MM
    ang = np.arctan2(yy - (s - 1) / 2, xx - (s - 1) / 2)
    inner = d / 2 - width
    across = np.clip((r - inner) / width, 0, 1)
    band = np.clip(d / 2 - r + 0.5 / DRAW_PX_PER_MM, 0, 1) * np.clip((r - inner) * DRAW_PX_PER_MM, 0, 1)
    strength = 0.35 + 0.65 * across**2  # the coffee dries to the ring's outer edge
    k = rng.uniform(0, 2 * math.pi, 3)
    waves = 0.35 * np.sin(ang + k[0]) + 0.25 * np.sin(2 * ang + k[1]) + 0.15 * np.sin(3 * ang + k[2])
    along = np.clip(0.55 + waves, 0.05, 1.0)
    alpha = (band * strength * along * float(rng.uniform(0.45, 0.8))).astype(np.float32)
    img = np.zeros((s, s, 3), np.uint8)
    img[:] = jitter(rng, (25, 55, 95), 8)
    return finish(img, alpha)


def _blob(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    size = float(rng.uniform(22, 55))
    s = px(size * 1.5)
    a = np.linspace(0, 2 * math.pi, 180, endpoint=False)
    r = np.ones_like(a)
    for k in range(2, 6):
        r += rng.uniform(0, 0.12) * np.sin(k * a + rng.uniform(0, 2 * math.pi))
    r *= size / 2
    c = size * 0.75
    pts = np.column_stack([c + r * np.cos(a), c + r * np.sin(a)])
    mask8 = np.zeros((s, s), np.uint8)
    cv2.fillPoly(mask8, [np.round(pts * DRAW_PX_PER_MM * 16).astype(np.int32).reshape(-1, 1, 2)], 255,
                 cv2.LINE_AA, shift=4)
    colour = jitter(rng, [(200, 60, 230), (40, 200, 240), (220, 170, 40), (60, 60, 220), (90, 210, 90)]
                    [int(rng.integers(5))], 15)
    img = np.zeros((s, s, 3), np.float32)
    img[:] = colour
    # modelling clay: lit from one side
    yy, xx = np.mgrid[0:s, 0:s].astype(np.float32)
    light = 1.0 + 0.15 * ((xx - yy) / s)
    img *= light[..., None]
    return finish(np.asarray(np.clip(img, 0, 255), np.uint8), mask8.astype(np.float32) / 255.0)


DISTRACTOR_ART: dict[str, Callable[[np.random.Generator], tuple[np.ndarray, np.ndarray]]] = {
    "pen": _pen, "cup-ring": _cup_ring, "blob": _blob}
"""Per distractor kind: its drawing from a random stream, as the colour (BGR uint8, at
:data:`TEXTURE_PX_PER_MM`) and its coverage (float32, 0-1)."""


def footprint(alpha: np.ndarray, center: tuple[float, float], angle_deg: float, disc: bool) -> np.ndarray:
    """The outline (mm, table) of an object whose coverage *alpha* is laid as
    :meth:`TableTexture.paste` lays it."""
    h, w = alpha.shape
    if disc:
        a = np.linspace(0, 2 * math.pi, 72, endpoint=False)
        local = np.column_stack([np.cos(a), np.sin(a)]) * (w / 2 / TEXTURE_PX_PER_MM)
    else:
        ys, xs = np.nonzero(alpha > 0.5)
        pts = np.column_stack([xs - (w - 1) / 2, ys - (h - 1) / 2]).astype(np.float32)
        hull = cv2.convexHull(pts).reshape(-1, 2) if len(pts) >= 3 else np.zeros((0, 2), np.float32)
        local = np.asarray(hull, np.float64) / TEXTURE_PX_PER_MM
    t = math.radians(angle_deg)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    return np.asarray(local @ rot.T + np.asarray(center), np.float64)
