"""Pieces that touch or overlap: one outline in the segmentation, several pieces on the table.

With sizes known (table mm), a heap's outline still shows most of each piece's own edge:
a rect's straight sides meeting at right angles, a disc's arc. :func:`split_heap` turns
those into whole pieces of the library's sizes and keeps the ones the heap explains:

1. **Hypotheses.** Every corner of the outline (simplified to
   :data:`OUTLINE_TOLERANCE_MM`) whose two sides meet at a right angle is a rect piece's
   corner: the rect of each kind's size laid from it along both sides, either way round.
   Every stretch of outline bent like a kind's disc votes for the centre one radius
   inwards (a Hough transform with the radius known); each peak is a disc.
2. **Checks.** A hypothesis must lie inside the heap grown by :data:`NEAR_EDGE_MM`
   (:data:`INSIDE_MIN` of its area: the pieces over and under it are part of the heap too;
   the margin is for an outline segmented a pixel short, which a whole coin of the kind's
   size would otherwise overhang by 15 %), and the heap's outline must run
   along its edge for :data:`SUPPORT_MIN` of its perimeter: a piece covered by at most a
   fifth still shows that much of its edge.
3. **Choice.** Best supported first, a hypothesis is taken when it covers mostly heap not
   yet explained (:data:`NEW_MIN`); the heap is split when what was taken explains all
   but :data:`LEFT_MAX` of it (to :data:`NEAR_EDGE_MM`, as above). Otherwise (after 4.) it is
   not split (:func:`split_heap` returns nothing: an unknown, never a guess), and
   :func:`divide_heap` gives only the pieces whose edge it shows almost whole
   (:data:`SURE_SUPPORT`), for the reader to read on their own.
4. **Peeling.** Before giving up, one more piece is laid on the largest part left
   unexplained (:func:`_peel`): a piece the others hide from two sides (the middle coin
   of three in a row) shows too little of its edge to be found by it, but its middle
   shows. Over 200 synthetic scenes: 2,588 -> 2,603 of 2,791 pieces read right with discs
   (coins face up overlapping 134 -> 142 of 190), 2,609 with rects too; peeling twice
   read one more and misread one more. A disc is laid, of the places where it lies inside
   the heap, at the one nearest that part's middle: a part left beside a piece taken is a
   crescent, whose middle is off the disc's centre (2,646 -> 2,649, coins face up
   overlapping 152 -> 155 of 190).

Everything here is in table mm, rasterised at :data:`PX_PER_MM`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import cv2
import numpy as np

from vision.library import PieceKind, disc_frame, frame_from_quad

PX_PER_MM = 2.0
"""The heap is drawn at this resolution for the checks: 0.5 mm, finer than the outline."""
OUTLINE_TOLERANCE_MM = 1.5
"""The outline is simplified to corners this close to it (its pixels are ~0.8 mm)."""
RIGHT_ANGLE_TOLERANCE_DEG = 14.0
"""A corner within this of 90 degrees can be a rect piece's."""
SIDE_MIN_MM = 6.0
"""...when both sides are at least this long."""
CORNER_GAP_MM = 9.0
"""Two sides meet at a corner when at most this much outline lies between them: the next
side, or the one after when the one between is that short. A card's rounded corner is
simplified to a chamfer of 6-8 mm, a side of its own (200 synthetic scenes: with the side
after the next, 2,569 -> 2,588 of 2,791 pieces read right; cards face up overlapping 155
-> 169 of 184)."""
NEAR_EDGE_MM = 2.5
"""A hypothesis's edge is on the heap's outline where it is this close to it: a corner's
sides give a rect's turn to a degree or two, which moves its far side by 1-3 mm, and a
coin's outline is good to a pixel (~1 mm). (200 synthetic scenes: 1.5 mm read 2,346 of 2,791
pieces, 2-3 mm 2,380-2,386, with no more misread.)"""
INSIDE_MIN = 0.96
SUPPORT_MIN = 0.5
NEW_MIN = 0.6
"""A hypothesis is taken when at least this share of it is heap no taken piece covers."""
LEFT_MAX = 0.08
"""The split stands when what is left unexplained is at most this share of the heap."""
HEAP_PIECES_MAX = 6
"""A heap larger than this many of the largest kind is not split (a pile, a spilled box)."""
THICK_MIN = 0.6
"""A heap must be this share of its smallest kind's half short side thick somewhere (the
largest circle inside it): a piece a fifth covered keeps most of its own. A pen or a ring
of spilt coffee is too thin, and is not tried: a sixth of the heaps in twenty-piece frames,
1 ms a frame; 200 synthetic scenes read the same with 0.6 and 0.8."""
SURE_SUPPORT = 0.7
"""Where whole pieces do not explain a heap (a piece of it matches the cloth, or is beyond
the library), the pieces its outline runs along for this share of their edge are still
found (:func:`divide_heap`). Over 200 synthetic scenes, each read: 2,626 -> 2,641 of 2,791
pieces read right with 0.6-0.8 (2,635 with 0.9; 0.5 misread one more), no more left-out
fronts taken as known."""
DISC_VOTE_MIN = 0.2
"""A disc's centre needs votes from this share of its circumference: only a first sieve, as
the checks above (:data:`SUPPORT_MIN`) decide. A coin's outline in a 720p view steps a pixel
(~1.2 mm) at a time, and the tangents along it scatter the votes: two touching coins on wood
drew 0.31 of a whole circle's peak at the centre of one. Over 200 synthetic scenes: 0.35
read 2,724 of 2,791 pieces right, 0.3 2,732, 0.25 2,734, 0.2 and 0.15 2,735 (coins face up
overlapping 173 -> 181 of 190, face down 58 -> 61 of 61), none misread, left-out fronts
taken as known 3 of 1,059 throughout; art seed 1, 100 scenes: 1,345 -> 1,349 of 1,386."""


