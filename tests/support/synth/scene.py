"""Whole scenes with their truth: a random camera over the table, the mat, the pieces (side
walls, then top faces) and the effects; and any flat sheet photographed lying on the table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from tests.support.synth.board import _board, _shade
from tests.support.synth.camera import CameraModel, random_camera
from tests.support.synth.canvas import _Canvas, _smooth_noise
from tests.support.synth.effects import Effects
from tests.support.synth.markers import QUIET_CELLS, _marker_geoms, table_area
from tests.support.synth.pieces import PlacedPiece, random_pieces
from tests.support.synth.raster import _apply_h, _paint, _transform
from tests.support.synth.track import LINE_WIDTH_MM, random_track
from vision import geometry
from vision.layout import Layout, PieceSpec, load_layout

TRACK_KEEP_OUT_MM = 10.0
"""How far the drivable region keeps from a table marker's sticker, mm."""

_DRAGON_BGR: dict[str, tuple[float, float, float]] = {
    "red": (45, 45, 190), "blue": (170, 95, 40), "green": (60, 150, 55), "yellow": (40, 200, 225),
    "purple": (140, 50, 125), "white": (232, 234, 236), "black": (40, 40, 40), "orange": (40, 130, 235),
}


@dataclass(frozen=True, eq=False)
class Scene:
    """A rendered scene and its truth: the image (BGR uint8), the camera, the layout, the
    drivable region (table mm), the pieces, 2-3 seed points (mm) well inside the track and
    clear of pieces and printed distractors, the effects applied, and the printed line's width (mm)."""

    image: np.ndarray
    camera: CameraModel
    layout: Layout
    track: Polygon
    pieces: list[PlacedPiece]
    seeds_mm: list[tuple[float, float]]
    effects: Effects
    line_width_mm: float = 0.0


def _piece_colours(rng: np.random.Generator, spec: PieceSpec) -> tuple[tuple[float, float, float], float]:
    """Body colour (BGR) and opacity of a piece: translucent cream/grey plastic, or the dragon's colour."""
    if spec.kind == "template":
        tone = [(205, 222, 232), (214, 216, 218), (200, 215, 215)][int(rng.integers(0, 3))]
        col = tuple(float(np.clip(v + rng.uniform(-10, 10), 0, 255)) for v in tone)
        return (col[0], col[1], col[2]), float(rng.uniform(0.78, 0.92))
    named = _DRAGON_BGR.get((spec.name or "").lower())
    base = named if named is not None else tuple(float(v) for v in rng.uniform(30, 220, 3))
    col = tuple(float(np.clip(v * rng.uniform(0.9, 1.1), 0, 255)) for v in base)
    return (col[0], col[1], col[2]), 1.0


def _draw_piece(canvas: _Canvas, rng: np.random.Generator, layout: Layout, piece: PlacedPiece) -> None:
    """The piece's visible side walls, then its top face (body and marker stickers) as a layer."""
    spec = piece.spec
    body, alpha = _piece_colours(rng, spec)
    h = piece.height_mm
    # side walls: in the undistorted canvas, the walls' silhouette less the top face
    bottom = _apply_h(canvas.plane(0.0), piece.outline_mm)
    top = _apply_h(canvas.plane(h), piece.outline_mm)
    if h > 0:
        n = len(bottom)
        quads = [Polygon([bottom[i], bottom[(i + 1) % n], top[(i + 1) % n], top[i]]).buffer(0)
                 for i in range(n)]
        walls = unary_union([geometry.polygon(bottom), *quads]).difference(geometry.polygon(top))
        canvas.paint(walls, _shade(body, float(rng.uniform(0.55, 0.8))), alpha)
    # the top face texture, in the piece's own frame, at least as fine as the canvas samples it
    ppm = max(4.0, canvas.px_per_mm(piece.outline_mm, h))
    s = 1.0 / ppm
    lo = spec.outline_mm.min(axis=0) - 1.0
    hi = spec.outline_mm.max(axis=0) + 1.0
    tw, th = int(math.ceil((hi[0] - lo[0]) / s)), int(math.ceil((hi[1] - lo[1]) / s))
    local_to_px = np.array([[ppm, 0, -lo[0] * ppm - 0.5], [0, ppm, -lo[1] * ppm - 0.5], [0, 0, 1.0]])
    tex = np.zeros((th, tw, 4), np.float32)
    outline = geometry.polygon(spec.outline_mm)
    _paint(tex, _transform(outline, local_to_px), body, alpha)
    for mid, corners in spec.markers.items():
        sticker, ink = _marker_geoms(layout.dictionary, mid, corners, 1.0 + float(rng.uniform(0.0, 0.3)))
        paper = (float(rng.uniform(232, 250)), float(rng.uniform(235, 250)), float(rng.uniform(232, 250)))
        _paint(tex, _transform(sticker.intersection(outline), local_to_px), paper)
        ink_grey = float(rng.uniform(15, 35))
        _paint(tex, _transform(ink.intersection(outline), local_to_px), (ink_grey, ink_grey, ink_grey))
    c, sn = math.cos(piece.theta_rad), math.sin(piece.theta_rad)
    place = np.array([[c, -sn, piece.x_mm], [sn, c, piece.y_mm], [0, 0, 1.0]])
    canvas.layer(tex, place @ np.linalg.inv(local_to_px), h)


