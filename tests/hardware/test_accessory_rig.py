"""Tests for a real timer accessory (a Pico with the reference firmware) on a USB port.

Skipped unless COMPANION_ACCESSORY names its port (``COMPANION_ACCESSORY=/dev/ttyACM0``, or
``auto``). They use the real clock; the button test asks a person to press the button, and
the unplug test asks them to pull the cable and put it back.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator

import pytest

from companion.clock import MonotonicClock
from companion.events import EventBus
from companion.timers import TimerBoard
from firmware_bridge.accessory import AccessoryBridge, self_test
from firmware_bridge.accessory_host import StatusReported
from firmware_bridge.firmware import accessory_proto as proto
from firmware_bridge.gpio import ButtonActions

PORT = os.environ.get("COMPANION_ACCESSORY", "")
pytestmark = [
    pytest.mark.hardware,
    pytest.mark.skipif(not PORT, reason="set COMPANION_ACCESSORY to a port (or auto) to run on an accessory"),
]


@pytest.fixture
def accessory() -> Iterator[tuple[AccessoryBridge, dict[str, threading.Event]]]:
    seen = {"toggle": threading.Event(), "reset": threading.Event()}
    bridge = AccessoryBridge(PORT, lambda fn: fn(), ButtonActions(toggle=seen["toggle"].set,
                                                                  reset=seen["reset"].set))
    bridge.start()
    assert bridge.wait_until(lambda: bridge.status.is_connected, 5), bridge.status.to_text()
    yield bridge, seen
    bridge.close()


def test_accessory_handshake_names_the_firmware(accessory: tuple[AccessoryBridge, dict]) -> None:
    device = accessory[0].status.device
    assert device is not None and device.protocol_version == proto.VERSION
    assert device.capabilities & proto.CAP_DISPLAY and device.capabilities & proto.CAP_BUTTON


def test_accessory_counts_down_with_the_host(accessory: tuple[AccessoryBridge, dict]) -> None:
    bridge = accessory[0]
    reports: list[StatusReported] = []
    bridge._on_report = reports.append
    clock = MonotonicClock()
    bus = EventBus()
    board = TimerBoard(clock, bus)
    bridge.attach(bus)
    board.add("rig", 20)
    board.start("rig")
    time.sleep(3)
    bridge.command(proto.GET_STATUS)
    assert bridge.wait_until(lambda: bool(reports), 2)
    host_ms = board["rig"].remaining_s(clock.now()) * 1000
    assert reports[-1].state == "running" and abs(reports[-1].remaining_ms - host_ms) < 100


def test_accessory_self_test_passes(accessory: tuple[AccessoryBridge, dict]) -> None:
    assert self_test(accessory[0], print)


def test_accessory_button_press_and_hold(accessory: tuple[AccessoryBridge, dict]) -> None:
    _bridge, seen = accessory
    print("\npress the accessory's button, then hold it for 2 s", flush=True)
    assert seen["toggle"].wait(30)
    assert seen["reset"].wait(30)


def test_accessory_reconnects_after_the_cable_is_pulled(accessory: tuple[AccessoryBridge, dict]) -> None:
    bridge = accessory[0]
    print("\npull the accessory's cable, then plug it back in", flush=True)
    assert bridge.wait_until(lambda: not bridge.status.is_connected, 60)
    assert bridge.wait_until(lambda: bridge.status.is_connected, 60)
