"""Reading the library's pieces in a photo of the table, in stages.

1. :mod:`~vision.reading.plane`: the table seen from straight above at a known scale;
2. :mod:`~vision.reading.find`: what is not table (against the empty table, or the cloth);
3. :mod:`~vision.reading.fit`: each outline fitted to a registered kind's shape and size (what
   fits none but is small enough to be part of a piece is compared as that piece, below);
4. :mod:`~vision.reading.identify`: each piece rectified and compared with the faces;
5. :mod:`~vision.reading.decide`: known, face down, or unknown.

Every threshold is in :class:`~vision.reading.params.Params`.
"""

from __future__ import annotations

import functools
import math
import weakref
from dataclasses import replace

import cv2
import numpy as np
from threadpoolctl import ThreadpoolController

from vision import markers
from vision.calibration import TableCalibration
from vision.library import Library, PieceKind, find_piece, frame_point, frame_points
from vision.reading.decide import decide
from vision.reading.faces import KindRefs, references
from vision.reading.find import blank, marker_areas, not_table
from vision.reading.fit import Leftover, Placement, fit_outlines
from vision.reading.identify import Cut, Match, compare, cut_out
from vision.reading.params import DEFAULT, Params
from vision.reading.plane import Plane, make_plane
from vision.reading.result import FoundPiece, ReadResult, UnknownPiece

__all__ = ["FoundPiece", "Params", "ReadResult", "UnknownPiece", "read"]

_REFS: weakref.WeakKeyDictionary[Library, dict[tuple[int, Params, float | None], dict[str, KindRefs]]] = \
    weakref.WeakKeyDictionary()
"""Each library's references, by its revision, the reading's parameters and the finest scale
worth comparing at: kept while the library object lives (a key by ``id()`` could be taken by a
new library once the old is gone)."""
MAX_REFS_PER_LIBRARY = 4


def read(image: np.ndarray, library: Library, *, calibration: TableCalibration | None = None,
         layout_dictionary: str | None = None, px_per_mm: float | None = None,
         empty: np.ndarray | None = None, seen_markers: dict[int, np.ndarray] | None = None,
         params: Params = DEFAULT) -> ReadResult:
    """The library's pieces in *image* (BGR uint8), each with its face, position and turn.

    *calibration* puts positions in table mm and lets sizes be checked (pieces lie flat on the
    table). Without it, *px_per_mm* says the frame is a top-down view at that scale: sizes are
    checked, positions stay in pixels; with neither, pieces are told by shape and face alone.
    *layout_dictionary* (``"DICT_4X4_50"``) blanks out the table markers of that dictionary;
    *seen_markers* are those markers when they were found already. *empty* is the same view
    without pieces: pieces are then what differs from it.

    The matrix products run on one BLAS thread: they are small, and threads that wait for a core
    another process holds make a read up to twice as slow.

    :raises LayoutError: when a library image cannot be read.
    :raises ValueError: for an image that is not 8-bit BGR, *empty* of another size, or a
        *px_per_mm* that is not positive.
    """
    with _threadpools().limit(limits=1, user_api="blas"):
        return _read(image, library, calibration, layout_dictionary, px_per_mm, empty, seen_markers, params)


@functools.cache
def _threadpools() -> ThreadpoolController:
    """The process's thread pools (BLAS, OpenMP), found once."""
    return ThreadpoolController()


