"""The registration square: a piece photographed on it, at an angle, comes out flat at the
library's scale with its size checked; and ``companion vision register --camera`` uses it."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.support import synth_pieces as sp
from vision import register_square as rs
from vision.errors import CalibrationError
from vision.library import PX_PER_MM, Library, PieceKind, find_piece, frame_point
from vision.reading import read

DPI = 120
PAGE_PX_PER_MM = DPI / 25.4


def _page_with(front: str | None, kind: str = "card", at_mm: tuple[float, float] = (70.0, 70.0),
               turn_deg: float = 20.0) -> np.ndarray:
    """The printed page (BGR) with a drawn piece laid in its square at *at_mm* (square mm)."""
    page = cv2.cvtColor(rs.render(DPI), cv2.COLOR_GRAY2BGR).astype(np.float32)
    art = sp.piece_art(0)[kind]
    s = PAGE_PX_PER_MM / sp.TEXTURE_PX_PER_MM
    face = cv2.resize(art.face(front), None, fx=s, fy=s, interpolation=cv2.INTER_AREA).astype(np.float32)
    mask = cv2.resize(art.mask, (face.shape[1], face.shape[0]), interpolation=cv2.INTER_AREA)
    origin = np.array([(210.0 - rs.SQUARE_MM) / 2, 60.0])  # where render() puts the square
    cx, cy = (origin + at_mm) * PAGE_PX_PER_MM
    h, w = mask.shape
    m = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), -turn_deg, 1.0)
    m[:, 2] += (cx - (w - 1) / 2, cy - (h - 1) / 2)
    size = (page.shape[1], page.shape[0])
    warped = cv2.warpAffine(face, m, size)
    alpha = cv2.warpAffine(mask, m, size)[..., None]
    return np.round(warped * alpha + page * (1 - alpha)).astype(np.uint8)


def _photo(page: np.ndarray, seed: int = 0) -> np.ndarray:
    """The page seen by a camera at an angle, on a dark table, a little blurred and noisy."""
    rng = np.random.default_rng(seed)
    h, w = page.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = np.float32([[250, 60], [1000, 110], [1060, 930], [180, 880]]) + rng.uniform(-20, 20, (4, 2))
    m = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    photo = cv2.warpPerspective(page, m, (1280, 960), borderValue=(40, 50, 45))
    photo = cv2.GaussianBlur(photo, (0, 0), 0.8).astype(np.float32) + rng.normal(0, 3, photo.shape)
    return np.clip(photo, 0, 255).astype(np.uint8)


@pytest.mark.slow
def test_the_square_flattens_to_the_library_scale_and_the_piece_measures_true() -> None:
    flat = rs.flatten(_photo(_page_with("knight")))
    assert flat is not None and flat.shape[:2] == (round(rs.SQUARE_MM * PX_PER_MM),) * 2
    card = PieceKind("card", "rect", (57.0, 88.0))
    frame = find_piece(flat, card)
    assert frame is not None
    cx, cy = frame_point(frame, 0.5, 0.5)
    assert math.hypot(cx / PX_PER_MM - 70, cy / PX_PER_MM - 70) < 2.0
    assert rs.check_piece(flat, card) is flat
    with pytest.raises(CalibrationError, match=r"measures 5[6-8]x(8[7-9]|90) mm, not 70x88 mm"):
        rs.check_piece(flat, PieceKind("card", "rect", (70.0, 88.0)))
    with pytest.raises(CalibrationError, match=r"measures (8[6-9]|9[0-9]|10[0-9]) mm, not 25 mm"):
        rs.check_piece(flat, PieceKind("coin", "disc", (25.0, 25.0)))
    with pytest.raises(CalibrationError, match="nothing stands out"):
        rs.check_piece(rs.flatten(_photo(np.asarray(cv2.cvtColor(rs.render(DPI), cv2.COLOR_GRAY2BGR)))), card)


def test_a_hand_over_one_marker_is_fine_two_are_not() -> None:
    photo = _photo(_page_with("knight"))
    seen = rs.markers.detect(photo, rs.DICTIONARY)
    assert set(seen) == set(rs.MARKER_IDS)
    for n, mid in enumerate(rs.MARKER_IDS[:2]):
        x0, y0 = seen[mid].min(axis=0).astype(int) - 10
        x1, y1 = seen[mid].max(axis=0).astype(int) + 10
        photo[y0:y1, x0:x1] = (60, 70, 90)  # a hand
        assert (rs.flatten(photo) is not None) == (n == 0)


def _companion(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, timeout=120,
                          check=False)


@pytest.mark.slow
def test_register_from_the_camera_then_read_the_piece_on_the_table(tmp_path: Path) -> None:
    """Every card face registered through the camera (here a photo file as the camera source)
    on the square; then a table with one of them is read."""
    library = tmp_path / "lib"
    art = sp.piece_art(0)["card"]
    for n, front in enumerate([*art.fronts, None]):
        shot = tmp_path / f"shot-{n}.png"
        cv2.imwrite(str(shot), _photo(_page_with(front, turn_deg=15.0 * n), seed=n))
        face = ["--back"] if front is None else ["--front", front]
        done = _companion("vision", "register", "--camera", str(shot), "--library", str(library), "--kind", "card",
                          *face, "--shape", "rect", "--size-mm", "57x88", "--json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["kind"] == "card"
    lib = Library.load(library)
    assert set(lib.fronts("card")) == set(art.fronts) and lib.back("card") is not None
    # a table: the wizard card at 4 px/mm on dark cloth, read as a top-down view
    table = np.full((600, 800, 3), 35, np.uint8)
    m = art.mask[..., None]
    h, w = art.mask.shape
    table[100:100 + h, 200:200 + w] = np.round(art.face("wizard") * m + table[100:100 + h, 200:200 + w] * (1 - m))
    result = read(table, lib, px_per_mm=sp.TEXTURE_PX_PER_MM)
    assert [(p.kind, p.front) for p in result.pieces] == [("card", "wizard")]


@pytest.mark.slow
def test_register_from_the_camera_without_the_square_or_with_a_wrong_size_is_one_line(tmp_path: Path) -> None:
    no_square = tmp_path / "table.png"
    cv2.imwrite(str(no_square), np.full((480, 640, 3), 90, np.uint8))
    shot = tmp_path / "shot.png"
    cv2.imwrite(str(shot), _photo(_page_with("knight")))
    for args, message in ((["--camera", str(no_square)], "the registration square is not in view"),
                          (["--camera", str(shot), "--size-mm", "40x60"], "not 40x60 mm"),
                          ([], "give a photo of the piece, or --camera")):
        size = [] if "--size-mm" in args else ["--size-mm", "57x88"]
        done = _companion("vision", "register", *args, "--library", str(tmp_path / "lib"), "--kind", "card",
                          "--front", "knight", "--shape", "rect", *size)
        assert done.returncode == 2, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and message in done.stderr, done.stderr
    assert not (tmp_path / "lib").exists()  # nothing half-made


@pytest.mark.slow
def test_the_square_prints_at_true_size(tmp_path: Path) -> None:
    done = _companion("vision", "markers", "--register-square", "--out", str(tmp_path / "square"), "--json")
    assert done.returncode == 0, done.stderr
    files = [Path(f) for f in json.loads(done.stdout)["files"]]
    assert [f.suffix for f in files] == [".png", ".pdf"] and all(f.exists() for f in files)
    page = cv2.imread(str(files[0]), cv2.IMREAD_GRAYSCALE)
    assert page.shape == (round(297 / 25.4 * 300), round(210 / 25.4 * 300))
    seen = rs.markers.detect(cv2.cvtColor(page, cv2.COLOR_GRAY2BGR), rs.DICTIONARY)
    side_mm = np.linalg.norm(seen[46][1] - seen[46][0]) / (300 / 25.4)
    assert set(seen) == set(rs.MARKER_IDS) and abs(side_mm - rs.MARKER_MM) < 0.3
