"""A table's link to the venue's broker: its state out, the venue's commands in.

:class:`VenueLink` listens to the core's timer events, keeps what the venue knows of each timer
and publishes a topic only when its content changed (a running timer is one message, with its
deadline). Every state message goes through the :class:`~venue.outbox.Outbox` first, then
waits its turn: one message at a time is handed to paho-mqtt (QoS 1), the next once the broker
has acknowledged it. paho resends the one in flight after a reconnection before anything newer
is handed over, so the broker gets a table's changes in order whatever the network does. The
table keeps playing throughout.

Threads: everything here runs on the core's thread, except paho's callbacks, which only hand
closures to the core through ``post``.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import socket
import ssl
import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from companion.clock import Clock
from companion.errors import CompanionError, InvalidInput, one_line
from companion.events import (
    EventBus,
    Post,
    TimerEvent,
    TimerTicked,
    WarningReached,
)
from companion.timers import main_timer
from venue.discovery import discovery_messages
from venue.outbox import Outbox, Pending
from venue.protocol import (
    Broker,
    Command,
    CommandError,
    Topics,
    encode,
    parse_command,
    status_body,
)
from venue.timers import TimerSource, timer_states

log = logging.getLogger(__name__)

SESSION_EXPIRY_S = 3600
TAKEN_OVER = 0x8E
"""MQTT 5's reason code when another client connected with the same client id (a broker may also
just close the connection: then three connections in a row that end within
:data:`SHORT_CONNECTION_S` say the same)."""
SHORT_CONNECTION_S = 5.0
KEEPALIVE_S = 15
CommandHandler = Callable[[Command], None]
"""Carries out a venue's command on the core's thread; raises ``ValueError`` or one of the
core's errors (``InvalidInput``, ``TimerStateError``...) with a one-line reason to refuse it."""


@dataclass(frozen=True)
class VenueSettings:
    """Where and as whom a table connects (the config's ``[venue]``)."""

    broker: Broker
    table: str
    prefix: str = "companion"
    username: str = ""
    password: str = ""
    ca_file: str = ""
    accept_commands: bool = False
    discovery_prefix: str = "homeassistant"

    @property
    def topics(self) -> Topics:
        return Topics(self.prefix, self.table)

    @property
    def client_id(self) -> str:
        return f"companion-{self.prefix.replace('/', '-')}-{self.table}"


