"""A real Mosquitto broker for the venue's tests, and real paho-mqtt clients that wait for its answers.

:class:`Broker` runs Debian's ``/usr/sbin/mosquitto`` on two free ports of 127.0.0.1 (plain, and
TLS with a CA and a server certificate made by trustme), with passwords for the tables t1, t2, ...
and the users ``venue`` and ``homeassistant``, the access rules of the documented example
``docs/examples/mosquitto/venue.acl`` (copied as it is), and persistence on disk, so a graceful
restart keeps sessions and retained messages. :class:`Connection` is a connected client;
:class:`Listener` one subscribed to given topic filters.

Every wait here is for an event (a CONNACK, a SUBACK, a message), with a deadline
scaled by the slowdown (tests/slowdown.py) after which it fails and says what it saw.
"""

from __future__ import annotations

import atexit
import os
import pwd
import queue
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trustme
from paho.mqtt.client import MQTT_CLEAN_START_FIRST_ONLY, Client, topic_matches_sub
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from tests.slowdown import scaled

ACL_EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "mosquitto" / "venue.acl"
"""The documented access rules: the broker uses this very file."""

READY_S = 20.0
"""How long (desktop seconds) a broker may take to accept connections, or to stop."""

_running: set[subprocess.Popen[bytes]] = set()


@atexit.register
def _kill_leftovers() -> None:
    """A run cut short (Ctrl-C, a crash) leaves no broker behind."""
    for proc in list(_running):
        proc.kill()
        proc.wait()


def _program(name: str, fallback: str) -> str:
    found = shutil.which(name) or (fallback if Path(fallback).exists() else None)
    if found is None:
        raise RuntimeError(f"{name} not found (nor {fallback}): ./scripts/test installs Debian's mosquitto "
                           "package, which has it")
    return found


def _free_ports(count: int) -> list[int]:
    """*count* different ports of 127.0.0.1 that nothing listens on now."""
    sockets = [socket.create_server(("127.0.0.1", 0)) for _ in range(count)]
    ports = [int(sock.getsockname()[1]) for sock in sockets]
    for sock in sockets:
        sock.close()
    return ports


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


CONNECT = bytes([0x10, 12, 0, 4, *b"MQTT", 4, 2, 0, 60, 0, 0])
"""An anonymous MQTT 3.1.1 CONNECT: refused by the broker, but answered with a CONNACK."""


