"""Scoring a reading of a synthetic :class:`~tests.support.piece_scene.PieceScene` against its
truth: what became of each true piece, and what was reported that is none."""

from __future__ import annotations

import math
from dataclasses import dataclass

from shapely.geometry import Point, Polygon
from shapely.ops import unary_union

from tests.support.piece_kinds import piece_art
from tests.support.piece_scene import PieceScene, PieceTruth
from vision.reading.result import FoundPiece, ReadResult


@dataclass(frozen=True, eq=False)
class PieceOutcome:
    """What became of one true piece: ``outcome`` is ``"right"`` (found, kind, face and
    front right), ``"misread"`` (found as another face or kind), ``"unknown"`` (reported
    as unknown) or ``"missed"`` (not reported at all). The errors are for a found piece
    (the angle for a right front only: a back may be symmetric)."""

    truth: PieceTruth
    outcome: str
    read_as: str | None = None
    position_error_mm: float | None = None
    angle_error_deg: float | None = None


@dataclass(frozen=True, eq=False)
class ReadingScore:
    """A reading of a :class:`PieceScene` against its truth. ``pieces`` has one outcome per
    true piece; ``extra`` lists the reported pieces that match none: ``("distractor", label)``
    on a distractor, ``("heap", label)`` on overlapping pieces (near no one's centre),
    ``("phantom", label)`` anywhere else."""

    pieces: list[PieceOutcome]
    extra: list[tuple[str, str]]

    def count(self, outcome: str, overlapping: bool | None = None) -> int:
        """How many true pieces had *outcome* (of those overlapping others, or not, or all)."""
        return sum(1 for p in self.pieces if p.outcome == outcome
                   and (overlapping is None or (p.truth.overlap > 0) == overlapping))

    @property
    def false_known(self) -> int:
        """Pieces reported as known that are not: misread pieces, distractors, phantoms."""
        return self.count("misread") + len(self.extra)


def _angle_diff(a: float, b: float) -> float:
    d = (a - b) % 360.0
    return min(d, 360.0 - d)


def score_reading(scene: PieceScene, result: ReadResult) -> ReadingScore:
    """Scores :func:`vision.reading.read`'s *result* (read with a calibration: centres in
    table mm) against *scene*'s truth.

    A reported piece is matched to the nearest true piece whose centre is within 35 % of
    that piece's shorter side (each report and each piece at most once, nearest pairs
    first); a true piece not matched is ``"unknown"`` when an unknown was reported as near.
    """
    art = piece_art(scene.art_seed)
    truths = scene.pieces
    reach = [0.35 * min(art[t.kind].size_mm) for t in truths]
    pairs = []
    for i, p in enumerate(result.pieces):
        for j, t in enumerate(truths):
            d = math.hypot(p.center[0] - t.center_mm[0], p.center[1] - t.center_mm[1])
            if d <= reach[j]:
                pairs.append((d, i, j))
    matched: dict[int, tuple[int, float]] = {}
    used: set[int] = set()
    for d, i, j in sorted(pairs):
        if i not in used and j not in matched:
            used.add(i)
            matched[j] = (i, d)
    unknowns = [u.center for u in result.unknown]
    free_unknown = list(unknowns)
    groups = _heaps(truths)
    outcomes = []
    for j, t in enumerate(truths):
        if j in matched:
            i, d = matched[j]
            p = result.pieces[i]
            label = _label(p)
            if label == t.label:
                err = None if t.front is None else _angle_diff(p.angle_deg, t.angle_deg)
                outcomes.append(PieceOutcome(t, "right", label, d, err))
            else:
                outcomes.append(PieceOutcome(t, "misread", label, d))
            continue
        near = [(d, k) for k, u in enumerate(free_unknown)
                if (d := math.hypot(u[0] - t.center_mm[0], u[1] - t.center_mm[1])) <= reach[j]]
        if near:
            free_unknown.pop(min(near)[1])
            outcomes.append(PieceOutcome(t, "unknown"))
        elif t.overlap > 0 and any(groups[j].contains(Point(u)) for u in unknowns):
            outcomes.append(PieceOutcome(t, "unknown"))  # one unknown blob for the pieces heaped together
        else:
            outcomes.append(PieceOutcome(t, "missed"))
    extra = []
    distractors = [Polygon(d.outline_mm).buffer(5.0) for d in scene.distractors]
    heaps = [g for g, t in zip(groups, truths, strict=True) if t.overlap > 0]
    for i, p in enumerate(result.pieces):
        if i not in used:
            at = Point(p.center)
            where = ("distractor" if any(poly.contains(at) for poly in distractors)
                     else "heap" if any(h.contains(at) for h in heaps) else "phantom")
            extra.append((where, _label(p)))
    return ReadingScore(outcomes, extra)


def _heaps(truths: list[PieceTruth]) -> list[Polygon]:
    """Per piece: the union of it and every piece it overlaps, directly or through others."""
    polys = [Polygon(t.outline_mm) for t in truths]
    heap = list(range(len(truths)))

    def root(i: int) -> int:
        while heap[i] != i:
            i = heap[i]
        return i

    for i in range(len(truths)):
        for j in range(i + 1, len(truths)):
            if polys[i].intersects(polys[j]):
                heap[root(i)] = root(j)
    members: dict[int, list[Polygon]] = {}
    for i, p in enumerate(polys):
        members.setdefault(root(i), []).append(p)
    unions = {r: unary_union(ps) for r, ps in members.items()}
    return [unions[root(i)] for i in range(len(truths))]


def _label(piece: FoundPiece) -> str:
    return f"{piece.kind}/{piece.front if piece.front is not None else 'back'}"
