"""Segmentation: which pixels of a frame are pieces and which the table.

:func:`segment` splits a frame by brightness, or by its change from a frame of the empty
table (:func:`empty_difference`); :data:`CONTRAST_MIN` says when a piece stands out enough.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

CONTRAST_MIN = 40.0
"""Registration: the piece stands out when its brightness (strongest channel, 0-255)
differs from the background's by at least this (white card on black: ~150; a crop of a
card: the print against the card, which is not the piece's outline)."""
SEGMENT_TOWARDS_TABLE = 0.5
"""Segmentation cuts at this fraction of the way from the table's median brightness to
Otsu's threshold (see :func:`segment`)."""
EMPTY_DIFF_MIN = 24.0
"""With an empty-table frame, a pixel changed by less than this (summed over channels,
0-765) is sensor noise and JPEG, not a piece (synthetic scenes: the bare cloth's change is
under 16 in 99.99 % of its pixels in the median scene, under 22 in the worst)."""
OWN_LEVEL_PERCENTILE = 70.0
OWN_EDGE_SHARE = 0.3
"""With an empty-table frame, each piece is also cut at this share of its own change (this
percentile of its pixels': its body, above its blurred rim, below its print's peaks), when
that is lower than the frame's cut: a blurred edge is halfway between its two sides. The
frame's cut is set by its most striking pieces (40-60); a copper or gold coin on wood
changes by only 30-50 besides its ring and figures, and fell apart under it (200 synthetic
scenes: of 102 face-up coins alone on wood, 22 missed and 12 unfitted; 2 and 7 with this).
Only a blob that has pixels over the frame's cut is cut lower, so the cut follows the
piece: one cut at 24 throughout grows every outline by its blur (2011 of 2791 pieces
read, against 2382), one at 0.4 of Otsu's 2311 and 3 more misread. Percentiles 70-90 (at
0.5) and shares 0.45-0.6 (at 70) read 2386-2416, none misread more; percentiles 50-60 or a
share of 0.4 read up to 2421 but misread one more coin. With the reader as it is now (discs
fitted at their own size, heap pieces compared without the others' overlap and looked at
again where they lie best aligned), the share was measured again: 0.5 read 2,694, 0.35
2,701, 0.25-0.3 2,707 and 0.2 2,706, none misread; left-out fronts taken as known 3 of
1,059 (0.2: 4). Most of the gain is in overlapping pieces (tiles face up 159 -> 163 of 167,
coins face up 162 -> 166 of 190): where a piece that changes little (a copper coin on wood)
touches one that changes much (a white card), the blob's cut is set by the card's change."""


