"""Calibration, the track and the Volatio edge check on synthetic scenes with exact truth,
and the app's own printed marker sheet photographed back through the renderer."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import cv2
import numpy as np
import pytest
from shapely.geometry import Point

from tests.support import synth
from vision import geometry, markers
from vision.calibration import Lens, TableCalibration, calibrate
from vision.errors import CalibrationError, LayoutError
from vision.flight import check_flight
from vision.layout import load_layout
from vision.track import learn_track, load_track, save_track

SEEDS = (11, 12, 13, 14, 15, 16)


@cache
def scenes(seed: int) -> tuple[synth.Scene, synth.Scene]:
    return synth.random_scene(seed, empty=True), synth.random_scene(seed)


def lens_of(scene: synth.Scene) -> Lens:
    """The lens as ``calibrate-lens`` would have measured it (here: the renderer's own)."""
    return Lens(scene.camera.K, scene.camera.dist)


@cache
def learned(seed: int):  # type: ignore[no-untyped-def]
    empty, _scene = scenes(seed)
    cal = calibrate(empty.image, empty.layout, lens_of(empty))
    return cal, learn_track(empty.image, cal, empty.layout, empty.seeds_mm)


@pytest.mark.slow
def test_printed_marker_sheet_photographed_back_is_true_size() -> None:
    layout = load_layout()
    pages, placed = markers.render_sheet(layout, dpi=300)
    camera = synth.random_camera(np.random.default_rng(5), (1920, 1080), (800, 500))
    origin = (300.0, 100.0)
    photo = synth.render_texture_on_table(pages[0], 25.4 / 300, origin, camera, synth.Effects.none(),
                                          np.random.default_rng(6))
    seen = markers.detect(photo, layout.dictionary)
    on_page = {p.item.marker_id: p for p in placed if p.page == 0}
    assert set(on_page) <= set(seen), sorted(set(on_page) - set(seen))
    lens = Lens(camera.K, camera.dist)
    to_table = np.linalg.inv(camera.homography(0.0))
    errors = []
    for mid, p in on_page.items():
        s = p.item.side_mm
        expected = np.array([[0, 0], [s, 0], [s, s], [0, s]]) + (origin[0] + p.x_mm, origin[1] + p.y_mm)
        und = lens.undistort_points(seen[mid])
        back = np.asarray(cv2.perspectiveTransform(und.reshape(-1, 1, 2), to_table)).reshape(-1, 2)
        errors.append(np.linalg.norm(back - expected, axis=1).max())
    assert max(errors) < 0.35  # every marker where the sheet says, at the size printed on it


@pytest.mark.slow
def test_calibration_is_sub_millimetre_and_reports_its_markers() -> None:
    empty, _ = scenes(11)
    cal = calibrate(empty.image, empty.layout, lens_of(empty))
    assert cal.markers_found == (0, 1, 2, 3)
    assert cal.reprojection_error_mm < 0.2
    assert cal.has_pose
    corners = empty.layout.table_markers[2].corners_mm
    assert np.abs(cal.to_image(corners) - empty.camera.project(np.column_stack([corners, np.zeros(4)]))).max() < 0.3
    plain = calibrate(empty.image, empty.layout)  # no lens: the homography alone, distortion unmodelled
    assert plain.reprojection_error_mm < 1.0 and not plain.has_pose


def test_too_few_table_markers_is_a_clear_error() -> None:
    empty, _ = scenes(11)
    image = empty.image.copy()
    for m in empty.layout.table_markers[1:]:
        pts = empty.camera.project(np.column_stack([m.corners_mm, np.zeros(4)]))
        x0, y0 = np.floor(pts.min(axis=0)).astype(int) - 15
        x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 15
        image[max(y0, 0):y1, max(x0, 0):x1] = 128  # a hand over it
    with pytest.raises(CalibrationError, match=r"need at least 2 of the table markers \[0, 1, 2, 3\] in view; found \[0\]"):
        calibrate(image, empty.layout)


def test_a_bumped_camera_is_noticed(tmp_path: Path) -> None:
    empty, _ = scenes(11)
    cal = calibrate(empty.image, empty.layout, lens_of(empty))
    cal.save(tmp_path / "cal.json")
    again = TableCalibration.load(tmp_path / "cal.json")
    assert not again.is_bumped(markers.detect(empty.image))
    shifted = {k: v + np.array([3.0, -1.0]) for k, v in markers.detect(empty.image).items()}  # knocked 3 px
    assert again.is_bumped(shifted)
    assert not again.is_bumped({})  # nothing seen: nothing to say it moved


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_learned_track_follows_the_printed_edge(seed: int) -> None:
    empty, _ = scenes(seed)
    _cal, learned_track = learned(seed)
    track, truth = learned_track.region, empty.track
    assert abs(track.area - truth.area) / truth.area < 0.005
    assert len(track.interiors) == len(truth.interiors)
    edge = np.asarray(track.exterior.coords)[::4]
    off = [truth.boundary.distance(Point(p)) for p in edge]
    assert float(np.mean(off)) < 0.3 and float(np.percentile(off, 95)) < 0.6


def test_track_file_round_trip_and_bad_files(tmp_path: Path) -> None:
    _cal, track = learned(11)
    save_track(track, tmp_path / "t.json")
    back = load_track(tmp_path / "t.json")
    assert back.region.equals_exact(track.region, 1e-3)
    assert back.seeds_mm == track.seeds_mm and back.weak_mm.shape == track.weak_mm.shape
    (tmp_path / "bad.json").write_text('{"polygons_mm": [[[0, 0], [1, 1]]]}')
    with pytest.raises(LayoutError, match="bad.json"):
        load_track(tmp_path / "bad.json")


def test_a_seed_off_the_track_is_refused() -> None:
    empty, _ = scenes(11)
    cal, _track = learned(11)
    with pytest.raises(CalibrationError, match="outside the area looked at"):
        learn_track(empty.image, cal, empty.layout, [(-5.0, 10.0)])


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_edge_verdicts_and_clearances_match_the_truth(seed: int) -> None:
    _empty, scene = scenes(seed)
    _board, track = learned(seed)
    cal = calibrate(scene.image, scene.layout, lens_of(scene))
    result = check_flight(scene.image, scene.layout, cal, track)
    found = {r.spec.marker_id: r for r in result.pieces}
    assert set(found) == {p.spec.marker_id for p in scene.pieces}
    for truth in scene.pieces:
        r = found[truth.spec.marker_id]
        assert r.band_mm < 1.0
        assert abs(r.clearance_mm - truth.clearance_mm) < 0.6, (truth.spec.label, r.clearance_mm, truth.clearance_mm)
        if abs(truth.clearance_mm) >= 1.0:
            assert r.verdict == ("touch" if truth.clearance_mm <= 0 else "clear")
        assert r.verdict != "uncertain" or abs(r.clearance_mm) < r.band_mm
    truth_contacts = sorted(
        tuple(sorted((a.spec.marker_id, b.spec.marker_id)))
        for i, a in enumerate(scene.pieces) for b in scene.pieces[i + 1:]
        if "dragon" in (a.spec.kind, b.spec.kind) and a.polygon.distance(b.polygon) < 0.3)
    assert sorted(tuple(sorted(c)) for c in result.contacts) == truth_contacts


def test_without_a_lens_the_height_widens_the_band_and_says_so() -> None:
    _empty, scene = scenes(12)
    _board, track = learned(12)
    cal = calibrate(scene.image, scene.layout)
    result = check_flight(scene.image, scene.layout, cal, track)
    assert result.pieces
    assert any(r.band_mm > 0.95 for r in result.pieces)  # parallax of unknown size: said, not hidden
    for r in result.pieces:
        assert (r.band_mm > 0.95) == bool(r.note)
        if r.note:
            assert "lens calibration" in r.note or "markers" in r.note


def geometry_place(points: np.ndarray, theta: float) -> np.ndarray:
    return geometry.place(np.asarray(points, np.float64), 0.0, 0.0, theta)


@pytest.mark.slow
def test_a_real_template_is_measured_from_a_photo() -> None:
    """A 300 template (its two markers) lying on a dark cloth: its outline comes back in its own frame."""
    from vision.pieces import measure_outline

    layout = load_layout()
    spec = layout.piece_for(12)
    assert spec is not None and spec.speed == 300
    true_outline = np.array([[0.0, -21.0], [170.0, -21.0], [170.0, 21.0], [0.0, 21.0]])  # not the layout's guess
    s = 8.0  # texture px per mm
    origin = np.array([250.0, 180.0])
    theta = 0.35
    cloth = np.full((int(260 * s), int(300 * s), 3), 45, np.uint8)
    placed = np.asarray(geometry_place(true_outline, theta) + (120, 110))
    cv2.fillPoly(cloth, [np.round(placed * s * 16).astype(np.int32)], (225, 225, 215), cv2.LINE_AA, shift=4)
    d = markers.dictionary(layout.dictionary)
    for mid, corners in spec.markers.items():
        quad = geometry_place(corners, theta) + (120, 110)
        side = 240
        img = cv2.aruco.generateImageMarker(d, mid, side, borderBits=1)
        src = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32) - 0.5
        h = cv2.getPerspectiveTransform(src, (quad * s - 0.5).astype(np.float32))
        warped = cv2.warpPerspective(cv2.cvtColor(img, cv2.COLOR_GRAY2BGR), h, cloth.shape[1::-1],
                                     flags=cv2.INTER_AREA, borderValue=(0, 0, 0))
        mask = cv2.warpPerspective(np.full((side, side), 255, np.uint8), h, cloth.shape[1::-1])
        cloth[mask > 127] = warped[mask > 127]
    empty, _ = scenes(11)
    photo = synth.render_texture_on_table(cloth, 1 / s, tuple(origin), empty.camera, synth.Effects.none(),
                                          np.random.default_rng(2))
    # the table markers come from the board photo: the same camera, calibrated once
    cal = calibrate(empty.image, empty.layout, lens_of(empty))
    got = measure_outline(photo, cal, layout, 12, height_mm=0.0)
    measured = geometry.polygon(np.asarray(got["outline_mm"]))
    truth = geometry.polygon(true_outline)
    assert measured.hausdorff_distance(truth) < 0.6
    assert abs(measured.area - truth.area) / truth.area < 0.01
