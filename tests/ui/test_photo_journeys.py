"""The scoring screens filled from a photo of the table, driven by touch (tests/ui/journeys/photo.py).

Each test puts a piece library in the app's data folder and a composed photo where the camera
source is (tests/ui/photo_scenes.py); the journey checks that the popup shows what the vision
code reads in that photo, corrects it by touch, cancels once and applies once.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.test_journeys import drive, scratch

pytestmark = pytest.mark.slow


def camera_env(tmp_path: Path, photo: str) -> dict[str, str]:
    from tests.ui.photo_scenes import set_up

    env = scratch(tmp_path)
    path = set_up(tmp_path / "data", tmp_path, photo)
    config = tmp_path / "config" / "table-companion" / "config.toml"
    config.write_text(f'[camera]\nsource = "{path}"\n[accessory]\nport = "none"\n')
    return env


@pytest.mark.parametrize("size", ["800x480", "720x1280"])
def test_ui_dragons_gold_treasure_from_a_photo(tmp_path: Path, display: str, size: str) -> None:
    [out] = drive("dragons_gold_photo", camera_env(tmp_path, "treasure"), display, size=size)
    assert out["read"] == ["gold", "purple", "red", "silver", "silver"]
    assert out["anna"] == {"silver": 4}  # after one undo: the photo's changes all taken back
    assert out["changed"] == 9 - 4  # silver, gold, red, purple, white; the others stay 0


def test_ui_drakon_coins_from_a_photo_at_the_reveal(tmp_path: Path, display: str) -> None:
    [out] = drive("drakon_photo", camera_env(tmp_path, "coins"), display)
    assert out == {"read": [3, 3, 2, 1], "anna": [3, 3, 2, 2, 1]}


def test_ui_gold_display_from_a_photo(tmp_path: Path, display: str) -> None:
    [out] = drive("gold_photo", camera_env(tmp_path, "cards"), display, size="1280x720")
    assert out["read"] == ["green:8", "blue:donkey", "purple:3", "red:5"]
    assert out["display"] == ["green:8", "blue:donkey", "purple:3", "red:6", "orange:6"]


def test_ui_photo_without_a_piece_library_says_so_in_one_line(tmp_path: Path, display: str) -> None:
    import cv2

    from tests.ui.photo_scenes import PHOTOS, render

    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), render(PHOTOS["cards"]))
    env = scratch(tmp_path, f'[camera]\nsource = "{photo}"\n[accessory]\nport = "none"\n')
    [out] = drive("photo_without_a_library", env, display)
    assert out["note"] == "No pieces are registered for the camera yet: the host registers them first"


def test_ui_photo_without_a_camera_says_so_first(tmp_path: Path, display: str) -> None:
    env = scratch(tmp_path, '[camera]\nsource = "/dev/video97"\n[accessory]\nport = "none"\n')
    [out] = drive("photo_without_a_camera", env, display)
    assert out["note"] == "The camera gives no picture: video device '/dev/video97': no such device (is the camera plugged in?)"
