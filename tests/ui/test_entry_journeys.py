"""Numbers by touch and the language switch after popups, through real touches on Xvfb."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.test_journeys import drive, scratch

pytestmark = pytest.mark.slow


def test_ui_numpad_types_a_count(tmp_path: Path, display: str) -> None:
    assert drive("numpad", scratch(tmp_path), display) == [{"ok": True}]


def test_ui_numpad_portrait(tmp_path: Path, display: str) -> None:
    assert drive("numpad", scratch(tmp_path), display, size="720x1280") == [{"ok": True}]


def test_ui_language_switch_after_popups(tmp_path: Path, display: str) -> None:
    assert drive("popups_then_language", scratch(tmp_path), display) == [{"ok": True}]


def test_ui_layout_checker_sees_each_fault(tmp_path: Path, display: str) -> None:
    assert drive("layout_checker", scratch(tmp_path), display) == [{"ok": True}]
