"""``companion vision ...`` end to end: real processes, synthetic photos written as files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.support import synth
from vision.lens import LensCalibration

SEED = 21


def companion(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The empty board and the board with pieces, as PNG files, the lens as calibrate-lens
    would save it, and the scene's truth."""
    d = tmp_path_factory.mktemp("photos")
    empty = synth.random_scene(SEED, empty=True)
    scene = synth.random_scene(SEED)
    cv2.imwrite(str(d / "empty.png"), empty.image)
    cv2.imwrite(str(d / "flight.png"), scene.image)
    LensCalibration(scene.camera.K, scene.camera.dist, scene.camera.size, 0.1, 20).save(d / "lens.json")
    return {"dir": d, "empty": empty, "scene": scene}


@pytest.mark.slow
def test_calibrate_answers_the_contract(photos: dict) -> None:
    d = photos["dir"]
    done = companion("vision", "calibrate", str(d / "empty.png"), "--lens", str(d / "lens.json"),
                     "--out", str(d / "cal.json"), "--json")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert set(got) == {"reprojection_error_mm", "markers_found", "homography"}
    assert got["markers_found"] == [0, 1, 2, 3] and got["reprojection_error_mm"] < 0.3
    assert len(got["homography"]) == 3 and all(len(r) == 3 for r in got["homography"])
    assert (d / "cal.json").exists()


@pytest.mark.slow
def test_learn_track_then_check_flight_answer_the_contract(photos: dict) -> None:
    d = photos["dir"]
    empty, scene = photos["empty"], photos["scene"]
    seeds = [f"{x:.1f},{y:.1f}" for x, y in empty.seeds_mm]
    args = ["vision", "learn-track", str(d / "empty.png"), "--lens", str(d / "lens.json"),
            "--out", str(d / "track.json"), "--json"]
    for s in seeds:
        args += ["--seed", s]
    done = companion(*args)
    assert done.returncode == 0, done.stderr
    track = json.loads(done.stdout)
    assert set(track) == {"polygons_mm", "area_mm2", "weak_mm", "seeds_mm"}
    assert track["area_mm2"] == pytest.approx(empty.track.area, rel=0.005)
    assert len(track["polygons_mm"]) == 1 + len(empty.track.interiors)

    done = companion("vision", "check-flight", str(d / "flight.png"), "--track", str(d / "track.json"),
                     "--lens", str(d / "lens.json"), "--json")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert set(got) >= {"pieces", "contacts"}
    truth = {p.spec.marker_id: p for p in scene.pieces}
    assert sorted(p["marker_id"] for p in got["pieces"]) == sorted(truth)
    for p in got["pieces"]:
        assert set(p) >= {"marker_id", "kind", "verdict", "touches_edge", "clearance_mm", "contact_mm"}
        t = truth[p["marker_id"]]
        assert p["kind"] == t.spec.kind
        assert p["clearance_mm"] == pytest.approx(t.clearance_mm, abs=0.6)
        if abs(t.clearance_mm) >= 1:
            assert p["verdict"] == ("touch" if t.clearance_mm <= 0 else "clear")
            assert p["touches_edge"] is (t.clearance_mm <= 0)

    text = companion("vision", "check-flight", str(d / "flight.png"), "--track", str(d / "track.json"),
                     "--lens", str(d / "lens.json"))
    assert text.returncode == 0 and "clearance" in text.stdout


@pytest.mark.slow
def test_markers_sheet_is_a4_at_true_size(tmp_path: Path) -> None:
    done = companion("vision", "markers", "--out", str(tmp_path / "sheet"), "--json")
    assert done.returncode == 0, done.stderr
    files = [Path(f) for f in json.loads(done.stdout)["files"]]
    assert [f.suffix for f in files] == [".png"] * (len(files) - 1) + [".pdf"]  # a page a PNG, one PDF
    png = cv2.imread(str(files[0]), cv2.IMREAD_GRAYSCALE)
    assert png.shape == (round(297 / 25.4 * 300), round(210 / 25.4 * 300))  # A4 at 300 dpi
    assert files[-1].read_bytes().startswith(b"%PDF")
    from PIL import Image

    assert Image.open(files[0]).info["dpi"] == pytest.approx((300, 300), abs=0.01)


