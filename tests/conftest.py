"""Shared fixtures: a fake clock, gpiozero's MockFactory, and no ERROR log left unnoticed; every
test's time limit made room for by the machine's slowdown (tests/slowdown.py)."""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin
from hypothesis import HealthCheck, settings

from companion.events import EventBus
from tests.slowdown import SLOWDOWN, scaled

# No property is timed: Hypothesis's own per-example deadline (200 ms) and its "too slow" health
# check would fail a test for the machine's speed, not the code's. Tests that set their own
# settings keep them; these are the defaults under them.
settings.register_profile("companion", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("companion")

# A suite started in the background by a script (`./scripts/test &`) inherits SIGINT ignored, as
# POSIX has a shell do for background jobs, and so would every process it starts; the tests of
# Ctrl-C then could not pass. The tests run as a foreground program would.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_report_header(config: pytest.Config) -> str:
    return f"COMPANION_TEST_SLOWDOWN={SLOWDOWN:g}: every time limit x{SLOWDOWN:g}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """pytest-timeout's limit of each test (its own ``timeout`` mark, else ``--timeout``,
    PYTEST_TIMEOUT or pyproject's ``timeout``), in desktop seconds, times the slowdown."""
    default = config.getoption("timeout", None) or os.environ.get("PYTEST_TIMEOUT") or config.getini("timeout")
    for item in items:
        mark = item.get_closest_marker("timeout")
        base = (mark.kwargs.get("timeout", mark.args[0] if mark.args else None) if mark is not None else default)
        if not base or float(base) <= 0:
            continue  # no limit stays no limit
        others = {k: v for k, v in (mark.kwargs.items() if mark is not None else ()) if k != "timeout"}
        item.add_marker(pytest.mark.timeout(scaled(float(base)), **others), append=False)


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
