"""Gold!'s end-of-game scorer, driven by touch in a real window (one process per journey)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.test_journeys import drive, scratch
from tests.ui.test_photo_journeys import camera_env

EXAMPLE_3 = {"scores": {"A": 45, "B": 45, "C": 41}, "pile_sizes": {"A": 8, "B": 9, "C": 11}, "winners": ["B"]}
EXAMPLE_4 = {"scores": {"X": 51, "Y": 51}, "pile_sizes": {"X": 11, "Y": 11}, "winners": ["X", "Y"]}


pytestmark = pytest.mark.slow


def test_ui_gold_example_3_colour_scoring_matches_the_cli(tmp_path: Path, display: str) -> None:
    assert drive("gold_scoring", scratch(tmp_path), display) == [EXAMPLE_3]


def test_ui_gold_two_players_full_tie_portrait(tmp_path: Path, display: str) -> None:
    assert drive("gold_two_players", scratch(tmp_path), display, size="720x1280") == [EXAMPLE_4]


def test_ui_gold_two_players_full_tie_wide(tmp_path: Path, display: str) -> None:
    assert drive("gold_two_players", scratch(tmp_path), display, size="1280x720") == [EXAMPLE_4]


def test_ui_gold_odd_sheet_warns_and_fits_on_the_small_panel(tmp_path: Path, display: str) -> None:
    [out] = drive("gold_odd_sheet", scratch(tmp_path), display)
    assert out == {"summary": "X\u00a05\u00a0★   Y\u00a04"}  # no-break spaces: one name, points and star


@pytest.mark.parametrize("size", ["800x480", "720x1280"])
def test_ui_gold_photo_popup_and_card_picker_fit(tmp_path: Path, display: str, size: str) -> None:
    [out] = drive("gold_photo_layout", camera_env(tmp_path, "cards"), display, size=size)
    assert out == {"values": 42, "columns": 7}