@pytest.mark.slow
def test_lens_board_prints(tmp_path: Path) -> None:
    done = companion("vision", "calibrate-lens", "--board", str(tmp_path / "board.png"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "board.png").exists() and (tmp_path / "board.pdf").exists()


@pytest.mark.parametrize(("args", "message"), [
    (["vision", "calibrate", "/no/such.png"], "/no/such.png"),
    (["vision", "calibrate", "IMG", "--layout", "/no/layout.json"], "layout /no/layout.json: cannot read it"),
    (["vision", "learn-track", "IMG", "--seed", "north", "--out", "t.json"], "--seed: must be X,Y"),
    (["vision", "check-flight", "IMG", "--track", "/no/track.json"], "track /no/track.json: cannot read it"),
    (["vision", "calibrate-lens"], "IMAGE: give 15-30 photos"),
    (["vision", "calibrate", "BLANK"], "need at least 2 of the table markers"),
])
@pytest.mark.slow
def test_vision_bad_input_is_one_line_exit_2(photos: dict, tmp_path: Path, args: list[str], message: str) -> None:
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), 255 * np.ones((100, 100, 3), np.uint8))
    args = [str(photos["dir"] / "empty.png") if a == "IMG" else str(blank) if a == "BLANK" else a for a in args]
    done = companion(*args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


SET_GAME = Path(__file__).resolve().parents[1] / "vision" / "data" / "set-game"


@pytest.mark.slow
def test_register_then_read_a_real_card(tmp_path: Path) -> None:
    """Three real card fronts registered from their crops; a photo of one of them is read back."""
    library = tmp_path / "lib"
    names = ["1-green-solid-squiggle", "1-purple-striped-diamond", "1-red-empty-oval"]
    for name in names:
        for n, crop in enumerate(sorted((SET_GAME / "crops_train_sample" / name).glob("*.jpg"))):
            flipped = tmp_path / f"{name}-{n}.png"  # the dataset's crops are mirrored (see its tests)
            cv2.imwrite(str(flipped), cv2.flip(cv2.imread(str(crop)), 1))
            done = companion("vision", "register", str(flipped), "--library", str(library), "--kind", "set-card",
                             "--front", name, "--shape", "rect", "--size-mm", "57x88", "--json")
            assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["kind"] == "set-card"
    test = next((SET_GAME / "crops_test" / names[0]).glob("*.jpg"))
    flipped = tmp_path / "test.png"
    cv2.imwrite(str(flipped), cv2.flip(cv2.imread(str(test)), 1))
    done = companion("vision", "read", str(flipped), "--library", str(library), "--json")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert set(got) == {"pieces", "unknown"}
    [piece] = got["pieces"]
    assert (piece["kind"], piece["face"], piece["front"]) == ("set-card", "up", names[0])
    assert set(piece) >= {"kind", "face", "front", "angle_deg", "confidence"}


@pytest.mark.parametrize(("args", "message"), [
    (["vision", "read", "IMG", "--library", "/no/lib"], "/no/lib"),
    (["vision", "register", "IMG", "--library", "LIB", "--kind", "coin", "--front", "A", "--shape", "disc",
      "--size-mm", "big"], "--size-mm: must be W or WxH"),
])
@pytest.mark.slow
def test_library_bad_input_is_one_line_exit_2(photos: dict, tmp_path: Path, args: list[str], message: str) -> None:
    args = [str(photos["dir"] / "empty.png") if a == "IMG" else str(tmp_path / "lib") if a == "LIB" else a
            for a in args]
    done = companion(*args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and message in done.stderr, done.stderr


@pytest.mark.slow
def test_remember_empty_saves_the_cameras_frame_beside_the_database(tmp_path: Path) -> None:
    frame = np.full((120, 160, 3), 70, np.uint8)
    frame[40:80, 60:100] = (20, 140, 200)
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), frame)
    config = tmp_path / "config.toml"
    config.write_text(f'[paths]\ndatabase = "{tmp_path / "data" / "companion.db"}"\n'
                      f'[camera]\nsource = "{photo}"\n')
    done = companion("--config", str(config), "vision", "remember-empty", "--json")
    assert done.returncode == 0, done.stderr
    saved = Path(json.loads(done.stdout)["file"])
    assert saved == tmp_path / "data" / "vision" / "empty.png"
    assert np.array_equal(cv2.imread(str(saved)), frame)
    missing = companion("--config", str(config), "vision", "remember-empty", "--camera", "/dev/video99")
    assert missing.returncode == 2 and len(missing.stderr.strip().splitlines()) == 1, missing.stderr
    assert "Traceback" not in missing.stderr


@pytest.mark.slow
def test_read_with_the_empty_table_finds_pieces_on_a_wood_grain(tmp_path: Path) -> None:
    from tests.support import synth_pieces
    from vision import layout

    scene = synth_pieces.random_piece_scene(5)  # on wood, whose grain is no piece
    assert scene.empty is not None
    cv2.imwrite(str(tmp_path / "table.png"), scene.image)
    cv2.imwrite(str(tmp_path / "empty.png"), scene.empty)
    LensCalibration(scene.camera.K, scene.camera.dist, scene.camera.size, 0.1, 20).save(tmp_path / "lens.json")
    synth_pieces.make_library(tmp_path / "lib")
    base = ["vision", "read", str(tmp_path / "table.png"), "--library", str(tmp_path / "lib"), "--layout",
            str(layout.DEFAULT_LAYOUT), "--lens", str(tmp_path / "lens.json"), "--json"]

    def right(done: subprocess.CompletedProcess[str]) -> int:
        assert done.returncode == 0, done.stderr
        found = json.loads(done.stdout)["pieces"]
        for p in found:  # nothing reported that is not there
            assert any(np.hypot(*(np.array(p["center_mm"]) - t.center_mm)) < 10 for t in scene.pieces), p
        return sum(any(f"{p['kind']}/{p['front'] or 'back'}" == t.label
                       and np.hypot(*(np.array(p["center_mm"]) - t.center_mm)) < 10 for p in found)
                   for t in scene.pieces)

    without, with_empty = right(companion(*base)), right(companion(*base, "--empty", str(tmp_path / "empty.png")))
    assert min(without, with_empty) >= len(scene.pieces) - 2, (without, with_empty, len(scene.pieces))
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), scene.empty[::2, ::2])
    done = companion(*base, "--empty", str(small))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "--empty" in done.stderr and "same view" in done.stderr, done.stderr
