"""The service notifier on real unix datagram sockets: a path, and an abstract name ('@...')."""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from kiosk.host import HostRequests, clear_last_error, last_error_path, record_last_error
from kiosk.watchdog import Notifier


@pytest.fixture
def listener(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify"))
    sock.settimeout(5)
    yield sock, str(tmp_path / "notify")
    sock.close()


def test_notifier_sends_ready_then_watchdog(listener: tuple[socket.socket, str]) -> None:
    sock, address = listener
    notifier = Notifier.from_environment({"NOTIFY_SOCKET": address, "WATCHDOG_USEC": "20000000"})
    assert notifier.is_enabled and notifier.feed_interval_s == 5.0
    assert notifier.ready() and notifier.feed() and notifier.stopping()
    assert [sock.recv(4096) for _ in range(3)] == [b"READY=1\nSTATUS=running", b"WATCHDOG=1", b"STOPPING=1"]
    notifier.close()


def test_notifier_abstract_socket() -> None:
    name = f"companion-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(5)
    try:
        notifier = Notifier(f"@{name}", 1_000_000)
        assert notifier.feed()
        assert sock.recv(4096) == b"WATCHDOG=1"
    finally:
        sock.close()


@pytest.mark.parametrize("environ, interval", [
    ({}, None),
    ({"NOTIFY_SOCKET": "/run/systemd/notify"}, None),  # notify, but no watchdog
    ({"NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "nonsense"}, None),
    ({"NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "400000", "WATCHDOG_PID": "1"}, None),  # someone else's
    ({"NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "400000", "WATCHDOG_PID": str(os.getpid())}, 0.1),
    ({"NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "400000", "WATCHDOG_PID": str(os.getppid())}, 0.1),  # under cage
])
def test_notifier_from_environment(environ: dict[str, str], interval: float | None) -> None:
    assert Notifier.from_environment(environ).feed_interval_s == interval


def test_notifier_outside_systemd_does_nothing() -> None:
    notifier = Notifier.from_environment({})
    assert not notifier.is_enabled and notifier.feed() is False and notifier.ready() is False


def test_notifier_lost_socket_warns_once_never_raises(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    notifier = Notifier(str(tmp_path / "gone"), 1_000_000)
    with caplog.at_level(logging.WARNING):
        assert [notifier.feed() for _ in range(5)] == [False] * 5
    assert [r.levelname for r in caplog.records] == ["WARNING"]
    assert "cannot notify the service manager" in caplog.records[0].getMessage()


def test_host_requests_write_the_file_a_path_unit_watches(tmp_path: Path) -> None:
    host = HostRequests.from_environment({"RUNTIME_DIRECTORY": f"{tmp_path}:/elsewhere"})
    assert host is not None and host.directory == tmp_path
    assert host.request("poweroff") == tmp_path / "poweroff"
    assert (tmp_path / "poweroff").read_text() == "poweroff\n"
    assert HostRequests.from_environment({}) is None
    from companion.errors import CompanionError

    with pytest.raises(CompanionError, match="unknown action 'reboot'"):
        host.request("reboot")
    with pytest.raises(CompanionError, match="cannot write"):
        HostRequests(tmp_path / "missing").request("leave")


def test_last_error_kept_and_cleared(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    record_last_error(config, "boom\n")
    assert last_error_path(config).read_text() == "boom\n"
    clear_last_error(config)
    assert not last_error_path(config).exists()
    record_last_error(tmp_path / "missing" / "config.toml", "never raises")


def test_store_survives_a_power_cut_settings(tmp_path: Path) -> None:
    """The kiosk counts on it: WAL and synchronous=FULL, so a cut loses at most the event in flight."""
    from companion.store import Store

    store = Store.open(tmp_path / "companion.sqlite3")
    try:
        conn = store._conn
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    finally:
        store.close()
