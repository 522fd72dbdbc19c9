"""A face judged on a piece: how well it correlates, and what of the piece it leaves unexplained.

The correlation is taken over the piece's visible part, each colour channel less its own best
plane (:func:`~vision.reading.faces.centred`). What is left once the face, scaled to the piece,
is taken away is smoothed to symbol size: its worst patch says whether some part of the piece is
something the face does not explain. Light and shade that a plane does not follow (the band of a
shadow, a patch of glare: darker or lighter in every channel alike, over the print and the
paper round it) are found against the face and taken off the piece first (:func:`unshaded`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.reading.faces import Reference, blurred, centred, power_over, summed
from vision.reading.params import Params


@dataclass(frozen=True)
class Fit:
    """A face laid over the window at its best blur: the correlation, and what the residual needs."""

    score: float
    blur_mm: float
    piece: np.ndarray
    """The window less its best plane, zero outside the judged part."""
    face: np.ndarray
    """The face at that blur (centred over the kind's compared part)."""
    gain: float
    """The face scaled by this is nearest the piece."""
    seen: np.ndarray
    """The part judged (the piece's shape where no other piece covers it)."""
    power: float
    """The sum of :attr:`piece` squared."""


def aligned(window: np.ndarray, face: Reference, seen: np.ndarray, whole: bool,
            params: Params, level: np.ndarray | None = None) -> Fit | None:
    """The correlation of *window* and *face* over *seen* (*whole*: the kind's whole compared
    part), the face first blurred as much as the piece looks blurred (the one of
    :attr:`Params.blur_steps_mm` it correlates best at), so that the camera's softness is no
    difference; None where *seen* is too small or flat. *level* is ``centred(window, seen)``
    where that was worked out already."""
    count = float(seen.sum())
    if 3.0 * count < 12:
        return None
    p = centred(window, seen) if level is None else level
    pp = float(np.vdot(p, p))
    if pp < 1e-9:
        return None
    soft = face.soft.reshape(len(face.soft), -1)
    # *p* has no plane left over *seen*: the face's product with it needs no centring there
    pf = soft @ p.ravel()
    ff = face.power if whole else power_over(face, seen)  # the face's spread over what is seen
    scores = np.where(ff > 1e-9, pf / np.sqrt(np.maximum(ff, 1e-9) * pp), -np.inf)
    step = int(np.argmax(scores))
    if not math.isfinite(float(scores[step])):
        return None
    return Fit(float(scores[step]), params.blur_steps_mm[step], p, face.soft[step],
                float(pf[step] / ff[step]), seen, pp)


def unexplained(fit: Fit, scale: float, params: Params) -> tuple[float, tuple[int, int] | None]:
    """How far the worst smoothed patch of what is left of the piece, once the face (scaled and
    shifted to it) is taken away, stands out of the median patch, in units of the piece's own
    spread; and where that patch is in the window (px). A band along the outline of what is
    judged is left out (:attr:`Params.residual_rim_mm`) where enough is left without it."""
    seen = fit.seen
    n = 3.0 * float(seen.sum())
    face = centred(fit.face, seen)
    spread = math.sqrt(fit.power / n * 3.0)
    left = summed(np.abs(fit.piece - fit.gain * face)) / spread
    if params.residual_slack_mm > 0:
        # a face's edges laid a little off leave a difference along them that they explain
        shown = fit.gain * face
        steep = summed(np.abs(cv2.Sobel(shown, cv2.CV_32F, 1, 0, ksize=3)) +
                        np.abs(cv2.Sobel(shown, cv2.CV_32F, 0, 1, ksize=3))) / 8.0
        left = np.maximum(left - params.residual_slack_mm * scale * steep / spread, 0.0)
    sigma = params.residual_patch_mm * scale
    rim = round(params.residual_rim_mm * scale)
    for part in ([_inner(seen, rim)] if rim > 0 else []) + [seen]:
        # beyond the part is no piece: a patch at its edge is judged on its inner part alone
        smooth = cv2.GaussianBlur(left * part, (0, 0), sigma, borderType=cv2.BORDER_CONSTANT)
        cover = cv2.GaussianBlur(part, (0, 0), sigma, borderType=cv2.BORDER_CONSTANT)
        judged = cover > 0.75
        if judged.any():
            break
    if not judged.any():
        return math.inf, None
    level = np.where(judged, smooth / np.maximum(cover, 1e-6), -np.inf)
    # a part the face does not explain stands out of the difference's level over the piece
    # (which blur, grain and a slightly wrong turn raise all over)
    y, x = np.unravel_index(int(np.argmax(level)), level.shape)
    values = level[judged]
    middle = float(np.partition(values, len(values) // 2)[len(values) // 2])  # its median (the upper one)
    return float(level[y, x]) - middle, (int(x), int(y))


def _inner(seen: np.ndarray, rim_px: int) -> np.ndarray:
    """*seen* less a band *rim_px* wide along its outline."""
    kernel = np.ones((2 * rim_px + 1, 2 * rim_px + 1), np.uint8)
    return np.asarray(cv2.erode(seen, kernel, borderType=cv2.BORDER_CONSTANT, borderValue=0), np.float32)


def unshaded(window: np.ndarray, face: Reference, fit: Fit, scale: float, params: Params) -> np.ndarray:
    """*window* (float BGR) with the light's shade across it taken off: its ratio to *face* (at
    *fit*'s blur), less that ratio's median, the same in every channel; found where the face is
    paper (at least :attr:`Params.shade_paper_share` of its lightest) and that ratio is grey
    (:attr:`Params.shade_hue_max`), smoothed (:attr:`Params.shade_blur_mm`), filled in over the
    print from the paper round it (beyond the blur's reach, the paper's mean), and at most
    :attr:`Params.shade_max` either way."""
    seen = fit.seen > 0
    shown = blurred(face.image, fit.blur_mm * scale)
    ratio = np.log(np.maximum(window, _DARKEST)) - np.log(np.maximum(shown, _DARKEST))
    ratio -= np.median(ratio[seen], axis=0)
    grey = ratio.mean(axis=2)
    light = shown.mean(axis=2)
    paper = seen & (light >= params.shade_paper_share * float(np.quantile(light[seen], 0.95)))
    paper = cv2.erode(paper.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0  # not the print's blurred edge
    paper &= np.abs(ratio - grey[:, :, None]).max(axis=2) < params.shade_hue_max  # no ink the face lacks
    weight = paper.astype(np.float32)
    sigma = params.shade_blur_mm * scale
    spread = cv2.GaussianBlur(weight, (0, 0), sigma)
    shade = cv2.GaussianBlur(grey * weight, (0, 0), sigma) / np.maximum(spread, 1e-6)
    # over print wider than the blur reaches, the paper's mean shade: never a step along the print
    farther = float(grey[paper].mean()) if paper.any() else 0.0
    shade = np.clip(np.where(spread > 1e-6, shade, farther), -params.shade_max, params.shade_max)
    return np.asarray(window / np.exp(shade)[:, :, None], np.float32)


_DARKEST = 0.02
"""The darkest a pixel (0-1) is taken as, where ratios of light are taken: a camera's black level."""
