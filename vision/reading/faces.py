"""The registered faces as the comparison sees them, and a face laid over a piece.

Each face's images are shrunk to the kind's comparison scale and turned as its outline allows;
each is kept less its best plane over the compared part (light falling off across a piece does
not count), and blurred by each of :attr:`~vision.reading.params.Params.blur_steps_mm`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import NamedTuple

import cv2
import numpy as np

from vision.library import Library, PieceKind
from vision.reading.params import Params

APART_KEPT = 512
"""At most this many pairs of references' differences are kept per kind (12 to 24 MB at a card's size): a
long session meets ever more pairs."""


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
    channels' best planes over the compared part (:func:`centred`) and zero outside it."""
    power: np.ndarray
    """The sum of each of :attr:`soft`'s squares."""
    centred: np.ndarray
    """The image less each channel's best plane, zero outside the compared part."""
    norm: float
    """The length of :attr:`centred` as a vector."""
    colour: np.ndarray
    """The face's mean colour as registered (BGR 0-1)."""
    source: int = 0
    """Which of its kind's registered images it was made from (the same at every turn)."""


@dataclass
class KindRefs:
    kind: PieceKind
    scale: float
    """The comparison scale of this kind (px/mm)."""
    weight: np.ndarray
    """float32 0/1: the compared part of the piece (its shape less its rim)."""
    box: tuple[int, int, int, int] | None = None
    """Where :attr:`weight` is a box of ones: its top, bottom, left and right edges (px, the
    bottom and right past it); None for any other weight."""
    refs: list[Reference] = field(default_factory=list)
    table: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    """Each reference's :attr:`~Reference.centred` as a unit row: all scored at once."""
    rough_weight: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    """:attr:`weight` at half the scale, where it is whole (or, for a tiny kind, anywhere)."""
    rough: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    """Each reference at half the scale, less its channels' best planes over
    :attr:`rough_weight`, as a unit row: the first look at a piece ranks the references by these."""
    common: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 3), np.float32))
    """The mean of every reference's :attr:`~Reference.centred` (what the kind's faces share
    at every turn: a coin's rim), as a unit: where it matches best is where the piece lies."""
    alike: dict[tuple[int, str], int] = field(default_factory=dict)
    """For a reference (by its index) and another face: the index of that face's reference (of
    any image and turn) that looks most like it; worked out when first needed."""
    apart: dict[tuple[int, int], tuple[np.ndarray, ...]] = field(default_factory=dict)
    """How two references (by their ids) differ, blurred to symbol size, as they are and (where
    their mean colours differ) one brought to the other's: worked out when first
    needed, for a piece's best reference and the runner-up's most like it (at most
    :data:`APART_KEPT` of them)."""


def references(library: Library, params: Params, finest: float | None = None) -> dict[str, KindRefs]:
    """Every face of *library* at the comparison scale (no finer than *finest* px/mm: the
    view's own), turned as its outline allows."""
    out: dict[str, KindRefs] = {}
    for name in library.kinds():
        kind = library.kind(name)
        scale = min(comparison_scale(kind, params), math.inf if finest is None else finest)
        w, h = (max(4, round(s * scale)) for s in kind.size_mm)
        weight = _weight(kind, (w, h), params.edge_trim_mm * scale)
        entry = KindRefs(kind, scale, weight, _box(weight))
        images = [(front, img) for front, imgs in library.fronts(name).items() for img in imgs]
        back = library.back(name)
        if back is not None:
            images.append(("back", back))
        for source, (face, img) in enumerate(images):
            small = np.asarray(cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA), np.float32) / 255.0
            colour = mean_colour(small, entry.weight)
            for turn in _turns(kind, params):
                ref = _reference(face, turn, _turned(small, turn), colour, entry, params, source)
                if ref.norm > 1e-6:
                    entry.refs.append(ref)
        if entry.refs:
            entry.table = np.stack([r.centred.ravel() / r.norm for r in entry.refs]).astype(np.float32)
            shrunk = halved(entry.weight)
            entry.rough_weight = np.asarray(shrunk > (0.99 if (shrunk > 0.99).any() else 0.0), np.float32)
            rough = np.stack([centred(halved(r.image), entry.rough_weight).ravel() for r in entry.refs])
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