_Point = tuple[float, float]
_SQUARE3 = np.ones((3, 3), np.uint8)
_COS48 = np.cos(np.linspace(0.0, 2 * math.pi, 48, endpoint=False))
_SIN48 = np.sin(np.linspace(0.0, 2 * math.pi, 48, endpoint=False))
"""A disc's outline: 48 points round the unit circle."""


class HeapSplit(NamedTuple):
    """What :func:`divide_heap` made of a heap: all its pieces when they explain it
    (*explained*), else only the surest of them (:data:`SURE_SUPPORT`)."""

    pieces: list[tuple[PieceKind, np.ndarray]]
    explained: bool


def split_heap(outline_mm: np.ndarray, kinds: Sequence[PieceKind]) -> list[tuple[PieceKind, np.ndarray]]:
    """The pieces that make up the heap whose outline (N x 2, table mm) is given: each
    kind with its frame (the unit square to table mm, as :func:`vision.library.fit_rect`
    gives), best explained first; empty when the heap is not explained by whole pieces."""
    split = divide_heap(outline_mm, kinds)
    return split.pieces if split.explained else []


def divide_heap(outline_mm: np.ndarray, kinds: Sequence[PieceKind]) -> HeapSplit:
    """As :func:`split_heap`; where whole pieces do not explain the heap, the pieces whose
    edge the heap's outline shows almost whole are still given (not explained)."""
    outline = np.asarray(outline_mm, np.float64).reshape(-1, 2)
    if len(outline) < 4 or not kinds:
        return HeapSplit([], False)
    area = abs(float(cv2.contourArea(outline.astype(np.float32))))
    areas = [k.area_mm2 for k in kinds]
    if not min(areas) * (1 + LEFT_MAX) < area < HEAP_PIECES_MAX * max(areas):
        return HeapSplit([], False)  # one piece's worth or less (a bitten piece, a crumb), or a whole pile
    heap = _Heap(outline)
    if heap.thickest_mm < THICK_MIN * min(min(k.size_mm) for k in kinds) / 2:
        return HeapSplit([], False)  # too thin to hold any piece: a pen, a ring of spilt coffee
    hypotheses: list[tuple[float, PieceKind, np.ndarray, _Laid]] = []  # support, kind, shape, drawing
    corners = _corners(heap.outline) if any(k.shape == "rect" for k in kinds) else []
    for kind in kinds:
        shapes = _rects(corners, kind) if kind.shape == "rect" else _discs(heap, kind)
        for shape, laid in heap.lay_all(shapes):
            hypotheses.append((laid.support, kind, shape, laid))
    hypotheses.sort(key=lambda h: -h[0])
    taken: list[tuple[PieceKind, np.ndarray]] = []
    sure: list[tuple[PieceKind, np.ndarray]] = []
    covered = np.zeros_like(heap.mask)
    for support, kind, shape, laid in hypotheses:
        # each drawn in its own box when it was laid: a hypothesis lies inside the canvas
        box = laid.box()
        if np.count_nonzero(laid.drawn & ~covered[box]) < NEW_MIN * laid.size:
            continue
        taken.append((kind, _frame(shape, kind)))
        if support >= SURE_SUPPORT:
            sure.append(taken[-1])
        covered[box] |= laid.drawn
    heap_size = int(np.count_nonzero(heap.mask))
    if not taken:
        return HeapSplit(sure, False)
    if np.count_nonzero(heap.mask & ~covered) <= LEFT_MAX * heap_size:
        return HeapSplit(taken, True)  # explained even without the margin below (4 in 9 heaps)
    # what the pieces taken explain, to NEAR_EDGE_MM: an outline a pixel wide of the truth
    # all round leaves a rim unexplained that is a tenth of a heap of two coins
    reach = 2 * round(NEAR_EDGE_MM * PX_PER_MM) + 1
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach))
    explained = cv2.dilate(covered.view(np.uint8), disc)
    left = heap.mask & (explained == 0)
    if np.count_nonzero(left) > LEFT_MAX * heap_size:
        # what is left may be a piece the others hide from two sides (the middle coin of three
        # in a row): too little of its edge shows to be found by its edge, but its middle does
        peeled = _peel(heap, left, covered, kinds)
        if peeled is not None:
            taken.append(peeled[0])
            explained = cv2.dilate((covered | peeled[1]).view(np.uint8), disc)
            left = heap.mask & (explained == 0)
    if np.count_nonzero(left) > LEFT_MAX * heap_size:
        return HeapSplit(sure, False)
    return HeapSplit(taken, True)


