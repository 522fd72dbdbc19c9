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

from vision.library import Library, PieceKind
from vision.reading.fit import Placement
from vision.reading.params import Params


@dataclass(frozen=True, eq=False)
class Reference:
    """One registered image of a face at the comparison scale, at one turn."""

    face: str
    """The front's name, or ``"back"``."""
    turn_deg: float
    image: np.ndarray
    """float32 BGR 0-1, the kind's size at the comparison scale."""
    soft: tuple[np.ndarray, ...]
    """:attr:`image` blurred by each of :attr:`Params.blur_steps_mm`."""
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
    common: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 3), np.float32))
    """The mean of every reference's :attr:`~Reference.centred` (what the kind's faces share
    at every turn: a coin's rim), as a unit: where it matches best is where the piece lies."""


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
    tint: tuple[float, float, float] | None = None
    """For the best face: the piece's mean colour over the face's, per channel, as logarithms
    (the light's colour, where the face is right)."""


def references(library: Library, params: Params) -> dict[str, KindRefs]:
    """Every face of *library* at the comparison scale, turned as its outline allows."""
    out: dict[str, KindRefs] = {}
    for name in library.kinds():
        kind = library.kind(name)
        scale = comparison_scale(kind, params)
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
                    soft = tuple(_blurred(turned, blur_mm * scale) for blur_mm in params.blur_steps_mm)
                    entry.refs.append(Reference(face, turn, turned, soft, centred, norm, colour))
        if entry.refs:
            entry.table = np.stack([r.centred.ravel() / r.norm for r in entry.refs]).astype(np.float32)
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


