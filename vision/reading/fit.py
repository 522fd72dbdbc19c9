"""Stage 2: each outline fitted to a registered kind's shape and size.

An outline that is one piece is fitted directly (its smallest enclosing rectangle or circle;
without a known scale, the view may be at a slant, so a rect's four sides are fitted each);
one that fits no kind is tried again without its thin parts (a streak of grain touching it).
An outline of overlapping pieces (a heap) is explained piece by piece: each kind's silhouette,
turned along the directions the heap's straight sides run in, is laid where it lies most
inside the heap while covering what no piece laid before explains. What is left over counts
as something unknown.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.library import PieceKind
from vision.reading.params import Params


@dataclass(frozen=True)
class Placement:
    """A piece of *kind* laid in the view: its centre (view px), the direction of its top edge
    (degrees clockwise from +x, up to the turns its outline looks the same under) and scale."""

    kind: PieceKind
    centre: tuple[float, float]
    angle_deg: float
    px_per_mm: float
    alone: bool
    """Whether the outline was this piece alone (not laid in a heap)."""
    corners: np.ndarray | None = None
    """A rect seen at a slant: its four corners in view px (as :meth:`outline` orders them)."""
    heap: Leftover | None = None
    """The heap it was laid in (its centre and outline), or None."""

    def outline(self, points: int = 32) -> np.ndarray:
        """The piece's outline in view px: a rect's four corners (top-left first, clockwise),
        a disc's *points*."""
        if self.corners is not None:
            return self.corners
        cx, cy = self.centre
        w, h = (s * self.px_per_mm for s in self.kind.size_mm)
        a = math.radians(self.angle_deg)
        ux, uy = math.cos(a), math.sin(a)
        vx, vy = -uy, ux
        if self.kind.shape == "disc":
            t = np.linspace(0, 2 * math.pi, points, endpoint=False)
            return np.column_stack([cx + w / 2 * np.cos(t), cy + w / 2 * np.sin(t)])
        corners = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
        return np.array([[cx + x * ux + y * vx, cy + x * uy + y * vy] for x, y in corners])

    def silhouette(self, shape: tuple[int, int]) -> np.ndarray:
        """A 0/1 uint8 mask of *shape* (the view's) covering the piece."""
        mask = np.zeros(shape, np.uint8)
        if self.kind.shape == "disc":
            r = self.kind.size_mm[0] * self.px_per_mm / 2
            cv2.circle(mask, (round(self.centre[0] * 16), round(self.centre[1] * 16)), round(r * 16), 1,
                       cv2.FILLED, cv2.LINE_8, 4)
        else:
            cv2.fillConvexPoly(mask, np.round(self.outline() * 16).astype(np.int32), 1, cv2.LINE_8, 4)
        return mask


@dataclass(frozen=True)
class Leftover:
    """Something in the view that no kind explains: its centre and outline (view px)."""

    centre: tuple[float, float]
    outline: np.ndarray
    heap: Leftover | None = None
    """The heap it is left of, or None."""
    small: bool = False
    """Whether it is too small to be reported as something unknown (:attr:`Params.part_min`)."""


def fit_outlines(mask: np.ndarray, kinds: list[PieceKind], px_per_mm: float | None,
                 params: Params) -> tuple[list[Placement], list[Leftover]]:
    """Every piece in *mask* (0/1 uint8, not table) and what no kind explains.

    Without a scale, each outline that fits a kind's shape is that piece at its own size; the
    view's scale is then the median of those sizes, and the outlines that fit at a size far from
    it (:attr:`Params.free_size_spread`), or fit nothing, are fitted again at that scale (a
    speck of a card's shape is no card; a card merged with a light patch of the table is a card
    and a patch)."""
    largest_mm = max(max(k.size_mm) for k in kinds) * (1 + params.size_tolerance)
    contours = _outlines(mask, None if px_per_mm is None else largest_mm * px_per_mm)
    if px_per_mm is not None:
        return _fit_at_scale(contours, mask.shape, kinds, px_per_mm, params)
    fitted: list[tuple[np.ndarray, Placement]] = []
    again: list[np.ndarray] = []
    for contour in contours:
        single = fit_single(contour, kinds, None, params)
        if single is not None:
            fitted.append((contour, single))
        elif cv2.contourArea(contour) >= 0.002 * mask.size:
            again.append(contour)
    if not fitted:
        return [], [_leftover(c) for c in again]
    scale = float(np.median([p.px_per_mm for _c, p in fitted]))
    kept = [p for _c, p in fitted if abs(math.log(p.px_per_mm / scale)) <= params.free_size_spread]
    off = [c for c, p in fitted if abs(math.log(p.px_per_mm / scale)) > params.free_size_spread]
    laid, leftovers = _fit_at_scale(again + off, mask.shape, kinds, scale, params)
    return kept + laid, leftovers


