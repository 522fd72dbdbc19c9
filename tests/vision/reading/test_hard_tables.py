"""The staged reader on tables that are hard to find pieces on: a photo at a slant with no
scale, pieces laid edge to edge, a mat whose edge the pieces touch, a mat dimmer towards its
edge, a marker near a mat's corner, a printed frame round the pieces, a coin whose rim or back
is nearly the surface's colour, and light of another colour."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.reading.test_read import COIN, SCALE, SURFACE, TILE, cloth, put, tile_face
from vision.library import Library, PieceKind, find_piece, frame_points
from vision.reading import _compared, read
from vision.reading.decide import decide
from vision.reading.faces import references
from vision.reading.find import marker_areas, not_table
from vision.reading.fit import Placement
from vision.reading.params import DEFAULT

FACES = ("moon", "drop", "star", "cross")


def _library(root: Path) -> Library:
    library = Library.create(root)
    for name in FACES:
        library.register("tile", "rect", TILE, tile_face(name), front=name)
    return library


@pytest.mark.slow
def test_a_tile_seen_at_a_slant_is_read_without_a_scale(tmp_path: Path) -> None:
    library = _library(tmp_path / "library")
    for name in FACES:
        photo = np.full((480, 640, 3), (40, 45, 50), np.uint8)
        face = tile_face(name)
        # the near edge wider than the far one, as a camera a little off straight above sees it
        seen = np.float32([[232, 110], [418, 116], [442, 362], [204, 354]])
        m = cv2.getPerspectiveTransform(np.float32([[0, 0], [400, 0], [400, 400], [0, 400]]), seen)
        warped = cv2.warpPerspective(face, m, (640, 480))
        cover = cv2.warpPerspective(np.full((400, 400), 255, np.uint8), m, (640, 480))[:, :, None] / 255.0
        photo = np.round(photo * (1 - cover) + warped * cover).astype(np.uint8)
        assert [p.front for p in read(photo, library).pieces] == [name]


@pytest.mark.slow
def test_tiles_laid_edge_to_edge_are_each_read_without_a_scale(tmp_path: Path) -> None:
    library = _library(tmp_path / "library")
    table = np.full((round(150 * SCALE), round(200 * SCALE), 3), (25, 25, 25), np.uint8)
    laid = [(name, (32 + 45 * (i % 4), 30 + 45 * (i // 4))) for i, name in enumerate(FACES * 3)]
    for name, centre in laid:
        put(table, tile_face(name), TILE, centre, 0.0)
    result = read(table, library)
    assert not result.unknown
    got = sorted((round(p.center[1] / SCALE / 45), round(p.center[0] / SCALE / 45), p.front) for p in result.pieces)
    assert got == sorted((round(c[1] / 45), round(c[0] / 45), n) for n, c in laid)


@pytest.mark.slow
def test_tiles_near_the_edge_of_a_mat_are_read(tmp_path: Path) -> None:
    library = _library(tmp_path / "library")
    rng = np.random.default_rng(3)
    table = np.full((round(250 * SCALE), round(400 * SCALE), 3), (120, 170, 190), np.float32)  # sand
    shade = cv2.GaussianBlur(rng.normal(0, 1, table.shape[:2]).astype(np.float32), (0, 0), 25)
    table += (shade / shade.std() * 14)[:, :, None] + rng.normal(0, 6, table.shape)  # mottled
    mat = np.s_[round(10 * SCALE):round(240 * SCALE), round(150 * SCALE):round(380 * SCALE)]
    table[mat] = (70, 40, 60) + rng.normal(0, 3, table[mat].shape)  # a dark mat on it
    table = np.clip(table, 0, 255).astype(np.uint8)
    put(table, tile_face("star"), TILE, (173, 120), 0.0)  # 3 mm in from the mat's edge
    put(table, tile_face("drop"), TILE, (240, 32), 0.0)
    put(table, tile_face("moon"), TILE, (300, 60), 20.0)
    result = read(table, library, px_per_mm=SCALE)
    assert sorted(p.front or "" for p in result.pieces) == ["drop", "moon", "star"]


def _dim_edged_mat(turn_deg: float, falloff_mm: float, depth: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A dark mat, turned *turn_deg* on a sand floor, whose light falls off by *depth* over its
    last *falloff_mm*; and each pixel's distance in from the mat's edge (mm, negative past it)."""
    rng = np.random.default_rng(seed)
    table = np.full((round(250 * SCALE), round(400 * SCALE), 3), (120, 170, 190), np.float32)
    table += rng.normal(0, 6, table.shape)
    ys, xs = np.mgrid[0:table.shape[0], 0:table.shape[1]] / SCALE
    a = math.radians(turn_deg)
    u = (xs - 200) * math.cos(a) + (ys - 125) * math.sin(a)
    v = -(xs - 200) * math.sin(a) + (ys - 125) * math.cos(a)
    edge_mm = np.minimum.reduce([v + 105, 105 - v, u + 140, 140 - u])
    light = 1.0 - depth * np.clip(1.0 - edge_mm / falloff_mm, 0.0, 1.0) ** 2
    mat = (np.array([50, 48, 46], np.float32) + rng.normal(0, 2, table.shape)) * light[:, :, None]
    table[edge_mm >= 0] = mat[edge_mm >= 0]
    return np.clip(table, 0, 255).astype(np.uint8), edge_mm


