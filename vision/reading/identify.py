"""Stages 3 and 4: each placed piece rectified, and compared with every registered face.

The piece is cut out of the view upright at the comparison scale, with a margin for the search.
Each reference face (each of its images, at each turn the outline allows) is slid over it a
little way; the score is the normalised cross-correlation over the piece's visible part, each
colour channel less its own mean, so that a change of light's strength or a tint laid over the
whole piece does not count, and what is printed in which colour does. At the best place, the
aligned difference (the piece less the face scaled to it) is smoothed to symbol size: its worst
patch says whether some part of the piece is something the face does not explain.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from vision.library import Library, PieceKind
from vision.reading.fit import Placement
from vision.reading.params import Params

APART_KEPT = 512
"""At most this many pairs of references' differences are kept per kind (12 MB at a card's size): a long
session meets ever more pairs."""


@dataclass(frozen=True, eq=False)
class Reference:
    """One registered image of a face at the comparison scale, at one turn."""

    face: str
    """The front's name, or ``"back"``."""
    turn_deg: float
    image: np.ndarray
    """float32 BGR 0-1, the kind's size at the comparison scale."""
    soft: np.ndarray
    """:attr:`image` blurred by each of :attr:`Params.blur_steps_mm`, stacked, each less its
    channels' means over the compared part and zero outside it."""
    power: np.ndarray
    """The sum of each of :attr:`soft`'s squares."""
    centred: np.ndarray
    """The image less each channel's mean, zero outside the compared part."""
    norm: float
    """The length of :attr:`centred` as a vector."""
    colour: np.ndarray
    """The face's mean colour as registered (BGR 0-1)."""


@dataclass
class KindRefs:
    kind: PieceKind
    scale: float
    """The comparison scale of this kind (px/mm)."""
    weight: np.ndarray
    """float32 0/1: the compared part of the piece (its shape less its rim)."""
    refs: list[Reference] = field(default_factory=list)
    table: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    """Each reference's :attr:`~Reference.centred` as a unit row: all scored at once."""
    rough_weight: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    """:attr:`weight` at half the scale, where it is whole (or, for a tiny kind, anywhere)."""
    rough: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    """Each reference at half the scale, less its channels' means over :attr:`rough_weight`,
    as a unit row: the first look at a piece ranks the references by these."""
    common: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 3), np.float32))
    """The mean of every reference's :attr:`~Reference.centred` (what the kind's faces share
    at every turn: a coin's rim), as a unit: where it matches best is where the piece lies."""
    apart: dict[tuple[int, int], np.ndarray] = field(default_factory=dict)
    """How two references (by their ids) differ, blurred to symbol size: worked out when first
    needed, for a piece's best reference and its runner-up face's nearest turn (at most
    :data:`APART_KEPT` of them)."""


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
    (correlation on that part alone); None where they hardly differ or for the others."""
    worst_px: tuple[int, int] | None = None
    """For the best face: where the worst patch of the aligned difference lies in its window
    (px at the comparison scale)."""
    tint: tuple[float, float, float] | None = None
    """For the best face: the piece's mean colour over the face's, per channel, as logarithms
    (the light's colour, where the face is right)."""


def references(library: Library, params: Params, finest: float | None = None) -> dict[str, KindRefs]:
    """Every face of *library* at the comparison scale (no finer than *finest* px/mm: the
    view's own), turned as its outline allows."""
    out: dict[str, KindRefs] = {}
    for name in library.kinds():
        kind = library.kind(name)
        scale = min(comparison_scale(kind, params), math.inf if finest is None else finest)
        w, h = (max(4, round(s * scale)) for s in kind.size_mm)
        entry = KindRefs(kind, scale, _weight(kind, (w, h), params.edge_trim_mm * scale))
        images = [(front, img) for front, imgs in library.fronts(name).items() for img in imgs]
        back = library.back(name)
        if back is not None:
            images.append(("back", back))
        for face, img in images:
            small = np.asarray(cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA), np.float32) / 255.0
            colour = _mean_colour(small, entry.weight)
            for turn in _turns(kind, params):
                turned = _turned(small, turn)
                centred = _centred(turned, entry.weight)
                norm = float(np.sqrt((centred * centred).sum()))
                if norm > 1e-6:
                    soft = np.stack([_centred(_blurred(turned, blur_mm * scale), entry.weight)
                                     for blur_mm in params.blur_steps_mm])
                    flat = soft.reshape(len(soft), -1)
                    power = (flat * flat).sum(axis=1)
                    entry.refs.append(Reference(face, turn, turned, soft, power, centred, norm, colour))
        if entry.refs:
            entry.table = np.stack([r.centred.ravel() / r.norm for r in entry.refs]).astype(np.float32)
            halved = _halved(entry.weight)
            entry.rough_weight = np.asarray(halved > (0.99 if (halved > 0.99).any() else 0.0), np.float32)
            rough = np.stack([_centred(_halved(r.image), entry.rough_weight).ravel() for r in entry.refs])
            entry.rough = rough / np.maximum(np.sqrt((rough * rough).sum(axis=1)), 1e-9)[:, None]
            common = np.mean([r.centred / r.norm for r in entry.refs], axis=0)
            entry.common = np.asarray(common / max(float(np.sqrt((common * common).sum())), 1e-9), np.float32)
        out[name] = entry
    return out