def _outlines(mask: np.ndarray, wider_px: float | None) -> list[np.ndarray]:
    """The outline of each part of *mask*, and, where the scale is known, of each part in a hole
    wider than *wider_px* (any piece: such a hole is no piece's print but table, that a board's
    printed frame or a mat's edge runs round)."""
    found, hierarchy = cv2.findContours(mask, cv2.RETR_TREE, cv2.CHAIN_APPROX_NONE)
    if hierarchy is None:
        return []
    links = hierarchy[0]  # per contour: next, previous, first child, parent

    def inside(parent: int) -> list[int]:
        """The contours one level inside *parent*: a part's holes, or the parts in a hole."""
        out, child = [], int(links[parent][2])
        while child >= 0:
            out.append(child)
            child = int(links[child][0])
        return out

    kept: list[int] = []
    todo = [i for i in range(len(found)) if links[i][3] < 0]  # the outermost parts
    while todo:
        outer = todo.pop()
        kept.append(outer)
        if wider_px is not None:
            todo += [part for hole in inside(outer) if min(cv2.minAreaRect(found[hole])[1]) > wider_px
                     for part in inside(hole)]
    return [found[i] for i in sorted(kept)]


def _fit_at_scale(contours: list[np.ndarray], shape: tuple[int, int], kinds: list[PieceKind],
                  px_per_mm: float, params: Params) -> tuple[list[Placement], list[Leftover]]:
    """The pieces in *contours* (outlines in a view of *shape*) at a known scale, and what no
    kind explains."""
    placements: list[Placement] = []
    leftovers: list[Leftover] = []
    smallest = min(k.area_mm2 for k in kinds)
    reach_mm = max(math.hypot(*k.size_mm) for k in kinds)
    narrowest = min(min(k.size_mm) for k in kinds) * px_per_mm
    heap_px = params.heap_extent_max * reach_mm * px_per_mm  # no heap of pieces is longer
    band = (params.thin_share * narrowest, reach_mm * px_per_mm * (1 + params.size_tolerance))
    for contour in _thin_parts_off(contours, heap_px, band[0]):
        area = cv2.contourArea(contour)
        if area < params.leftover_min * smallest * px_per_mm ** 2:
            if area >= params.part_min * smallest * px_per_mm ** 2:
                leftovers.append(replace(_leftover(contour), small=True))
            continue
        single = fit_single(contour, kinds, px_per_mm, params)
        if single is not None:
            placements.append(single)
            continue
        # a piece with a tail of the table's grain or shadow on it: the tail cut off
        parts = _opened(contour, params.tail_share * narrowest)
        fitted = [fit_single(part, kinds, px_per_mm, params) for part in parts]
        if fitted and all(f is not None for f in fitted):
            placements += [f for f in fitted if f is not None]
            continue
        if max(cv2.minAreaRect(contour)[1]) > heap_px:
            continue  # no heap of pieces is that long: a mat's edge, a board, a shadow
        if _is_band(contour, *band):
            continue
        laid, rest = fit_heap(contour, shape, kinds, px_per_mm, params)
        placements += laid
        leftovers += [left for left in rest if not _is_band(left.outline, *band)]
    return placements, leftovers