def side_turns(outline_mm: np.ndarray, most: int, apart_deg: float) -> list[float]:
    """How the rect pieces of a heap (its outline, N x 2, table mm) may lie: the directions
    (degrees, 0-90: a rect's sides run this way or at right angles to it) of the outline's
    straight sides of :data:`SIDE_MIN_MM` or more (simplified as for the corners), longest
    first, at most *most* of them, each at least *apart_deg* from those before it."""
    _, sides, lengths = _simplified(np.asarray(outline_mm, np.float64))
    turns: list[float] = []
    for i in np.argsort(-lengths):
        if lengths[i] < SIDE_MIN_MM or len(turns) >= most:
            break
        turn = math.degrees(math.atan2(sides[i, 1], sides[i, 0])) % 90.0
        if all(abs((turn - t + 45.0) % 90.0 - 45.0) >= apart_deg for t in turns):
            turns.append(turn)
    return turns


def _peel(heap: _Heap, left: np.ndarray, covered: np.ndarray,
          kinds: Sequence[PieceKind]) -> tuple[tuple[PieceKind, np.ndarray], np.ndarray] | None:
    """A piece laid on the largest part of *left* (the heap's pixels no piece taken explains):
    a disc inside the heap nearest its middle, or a rect centred on it and turned as its
    smallest box, either way round. The first that lies inside the heap and is mostly not
    *covered* yet, and its drawing; or None."""
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(left.view(np.uint8), connectivity=8)
    if n < 2:
        return None
    largest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    centre = heap.origin + centroids[largest] / PX_PER_MM
    # its turn from its rim alone: the pixels within lie inside the rim's hull, which is all
    # cv2.minAreaRect uses (the same hull, from the same first point as the rim is taken row
    # by row too); all of them cost half of this function's 0.7 ms a frame
    bx, by, bw, bh = (int(v) for v in stats[largest, :4])
    part = (labels[by:by + bh, bx:bx + bw] == largest).view(np.uint8)
    rim = part - cv2.erode(part, _SQUARE3, borderType=cv2.BORDER_CONSTANT, borderValue=0)
    ys, xs = np.nonzero(rim)
    turn = math.radians(cv2.minAreaRect(np.stack([xs + bx, ys + by], axis=1).astype(np.float32))[2])
    u, v = np.array([math.cos(turn), math.sin(turn)]), np.array([-math.sin(turn), math.cos(turn)])
    t = np.linspace(0.0, 2 * math.pi, 48, endpoint=False)
    room: np.ndarray | None = None
    for kind in kinds:
        if kind.shape == "disc":
            r = kind.size_mm[0] / 2
            # the disc of the heap nearest that part's middle: a part left beside a piece taken
            # is a crescent, whose middle lies off the disc's centre, towards the piece
            if room is None:
                room = np.asarray(cv2.distanceTransform(heap.grown, cv2.DIST_L2, 3), np.float32) / PX_PER_MM
            ys_in, xs_in = np.nonzero(room >= r)
            at = centre
            if len(xs_in):
                mid = centroids[largest]
                k = int(np.argmin((xs_in - mid[0]) ** 2 + (ys_in - mid[1]) ** 2))
                at = heap.origin + np.array([xs_in[k], ys_in[k]], np.float64) / PX_PER_MM
            shapes = [at + r * np.stack([np.cos(t), np.sin(t)], axis=1)]
        else:
            w, h = kind.size_mm[0] / 2, kind.size_mm[1] / 2
            shapes = [centre + np.array([[-a, -b], [a, -b], [a, b], [-a, b]]) @ np.stack([u, v])
                      for a, b in {(w, h), (h, w)}]
        for shape in shapes:
            drawn = heap.draw(shape)
            size = int(np.count_nonzero(drawn))
            if size and np.count_nonzero(drawn & heap.grown.view(bool)) >= INSIDE_MIN * size \
                    and np.count_nonzero(drawn & ~covered) >= NEW_MIN * size:
                return (kind, _frame(shape, kind)), drawn
    return None


