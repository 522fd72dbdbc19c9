"""The staged piece reader (``vision.reading``) on pieces drawn here with OpenCV.

These tests check the stages' behaviour (fitting, turning, open-set refusal, reading a
registration photo back); how well the reader does on tables it was not tuned on is measured by
``benchmarks/validation_pieces.py`` and the real Set photos, not here.
"""

from __future__ import annotations

import gc
import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.library import Library, PieceKind
from vision.reading import DEFAULT, read
from vision.reading.fit import _commonest, _Correlation, fit_heap, fit_single

SCALE = 2.0  # px/mm of the drawn top-down tables
TILE = (40.0, 40.0)
COIN = (24.0, 24.0)
SURFACE = (96, 104, 98)  # a grey-green cloth, BGR


def tile_face(name: str) -> np.ndarray:
    """A 40 mm tile's face at 10 px/mm: a coloured ground with a mark, drawn per *name*."""
    img = np.full((400, 400, 3), (235, 235, 230), np.uint8)
    cv2.rectangle(img, (20, 20), (379, 379), (30, 30, 30), 12)
    if name == "moon":
        cv2.circle(img, (200, 200), 120, (20, 20, 20), -1)
        cv2.circle(img, (250, 170), 110, (235, 235, 230), -1)
    elif name == "drop":
        cv2.circle(img, (200, 240), 90, (20, 20, 20), -1)
        cv2.fillConvexPoly(img, np.array([[200, 60], [120, 200], [280, 200]]), (20, 20, 20))
    elif name == "star":
        img[:] = (40, 50, 200)
        star = [(200 + (150 if i % 2 == 0 else 60) * math.cos(math.radians(-90 + 36 * i)),
                 200 + (150 if i % 2 == 0 else 60) * math.sin(math.radians(-90 + 36 * i))) for i in range(10)]
        cv2.fillPoly(img, [np.round(star).astype(np.int32)], (245, 245, 245))
    elif name == "cross":
        img[:] = (40, 50, 200)
        cv2.rectangle(img, (170, 70), (230, 330), (245, 245, 245), -1)
        cv2.rectangle(img, (70, 170), (330, 230), (245, 245, 245), -1)
    elif name == "back":
        img[:] = (90, 110, 60)
        for k in range(-400, 400, 60):
            cv2.line(img, (k, 0), (k + 400, 400), (170, 230, 170), 22)
    cv2.putText(img, name[0].upper(), (40, 90), cv2.FONT_HERSHEY_SIMPLEX, 2.0, (10, 10, 10), 6)
    return img


