"""``companion venue watch`` end to end: the real command in its own process, a real Mosquitto
broker (tests/support/mosquitto.py), tables played by real paho clients."""

from __future__ import annotations

import os
import queue
import re
import select
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.slowdown import scaled
from tests.support.mosquitto import Broker, Connection
from venue.protocol import Topics, encode, status_body, timer_body

T1, T2 = Topics("companion", "t1"), Topics("companion", "t2")
WAIT_S = 30.0


def write_config(path: Path, broker: Broker, *, user: str = "venue", password: str | None = None,
                 ca: bool = False) -> Path:
    secret = broker.passwords[user] if password is None else password
    lines = ["[venue]", f'username = "{user}"', f'password = "{secret}"']
    if ca:
        lines.append(f'ca_file = "{broker.ca_file}"')
    path.write_text("\n".join(lines) + "\n")
    path.chmod(0o600)
    return path


@pytest.fixture
def venue_config(tmp_path: Path, broker: Broker) -> Path:
    return write_config(tmp_path / "venue.toml", broker, ca=True)


def companion(*args: str, timeout: float = WAIT_S) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True,
                          timeout=scaled(timeout), stdin=subprocess.DEVNULL)


class Running:
    """``companion venue watch`` running, its stdout read line by line on a thread of its own."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "companion", *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        self.lines: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def next_line(self, want: Callable[[str], bool], what: str) -> str:
        """The next line of stdout for which *want* holds; fails after WAIT_S, showing the rest."""
        deadline = time.monotonic() + scaled(WAIT_S)
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                line = None
            if line is None:
                self.stop()
                raise AssertionError(f"no line {what}; stdout:\n" + "\n".join(self.seen)
                                     + f"\nstderr:\n{self.stderr}")
            self.seen.append(line)
            if want(line):
                return line

    def stop(self) -> int:
        """SIGTERM (as systemd or kill would), then the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=scaled(WAIT_S))
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("the watcher did not end on SIGTERM") from None
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()
        return code

    stderr = ""


@pytest.fixture
def running() -> Iterator[Callable[..., Running]]:
    made: list[Running] = []

    def start(*args: str) -> Running:
        made.append(Running(*args))
        return made[-1]

    yield start
    for watcher in made:
        if watcher.proc.poll() is None:
            watcher.proc.kill()
            watcher.proc.wait()


def json_line(table: str, part: str, *, seq: int | None = None, state: str | None = None
              ) -> Callable[[str], bool]:
    import json

    def want(line: str) -> bool:
        got: dict[str, Any] = json.loads(line)
        body = got["body"] or {}
        return got["table"] == table and got["part"] == part and (seq is None or got["seq"] == seq) \
            and (state is None or body.get("state") == state)
    return want


def market(seq: int, state: str = "running", *, left: float = 54.2) -> dict[str, Any]:
    now = time.time()
    body = timer_body("market", state, left, 60.0, now + left if state == "running" else None, now)
    body["seq"] = seq
    return body


def play_t1(table: Connection) -> None:
    """Table t1 as the protocol has it: online, a timer running (retained)."""
    assert not table.publish(T1.status, encode(status_body("online", time.time(), version="0.1.0")),
                             retain=True).is_failure
    assert not table.publish(T1.timer("market"), encode(market(41)), retain=True).is_failure
    assert not table.publish(T1.main, encode(market(41)), retain=True).is_failure


@pytest.mark.slow
def test_json_lines_of_a_table(broker: Broker, connect: Callable[..., Connection], venue_config: Path,
                               running: Callable[..., Running]) -> None:
    import json

    table = connect("t1")
    play_t1(table)
    watch = running("venue", "watch", broker.url, "--json", "--for", "10m", "--config", str(venue_config))
    status = json.loads(watch.next_line(json_line("t1", "status"), "for t1's status"))
    assert status["body"]["state"] == "online" and status["seq"] is None and status["name"] is None
    timer = json.loads(watch.next_line(json_line("t1", "timer"), "for t1's timer"))
    assert set(timer) == {"t", "table", "part", "name", "seq", "body"}
    assert (timer["name"], timer["seq"], timer["body"]["state"]) == ("market", 41, "running")
    assert abs(timer["t"] - time.time()) < 600
    # A live change, then a repeat of it (at least once), then news: the repeat prints nothing.
    assert not table.publish(T1.timer("market"), encode(market(42, "paused")), retain=True).is_failure
    watch.next_line(json_line("t1", "timer", seq=42, state="paused"), "for the pause")
    assert not table.publish(T1.timer("market"), encode(market(42, "paused")), retain=True).is_failure
    assert not table.publish(T1.timer("market"), b"", retain=True).is_failure
    gone = json.loads(watch.next_line(lambda line: json.loads(line)["part"] == "timer", "for the clear"))
    assert gone["body"] is None and gone["seq"] is None and gone["name"] == "market"
    assert watch.stop() == 0, watch.stderr
    assert watch.stderr == ""


