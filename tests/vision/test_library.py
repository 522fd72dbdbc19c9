"""The piece library: registering faces from scans, photos and crops, and its file's errors."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.support.drawn import place, token
from tests.vision.set_game import SET_GAME, crop
from vision.errors import LayoutError, VisionError
from vision.library import LIBRARY_FILE, Library, PieceKind, find_piece, frame_points
from vision.library.frames import UNIT_SQUARE

needs_photos = pytest.mark.skipif(not (SET_GAME / "labels.csv").is_file(),
                                  reason=f"the Set photographs are not at {SET_GAME}")
CARD_MM = (57.0, 88.0)


# -- the library --------------------------------------------------------------------------------------


def test_library_round_trips_fronts_backs_and_several_references(tmp_path: Path) -> None:
    library = Library.create(tmp_path / "lib")
    first = library.register("coin", "disc", (30, 30), token("A", (0, 140, 255)), front="A")
    library.register("coin", "disc", [30, 30], token("A", (0, 150, 240)), front="A")
    library.register("coin", "disc", (30, 30), token("B", (0, 140, 255)), front="B")
    library.register("coin", "disc", (30, 30), token("", (200, 90, 20)), back=True)
    assert first == tmp_path / "lib" / "fronts" / "coin" / "A-1.png"

    again = Library.load(tmp_path / "lib")
    assert again.kinds() == ("coin",)
    assert (again.kind("coin").shape, again.kind("coin").size_mm) == ("disc", (30.0, 30.0))
    fronts = again.fronts("coin")
    assert {name: len(images) for name, images in fronts.items()} == {"A": 2, "B": 1}
    assert fronts["A"][0].shape == (120, 120, 3)  # 30 mm at 4 px/mm
    back = again.back("coin")
    assert back is not None and back.shape == (120, 120, 3)
    doc = json.loads((tmp_path / "lib" / LIBRARY_FILE).read_text())
    assert doc["kinds"]["coin"]["fronts"]["A"] == ["fronts/coin/A-1.png", "fronts/coin/A-2.png"]
    assert doc["kinds"]["coin"]["back"] == "backs/coin.png"


def test_library_reads_a_single_path_as_one_reference(tmp_path: Path) -> None:
    library = Library.create(tmp_path)
    library.register("coin", "disc", (30, 30), token("A", (0, 140, 255)), front="A")
    doc = json.loads((tmp_path / LIBRARY_FILE).read_text())
    doc["kinds"]["coin"]["fronts"]["A"] = "fronts/coin/A-1.png"
    (tmp_path / LIBRARY_FILE).write_text(json.dumps(doc))
    assert len(Library.load(tmp_path).fronts("coin")["A"]) == 1


@pytest.mark.parametrize(("text", "message"), [
    ("{not json", "not valid JSON"),
    ('{"pieces": {}}', "kinds must be an object"),
    ('{"kinds": {"coin": {"shape": "hex", "size_mm": [30, 30], "fronts": {}}}}', "kinds.coin.shape"),
    ('{"kinds": {"coin": {"shape": "disc", "size_mm": [30, -1], "fronts": {}}}}', "kinds.coin.size_mm"),
    ('{"kinds": {"coin": {"shape": "disc", "size_mm": [30, 30], "fronts": {"A": 7}}}}', "kinds.coin.fronts.A"),
    ('{"kinds": {"coin": {"shape": "disc", "size_mm": [30, 30], "fronts": {"A": "../../etc/passwd"}}}}',
     "kinds.coin.fronts.A"),
    ('{"kinds": {"coin": {"shape": "disc", "size_mm": [30, 30], "back": 3, "fronts": {}}}}', "kinds.coin.back"),
])
def test_library_corrupt_json_names_the_file_and_field(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / LIBRARY_FILE).write_text(text)
    with pytest.raises(LayoutError) as caught:
        Library.load(tmp_path)
    assert message in str(caught.value) and str(tmp_path / LIBRARY_FILE) in str(caught.value)


def test_library_missing_or_broken_image_raises_layout_error(tmp_path: Path) -> None:
    library = Library.create(tmp_path)
    saved = library.register("coin", "disc", (30, 30), token("A", (0, 140, 255)), front="A")
    saved.write_bytes(b"\x89PNG broken")
    with pytest.raises(LayoutError, match=r"kinds\.coin\.fronts\.A\[0\]"):
        Library.load(tmp_path).fronts("coin")
    with pytest.raises(LayoutError, match="no kind 'tile'"):
        Library.load(tmp_path).kind("tile")


def test_library_kind_registered_again_with_another_shape_or_size_is_refused(tmp_path: Path) -> None:
    library = Library.create(tmp_path)
    library.register("coin", "disc", (30, 30), token("A", (0, 140, 255)), front="A")
    with pytest.raises(LayoutError, match=r"kinds\.coin is already a disc of \[30\.0, 30\.0\] mm"):
        library.register("coin", "disc", (25, 25), token("B", (0, 140, 255)), front="B")
    with pytest.raises(LayoutError, match="already a disc"):
        library.register("coin", "rect", (30, 30), token("B", (0, 140, 255)), front="B")
    assert Library.load(tmp_path).fronts("coin").keys() == {"A"}


def test_library_refuses_bad_names_and_a_second_library(tmp_path: Path) -> None:
    library = Library.create(tmp_path)
    with pytest.raises(LayoutError, match="got 'a/b'"):
        library.register("coin", "disc", (30, 30), token("A", (0, 140, 255)), front="a/b")
    with pytest.raises(TypeError):
        library.register("coin", "disc", (30, 30), token("A", (0, 140, 255)), front="A", back=True)
    with pytest.raises(LayoutError, match="already exists"):
        Library.create(tmp_path)
    assert issubclass(LayoutError, VisionError)


@needs_photos
def test_library_register_finds_a_card_in_a_photo_and_flattens_it(tmp_path: Path) -> None:
    card = crop(next((SET_GAME / "crops_test" / "3-red-solid-ovals").glob("*.jpg")))
    photo = np.full((600, 800, 3), 25, np.uint8)
    place(photo, card, (420, 280), 100.0, 200)  # turned past a quarter, as a card may lie
    library = Library.create(tmp_path)
    library.register("set-card", "rect", CARD_MM, photo, front="from-photo")
    library.register("set-card", "rect", CARD_MM, card, front="from-crop")
    flat = library.fronts("set-card")
    a = flat["from-photo"][0].astype(np.float32)
    b = flat["from-crop"][0].astype(np.float32)
    assert a.shape == b.shape == (352, 228, 3)  # portrait, 4 px/mm
    ncc = max(float(np.corrcoef(a.ravel(), x.ravel())[0, 1]) for x in (b, b[::-1, ::-1]))
    assert ncc > 0.9



def _size_found(photo: np.ndarray, kind: PieceKind) -> float:
    """The mean width and height (px) of the piece :func:`find_piece` finds in *photo*."""
    frame = find_piece(photo, kind)
    assert frame is not None
    corners = frame_points(frame, UNIT_SQUARE.astype(np.float64))
    return float((corners.max(axis=0) - corners.min(axis=0)).mean())


def _noisy(image: np.ndarray, sigma: float, seed: int = 0) -> np.ndarray:
    return np.clip(image + np.random.default_rng(seed).normal(0.0, sigma, image.shape), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("rim", [(126, 122, 121), (121, 122, 126), (125, 128, 128)])
@pytest.mark.parametrize("noise", [0.0, 2.0])
def test_register_takes_a_rim_of_nearly_the_cloths_colour_as_the_pieces(rim: tuple[int, int, int],
                                                                         noise: float) -> None:
    # a silver coin on a grey cloth: its outer rim, 14 of its 104 px radius, 2 to 4 CIELAB units
    # from the cloth's grey; each pixel of it is within the cloth's noise, the rim as a whole not
    photo = np.full((528, 528, 3), 128, np.uint8)
    cv2.circle(photo, (264, 264), 104, rim, -1, cv2.LINE_AA)
    cv2.circle(photo, (264, 264), 90, (190, 185, 183), -1, cv2.LINE_AA)
    cv2.circle(photo, (264, 264), 70, (35, 30, 30), -1, cv2.LINE_AA)
    cv2.putText(photo, "10", (200, 290), cv2.FONT_HERSHEY_SIMPLEX, 2.5, (245, 250, 250), 8, cv2.LINE_AA)
    photo = _noisy(cv2.GaussianBlur(photo, (0, 0), 1.0), noise)
    assert _size_found(photo, PieceKind("coin", "disc", (20.8, 20.8))) == pytest.approx(209.0, rel=0.015)


@pytest.mark.parametrize("turn", [0.0, 20.0])
def test_register_takes_a_tiles_border_of_nearly_the_cloths_colour_as_the_tiles(turn: float) -> None:
    # a 30 x 50 mm tile at 10 px/mm whose outer 2 mm are 3 CIELAB units from the cloth's grey
    photo = np.full((754, 754, 3), 128, np.uint8)
    for (w, h), colour in (((300, 500), (121, 122, 126)), ((260, 460), (40, 60, 200))):
        corners = cv2.boxPoints(((377.0, 377.0), (float(w), float(h)), turn))
        cv2.fillConvexPoly(photo, np.round(corners).astype(np.int32), colour, cv2.LINE_AA)
    photo = _noisy(cv2.GaussianBlur(photo, (0, 0), 1.0), 2.0)
    frame = find_piece(photo, PieceKind("tile", "rect", (30.0, 50.0)))
    assert frame is not None
    corners = frame_points(frame, UNIT_SQUARE.astype(np.float64))
    sides = sorted(float(np.linalg.norm(corners[i] - corners[0])) for i in (1, 3))
    assert sides == [pytest.approx(300.0, rel=0.015), pytest.approx(500.0, rel=0.015)]


@pytest.mark.parametrize("depth", [10, 40])
@pytest.mark.parametrize("sigma", [3.0, 6.0])
def test_register_does_not_take_a_soft_shadow_round_a_piece_as_its_rim(depth: int, sigma: float) -> None:
    photo = np.full((754, 754, 3), 128.0)
    shade = np.zeros((754, 754), np.float32)
    cv2.rectangle(shade, (160, 160), (593, 593), 1.0, -1)
    photo = (photo - depth * cv2.GaussianBlur(shade, (0, 0), sigma)[:, :, None]).astype(np.uint8)
    cv2.rectangle(photo, (160, 160), (593, 593), (40, 60, 200), -1)
    cv2.rectangle(photo, (180, 180), (573, 573), (230, 235, 240), 6)
    assert _size_found(_noisy(photo, 2.0), PieceKind("tile", "rect", (43.4, 43.4))) < 1.025 * 434