def _is_band(outline: np.ndarray, thick_px: float, long_px: float) -> bool:
    """Whether *outline* is longer than *long_px* (any piece) and nowhere *thick_px* thick (the
    narrowest piece is): the table's own, a band along a mat's edge or a streak of grain, for
    it is no piece, no part of one and no heap of them."""
    points = np.asarray(outline, np.float32).reshape(-1, 1, 2)
    if max(cv2.minAreaRect(points)[1]) <= long_px:
        return False
    region, _corner = _filled(points, 1)
    return 2.0 * float(cv2.distanceTransform(region, cv2.DIST_L2, 5).max()) < thick_px


def _filled(outline: np.ndarray, pad: int) -> tuple[np.ndarray, np.ndarray]:
    """*outline* (view px) filled in, as a 0/1 uint8 image of its bounding box and *pad* px
    round it, and where that image's top left lies in the view (px)."""
    points = np.round(np.asarray(outline, np.float64).reshape(-1, 1, 2)).astype(np.int32)
    x, y, w, h = cv2.boundingRect(points)
    corner = np.array([x - pad, y - pad], np.int32)
    region = np.zeros((h + 2 * pad, w + 2 * pad), np.uint8)
    cv2.drawContours(region, [points - corner], -1, 1, cv2.FILLED)
    return region, corner


def _thin_parts_off(contours: list[np.ndarray], heap_px: float, thick_px: float) -> list[np.ndarray]:
    """*contours*, each one longer than any heap cut into what is left of it once every part
    thinner than the narrowest piece is taken off (a band along a mat's edge, which pieces
    laid against it would otherwise join)."""
    out: list[np.ndarray] = []
    for contour in contours:
        out += [contour] if max(cv2.minAreaRect(contour)[1]) <= heap_px else _opened(contour, thick_px)
    return out


