"""A table's link on a real Mosquitto broker: ``companion timer --venue`` in its own process, and
the link in this one for what needs the broker stopped under it."""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from companion.clock import MonotonicClock
from companion.events import EventBus
from companion.timers import TimerBoard
from tests.disks import SmallDisk, mounted_small_disk
from tests.processes import Lines, finish
from tests.slowdown import scaled
from tests.support.mosquitto import Broker, Connection, Received
from venue.link import VenueLink, VenueSettings
from venue.outbox import Outbox
from venue.protocol import Broker as Address

pytestmark = pytest.mark.slow
T = TypeVar("T")


def _config(tmp_path: Path, broker: Broker, table: str = "t1", **extra: object) -> Path:
    lines = ["[venue]", f'broker = "{broker.url}"', f'table = "{table}"', f'username = "{table}"',
             f'password = "{broker.passwords[table]}"', f'[paths]\ndatabase = "{tmp_path / "db.sqlite3"}"']
    venue = [f"{k} = {json.dumps(v)}" for k, v in extra.items()]
    path = tmp_path / "config.toml"
    path.write_text("\n".join(lines[:5] + venue + lines[5:]) + "\n")
    return path


def _timer(config: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "companion", "--config", str(config), "timer", *args,
                             "--gpio", "off", "--accessory", "none", "--json"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _body(message: Received) -> dict[str, object]:
    body = json.loads(message.payload)
    assert isinstance(body, dict)
    return body


def _is(topic: str, **fields: object) -> Callable[[Received], bool]:
    def match(m: Received) -> bool:
        return m.topic == topic and bool(m.payload) and all(_body(m).get(k) == v for k, v in fields.items())
    return match


def _all(conn: Connection, *preds: Callable[[Received], bool]) -> list[dict[str, object]]:
    """The bodies of the next messages that *preds* match, one each, in whatever order they come;
    returned in the order of *preds*."""
    found: dict[int, dict[str, object]] = {}
    while len(found) < len(preds):
        m = conn.next_matching(lambda m: any(p(m) for i, p in enumerate(preds) if i not in found))
        found[next(i for i, p in enumerate(preds) if i not in found and p(m))] = _body(m)
    return [found[i] for i in range(len(preds))]


def test_a_terminal_timer_is_seen_from_start_to_alarm_and_leaves_offline(
        broker: Broker, listen: Callable[..., Connection], tmp_path: Path) -> None:
    venue = listen("venue", ["companion/#"])
    proc = _timer(_config(tmp_path, broker), "2", "--name", "market")
    out = Lines(proc, "companion timer")
    venue.next_matching(_is("companion/t1/status", state="online"), scaled(30))
    running = _body(venue.next_matching(_is("companion/t1/timer/market", state="running")))
    assert running["total_s"] == 2.0 and isinstance(running["deadline"], float)
    assert abs(running["deadline"] - (time.time() + running["remaining_s"])) < scaled(5)  # type: ignore[operator]
    expired = _body(venue.next_matching(_is("companion/t1/timer/market", state="expired")))
    assert expired["seq"] > running["seq"]  # type: ignore[operator]
    venue.next_matching(_is("companion/t1/alarm", state="on", timer="market"))
    venue.next_matching(_is("companion/t1/status", state="offline"))
    out.next_matching(lambda line: '"expired"' in line)
    assert proc.wait(scaled(30)) == 0, out.stderr
    mains = [_body(m) for m in venue.seen if m.topic == "companion/t1/main" and m.payload]
    assert [b["state"] for b in mains][-1] == "expired"


def test_the_venue_pauses_adds_time_and_is_told_what_it_cannot_do(
        broker: Broker, listen: Callable[..., Connection], connect: Callable[..., Connection],
        tmp_path: Path) -> None:
    venue = listen("venue", ["companion/t1/#"])
    proc = _timer(_config(tmp_path, broker, accept_commands=True), "300", "--name", "market")
    out = Lines(proc, "companion timer")
    try:
        venue.next_matching(_is("companion/t1/timer/market", state="running"), scaled(30))
        operator = connect("venue", broker.passwords["venue"])
        operator.publish("companion/t1/cmd/pause", b"")
        reply, paused = _all(venue, _is("companion/t1/reply"), _is("companion/t1/timer/market", state="paused"))
        assert reply["ok"] is True
        out.next_matching(lambda line: '"paused"' in line)  # the terminal's own timer paused
        operator.publish("companion/t1/cmd/add", b'{"seconds": 30, "timer": "market"}')
        reply, added = _all(venue, _is("companion/t1/reply"), _is("companion/t1/timer/market", state="paused"))
        assert reply["ok"] is True
        assert added["remaining_s"] == pytest.approx(paused["remaining_s"] + 30)  # type: ignore[operator]
        operator.publish("companion/t1/cmd/pause", b"")
        refused = _body(venue.next_matching(_is("companion/t1/reply", ok=False)))
        assert "not running" in str(refused["why"])
        operator.publish("companion/t1/cmd/start", b'{"timer": "lunch"}')
        assert "no such timer" in str(_body(venue.next_matching(_is("companion/t1/reply", ok=False)))["why"])
        operator.publish("companion/t1/cmd/announce", "Utolsó kör!".encode())
        assert _body(venue.next_matching(_is("companion/t1/reply", ok=True)))["command"]["text"] == "Utolsó kör!"  # type: ignore[index]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(scaled(30))
    assert "venue: Utolsó kör!" in out.stderr, out.stderr


def test_a_table_that_takes_no_commands_does_not_hear_them(
        broker: Broker, listen: Callable[..., Connection], connect: Callable[..., Connection],
        tmp_path: Path) -> None:
    venue = listen("venue", ["companion/t1/#"])
    proc = _timer(_config(tmp_path, broker), "300", "--name", "market")
    try:
        venue.next_matching(_is("companion/t1/status", state="online"), scaled(30))
        connect("venue", broker.passwords["venue"]).publish("companion/t1/cmd/pause", b"")
        proc.send_signal(signal.SIGTERM)
        finish(proc, "companion timer")
        venue.next_matching(_is("companion/t1/status", state="offline"))
    finally:
        proc.kill()
    assert not any(m.topic == "companion/t1/reply" for m in venue.seen)
    states = [_body(m)["state"] for m in venue.seen if m.topic == "companion/t1/timer/market" and m.payload]
    assert "paused" not in states


def test_a_table_killed_with_minus_9_shows_offline_by_its_last_will(
        broker: Broker, listen: Callable[..., Connection], tmp_path: Path) -> None:
    venue = listen("venue", ["companion/t1/status"])
    proc = _timer(_config(tmp_path, broker), "300")
    out = Lines(proc, "companion timer")
    venue.next_matching(_is("companion/t1/status", state="online"), scaled(30))
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(scaled(30))
    gone = _body(venue.next_matching(_is("companion/t1/status", state="offline"), scaled(30)))
    assert gone["protocol"] == 1, out.stderr


# -- the link in this process, with the broker stopped under it ------------------------------


class Core:
    """The core's thread for a link in a test: it runs what paho's thread posts, and what the test
    hands it with :meth:`call`, one at a time, as the app's loop does."""

    def __init__(self) -> None:
        self.inbox: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while (fn := self.inbox.get()) is not None:
            fn()

    def post(self, fn: Callable[[], None]) -> None:
        self.inbox.put(fn)

    def call(self, fn: Callable[[], T]) -> T:
        """*fn*'s result, run on the core's thread."""
        answer: queue.SimpleQueue[T] = queue.SimpleQueue()
        self.post(lambda: answer.put(fn()))
        return answer.get(timeout=scaled(30))

    def until(self, done: Callable[[], bool], what: str, timeout_s: float = 30) -> None:
        """Wait for *done* (asked on the core's thread) to hold, failing after *timeout_s*."""
        deadline = time.monotonic() + scaled(timeout_s)
        while not self.call(done):
            if time.monotonic() > deadline:
                pytest.fail(f"not {what} in {scaled(timeout_s):g} s")
            time.sleep(0.02)

    def stop(self) -> None:
        self.inbox.put(None)
        self.thread.join(scaled(30))


def _link(broker: Broker, db: Path, core: Core, board: TimerBoard, bus: EventBus) -> VenueLink:
    """A link made on the core's thread, as its outbox's database must be used from there."""
    settings = VenueSettings(Address.from_url(broker.url), "t1", username="t1", password=broker.passwords["t1"])

    def make() -> VenueLink:
        link = VenueLink(settings, Outbox(db, "companion/t1"), core.post, board.clock, wall=time.time)
        link.attach(bus, lambda: {n: board[n] for n in board.names})
        return link
    return core.call(make)


def _watcher(broker: Broker) -> Connection:
    """A watcher with a kept session, so what is published while it reconnects waits for it."""
    props = Properties(PacketTypes.CONNECT)
    props.SessionExpiryInterval = 3600
    watcher = Connection(broker, "venue", broker.passwords["venue"], client_id="watcher", clean_start=False,
                         properties=props)
    assert not watcher.subscribe("companion/t1/timer/#")[0].is_failure
    return watcher


def _delivered(link: VenueLink) -> Callable[[], bool]:
    return lambda: link.connected and link.pending == 0


def _fresh(watcher: Connection, until: Callable[[dict[str, object]], bool]) -> list[dict[str, object]]:
    """The timer's states the watcher receives up to the one *until* accepts, repeats (a seq
    already seen: delivery is at least once) left out."""
    fresh: list[dict[str, object]] = []
    while not fresh or not until(fresh[-1]):
        body = _body(watcher.next_matching(lambda m: m.topic.endswith("/market") and bool(m.payload)))
        if not fresh or body["seq"] > fresh[-1]["seq"]:  # type: ignore[operator]
            fresh.append(body)
    return fresh


def test_changes_made_while_the_broker_is_down_all_arrive_in_order(broker: Broker, tmp_path: Path) -> None:
    core, bus = Core(), EventBus()
    board = TimerBoard(MonotonicClock(), bus)
    core.call(lambda: board.add("market", 120))
    link = _link(broker, tmp_path / "db.sqlite3", core, board, bus)
    watcher = _watcher(broker)
    try:
        core.call(link.start)
        core.until(_delivered(link), "connected")
        core.call(lambda: board.start("market"))
        core.until(_delivered(link), "delivered")
        broker.stop()
        core.until(lambda: not link.connected, "told the broker is gone")
        for change in (lambda: board.pause("market"), lambda: board.adjust("market", 15),
                       lambda: board.resume("market"), lambda: board.pause("market"),
                       lambda: board.reset("market")):
            core.call(change)  # the table plays on
        assert core.call(lambda: link.pending) == 10  # each change: its timer and the main timer
        broker.start()
        states = _fresh(watcher, lambda b: b["state"] == "idle" and len(watcher.seen) > 2)
    finally:
        core.call(link.close)
        core.stop()
        watcher.close()
    assert [b["state"] for b in states] == ["idle", "running", "paused", "paused", "running", "paused", "idle"]
    assert states[3]["remaining_s"] == pytest.approx(states[2]["remaining_s"] + 15)  # type: ignore[operator]


def test_what_a_table_could_not_deliver_is_sent_by_its_next_start(broker: Broker, tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    watcher = _watcher(broker)
    broker.stop()
    core, bus = Core(), EventBus()
    board = TimerBoard(MonotonicClock(), bus)
    core.call(lambda: board.add("market", 60))
    first = _link(broker, db, core, board, bus)
    core.call(first.start)
    core.call(lambda: board.start("market"))
    core.call(lambda: board.pause("market"))
    core.call(lambda: first.close(wait_s=0.1))  # the plug is pulled before the broker is back
    core.stop()
    left = [p for p in Outbox(db, "companion/t1").pending() if p.topic.endswith("/market")]
    assert [json.loads(p.payload)["state"] for p in left] == ["idle", "running", "paused"]
    broker.start()
    core, bus = Core(), EventBus()
    board = TimerBoard(MonotonicClock(), bus)
    core.call(lambda: board.add("market", 60))
    second = _link(broker, db, core, board, bus)
    try:
        core.call(second.start)
        states = _fresh(watcher, lambda b: b["seq"] > left[-1].seq)
        core.until(_delivered(second), "delivered")
    finally:
        core.call(second.close)
        core.stop()
        watcher.close()
    assert [b["state"] for b in states] == ["idle", "running", "paused", "idle"]
    assert Outbox(db, "companion/t1").pending() == []


def test_a_terminal_timer_is_followed_by_venue_watch_json(broker: Broker, connect: Callable[..., Connection],
                                                          tmp_path: Path) -> None:
    watcher_config = tmp_path / "watch.toml"
    watcher_config.write_text(f'[venue]\nusername = "venue"\npassword = "{broker.passwords["venue"]}"\n')
    watch = subprocess.Popen([sys.executable, "-m", "companion", "--config", str(watcher_config), "venue", "watch",
                              broker.url, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = Lines(watch, "companion venue watch")
    try:
        other = connect("t2", broker.passwords["t2"])
        other.publish("companion/t2/status", b'{"state": "online", "t": 1.0, "protocol": 1}', retain=True)
        lines.next_matching(lambda line: '"t2"' in line, 30)  # the watcher is subscribed
        timer = _timer(_config(tmp_path, broker), "3", "--name", "market")
        seen = []
        while not seen or seen[-1]["part"] != "status" or seen[-1]["body"]["state"] != "offline":
            seen.append(json.loads(lines.next_matching(lambda line: '"t1"' in line, 30)))
        assert timer.wait(scaled(30)) == 0
    finally:
        watch.send_signal(signal.SIGTERM)
        finish(watch, "companion venue watch")
    timers = [(s["body"]["state"], s["seq"]) for s in seen if s["part"] == "timer" and s["name"] == "market"]
    assert [state for state, _ in timers] == ["idle", "running", "expired"], seen
    assert [seq for _, seq in timers] == sorted(seq for _, seq in timers)
    assert [s["body"]["state"] for s in seen if s["part"] == "status"] == ["online", "offline"]
    assert any(s["part"] == "alarm" and s["body"]["state"] == "on" for s in seen)


def test_a_table_over_tls_checks_the_brokers_certificate(
        broker: Broker, listen: Callable[..., Connection], tmp_path: Path) -> None:
    venue = listen("venue", ["companion/t1/status"])
    config = _config(tmp_path, broker, ca_file=str(broker.ca_file))
    config.write_text(config.read_text().replace(broker.url, broker.tls_url))
    proc = _timer(config, "300")
    try:
        venue.next_matching(_is("companion/t1/status", state="online"), scaled(30))
    finally:
        proc.send_signal(signal.SIGTERM)
        finish(proc, "companion timer")
    untrusted = tmp_path / "other"
    untrusted.mkdir()
    config = _config(untrusted, broker)  # no ca_file: the system's CAs do not know the test CA
    config.write_text(config.read_text().replace(broker.url, broker.tls_url))
    proc = _timer(config, "2")
    out, err = finish(proc, "companion timer")  # the table plays on without its broker
    assert proc.returncode == 0, err
    assert '"expired"' in out and "certificate" in err.lower(), err


def test_two_tables_with_one_id_are_told_so(broker: Broker, listen: Callable[..., Connection],
                                           tmp_path: Path) -> None:
    venue = listen("venue", ["companion/t1/status"])
    tables = []
    try:
        for name in ("first", "second"):
            (tmp_path / name).mkdir()
            tables.append(Lines(_timer(_config(tmp_path / name, broker), "300"), f"the {name} table"))
            venue.next_matching(_is("companion/t1/status", state="online"), scaled(30))
        deadline = time.monotonic() + scaled(30)
        while "two tables may share the id" not in tables[0].stderr:  # its stderr is read on a thread
            if time.monotonic() > deadline:
                tables[0].fail("never said that another table took its id")
            time.sleep(0.05)
    finally:
        for table in tables:
            table.proc.kill()
            table.proc.wait(scaled(30))


def test_a_broker_that_is_not_there_is_said_and_the_table_plays_on(tmp_path: Path) -> None:
    core, bus = Core(), EventBus()
    board = TimerBoard(MonotonicClock(), bus)
    core.call(lambda: board.add("market", 60))
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = VenueSettings(Address.from_url(f"mqtt://127.0.0.1:{port}"), "t1")

    def make() -> VenueLink:
        made = VenueLink(settings, Outbox(tmp_path / "db.sqlite3", "companion/t1"), core.post, board.clock,
                         wall=time.time)
        made.attach(bus, lambda: {n: board[n] for n in board.names})
        return made
    link = core.call(make)
    try:
        core.call(link.start)
        core.call(lambda: board.start("market"))
        core.until(lambda: link.state == "unreachable", "said unreachable")
        assert "refused" in core.call(lambda: link.status).lower()
        assert core.call(lambda: link.pending) >= 2  # kept for when the broker is there
    finally:
        core.call(lambda: link.close(wait_s=0.1))
        core.stop()


@pytest.fixture
def small_disk() -> Iterator[SmallDisk]:
    yield from mounted_small_disk()


def test_a_full_disk_loses_no_change_on_the_way_to_the_broker(broker: Broker, small_disk: SmallDisk,
                                                              tmp_path: Path) -> None:
    watcher = _watcher(broker)
    core, bus = Core(), EventBus()
    board = TimerBoard(MonotonicClock(), bus)
    core.call(lambda: board.add("market", 60))
    link = _link(broker, small_disk.path / "companion.sqlite3", core, board, bus)
    try:
        core.call(link.start)
        core.until(_delivered(link), "connected")
        small_disk.fill()
        for change in (lambda: board.start("market"), lambda: board.pause("market"),
                       lambda: board.adjust("market", 5), lambda: board.reset("market")):
            core.call(change)
        states = _fresh(watcher, lambda b: b["state"] == "idle" and b["total_s"] == 60 and len(watcher.seen) > 1)
        assert core.call(lambda: link._outbox.trouble) is not None  # it said why, and kept them in memory
    finally:
        core.call(link.close)
        core.stop()
        watcher.close()
    assert [b["state"] for b in states] == ["idle", "running", "paused", "paused", "idle"]
