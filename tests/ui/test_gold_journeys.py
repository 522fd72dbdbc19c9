"""Gold!'s end-of-game scorer, driven by touch in a real window (one process per journey)."""

from __future__ import annotations

from pathlib import Path

from tests.ui.test_journeys import drive, scratch

EXAMPLE_3 = {"scores": {"A": 45, "B": 45, "C": 41}, "pile_sizes": {"A": 8, "B": 9, "C": 11}, "winners": ["B"]}
EXAMPLE_4 = {"scores": {"X": 51, "Y": 51}, "pile_sizes": {"X": 11, "Y": 11}, "winners": ["X", "Y"]}


def test_ui_gold_example_3_colour_scoring_matches_the_cli(tmp_path: Path, display: str) -> None:
    assert drive("gold_scoring", scratch(tmp_path), display) == [EXAMPLE_3]


def test_ui_gold_two_players_full_tie_portrait(tmp_path: Path, display: str) -> None:
    assert drive("gold_two_players", scratch(tmp_path), display, size="720x1280") == [EXAMPLE_4]


def test_ui_gold_two_players_full_tie_wide(tmp_path: Path, display: str) -> None:
    assert drive("gold_two_players", scratch(tmp_path), display, size="1280x720") == [EXAMPLE_4]
