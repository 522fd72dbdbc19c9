"""Volatio on the touch screen, driven through real touches (one process per journey)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.test_journeys import drive, scratch

pytestmark = pytest.mark.slow


def test_ui_volatio_round_illegal_speed_crash_fatigue_undo_and_finish(tmp_path: Path, display: str) -> None:
    [out] = drive("volatio_round", scratch(tmp_path), display)
    assert out["anna"] == [2, 300]  # fatigued: 2 tokens, both pointers 300 DP (§5.9)
    assert out["crash_note"].startswith("Anna: Energy −2, Both pointers 100 DP")
    assert out["ranking"] == ["Bence", "Csilla", "Anna"] and out["winners"] == ["Bence"]
    assert out["past_line_mm"] == {"Bence": 50.0, "Csilla": 20.0}


def test_ui_volatio_camera_calls_the_crash_and_one_tap_applies_it(tmp_path: Path, display: str) -> None:
    """The overhead camera is a photo of a rendered table (exact truth): its call lists every piece,
    and the template that touches the edge becomes Anna's path crash with one tap."""
    import cv2

    from tests.support import synth
    from vision.calibration import Lens, calibrate
    from vision.lens import LensCalibration
    from vision.track import learn_track, save_track

    seed = next(s for s in range(100, 200)
                if any(p.spec.kind == "template" and p.clearance_mm <= -1.5 for p in synth.random_scene(s).pieces))
    scene, empty = synth.random_scene(seed), synth.random_scene(seed, empty=True)
    folder = tmp_path / "data" / "table-companion" / "vision"
    folder.mkdir(parents=True)
    LensCalibration(scene.camera.K, scene.camera.dist, scene.camera.size, 0.1, 20).save(folder / "lens.json")
    board = calibrate(empty.image, empty.layout, Lens(scene.camera.K, scene.camera.dist))
    save_track(learn_track(empty.image, board, empty.layout, empty.seeds_mm), folder / "track.json")
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), scene.image)
    env = scratch(tmp_path, f'[camera]\nsource = "{photo}"\n[accessory]\nport = "none"\n')
    [out] = drive("volatio_camera", env, display)
    assert len(out["rows"]) == len(scene.pieces)
    assert out["picture"][0] == min(scene.image.shape[1], 960)  # the photo, drawn on, beside the list
    touching = sum("touches the edge" in r for r in out["rows"])
    assert sum(p.clearance_mm <= -1.0 for p in scene.pieces) <= touching <= sum(p.clearance_mm <= 0 for p in scene.pieces)
    assert (tmp_path / "data" / "table-companion" / "vision" / "calibration.json").exists()


def test_ui_volatio_four_dragons_fit_800x480_as_two_by_two(tmp_path: Path, display: str) -> None:
    [out] = drive("volatio_four_fit", scratch(tmp_path), display)
    view = out["view"]
    assert len(out["boxes"]) == 4
    for box in out["boxes"].values():
        assert view[0] - 1 <= box[0] and box[2] <= view[2] + 1 and view[1] - 1 <= box[1] and box[3] <= view[3] + 1


def test_ui_volatio_six_dragons_the_next_flyer_scrolls_into_view(tmp_path: Path, display: str) -> None:
    [out] = drive("volatio_six_follow", scratch(tmp_path), display)
    assert len(out["followed"]) == 12 and set(out["hidden_at_start"]) <= set(out["followed"])


def test_ui_volatio_fatigue_banner_lists_every_consequence_until_tapped(tmp_path: Path, display: str) -> None:
    [out] = drive("volatio_fatigue_banner", scratch(tmp_path), display)
    assert out["font"] >= 18 and any("Debilitatus" in line for line in out["lines"])


def test_ui_volatio_finish_refusal_speaks_the_language_and_ranks_with_rank_points(tmp_path: Path,
                                                                                   display: str) -> None:
    [out] = drive("volatio_finish_words", scratch(tmp_path), display)
    assert out["said"] == {"en": "Dora has not flown yet", "hu": "Dora még nem repült",
                           "ru": "Dora: полёта ещё не было"}
    assert [row[-1] for row in out["rows"]] == ["4", "3", "2", "1"]
