"""Stage 1: what in the view is not table.

With an empty frame a piece is what differs from it in colour; without one, what stands out
from the local table colour by more than the table's own spread (wood grain, cloth weave). The
local table colour is a median over a window several pieces wide; where the scale is not
known, over what the view's rim shows, less whatever of a piece's size stands far out from the
rim's colour (so pieces laid close together do not become the table, and a mat or board laid
on it stays table). Both work in CIELAB, so a difference in hue counts as much
as one in brightness.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.reading.params import Params


def lab(view: np.ndarray, sigma_px: float) -> np.ndarray:
    """*view* (BGR uint8) blurred by *sigma_px* and in CIELAB (float32: L 0-100, a and b ±127)."""
    image = np.asarray(view, np.float32) * np.float32(1 / 255)
    if sigma_px > 0.3:
        image = np.asarray(cv2.GaussianBlur(image, (0, 0), sigma_px), np.float32)
    return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2Lab), np.float32)


def not_table(view: np.ndarray, valid: np.ndarray, empty: np.ndarray | None, piece_px: float,
              px_per_mm: float | None, params: Params) -> np.ndarray:
    """A 0/1 uint8 mask of what is not table in *view*: *valid* marks the pixels that show the
    frame; *empty* is the view without pieces, or None; *piece_px* the largest piece's size."""
    sigma = params.smooth_mm * (px_per_mm or 1.5)
    seen = lab(view, sigma)
    inside = valid > 0
    if not inside.any():
        return np.zeros(valid.shape, np.uint8)
    # the table's statistics from every 4th pixel each way: plenty, and 16 times quicker
    sample = np.zeros_like(inside)
    sample[::4, ::4] = inside[::4, ::4]
    if empty is not None:
        change = seen - lab(empty, sigma)
        change -= np.median(change[sample], axis=0)  # the light's overall drift since
        distance = np.sqrt((change * change).sum(axis=2))
        typical = float(np.median(distance[sample]))
        spread = 1.4826 * float(np.median(np.abs(distance[sample] - typical)))
        mask = distance > max(params.empty_delta_min, typical + params.empty_sigmas * spread)
    else:
        # without a scale the window is a guess, and pieces laid close may fill it: what stands
        # far out from the rim's colour is then left out of the table's colour
        clear = None if px_per_mm is not None else _unlike_rim(seen, inside, sample, piece_px, params)
        local = _local_table(view, valid, clear, max(3.0, params.background_window * piece_px), sigma)
        offset = seen - local
        table = sample if clear is None or not (sample & ~clear).any() else sample & ~clear
        mad = np.median(np.abs(offset[table]), axis=0)  # the table's own spread
        offset /= np.maximum(1.4826 * mad, params.table_spread_min)
        distance = np.sqrt((offset * offset).sum(axis=2))
        mask = distance > params.table_sigmas
    mask &= inside
    return _clean(mask.astype(np.uint8))


def _unlike_rim(seen: np.ndarray, inside: np.ndarray, sample: np.ndarray, piece_px: float,
                params: Params) -> np.ndarray | None:
    """Where *seen* (CIELAB) is far from the colour of the rim of *inside* (the pixels that show
    the frame), by the rim's robust spread per channel, in parts no longer than a heap of
    pieces *piece_px* large; None when that is most of the view (the rim is not the table)."""
    h, w = inside.shape
    band = max(1, round(params.rim_share * min(h, w)))
    core = cv2.erode(inside.astype(np.uint8), np.ones((2 * band + 1, 2 * band + 1), np.uint8),
                     borderType=cv2.BORDER_CONSTANT, borderValue=0)
    rim = sample & (core == 0)
    if not rim.any():
        return None
    colours = seen[rim]
    centre = np.median(colours, axis=0)
    spread = np.maximum(1.4826 * np.median(np.abs(colours - centre), axis=0), params.table_spread_min)
    offset = (seen - centre) / spread
    far = np.sqrt((offset * offset).sum(axis=2)) > params.rim_sigmas
    far &= inside
    if far.sum() > params.rim_far_max * inside.sum():
        return None
    parts = far.astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(parts, connectivity=8)
    reach = params.heap_extent_max * piece_px * math.sqrt(2.0)
    large = np.hypot(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]) > reach
    large[0] = True  # the background
    return np.asarray(~large[labels])


def _local_table(view: np.ndarray, valid: np.ndarray, pieces: np.ndarray | None, window_px: float,
                 sigma: float) -> np.ndarray:
    """The table's colour round each pixel: a median over *window_px* of the *valid* pixels
    (the frame's) that are not in *pieces*, worked out small."""
    h, w = valid.shape
    factor = min(1.0, 24.0 / window_px)
    small_size = (max(1, round(w * factor)), max(1, round(h * factor)))
    small = cv2.resize(view, small_size, interpolation=cv2.INTER_AREA)
    small_valid = cv2.resize(valid, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_NEAREST)
    if pieces is not None:
        # a small pixel that any piece covers a part of is no table
        covered = cv2.resize(pieces.astype(np.float32), (small.shape[1], small.shape[0]),
                             interpolation=cv2.INTER_AREA)
        small_valid = small_valid * (covered < 0.01)
    if not small_valid.all() and small_valid.any():
        # outside the frame: the nearest frame pixel's colour, so the median sees table only
        small = cv2.inpaint(small, (1 - small_valid).astype(np.uint8), 3, cv2.INPAINT_TELEA)
    k = max(3, int(window_px * factor) | 1)
    k = min(k, (min(small.shape[:2]) - 1) | 1 if min(small.shape[:2]) > 2 else 1)
    median = cv2.medianBlur(small, k) if k >= 3 else small
    return lab(cv2.resize(median, (w, h), interpolation=cv2.INTER_LINEAR), 0.0)


def _clean(mask: np.ndarray) -> np.ndarray:
    """*mask* without specks, with small gaps closed and holes filled."""
    kernel = np.ones((3, 3), np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 1, thickness=cv2.FILLED)
    return filled


def blank(mask: np.ndarray, quads_px: list[np.ndarray], grow: float, margin_px: float) -> None:
    """Clear each quad in *mask* (view px), grown by the share *grow* of its size round its
    centre, and then by *margin_px*."""
    for quad in quads_px:
        centre = quad.mean(axis=0)
        reach = float(np.linalg.norm(quad - centre, axis=1).mean())
        factor = 1.0 + grow + margin_px / max(reach, 1e-6)
        cv2.fillConvexPoly(mask, np.round(centre + (quad - centre) * factor).astype(np.int32), 0)
