"""Lens calibration: ChArUco views rendered by tests.support.synth through a known lens, recovered."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.support import synth
from vision.errors import CalibrationError, LayoutError
from vision.lens import (
    BOARD_MARKER_MM,
    BOARD_SQUARE_MM,
    LensCalibration,
    board_image,
    calibrate_lens,
    camera_pose,
    default_board,
)

SIZE = (960, 540)  # px: small enough to render 30 views in a few seconds
TEX_PX_PER_MM = 4
MARGIN_MM = 20.0  # white quiet zone around the printed board
SHEET_MM = (7 * BOARD_SQUARE_MM + 2 * MARGIN_MM, 5 * BOARD_SQUARE_MM + 2 * MARGIN_MM)
CALIBRATION_VIEWS = 20
HELD_OUT_VIEWS = 6


def _sheet() -> np.ndarray:
    """The board as printed on a sheet: 4 px per mm, its squares' top-left at (MARGIN_MM, MARGIN_MM)."""
    square_px = int(BOARD_SQUARE_MM * TEX_PX_PER_MM)
    board = default_board().generateImage((7 * square_px, 5 * square_px), marginSize=0, borderBits=1)
    m = int(MARGIN_MM * TEX_PX_PER_MM)
    return np.asarray(cv2.copyMakeBorder(board, m, m, m, m, cv2.BORDER_CONSTANT, value=255))


def _corners_mm(origin_mm: tuple[float, float]) -> np.ndarray:
    """The board's 24 inner corners (N, 3) in table mm for a sheet whose top-left is at *origin_mm*."""
    corners = np.asarray(default_board().getChessboardCorners(), np.float64).reshape(-1, 3).copy()
    corners[:, 0] += origin_mm[0] + MARGIN_MM
    corners[:, 1] += origin_mm[1] + MARGIN_MM
    corners[:, 2] = 0.0
    return corners


def _rotation(axis: int, deg: float) -> np.ndarray:
    rvec = np.zeros(3)
    rvec[axis] = math.radians(deg)
    return np.asarray(cv2.Rodrigues(rvec)[0], np.float64)


def _posed(lens: synth.CameraModel, rng: np.random.Generator) -> tuple[synth.CameraModel, tuple[float, float]]:
    """*lens* (same K and dist) moved to a new pose over a sheet lying somewhere on the table.

    Tilted up to 25 degrees about x and y, turned up to 40 about the optical axis, 300-450 mm
    from the sheet, the sheet's middle anywhere in the middle 70 % of the frame; redrawn until
    the whole sheet is in frame.
    """
    w, h = lens.size
    k = lens.K
    while True:
        origin = (float(rng.uniform(0, 400)), float(rng.uniform(0, 300)))
        rot = _rotation(0, rng.uniform(-25, 25)) @ _rotation(1, rng.uniform(-25, 25)) @ _rotation(2, rng.uniform(-40, 40))
        middle = np.array([origin[0] + SHEET_MM[0] / 2, origin[1] + SHEET_MM[1] / 2, 0.0])
        aim_px = k[:2, 2] + rng.uniform(-0.35, 0.35, 2) * [w, h]
        depth = rng.uniform(300, 450)
        in_camera = depth * np.array([(aim_px[0] - k[0, 2]) / k[0, 0], (aim_px[1] - k[1, 2]) / k[1, 1], 1.0])
        tvec = in_camera - rot @ middle
        camera = dataclasses.replace(lens, rvec=np.asarray(cv2.Rodrigues(rot)[0], np.float64).reshape(3), tvec=tvec)
        sheet = np.array([[0, 0, 0], [SHEET_MM[0], 0, 0], [SHEET_MM[0], SHEET_MM[1], 0], [0, SHEET_MM[1], 0]])
        sheet = sheet + [origin[0], origin[1], 0.0]
        px = camera.project(sheet)
        if px[:, 0].min() > 2 and px[:, 0].max() < w - 3 and px[:, 1].min() > 2 and px[:, 1].max() < h - 3:
            return camera, origin


@dataclasses.dataclass(frozen=True)
class Views:
    lens: synth.CameraModel
    images: list[np.ndarray]
    seen_px: np.ndarray  # (N, 2) where the calibration views' corners truly are (distorted px)
    held_out: list[tuple[synth.CameraModel, tuple[float, float], np.ndarray]]


@pytest.fixture(scope="module")
def views() -> Views:
    """One lens, 20 calibration views and 6 held-out views of the sheet (rendered once)."""
    rng = np.random.default_rng(20261130)
    lens = synth.random_camera(rng, SIZE)
    sheet = _sheet()
    mm_per_px = 1.0 / TEX_PX_PER_MM
    images = []
    seen_px = []
    held_out = []
    for i in range(CALIBRATION_VIEWS + HELD_OUT_VIEWS):
        camera, origin = _posed(lens, rng)
        image = synth.render_texture_on_table(sheet, mm_per_px, origin, camera, synth.Effects.random(rng), rng)
        if i < CALIBRATION_VIEWS:
            images.append(image)
            seen_px.append(camera.project(_corners_mm(origin)))
        else:
            held_out.append((camera, origin, image))
    return Views(lens, images, np.vstack(seen_px), held_out)