def put(table: np.ndarray, face: np.ndarray, size_mm: tuple[float, float], centre_mm: tuple[float, float],
        angle_deg: float, disc: bool = False) -> None:
    """Draw *face* on the top-down *table* at *centre_mm*, its top edge turned *angle_deg*
    clockwise."""
    h, w = face.shape[:2]
    k = size_mm[0] * SCALE / w
    t = math.radians(angle_deg)
    lin = k * np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    centre = np.asarray(centre_mm) * SCALE
    m = np.column_stack([lin, centre - lin @ np.array([(w - 1) / 2, (h - 1) / 2])])
    size = (table.shape[1], table.shape[0])
    warped = cv2.warpAffine(face, m, size, flags=cv2.INTER_AREA)
    shape = np.zeros((h, w), np.uint8)
    if disc:
        cv2.circle(shape, (w // 2, h // 2), w // 2, 255, -1)
    else:
        shape[:] = 255
    cover = cv2.warpAffine(shape, m, size, flags=cv2.INTER_LINEAR)[:, :, None] / 255.0
    table[:] = np.round(table * (1 - cover) + warped * cover).astype(np.uint8)


def cloth(w_mm: float = 300, h_mm: float = 200, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    table = np.full((round(h_mm * SCALE), round(w_mm * SCALE), 3), SURFACE, np.float32)
    table += rng.normal(0, 3, table.shape)
    return np.clip(table, 0, 255).astype(np.uint8)


def on_surface(face: np.ndarray, size_mm: tuple[float, float]) -> np.ndarray:
    """A registration photo: the piece alone on the cloth, 15 mm of cloth round it."""
    table = cloth(size_mm[0] + 30, size_mm[1] + 30, seed=7)
    put(table, face, size_mm, (size_mm[0] / 2 + 15, size_mm[1] / 2 + 15), 0.0)
    return table


@pytest.fixture
def tiles(tmp_path: Path) -> Library:
    library = Library.create(tmp_path / "library")
    for name in ("moon", "drop", "star", "cross"):
        library.register("tile", "rect", TILE, on_surface(tile_face(name), TILE), front=name)
    library.register("tile", "rect", TILE, on_surface(tile_face("back"), TILE), back=True)
    return library


def test_each_tile_is_read_with_its_face_place_and_turn(tiles: Library) -> None:
    table = cloth()
    laid = [("moon", (50, 50), 0.0), ("drop", (130, 60), 33.0), ("star", (220, 70), 71.0),
            ("cross", (80, 150), 118.0), ("back", (200, 150), 200.0)]
    for name, centre, angle in laid:
        put(table, tile_face(name), TILE, centre, angle)
    result = read(table, tiles, px_per_mm=SCALE)
    assert not result.unknown
    got = {(p.face, p.front): p for p in result.pieces}
    assert len(result.pieces) == len(laid)
    for name, centre, angle in laid:
        piece = got[("down", None) if name == "back" else ("up", name)]
        assert math.dist([c / SCALE for c in piece.center], centre) < 1.0, (name, piece.center)
        if name != "back":
            assert abs((piece.angle_deg - angle + 180) % 360 - 180) < 3.0, (name, piece.angle_deg)


def test_a_face_left_out_of_the_library_is_unknown(tmp_path: Path) -> None:
    library = Library.create(tmp_path / "library")
    for name in ("moon", "star", "cross"):
        library.register("tile", "rect", TILE, on_surface(tile_face(name), TILE), front=name)
    table = cloth()
    put(table, tile_face("drop"), TILE, (60, 60), 15.0)
    put(table, tile_face("star"), TILE, (200, 120), 40.0)
    result = read(table, library, px_per_mm=SCALE)
    assert [(p.front, round(p.center[0] / SCALE)) for p in result.pieces] == [("star", 200)]
    assert len(result.unknown) == 1 and abs(result.unknown[0].center[0] / SCALE - 60) < 2


def test_a_library_s_references_go_with_it(tmp_path: Path) -> None:
    """The references worked out for a library are kept while it lives and dropped with it: a
    new library made after it (the app's after a registration, each test's) can never be read
    with the old one's faces, whatever memory it is given."""
    import vision.reading as reading

    library = Library.create(tmp_path / "library")
    library.register("tile", "rect", TILE, on_surface(tile_face("moon"), TILE), front="moon")
    table = cloth()
    put(table, tile_face("moon"), TILE, (150, 100), 20.0)
    assert [p.front for p in read(table, library, px_per_mm=SCALE).pieces] == ["moon"]
    kept = len(reading._REFS)
    del library
    gc.collect()
    assert len(reading._REFS) <= kept - 1


def test_faces_that_differ_in_colour_alone_are_told_apart(tmp_path: Path) -> None:
    library = Library.create(tmp_path / "library")
    red, blue = tile_face("cross"), tile_face("cross")
    blue[np.all(blue == (40, 50, 200), axis=2)] = (200, 80, 40)
    library.register("tile", "rect", TILE, on_surface(red, TILE), front="red")
    library.register("tile", "rect", TILE, on_surface(blue, TILE), front="blue")
    table = cloth()
    put(table, red, TILE, (60, 60), 10.0)
    put(table, blue, TILE, (200, 120), 50.0)
    result = read(table, library, px_per_mm=SCALE)
    assert sorted((p.front, round(p.center[0] / SCALE, -1)) for p in result.pieces) == [("blue", 200), ("red", 60)]


@pytest.mark.slow
def test_overlapping_tiles_are_each_read(tiles: Library) -> None:
    table = cloth()
    put(table, tile_face("moon"), TILE, (100, 100), 10.0)
    put(table, tile_face("cross"), TILE, (134, 112), 30.0)  # over a corner of the moon
    result = read(table, tiles, px_per_mm=SCALE)
    assert sorted(p.front or "" for p in result.pieces) == ["cross", "moon"]


def test_a_registration_photo_reads_back_as_its_own_face(tiles: Library) -> None:
    for name in ("moon", "drop", "star", "cross"):
        result = read(on_surface(tile_face(name), TILE), tiles)
        assert [p.front for p in result.pieces] == [name], (name, result)
    assert [p.face for p in read(on_surface(tile_face("back"), TILE), tiles).pieces] == ["down"]


def rimmed_coin(name: str) -> np.ndarray:
    """A coin's face at 10 px/mm whose outer rim is nearly the cloth's colour (a grey metal on
    grey cloth): a light band, a dark middle, and a mark per *name*."""
    img = np.full((400, 400, 3), SURFACE, np.uint8)
    cv2.circle(img, (200, 200), 199, (88, 86, 76), -1, cv2.LINE_AA)  # 10 CIELAB units off the cloth
    cv2.circle(img, (200, 200), 170, (205, 205, 210), -1, cv2.LINE_AA)
    cv2.circle(img, (200, 200), 130, (30, 30, 35), -1, cv2.LINE_AA)
    if name == "bar":
        cv2.rectangle(img, (130, 170), (270, 230), (240, 240, 240), -1)
    elif name == "ring":
        cv2.circle(img, (200, 200), 70, (240, 240, 240), 24)
    else:
        cv2.line(img, (120, 280), (280, 120), (240, 240, 240), 30)
    return img


def test_a_registration_photo_whose_rim_is_near_the_cloths_colour_reads_back(tmp_path: Path) -> None:
    def photo(name: str) -> np.ndarray:  # on an evenly lit plain cloth, as a renderer draws it
        table = np.full((216, 216, 3), SURFACE, np.uint8)
        put(table, rimmed_coin(name), COIN, (54, 54), 0.0, disc=True)
        return table

    library = Library.create(tmp_path / "library")
    for name in ("bar", "ring", "slash"):
        library.register("coin", "disc", COIN, photo(name), front=name)
    for name in ("bar", "ring", "slash"):
        result = read(photo(name), library)
        assert ([p.front for p in result.pieces], result.unknown) == ([name], ()), name


@pytest.mark.slow
def test_a_full_bleed_scan_registers_and_reads_back(tmp_path: Path) -> None:
    library = Library.create(tmp_path / "library")
    for name in ("moon", "drop", "cross"):
        library.register("tile", "rect", TILE, tile_face(name), front=name)
    for name in ("moon", "drop", "cross"):
        assert [p.front for p in read(tile_face(name), library).pieces] == [name]
        table = cloth()
        put(table, tile_face(name), TILE, (120, 90), 25.0)
        assert [p.front for p in read(table, library, px_per_mm=SCALE).pieces] == [name]


def test_a_foreign_object_is_not_read_as_a_piece(tiles: Library) -> None:
    table = cloth()
    cv2.circle(table, (200, 200), 30, (20, 200, 240), -1)  # a yellow chip, no kind's shape
    cv2.rectangle(table, (400, 100), (440, 140), (250, 250, 250), -1)  # a 20 mm die
    result = read(table, tiles, px_per_mm=SCALE)
    assert result.pieces == ()


@pytest.mark.slow
def test_without_a_scale_pieces_are_told_from_specks_and_patches_by_their_size(tiles: Library) -> None:
    table = cloth()
    for name, centre in (("moon", (50, 50)), ("drop", (110, 50)), ("star", (170, 50)), ("cross", (230, 60))):
        put(table, tile_face(name), TILE, centre, 0.0)
    cv2.rectangle(table, (196, 296), (203, 303), (235, 235, 230), -1)  # a 4 mm square speck
    cv2.ellipse(table, (180, 200), (90, 40), 0, 0, 360, (200, 200, 190), -1)  # a light patch...
    put(table, tile_face("drop"), TILE, (60, 100), 0.0)  # ... and a tile touching it
    result = read(table, tiles)  # no scale: the tiles' own size is the view's
    assert sorted(p.front for p in result.pieces) == ["cross", "drop", "drop", "moon", "star"]
    # the patch is something unknown; the speck is too small to be anything
    assert [u.center for u in result.unknown if math.dist(u.center, (200, 300)) < 20] == []
    assert len(result.unknown) == 1


def test_fit_single_gives_a_rect_its_centre_and_turn() -> None:
    kind = PieceKind("tile", "rect", TILE)
    for angle in (0.0, 17.0, 44.0, 63.0):
        mask = np.zeros((300, 300), np.uint8)
        box = cv2.boxPoints(((150.0, 140.0), (80.0, 80.0), angle))
        cv2.fillConvexPoly(mask, np.round(box).astype(np.int32), 1)
        contour = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0][0]
        piece = fit_single(contour, [kind], SCALE, DEFAULT)
        assert piece is not None and math.dist(piece.centre, (150, 140)) < 1.0
        assert abs((piece.angle_deg - angle + 45) % 90 - 45) < 1.5, (angle, piece.angle_deg)


def test_fit_heap_lays_two_overlapping_tiles_where_they_are() -> None:
    kind = PieceKind("tile", "rect", TILE)
    mask = np.zeros((400, 400), np.uint8)
    truth = [((150.0, 150.0), 10.0), ((215.0, 175.0), 35.0)]
    for centre, angle in truth:
        cv2.fillConvexPoly(mask, np.round(cv2.boxPoints((centre, (80.0, 80.0), angle))).astype(np.int32), 1)
    contour = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0][0]
    laid, rest = fit_heap(contour, mask.shape, [kind], SCALE, DEFAULT)
    assert not rest and len(laid) == 2
    for centre, _angle in truth:
        assert min(math.dist(p.centre, centre) for p in laid) < 4.0


def test_a_heaps_side_drawn_in_parts_a_little_apart_is_one_direction_beside_a_commoner_one() -> None:
    # a tile at 66 degrees in long straight parts; one beside it at 75, its sides drawn in parts at
    # 72 and 75, and a little at 69 where the two meet (a heap seen on another table)
    votes = np.zeros(round(90 / DEFAULT.heap_angle_step_deg))
    for degrees, length in ((66, 140.0), (69, 45.0), (72, 79.0), (75, 78.0), (87, 21.0)):
        votes[round(degrees / DEFAULT.heap_angle_step_deg)] = length
    assert [i * DEFAULT.heap_angle_step_deg for i in _commonest(votes, DEFAULT)] == [66.0, 75.0]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0.0, 200.0), min_size=30, max_size=30))