def segment(image: np.ndarray, empty: np.ndarray | None = None,
            difference: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """Pieces against the table: a 0/1 uint8 mask of what is not table, and the contrast
    (brightness difference, 0-255) between the two.

    Without *empty*, the brightness (strongest channel: white cards, coloured tiles and a
    dark cloth all separate on it) is split by Otsu's threshold, and whichever side holds
    most of the image's border is the table. The table's brightness is then modelled place
    by place (its pixels, averaged over ~1/10 of the frame), and a piece is what differs
    from it by :data:`SEGMENT_TOWARDS_TABLE` of Otsu's step or more. With *empty* (the
    same view without pieces, same size), a pixel is a piece where it differs from it by
    half Otsu's threshold on the difference, and at least :data:`EMPTY_DIFF_MIN`; a blob
    that does is then grown to half its own difference (:func:`_cut_each`). Either way,
    specks under 3 px are opened away. *difference*: :func:`empty_difference` of the two,
    where it was worked out already.
    """
    if empty is not None:
        d8 = empty_difference(image, empty) if difference is None else difference
        t, _ = cv2.threshold(d8, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
        # as below, the cut sits nearer the unchanged side: where a piece happens to match
        # the cloth under it, the difference is small but the piece's outline must not break
        cut = max(SEGMENT_TOWARDS_TABLE * float(t), EMPTY_DIFF_MIN)
        mask, total, count = _cut_each(d8, cut)
        contrast = total / count if count else 0.0  # the mean change under the mask
    else:
        v = np.asarray(cv2.GaussianBlur(_strongest(image), (0, 0), 1.0), np.uint8)
        t, _ = cv2.threshold(v, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
        bright = v > t
        if not bright.any() or bright.all():
            return np.zeros(v.shape, np.uint8), 0.0
        contrast = abs(float(v[bright].mean()) - float(v[~bright].mean()))
        border = np.concatenate([bright[0], bright[-1], bright[:, 0], bright[:, -1]])
        table_is_bright = border.mean() > 0.5
        table_px = bright if table_is_bright else ~bright
        hist = cv2.calcHist([v], [0], table_px.astype(np.uint8), [256], [0, 256]).ravel()
        table = float(np.searchsorted(np.cumsum(hist), hist.sum() / 2))  # the median, from a histogram
        # The table's own brightness, place by place: the table pixels of Otsu's split,
        # averaged over ~1/10 of the frame (normalised convolution, at 1/8 size for speed),
        # so light falling across the table does not make it a piece.
        h, w = v.shape
        sh, sw = max(1, h // 8), max(1, w // 8)
        tab = np.asarray(cv2.resize(table_px.astype(np.float32), (sw, sh), interpolation=cv2.INTER_AREA))
        val = np.asarray(cv2.resize(np.where(table_px, v, 0).astype(np.float32), (sw, sh),
                                    interpolation=cv2.INTER_AREA))
        sigma = max(sh, sw) / 12
        num = np.asarray(cv2.GaussianBlur(val, (0, 0), sigma)) + 0.01 * table
        den = np.asarray(cv2.GaussianBlur(tab, (0, 0), sigma)) + 0.01
        local = np.asarray(cv2.resize(num / den, (w, h), interpolation=cv2.INTER_LINEAR), np.float32)
        # A piece differs from the table there by half Otsu's step or more: the table is
        # the even side, while a piece varies (its shadowed half, its print), so the cut sits
        # nearer the table (Set webcam scene: table 3-35, a shadowed card 87-134, Otsu 91).
        step = SEGMENT_TOWARDS_TABLE * abs(float(t) - table)
        diff = local - v if table_is_bright else v - local
        mask = (diff > step).astype(np.uint8)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel, dst=mask)
    return mask, contrast


def empty_difference(image: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """How much each pixel of *image* changed from the empty-table frame *empty* (BGR uint8,
    same size): the channels' absolute differences, both frames a little blurred, summed and
    saturated at 255 (uint8)."""
    # a 5 x 5 kernel: sigma 1's own is 7 x 7, 1.6x slower, for at most 3 levels' difference
    # (200 synthetic scenes read the same)
    # (in place where it can: each frame-sized array made anew costs ~0.2 ms of page faults
    # after a large allocation elsewhere, as the app's camera and screen make)
    blurred = cv2.GaussianBlur(image, (5, 5), 1.0)
    spare = np.asarray(cv2.GaussianBlur(empty, (5, 5), 1.0), np.uint8)
    diff = cv2.absdiff(blurred, spare, dst=blurred)
    # any channel's change counts: their sum, saturated at 255 (cv2.add saturates uint8;
    # ~15x faster than numpy's sum over the channel axis, 2x than cv2.transform); the green
    # and red planes are split into the blurred empty frame's memory, no longer needed
    h, w = diff.shape[:2]
    planes = [np.empty((h, w), np.uint8), *spare.reshape(-1)[:2 * h * w].reshape(2, h, w)]
    d8, g, r = cv2.split(np.asarray(diff, np.uint8), planes)  # into *planes* (as given back)
    cv2.add(d8, g, dst=d8)
    cv2.add(d8, r, dst=d8)
    return np.asarray(d8, np.uint8)


def _cut_each(d8: np.ndarray, cut: float) -> tuple[np.ndarray, float, int]:
    """The pixels of *d8* (uint8 change from the empty table) over *cut*, with each blob
    that has any grown to where it falls to :data:`OWN_EDGE_SHARE` of its own change (at
    least :data:`EMPTY_DIFF_MIN`, never above *cut*). A blob is what changed by more than
    :data:`EMPTY_DIFF_MIN`, connected; its change is its pixels' :data:`OWN_LEVEL_PERCENTILE`.

    With that mask, the sum of *d8* under it and its count of pixels (both exact: their
    quotient is numpy's mean of the masked pixels, to the bit). When blobs are grown, they
    are worked out from the blobs' histograms, which hold every masked pixel: no second pass
    over the frame (0.02 against 0.26 ms a frame)."""
    # thresholds by cv2: 10x numpy's comparisons
    mask = np.asarray(cv2.threshold(d8, math.floor(cut), 1, cv2.THRESH_BINARY)[1], np.uint8)
    if cut <= EMPTY_DIFF_MIN:
        count = cv2.countNonZero(mask)
        return mask, (cv2.sumElems(cv2.bitwise_and(d8, d8, mask=mask))[0] if count else 0.0), count
    changed = np.asarray(cv2.threshold(d8, math.floor(EMPTY_DIFF_MIN), 1, cv2.THRESH_BINARY)[1], np.uint8)
    n, labels = cv2.connectedComponents(changed, connectivity=8)
    # only the changed pixels (a twentieth of a frame or so), by flat index: one histogram per blob
    at = np.flatnonzero(changed.view(bool))  # 6x faster than on uint8
    # blob * 256 + change: the pixel's bin in its blob's histogram
    key = np.asarray(labels, np.int32).ravel()[at]
    key <<= 8
    key |= d8.ravel()[at]
    counts = np.bincount(key, minlength=n * 256).reshape(n, 256)
    cum = np.cumsum(counts, axis=1)
    level = (cum < cum[:, -1:] * (OWN_LEVEL_PERCENTILE / 100.0)).sum(axis=1)
    cuts = np.clip(OWN_EDGE_SHARE * level, EMPTY_DIFF_MIN, cut)
    # nothing over the frame's cut (an integer change over it is over its floor): not a piece
    seeded = cum[:, -1] > cum[:, min(math.floor(cut), 255)]
    # which bin of which blob is kept, then looked up pixel by pixel: one gather of the
    # changed pixels instead of four (the whole cut 1.8 -> 1.5 ms a frame)
    kept = seeded[:, None] & (np.arange(256) > cuts[:, None])
    mask.ravel()[at[kept.ravel()[key]]] = 1
    # every pixel over the frame's cut is in a seeded blob and over its cut: the mask is the
    # kept bins' pixels, all of them
    per_level = (counts * kept).sum(axis=0)
    return mask, float(per_level @ np.arange(256)), int(per_level.sum())


def _strongest(image: np.ndarray) -> np.ndarray:
    """Each pixel's strongest channel (HSV's value); ~20x faster than ``max(axis=2)``."""
    return np.asarray(np.maximum(np.maximum(image[:, :, 0], image[:, :, 1]), image[:, :, 2]), np.uint8)