def _table_background(canvas: _Canvas, rng: np.random.Generator,
                      colour: Sequence[float] | None = None) -> None:
    """The table around the mat: a wood-ish (or given) colour with gentle shading."""
    ch, cw = canvas.image.shape[:2]
    base = np.asarray(colour if colour is not None else
                      (rng.uniform(50, 110), rng.uniform(80, 140), rng.uniform(110, 180)), np.float32)
    small = (max(2, ch // 16), max(2, cw // 16))
    field = (1.0 + _smooth_noise(rng, small, 6.0, 0.08))[..., None] * base
    field += _smooth_noise(rng, small, 1.5, 3.0)[..., None]
    canvas.fill(field)


def _seeds(rng: np.random.Generator, track: Polygon, pieces: list[PlacedPiece],
           distractors: list[BaseGeometry]) -> list[tuple[float, float]]:
    """2-3 points well inside the track (30 mm from the edge if it can be), 20 mm clear of
    pieces and 8 mm clear of printed distractors, spread apart."""
    avoid = unary_union([p.polygon.buffer(20.0) for p in pieces] + [d.buffer(8.0) for d in distractors])
    edge = track.boundary
    minx, miny, maxx, maxy = track.bounds
    cand: list[np.ndarray] = []
    for depth in (30.0, 20.0, 10.0):
        xs = rng.uniform(minx, maxx, 600)
        ys = rng.uniform(miny, maxy, 600)
        ok = shapely.contains_xy(track, xs, ys) & ~shapely.contains_xy(avoid, xs, ys)
        pts = shapely.points(xs[ok], ys[ok])
        deep = shapely.distance(pts, edge) >= depth
        cand = [np.array([x, y]) for x, y in zip(xs[ok][deep], ys[ok][deep], strict=True)]
        if len(cand) >= 3:
            break
    if not cand:
        return []
    want = int(rng.integers(2, 4))
    chosen = [cand[0]]
    while len(chosen) < min(want, len(cand)):
        far = max(cand, key=lambda c: min(float(np.linalg.norm(c - q)) for q in chosen))
        chosen.append(far)
    return [(float(c[0]), float(c[1])) for c in chosen]


def random_scene(seed: int, size: tuple[int, int] = (1280, 720), layout: Layout | None = None,
                 pieces: tuple[int, int] = (2, 6), empty: bool = False,
                 effects: Effects | None = None) -> Scene:
    """A random table scene and its truth, the same for the same arguments.

    The camera, track, pieces, print and effects draw from independent streams of *seed*, so
    e.g. passing ``effects=Effects.none()`` changes only the effects. *pieces* is the
    inclusive range of how many pieces to try to place (fewer may fit); *empty* gives the
    same table, camera and lighting with no pieces on it (for learning the track), its
    sensor noise drawn afresh as in any other frame.
    """
    lay = layout if layout is not None else load_layout()
    streams = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(9)]
    r_cam, r_track, r_pieces, r_board, r_fx, r_draw, r_seeds = streams[:7]
    r_noise = streams[8] if empty else streams[7]  # two frames never share their sensor noise
    area = table_area(lay)
    camera = random_camera(r_cam, size, area)
    stickers: list[tuple[BaseGeometry, BaseGeometry]] = []
    keep_out: list[BaseGeometry] = []
    for m in lay.table_markers:
        quiet = float(r_board.uniform(*QUIET_CELLS))
        sticker, ink = _marker_geoms(lay.dictionary, m.id, m.corners_mm, quiet)
        stickers.append((sticker, ink))
        keep_out.append(sticker.buffer(TRACK_KEEP_OUT_MM, join_style="mitre"))
    track = random_track(r_track, area, keep_out)
    placed: list[PlacedPiece] = []
    if not empty:
        count = int(r_pieces.integers(pieces[0], pieces[1] + 1))
        placed = random_pieces(r_pieces, lay, track, count, keep_out=[s for s, _ in stickers])
    fx = effects if effects is not None else Effects.random(r_fx)
    line_w = float(r_board.uniform(*LINE_WIDTH_MM))

    canvas = _Canvas(camera)
    _table_background(canvas, r_draw)
    tex, to_table, distractors = _board(r_board, area, track, line_w, stickers, placed)
    canvas.layer(tex, to_table, 0.0)
    for piece in sorted(placed, key=lambda p: p.height_mm):
        _draw_piece(canvas, r_draw, lay, piece)
    image = fx.apply(canvas.finish(), r_noise)
    seeds = _seeds(r_seeds, track, placed, distractors)
    return Scene(image, camera, lay, track, placed, seeds, fx, line_w)


def render_texture_on_table(texture: np.ndarray, mm_per_px: float, origin_mm: tuple[float, float],
                            camera: CameraModel, effects: Effects, rng: np.random.Generator,
                            background_bgr: tuple[int, int, int] = (90, 110, 90)) -> np.ndarray:
    """A flat printed sheet (grey or BGR uint8 *texture*, *mm_per_px* mm per pixel, its top-left
    corner at *origin_mm*) lying on a table of *background_bgr*, photographed by *camera*
    with *effects*. Returns BGR uint8. A sheet much finer than the camera sees it (a 300 dpi
    print) is first area-averaged down to about 1.5 texture px per canvas px."""
    tex = np.asarray(texture)
    if tex.ndim == 2:
        tex = np.asarray(cv2.cvtColor(tex, cv2.COLOR_GRAY2BGR))
    elif tex.shape[2] == 4:
        tex = np.asarray(cv2.cvtColor(tex, cv2.COLOR_BGRA2BGR))
    tex = tex.astype(np.uint8)
    canvas = _Canvas(camera)
    _table_background(canvas, rng, background_bgr)
    th, tw = tex.shape[:2]
    ox, oy = origin_mm
    corners = np.array([[ox, oy], [ox + tw * mm_per_px, oy], [ox + tw * mm_per_px, oy + th * mm_per_px],
                        [ox, oy + th * mm_per_px]])
    need = 1.5 * canvas.px_per_mm(corners)
    sx = sy = mm_per_px
    if 1.0 / mm_per_px > 1.5 * need:
        nw, nh = max(1, int(round(tw * mm_per_px * need))), max(1, int(round(th * mm_per_px * need)))
        tex = np.asarray(cv2.resize(tex, (nw, nh), interpolation=cv2.INTER_AREA), np.uint8)
        sx, sy = mm_per_px * tw / nw, mm_per_px * th / nh
    to_table = np.array([[sx, 0, ox + 0.5 * sx], [0, sy, oy + 0.5 * sy], [0, 0, 1.0]])
    canvas.layer(tex, to_table, 0.0)
    return effects.apply(canvas.finish(), rng)