def compare(patch: np.ndarray, visible: np.ndarray, kind_refs: KindRefs, params: Params) -> list[Match]:
    """Each face's best match on *patch* (see :func:`cut_out`), *visible* (float32 0/1, the
    patch's size) marking what no other piece covers; best first.

    Every reference is first scored where the piece was fitted (and where what all the kind's
    faces share matches best); the best turns of the faces that score best there are then slid
    over the margin to their best place, and judged there on the visible part."""
    weight = kind_refs.weight
    h, w = weight.shape
    if not kind_refs.refs:
        return []
    count = float(weight.sum())
    variance = sum(cv2.matchTemplate(channel * channel, weight, cv2.TM_CCORR)
                   - cv2.matchTemplate(channel, weight, cv2.TM_CCORR) ** 2 / count
                   for channel in cv2.split(patch))
    spread = np.sqrt(np.maximum(variance, 1e-9))
    # each reference scored where the piece was fitted, and where what all its kind's faces
    # share matches best (a disc's centre is found by its rim better than by its outline)
    _, _, _, common_at = cv2.minMaxLoc(cv2.matchTemplate(patch, kind_refs.common, cv2.TM_CCORR) / spread)
    first = np.full(len(kind_refs.refs), -np.inf, np.float32)
    for at_x, at_y in {((patch.shape[1] - w) // 2, (patch.shape[0] - h) // 2), common_at}:
        here = _centred(patch[at_y:at_y + h, at_x:at_x + w], weight).ravel()
        first = np.maximum(first, kind_refs.table @ (here / max(float(np.sqrt(here @ here)), 1e-9)))
    by_face: dict[str, list[int]] = {}
    for i in np.argsort(-first):
        face = kind_refs.refs[i].face
        fronts = sum(f != "back" for f in by_face)
        if face not in by_face and face != "back" and fronts >= params.faces_compared:
            continue  # only the fronts that look most like the piece are compared closely
        picks = by_face.setdefault(face, [])
        if len(picks) < params.turns_compared:
            picks.append(int(i))
    matches: list[Match] = []
    fits: list[_Fit | None] = []
    for face, picks in by_face.items():
        best: tuple[float, int, tuple[int, int]] | None = None
        for i in picks:
            ref = kind_refs.refs[i]
            ncc = cv2.matchTemplate(patch, ref.centred, cv2.TM_CCORR) / (ref.norm * spread)
            _, top, _, at = cv2.minMaxLoc(ncc)
            if best is None or top > best[0]:
                best = (float(top), i, (int(at[0]), int(at[1])))
        assert best is not None
        _top, index, (dx, dy) = best
        ref = kind_refs.refs[index]
        seen = weight * visible[dy:dy + h, dx:dx + w]
        fit = _aligned(patch[dy:dy + h, dx:dx + w], ref, seen, params)
        fits.append(fit)
        score, blur = (-1.0, 0.0) if fit is None else (fit.score, fit.blur_mm)
        matches.append(Match(face, score, ref.turn_deg, math.inf, (dx, dy), index, blur))
    order = sorted(range(len(matches)), key=lambda i: matches[i].score, reverse=True)
    best_fit = fits[order[0]]
    if best_fit is not None:  # only the best face's residual is judged
        dx, dy = matches[order[0]].shift_px
        residual = _residual(best_fit, kind_refs.scale, params)
        face_colour = kind_refs.refs[matches[order[0]].ref].colour
        seen_colour = _mean_colour(patch[dy:dy + h, dx:dx + w], best_fit.seen)
        b, g, r = (float(v) for v in np.log(seen_colour / face_colour))
        matches[order[0]] = replace(matches[order[0]], residual=residual, tint=(b, g, r))
    matches = [matches[i] for i in order]
    if len(matches) > 1:
        lead = _lead(patch, visible, kind_refs, matches[0], matches[1], params)
        matches[0] = replace(matches[0], lead=lead)
    return matches


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
    sigma = params.twin_blur_mm * kind_refs.scale
    apart = cv2.GaussianBlur(np.abs(a.image - b.image).sum(axis=2), (0, 0), sigma) * seen
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
    """The face likewise."""
    gain: float
    """The face scaled by this is nearest the piece."""
    seen: np.ndarray
    """The part judged (the piece's shape where no other piece covers it)."""
    power: float
    """The sum of :attr:`piece` squared."""


def _aligned(window: np.ndarray, face: Reference, seen: np.ndarray, params: Params) -> _Fit | None:
    """The correlation of *window* and *face* over *seen*, the face first blurred as much as the
    piece looks blurred (the one of :attr:`Params.blur_steps_mm` it correlates best at), so that
    the camera's softness is no difference; None where *seen* is too small or flat."""
    if 3.0 * float(seen.sum()) < 12:
        return None
    p = _centred(window, seen)
    pp = float((p * p).sum())
    if pp < 1e-9:
        return None
    best: _Fit | None = None
    for blur_mm, soft in zip(params.blur_steps_mm, face.soft, strict=True):
        f = _centred(soft, seen)
        pf, ff = float((p * f).sum()), float((f * f).sum())
        if ff < 1e-9:
            continue
        score = pf / math.sqrt(ff * pp)
        if best is None or score > best.score:
            best = _Fit(score, blur_mm, p, f, pf / ff, seen, pp)
    return best


def _residual(fit: _Fit, scale: float, params: Params) -> float:
    """How far the worst smoothed patch of what is left of the piece, once the face (scaled and
    shifted to it) is taken away, stands out of the median patch, in units of the piece's own
    spread."""
    seen = fit.seen
    n = 3.0 * float(seen.sum())
    left = np.abs(fit.piece - fit.gain * fit.face).sum(axis=2) / math.sqrt(fit.power / n * 3.0)
    sigma = params.residual_patch_mm * scale
    smooth = cv2.GaussianBlur(left * seen, (0, 0), sigma)
    cover = cv2.GaussianBlur(seen, (0, 0), sigma)
    judged = cover > 0.75  # patches near the outline are judged with their inner part only
    if not judged.any():
        return math.inf
    patches = smooth[judged] / cover[judged]
    # a part the face does not explain stands out of the difference's level over the piece
    # (which blur, grain and a slightly wrong turn raise all over)
    return float(patches.max() - np.median(patches))