def _opened(contour: np.ndarray, size_px: float) -> list[np.ndarray]:
    """The outlines left of *contour* once everything thinner than *size_px* is taken off."""
    size = max(3, round(size_px) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    region, corner = _filled(contour, size)
    opened = np.asarray(cv2.morphologyEx(region, cv2.MORPH_OPEN, kernel), np.uint8)
    parts, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return [part + corner for part in parts]


def fit_single(contour: np.ndarray, kinds: list[PieceKind], px_per_mm: float | None,
               params: Params) -> Placement | None:
    """The one piece *contour* outlines, of the kind it fits best, or None."""
    area = cv2.contourArea(contour)
    best: tuple[float, Placement] | None = None
    (rx, ry), (rw, rh), rangle = cv2.minAreaRect(contour)
    (cx, cy), radius = cv2.minEnclosingCircle(contour)
    for kind in kinds:
        if kind.shape == "disc":
            d = kind.size_mm[0]
            fill = area / (math.pi * radius * radius) if radius > 0 else 0.0
            scale = 2 * radius / d if px_per_mm is None else px_per_mm
            size_error = abs(2 * radius / (d * scale) - 1.0)
            round_enough = min(rw, rh) / max(rw, rh, 1e-6) >= 1.0 - params.size_tolerance
            # with a scale, a round outline a little smaller than the disc is its middle: its
            # rim is the table's colour (copper on wood); the disc is laid at its own size
            inner = (px_per_mm is not None and params.disc_inner_min <= 2 * radius / (d * scale) < 1.0
                     and fill >= params.disc_inner_fill_min)
            whole = fill >= params.fill_min and size_error <= params.size_tolerance
            if not round_enough or not (inner or whole):
                continue
            if size_error > params.size_tolerance:
                size_error = params.size_tolerance  # any fit at its own size comes first
            candidate = Placement(kind, (cx, cy), 0.0, scale, True)
        else:
            w, h = kind.size_mm
            fill = area / (rw * rh) if rw * rh > 0 else 0.0
            # the side minAreaRect calls its width may be the kind's width or its height
            across = rangle if (rw >= rh) == (w >= h) else rangle + 90.0
            long_px, short_px = max(rw, rh), min(rw, rh)
            long_mm, short_mm = max(w, h), min(w, h)
            scale = math.sqrt(rw * rh / (w * h)) if px_per_mm is None else px_per_mm
            size_error = max(abs(long_px / (long_mm * scale) - 1.0), abs(short_px / (short_mm * scale) - 1.0))
            if fill < params.fill_min or size_error > params.size_tolerance:
                continue
            candidate = Placement(kind, (rx, ry), across % 360.0, scale, True)
            if px_per_mm is None:
                candidate = _at_a_slant(candidate, contour)
        if best is None or size_error < best[0]:
            best = (size_error, candidate)
    return None if best is None else best[1]


def _at_a_slant(piece: Placement, contour: np.ndarray) -> Placement:
    """*piece* with the corners of *contour*'s four sides (each a line fitted to its middle
    part, so rounded corners do not pull it), or as it was where the outline has no four."""
    hull = cv2.convexHull(contour)
    perimeter = cv2.arcLength(hull, True)
    quad = None
    for share in (0.02, 0.03, 0.05, 0.08):
        approx = cv2.approxPolyDP(hull, share * perimeter, True).reshape(-1, 2).astype(np.float64)
        if len(approx) == 4:
            quad = approx
            break
    if quad is None:
        return piece
    points = contour.reshape(-1, 2).astype(np.float64)
    lines = []
    for a, b in zip(quad, np.roll(quad, -1, axis=0), strict=True):
        side = b - a
        length = float(np.hypot(*side))
        along = (points - a) @ side / (length * length)
        rel = points - a
        off = np.abs(side[0] * rel[:, 1] - side[1] * rel[:, 0]) / length
        near = points[(along > 0.15) & (along < 0.85) & (off < 0.02 * perimeter)]
        if len(near) < 5:
            return piece
        vx, vy, x0, y0 = cv2.fitLine(near.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)))
    corners = []
    for (p, u), (q, v) in zip(lines, lines[1:] + lines[:1], strict=True):
        det = u[0] * -v[1] - u[1] * -v[0]
        if abs(det) < 1e-6:
            return piece
        t = ((q - p)[0] * -v[1] - (q - p)[1] * -v[0]) / det
        corners.append(p + t * u)
    found = np.array(corners)
    if float(np.abs(found - quad[[1, 2, 3, 0]]).max()) > 0.1 * perimeter:
        return piece
    # each of the piece's own corners takes the nearest one found
    order = [int(np.argmin(np.hypot(*(found - c).T))) for c in piece.outline()]
    if len(set(order)) != 4:
        return piece
    ordered = found[order]
    centre = _crossing(ordered[0], ordered[2], ordered[1], ordered[3])
    return Placement(piece.kind, centre or piece.centre, piece.angle_deg, piece.px_per_mm, True, ordered)