@pytest.mark.parametrize(("turn_deg", "falloff_mm", "depth"), [(1.5, 20.0, 0.2), (-2.5, 30.0, 0.15)])
def test_a_mat_darker_towards_its_edges_is_table_up_to_its_edge(tmp_path: Path, turn_deg: float,
                                                                falloff_mm: float, depth: float) -> None:
    """The table's colour along a mat's edge is the mat's own there, not mixed with the floor's
    past it: the mat dimmed by the light's fall-off is no piece."""
    table, edge_mm = _dim_edged_mat(turn_deg, falloff_mm, depth, seed=6)
    laid = [("star", (200, 200), 10.0), ("moon", (200, 110), 0.0), ("drop", (88, 70), 30.0)]
    for name, centre, angle in laid:
        put(table, tile_face(name), TILE, centre, angle)
    mask = not_table(table, np.ones(table.shape[:2], np.uint8), None, TILE[0] * SCALE, SCALE, DEFAULT)
    ys, xs = np.mgrid[0:table.shape[0], 0:table.shape[1]] / SCALE
    tiles = np.zeros(table.shape[:2], bool)
    for _name, (x, y), _angle in laid:
        tiles |= np.hypot(xs - x, ys - y) < 32
    marked_mm2 = float((mask.astype(bool) & (edge_mm > 3) & ~tiles).sum()) / SCALE**2
    assert marked_mm2 < 150, marked_mm2  # specks, under a tenth of a tile; a band along the edge is more
    result = read(table, _library(tmp_path / "library"), px_per_mm=SCALE)
    assert sorted(p.front for p in result.pieces) == ["drop", "moon", "star"]
    assert not result.unknown, [tuple(round(v / SCALE) for v in u.center) for u in result.unknown]