def test_the_directions_a_heaps_sides_single_out_are_common_and_apart(lengths: list[float]) -> None:
    votes = np.array(lengths)
    picked = _commonest(votes, DEFAULT)
    smooth = votes + 0.5 * (np.roll(votes, 1) + np.roll(votes, -1))
    near = round(DEFAULT.heap_sides_apart_deg / DEFAULT.heap_angle_step_deg)
    assert len(picked) <= DEFAULT.heap_sides_max and len(set(picked)) == len(picked)
    assert (not picked) == (smooth.max() <= 0)
    if picked:
        assert smooth[picked[0]] == smooth.max()
    for n, i in enumerate(picked):
        assert smooth[i] >= DEFAULT.heap_side_share * smooth.max()
        assert all(min((i - j) % len(votes), (j - i) % len(votes)) > near for j in picked[:n])
        assert list(smooth[picked[:n + 1]]) == sorted(smooth[picked[:n + 1]], reverse=True)


@settings(max_examples=40, deadline=None)
@given(st.integers(8, 90), st.integers(8, 90), st.lists(st.integers(0, 20), min_size=1, max_size=4),
       st.integers(0, 2**32 - 1))
def test_spectral_correlation_is_filter2d_with_a_zero_border(h: int, w: int, radii: list[int],
                                                             seed: int) -> None:
    rng = np.random.default_rng(seed)
    image = rng.random((h, w)).astype(np.float32)
    kernels = [(rng.random((2 * r + 1, 2 * r + 1)) > 0.4).astype(np.float32) for r in radii]
    got = _Correlation((h, w), kernels)(image, range(len(kernels)))
    for kernel, out in zip(kernels, got, strict=True):
        want = cv2.filter2D(image, -1, kernel, borderType=cv2.BORDER_CONSTANT)
        assert out.shape == want.shape
        assert np.abs(out - want).max() <= 1e-3 * max(1.0, float(kernel.sum()))


@pytest.mark.slow
@pytest.mark.parametrize("bad", ["float", "gray", "empty", "scale"])
def test_bad_input_is_refused_with_a_reason(tiles: Library, bad: str) -> None:
    table = cloth()
    kwargs: dict = {}
    if bad == "float":
        table = table.astype(np.float32)
    elif bad == "gray":
        table = table[:, :, 0]
    elif bad == "empty":
        kwargs["empty"] = cloth(100, 100)
    else:
        kwargs["px_per_mm"] = -1.0
    with pytest.raises(ValueError, match="must be"):
        read(table, tiles, **kwargs)
