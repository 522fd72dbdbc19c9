"""The Settings screen and the turn clock, driven through real touches in a real window (Xvfb),
one process per journey (tests/ui/journeys/settings.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.test_journeys import drive, scratch

pytestmark = pytest.mark.slow


def test_ui_settings_new_pin_typed_twice(tmp_path: Path, display: str) -> None:
    [out] = drive("pin_twice", scratch(tmp_path), display)
    assert out == {"mismatch": "The two PINs differ: type the new PIN again", "saved": True,
                   "title": "Change the PIN"}


@pytest.mark.parametrize("size", ("800x480", "720x1280"))
def test_ui_settings_pin_pads_hold_still_under_a_message(tmp_path: Path, display: str, size: str) -> None:
    from kiosk.pin import CONFIG_MIN_COST_N, hash_pin

    env = scratch(tmp_path, f'[ui]\nkiosk = true\nadmin_pin_hash = "{hash_pin("2468", cost_n=CONFIG_MIN_COST_N)}"\n')
    [out] = drive("pin_pads_hold_still", env, display, size=size)
    assert out["moved_px"] == {"wrong": 0, "short": 0, "first": 0, "differ": 0}, out


@pytest.mark.parametrize("size", ("800x480", "720x1280"))
def test_ui_settings_rows_saved_and_taken_into_use(tmp_path: Path, display: str, size: str) -> None:
    [out] = drive("rows_saved", scratch(tmp_path), display, size=size)
    assert out == {"volume": 60, "warnings": [15], "turn_clock": {"budget_s": 420, "increment_s": 5}}


def test_ui_settings_advanced_holds_the_pins(tmp_path: Path, display: str) -> None:
    [out] = drive("advanced_pins", scratch(tmp_path), display)
    assert out["titles"] == ["GPIO", "Buzzer", "Buzzer pin", "Status LED pin", "Button pin"]
    assert out["buzzer_pin"] == 22 and "gpio.buzzer_pin" in out["refused"]


@pytest.mark.parametrize("size", ("800x480", "720x1280"))
def test_ui_turn_clock_own_panel_passes(tmp_path: Path, display: str, size: str) -> None:
    [out] = drive("turn_panels", scratch(tmp_path), display, size=size)
    assert out["player"] == "Csilla"


def test_ui_turn_clock_new_clock_mid_game_asks(tmp_path: Path, display: str) -> None:
    assert drive("new_clock_asks", scratch(tmp_path), display) == [{"asked": True, "reset": True}]