class VenueLink:
    """One table on the broker. :meth:`attach` to the bus, :meth:`start`, and :meth:`close` at
    the end (an offline status, then the connection closed)."""

    def __init__(self, settings: VenueSettings, outbox: Outbox, post: Post, clock: Clock, *,
                 wall: Callable[[], float], on_command: CommandHandler | None = None,
                 on_status: Callable[[str], None] | None = None, version: str = "") -> None:
        self.settings = settings
        self.topics = settings.topics
        self._outbox = outbox
        self._post = post
        self._clock = clock
        self._wall = wall
        self._on_command = on_command
        self._on_status = on_status
        self._version = version
        self._timers: TimerSource = lambda: {}
        self._sent: dict[str, bytes] = {}  # topic -> the content last published (no seq, no t)
        self._last_payload: dict[str, tuple[bytes, bool]] = {}
        self._queue: deque[Pending] = deque()  # written to the outbox, not yet handed to paho
        self._in_flight: tuple[mqtt.MQTTMessageInfo, Pending] | None = None
        self._refused: set[str] = set()
        self.connected = False  # as the core's thread has heard it
        self._connected_at = 0.0
        self._short_connections = 0
        self.status = "connecting"
        """What the link last said, in a line (English, for a log or a terminal)."""
        self.state = "connecting"
        """``connecting``, ``connected``, ``unreachable`` (never reached yet), ``refused`` (the
        broker said no: credentials, ACL), ``reconnecting`` (lost once connected) or
        ``duplicate`` (another table seems to use this table's id)."""
        self._client = self._make_client()
        self._closing = threading.Event()
        self._starting = threading.Lock()  # the connector starts paho's loop only while not closing
        self._connector: threading.Thread | None = None
        self._unsubscribe: list[Callable[[], None]] = []

    @property
    def pending(self) -> int:
        """How many state messages the broker has not yet acknowledged."""
        return len(self._queue) + (self._in_flight is not None)

    # -- wiring ------------------------------------------------------------------------------

    def attach(self, bus: EventBus, timers: TimerSource) -> None:
        """Follow the timers *timers* returns (name -> countdown) through the bus's events."""
        self._timers = timers
        self._unsubscribe.append(bus.subscribe(TimerEvent, self._on_timer_event))

    def start(self) -> None:
        """Send what an earlier run left in the outbox, publish the state, and connect in the
        background: the first connection is tried until the broker answers (each new reason it
        does not said through ``on_status``), then paho's loop keeps the link and reconnects."""
        self._queue.extend(self._outbox.pending())
        self.refresh()
        self._connector = threading.Thread(target=self._connect_first, name="venue-connect", daemon=True)
        self._connector.start()

    def _connect_first(self) -> None:
        """The connector thread: paho's first connection, retried 1, 2, 4... 16 s apart."""
        broker = self.settings.broker
        delay, said = 1.0, ""
        while not self._closing.is_set():
            try:
                self._client.connect(broker.host, broker.port, keepalive=KEEPALIVE_S, clean_start=False,
                                     properties=session_properties(PacketTypes.CONNECT, SESSION_EXPIRY_S))
            except (OSError, ValueError) as exc:  # ssl's errors are OSErrors
                why = connect_failure(exc)
                if why != said:
                    said = why
                    text = f"cannot reach the broker at {broker}: {why}; retrying"
                    self._post(functools.partial(self._say, text, "unreachable"))
                self._closing.wait(delay)
                delay = min(2 * delay, 16.0)
                continue
            with self._starting:
                if not self._closing.is_set():
                    self._client.loop_start()
                    return
            self._client.disconnect()
            return

    def close(self, *, wait_s: float = 3.0) -> None:
        """Deliver what is queued and ``offline``, for up to *wait_s* in all, and disconnect.
        Whatever the broker has not acknowledged by then stays in the outbox for the next start."""
        with self._starting:
            self._closing.set()
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
        until = self._clock.now() + wait_s
        while self._client.is_connected() and (self._in_flight is not None or self._queue):
            if self._in_flight is None:
                self._pump()
            if self._in_flight is None:
                break
            info, message = self._in_flight
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(max(0.0, until - self._clock.now()))
            if not info.is_published():
                break
            self._in_flight = None
            self._outbox.done(message.seq)
        self._outbox.flush()
        if self._client.is_connected():
            info = self._client.publish(self.topics.status, encode(status_body("offline", self._wall())),
                                        qos=1, retain=True)
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(max(0.1, until - self._clock.now()))
        self._client.disconnect()
        self._client.loop_stop()
        self._outbox.close()

    # -- state out ---------------------------------------------------------------------------

    def refresh(self) -> None:
        """Publish every topic whose content differs from what was last published."""
        timers = self._timers()
        states = timer_states(timers, self._clock.now(), self._wall())
        changes: list[tuple[str, Mapping[str, Any] | None]] = [
            (self.topics.timer(name), body) for name, body in states.items()]
        named = {self.topics.timer(n) for n in states}
        changes += [(t, None) for t in self._sent if t.startswith(self.topics.timer("")) and t not in named]
        main = main_timer(timers)
        changes.append((self.topics.main, None if main is None else states[main]))
        expired = next((n for n, b in states.items() if b["state"] == "expired"), None)
        changes.append((self.topics.alarm, {"state": "on" if expired else "off", "timer": expired,
                                            "t": round(self._wall(), 3)}))
        self._publish_states(changes)

    def publish_game(self, body: Mapping[str, Any]) -> None:
        """The game, its players and round (``docs/venue-protocol.md``), when it changed."""
        self._publish_states([(self.topics.game, {**body, "t": round(self._wall(), 3)})])

    def publish_scores(self, body: Mapping[str, Any]) -> None:
        self._publish_states([(self.topics.scores, {**body, "t": round(self._wall(), 3)})])

    def _on_timer_event(self, event: TimerEvent) -> None:
        if not isinstance(event, (TimerTicked, WarningReached)):
            self.refresh()

    def _publish_states(self, changes: list[tuple[str, Mapping[str, Any] | None]]) -> None:
        """Write the states that changed to the outbox (one transaction) and queue them."""
        fresh: list[tuple[str, Callable[[int], bytes]]] = []
        for topic, body in changes:
            # What a state says apart from when it was read: a running timer's deadline says its
            # time left, so a refresh while it runs (another timer's change) sends nothing new.
            content = b"" if body is None else encode({k: v for k, v in body.items() if k != "t" and not (
                k == "remaining_s" and body.get("deadline") is not None)})
            if self._sent.get(topic, b"" if topic.startswith(self.topics.timer("")) else None) == content:
                continue
            self._sent[topic] = content
            fresh.append((topic, functools.partial(_payload, body)))
        if fresh:
            self._queue.extend(self._outbox.add_all(fresh))
            self._pump()

    def _pump(self) -> None:
        """Hand the next message to paho, if connected and none is waiting for its ack."""
        if not self.connected or self._in_flight is not None or not self._queue:
            return
        message = self._queue.popleft()
        self._last_payload[message.topic] = (message.payload, message.retain)
        info = self._client.publish(message.topic, message.payload, qos=1, retain=message.retain)
        self._in_flight = (info, message)

    # -- paho's thread -> the core's --------------------------------------------------------

    def _make_client(self) -> mqtt.Client:
        s = self.settings
        client = new_client(s.client_id, s.broker, username=s.username, password=s.password,
                            ca_file=s.ca_file)
        will = status_body("offline", self._wall(), version=self._version)
        client.will_set(self.topics.status, encode(will), qos=1, retain=True)
        client.reconnect_delay_set(min_delay=1, max_delay=16)
        client.connect_timeout = 10.0
        client.on_connect = lambda c, u, flags, rc, props: self._post(lambda: self._connected(rc))
        client.on_disconnect = lambda c, u, flags, rc, props: self._post(lambda: self._disconnected(rc))
        client.on_publish = lambda c, u, mid, rc, props: self._post(lambda: self._acked(mid, rc))
        client.on_message = lambda c, u, msg: self._post(lambda: self._message(msg.topic, bytes(msg.payload)))
        return client

    def _connected(self, rc: ReasonCode) -> None:
        if rc.is_failure:
            self.connected = False
            self._say(f"the broker at {self.settings.broker} refused the table: {rc}", "refused")
            return
        self.connected = True
        self._connected_at = self._clock.now()
        self._say(f"connected to {self.settings.broker} as {self.topics.base}", "connected")
        if self.settings.accept_commands:
            self._client.subscribe(self.topics.commands, qos=1)
        online = status_body("online", self._wall(), version=self._version)
        self._client.publish(self.topics.status, encode(online), qos=1, retain=True)
        if self.settings.discovery_prefix:
            for topic, config in discovery_messages(self.topics, self.settings.discovery_prefix,
                                                    commands=self.settings.accept_commands,
                                                    version=self._version):
                self._client.publish(topic, encode(config), qos=1, retain=True)
        for topic, (payload, retain) in self._last_payload.items():
            # A broker that restarted without its retained messages gets the state back; a watcher
            # that has seen these seqs takes them as repeats.
            self._client.publish(topic, payload, qos=1, retain=retain)
        self._pump()

    def _disconnected(self, rc: ReasonCode) -> None:
        short = self.connected and self._clock.now() - self._connected_at < SHORT_CONNECTION_S
        self._short_connections = self._short_connections + 1 if short else 0
        if rc == TAKEN_OVER or self._short_connections >= 3:
            self._say(f"the broker at {self.settings.broker} keeps dropping {self.topics.base} as soon as it "
                      "connects: two tables may share the id; give each its own venue.table", "duplicate")
        elif self.connected:
            self._say(f"lost the broker at {self.settings.broker} ({rc}); playing on, retrying",
                      "reconnecting")
        self.connected = False

    def _acked(self, mid: int, rc: ReasonCode) -> None:
        if self._in_flight is None or self._in_flight[0].mid != mid:
            return  # a status, a discovery config or a reply: nothing waits for it
        message = self._in_flight[1]
        self._in_flight = None
        if rc.is_failure and message.topic not in self._refused:
            self._refused.add(message.topic)
            log.warning("venue: the broker refused %s (%s): check its ACL", message.topic, rc)
        self._outbox.done(message.seq)
        self._pump()

    def _message(self, topic: str, payload: bytes) -> None:
        action = topic.rsplit("/", 1)[-1]
        try:
            command = parse_command(action, payload)
            if self._on_command is None:
                raise CommandError("this table takes no commands")
            self._on_command(command)
        except (ValueError, CompanionError) as exc:
            self._reply({"action": action}, one_line(str(exc)))
            return
        self._reply(command.to_log(), None)

    def _reply(self, command: Mapping[str, Any], why: str | None) -> None:
        body = {"command": dict(command), "ok": why is None, "why": why, "t": round(self._wall(), 3)}
        self._client.publish(self.topics.reply, encode(body), qos=1)

    def _say(self, text: str, state: str) -> None:
        self.status, self.state = text, state
        log.info("venue: %s", text)
        if self._on_status is not None:
            self._on_status(text)