class _Heap:
    """The heap drawn in table mm at :data:`PX_PER_MM`: its pixels (*mask*), how thick it is
    (*thickest_mm*: the largest circle inside it, to its outline), the pixels within
    :data:`NEAR_EDGE_MM` of its outline (*near*) and the two together (*grown*)."""

    def __init__(self, outline: np.ndarray) -> None:
        self.origin = outline.min(axis=0) - 5.0
        size = np.ceil((outline.max(axis=0) + 5.0 - self.origin) * PX_PER_MM).astype(int) + 1
        self.shape = (int(size[1]), int(size[0]))
        self.outline = outline
        px = self._px(outline)
        mask = np.zeros(self.shape, np.uint8)
        cv2.fillPoly(mask, [px], 1)
        self.mask = mask.view(bool)
        # the outline drawn black on white: the distance transform measures to it
        edge = np.full(self.shape, 255, np.uint8)
        cv2.polylines(edge, [px], True, 0, 1)
        to_edge = np.asarray(cv2.distanceTransform(edge, cv2.DIST_L2, 3), np.float32)
        # in pixels here; halving (exact in floats) gives mm
        self.thickest_mm = cv2.minMaxLoc(to_edge, mask)[1] / PX_PER_MM
        # the heap and a margin of NEAR_EDGE_MM around it: a hypothesis off by that much
        # (its centre or turn as the outline gives them) still lies inside
        self.near = (to_edge <= NEAR_EDGE_MM * PX_PER_MM).view(np.uint8)
        self.grown = mask | self.near

    def _px(self, points: np.ndarray) -> np.ndarray:
        return np.asarray(np.round((points - self.origin) * PX_PER_MM), np.int32).reshape(-1, 1, 2)

    def draw(self, polygon: np.ndarray) -> np.ndarray:
        canvas = np.zeros(self.shape, np.uint8)
        cv2.fillPoly(canvas, [self._px(polygon)], 1)
        return canvas.view(bool)

    def lay_all(self, shapes: np.ndarray) -> list[tuple[np.ndarray, _Laid]]:
        """Each of *shapes* (K x N x 2, table mm) that lies inside the heap, with what
        :meth:`lay` makes of it."""
        if len(shapes) == 0:
            return []
        pts = np.asarray(np.round((shapes - self.origin) * PX_PER_MM), np.int32)
        # whether each stays on the canvas, all at once: most rects laid from a corner do not
        h, w = self.shape
        low, high = pts.min(axis=1), pts.max(axis=1)
        fits = (low >= 0).all(axis=1) & (high[:, 0] < w) & (high[:, 1] < h)
        out = []
        for k in np.flatnonzero(fits).tolist():
            laid = self.lay(pts[k].reshape(-1, 1, 2))
            if laid is not None:
                out.append((shapes[k], laid))
        return out

    def lay(self, pts: np.ndarray) -> _Laid | None:
        """A shape laid on the heap (its points *pts* in the canvas's pixels, N x 1 x 2, all on
        the canvas): the share of its perimeter on the heap's outline and its drawing, or None
        when it is not inside the heap or too little of its perimeter is on the outline
        (:data:`SUPPORT_MIN`)."""
        x0, y0, w, h = cv2.boundingRect(pts)
        # drawn in its own box only: a tenth of a large heap's canvas
        box = pts - np.array([x0, y0], np.int32)
        area = np.zeros((h, w), np.uint8)
        cv2.fillPoly(area, [box], 1)
        size = np.count_nonzero(area)
        if size == 0 or np.count_nonzero(area & self.grown[y0:y0 + h, x0:x0 + w]) < INSIDE_MIN * size:
            return None
        # its edge's pixels, drawn over the same box
        rim = np.zeros((h, w), np.uint8)
        cv2.polylines(rim, [box], True, 1, 1)
        on_edge = int(np.count_nonzero(rim & self.near[y0:y0 + h, x0:x0 + w]))
        support = on_edge / max(1, int(np.count_nonzero(rim)))
        return _Laid(support, x0, y0, area.view(bool), int(size)) if support >= SUPPORT_MIN else None