def comparison_scale(kind: PieceKind, params: Params) -> float:
    """The scale *kind*'s faces are compared at (px/mm): :attr:`Params.work_px_per_mm`, or less
    for a kind whose longer side would be over :attr:`Params.compare_px_max` there."""
    return min(params.work_px_per_mm, params.compare_px_max / max(kind.size_mm))


def _mean(image: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """*image*'s mean over *weight*, per channel."""
    w = np.ascontiguousarray(weight, np.float32).ravel()
    flat = np.ascontiguousarray(image, np.float32).reshape(-1, image.shape[2])
    return np.asarray((w @ flat) / max(float(w.sum()), 1e-6), np.float32)


def _mean_colour(image: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """*image*'s mean colour over *weight* (per channel, at least a trace: its logarithm is taken)."""
    return np.asarray(np.maximum(_mean(image, weight), np.float32(1e-3)), np.float32)


def _blurred(image: np.ndarray, sigma_px: float) -> np.ndarray:
    return image if sigma_px <= 0 else np.asarray(cv2.GaussianBlur(image, (0, 0), sigma_px), np.float32)


def _turns(kind: PieceKind, params: Params) -> list[float]:
    if kind.shape == "disc":
        n = max(1, round(360.0 / params.disc_step_deg))
        return [i * 360.0 / n for i in range(n)]
    return [0.0, 90.0, 180.0, 270.0] if kind.is_square else [0.0, 180.0]


def _turned(image: np.ndarray, turn_deg: float) -> np.ndarray:
    """*image* turned clockwise by *turn_deg* about its centre (quarter turns exactly)."""
    if turn_deg % 90.0 == 0.0:
        return np.ascontiguousarray(np.rot90(image, -int(turn_deg // 90) % 4))
    h, w = image.shape[:2]
    m = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), -turn_deg, 1.0)
    return np.asarray(cv2.warpAffine(image, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT),
                      np.float32)


def _centred(image: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """*image* less each channel's mean over *weight*, times *weight*."""
    flat = np.ascontiguousarray(image, np.float32).reshape(-1, image.shape[2])
    w = np.ascontiguousarray(weight, np.float32).ravel()
    return np.asarray((flat - _mean(image, weight)) * w[:, None], np.float32).reshape(image.shape)


def _weight(kind: PieceKind, size: tuple[int, int], trim_px: float) -> np.ndarray:
    w, h = size
    weight = np.zeros((h, w), np.float32)
    if kind.shape == "disc":
        cv2.circle(weight, ((w - 1) * 8, (h - 1) * 8), max(1, round((min(w, h) / 2 - trim_px) * 16)), 1.0,
                   cv2.FILLED, cv2.LINE_8, 4)
    else:
        t = max(0, round(trim_px))
        weight[t:h - t, t:w - t] = 1.0
    return weight


def cut_out(view: np.ndarray, piece: Placement, size: tuple[int, int], margin_px: int,
            scale: float) -> np.ndarray:
    """The piece upright at *scale* px/mm (float32, 0-1 for uint8), *size* plus *margin_px* all
    round; *view* may have colour channels or not."""
    w, h = size
    out_w, out_h = w + 2 * margin_px, h + 2 * margin_px
    if piece.corners is not None:
        # the rect's corners in the patch (pixel edges) to where they are seen
        lo_x, lo_y, hi_x, hi_y = margin_px - 0.5, margin_px - 0.5, margin_px + w - 0.5, margin_px + h - 0.5
        inner = np.array([[lo_x, lo_y], [hi_x, lo_y], [hi_x, hi_y], [lo_x, hi_y]], np.float32)
        m = cv2.getPerspectiveTransform(inner, np.asarray(piece.corners, np.float32))
        patch = cv2.warpPerspective(view, m, (out_w, out_h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                    borderMode=cv2.BORDER_REPLICATE)
        return np.asarray(patch, np.float32) / (255.0 if view.dtype == np.uint8 else 1.0)
    a = math.radians(piece.angle_deg)
    k = piece.px_per_mm / scale  # view px per patch px
    ux, uy = math.cos(a) * k, math.sin(a) * k
    vx, vy = -math.sin(a) * k, math.cos(a) * k
    cx, cy = piece.centre
    ox, oy = (out_w - 1) / 2, (out_h - 1) / 2
    # patch (px, py) -> view: centre + u (px - ox) + v (py - oy)
    m = np.array([[ux, vx, cx - ux * ox - vx * oy], [uy, vy, cy - uy * ox - vy * oy]])
    patch = cv2.warpAffine(view, m, (out_w, out_h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                           borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(patch, np.float32) / (255.0 if view.dtype == np.uint8 else 1.0)


@dataclass(frozen=True)
class Cut:
    """A piece cut out of the view (:func:`cut_out`) at one turn."""

    turn_deg: float
    """How far it is turned from where it was fitted (degrees)."""
    patch: np.ndarray
    visible: np.ndarray
    """float32 0/1, the patch's size: what no other piece covers."""


def compare(cuts: list[Cut], kind_refs: KindRefs, params: Params, stride: int = 1) -> list[Match]:
    """Each face's best match on a piece cut out at one or more turns (*cuts*); best first.

    In each cut, every reference is first scored where the piece was fitted (and where what
    all the kind's faces share matches best); the best turns of the faces that score best
    there are slid over the margin to their best place. A wide margin (a *stride* over 1, the
    places that far apart) ranks every reference by its best place in it instead. Each face is
    then judged on the visible part at the cut and place it correlated best at, the fronts
    that correlated best (:attr:`Params.faces_compared`) and the back."""
    weight = kind_refs.weight
    h, w = weight.shape
    if not kind_refs.refs:
        return []
    slid: dict[str, tuple[float, int, int, tuple[int, int]]] = {}  # face: score, cut, ref, place
    for c, cut in enumerate(cuts):
        for face, (top, index, at) in _slid(cut.patch, kind_refs, params, stride).items():
            if face not in slid or top > slid[face][0]:
                slid[face] = (top, c, index, at)
    fronts = sorted((f for f in slid if f != "back"), key=lambda f: -slid[f][0])[:params.faces_compared]
    matches: list[Match] = []
    fits: list[tuple[_Fit | None, Cut]] = []
    for face in fronts + (["back"] if "back" in slid else []):
        _top, c, index, (dx, dy) = slid[face]
        cut, ref = cuts[c], kind_refs.refs[index]
        seen = weight * cut.visible[dy:dy + h, dx:dx + w]
        fit = _aligned(cut.patch[dy:dy + h, dx:dx + w], ref, seen, bool(np.array_equal(seen, weight)), params)
        fits.append((fit, cut))
        score, blur = (-1.0, 0.0) if fit is None else (fit.score, fit.blur_mm)
        matches.append(Match(face, score, ref.turn_deg + cut.turn_deg, math.inf, (dx, dy), index, blur))
    order = sorted(range(len(matches)), key=lambda i: matches[i].score, reverse=True)
    best_fit, best_cut = fits[order[0]]
    if best_fit is not None:  # only the best face's residual is judged
        dx, dy = matches[order[0]].shift_px
        residual, worst = _residual(best_fit, kind_refs.scale, params)
        face_colour = kind_refs.refs[matches[order[0]].ref].colour
        seen_colour = _mean_colour(best_cut.patch[dy:dy + h, dx:dx + w], best_fit.seen)
        b, g, r = (float(v) for v in np.log(seen_colour / face_colour))
        matches[order[0]] = replace(matches[order[0]], residual=residual, tint=(b, g, r), worst_px=worst)
    matches = [matches[i] for i in order]
    if len(matches) > 1:
        lead = _lead(best_cut.patch, best_cut.visible, kind_refs, matches[0], matches[1], params)
        matches[0] = replace(matches[0], lead=lead)
    return matches


def _slid(patch: np.ndarray, kind_refs: KindRefs, params: Params,
          stride: int = 1) -> dict[str, tuple[float, int, tuple[int, int]]]:
    """For each face that scores among the best where the piece was fitted: its best
    correlation slid over *patch*'s margin (every *stride* px), the reference that gives it,
    and where (px). With a *stride* over 1 (a wide search), the faces that score best anywhere
    in the margin."""
    weight = kind_refs.weight
    h, w = weight.shape
    # every place the piece may lie at in the patch, as a row of that window's pixels
    windows = sliding_window_view(patch, (h, w, 3))[::stride, ::stride, 0]
    places_y, places_x = windows.shape[:2]
    flat = windows.reshape(places_y * places_x, h * w * 3)
    # each window's sum over the weight, per channel, and of its squares over the channels
    sums = np.stack([cv2.matchTemplate(np.ascontiguousarray(patch[:, :, c]), weight, cv2.TM_CCORR)
                     for c in range(3)], axis=-1)[::stride, ::stride].reshape(-1, 3)
    squares = cv2.matchTemplate(cv2.transform(patch * patch, np.ones((1, 3), np.float32)), weight,
                                cv2.TM_CCORR)[::stride, ::stride].ravel()
    spread = np.sqrt(np.maximum(squares - (sums * sums).sum(axis=1) / float(weight.sum()), 1e-9))
    # each reference scored where the piece was fitted, and where what all its kind's faces
    # share matches best (a disc's centre is found by its rim better than by its outline)
    if stride > 1:  # a wide search: each reference ranked by its best place
        first = np.asarray((flat @ kind_refs.table.T / spread[:, None]).max(axis=0), np.float32)
    else:
        common = int(np.argmax(flat @ kind_refs.common.ravel() / spread))
        fitted = ((patch.shape[1] - w) // 2, (patch.shape[0] - h) // 2)
        first = _scores_at(patch, [fitted, (common % places_x, common // places_x)], kind_refs)
    by_face: dict[str, list[int]] = {}
    fronts = 0
    for i in np.argsort(-first):
        face = kind_refs.refs[i].face
        if face not in by_face and face != "back":
            if fronts >= params.faces_compared:
                continue  # only the fronts that look most like the piece are compared closely
            fronts += 1
        picks = by_face.setdefault(face, [])
        if len(picks) < params.turns_compared:
            picks.append(int(i))
    chosen = [i for picks in by_face.values() for i in picks]
    scores = flat @ kind_refs.table[chosen].T / spread[:, None]
    out: dict[str, tuple[float, int, tuple[int, int]]] = {}
    for column, i in enumerate(chosen):
        at = int(np.argmax(scores[:, column]))
        face = kind_refs.refs[i].face
        if face not in out or scores[at, column] > out[face][0]:
            out[face] = (float(scores[at, column]), i, (at % places_x * stride, at // places_x * stride))
    return out


def _scores_at(patch: np.ndarray, places: list[tuple[int, int]], kind_refs: KindRefs) -> np.ndarray:
    """Every reference's best correlation at half the scale with the windows of *patch* whose
    top lefts are *places* (px)."""
    h, w = kind_refs.weight.shape
    windows = np.stack([_centred(_halved(patch[y:y + h, x:x + w]), kind_refs.rough_weight).ravel()
                        for x, y in places])
    windows /= np.maximum(np.sqrt((windows * windows).sum(axis=1)), 1e-9)[:, None]
    return np.asarray((kind_refs.rough @ windows.T).max(axis=1), np.float32)


def _halved(image: np.ndarray) -> np.ndarray:
    """*image* at half its size (at least 2 px a side), each pixel the mean of those it covers."""
    h, w = image.shape[:2]
    return np.asarray(cv2.resize(image, (max(2, w // 2), max(2, h // 2)), interpolation=cv2.INTER_AREA),
                      np.float32)


def _lead(patch: np.ndarray, visible: np.ndarray, kind_refs: KindRefs, best: Match, runner_up: Match,
          params: Params) -> float | None:
    """How much better *best*'s face matches the piece than *runner_up*'s on the part where
    the two faces differ (both at *best*'s place and turn), or None when that part is small."""
    weight = kind_refs.weight
    h, w = weight.shape
    a = kind_refs.refs[best.ref]
    twins = [r for r in kind_refs.refs if r.face == runner_up.face]
    b = min(twins, key=lambda r: abs((r.turn_deg - a.turn_deg + 180.0) % 360.0 - 180.0))
    dx, dy = best.shift_px
    seen = weight * visible[dy:dy + h, dx:dx + w]
    pair = (id(a), id(b))
    if pair not in kind_refs.apart:
        if len(kind_refs.apart) >= APART_KEPT:
            kind_refs.apart.clear()
        sigma = params.twin_blur_mm * kind_refs.scale
        kind_refs.apart[pair] = cv2.GaussianBlur(_summed(np.abs(a.image - b.image)), (0, 0), sigma)
    apart = kind_refs.apart[pair] * seen
    part = apart > params.twin_difference_min
    if part.sum() < params.twin_part_min * weight.sum():
        return None
    window = patch[dy:dy + h, dx:dx + w][part]
    step = params.blur_steps_mm.index(best.blur_mm)
    return _correlation(window, a.soft[step][part]) - _correlation(window, b.soft[step][part])


def _correlation(x: np.ndarray, y: np.ndarray) -> float:
    """The correlation of two sets of colour pixels (N x 3), each channel less its mean."""
    x = x - x.mean(axis=0)
    y = y - y.mean(axis=0)
    d = float(np.sqrt((x * x).sum() * (y * y).sum()))
    return float((x * y).sum()) / d if d > 1e-12 else 0.0


@dataclass(frozen=True)
class _Fit:
    """A face laid over the window at its best blur: the correlation, and what the residual needs."""

    score: float
    blur_mm: float
    piece: np.ndarray
    """The window less its mean, zero outside the judged part."""
    face: np.ndarray
    """The face at that blur (centred over the kind's compared part)."""
    gain: float
    """The face scaled by this is nearest the piece."""
    seen: np.ndarray
    """The part judged (the piece's shape where no other piece covers it)."""
    power: float
    """The sum of :attr:`piece` squared."""


def _aligned(window: np.ndarray, face: Reference, seen: np.ndarray, whole: bool,
             params: Params) -> _Fit | None:
    """The correlation of *window* and *face* over *seen* (*whole*: the kind's whole compared
    part), the face first blurred as much as the piece looks blurred (the one of
    :attr:`Params.blur_steps_mm` it correlates best at), so that the camera's softness is no
    difference; None where *seen* is too small or flat."""
    count = float(seen.sum())
    if 3.0 * count < 12:
        return None
    p = _centred(window, seen)
    pp = float(np.vdot(p, p))
    if pp < 1e-9:
        return None
    soft = face.soft.reshape(len(face.soft), -1)
    # *p* sums to nought over *seen*: the face's product with it needs no centring over *seen*
    pf = soft @ p.ravel()
    if whole:
        ff = face.power
    else:  # the face's spread over *seen* alone
        s = seen.ravel()
        sums = s @ face.soft.reshape(len(soft), -1, 3)
        ff = (soft * soft) @ np.repeat(s, 3) - (sums * sums).sum(axis=1) / count
    scores = np.where(ff > 1e-9, pf / np.sqrt(np.maximum(ff, 1e-9) * pp), -np.inf)
    step = int(np.argmax(scores))
    if not math.isfinite(float(scores[step])):
        return None
    return _Fit(float(scores[step]), params.blur_steps_mm[step], p, face.soft[step],
                float(pf[step] / ff[step]), seen, pp)


def _summed(image: np.ndarray) -> np.ndarray:
    """*image*'s channels summed (float32, one channel)."""
    return np.asarray(cv2.transform(np.asarray(image, np.float32), np.ones((1, 3), np.float32)), np.float32)


def _residual(fit: _Fit, scale: float, params: Params) -> tuple[float, tuple[int, int] | None]:
    """How far the worst smoothed patch of what is left of the piece, once the face (scaled and
    shifted to it) is taken away, stands out of the median patch, in units of the piece's own
    spread; and where that patch is in the window (px)."""
    seen = fit.seen
    n = 3.0 * float(seen.sum())
    face = _centred(fit.face, seen)
    spread = math.sqrt(fit.power / n * 3.0)
    left = _summed(np.abs(fit.piece - fit.gain * face)) / spread
    if params.residual_slack_mm > 0:
        # a face's edges laid a little off leave a difference along them that they explain
        shown = fit.gain * face
        steep = _summed(np.abs(cv2.Sobel(shown, cv2.CV_32F, 1, 0, ksize=3)) +
                        np.abs(cv2.Sobel(shown, cv2.CV_32F, 0, 1, ksize=3))) / 8.0
        left = np.maximum(left - params.residual_slack_mm * scale * steep / spread, 0.0)
    sigma = params.residual_patch_mm * scale
    smooth = cv2.GaussianBlur(left * seen, (0, 0), sigma)
    cover = cv2.GaussianBlur(seen, (0, 0), sigma)
    judged = cover > 0.75  # patches near the outline are judged with their inner part only
    if not judged.any():
        return math.inf, None
    level = np.where(judged, smooth / np.maximum(cover, 1e-6), -np.inf)
    # a part the face does not explain stands out of the difference's level over the piece
    # (which blur, grain and a slightly wrong turn raise all over)
    y, x = np.unravel_index(int(np.argmax(level)), level.shape)
    return float(level[y, x] - np.median(level[judged])), (int(x), int(y))
