"""The venue's fixtures: a real Mosquitto broker for each test (tests/support/mosquitto.py), its
clients closed and the broker stopped after it, pass or fail, and no broker left running."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.mosquitto import Broker, Connection, Listener


def _left_running(directory: Path) -> str:
    """The processes still running a broker whose config lies under *directory* (pgrep's lines)."""
    found = subprocess.run(["pgrep", "-a", "-f", "mosquitto -c " + re.escape(str(directory))],
                           capture_output=True, text=True, timeout=30)
    assert found.returncode in (0, 1), f"pgrep: exit {found.returncode}: {found.stderr}"
    return found.stdout


@pytest.fixture(scope="session", autouse=True)
def _no_broker_left(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    yield
    left = _left_running(tmp_path_factory.getbasetemp())
    assert not left, f"mosquitto still running after the tests:\n{left}"


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """A started broker: tables t1, t2, t3, users venue and homeassistant, the documented ACL."""
    broker = Broker(tmp_path / "broker")
    broker.start()
    try:
        yield broker
    finally:
        try:
            broker.stop()
        finally:
            broker.kill()  # nothing left to do after a stop; the end of one that did not stop
        left = _left_running(broker.directory)
        assert not left, f"mosquitto still running after its test:\n{left}"


@pytest.fixture
def connect(broker: Broker) -> Iterator[Callable[..., Connection]]:
    """``connect(username, password=None, **keywords)``: a :class:`Connection` to the broker,
    closed after the test."""
    made: list[Connection] = []

    def make(username: str | None, password: str | None = None, **keywords: Any) -> Connection:
        made.append(Connection(broker, username, password, **keywords))
        return made[-1]

    yield make
    for connection in made:
        connection.close()


@pytest.fixture
def listen(broker: Broker) -> Iterator[Callable[..., Listener]]:
    """``listen(username, topics, **keywords)``: a :class:`Listener` on the broker, subscribed,
    closed after the test."""
    made: list[Listener] = []

    def make(username: str, topics: list[str], **keywords: Any) -> Listener:
        made.append(Listener(broker, username, topics, **keywords))
        return made[-1]

    yield make
    for listener in made:
        listener.close()
