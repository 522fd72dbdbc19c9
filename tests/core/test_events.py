from __future__ import annotations

import logging

import pytest

from companion.events import EventBus, TimerEvent, TimerExpired, TimerStarted


def test_bus_delivers_to_exact_and_base_subscribers_in_order(bus: EventBus) -> None:
    seen: list[str] = []
    bus.subscribe(TimerExpired, lambda e: seen.append("exact"))
    bus.subscribe(TimerEvent, lambda e: seen.append("base"))
    bus.publish(TimerExpired("t", 0, 1, 5, 5))
    bus.publish(TimerStarted("t", 1, 1, 4))
    assert seen == ["exact", "base", "base"]


def test_bus_unsubscribe_stops_delivery(bus: EventBus) -> None:
    seen: list[object] = []
    unsubscribe = bus.subscribe(TimerStarted, seen.append)
    unsubscribe()
    bus.publish(TimerStarted("t", 1, 1, 4))
    assert seen == []


def test_bus_broken_handler_does_not_silence_the_rest(
    bus: EventBus, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[object] = []

    def broken(_e: object) -> None:
        raise RuntimeError("display gone")

    bus.subscribe(TimerStarted, broken)
    bus.subscribe(TimerStarted, seen.append)
    event = TimerStarted("t", 1, 1, 4)
    bus.publish(event)
    assert seen == [event]
    logged = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(logged) == 1 and "display gone" in (logged[0].exc_text or str(logged[0].exc_info))
    caplog.clear()  # the failure was the point of this test
