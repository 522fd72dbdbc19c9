"""Drakon's touch screen, driven through real touches (tests/ui/journeys/drakon.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.i18n import LOCALE_DIR
from tests.ui.test_journeys import drive, scratch

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("size", ["800x480", "1280x720"])
def test_ui_drakon_secret_values_never_on_the_shared_screen(tmp_path: Path, display: str, size: str) -> None:
    [out] = drive("drakon_secret_scoring", scratch(tmp_path), display, size=size)
    assert out == {"totals": {"Anna": 11, "Bence": 6}, "goal_reached": ["Anna"], "leaders": ["Anna"]}


def test_ui_drakon_team_game_entered_at_the_reveal_portrait(tmp_path: Path, display: str) -> None:
    [out] = drive("drakon_team_reveal", scratch(tmp_path), display, size="720x1280")
    assert out == {"team_totals": {"A": 19, "B": 8}, "leaders": ["A"]}


@pytest.mark.parametrize("size", ["800x480", "720x1280"])
def test_ui_drakon_team_summary_fits_in_every_language(tmp_path: Path, display: str, size: str) -> None:
    [out] = drive("drakon_team_summary_every_language", scratch(tmp_path), display, size=size)
    shipped = sorted(p.parent.parent.name for p in LOCALE_DIR.glob("*/LC_MESSAGES/companion.po"))
    assert sorted(out["languages"]) == shipped


@pytest.mark.parametrize("size", ["800x480", "720x1280"])
def test_ui_drakon_photo_popup_and_coin_picker_fit(tmp_path: Path, display: str, size: str) -> None:
    from tests.ui.test_photo_journeys import camera_env

    [out] = drive("drakon_photo_layout", camera_env(tmp_path, "coins"), display, size=size)
    assert out == {"values": ["1", "2", "3"], "columns": 3}
