"""Stages 3 and 4: each placed piece rectified, and compared with every registered face.

The piece is cut out of the view upright at the comparison scale, with a margin for the search
(print finer than that scale blurred away first, as it is in the references). Each reference
face (:mod:`~vision.reading.faces`: each of its images, at each turn the outline allows) is
slid over it a little way; the score is the normalised cross-correlation over the piece's
visible part, each colour channel less its own best plane, so that a change of light's
strength, a tint laid over the whole piece or light falling off across it does not count, and
what is printed in which colour does. The best face is judged closely
(:mod:`~vision.reading.judge`): what of the piece it leaves unexplained, as the piece is and
once the light's shade across it is taken off. A piece that no face is named for, though one
correlates well, is judged against more of the likeliest fronts, and then again with each face
laid over it (moved, turned, and for a rect scaled and sheared a little, as another camera or a
crop's framing makes a print differ). Where the best face and the runner-up differ is judged
in :mod:`~vision.reading.twins`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from vision.reading.faces import (
    APART_KEPT,
    KindRefs,
    Reference,
    centred,
    halved,
    laid,
    lay,
    mean_colour,
    moved,
    summed,
)
from vision.reading.fit import Placement
from vision.reading.judge import Fit, aligned, unexplained, unshaded
from vision.reading.params import Params
from vision.reading.twins import apart, lead_on


@dataclass(frozen=True)
class Match:
    """How one face compares with a piece: its best score and, for the best face, the rest."""

    face: str
    score: float
    turn_deg: float
    residual: float
    shift_px: tuple[int, int]
    ref: int
    """The index of the reference that matched, in its kind's :attr:`KindRefs.refs`."""
    blur_mm: float
    """How much the face was blurred to look like the piece (:attr:`Params.blur_steps_mm`)."""
    lead: float | None = None
    """For the best face: how much better it matches than the runner-up where the two differ
    (correlation on that part alone, in colour or in hue); None where they hardly differ, where
    its score beats the runner-up's by twice :attr:`Params.margin_min` already, or for the
    others."""
    worst_px: tuple[int, int] | None = None
    """For the best face: where the worst patch of the aligned difference lies in its window
    (px at the comparison scale)."""
    tint: tuple[float, float, float] | None = None
    """For the best face: the piece's mean colour over the face's, per channel, as logarithms
    (the light's colour, where the face is right)."""
    lit_score: float | None = None
    """For the best face: its correlation with the piece once the light's shade across the piece
    is taken off (:func:`~vision.reading.judge.unshaded`); None for the others."""

    @property
    def bar_score(self) -> float:
        """The score the bars are set on: the better of :attr:`score` and :attr:`lit_score`."""
        return self.score if self.lit_score is None else max(self.score, self.lit_score)


def cut_out(view: np.ndarray, piece: Placement, size: tuple[int, int], margin_px: int,
            scale: float) -> np.ndarray:
    """The piece upright at *scale* px/mm (float32, 0-1 for uint8), *size* plus *margin_px* all
    round; *view* may have colour channels or not. Where the view is finer than *scale*, it is
    blurred first as much as shrinking it by area would (so print finer than a patch pixel is
    seen as its references are: as its mean colour, not as moiré)."""
    w, h = size
    out_w, out_h = w + 2 * margin_px, h + 2 * margin_px
    if piece.corners is not None:
        # the rect's corners in the patch (pixel edges) to where they are seen
        lo_x, lo_y, hi_x, hi_y = margin_px - 0.5, margin_px - 0.5, margin_px + w - 0.5, margin_px + h - 0.5
        inner = np.array([[lo_x, lo_y], [hi_x, lo_y], [hi_x, hi_y], [lo_x, hi_y]], np.float32)
        m = cv2.getPerspectiveTransform(inner, np.asarray(piece.corners, np.float32))
    else:
        a = math.radians(piece.angle_deg)
        k = piece.px_per_mm / scale  # view px per patch px
        ux, uy = math.cos(a) * k, math.sin(a) * k
        vx, vy = -math.sin(a) * k, math.cos(a) * k
        cx, cy = piece.centre
        ox, oy = (out_w - 1) / 2, (out_h - 1) / 2
        # patch (px, py) -> view: centre + u (px - ox) + v (py - oy)
        m = np.array([[ux, vx, cx - ux * ox - vx * oy], [uy, vy, cy - uy * ox - vy * oy], [0.0, 0.0, 1.0]])
    view, m = _antialiased(view, m, (out_w, out_h))
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    patch = (cv2.warpPerspective(view, m, (out_w, out_h), flags=flags, borderMode=cv2.BORDER_REPLICATE)
             if piece.corners is not None else
             cv2.warpAffine(view, m[:2], (out_w, out_h), flags=flags, borderMode=cv2.BORDER_REPLICATE))
    return np.asarray(patch, np.float32) / (255.0 if view.dtype == np.uint8 else 1.0)