def table_process(broker: Broker) -> subprocess.Popen[str]:
    """Table t2 in a process of its own: a paho client with its last will, online, retained."""
    code = textwrap.dedent(f"""
        import sys, time
        from paho.mqtt.client import Client
        from paho.mqtt.enums import CallbackAPIVersion
        from venue.protocol import encode, status_body
        c = Client(CallbackAPIVersion.VERSION2, client_id="t2", protocol=5)
        c.username_pw_set("t2", {broker.passwords["t2"]!r})
        c.will_set("{T2.status}", encode(status_body("offline", time.time())), qos=1, retain=True)
        c.connect("{broker.host}", {broker.port})
        c.loop_start()
        c.publish("{T2.status}", encode(status_body("online", time.time())), qos=1, retain=True).wait_for_publish()
        print("online", flush=True)
        time.sleep(3600)
        """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], scaled(WAIT_S))
    line = proc.stdout.readline() if ready else ""
    if line.strip() != "online":
        proc.kill()
        raise AssertionError(f"the table did not come online: {line!r} {proc.stderr.read() if proc.stderr else ''}")
    return proc


@pytest.mark.slow
def test_a_table_killed_shows_offline(broker: Broker, venue_config: Path, running: Callable[..., Running]) -> None:
    table = table_process(broker)
    try:
        watch = running("venue", "watch", broker.url, "--json", "--for", "10m", "--config", str(venue_config))
        watch.next_line(json_line("t2", "status", state="online"), "for t2 online")
        table.kill()  # SIGKILL: no DISCONNECT, the broker sends the last will
    finally:
        table.kill()
        table.wait()
    watch.next_line(json_line("t2", "status", state="offline"), "for t2's last will")
    assert watch.stop() == 0, watch.stderr


@pytest.mark.slow
def test_plain_lines_without_a_terminal(broker: Broker, connect: Callable[..., Connection], venue_config: Path,
                                        running: Callable[..., Running]) -> None:
    play_t1(connect("t1"))
    watch = running("venue", "watch", broker.tls_url, "--for", "10m", "--config", str(venue_config))
    watch.next_line(lambda line: line.endswith(f"broker {broker.tls_url}: connected"), "saying connected")
    watch.next_line(lambda line: "t1 status: online" in line, "for t1 online")
    timer = watch.next_line(lambda line: "t1 timer market: running" in line, "for the timer")
    assert re.search(r"running 0:5\d$", timer), timer
    assert watch.stop() == 0, watch.stderr


@pytest.mark.slow
def test_it_reconnects_after_the_broker_restarts(broker: Broker, connect: Callable[..., Connection],
                                                 venue_config: Path, running: Callable[..., Running]) -> None:
    watch = running("venue", "watch", broker.url, "--json", "--for", "10m", "--config", str(venue_config))
    table = connect("t1")
    play_t1(table)
    watch.next_line(json_line("t1", "timer", seq=41), "for the timer")
    table.close()
    broker.restart()
    table = connect("t1")
    assert not table.publish(T1.timer("market"), encode(market(43, "paused")), retain=True).is_failure
    watch.next_line(json_line("t1", "timer", seq=43), "for the timer after the restart")
    assert watch.stop() == 0
    assert "reconnecting" in watch.stderr and watch.stderr.rstrip().endswith("connected"), watch.stderr