def _crossing(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> tuple[float, float] | None:
    """Where the lines a-b and c-d cross."""
    u, v = b - a, d - c
    det = u[0] * -v[1] - u[1] * -v[0]
    if abs(det) < 1e-9:
        return None
    t = ((c - a)[0] * -v[1] - (c - a)[1] * -v[0]) / det
    x, y = a + t * u
    return float(x), float(y)


def fit_heap(contour: np.ndarray, shape: tuple[int, int], kinds: list[PieceKind], px_per_mm: float,
             params: Params) -> tuple[list[Placement], list[Leftover]]:
    """The pieces that together make up *contour*'s outline (see the module's docstring)."""
    whole = _leftover(contour)
    pad = int(math.ceil(max(max(k.size_mm) for k in kinds) * px_per_mm / 2)) + 2
    region, corner = _filled(contour, pad)
    left, top = (int(v) for v in corner)
    # pieces are laid at a coarser scale: the comparison refines each one's place and turn
    f = min(1.0, params.heap_px_per_mm / px_per_mm)
    small = cv2.resize(region.astype(np.float32), None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    heap = (small >= 0.5).astype(np.float32)
    coarse = px_per_mm * f
    area = float(heap.sum())
    # outside the heap counts against a silhouette, so a piece is not laid over the table
    inside_map = heap * 2.0 - 1.0
    # where the heap's outline runs: a piece lies where its own outline follows it
    ring = np.ones((3, 3), np.uint8)
    outline = cv2.morphologyEx(heap.astype(np.uint8), cv2.MORPH_GRADIENT, ring)
    boundary = cv2.dilate(outline, ring).astype(np.float32)
    sides = _side_directions(contour, params)
    tries = [(kind, angle, _kernel(kind, angle, coarse)) for kind in kinds
             if kind.area_mm2 * coarse ** 2 <= area * 1.15 for angle in _turns(kind, sides, params)]
    edges = [k - cv2.erode(k, ring) for _, _, k in tries]
    correlate = _Correlation(heap.shape, [k for _, _, k in tries] + edges)
    n = len(tries)
    insides = [(inside / k.sum(), along / max(float(edge.sum()), 1.0))
               for (_, _, k), edge, inside, along in zip(tries, edges, correlate(inside_map, range(n)),
                                                         correlate(boundary, range(n, 2 * n)), strict=True)]
    # only the turns that fit inside the heap somewhere are tried for each piece
    keep = [i for i, (inside, _f) in enumerate(insides) if (inside >= 2 * params.heap_inside_min - 1.0).any()]
    tries, insides = [tries[i] for i in keep], [insides[i] for i in keep]
    explained = np.zeros_like(heap)
    laid: list[Placement] = []
    while tries:
        best: tuple[float, float, int, tuple[int, int]] | None = None
        if laid:
            covers = correlate(heap * (1.0 - explained), keep)
        else:
            # nothing explained yet: a piece covers the part of it inside the heap, which its
            # inside figure counts (wherever it lies mostly in the heap, it lies in the region)
            covers = [k.sum() * (inside + 1.0) / 2.0
                      for (_, _, k), (inside, _f) in zip(tries, insides, strict=True)]
        for i, ((_kind, _angle, k), covered) in enumerate(zip(tries, covers, strict=True)):
            gain = covered / k.sum()
            inside, follows = insides[i]
            ok = (inside >= 2 * params.heap_inside_min - 1.0) & (gain >= params.heap_gain_min)
            if not ok.any():
                continue
            # the most newly explained area first (a tile before the coins inside its outline),
            # and of the places inside the heap, where the piece's outline follows the heap's
            score = np.where(ok, k.sum() * (inside + gain + follows), -np.inf)
            at = np.unravel_index(int(np.argmax(score)), score.shape)
            if best is None or score[at] > best[0]:
                best = (float(score[at]), float(gain[at]), i, (int(at[1]), int(at[0])))
        if best is None:
            break
        kind, angle, _k = tries[best[2]]
        cx, cy = (best[3][0] + 0.5) / f - 0.5, (best[3][1] + 0.5) / f - 0.5
        laid.append(Placement(kind, (cx + left, cy + top), angle, px_per_mm, False, heap=whole))
        local = Placement(kind, (float(best[3][0]), float(best[3][1])), angle, coarse, False)
        explained = np.maximum(explained, local.silhouette(heap.shape).astype(np.float32))
    taken = cv2.resize(explained, (region.shape[1], region.shape[0]), interpolation=cv2.INTER_NEAREST)
    rest = (region * (taken < 0.5)).astype(np.uint8)
    rest = np.asarray(cv2.morphologyEx(rest, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8)), np.uint8)
    leftovers = []
    smallest = min(k.area_mm2 for k in kinds) * px_per_mm ** 2
    for c in cv2.findContours(rest, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]:
        if cv2.contourArea(c) >= params.leftover_min * smallest:
            leftovers.append(replace(_leftover(c + [left, top]), heap=whole))
    return laid, leftovers


class _Correlation:
    """Correlates images of one size with each of a set of kernels (odd-sized, centred), as
    ``cv2.filter2D`` with a zero border does, through their Fourier transforms worked out once."""

    def __init__(self, shape: tuple[int, int], kernels: list[np.ndarray]) -> None:
        h, w = shape
        reach = max((k.shape[0] for k in kernels), default=1) // 2
        self.shape = shape
        # room for the kernel, and for its reach past the image's far side: nothing wraps round
        self.size = (cv2.getOptimalDFTSize(max(h + reach, 2 * reach + 1)),
                     cv2.getOptimalDFTSize(max(w + reach, 2 * reach + 1)))
        self.spectra = []
        for k in kernels:
            side, r = k.shape[0], k.shape[0] // 2
            wrapped = np.zeros(self.size, np.float32)
            wrapped[:side, :side] = k[::-1, ::-1]
            self.spectra.append(cv2.dft(np.roll(wrapped, (-r, -r), axis=(0, 1))))

    def __call__(self, image: np.ndarray, which: Iterable[int]) -> list[np.ndarray]:
        """*image* correlated with each kernel numbered in *which*."""
        h, w = self.shape
        padded = np.zeros(self.size, np.float32)
        padded[:h, :w] = image
        spectrum = cv2.dft(padded)  # (nonzeroRows=h would take OpenCV off its quick path: 4 times slower)
        return [np.asarray(cv2.idft(cv2.mulSpectrums(spectrum, self.spectra[i], 0),
                                    flags=cv2.DFT_SCALE | cv2.DFT_REAL_OUTPUT)[:h, :w], np.float32)
                for i in which]


def _side_directions(contour: np.ndarray, params: Params) -> list[float]:
    """The directions (degrees, 0-90) that the straight parts of a heap's outline run in, the
    most common first: a rect in the heap lies along one of them (its sides are on the outline).
    A side drawn as a few straight parts a little apart in direction counts as one."""
    points = cv2.approxPolyDP(contour, params.heap_side_tolerance_px, True).reshape(-1, 2).astype(np.float64)
    steps = max(1, round(90.0 / params.heap_angle_step_deg))
    votes = np.zeros(steps)
    for a, b in zip(points, np.roll(points, -1, axis=0), strict=True):
        dx, dy = b - a
        length = math.hypot(dx, dy)
        if length > 0:
            votes[round(math.degrees(math.atan2(dy, dx)) % 90.0 / 90.0 * steps) % steps] += length
    return [i * 90.0 / steps for i in _commonest(votes, params)]


def _commonest(votes: np.ndarray, params: Params) -> list[int]:
    """The bins of the directions that *votes* (a heap's sides' lengths, by direction, in bins
    of :attr:`Params.heap_angle_step_deg` round 90 degrees) single out, the commonest first."""
    steps = len(votes)
    smooth = votes + 0.5 * (np.roll(votes, 1) + np.roll(votes, -1))  # a side between two bins
    # the commonest direction, then the commonest of those not near one taken, and so on
    near = max(1, round(params.heap_sides_apart_deg / params.heap_angle_step_deg))
    left = smooth.copy()
    peaks: list[int] = []
    while len(peaks) < params.heap_sides_max:
        i = int(np.argmax(left))
        if left[i] <= 0 or left[i] < params.heap_side_share * smooth.max():
            break
        peaks.append(i)
        left[[(i + d) % steps for d in range(-near, near + 1)]] = 0.0
    return peaks


def _turns(kind: PieceKind, sides: list[float], params: Params) -> list[float]:
    """The turns a piece of *kind* is tried at in a heap whose outline runs along *sides*."""
    if kind.shape == "disc":
        return [0.0]
    if kind.is_square or not sides:
        period = 90.0 if kind.is_square else 180.0
        if not sides:
            steps = max(1, round(period / params.heap_angle_step_deg))
            return [i * period / steps for i in range(steps)]
        return sides
    return sides + [side + 90.0 for side in sides]


def _kernel(kind: PieceKind, angle_deg: float, px_per_mm: float) -> np.ndarray:
    """*kind*'s silhouette turned by *angle_deg*, centred in an odd-sized float32 kernel."""
    side = int(math.ceil(math.hypot(*kind.size_mm) * px_per_mm)) | 1
    c = side // 2
    shape = Placement(kind, (float(c), float(c)), angle_deg, px_per_mm, False)
    return shape.silhouette((side, side)).astype(np.float32)


def _leftover(contour: np.ndarray) -> Leftover:
    points = np.asarray(contour, np.float64).reshape(-1, 2)
    m = cv2.moments(contour)
    centre = (m["m10"] / m["m00"], m["m01"] / m["m00"]) if m["m00"] else tuple(points.mean(axis=0))
    return Leftover((float(centre[0]), float(centre[1])), points)
