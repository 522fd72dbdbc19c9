"""The printed mat as one top-down texture: the off-track print, the edge line, the light track
surface with distractors printed on it, the table markers' stickers and the pieces' soft shadows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np
from shapely.geometry import LineString, Point, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points, unary_union

from tests.support.synth.canvas import _smooth_noise
from tests.support.synth.pieces import PlacedPiece
from tests.support.synth.raster import _edge_band, _fill, _paint, _print, _rings, _rot, _transform, _translate
from tests.support.synth.track import HALF_WIDTH_MM
from vision import geometry

BOARD_PX_PER_MM = 4.0
"""Resolution of the printed board's texture (the edge is exact to about 0.02 mm at this)."""


def _shade(bgr: Sequence[float], f: float) -> tuple[float, float, float]:
    return (float(bgr[0]) * f, float(bgr[1]) * f, float(bgr[2]) * f)


def _board(rng: np.random.Generator, area: tuple[float, float], track: Polygon,
           line_w: float, stickers: list[tuple[BaseGeometry, BaseGeometry]], pieces: list[PlacedPiece],
           ) -> tuple[np.ndarray, np.ndarray, list[BaseGeometry]]:
    """The printed mat with markers and the pieces' shadows: (BGR uint8 texture, texture->table
    3x3, the distractors printed inside the track as mm geometry)."""
    aw, ah = area
    s = 1.0 / BOARD_PX_PER_MM
    m = float(rng.uniform(5.0, 25.0))
    tw, th = int(math.ceil((aw + 2 * m) / s)), int(math.ceil((ah + 2 * m) / s))
    to_table = np.array([[s, 0, -m + 0.5 * s], [0, s, -m + 0.5 * s], [0, 0, 1.0]])
    to_px = np.linalg.inv(to_table)

    # the off-track print: a darker blue-green with soft colourful clouds, at 1 px/mm then upsampled
    cw_, ch_ = int(math.ceil(tw * s)), int(math.ceil(th * s))
    base = np.array([rng.uniform(95, 150), rng.uniform(85, 135), rng.uniform(15, 60)], np.float32)
    outside = np.empty((ch_, cw_, 3), np.float32)
    outside[:] = base
    outside *= 1.0 + _smooth_noise(rng, (ch_, cw_), 60.0, 0.10)[..., None]
    for _ in range(int(rng.integers(4, 10))):
        col = tuple(float(v) for v in rng.uniform(70, 220, 3))  # never as dark as the edge line
        centre = (int(rng.uniform(0, cw_)), int(rng.uniform(0, ch_)))
        axes = (int(rng.uniform(15, 80)), int(rng.uniform(10, 50)))
        cv2.ellipse(outside, centre, axes, float(rng.uniform(0, 180)), 0, 360, col, -1, cv2.LINE_AA)
    outside = np.asarray(cv2.GaussianBlur(outside, (0, 0), 2.0), np.float32)
    outside += _smooth_noise(rng, (ch_, cw_), 4.0, 6.0)[..., None]
    board = np.asarray(cv2.resize(np.clip(outside, 0, 255).astype(np.uint8), (tw, th),
                                  interpolation=cv2.INTER_LINEAR), np.uint8)

    # the track surface: light, mildly printed
    light = np.array([rng.uniform(185, 235), rng.uniform(190, 235), rng.uniform(180, 230)], np.float32)
    surf = np.empty((ch_, cw_, 3), np.float32)
    surf[:] = light
    surf *= 1.0 + _smooth_noise(rng, (ch_, cw_), 40.0, 0.04)[..., None]
    surf += _smooth_noise(rng, (ch_, cw_), 3.0, 4.0)[..., None]
    surface = np.asarray(cv2.resize(np.clip(surf, 0, 255).astype(np.uint8), (tw, th),
                                    interpolation=cv2.INTER_LINEAR), np.uint8)

    # distractors printed inside the track: yellow guide lines across it, energy fields, spell symbols
    distractors: list[BaseGeometry] = []
    edge = track.boundary
    minx, miny, maxx, maxy = track.bounds

    def inner_point(min_depth: float) -> np.ndarray | None:
        for _ in range(200):
            q = Point(rng.uniform(minx, maxx), rng.uniform(miny, maxy))
            if track.contains(q) and edge.distance(q) >= min_depth:
                return np.asarray(q.coords[0])
        return None

    lines_wanted, tries = int(rng.integers(2, 6)), 0
    while lines_wanted > 0 and tries < 30:
        tries += 1
        q = inner_point(25.0)
        if q is None:
            break
        near = np.asarray(nearest_points(edge, Point(*q))[0].coords[0])
        d = q - near
        d /= max(1e-9, float(np.linalg.norm(d)))
        d = _rot(float(rng.uniform(-0.2, 0.2))) @ d
        cut = LineString([q - 600 * d, q + 600 * d]).intersection(track)
        parts = [g for g in getattr(cut, "geoms", [cut])
                 if isinstance(g, LineString) and g.distance(Point(*q)) < 1e-6]
        if not parts or parts[0].length > 2.4 * HALF_WIDTH_MM[1]:
            continue  # runs along the track rather than across it
        lines_wanted -= 1
        width = float(rng.uniform(0.8, 2.5))
        stripe = parts[0].buffer(width / 2, cap_style="flat")
        yellow = (rng.uniform(20, 70), rng.uniform(180, 225), rng.uniform(210, 245))
        _print(surface, _transform(stripe, to_px), yellow)
        distractors.append(stripe)
    for _ in range(int(rng.integers(2, 6))):
        r = float(rng.uniform(8.0, 35.0))
        q = inner_point(r + 3.0)
        if q is None:
            break
        disc = Point(*q).buffer(r, quad_segs=32)
        col = tuple(float(v) for v in rng.uniform(20, 240, 3))
        if rng.random() < 0.5:
            ring = disc.difference(Point(*q).buffer(r - rng.uniform(1.5, 5.0)))
            _print(surface, _transform(ring, to_px), col)
        else:
            _print(surface, _transform(disc, to_px), col, float(rng.uniform(0.4, 1.0)))
        distractors.append(disc)
    for _ in range(int(rng.integers(0, 4))):
        r = float(rng.uniform(6.0, 15.0))
        q = inner_point(r + 3.0)
        if q is None:
            break
        k = int(rng.integers(5, 8))
        ang = np.arange(2 * k) * np.pi / k + rng.uniform(0, np.pi)
        rad = np.where(np.arange(2 * k) % 2 == 0, r, r * 0.45)
        star = Polygon(np.column_stack([q[0] + rad * np.cos(ang), q[1] + rad * np.sin(ang)]))
        _print(surface, _transform(star, to_px), tuple(float(v) for v in rng.uniform(20, 200, 3)))
        distractors.append(star)

    # compose: outside, then the line (outside the drivable region), then the track
    line_col = np.array([rng.uniform(15, 60), rng.uniform(15, 55), rng.uniform(15, 55)], np.float32)
    flat = board.reshape(-1, 3)
    outer = _transform(track.buffer(line_w, quad_segs=32), to_px)
    oidx, ocov = _edge_band(outer, (th, tw))
    under = flat[oidx].astype(np.float32)
    _fill(board, outer, [float(v) for v in line_col])
    flat[oidx] = np.clip(line_col[None, :] * ocov[:, None] + under * (1 - ocov[:, None]) + 0.5, 0, 255
                         ).astype(np.uint8)
    inner = _transform(track, to_px)
    iidx, icov = _edge_band(inner, (th, tw))
    under = flat[iidx].astype(np.float32)  # the line, before the surface covers the centres inside
    inner_mask = np.zeros((th, tw), np.uint8)
    _fill(inner_mask, inner, 1)
    board = np.asarray(cv2.copyTo(surface, inner_mask, board), np.uint8)
    flat = board.reshape(-1, 3)
    sflat = surface.reshape(-1, 3)
    flat[iidx] = np.clip(sflat[iidx].astype(np.float32) * icov[:, None] + under * (1 - icov[:, None]) + 0.5,
                         0, 255).astype(np.uint8)

    # table markers: printed stickers stuck on the mat
    for sticker, ink in stickers:
        paper = _shade((rng.uniform(232, 250), rng.uniform(235, 250), rng.uniform(232, 250)), 1.0)
        _paint(board, _transform(sticker, to_px), paper)
        _paint(board, _transform(ink, to_px), _shade((rng.uniform(15, 35),) * 3, 1.0))

    # soft shadows of the pieces under one light
    if pieces:
        light_dir = _rot(float(rng.uniform(-math.pi, math.pi))) @ np.array([1.0, 0.0])
        darkness = float(rng.uniform(0.15, 0.35))
        soft = float(rng.uniform(1.0, 3.0))  # mm
        slope = float(rng.uniform(0.35, 0.9))
        for piece in pieces:
            off = light_dir * (1.5 + piece.height_mm * slope)
            fp = piece.outline_mm
            shifted = fp + off
            quads = [Polygon([fp[i], fp[(i + 1) % len(fp)], shifted[(i + 1) % len(fp)], shifted[i]]).buffer(0)
                     for i in range(len(fp))]
            shadow = unary_union([geometry.polygon(fp), geometry.polygon(shifted), *quads])
            # the shadow is soft: drawn and blurred at 1 px/mm, then stretched over the board's pixels
            x0, y0, x1, y1 = shadow.bounds
            pad = 4.0 * soft + 2.0
            c0 = max(0, int((x0 - pad + m) * BOARD_PX_PER_MM))
            r0 = max(0, int((y0 - pad + m) * BOARD_PX_PER_MM))
            c1 = min(tw, int(math.ceil((x1 + pad + m) * BOARD_PX_PER_MM)))
            r1 = min(th, int(math.ceil((y1 + pad + m) * BOARD_PX_PER_MM)))
            if c1 <= c0 or r1 <= r0:
                continue
            k = int(BOARD_PX_PER_MM)
            lw, lh = -(-(c1 - c0) // k), -(-(r1 - r0) // k)
            coarse = to_px.copy()
            coarse[:2] /= k
            coarse = _translate(-c0 / k + 0.5 / k - 0.5, -r0 / k + 0.5 / k - 0.5) @ coarse
            mask = np.zeros((lh, lw), np.float32)
            rings = [np.round(r[:-1] * 256).astype(np.int32) for r in _rings(_transform(shadow, coarse))]
            cv2.fillPoly(mask, rings, 1.0, cv2.LINE_AA, 8)
            mask = np.asarray(cv2.GaussianBlur(mask, (0, 0), soft), np.float32)
            fine = np.asarray(cv2.resize(mask, (lw * k, lh * k), interpolation=cv2.INTER_LINEAR))
            fine = fine[:r1 - r0, :c1 - c0]
            roi = board[r0:r1, c0:c1].astype(np.float32)
            roi *= (1.0 - darkness * fine)[..., None]
            board[r0:r1, c0:c1] = np.clip(roi + 0.5, 0, 255).astype(np.uint8)

    return board, to_table, distractors
