"""Tests for a wired Raspberry Pi (buzzer, LED bar, status LED, button on the default pins).

Skipped unless COMPANION_RIG names the rig (``COMPANION_RIG=pi``). They use the real pin
factory and the real clock, and the button test asks a person to press the button.
"""

from __future__ import annotations

import os
import threading
import time

import pytest

from companion.clock import MonotonicClock
from companion.config import load_config
from companion.events import EventBus
from companion.timers import TimerBoard
from firmware_bridge.gpio import ButtonActions, SandTimerPanel, choose_pin_factory

pytestmark = [
    pytest.mark.hardware,
    pytest.mark.skipif(not os.environ.get("COMPANION_RIG"), reason="set COMPANION_RIG to run on a rig"),
]


@pytest.fixture
def panel():
    from companion.cli.timer import panel_settings

    setup = choose_pin_factory("real")
    pressed = threading.Event()
    held = threading.Event()
    p = SandTimerPanel(panel_settings(load_config(None)), setup, post=lambda fn: fn(),
                       actions=ButtonActions(toggle=pressed.set, reset=held.set))
    p.pressed, p.held = pressed, held  # type: ignore[attr-defined]
    yield p
    p.close()
    setup.factory.close()


def test_rig_factory_is_real(panel: SandTimerPanel) -> None:
    assert panel.setup.is_real


def test_rig_bar_drains_and_buzzer_sounds(panel: SandTimerPanel) -> None:
    bus = EventBus()
    done = threading.Event()
    panel.attach(bus, on_alarm_done=done.set)
    board = TimerBoard(MonotonicClock(), bus, tick_hz=10, warnings_s=(2, 1))
    board.add("rig", 4)
    board.start("rig")
    end = time.monotonic() + 10
    while not done.is_set() and time.monotonic() < end:
        board.poll()
        board.tick()
        time.sleep(0.05)
    assert done.is_set()
    assert panel.bar is not None and panel.bar.value == 0


def test_rig_button_press(panel: SandTimerPanel) -> None:
    print("\npress the button within 15 s ...")
    assert panel.pressed.wait(15)  # type: ignore[attr-defined]