def _serving(port: int) -> bool:
    """True once the broker's main loop answers a CONNECT on *port*. Its port accepts before: the
    kernel queues connections from listen() on, and Mosquitto 2.0 sets its flag to run after its
    SIGTERM handler, so a SIGTERM that comes before the main loop would be lost."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
            sock.sendall(CONNECT)
            return sock.recv(1) == b"\x20"
    except OSError:
        return False


class Broker:
    """Mosquitto with its own config, password file, ACL, certificates, data and log in *directory*.

    ``tables`` names the table users (t1 .. tN); every user's password is in ``passwords``.
    ``log_type`` is what the log holds (Mosquitto's ``log_type``: ``all`` for the tests, less for
    a benchmark).
    """

    host = "127.0.0.1"

    def __init__(self, directory: Path, tables: int = 3, *, log_type: str = "all") -> None:
        self.directory = directory
        self.log_type = log_type
        self.directory.mkdir(parents=True, exist_ok=True)
        self.tables = tuple(f"t{n}" for n in range(1, tables + 1))
        self.passwords = {user: f"{user}-secret" for user in (*self.tables, "venue", "homeassistant")}
        self.ca_file = directory / "ca.pem"
        self.log_file = directory / "mosquitto.log"
        self.port, self.tls_port = _free_ports(2)
        self._proc: subprocess.Popen[bytes] | None = None
        self._mosquitto = _program("mosquitto", "/usr/sbin/mosquitto")
        self._write_files()

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    @property
    def tls_url(self) -> str:
        return f"mqtts://{self.host}:{self.tls_port}"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def _write_files(self) -> None:
        ca = trustme.CA()
        server = ca.issue_cert("127.0.0.1", "localhost")
        ca.cert_pem.write_to_path(str(self.ca_file))
        for pem in server.cert_chain_pems:
            pem.write_to_path(str(self.directory / "server.pem"), append=True)
        server.private_key_pem.write_to_path(str(self.directory / "server.key"))
        passwd = _program("mosquitto_passwd", "/usr/bin/mosquitto_passwd")
        for n, (user, password) in enumerate(self.passwords.items()):
            args = [passwd, *(["-c"] if n == 0 else []), "-b", str(self.directory / "passwd"), user, password]
            done = subprocess.run(args, capture_output=True, text=True, timeout=scaled(READY_S))
            if done.returncode != 0:
                raise RuntimeError(f"{' '.join(args)}: exit {done.returncode}: {done.stderr.strip()}")
        shutil.copyfile(ACL_EXAMPLE, self.directory / "venue.acl")
        (self.directory / "data").mkdir(exist_ok=True)

    def _write_config(self) -> Path:
        d = self.directory
        conf = d / "mosquitto.conf"
        conf.write_text(
            f"user {pwd.getpwuid(os.geteuid()).pw_name}\n"  # as root, Mosquitto would become "mosquitto"
            "allow_anonymous false\n"
            f"password_file {d / 'passwd'}\n"
            f"acl_file {d / 'venue.acl'}\n"
            "persistence true\n"
            f"persistence_location {d / 'data'}/\n"
            f"log_dest file {self.log_file}\n"
            f"log_type {self.log_type}\n"
            f"listener {self.port} {self.host}\n"
            f"listener {self.tls_port} {self.host}\n"
            f"cafile {self.ca_file}\ncertfile {d / 'server.pem'}\nkeyfile {d / 'server.key'}\n")
        return conf

    def start(self) -> None:
        """Start the broker on its ports (the same at every start); return once it serves both."""
        if self.running:
            raise RuntimeError("the broker is already running")
        # Mosquitto binds with SO_REUSEPORT: a second broker on a taken port would share it.
        if _accepts(self.port) or _accepts(self.tls_port):
            raise RuntimeError(f"another program listens on port {self.port} or {self.tls_port}")
        with open(self.directory / "mosquitto.out", "ab") as out:
            self._proc = subprocess.Popen([self._mosquitto, "-c", str(self._write_config())], stdout=out,
                                          stderr=out, stdin=subprocess.DEVNULL)
        _running.add(self._proc)
        deadline = time.monotonic() + scaled(READY_S)
        while not (_serving(self.port) and _accepts(self.tls_port)):
            if self._proc.poll() is not None or time.monotonic() > deadline:
                code = self._proc.poll()
                self.kill()
                what = f"exited (exit {code})" if code is not None else f"did not answer in {scaled(READY_S):g} s"
                raise RuntimeError(f"mosquitto {what} on ports {self.port}, {self.tls_port}:\n{self.log_text()}")
            time.sleep(0.02)

    def _forget(self) -> None:
        if self._proc is not None:
            _running.discard(self._proc)
        self._proc = None

    def stop(self) -> None:
        """SIGTERM, then wait until the broker has saved its data and exited. A broker that had
        exited by itself, or that does not exit cleanly, is an error (after it is gone)."""
        proc = self._proc
        if proc is None:
            return
        died = proc.poll()
        if died is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=scaled(READY_S))
            except subprocess.TimeoutExpired:
                self.kill()
                raise RuntimeError(f"mosquitto ignored SIGTERM for {scaled(READY_S):g} s:\n{self.log_text()}") from None
        self._forget()
        if proc.returncode != 0:
            how = "had exited by itself" if died is not None else "stopped"
            raise RuntimeError(f"mosquitto {how} with exit {proc.returncode}:\n{self.log_text()}")

    def restart(self) -> None:
        """A graceful stop, then a start on the same ports with the same data."""
        self.stop()
        self.start()

    def kill(self) -> None:
        """SIGKILL: the broker ends at once, saving nothing."""
        proc = self._proc
        if proc is not None:
            proc.kill()
            proc.wait()
        self._forget()

    def log_text(self) -> str:
        """The broker's log, then anything it printed itself (errors before its log was open)."""
        parts = [p.read_text(errors="replace") for p in (self.log_file, self.directory / "mosquitto.out")
                 if p.exists()]
        return "\n".join(part for part in parts if part)


@dataclass(frozen=True)
class Received:
    """One message as a client received it."""

    topic: str
    payload: bytes
    qos: int
    retain: bool


def client(broker: Broker, username: str | None, password: str | None = None, *, tls: bool = False,
           client_id: str = "", protocol: MQTTProtocolVersion = MQTTProtocolVersion.MQTTv5) -> Client:
    """A paho client for *username* (its password from the broker unless given; None: anonymous),
    TLS trusting the broker's CA if *tls*; not yet connected."""
    mqtt = Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=protocol)
    if username is not None:
        mqtt.username_pw_set(username, password if password is not None else broker.passwords[username])
    if tls:
        mqtt.tls_set(ca_certs=str(broker.ca_file))
    return mqtt


