"""The History screen, driven through real touches in a real window (Xvfb), one process per
journey (tests/ui/journeys/history.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.test_journeys import drive, scratch

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("size", ("800x480", "720x1280"))
def test_ui_history_legend_gives_each_player_a_colour_of_their_own(tmp_path: Path, display: str,
                                                                     size: str) -> None:
    [out] = drive("history_legend_colours", scratch(tmp_path), display, size=size)
    legend = out["legend"]
    assert sorted(legend) == ["Anna", "Bob", "Csilla", "Dávid"], legend
    assert len(set(legend.values())) == len(legend), legend  # no two players alike
    # Anna wore blue last, after Bob: she keeps it; Csilla and Dávid keep theirs.
    assert legend == {"Anna": "blue", "Csilla": "green", "Bob": "red", "Dávid": "yellow"}, legend
    assert out["same_as_chart"], out
