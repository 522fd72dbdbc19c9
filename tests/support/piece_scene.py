"""Synthetic table scenes of game pieces, with exact truth, for :mod:`vision.reading`.

:func:`random_piece_scene` lays 8-20 pieces of :func:`~tests.support.piece_kinds.piece_art`
(any position, any turn, a quarter face down, about one in four overlapping another by 2-20 %
of their area) on a cloth (plain felt, gingham, polka dots or wood) with the layout's table
markers on white stickers, plus distractors that are no piece (a pen, a coffee cup's ring, one
or two coloured blobs of modelling clay), and photographs it through
:func:`tests.support.synth.random_camera` with random :class:`~tests.support.synth.Effects`.
The table is composed as one top-down texture at :data:`TEXTURE_PX_PER_MM` and rendered with
:func:`tests.support.synth.render_texture_on_table`; the empty table (same camera, cloth,
light; fresh sensor noise) comes with it, for the reader's ``empty=``.

Pieces are flat prints on the table's plane (no thickness, no shadow): what is measured
is the reader's segmentation and comparison, not its height correction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from shapely.geometry import Polygon
from shapely.ops import unary_union

from tests.support.piece_drawing import TEXTURE_PX_PER_MM
from tests.support.piece_kinds import KindArt, piece_art
from tests.support.piece_table import (
    DISTRACTOR_ART,
    TableTexture,
    draw_markers,
    footprint,
    random_cloth,
    to_uint8,
    view_bounds,
)
from tests.support.synth import CameraModel, Effects, random_camera, render_texture_on_table, table_area
from vision.calibration import Lens
from vision.layout import Layout, load_layout

GAP_MM = 6.0
"""Pieces that do not overlap keep at least this far from every other piece and
distractor (4 px at the reader's segmentation scale, for a full-table 1280 x 720 view)."""
OVERLAP_RANGE = (0.02, 0.20)
"""An overlapping piece shares this share of its area (and of the other's) with others."""
OVERLAP_CHANCE = 0.15
"""The chance that a piece is laid over or under one already placed (when it can be)."""
DOWN_CHANCE = 0.25
"""The chance that a piece lies face down."""
EDGE_MM = 5.0
"""Pieces and distractors keep this far inside the play area and from marker stickers."""
KIND_WEIGHTS = {"coin": 0.35, "chamber": 0.3, "card": 0.35}
"""How often each kind is drawn for a scene."""

_DOWN = "down"
_UP = "up"


@dataclass(frozen=True, eq=False)
class PieceTruth:
    """A piece on the table as laid. ``angle_deg`` is the direction of the face's top edge
    (as stored in the library), clockwise from +x (table y points down), 0-360: what the
    reader reports. ``overlap`` is the share of its area that other pieces' footprints
    share (above or below it), ``covered`` the share hidden under pieces laid after it.
    ``outline_mm`` (N, 2) is its footprint in table mm; ``order`` its place in the stack
    (0 laid first, at the bottom)."""

    kind: str
    face: str
    front: str | None
    center_mm: tuple[float, float]
    angle_deg: float
    overlap: float
    covered: float
    outline_mm: np.ndarray = field(repr=False)
    order: int = 0

    @property
    def label(self) -> str:
        """``"kind/front"`` or ``"kind/back"``."""
        return f"{self.kind}/{self.front if self.front is not None else 'back'}"


@dataclass(frozen=True, eq=False)
class DistractorTruth:
    """Something on the table that is no piece: ``kind`` is ``"pen"``, ``"cup-ring"`` or
    ``"blob"``; ``outline_mm`` its footprint (a cup ring's: the whole disc it rings)."""

    kind: str
    center_mm: tuple[float, float]
    outline_mm: np.ndarray = field(repr=False)


@dataclass(frozen=True, eq=False)
class PieceScene:
    """A rendered scene and its truth. ``image`` and ``empty`` (the same table without
    pieces or distractors, fresh sensor noise; None when not asked for) are BGR uint8."""

    seed: int
    image: np.ndarray
    empty: np.ndarray | None
    camera: CameraModel
    layout: Layout
    pieces: list[PieceTruth]
    distractors: list[DistractorTruth]
    effects: Effects
    cloth: str
    art_seed: int = 0

    @property
    def lens(self) -> Lens:
        """The camera's lens, as ``companion vision calibrate-lens`` would know it."""
        return Lens(np.asarray(self.camera.K, np.float64), np.asarray(self.camera.dist, np.float64))


def _outline(kind: KindArt, center: tuple[float, float], angle_deg: float) -> np.ndarray:
    w, h = kind.size_mm
    if kind.shape == "disc":
        a = np.linspace(0, 2 * math.pi, 72, endpoint=False)
        local = np.column_stack([np.cos(a), np.sin(a)]) * (w / 2)
    else:
        local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    t = math.radians(angle_deg)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    return np.asarray(local @ rot.T + np.asarray(center), np.float64)


# placing ------------------------------------------------------------------------------------------


def _inside(poly: Polygon, area: tuple[float, float], stickers: list[Polygon]) -> bool:
    x0, y0, x1, y1 = poly.bounds
    if x0 < EDGE_MM or y0 < EDGE_MM or x1 > area[0] - EDGE_MM or y1 > area[1] - EDGE_MM:
        return False
    return not any(poly.distance(s) < EDGE_MM for s in stickers)


def _place_distractors(rng: np.random.Generator, area: tuple[float, float], stickers: list[Polygon],
                       ) -> list[tuple[DistractorTruth, np.ndarray, np.ndarray, float]]:
    """A pen, a cup ring and one or two blobs, clear of each other (the art, alpha and turn too)."""
    kinds = ["pen", "cup-ring", "blob"] + (["blob"] if rng.random() < 0.5 else [])
    out: list[tuple[DistractorTruth, np.ndarray, np.ndarray, float]] = []
    for kind in kinds:
        colour, alpha = DISTRACTOR_ART[kind](rng)
        for _ in range(200):
            c = (float(rng.uniform(0, area[0])), float(rng.uniform(0, area[1])))
            angle = float(rng.uniform(0, 360))
            outline = footprint(alpha, c, angle, kind == "cup-ring")
            poly = Polygon(outline)
            if _inside(poly, area, stickers) and all(poly.distance(Polygon(o.outline_mm)) > 3 * GAP_MM
                                                     for o, *_ in out):
                out.append((DistractorTruth(kind, c, outline), colour, alpha, angle))
                break
    return out


@dataclass
class _Laid:
    kind: KindArt
    front: str | None
    center: tuple[float, float]
    angle: float
    poly: Polygon


def _place_pieces(rng: np.random.Generator, art: dict[str, KindArt], count: int, area: tuple[float, float],
                  stickers: list[Polygon], blocked: list[Polygon]) -> list[_Laid]:
    """Up to *count* pieces: each clear of everything by :data:`GAP_MM`, or (now and then)
    overlapping one or two pieces by :data:`OVERLAP_RANGE` and clear of the rest."""
    names = list(KIND_WEIGHTS)
    weights = np.asarray([KIND_WEIGHTS[n] for n in names])
    laid: list[_Laid] = []
    others = unary_union(blocked) if blocked else None
    for _ in range(count):
        kind = art[names[int(rng.choice(len(names), p=weights / weights.sum()))]]
        fronts = sorted(kind.fronts)
        front = None if rng.random() < DOWN_CHANCE else fronts[int(rng.integers(len(fronts)))]
        want_overlap = bool(laid) and rng.random() < OVERLAP_CHANCE
        piece = None
        for attempt in range(400):
            angle = float(rng.uniform(0, 360))
            if want_overlap and attempt < 300:
                target = laid[int(rng.integers(len(laid)))]
                reach = 0.5 * (max(kind.size_mm) + max(target.kind.size_mm))
                a = rng.uniform(0, 2 * math.pi)
                d = rng.uniform(0.45, 1.0) * reach
                c = (float(target.center[0] + d * math.cos(a)), float(target.center[1] + d * math.sin(a)))
            else:
                c = (float(rng.uniform(0, area[0])), float(rng.uniform(0, area[1])))
            poly = Polygon(_outline(kind, c, angle))
            if not _inside(poly, area, stickers):
                continue
            if others is not None and poly.distance(others) < GAP_MM:
                continue
            if _fits(poly, laid, overlap=want_overlap and attempt < 300):
                piece = _Laid(kind, front, c, angle, poly)
                break
        if piece is not None:
            laid.append(piece)
    return laid


def _fits(poly: Polygon, laid: list[_Laid], overlap: bool) -> bool:
    """Whether *poly* may join *laid*: clear of all by :data:`GAP_MM`; or, with *overlap*,
    overlapping at least one, every piece's total overlap within :data:`OVERLAP_RANGE`, and
    clear of the pieces it does not overlap."""
    lo, hi = OVERLAP_RANGE
    hits = []
    for other in laid:
        if poly.intersects(other.poly):
            if not overlap:
                return False
            hits.append(other)
        elif poly.distance(other.poly) < GAP_MM:
            return False
    if not overlap:
        return True
    if not hits:
        return False
    mine = sum(poly.intersection(o.poly).area for o in hits) / poly.area
    if not lo <= mine <= hi:
        return False
    for o in hits:
        others = [p.poly for p in laid if p is not o and p.poly.intersects(o.poly)] + [poly]
        share = unary_union([o.poly.intersection(p) for p in others]).area / o.poly.area
        if not lo <= share <= hi:
            return False
    return True


def random_piece_scene(seed: int, size: tuple[int, int] = (1280, 720), count: tuple[int, int] = (8, 20), *,
                       art_seed: int = 0, layout: Layout | None = None, effects: Effects | None = None,
                       with_empty: bool = True) -> PieceScene:
    """A random table of pieces (see the module's docstring) and its truth, the same for the
    same arguments. *count* is the inclusive range of pieces tried (a crowded draw may
    place fewer); *art_seed* picks the art (:func:`piece_art`, :func:`make_library`).

    The camera, cloth, placing, distractors, effects and each frame's sensor noise draw
    from independent streams of *seed*: ``effects=Effects.none()`` changes only the
    effects, and ``with_empty=False`` (no empty-table frame, half the time) changes nothing else.
    """
    lay = layout if layout is not None else load_layout()
    streams = [np.random.default_rng(s) for s in np.random.SeedSequence([seed, 0x5CE]).spawn(8)]
    r_cam, r_cloth, r_marks, r_place, r_distract, r_fx, r_noise, r_empty = streams
    area = table_area(lay)
    art = piece_art(art_seed)
    camera = random_camera(r_cam, size, area)
    x0, y0, x1, y1 = view_bounds(camera, area)
    shape = (int(round((y1 - y0) * TEXTURE_PX_PER_MM)), int(round((x1 - x0) * TEXTURE_PX_PER_MM)))
    cloth_name, cloth = random_cloth(r_cloth, shape)
    table = TableTexture((float(x0), float(y0)), to_uint8(cloth))
    stickers = draw_markers(table, lay, r_marks)
    bare = table.image.copy() if with_empty else None

    distractors = _place_distractors(r_distract, area, stickers)
    n = int(r_place.integers(count[0], count[1] + 1))
    laid = _place_pieces(r_place, art, n, area, stickers, [Polygon(d.outline_mm) for d, *_ in distractors])
    for d, colour, alpha, angle in distractors:
        table.paste(colour.astype(np.float32), alpha, d.center_mm, angle)
    truths: list[PieceTruth] = []
    for i, p in enumerate(laid):
        table.paste(p.kind.face(p.front).astype(np.float32), p.kind.mask, p.center, p.angle)
        others = [q.poly for q in laid if q is not p and q.poly.intersects(p.poly)]
        above = [q.poly for q in laid[i + 1:] if q.poly.intersects(p.poly)]
        overlap = unary_union([p.poly.intersection(o) for o in others]).area / p.poly.area if others else 0.0
        covered = unary_union([p.poly.intersection(o) for o in above]).area / p.poly.area if above else 0.0
        truths.append(PieceTruth(p.kind.name, _DOWN if p.front is None else _UP, p.front, p.center,
                                 p.angle % 360.0, float(overlap), float(covered),
                                 np.asarray(p.poly.exterior.coords[:-1], np.float64), i))

    fx = effects if effects is not None else Effects.random(r_fx)
    background = tuple(int(v) for v in np.median(cloth[::16, ::16].reshape(-1, 3), axis=0))
    bg = (background[0], background[1], background[2])
    mm_per_px = 1.0 / TEXTURE_PX_PER_MM
    image = render_texture_on_table(table.image, mm_per_px, (float(x0), float(y0)), camera, fx, r_noise, bg)
    empty = None
    if bare is not None:
        empty = render_texture_on_table(bare, mm_per_px, (float(x0), float(y0)), camera, fx, r_empty, bg)
    return PieceScene(seed, image, empty, camera, lay, truths, [d for d, *_ in distractors], fx, cloth_name,
                      art_seed)