def _read(image: np.ndarray, library: Library, calibration: TableCalibration | None,
          layout_dictionary: str | None, px_per_mm: float | None, empty: np.ndarray | None,
          seen_markers: dict[int, np.ndarray] | None, params: Params) -> ReadResult:
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"image: must be 8-bit BGR (got {image.dtype} {image.shape})")
    if empty is not None and empty.shape != image.shape:
        raise ValueError(f"empty: must be the image's size {image.shape} (got {empty.shape})")
    if px_per_mm is not None and not (math.isfinite(px_per_mm) and px_per_mm > 0):
        raise ValueError(f"px_per_mm: must be positive (got {px_per_mm!r})")
    plane, warp = make_plane(image, calibration, px_per_mm, params)
    refs = _references(library, params, _finest(plane, params))
    if not refs:
        return ReadResult((), ())
    kinds = [r.kind for r in refs.values()]
    view = warp.apply(image)
    valid = warp.valid(image.shape)
    empty_view = None if empty is None else warp.apply(empty)
    largest_mm = max(max(k.size_mm) for k in kinds)
    piece_px = largest_mm * plane.scale if plane.scale is not None else max(plane.size) / 8
    quads = None
    if empty is None and (seen_markers is not None or layout_dictionary is not None):
        seen = seen_markers if seen_markers is not None else markers.detect(image, layout_dictionary or "")
        quads = [plane.from_frame(q) for q in seen.values()]
    margin_px = params.marker_margin_mm * (plane.scale or 1.0)
    sheets = marker_areas(valid.shape, quads, params.marker_quiet_zone, margin_px) if quads else None
    mask = not_table(view, valid, empty_view, piece_px, plane.scale, params, sheets)
    if quads is not None:
        blank(mask, quads, params.marker_quiet_zone, margin_px, params.marker_sheet_share)
    placements, leftovers = fit_outlines(mask, kinds, plane.scale, params)
    found = [_compared(view, piece, placements, refs[piece.kind.name], params) for piece in placements]
    if any(not piece.alone for piece in placements):
        # the heaps' pieces turned as their best faces say, and compared again where it or a
        # piece near it turned: what each hides of the others is then where it lies
        placements = [_turned_as_matched(piece, matches) for piece, matches in found]
        moved = [p.angle_deg != was.angle_deg for p, (was, _m) in zip(placements, found, strict=True)]
        found = [_compared(view, piece, placements, refs[piece.kind.name], params)
                 if not piece.alone and any(moved[j] and (j == i or _near(other, piece))
                                            for j, other in enumerate(placements)) else (piece, matches)
                 for i, (piece, (_was, matches)) in enumerate(zip(placements, found, strict=True))]
        found = _on_top_tried(view, found, refs, params)
    if plane.scale is not None:
        found, leftovers = _leftovers_tried(view, found, leftovers, refs, plane.scale, params)
        found = _covers_tried(view, found, refs, plane.scale, params)
    pieces, unknown = _reported(plane, found, leftovers, params)
    if not pieces and calibration is None:
        # a scan or a crop (the view is the piece), or a piece photographed alone on a plain
        # surface (found as a registration photo's is): the best of these that names a face
        named: list[FoundPiece] = []
        for piece in _whole_view(view, kinds, params) + _alone_on_surface(view, kinds):
            matches = _matches(view, piece, [piece], refs[piece.kind.name], params)
            _report(plane, piece, matches, params, named, [])
        if named:
            pieces, unknown = [max(named, key=lambda p: p.score)], []
    return ReadResult(tuple(pieces), tuple(unknown))


def _reported(plane: Plane, found: list[tuple[Placement, list[Match]]], leftovers: list[Leftover],
              params: Params) -> tuple[list[FoundPiece], list[UnknownPiece]]:
    """What is reported of the pieces *found* (each with its faces' matches) and of the
    *leftovers* (but the small ones): a heap of which no piece is named is one thing unknown."""
    pieces: list[FoundPiece] = []
    unknown: list[UnknownPiece] = []
    lights = _lights(found, params)
    in_heap: dict[int, tuple[Leftover, list[UnknownPiece]]] = {}  # each heap's unknowns
    named: set[int] = set()  # the heaps that a piece was named in
    for (piece, matches), light in zip(found, lights, strict=True):
        before = len(pieces), len(unknown)
        _report(plane, piece, matches, params, pieces, unknown, light)
        if piece.heap is not None:
            entry = in_heap.setdefault(id(piece.heap), (piece.heap, []))
            entry[1].extend(unknown[before[1]:])
            if len(pieces) > before[0]:
                named.add(id(piece.heap))
    for left in leftovers:
        if left.small:
            continue  # too small to be reported, where no piece was named for it
        if left.heap is None:
            unknown.append(_unknown(plane, left))
        else:
            entry = in_heap.setdefault(id(left.heap), (left.heap, []))
            entry[1].append(_unknown(plane, left))
            if id(left.heap) in named:
                unknown.append(entry[1][-1])
    for key, (heap, parts) in in_heap.items():
        if key not in named:
            unknown = [u for u in unknown if all(u is not part for part in parts)] + [_unknown(plane, heap)]
    return pieces, unknown