@pytest.mark.parametrize("gap_mm", [8.0, 12.0])
def test_a_marker_near_a_mats_corner_lends_the_mat_no_colour(tmp_path: Path, gap_mm: float) -> None:
    """A marker's white sheet a little in from a green mat's corner, on a pale floor: the mat
    round it, up to the mat's corners, is table, neither the floor's nor the sheet's colour."""
    rng = np.random.default_rng(8)
    table = np.full((round(250 * SCALE), round(400 * SCALE), 3), (215, 210, 205), np.float32)  # a pale floor
    table += rng.normal(0, 6, table.shape)
    mat = np.s_[round(20 * SCALE):round(230 * SCALE), round(40 * SCALE):round(360 * SCALE)]
    table[mat] = (40, 110, 50) + rng.normal(0, 3, table[mat].shape)  # a green mat on it
    table = np.clip(table, 0, 255).astype(np.uint8)
    right, top = 360 - gap_mm, 20 + gap_mm  # the sheet's top right corner (mm)
    table[round(top * SCALE):round((top + 50) * SCALE), round((right - 50) * SCALE):round(right * SCALE)] = 235
    inner = np.array([[right - 43, top + 7], [right - 7, top + 7], [right - 7, top + 43], [right - 43, top + 43]])
    x0, y0 = np.round(inner[0] * SCALE).astype(int)
    x1, y1 = np.round(inner[2] * SCALE).astype(int)
    table[y0:y1, x0:x1] = 20  # the marker's black square
    table[y0 + 18:y0 + 36, x0 + 18:x0 + 36] = 235
    quad = np.asarray(inner * SCALE, np.float32)
    sheets = marker_areas(table.shape, [quad], DEFAULT.marker_quiet_zone, DEFAULT.marker_margin_mm * SCALE)
    mask = not_table(table, np.ones(table.shape[:2], np.uint8), None, TILE[0] * SCALE, SCALE, DEFAULT, sheets)
    ys, xs = np.mgrid[0:table.shape[0], 0:table.shape[1]] / SCALE
    on_mat = (ys > 22) & (ys < 228) & (xs > 42) & (xs < 358)  # 2 mm in from its edge
    marked_mm2 = float((mask.astype(bool) & on_mat & ~sheets).sum()) / SCALE**2
    assert marked_mm2 < 100, marked_mm2  # specks; a corner of the mat or the strip beside the sheet is more
    laid = [("star", (100, 80), 10.0), ("moon", (200, 150), 0.0), ("drop", (300, 190), 30.0)]
    for name, centre, angle in laid:
        put(table, tile_face(name), TILE, centre, angle)
    result = read(table, _library(tmp_path / "library"), px_per_mm=SCALE, seen_markers={0: quad})
    assert sorted(p.front for p in result.pieces) == ["drop", "moon", "star"]
    assert not result.unknown, [tuple(round(v / SCALE) for v in u.center) for u in result.unknown]


def test_pieces_inside_a_printed_frame_line_are_read(tmp_path: Path) -> None:
    """A board's frame, a thin line closed round the pieces, is no piece, and hides none."""
    table = cloth(400, 250, seed=9)
    cv2.rectangle(table, (round(20 * SCALE), round(15 * SCALE)), (round(380 * SCALE), round(235 * SCALE)),
                  (30, 30, 35), round(2 * SCALE))
    laid = [("star", (90, 100), 15.0), ("moon", (250, 120), 30.0), ("drop", (330, 190), 5.0)]
    for name, centre, angle in laid:
        put(table, tile_face(name), TILE, centre, angle)
    result = read(table, _library(tmp_path / "library"), px_per_mm=SCALE)
    assert sorted(p.front for p in result.pieces) == ["drop", "moon", "star"]


def test_a_small_coin_with_a_faint_rim_registers_at_its_whole_size(tmp_path: Path) -> None:
    face = np.full((240, 240, 3), 255, np.uint8)
    cv2.circle(face, (120, 120), 120, (125, 121, 120), -1)  # the rim's outer band: near the surface
    cv2.circle(face, (120, 120), 104, (190, 190, 195), -1)
    cv2.circle(face, (120, 120), 80, (30, 30, 35), -1)
    cv2.putText(face, "10", (62, 145), cv2.FONT_HERSHEY_SIMPLEX, 2.4, (245, 245, 245), 8)
    photo = np.full((900, 900, 3), 128, np.uint8)  # a plain grey surface, the coin 5 % of it
    disc = np.zeros((240, 240), np.uint8)
    cv2.circle(disc, (120, 120), 120, 255, -1)
    spot = photo[300:540, 400:640]
    spot[disc > 0] = face[disc > 0]
    frame = find_piece(photo, PieceKind("coin", "disc", (24.0, 24.0)))
    assert frame is not None
    corners = frame_points(frame, np.array([[0.0, 0.0], [1.0, 1.0]]))
    assert np.allclose(corners, [[400, 300], [640, 540]], atol=240 * 0.04), corners


