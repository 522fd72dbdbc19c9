"""Shared fixtures: a fake clock, gpiozero's MockFactory, and no ERROR log left unnoticed."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from companion.events import EventBus


class FakeClock:
    """Monotonic seconds that move only when a test says so."""

    def __init__(self, start: float = 1_000.0) -> None:
        self.t = start

    def now(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


class Recorder:
    """Subscribes to a bus and keeps every event of the given kind, in order."""

    def __init__(self, bus: EventBus, kind: type = object) -> None:
        self.events: list[object] = []
        bus.subscribe(kind, self.events.append)

    def kinds(self) -> list[str]:
        return [type(e).__name__ for e in self.events]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def bus() -> EventBus:
    return EventBus()


@pytest.fixture
def mock_pins() -> Iterator[MockFactory]:
    factory = MockFactory(pin_class=MockPWMPin)
    yield factory
    factory.close()


@pytest.fixture(autouse=True)
def _no_error_logs(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Any ERROR log fails the test: a handler that blew up is a bug even if nothing else shows it."""
    caplog.set_level(logging.WARNING)
    yield
    errors = [r for r in caplog.get_records("call") if r.levelno >= logging.ERROR]
    assert not errors, "ERROR logged: " + "; ".join(r.getMessage() for r in errors)