@pytest.mark.slow
def test_for_ends_it(broker: Broker, venue_config: Path) -> None:
    done = companion("venue", "watch", broker.url, "--json", "--for", "1", "--config", str(venue_config))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr, done.stderr
    return done.stderr.strip()


@pytest.mark.parametrize("url", ["http://127.0.0.1:1883", "mqtt://", "mqtt://u:p@host", "mqtt://host:99999",
                                 "mqtt://host/path", "mqtt://host:0", "mqtt://" + "x" * 300 + ":1883"])
def test_a_bad_url_is_exit_2(url: str, tmp_path: Path) -> None:
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    done = companion("venue", "watch", url, "--config", str(empty))
    assert done.returncode == 2
    assert one_error_line(done).startswith("companion: URL: ")


def test_no_broker_anywhere_is_exit_2(tmp_path: Path) -> None:
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    done = companion("venue", "watch", "--config", str(empty))
    assert done.returncode == 2
    assert "venue.broker" in one_error_line(done)


@pytest.mark.parametrize("bad", [["--for", "0"], ["--for", "soon"], ["--prefix", "a/+"]])
def test_bad_options_are_exit_2(bad: list[str], tmp_path: Path) -> None:
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    done = companion("venue", "watch", "mqtt://127.0.0.1:1", *bad, "--config", str(empty))
    assert done.returncode == 2
    assert one_error_line(done).startswith(f"companion: {bad[0]}: ")


def test_a_wrong_password_is_exit_2(broker: Broker, tmp_path: Path) -> None:
    config = write_config(tmp_path / "wrong.toml", broker, password="not-it")
    done = companion("venue", "watch", broker.url, "--json", "--config", str(config))
    assert done.returncode == 2
    line = one_error_line(done)
    assert f"{broker.host}:{broker.port}" in line and "refused the credentials" in line, line


def test_nothing_listening_is_exit_1(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as sock:
        port = sock.getsockname()[1]
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    done = companion("venue", "watch", f"mqtt://127.0.0.1:{port}", "--config", str(empty))
    assert done.returncode == 1
    line = one_error_line(done)
    assert f"127.0.0.1:{port}" in line and "refused" in line.lower(), line


def test_tls_against_an_unknown_ca_is_exit_1(broker: Broker, tmp_path: Path) -> None:
    """Without the venue's CA file the broker's certificate is not trusted: said, not a traceback."""
    config = write_config(tmp_path / "no-ca.toml", broker)
    done = companion("venue", "watch", broker.tls_url, "--config", str(config))
    assert done.returncode == 1
    line = one_error_line(done)
    assert f"{broker.host}:{broker.tls_port}" in line and "certificate" in line, line


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.mark.slow
def test_the_live_view_on_a_terminal(broker: Broker, connect: Callable[..., Connection],
                                     venue_config: Path) -> None:
    play_t1(connect("t1"))
    t2 = connect("t2")
    assert not t2.publish(T2.status, encode(status_body("offline", time.time())), retain=True).is_failure
    leader, follower = os.openpty()
    env = dict(os.environ, COLUMNS="100", LINES="30", TERM="xterm-256color")
    proc = subprocess.Popen([sys.executable, "-m", "companion", "venue", "watch", broker.url, "--for", "10m",
                             "--config", str(venue_config)], stdin=follower, stdout=follower,
                            stderr=subprocess.PIPE, env=env)
    os.close(follower)
    shown, deadline = b"", time.monotonic() + scaled(WAIT_S)
    try:
        while time.monotonic() < deadline:
            text = ANSI.sub("", shown.decode("utf-8", "replace"))
            if re.search(r"t1 .*online.*market.*running.*0:5\d", text) and re.search(r"t2 .*offline since", text):
                break
            ready, _, _ = select.select([leader], [], [], 0.5)
            if ready:
                try:
                    shown += os.read(leader, 65536)
                except OSError:
                    break
        else:
            raise AssertionError(f"the view never showed both tables:\n{text[-3000:]}")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=scaled(WAIT_S)) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(leader)
    assert proc.stderr is not None and proc.stderr.read() == b""
    header = [line for line in text.splitlines() if line.startswith("venue ")][-1]
    assert broker.url in header and "connected" in header and "2 tables (1 offline)" in header, header