def test_tiles_near_the_table_colour_are_found_in_a_shadow_the_empty_frame_lacks(tmp_path: Path) -> None:
    """Red tiles on a red table differ from it by about 16 in CIELAB: a shadow a third dark,
    which the empty frame lacks, would shrink that to about 11, under the bar of 12, were the
    empty frame darkened to the photo's light rather than the photo brightened to its."""
    library = _library(tmp_path / "library")
    rng = np.random.default_rng(5)
    h, w = round(300 * SCALE), round(500 * SCALE)
    empty = np.clip(np.full((h, w, 3), (40, 60, 170), np.float32) + rng.normal(0, 3, (h, w, 3)), 0, 255)
    empty = empty.astype(np.uint8)
    table = empty.copy()
    laid = [("star", (90, 120), 15.0), ("moon", (150, 90), 30.0), ("star", (170, 190), 60.0), ("star", (400, 150), 5.0)]
    for name, centre, angle in laid:
        put(table, tile_face(name), TILE, centre, angle)
    shade = np.zeros((h, w), np.float32)
    shade[:, : w // 2] = 1.0  # over the left half, where three of the tiles lie
    gain = (1.0 - 0.35 * cv2.GaussianBlur(shade, (0, 0), 15 * SCALE))[..., None]
    result = read(np.clip(table * gain, 0, 255).astype(np.uint8), library, px_per_mm=SCALE, empty=empty)
    assert sorted(p.front for p in result.pieces) == sorted(name for name, _c, _a in laid), result
    assert not result.unknown, result.unknown


def _framed_card(name: str) -> np.ndarray:
    """A 50 x 70 mm cream card at 10 px/mm with a frame 0.6 mm wide and a mark of its own."""
    card = np.full((700, 500, 3), (210, 222, 230), np.uint8)
    ink = {"sun": (40, 140, 40), "rain": (160, 80, 30), "wind": (40, 40, 180)}[name]
    cv2.rectangle(card, (25, 25), (474, 674), ink, 6)
    if name == "sun":
        cv2.circle(card, (250, 380), 110, (30, 150, 230), 14)
    else:
        for i in range(3):
            a, b = ((170 + 80 * i, 280), (130 + 80 * i, 480)) if name == "rain" else ((120, 300 + 80 * i), (380, 270 + 80 * i))
            cv2.line(card, a, b, ink, 14)
    return card


def test_cards_of_nearly_the_cloths_colour_are_found_whole_by_their_thin_frames(tmp_path: Path) -> None:
    """The cards' paper is about 10 from the linen in CIELAB, under the empty frame's bar of 12:
    each card differs from the empty table by its thin frame and its mark alone. The frame
    closes round the card, so the card is found whole, though the frame is too thin to outlast
    the taking off of specks."""
    library = Library.create(tmp_path / "library")
    for name in ("sun", "rain", "wind"):
        library.register("card", "rect", (50.0, 70.0), _framed_card(name), front=name)
    rng = np.random.default_rng(2)
    h, w = round(250 * SCALE), round(400 * SCALE)
    empty = np.clip(np.full((h, w, 3), (178, 196, 206), np.float32) + rng.normal(0, 2, (h, w, 3)), 0, 255)
    table = empty.astype(np.uint8)
    laid = [("sun", (80, 100), 10.0), ("rain", (200, 130), 95.0), ("wind", (320, 120), -20.0)]
    for name, centre, angle in laid:
        put(table, _framed_card(name), (50.0, 70.0), centre, angle)
    now = cv2.GaussianBlur(table, (0, 0), 1.0).astype(np.float32) + rng.normal(0, 2, table.shape)
    result = read(np.clip(now, 0, 255).astype(np.uint8), library, px_per_mm=SCALE, empty=empty.astype(np.uint8))
    named = {p.front: (p.center[0] / SCALE, p.center[1] / SCALE) for p in result.pieces}
    assert sorted(named) == ["rain", "sun", "wind"], result
    assert all(math.dist(named[name], centre) <= 1.5 for name, centre, _a in laid), named
    assert not result.unknown, result.unknown


def test_a_streak_of_grain_and_a_band_along_the_edge_are_not_reported_but_a_block_is(tmp_path: Path) -> None:
    """Longer than any piece and nowhere as thick as the narrowest: no piece, part or heap."""
    library = _library(tmp_path / "library")
    table = cloth(400, 250, seed=4)
    a, b = (round(40 * SCALE), round(200 * SCALE)), (round(170 * SCALE), round(180 * SCALE))
    cv2.line(table, a, b, (40, 45, 50), round(6 * SCALE))  # dark grain, 6 mm wide, 130 mm long
    table[: round(8 * SCALE), round(150 * SCALE):round(330 * SCALE)] = (30, 35, 40)  # the floor past the board
    die = np.s_[round(186 * SCALE):round(211 * SCALE), round(196 * SCALE):round(221 * SCALE)]
    table[die] = (235, 235, 240)  # a 25 mm block, no registered piece
    laid = [("star", (90, 100), 15.0), ("moon", (250, 120), 30.0), ("drop", (330, 200), 5.0)]
    for name, centre, angle in laid:
        put(table, tile_face(name), TILE, centre, angle)
    result = read(table, library, px_per_mm=SCALE)
    assert sorted(p.front for p in result.pieces) == ["drop", "moon", "star"]
    assert [tuple(round(v / SCALE) for v in u.center) for u in result.unknown] == [(208, 198)], result.unknown


def _ring(colour: tuple[int, int, int]) -> np.ndarray:
    """A white card-like tile with a thin ring drawn in *colour* (BGR)."""
    face = np.full((400, 400, 3), 240, np.uint8)
    cv2.ellipse(face, (200, 200), (120, 70), 0, 0, 360, colour, 10)
    return face


def test_light_of_another_colour_does_not_change_the_faces(tmp_path: Path) -> None:
    inks = {"red": (40, 40, 200), "green": (60, 150, 40)}
    library = Library.create(tmp_path / "library")
    for name, ink in inks.items():
        library.register("tile", "rect", TILE, _ring(ink), front=name)
    table = cloth()
    for i, ink in enumerate(inks.values()):
        put(table, _ring(ink), TILE, (50 + 90 * i, 100), 20.0 * i)
    warm = np.clip(table * np.array([0.75, 0.9, 1.12]), 0, 255).astype(np.uint8)  # BGR: less blue
    result = read(warm, library, px_per_mm=SCALE)
    assert [p.front for p in sorted(result.pieces, key=lambda p: p.center[0])] == list(inks)


def test_a_coin_whose_rim_is_the_tables_colour_is_read(tmp_path: Path) -> None:
    wood = (40, 80, 130)  # BGR: a copper rim on wood of its colour
    face = np.full((240, 240, 3), 255, np.uint8)
    cv2.circle(face, (120, 120), 119, wood, -1)
    cv2.circle(face, (120, 120), 96, (60, 150, 40), -1)
    cv2.putText(face, "50", (55, 150), cv2.FONT_HERSHEY_SIMPLEX, 2.8, (245, 245, 245), 9)
    other = face.copy()
    cv2.circle(other, (120, 120), 96, (170, 70, 30), -1)
    cv2.putText(other, "7", (85, 150), cv2.FONT_HERSHEY_SIMPLEX, 2.8, (245, 245, 245), 9)
    library = Library.create(tmp_path / "library")
    for name, image in (("fifty", face), ("seven", other)):
        photo = np.full((600, 600, 3), 128, np.uint8)
        round_ = np.zeros((240, 240), np.uint8)
        cv2.circle(round_, (120, 120), 119, 1, -1)
        photo[180:420, 180:420][round_ > 0] = image[round_ > 0]
        library.register("coin", "disc", (24.0, 24.0), photo, front=name)
    table = cloth()
    table[:] = np.clip(table.astype(np.int16) - (96, 104, 98) + wood, 0, 255).astype(np.uint8)
    put(table, face, (24.0, 24.0), (80, 90), 0.0, disc=True)
    put(table, other, (24.0, 24.0), (200, 120), 0.0, disc=True)
    result = read(table, library, px_per_mm=SCALE)
    assert sorted((p.front or "", round(p.center[0] / SCALE, -1)) for p in result.pieces) == [
        ("fifty", 80), ("seven", 200)]


def _coin(ground: tuple[int, int, int], mark: str) -> np.ndarray:
    """A 24 mm coin's face at 10 px/mm: *ground* (BGR) with a light *mark* on it."""
    face = np.full((240, 240, 3), 255, np.uint8)
    cv2.circle(face, (120, 120), 119, ground, -1)
    if mark == "crescent":  # no disc: what stands out of a cloth of the ground's colour
        cv2.circle(face, (120, 120), 100, (225, 230, 230), -1)
        cv2.circle(face, (180, 120), 55, ground, -1)
    else:
        cv2.putText(face, mark, (55, 150), cv2.FONT_HERSHEY_SIMPLEX, 2.8, (245, 245, 245), 9)
    return face


def _registered_coin(library: Library, face: np.ndarray, size: tuple[float, float] = COIN,
                     **which: str | bool) -> None:
    photo = np.full((600, 600, 3), 160, np.uint8)
    round_ = np.zeros((240, 240), np.uint8)
    cv2.circle(round_, (120, 120), 119, 1, -1)
    photo[180:420, 180:420][round_ > 0] = face[round_ > 0]
    library.register("coin", "disc", size, photo, **which)  # type: ignore[arg-type]


@pytest.mark.parametrize("coarse", [1.0, 0.5])
def test_a_coin_whose_rim_is_the_cloths_colour_and_middle_a_third_of_its_area_is_read(tmp_path: Path,
                                                                                     coarse: float) -> None:
    faces = {}
    for name in ("3", "7"):
        face = np.full((240, 240, 3), 255, np.uint8)
        cv2.circle(face, (120, 120), 119, SURFACE, -1)
        cv2.circle(face, (120, 120), 68, (30, 30, 30), -1)  # a middle of 0.57 the coin's width
        cv2.putText(face, name, (92, 150), cv2.FONT_HERSHEY_SIMPLEX, 2.6, (245, 245, 245), 9)
        faces[name] = face
    library = Library.create(tmp_path / "library")
    for name, face in faces.items():
        _registered_coin(library, face, front=name)
    table = cloth()
    put(table, faces["3"], COIN, (80, 90), 20.0, disc=True)
    put(table, faces["7"], COIN, (200, 120), -30.0, disc=True)
    table = cv2.resize(table, None, fx=coarse, fy=coarse, interpolation=cv2.INTER_AREA)
    result = read(table, library, px_per_mm=SCALE * coarse)
    assert sorted((p.front or "", round(p.center[0] / (SCALE * coarse), -1)) for p in result.pieces) == [
        ("3", 80), ("7", 200)]
    assert not result.unknown


def test_a_coin_whose_back_is_the_cloths_colour_but_for_a_mark_is_read_face_down(tmp_path: Path) -> None:
    library = Library.create(tmp_path / "library")
    _registered_coin(library, _coin((40, 50, 200), "50"), front="fifty")
    _registered_coin(library, _coin((170, 70, 30), "7"), front="seven")
    back = _coin(SURFACE, "crescent")
    _registered_coin(library, back, back=True)
    table = cloth()
    put(table, back, COIN, (80, 90), 30.0, disc=True)
    # something of the mark's size and colour that is no coin
    cv2.rectangle(table, (round(190 * SCALE), round(105 * SCALE)), (round(210 * SCALE), round(115 * SCALE)),
                  (225, 230, 230), -1)
    result = read(table, library, px_per_mm=SCALE)
    assert [(p.face, p.front) for p in result.pieces] == [("down", None)]
    assert math.dist(result.pieces[0].center, (80 * SCALE, 90 * SCALE)) < 1.5 * SCALE
    assert len(result.unknown) == 1 and abs(result.unknown[0].center[0] / SCALE - 200) < 5


def test_a_coin_laid_on_a_tile_is_read_and_so_is_the_tile(tmp_path: Path) -> None:
    library = _library(tmp_path / "library")
    chip = (16.0, 16.0)
    _registered_coin(library, _coin((40, 50, 200), "50"), chip, front="fifty")
    _registered_coin(library, _coin((170, 70, 30), "7"), chip, front="seven")
    table = cloth()
    put(table, tile_face("drop"), TILE, (100, 100), 10.0)
    put(table, _coin((170, 70, 30), "7"), chip, (106, 92), 0.0, disc=True)  # inside the tile's outline
    put(table, tile_face("star"), TILE, (200, 100), 0.0)
    result = read(table, library, px_per_mm=SCALE)
    named = sorted((p.front or "", round(p.center[0] / SCALE), round(p.center[1] / SCALE)) for p in result.pieces)
    assert [front for front, _x, _y in named] == ["drop", "seven", "star"], named
    assert math.dist(next((x, y) for f, x, y in named if f == "seven"), (106, 92)) <= 1.5
    assert not result.unknown


@pytest.mark.parametrize("turn", [0.0, 20.0])
def test_a_coin_across_a_tiles_edge_with_its_print_on_the_tile_is_read(tmp_path: Path, turn: float) -> None:
    library = _library(tmp_path / "library")
    _registered_coin(library, _coin((40, 50, 200), "50"), front="fifty")
    _registered_coin(library, _coin((170, 70, 30), "7"), front="seven")
    table = cloth()
    put(table, tile_face("drop"), TILE, (100, 100), turn)
    put(table, _coin((170, 70, 30), "7"), COIN, (122, 100), 0.0, disc=True)  # its "7" over the tile
    result = read(table, library, px_per_mm=SCALE)
    named = sorted((p.front or "", round(p.center[0] / SCALE), round(p.center[1] / SCALE)) for p in result.pieces)
    assert [front for front, _x, _y in named] == ["drop", "seven"], named
    assert math.dist(next((x, y) for f, x, y in named if f == "seven"), (122, 100)) <= 1.5
    assert not result.unknown


@pytest.mark.parametrize("offset_mm", [(2.5, 0.0), (-2.5, 0.0), (0.0, 2.5), (3.0, 0.0)])
def test_a_coin_fitted_further_off_than_the_search_is_still_told_from_its_twin(tmp_path: Path,
                                                                              offset_mm: tuple[float, float]) -> None:
    library = Library.create(tmp_path / "library")
    faces = {"ten": _coin((30, 30, 30), "10"), "three": _coin((30, 30, 30), "3")}
    for name, face in faces.items():
        _registered_coin(library, face, front=name)
    refs = references(library, DEFAULT)["coin"]
    table = cloth()
    for face, x in zip(faces.values(), (80, 200), strict=True):
        put(table, face, COIN, (x, 90), 25.0, disc=True)
    for name, x in zip(faces, (80, 200), strict=True):
        # the coin's outline fitted this far from where it lies (as in a heap of coins)
        centre = ((x + offset_mm[0]) * SCALE, (90 + offset_mm[1]) * SCALE)
        piece = Placement(refs.kind, centre, 0.0, SCALE, True)
        moved, matches = _compared(table, piece, [piece], refs, DEFAULT)
        assert decide(matches, DEFAULT).face == name
        truth = (x * SCALE, 90 * SCALE)
        assert math.dist(moved.centre, truth) <= math.dist(centre, truth)  # if moved, to where it lies


def _mat_on_cloth() -> np.ndarray:
    """A light mat over the right two thirds of a dark cloth, both with a little grain."""
    rng = np.random.default_rng(3)
    h, w = round(400 * SCALE), round(600 * SCALE)
    table = np.empty((h, w, 3), np.float32)
    table[:, : w // 3] = (43, 47, 44)
    table[:, w // 3:] = (205, 215, 220)
    table += rng.normal(0, 3, table.shape)
    return np.clip(table, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("light", ["dimmer", "warmer to one side", "a shadow over a piece"])
def test_pieces_are_told_from_an_empty_frame_taken_in_other_light(tmp_path: Path, light: str) -> None:
    library = _library(tmp_path / "library")
    empty = _mat_on_cloth()
    table = empty.copy()
    laid = [("moon", (100, 120), 10.0), ("drop", (330, 220), 40.0), ("cross", (480, 100), 75.0)]
    for name, centre, angle in laid:
        put(table, tile_face(name), TILE, centre, angle)
    if light == "dimmer":
        gain = np.full((1, table.shape[1], 3), 0.75, np.float32)
    elif light == "warmer to one side":  # less blue, and fading from left to right
        fade = np.linspace(1.0, 0.7, table.shape[1], dtype=np.float32)[None, :, None]
        gain = fade * np.array([0.85, 0.95, 1.05], np.float32)
    else:  # a soft-edged shadow, a third darker, over the drop and the mat round it
        shade = np.zeros(table.shape[:2], np.float32)
        cv2.circle(shade, (round(330 * SCALE), round(220 * SCALE)), round(120 * SCALE), 1.0, -1)
        gain = (1.0 - 0.35 * cv2.GaussianBlur(shade, (0, 0), 15 * SCALE))[..., None]
    now = np.clip(table * gain, 0, 255).astype(np.uint8)
    result = read(now, library, px_per_mm=SCALE, empty=empty)
    assert sorted(p.front for p in result.pieces) == sorted(name for name, _c, _a in laid), result
    assert not result.unknown, result.unknown