class _Laid(NamedTuple):
    """A hypothesis laid on the heap (:meth:`_Heap.lay`): its support, and its drawing in its
    own box (its top left corner on the heap's canvas, and its size in pixels)."""

    support: float
    x: int
    y: int
    drawn: np.ndarray
    size: int

    def box(self) -> tuple[slice, slice]:
        """Where its drawing lies on the heap's canvas."""
        h, w = self.drawn.shape
        return slice(self.y, self.y + h), slice(self.x, self.x + w)


def _along(polygon: np.ndarray, step: float) -> np.ndarray:
    """Points every *step* along the closed *polygon*."""
    a = np.asarray(polygon, np.float64)
    d = np.concatenate((a[1:], a[:1])) - a  # as np.roll and np.linalg.norm, without their overhead
    n = np.maximum(1, (np.sqrt((d * d).sum(axis=1)) / step).astype(int))
    side = np.repeat(np.arange(len(a)), n)
    t = (np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)) / np.repeat(n, n)
    return np.asarray(a[side] + d[side] * t[:, None], np.float64)


def _frame(shape: np.ndarray, kind: PieceKind) -> np.ndarray:
    """The frame of a hypothesis's *shape*: a rect's four corners, a disc's outline."""
    return frame_from_quad(shape, kind) if kind.shape == "rect" else disc_frame(shape.mean(axis=0), kind)


