"""The sand-timer screen, driven through real touches in a real window (Xvfb), one process per
journey: the paused look, the big-digit view, two timers, and the layout at every size."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.test_journeys import drive, scratch

SIZES = ("800x480", "1280x720", "720x1280")
WARNED = '[timer.presets]\nnegotiation = 12\nmarket = 590\n[gpio]\nalarm_s = 0.6\n'
"""A negotiation that shows its amber (10 s left) and red (3 s) warnings, and a market that
reads m:ss (9:50) when the big view's digits are measured (the journey's clock stands still)."""
LONG = '[timer.presets]\nnegotiation = 600\nmarket = 600\n'
"""Presets that cannot run out (and ring, swallowing a tap) while a slow display is driven."""


pytestmark = pytest.mark.slow


def test_ui_timer_paused_look_and_back(tmp_path: Path, display: str) -> None:
    assert drive("timer_paused_look", scratch(tmp_path, LONG), display) == [{"ok": True}]


def test_ui_timer_big_view_third_of_the_window(tmp_path: Path, display: str) -> None:
    [out] = drive("timer_big_view", scratch(tmp_path, WARNED), display)
    assert out["window"] == [800, 480] and out["font"] >= 160


def test_ui_timer_big_view_portrait(tmp_path: Path, display: str) -> None:
    [out] = drive("timer_big_view", scratch(tmp_path, WARNED), display, size="720x1280")
    assert out["window"] == [720, 1280] and out["font"] >= 720 / 3


def test_ui_timer_two_timers_keep_the_digits_in_hungarian(tmp_path: Path, display: str) -> None:
    [out] = drive("timer_two_timers_hu", scratch(tmp_path, LONG), display)
    assert out["font"] >= 60


@pytest.mark.parametrize("lang", ("en", "hu", "ru"))
@pytest.mark.parametrize("size", SIZES)
def test_ui_timer_layout(tmp_path: Path, display: str, size: str, lang: str) -> None:
    """One process per size and language: all nine in one would outlast the driver's timeout on
    a busy machine."""
    env = {**scratch(tmp_path, LONG), "TIMER_LANGS": lang}
    assert drive("timer_layout", env, display, size=size) == [{"ok": True}]