def _antialiased(view: np.ndarray, m: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The part of *view* that the patch of *size* taken by *m* (patch to view) covers, blurred
    by what shrinking it to the patch by area would blur it (nothing where the patch is as fine),
    and *m* to that part."""
    w, h = size
    box = np.array([[[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]]], np.float32)
    ends = cv2.perspectiveTransform(box, m)[0]
    k = math.sqrt(max(cv2.contourArea(ends), 1e-6) / (w * h))  # view px per patch px
    sigma = 0.5 * math.sqrt(max(k * k - 1.0, 0.0))
    if sigma < 0.25:
        return view, m
    pad = math.ceil(3 * sigma) + 2
    x0, y0 = (max(0, math.floor(v) - pad) for v in ends.min(axis=0))
    x1, y1 = (math.ceil(v) + pad for v in ends.max(axis=0))
    part = view[y0:min(y1, view.shape[0]), x0:min(x1, view.shape[1])]
    if part.size == 0:
        return view, m
    moved = np.array([[1.0, 0.0, -x0], [0.0, 1.0, -y0], [0.0, 0.0, 1.0]]) @ m
    return cv2.GaussianBlur(part, (0, 0), sigma), moved


@dataclass(frozen=True)
class Cut:
    """A piece cut out of the view (:func:`cut_out`) at one turn."""

    turn_deg: float
    """How far it is turned from where it was fitted (degrees)."""
    patch: np.ndarray
    visible: np.ndarray
    """float32 0/1, the patch's size: what no other piece covers."""


@dataclass(frozen=True)
class _Judged:
    """One face judged on a piece: its fit, the reference that gave it, and where."""

    face: str
    fit: Fit | None
    ref: Reference
    index: int
    cut: Cut
    place: tuple[int, int]
    """The window's top left in the cut's patch (px)."""
    window: np.ndarray
    """The part of the patch the face was judged on: the kind's size at *place*."""
    seen: np.ndarray
    """What of the window is judged: the kind's compared part where no other piece covers it."""
    warp: np.ndarray | None = None
    """How :attr:`ref` was laid over the piece (:func:`lay`); None where it is its own image."""
    tried: bool = False
    """Whether laying it over the piece was tried (and made it no better)."""


def compare(cuts: list[Cut], kind_refs: KindRefs, params: Params, stride: int = 1,
            named: Callable[[list[Match]], bool] | None = None) -> list[Match]:
    """Each face's best match on a piece cut out at one or more turns (*cuts*); best first.

    In each cut, every reference is first scored where the piece was fitted (and where what
    all the kind's faces share matches best); the best turns of the faces that score best
    there are slid over the margin to their best place. A wide margin (a *stride* over 1, the
    places that far apart) ranks every reference by its best place in it instead. Each face is
    then judged on the visible part at the cut and place it correlated best at, the fronts
    that correlated best (:attr:`Params.faces_compared`) and the back. Where *named* (the
    verdict) names none of them though the best correlates at least
    :attr:`Params.lay_score_min`, so are the next likeliest (:attr:`Params.faces_widened`);
    where that names none either, each is judged again laid over the piece
    (:func:`_laid_over`)."""
    if not kind_refs.refs:
        return []
    matches, plain = _judged(cuts, kind_refs, params, stride, params.faces_compared)
    if named is None or matches[0].score < params.lay_score_min or named(matches):
        return matches
    fronts = len({ref.face for ref in kind_refs.refs} - {"back"})
    if params.faces_widened > params.faces_compared < fronts:  # else there are no more to judge
        matches, plain = _judged(cuts, kind_refs, params, stride, params.faces_widened)
        if named(matches):
            return matches
    return _ranked(_laid_over(plain, kind_refs, params), kind_refs, params)


def _judged(cuts: list[Cut], kind_refs: KindRefs, params: Params, stride: int,
            count: int) -> tuple[list[Match], list[_Judged]]:
    """The *count* fronts that slide best over the piece's *cuts* and the back, each judged at
    its best cut and place: their matches (best first) and how each was judged."""
    weight = kind_refs.weight
    h, w = weight.shape
    slid: dict[str, tuple[float, int, int, tuple[int, int]]] = {}  # face: score, cut, ref, place
    for c, cut in enumerate(cuts):
        for face, (top, index, at) in _slid(cut.patch, kind_refs, params, count, stride).items():
            if face not in slid or top > slid[face][0]:
                slid[face] = (top, c, index, at)
    fronts = sorted((f for f in slid if f != "back"), key=lambda f: -slid[f][0])[:count]
    plain: list[_Judged] = []
    level: dict[tuple[int, int, int], np.ndarray] = {}  # each window less its planes, by cut and place
    for face in fronts + (["back"] if "back" in slid else []):
        _top, c, index, (dx, dy) = slid[face]
        cut, ref = cuts[c], kind_refs.refs[index]
        window, seen = cut.patch[dy:dy + h, dx:dx + w], weight * cut.visible[dy:dy + h, dx:dx + w]
        if (c, dx, dy) not in level:
            level[c, dx, dy] = centred(window, seen)
        fit = _aligned_on(window, ref, seen, kind_refs, params, level[c, dx, dy])
        plain.append(_Judged(face, fit, ref, index, cut, (dx, dy), window, seen))
    return _ranked(plain, kind_refs, params), plain


def _laid_over(plain: list[_Judged], kind_refs: KindRefs, params: Params) -> list[_Judged]:
    """The faces *plain* judged again, each laid over the piece (:func:`lay`) where that
    correlates better: each image of it at the turn it was judged at (the one that correlated
    best first: another camera's may lie better once laid), and a disc's face that would have
    to be turned further than :attr:`Params.lay_turn_max_deg` from its next turn; a face that
    correlates less than :attr:`Params.lay_score_min` is not laid itself. Where the best of them
    is laid, a face that could not be or was not laid itself is laid as that was (its image
    most like the best's: the piece's print is framed so for both), so that it is not weighed
    unlaid against a laid one."""
    lain: list[_Judged] = []
    for judged in plain:
        best = judged
        if judged.fit is None or judged.fit.score < params.lay_score_min:
            lain.append(judged)  # too unlike the piece to be laid itself
            continue
        for start in _images(kind_refs, judged.index):
            for index in [start, *_next_turns(kind_refs, start)]:
                near = replace(judged, ref=kind_refs.refs[index], index=index)
                warp = lay(near.window, near.ref, near.seen, kind_refs, params)
                if warp is not None:
                    best = _laid_better(near, near, warp, kind_refs, params, best)
                    break
        lain.append(best)
    first = max(lain, key=lambda j: -1.0 if j.fit is None else j.fit.score)
    if first.warp is not None:
        for i, judged in enumerate(lain):
            if judged.warp is None and not judged.tried:
                twin = _alike(kind_refs, first.index, judged.face)
                lain[i] = _laid_better(replace(judged, ref=kind_refs.refs[twin], index=twin), first,
                                       first.warp, kind_refs, params, judged)
    return lain


def _laid_better(judged: _Judged, where: _Judged, warp: np.ndarray, kind_refs: KindRefs, params: Params,
                 was: _Judged | None = None) -> _Judged:
    """*judged*'s face moved by *warp* (:func:`lay`) and judged in *where*'s window, where that
    correlates better than it did (*was*, if not *judged*); else as it was, laying tried."""
    before = judged if was is None else was
    ref = moved(judged.ref, warp, kind_refs, params)
    fit = _aligned_on(where.window, ref, where.seen, kind_refs, params)
    if fit is None or (before.fit is not None and fit.score <= before.fit.score):
        return replace(before, tried=True)
    return replace(judged, fit=fit, ref=ref, warp=warp, cut=where.cut, place=where.place, window=where.window,
                   seen=where.seen)


def _aligned_on(window: np.ndarray, ref: Reference, seen: np.ndarray, kind_refs: KindRefs,
                params: Params, level: np.ndarray | None = None) -> Fit | None:
    """:func:`~vision.reading.judge.aligned` on *seen*, told whether that is the kind's whole
    compared part (*level*: the window less its planes there, where worked out already)."""
    return aligned(window, ref, seen, bool(np.array_equal(seen, kind_refs.weight)), params, level)


def _images(kind_refs: KindRefs, index: int) -> list[int]:
    """The indices of every image of the face of the reference at *index*, at its turn (that
    one first)."""
    ref = kind_refs.refs[index]
    return [index, *(i for i, r in enumerate(kind_refs.refs)
                     if r.face == ref.face and r.turn_deg == ref.turn_deg and r.source != ref.source)]


def _next_turns(kind_refs: KindRefs, index: int) -> list[int]:
    """For a disc: the indices of the references of the same image as the one at *index*, one
    turn step either way; none for a rect."""
    ref = kind_refs.refs[index]
    if kind_refs.kind.shape != "disc":
        return []
    same = [i for i, r in enumerate(kind_refs.refs) if r.source == ref.source]  # every turn of it
    step = 360.0 / len(same)
    return [i for i in same if abs(abs((kind_refs.refs[i].turn_deg - ref.turn_deg + 180.0) % 360.0 - 180.0)
                                   - step) < step / 2]


def _alike(kind_refs: KindRefs, index: int, face: str) -> int:
    """The index of *face*'s reference (of any image and turn) that looks most like the
    reference at *index*."""
    key = (index, face)
    if key not in kind_refs.alike:
        twins = [i for i, r in enumerate(kind_refs.refs) if r.face == face]
        kind_refs.alike[key] = twins[int(np.argmax(kind_refs.table[twins] @ kind_refs.table[index]))]
    return kind_refs.alike[key]


def _ranked(judged: list[_Judged], kind_refs: KindRefs, params: Params) -> list[Match]:
    """The matches of the faces *judged*, best first: the best with its residual, tint and (where
    its score's margin is under twice :attr:`Params.margin_min`) lead over the runner-up."""
    matches = [Match(j.face, -1.0 if j.fit is None else j.fit.score, j.ref.turn_deg + j.cut.turn_deg,
                     math.inf, j.place, j.index, 0.0 if j.fit is None else j.fit.blur_mm) for j in judged]
    order = sorted(range(len(matches)), key=lambda i: matches[i].score, reverse=True)
    top = judged[order[0]]
    if top.fit is not None:  # only the best face's residual is judged: as the piece is, or unshaded
        fit = top.fit
        residual, worst = unexplained(fit, kind_refs.scale, params)
        b, g, r = (float(v) for v in np.log(mean_colour(top.window, fit.seen) / top.ref.colour))
        lit = None
        if fit.score < params.score_min or residual > params.residual_max:  # else no bar it could change
            lit = _aligned_on(unshaded(top.window, top.ref, fit, kind_refs.scale, params), top.ref, fit.seen,
                              kind_refs, params)
            if lit is not None:
                residual, worst = min((residual, worst), unexplained(lit, kind_refs.scale, params),
                                      key=lambda found: found[0])
        matches[order[0]] = replace(matches[order[0]], residual=residual, tint=(b, g, r), worst_px=worst,
                                    lit_score=None if lit is None else lit.score)
    matches = [matches[i] for i in order]
    if len(matches) > 1 and matches[0].score - matches[1].score < 2 * params.margin_min:
        # where the scores alone clear twice the margin's bar, no lead changes the verdict or its confidence
        matches[0] = replace(matches[0], lead=_lead(top, kind_refs, matches[0], matches[1], params))
    return matches


def _slid(patch: np.ndarray, kind_refs: KindRefs, params: Params, count: int,
          stride: int = 1) -> dict[str, tuple[float, int, tuple[int, int]]]:
    """For the back and each of the *count* fronts that score best where the piece was fitted:
    its best correlation slid over *patch*'s margin (every *stride* px), the reference that
    gives it, and where (px). With a *stride* over 1 (a wide search), the faces that score best
    anywhere in the margin."""
    weight = kind_refs.weight
    h, w = weight.shape
    # every place the piece may lie at in the patch, as a row of that window's pixels
    windows = sliding_window_view(patch, (h, w, 3))[::stride, ::stride, 0]
    places_y, places_x = windows.shape[:2]
    flat = windows.reshape(places_y * places_x, h * w * 3)
    sums, squares = _window_sums(patch, kind_refs, stride)
    spread = np.sqrt(np.maximum(squares - (sums * sums).sum(axis=1) / float(weight.sum()), 1e-9))
    # each reference scored where the piece was fitted, and where what all its kind's faces
    # share matches best (a disc's centre is found by its rim better than by its outline)
    every = None
    if stride > 1:  # a wide search: each reference ranked by its best place
        every = flat @ kind_refs.table.T / spread[:, None]
        first = np.asarray(every.max(axis=0), np.float32)
    else:
        common = int(np.argmax(flat @ kind_refs.common.ravel() / spread))
        fitted = ((patch.shape[1] - w) // 2, (patch.shape[0] - h) // 2)
        first = _scores_at(patch, [fitted, (common % places_x, common // places_x)], kind_refs)
    by_face: dict[str, list[int]] = {}
    fronts = 0
    for i in np.argsort(-first):
        face = kind_refs.refs[i].face
        if face not in by_face and face != "back":
            if fronts >= count:
                continue  # only the fronts that look most like the piece are compared closely
            fronts += 1
        picks = by_face.setdefault(face, [])
        if len(picks) < params.turns_compared:
            picks.append(int(i))
    chosen = [i for picks in by_face.values() for i in picks]
    scores = flat @ kind_refs.table[chosen].T / spread[:, None] if every is None else every[:, chosen]
    out: dict[str, tuple[float, int, tuple[int, int]]] = {}
    for column, i in enumerate(chosen):
        at = int(np.argmax(scores[:, column]))
        face = kind_refs.refs[i].face
        if face not in out or scores[at, column] > out[face][0]:
            out[face] = (float(scores[at, column]), i, (at % places_x * stride, at // places_x * stride))
    return out


def _window_sums(patch: np.ndarray, kind_refs: KindRefs, stride: int) -> tuple[np.ndarray, np.ndarray]:
    """The sums over the kind's weight of each window of *patch* (every *stride* px, row by row):
    per channel, and of the squares over the channels. A weight that is a box of ones is summed
    from the patch's integral images, any other by OpenCV's correlation."""
    weight = kind_refs.weight
    if kind_refs.box is None:
        sums = np.stack([cv2.matchTemplate(np.ascontiguousarray(patch[:, :, c]), weight, cv2.TM_CCORR)
                         for c in range(3)], axis=-1)
        squares = cv2.matchTemplate(summed(patch * patch), weight, cv2.TM_CCORR)
        return sums[::stride, ::stride].reshape(-1, 3), squares[::stride, ::stride].ravel()
    top, bottom, left, right = kind_refs.box
    ys = np.arange(0, patch.shape[0] - weight.shape[0] + 1, stride)[:, None]
    xs = np.arange(0, patch.shape[1] - weight.shape[1] + 1, stride)[None, :]
    total, squared = cv2.integral2(patch, sdepth=cv2.CV_64F, sqdepth=cv2.CV_64F)
    found = [image[ys + bottom, xs + right] - image[ys + top, xs + right] - image[ys + bottom, xs + left]
             + image[ys + top, xs + left] for image in (total, squared)]
    return (np.asarray(found[0].reshape(-1, 3), np.float32),
            np.asarray(found[1].reshape(-1, 3).sum(axis=1), np.float32))


def _scores_at(patch: np.ndarray, places: list[tuple[int, int]], kind_refs: KindRefs) -> np.ndarray:
    """Every reference's best correlation at half the scale with the windows of *patch* whose
    top lefts are *places* (px)."""
    h, w = kind_refs.weight.shape
    # the references have no plane left: a window's own adds nothing to its products with them
    windows = np.stack([centred(halved(patch[y:y + h, x:x + w]), kind_refs.rough_weight, plane=False).ravel()
                        for x, y in places])
    windows /= np.maximum(np.sqrt((windows * windows).sum(axis=1)), 1e-9)[:, None]
    return np.asarray((kind_refs.rough @ windows.T).max(axis=1), np.float32)


def _lead(top: _Judged, kind_refs: KindRefs, best: Match, runner_up: Match, params: Params) -> float | None:
    """How much better *best*'s face matches the piece (*top*: how it was judged) than
    *runner_up*'s on the part where the two faces differ (in colour, or in hue alone where
    that says more; where they differ only faintly, as thin lines do, on where they differ
    faintly), or None when that part is small. Where their mean colours differ (faces
    registered in another light or exposure differ all over), also where they differ once the
    runner-up is brought to the best's mean colour: the larger lead of the two. Where the
    runner-up matches better by :attr:`Params.margin_min` in colour or in hue on either part,
    that (negative) is the lead: evidence against is no lead. The runner-up is taken as the image
    of it at the turn that looks most like *best*'s reference (laid over the piece as well where
    *best* was)."""
    window, seen, a = top.window, top.seen, top.ref
    b = kind_refs.refs[_alike(kind_refs, best.ref, runner_up.face)]
    sigma = params.twin_blur_mm * kind_refs.scale
    if top.warp is not None:  # so is its twin (as the best was, where it cannot be laid itself)
        b = laid(window, b, seen, kind_refs, params) or moved(b, top.warp, kind_refs, params)
        aparts = apart(a, b, sigma, params)
    else:
        pair = (id(a), id(b))
        if pair not in kind_refs.apart:
            if len(kind_refs.apart) >= APART_KEPT:
                kind_refs.apart.clear()
            kind_refs.apart[pair] = apart(a, b, sigma, params)
        aparts = kind_refs.apart[pair]
    step = params.blur_steps_mm.index(best.blur_mm)
    lead: float | None = None
    for part in aparts:
        found = lead_on(part * seen, seen, window, a.soft[step], b.soft[step], kind_refs, params)
        if found is None:
            continue
        if min(found) <= -params.margin_min:
            return min(found)  # the runner-up clearly better in colour or in hue: no lead
        lead = max(found) if lead is None else max(lead, *found)
        if lead >= 2 * params.margin_min:
            break  # a larger lead would change neither the verdict nor its confidence
    return lead