def _simplified(outline: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """*outline* simplified to its corners within :data:`OUTLINE_TOLERANCE_MM`: the corners,
    each side (to the next corner) and its length."""
    poly = np.asarray(cv2.approxPolyDP(outline.astype(np.float32).reshape(-1, 1, 2), OUTLINE_TOLERANCE_MM,
                                       True), np.float64).reshape(-1, 2)
    sides = np.concatenate((poly[1:], poly[:1])) - poly
    return poly, sides, np.sqrt((sides * sides).sum(axis=1))  # as np.linalg.norm sums them


def _corners(outline: np.ndarray) -> list[tuple[_Point, _Point, _Point]]:
    """Each right-angled corner of *outline*: (the corner, the unit directions of its two
    sides from it, squared up to a right angle), in plain floats.

    A corner is where two straight sides' lines meet, the next or the one after, with at
    most :data:`CORNER_GAP_MM` of outline between them (a card's rounded corner, a bitten
    one)."""
    poly, _, lengths = _simplified(outline)
    n = len(poly)
    if n < 3:
        return []
    gaps = lengths.tolist()
    sides = [i for i in range(n) if gaps[i] >= SIDE_MIN_MM]
    ends = poly[[(i + 1) % n for i in sides]]
    lines = _side_lines(outline, poly[sides], ends)
    # plain floats for the lines' arithmetic: the same operations as on the 2-vectors,
    # without numpy's cost for each; the dot products stay numpy's, as numpy sums them
    flat = dict(zip(sides, ((*p.tolist(), *d.tolist()) for p, d in lines), strict=True))
    dirs = dict(zip(sides, (d for _, d in lines), strict=True))
    out = []
    for k, i in enumerate(sides):
        for step in (1, 2):
            j = sides[(k + step) % len(sides)]
            if j == i:
                continue
            between = _total(lengths, gaps, i + 1, j) if j > i \
                else _total(lengths, gaps, i + 1, n) + _total(lengths, gaps, 0, j)
            if between > CORNER_GAP_MM:
                continue
            (p1x, p1y, d1x, d1y), (p2x, p2y, d2x, d2y) = flat[i], flat[j]
            denom = d1x * d2y - d1y * d2x
            if abs(denom) < 1e-6:
                continue
            t = ((p2x - p1x) * d2y - (p2y - p1y) * d2x) / denom
            c = (p1x + d1x * t, p1y + d1y * t)  # where the two sides' lines meet
            # from the corner: u along the next side (d2), v back along this one (-d1)
            d1, d2 = dirs[i], dirs[j]
            angle = math.degrees(math.acos(max(-1.0, min(1.0, -float(d2 @ d1)))))
            if abs(angle - 90.0) > RIGHT_ANGLE_TOLERANCE_DEG:
                continue
            # square the corner up: the two sides' mean direction, at right angles
            both = d2 - d1
            mid = both / math.sqrt(float(both.dot(both)))
            mx, my = float(mid[0]), float(mid[1])
            left = d2x * -d1y - d2y * -d1x > 0
            out.append((c, _turn(mx, my, -45.0 if left else 45.0), _turn(mx, my, 45.0 if left else -45.0)))
    return out


def _total(lengths: np.ndarray, gaps: list[float], start: int, stop: int) -> float:
    """``lengths[start:stop].sum()``; in plain floats when at most two are summed, where
    numpy's sum is the same."""
    if stop - start <= 2:
        return sum(gaps[start:stop], 0.0)
    return float(lengths[start:stop].sum())


def _rects(corners: list[tuple[_Point, _Point, _Point]], kind: PieceKind) -> np.ndarray:
    """Rects of *kind* laid from each of *corners* along its two sides, either way round
    (K x 4 x 2)."""
    w, h = kind.size_mm
    rects = []
    for (cx, cy), (ux, uy), (vx, vy) in corners:
        for sa, sb in {(w, h), (h, w)}:
            ax, ay = cx + sa * ux, cy + sa * uy
            rects.append([cx, cy, ax, ay, ax + sb * vx, ay + sb * vy, cx + sb * vx, cy + sb * vy])
    return np.array(rects, np.float64).reshape(-1, 4, 2)


def _side_lines(outline: np.ndarray, a: np.ndarray, b: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """For each side from *a[k]* to *b[k]* (K x 2 each), the line (a point, a unit direction
    from a to b) fitted to the outline's points along it: least squares across the line (as
    ``cv2.fitLine``'s L2), all sides at once."""
    if len(a) == 0:
        return []
    span = b - a
    length = np.linalg.norm(span, axis=1)
    d = span / length[:, None]
    rel = outline[None, :, :] - a[:, None, :]  # K x N x 2
    along = np.einsum("knj,kj->kn", rel, d)
    off = np.abs(rel[:, :, 0] * -d[:, 1:2] + rel[:, :, 1] * d[:, 0:1])
    near = ((along >= 0) & (along <= length[:, None]) & (off <= OUTLINE_TOLERANCE_MM)).astype(np.float64)
    count = near.sum(axis=1)
    mean = (near @ outline) / np.maximum(count, 1)[:, None]
    dx = outline[None, :, 0] - mean[:, 0:1]
    dy = outline[None, :, 1] - mean[:, 1:2]
    sxx, syy, sxy = (near * dx * dx).sum(axis=1), (near * dy * dy).sum(axis=1), (near * dx * dy).sum(axis=1)
    theta = 0.5 * np.arctan2(2 * sxy, sxx - syy)  # the scatter's main axis
    fitted = np.stack([np.cos(theta), np.sin(theta)], axis=1)
    fitted[(fitted * d).sum(axis=1) < 0] *= -1
    # a fit turned from the side by more than a corner may be off a right angle is of too
    # few points to tell (two of a sparse outline's, at one end where another piece's edge
    # meets the side): the side as it is (200 synthetic scenes: one tile fewer of 2,791 read)
    kept = (count >= 2) & ((fitted * d).sum(axis=1) >= math.cos(math.radians(RIGHT_ANGLE_TOLERANCE_DEG)))
    return [(mean[k], fitted[k]) if kept[k] else (a[k], d[k]) for k in range(len(a))]


def _turn(x: float, y: float, degrees: float) -> _Point:
    t = math.radians(degrees)
    return x * math.cos(t) - y * math.sin(t), x * math.sin(t) + y * math.cos(t)


def _discs(heap: _Heap, kind: PieceKind) -> np.ndarray:
    """Discs of *kind* whose centres the heap's outline votes for: their outlines (K x 48 x 2)."""
    r = kind.size_mm[0] / 2
    pts = _along(heap.outline, 1.0)
    if len(pts) < 8:
        return np.zeros((0, 48, 2))
    tangent = np.concatenate((pts[2:], pts[:2])) - np.concatenate((pts[-2:], pts[:-2]))
    tangent /= np.maximum(np.sqrt((tangent * tangent).sum(axis=1, keepdims=True)), 1e-9)
    normal = tangent[:, ::-1] * np.array([-1.0, 1.0])
    # which side is inside: the one the heap's mask is on
    probe = pts + 1.5 * normal
    h, w = heap.shape
    px = np.round((probe - heap.origin) * PX_PER_MM).astype(int).clip(0, [w - 1, h - 1])
    if np.count_nonzero(heap.mask[px[:, 1], px[:, 0]]) < 0.5 * len(px):
        normal = -normal
    centres = pts + r * normal
    cpx = np.round((centres - heap.origin) * PX_PER_MM).astype(int)
    ok = (cpx[:, 0] >= 0) & (cpx[:, 0] < w) & (cpx[:, 1] >= 0) & (cpx[:, 1] < h)
    cells = np.bincount(cpx[ok, 1] * w + cpx[ok, 0], minlength=h * w)  # 10x np.add.at
    votes = cells.astype(np.float32).reshape(h, w)
    votes = np.asarray(cv2.GaussianBlur(votes, (0, 0), 1.5 * PX_PER_MM), np.float32)
    # a full circle's votes land within ~1.5 mm of its centre; the blur spreads them over
    # about 2 pi (1.5 mm)^2 of cells
    peak_full = 2 * math.pi * r / (2 * math.pi * (1.5 * PX_PER_MM) ** 2)
    strong = (votes >= DISC_VOTE_MIN * peak_full).view(np.uint8)
    x0, y0, bw, bh = cv2.boundingRect(strong)
    if bw == 0:
        return np.zeros((0, 48, 2))  # no cell has the votes (a heap of rects)
    # the local maxima among the cells with the votes, looked for in their box only (and the
    # two cells around it the 5 x 5 maximum reaches)
    x0, y0, x1, y1 = max(x0 - 2, 0), max(y0 - 2, 0), min(x0 + bw + 2, w), min(y0 + bh + 2, h)
    around = votes[y0:y1, x0:x1]
    local_max = around >= np.asarray(cv2.dilate(around, np.ones((5, 5), np.uint8)), np.float32)
    ys, xs = np.nonzero(local_max & strong[y0:y1, x0:x1].view(bool))
    centres = heap.origin + np.stack([xs + x0, ys + y0], axis=1) / PX_PER_MM
    return np.stack([centres[:, :1] + r * _COS48, centres[:, 1:] + r * _SIN48], axis=2)