def mean_colour(image: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """*image*'s mean colour over *weight* (per channel, at least a trace: its logarithm is taken)."""
    return np.asarray(np.maximum(_mean(image, weight), np.float32(1e-3)), np.float32)


def blurred(image: np.ndarray, sigma_px: float) -> np.ndarray:
    """*image* blurred by *sigma_px* (Gaussian; as it is where that is nought)."""
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


def centred(image: np.ndarray, weight: np.ndarray, plane: bool = True) -> np.ndarray:
    """*image* less each channel's best plane over *weight* (its mean, and how it grows left to
    right and top to bottom: light that falls off across the piece; or its mean alone where not
    *plane*), times *weight*."""
    flat = np.ascontiguousarray(image, np.float32).reshape(-1, image.shape[2])
    fit = _plane_fit(weight.shape, np.ascontiguousarray(weight, np.float32).tobytes())
    if plane:
        level = fit.basis @ (fit.inverse @ (fit.weighted.T @ flat))
    else:
        level = np.outer(fit.basis[:, 0], _mean(image, weight))
    # the weight repeated per channel: numpy's broadcasting over a last axis of 3 is slow
    return np.asarray((flat - level).ravel() * fit.repeated, np.float32).reshape(image.shape)


@functools.lru_cache(maxsize=16)
def _basis(shape: tuple[int, int]) -> np.ndarray:
    """A plane's basis (1, x, y) at each pixel of *shape*, a row each."""
    h, w = shape
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    return np.stack([np.ones(h * w, np.float32), (xs.ravel() - (w - 1) / 2) / max(w, 1),
                     (ys.ravel() - (h - 1) / 2) / max(h, 1)], axis=1)


class _PlaneFit(NamedTuple):
    basis: np.ndarray
    """The plane's basis at each pixel (:func:`_basis`)."""
    weighted: np.ndarray
    """The basis times the weight."""
    inverse: np.ndarray
    """The inverse of the basis times :attr:`weighted` (the least squares' normal matrix; its
    pseudo-inverse for a weight too small to fix a plane)."""
    repeated: np.ndarray
    """The weight, each pixel's three times (one per colour channel)."""


@functools.lru_cache(maxsize=64)
def _plane_fit(shape: tuple[int, int], weight: bytes) -> _PlaneFit:
    """What fits a plane over a weight of *shape* (its float32 bytes). A piece's whole part
    recurs: one of its visible parts seldom does."""
    basis = _basis(shape)
    w = np.frombuffer(weight, np.float32)
    weighted = basis * w[:, None]
    return _PlaneFit(basis, weighted, np.linalg.pinv(basis.T @ weighted).astype(np.float32), np.repeat(w, 3))


def power_over(ref: Reference, seen: np.ndarray) -> np.ndarray:
    """Each of *ref*'s :attr:`~Reference.soft` layers' sum of squares over *seen* alone, less
    its best plane there."""
    fit = _plane_fit(seen.shape, np.ascontiguousarray(seen, np.float32).tobytes())
    layers = ref.soft.reshape(len(ref.soft), -1, 3)
    planes = fit.weighted.T @ layers  # each layer's products with the plane's basis
    flat = ref.soft.reshape(len(ref.soft), -1)
    return np.asarray((flat * flat) @ fit.repeated - (fit.inverse @ planes * planes).sum(axis=(1, 2)))


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


def _box(weight: np.ndarray) -> tuple[int, int, int, int] | None:
    """Where *weight* is a box of ones (and nought round it): its top, bottom, left and right
    edges (the bottom and right past it); else None."""
    rows, cols = np.flatnonzero(weight.any(axis=1)), np.flatnonzero(weight.any(axis=0))
    if not len(rows):
        return None
    top, bottom, left, right = int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1
    return (top, bottom, left, right) if bool((weight[top:bottom, left:right] == 1).all()) else None


def halved(image: np.ndarray) -> np.ndarray:
    """*image* at half its size (at least 2 px a side), each pixel the mean of those it covers."""
    h, w = image.shape[:2]
    return np.asarray(cv2.resize(image, (max(2, w // 2), max(2, h // 2)), interpolation=cv2.INTER_AREA),
                      np.float32)


def summed(image: np.ndarray) -> np.ndarray:
    """*image*'s channels summed (float32, one channel)."""
    return np.asarray(cv2.transform(np.asarray(image, np.float32), np.ones((1, 3), np.float32)), np.float32)


def laid(window: np.ndarray, ref: Reference, seen: np.ndarray, kind_refs: KindRefs,
         params: Params) -> Reference | None:
    """*ref* laid over *window* (:func:`lay`), or None where that fails."""
    warp = lay(window, ref, seen, kind_refs, params)
    return None if warp is None else moved(ref, warp, kind_refs, params)


def lay(window: np.ndarray, ref: Reference, seen: np.ndarray, kind_refs: KindRefs,
        params: Params) -> np.ndarray | None:
    """How *ref* is moved, turned, and for a rect scaled and sheared, a little to lie over
    *window* where it correlates best on *seen* (OpenCV's enhanced correlation coefficient, on
    both in grey less its plane there: light falling off across the piece is no print to
    align), within :attr:`Params.lay_scale_max`, :attr:`Params.lay_turn_max_deg` and
    :attr:`Params.shift_mm`: an affine map from the window to the face (2x3); None where that
    fails."""
    warp = np.eye(2, 3, dtype=np.float32)
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, params.lay_iterations, 1e-3)
    grey = [summed(centred(image, seen)) for image in (window, ref.image)]
    mask = np.asarray(seen > 0, np.uint8)
    # a disc's print is as large as its outline: it is only moved and turned
    motion = cv2.MOTION_EUCLIDEAN if kind_refs.kind.shape == "disc" else cv2.MOTION_AFFINE
    try:
        for blur_px in params.lay_blur_px:  # coarse to fine
            shown = [cv2.GaussianBlur(g, (0, 0), blur_px) for g in grey]
            _cc, found = cv2.findTransformECC(shown[0], shown[1], warp, motion, criteria, mask, 1)
            warp = np.asarray(found, np.float32)
    except cv2.error:  # it did not converge
        return None
    h, w = seen.shape
    stretch = np.linalg.svd(warp[:, :2], compute_uv=False)
    centre = np.array([(w - 1) / 2, (h - 1) / 2])
    shift = warp[:, :2] @ centre + warp[:, 2] - centre  # how far the face's centre is moved
    turn = math.degrees(math.atan2(warp[1, 0] - warp[0, 1], warp[0, 0] + warp[1, 1]))
    if (np.abs(np.log(stretch)).max() > math.log1p(params.lay_scale_max)
            or abs(turn) > params.lay_turn_max_deg
            or float(np.hypot(*shift)) > params.shift_mm * kind_refs.scale + 1.0):
        return None
    return warp


def moved(ref: Reference, warp: np.ndarray, kind_refs: KindRefs, params: Params) -> Reference:
    """*ref* moved by *warp* (:func:`lay`)."""
    h, w = kind_refs.weight.shape
    image = np.asarray(cv2.warpAffine(ref.image, warp, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                      borderMode=cv2.BORDER_REPLICATE), np.float32)
    return _reference(ref.face, ref.turn_deg, image, ref.colour, kind_refs, params, ref.source)


def _reference(face: str, turn_deg: float, image: np.ndarray, colour: np.ndarray, kind_refs: KindRefs,
               params: Params, source: int) -> Reference:
    """*image* (the kind's size at its comparison scale) as a :class:`Reference`."""
    weight = kind_refs.weight
    level = centred(image, weight)
    soft = np.stack([level if blur_mm <= 0 else centred(blurred(image, blur_mm * kind_refs.scale), weight)
                     for blur_mm in params.blur_steps_mm])
    flat = soft.reshape(len(soft), -1)
    return Reference(face, turn_deg, image, soft, (flat * flat).sum(axis=1), level,
                     float(np.sqrt((level * level).sum())), colour, source)