def _unknown(plane: Plane, left: Leftover) -> UnknownPiece:
    return UnknownPiece(_point(plane.to_report(np.array([left.centre]))), plane.in_mm,
                        outline_px=_points(plane.to_frame(left.outline)))


def _finest(plane: Plane, params: Params) -> float | None:
    """The finest scale worth comparing pieces at in *plane*'s view (px/mm): its own, rounded
    up to a step of :attr:`Params.compare_step_px_per_mm`; None where it is not known."""
    if plane.scale is None:
        return None
    step = params.compare_step_px_per_mm
    return step * math.ceil(plane.scale / step - 1e-6)


def _references(library: Library, params: Params, finest: float | None) -> dict[str, KindRefs]:
    kept = _REFS.setdefault(library, {})
    key = (library.revision, params, finest)
    if key not in kept:
        if len(kept) >= MAX_REFS_PER_LIBRARY:
            kept.clear()
        kept[key] = references(library, params, finest)
    return kept[key]


def _on_top_tried(view: np.ndarray, found: list[tuple[Placement, list[Match]]], refs: dict[str, KindRefs],
                  params: Params) -> list[tuple[Placement, list[Match]]]:
    """*found*, each heap piece that no face is named for compared again as lying on each piece
    that overlaps :attr:`Params.on_top_share` of it or more, in turn (that piece then hides
    nothing of it: a coin lying across a tile's edge, its print on the tile), and taken so where
    a face is named for it then."""
    out = list(found)
    for i, (piece, matches) in enumerate(found):
        if piece.alone or not matches or decide(matches, params).face is not None:
            continue
        placements = [p for p, _m in out]
        for under in (p for p in placements if p is not piece and _overlap(p, piece) >= params.on_top_share):
            others = [p for p in placements if p is not under]
            again = _compared(view, piece, others, refs[piece.kind.name], params)
            if decide(again[1], params).face is not None:
                out[i] = again
                break
    return out


def _overlap(a: Placement, b: Placement) -> float:
    """The share of *b*'s outline's area that *a*'s outline overlaps."""
    outline = b.outline().astype(np.float32)
    area, _ = cv2.intersectConvexConvex(a.outline().astype(np.float32), outline)
    return float(area) / max(float(cv2.contourArea(outline)), 1e-9)


def _leftovers_tried(view: np.ndarray, found: list[tuple[Placement, list[Match]]], leftovers: list[Leftover],
                     refs: dict[str, KindRefs], px_per_mm: float,
                     params: Params) -> tuple[list[tuple[Placement, list[Match]]], list[Leftover]]:
    """*found* and *leftovers*, less each leftover small enough to be part of one piece that is
    named as that piece where the comparison finds it nearby (a piece whose rim or back is the
    table's colour shows only part of itself): such a piece is added to *found*."""
    placements = [piece for piece, _m in found]
    out = list(found)
    kept = []
    for left in leftovers:
        named: list[tuple[Placement, list[Match]]] = []
        for kind_refs in refs.values():
            for guess in _guesses(left, kind_refs.kind, px_per_mm, params):
                shift_mm = min(params.leftover_shift_share * min(kind_refs.kind.size_mm),
                               params.leftover_shift_max_mm)
                piece = _named_near(view, guess, placements, kind_refs, shift_mm, params)
                if piece is not None:
                    named.append(piece)
        if named:
            out.append(max(named, key=lambda pm: pm[1][0].score))
        else:
            kept.append(left)
    return out, kept


def _guesses(left: Leftover, kind: PieceKind, px_per_mm: float, params: Params) -> list[Placement]:
    """Where a piece of *kind* may lie that *left* is part of: centred on it, for a rect along
    its longer side or across it; none where *left* is larger than the piece."""
    points = np.asarray(left.outline, np.float32).reshape(-1, 1, 2)
    (cx, cy), radius = cv2.minEnclosingCircle(points)
    if 2 * radius > math.hypot(*kind.size_mm) * px_per_mm * (1 + params.size_tolerance):
        return []
    if kind.shape == "disc":
        if 2 * radius > kind.size_mm[0] * px_per_mm * (1 + params.size_tolerance):
            return []
        return [Placement(kind, (cx, cy), 0.0, px_per_mm, True, heap=left.heap)]
    (rx, ry), (rw, rh), angle = cv2.minAreaRect(points)
    along = angle if rw >= rh else angle + 90.0
    turns = (0.0,) if kind.is_square else (0.0, 90.0)
    return [Placement(kind, (rx, ry), along + t, px_per_mm, True, heap=left.heap) for t in turns]


