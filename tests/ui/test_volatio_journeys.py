"""Volatio on the touch screen, driven through real touches (one process per journey)."""

from __future__ import annotations

from pathlib import Path

from tests.ui.test_journeys import drive, scratch


def test_ui_volatio_round_illegal_speed_crash_fatigue_undo_and_finish(tmp_path: Path, display: str) -> None:
    [out] = drive("volatio_round", scratch(tmp_path), display)
    assert out["anna"] == [2, 300]  # fatigued: 2 tokens, both pointers 300 DP (§5.9)
    assert out["crash_note"].startswith("Anna: Energy −2, both pointers 100 DP")
    assert out["ranking"] == ["Bence", "Csilla", "Anna"] and out["winners"] == ["Bence"]
    assert out["past_line_mm"] == {"Bence": 50.0, "Csilla": 20.0}