@pytest.fixture(scope="module")
def calibration(views: Views) -> LensCalibration:
    return calibrate_lens(views.images)


# --- calibrate_lens ------------------------------------------------------------------------

@pytest.mark.slow
def test_calibrate_lens_recovers_focal_lengths_and_principal_point(views: Views, calibration: LensCalibration) -> None:
    k, w = views.lens.K, SIZE[0]
    assert calibration.size == SIZE and calibration.views == CALIBRATION_VIEWS
    assert calibration.K[0, 0] == pytest.approx(k[0, 0], rel=0.02)
    assert calibration.K[1, 1] == pytest.approx(k[1, 1], rel=0.02)
    assert abs(calibration.K[0, 2] - k[0, 2]) < 0.02 * w
    assert abs(calibration.K[1, 2] - k[1, 2]) < 0.02 * w
    assert 0 < calibration.rms_px < 1.0


@pytest.mark.slow
def test_calibrate_lens_undistorted_points_match_pinhole_projection(views: Views,
                                                                   calibration: LensCalibration) -> None:
    # Judged where the calibration views saw the board: beyond that a lens model extrapolates.
    seen = cv2.convexHull(views.seen_px.astype(np.float32))
    worst, checked = [], 0
    for camera, origin, _ in views.held_out:
        corners = _corners_mm(origin)
        px = camera.project(corners)
        inside = np.array([cv2.pointPolygonTest(seen, (float(x), float(y)), False) >= 0 for x, y in px])
        got = calibration.undistort_points(px[inside])
        worst.append(float(np.linalg.norm(got - camera.project_undistorted(corners[inside]), axis=1).max()))
        checked += int(inside.sum())
    assert checked >= 100
    assert max(worst) < 0.5, f"worst error per held-out view, px: {np.round(worst, 2).tolist()}"


def test_calibrate_lens_too_few_views_raises_saying_how_many(views: Views) -> None:
    blank = np.full((SIZE[1], SIZE[0], 3), 128, np.uint8)
    with pytest.raises(CalibrationError, match=r"only 6 of 9 images .* 15-30 .* recommended") as exc:
        calibrate_lens(views.images[:6] + [blank] * 3)
    assert "\n" not in str(exc.value)


def test_calibrate_lens_images_of_different_sizes_raise(views: Views) -> None:
    small = cv2.resize(views.images[1], (480, 270))
    with pytest.raises(CalibrationError, match=r"images\[1\]: is 480x270 px"):
        calibrate_lens([views.images[0], small])


# --- LensCalibration -----------------------------------------------------------------------

def _calibration() -> LensCalibration:
    k = np.array([[800.0, 0.0, 470.0], [0.0, 805.0, 272.0], [0.0, 0.0, 1.0]])
    return LensCalibration(k, np.array([-0.1, 0.02, 0.001, -0.0005, 0.0]), SIZE, 0.21, 17)


def test_lens_calibration_save_load_round_trip(tmp_path: Path) -> None:
    original = _calibration()
    path = tmp_path / "lens.json"
    original.save(path)
    loaded = LensCalibration.load(path)
    np.testing.assert_array_equal(loaded.K, original.K)
    np.testing.assert_array_equal(loaded.dist, original.dist)
    assert (loaded.size, loaded.rms_px, loaded.views) == (SIZE, 0.21, 17)


def test_lens_calibration_arrays_are_read_only() -> None:
    with pytest.raises(ValueError):
        _calibration().K[0, 0] = 1.0


def test_lens_calibration_load_corrupt_json_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "lens.json"
    path.write_text('{"K": [[800, 0, 470], ', encoding="utf-8")
    with pytest.raises(LayoutError, match=r"lens calibration .*lens\.json: not valid JSON"):
        LensCalibration.load(path)


def test_lens_calibration_load_missing_file_names_it(tmp_path: Path) -> None:
    with pytest.raises(LayoutError, match=r"nope\.json: cannot read it"):
        LensCalibration.load(tmp_path / "nope.json")