def _covers_tried(view: np.ndarray, found: list[tuple[Placement, list[Match]]], refs: dict[str, KindRefs],
                  px_per_mm: float, params: Params) -> list[tuple[Placement, list[Match]]]:
    """*found*, with each disc laid on a piece whose face would be named but for one patch it
    does not explain (a coin on a tile lies inside the tile's outline: no outline shows it):
    tried there as a leftover is, and where named (or where a piece was found there already),
    the piece compared again without it."""
    out = list(found)
    for i, (piece, matches) in enumerate(found):
        best = matches[0] if matches else None
        if (best is None or best.worst_px is None or best.residual <= params.residual_max
                or decide([replace(best, residual=0.0), *matches[1:]], params).face is None):
            continue
        host = refs[piece.kind.name]
        h, w = host.weight.shape
        # the window centred on that patch
        at = (best.shift_px[0] + best.worst_px[0] - (w - 1) / 2,
              best.shift_px[1] + best.worst_px[1] - (h - 1) / 2)
        point = _in_view(piece, host, params.shift_mm, at)
        if any(other is not piece and cv2.pointPolygonTest(other.outline().astype(np.float32), point,
                                                           False) >= 0
               for other, _m in out):  # a piece found there already: the piece compared without it
            out[i] = (piece, _matches(view, piece, [p for p, _m in out], host, params))
            continue
        for kind_refs in (r for r in refs.values() if r.kind.shape == "disc"):
            shift_mm = min(kind_refs.kind.size_mm[0] / 2, params.leftover_shift_max_mm)
            # laid on the piece, it is seen whole
            cover = _named_near(view, Placement(kind_refs.kind, point, 0.0, px_per_mm, True, heap=piece.heap),
                                [], kind_refs, shift_mm, params)
            if cover is not None:
                out.append(cover)
                out[i] = (piece, _matches(view, piece, [p for p, _m in out], host, params))
                break
    return out


def _named_near(view: np.ndarray, guess: Placement, placements: list[Placement], kind_refs: KindRefs,
                shift_mm: float, params: Params) -> tuple[Placement, list[Match]] | None:
    """The piece *guess* is, where a face is named for it within *shift_mm* of its centre and
    again once it is moved there; else None."""
    matches = _matches(view, guess, placements, kind_refs, params, shift_mm, stride=2)
    if not matches or decide(matches, params).face is None:
        return None
    piece = replace(guess, centre=_in_view(guess, kind_refs, shift_mm, matches[0].shift_px))
    matches = _matches(view, piece, placements, kind_refs, params)
    return (piece, matches) if decide(matches, params).face is not None else None


def _in_view(piece: Placement, kind_refs: KindRefs, shift_mm: float,
             at: tuple[float, float]) -> tuple[float, float]:
    """Where in the view (px) the window of *piece*'s cut-out (with *shift_mm* of margin) whose
    top left is *at* (px) is centred."""
    margin = _margin_px(kind_refs, shift_mm)
    k = piece.px_per_mm / kind_refs.scale  # view px per patch px
    a = math.radians(piece.angle_deg)
    du, dv = (at[0] - margin) * k, (at[1] - margin) * k
    cx, cy = piece.centre
    return cx + du * math.cos(a) - dv * math.sin(a), cy + du * math.sin(a) + dv * math.cos(a)


def _margin_px(kind_refs: KindRefs, shift_mm: float) -> int:
    """*shift_mm* (how far a face is searched round a piece's centre) in px at the comparison's
    scale, at least one."""
    return max(1, round(shift_mm * kind_refs.scale))


