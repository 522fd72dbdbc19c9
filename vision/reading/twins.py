"""Two faces that look alike: where they differ, and which of them the piece is more like there.

Where a piece's best face and the runner-up differ (in colour, in hue alone, or only faintly,
as thin lines do), the lead is how much better the best matches the piece on that part alone:
first on the print's pattern there, and where the pattern says little either way, on the part's
level against what lies round it (a fill that one face has and the other lacks).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.reading.faces import KindRefs, Reference, summed
from vision.reading.params import Params


def lead_on(apart: np.ndarray, seen: np.ndarray, window: np.ndarray, a: np.ndarray, b: np.ndarray,
            kind_refs: KindRefs, params: Params) -> tuple[float, float] | None:
    """How much better *a* matches *window* than *b* does where *apart* (how they differ) is
    large, in colour and in hue alone; None where that part is small. First on the print's
    pattern there (each of the three less its mean over the part); where that says little either
    way (by less than :attr:`Params.margin_min`), on the part's level against what of *seen*
    lies round it (:attr:`Params.twin_context_mm`; :func:`_explained`): a flat fill that one
    face has and the other lacks has no pattern, only a level."""
    weight = kind_refs.weight
    part = apart > params.twin_difference_min
    if part.sum() < params.twin_part_min * weight.sum():
        part = apart > params.twin_faint_min  # faces that differ only in thin lines
        if part.sum() < params.twin_part_min * weight.sum():
            return None
    flat = np.concatenate([v.reshape(-1, 3) for v in (window, a, b)], axis=1)
    values = flat[np.flatnonzero(part)]
    pattern = _leads(values - values.mean(axis=0))
    if max(abs(v) for v in pattern) >= params.margin_min:
        return pattern
    reach = 2 * round(params.twin_context_mm * kind_refs.scale) + 1
    around = cv2.dilate(part.astype(np.uint8), np.ones((reach, reach), np.uint8)).astype(bool) & (seen > 0)
    if not (around & ~part).any():
        return pattern  # nothing round the part: its level is the pattern's
    return _explained(flat, part, around)


def _explained(flat: np.ndarray, part: np.ndarray, around: np.ndarray) -> tuple[float, float]:
    """For the piece's, *a*'s and *b*'s values (*flat*: a row per pixel, three channels each),
    each less its mean over *around*: how much more of the piece's values over *part* (within
    *around*) *a* explains than *b* does, each scaled as best fits the piece over *around*
    (the share of the piece's power that taking it away leaves, *b*'s less *a*'s); in colour
    and in hue alone (each pixel less its grey). A flat fill that one face has and the other
    lacks is a level, which a correlation does not weigh."""
    rows = np.flatnonzero(around)
    inner = part.ravel()[rows]
    values = flat[rows] - flat[rows].mean(axis=0)
    leads = []
    for hue in (False, True):
        v = values.reshape(-1, 3, 3).astype(np.float64)  # pixel, image (piece, a, b), channel
        if hue:
            v = v - v.mean(axis=2, keepdims=True)
        piece = v[:, 0]
        power = float((piece[inner] ** 2).sum())
        if power < 1e-12:
            leads.append(0.0)  # nothing of the piece to explain there (a grey part has no hue)
            continue
        left = []
        for face in (v[:, 1], v[:, 2]):
            gain = float((piece * face).sum()) / max(float((face * face).sum()), 1e-12)
            left.append(float(((piece[inner] - gain * face[inner]) ** 2).sum()) / power)
        leads.append(left[1] - left[0])
    return leads[0], leads[1]


def _leads(values: np.ndarray) -> tuple[float, float]:
    """For the piece's, *a*'s and *b*'s values over a part (a row per pixel, three channels
    each, less each one's level): how much better *a*'s correlate with the piece's than *b*'s,
    in colour and in hue alone (each pixel less its grey, too: where two faces differ in their
    ink's colour). Both come from the products of the nine channels (a 9x9 matrix)."""
    products = (values.T @ values).astype(np.float64).reshape(3, 3, 3, 3)
    grey = np.eye(3) - 1.0 / 3.0  # a pixel less its grey (a projection: applied once is enough)
    colour, hue = (np.einsum("cd,icjd->ij", m, products) for m in (np.eye(3), grey))
    # a hue a millionth of the colour's power is rounding: a grey part has none
    floors = 1e-6 * np.diag(colour)
    return (_cosine(colour, 1) - _cosine(colour, 2),
            _cosine(hue, 1, floors) - _cosine(hue, 2, floors))


def apart(a: Reference, b: Reference, sigma: float, params: Params) -> tuple[np.ndarray, ...]:
    """How two references differ, blurred by *sigma* px: as they are, and where their mean
    colours differ (:attr:`Params.twin_light_min`), with *b*'s channels each scaled to *a*'s."""
    maps = [np.abs(a.image - b.image)]
    ratio = a.colour / b.colour
    if float(np.abs(np.log(ratio)).max()) > params.twin_light_min:
        maps.append(np.abs(a.image - b.image * ratio[None, None, :]))
    return tuple(np.asarray(cv2.GaussianBlur(summed(m), (0, 0), sigma), np.float32) for m in maps)


def _cosine(products: np.ndarray, other: int, floors: np.ndarray | None = None) -> float:
    """The cosine of the angle between the piece (0) and *other* as vectors, from the 3x3
    *products* of the piece and the two faces (0 where either is nought: its power no more
    than its *floor*, or than 1e-12)."""
    power = np.diag(products)
    if floors is not None and (power[0] <= floors[0] or power[other] <= floors[other]):
        return 0.0
    d = math.sqrt(float(power[0] * power[other]))  # sums of squares; a hue's rounding is cut off above
    return float(products[0, other]) / d if d > 1e-12 else 0.0