@pytest.mark.parametrize(("field", "value", "message"), [
    ("K", [[800, 0, 470], [0, 805, 272]], r"K: must be 3 rows of 3 numbers"),
    ("K", [[800, 0, 470], [0, 805, 272], [0, 0, 2]], r"K: must be \[\[fx, 0, cx\]"),
    ("K", [[-800, 0, 470], [0, 805, 272], [0, 0, 1]], r"K: must be .* fx, fy > 0"),
    ("dist", [0.1, 0.2], r"dist: must be 5 numbers"),
    ("dist", [0.1, "x", 0, 0, 0], r"dist: must be 5 numbers"),
    ("size", [960], r"size: must be \[width, height\] in whole px \(got \[960\]\)"),
    ("rms_px", -1, r"rms_px: must be a number of px from 0 \(got -1\)"),
    ("views", True, r"views: must be a whole number from 0 \(got True\)"),
    ("colour", "blue", r"colour: unknown field"),
])
def test_lens_calibration_load_bad_field_names_file_and_field(tmp_path: Path, field: str, value: object,
                                                              message: str) -> None:
    doc = _calibration().to_json()
    doc[field] = value
    path = tmp_path / "lens.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(LayoutError, match=r"lens calibration .*lens\.json: " + message):
        LensCalibration.load(path)


def test_lens_calibration_load_missing_field_names_it(tmp_path: Path) -> None:
    doc = _calibration().to_json()
    del doc["dist"]
    path = tmp_path / "lens.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(LayoutError, match=r"lens\.json: dist: missing"):
        LensCalibration.load(path)


def test_lens_calibration_undistort_moves_a_dot_where_undistort_points_says() -> None:
    calibration = _calibration()
    seen_px = np.array([[60.0, 45.0], [900.0, 500.0], [480.0, 270.0]])
    expected_px = calibration.undistort_points(seen_px)
    for (x, y), (ex, ey) in zip(seen_px, expected_px, strict=True):
        image = np.zeros((SIZE[1], SIZE[0]), np.float32)
        yy, xx = np.mgrid[0:SIZE[1], 0:SIZE[0]]
        image += np.exp(-((xx - x) ** 2 + (yy - y) ** 2) / (2 * 2.0 ** 2)).astype(np.float32)
        out = calibration.undistort(image)
        m = cv2.moments(out)
        assert (m["m10"] / m["m00"], m["m01"] / m["m00"]) == pytest.approx((ex, ey), abs=0.1)


def test_lens_calibration_undistort_points_far_corner_moves_outward() -> None:
    # barrel distortion (k1 < 0) pulls the corners in; undistorting pushes them back out
    corner = np.array([[0.0, 0.0]])
    out = _calibration().undistort_points(corner)
    assert out.shape == (1, 2) and out[0, 0] < 0 and out[0, 1] < 0
    assert _calibration().undistort_points(np.zeros((0, 2))).shape == (0, 2)


def test_lens_calibration_undistort_wrong_size_raises() -> None:
    with pytest.raises(LayoutError, match=r"made for 960x540 px frames, this one is 640x480 px"):
        _calibration().undistort(np.zeros((480, 640, 3), np.uint8))


# --- the board -----------------------------------------------------------------------------

def test_default_board_is_7x5_of_30mm_with_5x5_markers() -> None:
    board = default_board()
    assert board.getChessboardSize() == (7, 5)
    assert (board.getSquareLength(), board.getMarkerLength()) == (BOARD_SQUARE_MM, BOARD_MARKER_MM)
    assert board.getDictionary().markerSize == 5
    assert len(board.getChessboardCorners()) == 24


def test_board_image_is_a4_landscape_at_dpi_and_detectable() -> None:
    page = board_image(dpi=150)
    assert page.shape == (round(210 / 25.4 * 150), round(297 / 25.4 * 150)) and page.dtype == np.uint8
    _, ids, _, _ = cv2.aruco.CharucoDetector(default_board()).detectBoard(page)
    assert ids is not None and len(ids) == 24


def test_board_image_low_dpi_raises() -> None:
    with pytest.raises(ValueError, match="dpi"):
        board_image(dpi=50)


# --- camera_pose ---------------------------------------------------------------------------

def test_camera_pose_recovers_the_pose_from_exact_points(views: Views) -> None:
    camera, origin, _ = views.held_out[0]
    corners = _corners_mm(origin)
    rvec, tvec = camera_pose(camera.K, camera.dist, corners, camera.project(corners))
    np.testing.assert_allclose(rvec, camera.rvec, atol=1e-6)
    np.testing.assert_allclose(tvec, camera.tvec, atol=1e-3)


def test_camera_pose_from_detected_corners_and_calibrated_lens(views: Views, calibration: LensCalibration) -> None:
    camera, origin, image = views.held_out[1]
    board = default_board()
    corners_px, ids, _, _ = cv2.aruco.CharucoDetector(board).detectBoard(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    assert ids is not None
    _, tvec = camera_pose(calibration.K, calibration.dist, _corners_mm(origin)[ids.ravel()], corners_px)
    distance_mm = float(np.linalg.norm(camera.tvec))
    assert float(np.linalg.norm(tvec - camera.tvec)) < 0.02 * distance_mm


def test_camera_pose_needs_four_points() -> None:
    with pytest.raises(CalibrationError, match=r"at least 4 points \(got 3\)"):
        camera_pose(_calibration().K, None, np.zeros((3, 3)), np.zeros((3, 2)))