class Connection:
    """A paho client connected as *username* (None: anonymous; its password from the broker unless
    given), its network loop on its own thread. Publish and subscribe wait for the broker's answer
    and return its reason codes; every message received is queued for :meth:`next_matching`.

    ``connack`` is the CONNACK's reason code: a refused connection does not raise here. The
    keywords go to :func:`client`, and *clean_start* (MQTT 5 only) and *properties* to paho's connect.
    """

    def __init__(self, broker: Broker, username: str | None, password: str | None = None, *, tls: bool = False,
                 client_id: str = "", protocol: MQTTProtocolVersion = MQTTProtocolVersion.MQTTv5,
                 clean_start: bool | None = None, properties: Properties | None = None, timeout: float = 30) -> None:
        self.username = username
        self.timeout = scaled(timeout)
        self.seen: list[Received] = []
        self._queue: queue.SimpleQueue[Received] = queue.SimpleQueue()
        self._answers: dict[str, Any] = {}
        self._changed = threading.Condition()
        self.mqtt = client(broker, username, password, tls=tls, client_id=client_id, protocol=protocol)
        self.mqtt.on_connect = self._on_connect
        self.mqtt.on_publish = lambda _c, _u, mid, code, _p: self._put(f"pub{mid}", code)
        self.mqtt.on_subscribe = lambda _c, _u, mid, codes, _p: self._put(f"sub{mid}", codes)
        self.mqtt.on_message = lambda _c, _u, m: self._queue.put(
            Received(m.topic, bytes(m.payload), m.qos, bool(m.retain)))
        self.mqtt.connect(broker.host, broker.tls_port if tls else broker.port, properties=properties,
                          clean_start=MQTT_CLEAN_START_FIRST_ONLY if clean_start is None else clean_start)
        self.mqtt.loop_start()
        self.connack: ReasonCode = self._answer("connack", "CONNACK")

    def _on_connect(self, mqtt: Client, _userdata: Any, _flags: Any, code: ReasonCode, _props: Any) -> None:
        if code.is_failure:
            mqtt.disconnect()  # no retries: the test asks for the answer, not for a session
        self._put("connack", code)

    def _put(self, key: str, answer: Any) -> None:
        with self._changed:
            self._answers[key] = answer
            self._changed.notify_all()

    def _answer(self, key: str, what: str) -> Any:
        with self._changed:
            if self._changed.wait_for(lambda: key in self._answers, self.timeout):
                return self._answers.pop(key)
        self.close()
        raise AssertionError(f"{self.username}: no {what} in {self.timeout:g} s")

    def publish(self, topic: str, payload: bytes | str, *, qos: int = 1, retain: bool = False) -> ReasonCode:
        """Publish; once the broker has answered (at QoS 0: once sent), its reason code: under
        MQTT 5, "Not authorized" (0x87) for a topic the ACL denies."""
        mid = self.mqtt.publish(topic, payload, qos=qos, retain=retain).mid
        code: ReasonCode = self._answer(f"pub{mid}", f"answer to PUBLISH {topic}")
        return code

    def subscribe(self, *filters: str, qos: int = 1) -> list[ReasonCode]:
        """Subscribe; the SUBACK's reason code for each filter."""
        _result, mid = self.mqtt.subscribe([(f, qos) for f in filters])
        codes: list[ReasonCode] = self._answer(f"sub{mid}", f"SUBACK for {filters}")
        return codes

    def next_matching(self, predicate: Callable[[Received], bool], timeout: float = 30) -> Received:
        """The next message that satisfies *predicate*; every message taken, matching or not, is
        appended to ``seen``. Fails after *timeout* desktop seconds (scaled), listing them."""
        deadline = time.monotonic() + scaled(timeout)
        while True:
            try:
                message = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                heard = "\n".join(f"  {m.topic} {m.payload[:80]!r}" for m in self.seen) or "  nothing"
                raise AssertionError(f"{self.username}: no matching message in {scaled(timeout):g} s; "
                                     f"heard:\n{heard}") from None
            self.seen.append(message)
            if predicate(message):
                return message

    def wait_for(self, topic: str, payload: Callable[[bytes], bool] = lambda _p: True,
                 timeout: float = 30) -> Received:
        """The next message on *topic* (a topic filter) whose payload satisfies *payload*."""
        return self.next_matching(lambda m: topic_matches_sub(topic, m.topic) and payload(m.payload), timeout)

    def close(self) -> None:
        self.mqtt.disconnect()
        self.mqtt.loop_stop()


class Listener(Connection):
    """A connection as *username* subscribed to *topics* at QoS 1: once made, every subscription
    is in place (a refused connection or subscription fails the test)."""

    def __init__(self, broker: Broker, username: str, topics: Iterable[str], **kwargs: Any) -> None:
        self.topics = list(topics)
        super().__init__(broker, username, **kwargs)
        refused = [f"CONNACK {self.connack}"] if self.connack.is_failure else [
            f"{t}: {c}" for t, c in zip(self.topics, self.subscribe(*self.topics), strict=True) if c.is_failure]
        if refused:
            self.close()
            raise AssertionError(f"{username} refused: {refused}")
