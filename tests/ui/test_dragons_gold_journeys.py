"""Dragon's Gold's touch screen, driven through real touches (tests/ui/journeys/dragons_gold.py):
the sharing dialog's countdown, the kill's defaults and colours, the score page's rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.test_journeys import drive, scratch

COUNTDOWN = '[timer]\nwarnings_s = [8, 5]\n[timer.presets]\nnegotiation = 10\n[gpio]\nalarm_s = 0.4\n'


pytestmark = pytest.mark.slow


@pytest.mark.parametrize("size", ["800x480", "720x1280"])
def test_ui_dragons_gold_sharing_dialog_countdown_pause_and_add(tmp_path: Path, display: str, size: str) -> None:
    [out] = drive("dragons_gold_sharing_countdown", scratch(tmp_path, COUNTDOWN), display, size=size)
    assert out == {"layout": [], "paused_layout": []}


@pytest.mark.parametrize("size", ["800x480", "720x1280"])
def test_ui_dragons_gold_kill_starts_at_the_cards_hidden_treasure_and_shows_colours(
        tmp_path: Path, display: str, size: str) -> None:
    [out] = drive("dragons_gold_kill_defaults", scratch(tmp_path), display, size=size)
    assert out["hidden"] == 3 and len({tuple(c) for c in out["colours"]}) == 3
    assert set(out["layout"]) == {"RevealPopup", "PlacePopup", "KillPopup", "SharingPopup", "play"}
    assert all(faults == [] for faults in out["layout"].values()), out["layout"]


@pytest.mark.parametrize(("size", "lang"), [("800x480", "en"), ("800x480", "hu"), ("800x480", "ru"),
                                           ("720x1280", "ru"), ("1280x720", "ru")])
def test_ui_dragons_gold_score_names_sit_on_their_steppers_rows(tmp_path: Path, display: str, size: str,
                                                                 lang: str) -> None:
    [out] = drive("dragons_gold_score_rows", scratch(tmp_path, f'[ui]\nlanguage = "{lang}"\n'), display, size=size)
    assert len(out["rows"]) == 9 and all(0 < at < 1 for at in out["rows"].values())
    assert out["faults"] == []