def new_client(client_id: str, broker: Broker, *, username: str = "", password: str = "",
               ca_file: str = "") -> mqtt.Client:
    """A paho client speaking MQTT 5 (version 2 callbacks) as *client_id*, with the login, and
    for ``mqtts://`` TLS that checks the broker's certificate against *ca_file* (else the
    system's CAs).

    :raises InvalidInput: for a CA file that cannot be used.
    """
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    if username:
        client.username_pw_set(username, password or None)
    if broker.tls:
        try:
            client.tls_set(ca_certs=ca_file or None, cert_reqs=ssl.CERT_REQUIRED)
        except (OSError, ssl.SSLError) as exc:
            raise InvalidInput("venue.ca_file", ca_file, f"cannot be used ({connect_failure(exc)})") from None
    return client


def session_properties(packet: int, expiry_s: int) -> Properties:
    """A CONNECT's or DISCONNECT's properties that set the session's expiry to *expiry_s*."""
    props = Properties(packet)  # type: ignore[no-untyped-call]
    props.SessionExpiryInterval = expiry_s
    return props


def connect_failure(exc: BaseException) -> str:
    """Why a connection to the broker failed, in a few words for a person."""
    if isinstance(exc, socket.gaierror):
        return f"unknown host ({exc.strerror or exc})"
    if isinstance(exc, ssl.SSLCertVerificationError):
        why = exc.verify_message or exc
        return f"TLS: the broker's certificate is not trusted ({why}; is venue.ca_file right?)"
    if isinstance(exc, ssl.SSLError):
        return f"TLS: {exc.reason or exc}"
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, OSError):
        return one_line(exc.strerror or str(exc) or type(exc).__name__)
    return one_line(str(exc))


def _payload(body: Mapping[str, Any] | None, seq: int) -> bytes:
    return b"" if body is None else encode({**body, "seq": seq})