def _compared(view: np.ndarray, piece: Placement, placements: list[Placement], kind_refs: KindRefs,
              params: Params) -> tuple[Placement, list[Match]]:
    """*piece*, whose outline was fitted, and its faces' matches (:func:`_matches`); where its
    best face lies at the search's edge (an outline in a heap fitted further off than
    :attr:`Params.shift_mm`) and correlates at least :attr:`Params.lay_score_min`, the piece
    moved there and searched again."""
    matches = _matches(view, piece, placements, kind_refs, params)
    edge = 2 * _margin_px(kind_refs, params.shift_mm)
    at = matches[0].shift_px if matches else (edge // 2, edge // 2)
    if (0 < at[0] < edge and 0 < at[1] < edge) or matches[0].score < params.lay_score_min:
        return piece, matches
    moved = replace(piece, centre=_in_view(piece, kind_refs, params.shift_mm, at))
    others = [moved if other is piece else other for other in placements]
    return moved, _matches(view, moved, others, kind_refs, params)


def _matches(view: np.ndarray, piece: Placement, placements: list[Placement], kind_refs: KindRefs,
             params: Params, shift_mm: float | None = None, stride: int = 1) -> list[Match]:
    """Each face's match on *piece* (best first), what *placements* lay over it left out, its
    face searched for *shift_mm* round its centre (:attr:`Params.shift_mm` unless given) at
    every *stride* px."""
    h, w = kind_refs.weight.shape
    scale = kind_refs.scale
    margin = _margin_px(kind_refs, params.shift_mm if shift_mm is None else shift_mm)
    others = [other for other in placements if other is not piece and _near(other, piece)]
    # a piece laid in a heap is turned only to the step it was laid at: try either side of it
    turns = params.heap_refine_deg if not piece.alone and piece.kind.shape != "disc" else (0.0,)
    cuts = []
    for turn in turns:
        turned = replace(piece, angle_deg=piece.angle_deg + turn)
        patch = cut_out(view, turned, (w, h), margin, scale)
        cuts.append(Cut(turn, patch, _visible(turned, others, patch.shape[:2], scale, params)))
    return compare(cuts, kind_refs, params, stride, lambda matches: decide(matches, params).face is not None)


def _visible(piece: Placement, others: list[Placement], shape: tuple[int, int], scale: float,
             params: Params) -> np.ndarray:
    """1 where none of *others* lies over *piece*'s cut-out (:func:`cut_out`'s patch), else 0."""
    visible = np.ones(shape, np.float32)
    if not others:
        return visible
    a = math.radians(piece.angle_deg)
    k = scale / piece.px_per_mm  # patch px per view px
    cos, sin = math.cos(a), math.sin(a)
    oy, ox = (shape[0] - 1) / 2, (shape[1] - 1) / 2
    for other in others:
        d = other.outline() - np.asarray(piece.centre)
        # view -> patch: the inverse turn, scaled, about the patch's centre
        u = (d[:, 0] * cos + d[:, 1] * sin) * k + ox
        v = (-d[:, 0] * sin + d[:, 1] * cos) * k + oy
        cv2.fillPoly(visible, [np.round(np.column_stack([u, v]) * 16).astype(np.int32)], 0.0, cv2.LINE_8, 4)
    trim = 2 * round(params.edge_trim_mm * scale) + 1  # the other piece's blurred edge is not this one
    return np.asarray(cv2.erode(visible, np.ones((trim, trim), np.uint8)), np.float32)


def _turned_as_matched(piece: Placement, matches: list[Match]) -> Placement:
    if piece.alone or not matches or piece.kind.shape == "disc":
        return piece
    turn = matches[0].turn_deg
    fine = turn - 90.0 * round(turn / 90.0) if piece.kind.is_square else turn - 180.0 * round(turn / 180.0)
    return replace(piece, angle_deg=piece.angle_deg + fine)


def _near(a: Placement, b: Placement) -> bool:
    reach = (math.hypot(*a.kind.size_mm) * a.px_per_mm + math.hypot(*b.kind.size_mm) * b.px_per_mm) / 2
    return math.dist(a.centre, b.centre) < reach


def _lights(found: list[tuple[Placement, list[Match]]], params: Params) -> list[np.ndarray | None]:
    """The light's colour at each piece of *found*, as the pieces named show it (their
    :attr:`~vision.reading.identify.Match.tint`): their median; or, where at least
    :attr:`Params.light_plane_min` of them are within :attr:`Params.tint_max` of it, a plane
    across the view through theirs (each piece's centre held within theirs). None where no
    piece is named."""
    named = [(piece.centre, matches[0].tint) for piece, matches in found
             if matches and matches[0].tint is not None and decide(matches, params).face is not None]
    if not named:
        return [None] * len(found)
    tints = np.array([tint for _centre, tint in named])
    median = np.median(tints, axis=0)
    near = np.array([_hue_off(tint - median) <= params.tint_max for tint in tints])
    if near.sum() < params.light_plane_min:
        return [median] * len(found)
    centres = np.array([centre for centre, _tint in named])[near]
    plane = np.linalg.lstsq(np.column_stack([np.ones(len(centres)), centres]), tints[near], rcond=None)[0]
    low, high = centres.min(axis=0), centres.max(axis=0)
    return [np.concatenate([[1.0], np.clip(piece.centre, low, high)]) @ plane for piece, _m in found]


def _hue_off(tint: np.ndarray) -> float:
    """How far a colour ratio (natural log, per channel) is from grey: its largest difference
    between two channels (a ratio the same in every channel is only lighter or darker)."""
    return float(tint.max() - tint.min())


def _report(plane: Plane, piece: Placement, matches: list[Match], params: Params,
            pieces: list[FoundPiece], unknown: list[UnknownPiece], light: np.ndarray | None = None) -> None:
    """Add *piece* to *pieces* when its faces' *matches* name one and its colour against that
    face's is the *light*'s (within :attr:`Params.tint_max`), else to *unknown*."""
    verdict = decide(matches, params)
    best = verdict.best
    if (verdict.face is not None and best is not None and light is not None and best.tint is not None
            and _hue_off(np.asarray(best.tint) - light) > params.tint_max):
        verdict = replace(verdict, face=None)  # the face's print in another colour
    centre = np.array([piece.centre])
    outline = _points(plane.to_frame(piece.outline()))
    if verdict.face is None or best is None:
        unknown.append(UnknownPiece(_point(plane.to_report(centre)), plane.in_mm,
                                    best=None if best is None else f"{piece.kind.name}/{best.face}",
                                    score=None if best is None else round(best.score, 4),
                                    margin=round(verdict.margin, 4), outline_px=outline))
        return
    face_down = verdict.face == "back"
    pieces.append(FoundPiece(
        kind=piece.kind.name, face="down" if face_down else "up", front=None if face_down else verdict.face,
        center=_point(plane.to_report(centre)), in_mm=plane.in_mm,
        angle_deg=round(piece.angle_deg + best.turn_deg, 6) % 360.0, confidence=verdict.confidence,
        score=best.score, margin=verdict.margin, outline_px=outline))


def _whole_view(view: np.ndarray, kinds: list[PieceKind], params: Params) -> list[Placement]:
    """The view as one piece of each kind whose outline it has (a scan, a cropped photo)."""
    h, w = view.shape[:2]
    out = []
    for kind in kinds:
        kw, kh = kind.size_mm
        for angle, (across, down) in ((0.0, (kw, kh)), (90.0, (kh, kw))):
            if abs((w / h) / (across / down) - 1.0) <= params.size_tolerance:
                scale = math.sqrt(w * h / (kw * kh))
                out.append(Placement(kind, ((w - 1) / 2, (h - 1) / 2), angle, scale, True))
                break
    return out


def _alone_on_surface(view: np.ndarray, kinds: list[PieceKind]) -> list[Placement]:
    """For each kind, the one piece of it that stands out from the surface round it, found as
    :meth:`Library.register` finds a piece in a photo (:func:`vision.library.find_piece`)."""
    out = []
    for kind in kinds:
        frame = find_piece(view, kind)
        if frame is None:
            continue
        corners = frame_points(frame, np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]))
        top, side = corners[1] - corners[0], corners[3] - corners[0]
        px_per_mm = (math.hypot(*top) / kind.size_mm[0] + math.hypot(*side) / kind.size_mm[1]) / 2
        out.append(Placement(kind, frame_point(frame, 0.5, 0.5), math.degrees(math.atan2(top[1], top[0])),
                             px_per_mm, True, corners.astype(np.float32) if kind.shape == "rect" else None))
    return out


def _point(points: np.ndarray) -> tuple[float, float]:
    x, y = np.asarray(points, np.float64).reshape(-1, 2)[0]
    return float(x), float(y)


def _points(points: np.ndarray) -> tuple[tuple[float, float], ...]:
    return tuple((x, y) for x, y in np.asarray(points, np.float64).reshape(-1, 2).tolist())

