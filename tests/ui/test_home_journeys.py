"""The Home screen by taps alone, through real touches on Xvfb: names on the app's keyboard, the
language over a restart, player counts checked at Start, and chips that hold still."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.disks import SmallDisk, mounted_small_disk
from tests.ui.test_journeys import drive, scratch

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("size", ["800x480", "1280x720", "720x1280"])
def test_ui_home_name_typed_on_the_keyboard(tmp_path: Path, display: str, size: str) -> None:
    assert drive("home_keyboard", scratch(tmp_path), display, size=size) == [{"names": ["Dávid", "Юля"]}]


def test_ui_home_keyboard_opens_on_the_language_layout(tmp_path: Path, display: str) -> None:
    [out] = drive("home_keyboard_follows_the_language", scratch(tmp_path), display)
    assert out["seen"] == {"en": ["en", "qwertyuiop"], "ru": ["ru", "йцукенгшщзхъ"], "hu": ["hu", "qwertzuiopőú"]}
    assert out["switched"] == "ru" and out["again"] == ["ru", "йцукенгшщзхъ"], out


def test_ui_home_language_survives_a_restart(tmp_path: Path, display: str) -> None:
    env = scratch(tmp_path, "[gpio]\nalarm_s = 0.6\n")
    [saved] = drive("home_language_saved", env, display)
    assert 'language = "hu"' in saved["config"] and "alarm_s = 0.6" in saved["config"], saved
    assert drive("home_language_restored", env, display) == [{"lang": "hu"}]


@pytest.fixture
def small_disk() -> Iterator[SmallDisk]:
    yield from mounted_small_disk()


def test_ui_home_language_unsaved_is_reported(tmp_path: Path, display: str, small_disk: SmallDisk) -> None:
    """The config's folder is a real disk turned read-only: the language cannot be kept."""
    env = {**scratch(tmp_path), "XDG_CONFIG_HOME": str(small_disk.path)}
    (small_disk.path / "table-companion").mkdir()
    (small_disk.path / "table-companion" / "config.toml").write_text("[timer]\ntick_hz = 5\n")
    small_disk.read_only()
    assert drive("home_language_unsaved", env, display) == [{"ok": True}]


def test_ui_home_start_refuses_a_wrong_player_count(tmp_path: Path, display: str) -> None:
    [out] = drive("home_player_counts", scratch(tmp_path), display)
    assert out == {"said": ["Dragon's Gold is for 3 to 6 players (2 at the table)",
                            "Gold! is for 2 to 3 players (4 at the table)"]}


@pytest.mark.parametrize("size", ["800x480", "720x1280"])
def test_ui_home_chips_hold_still_and_removal_is_undone(tmp_path: Path, display: str, size: str) -> None:
    [out] = drive("home_stable_chips", scratch(tmp_path), display, size=size)
    assert out["names"][0] == "Bence" and sorted(out["names"]) == ["Anna", "Bence", "Csilla", "Dávid"]


def test_ui_home_offers_a_registered_fifth_game(tmp_path: Path, display: str) -> None:
    shot = tmp_path / "home-toy.png"
    env = {**scratch(tmp_path), "COMPANION_TEST_GAME": "tests.support.toy_game", "TOY_SCREENSHOT": str(shot)}
    [out] = drive("home_fifth_game", env, display)
    assert out == {"page": "game:toy-race",
                   "filters": ["All games", "Dragon's Gold", "Volatio", "Gold!", "Drakon", "Toy Race"]}
    assert list(tmp_path.glob("home-toy*.png")), "no screenshot of Home with the fifth game"  # Kivy numbers it


def test_ui_home_start_asks_before_ending_a_game_in_play(tmp_path: Path, display: str) -> None:
    [out] = drive("home_start_over", scratch(tmp_path), display)
    assert out["asked"] == {"game": "drakon", "same": True, "page": "home", "button": "Start over", "red": True,
                            "note": "Drakon is not finished: “Start over” ends it"}, out["asked"]
    assert (out["started"], out["then"]) == ("dragons-gold", "gold")


def test_ui_a_name_too_long_for_its_chip_ends_in_an_ellipsis(tmp_path: Path, display: str) -> None:
    [out] = drive("home_long_name", scratch(tmp_path), display)
    assert out["home"] and all(seen == [True, True, True] for seen in map(list, out["home"])), out["home"]
    assert out["scoring"] and all(seen == [True, True, True] for seen in map(list, out["scoring"])), out
    assert out["faults"] == []
