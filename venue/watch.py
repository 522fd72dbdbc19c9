"""Every table on the broker, read back: the model, the MQTT client that feeds it, the views.

:class:`Venue` is the model (no network): each message of a table, parsed by
:func:`venue.protocol.parse_topic`, folds into its :class:`TableView`, and :meth:`Venue.heard`
says what changed (a :class:`Change`) or None for a repeat. :class:`Watcher` is the paho client
that subscribes to every table and queues what it hears; only the thread that owns the model
takes from that queue. :func:`watch` runs the two together into one of the outputs of
:mod:`venue.watch_view` until a deadline or Ctrl-C.
"""

from __future__ import annotations

import contextlib
import math
import os
import queue
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.reasoncodes import ReasonCode
from paho.mqtt.subscribeoptions import SubscribeOptions

from venue.link import connect_failure, new_client, session_properties
from venue.protocol import Broker, Heard, parse_topic, watch_filter

STATE_PARTS = ("status", "timer", "main", "alarm", "game", "scores")
"""The parts of a table that make up its state; commands and replies are not folded in."""

SESSION_EXPIRY_S = 3600
"""How long the broker keeps the watcher's subscription and messages while it is away."""

KEEPALIVE_S = 30
MAX_PAYLOAD_BYTES = 65536
"""A larger message is not a table's state and is dropped unread."""
CREDENTIALS_REFUSED = (0x86, 0x87)  # Bad user name or password, Not authorized


@dataclass(frozen=True)
class Change:
    """One change to report: when it was heard (wall time), whose and what, and its new body."""

    t: float
    table: str
    part: str
    name: str | None
    seq: int | None
    body: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` line (docs/venue-protocol.md, "companion venue watch --json")."""
        return {"t": round(self.t, 3), "table": self.table, "part": self.part, "name": self.name,
                "seq": self.seq, "body": self.body}


@dataclass
class TableView:
    """What a watcher knows of one table. ``online`` is None until its status is heard."""

    table: str
    online: bool | None = None
    offline_since: float | None = None
    status: dict[str, Any] | None = None
    timers: dict[str, dict[str, Any]] = field(default_factory=dict)
    main: dict[str, Any] | None = None
    alarm: dict[str, Any] | None = None
    game: dict[str, Any] | None = None
    scores: dict[str, Any] | None = None
    changed: float | None = field(default=None, compare=False)
    """The wall time the last change of this table was heard."""
    seqs: dict[tuple[str, str | None], int] = field(default_factory=dict, repr=False)
    """The last ``seq`` applied of each topic (kept when a topic is cleared)."""

    def part(self, part: str, name: str | None) -> dict[str, Any] | None:
        """The body the view holds for *part* (and the timer *name*)."""
        if part == "timer":
            return self.timers.get(name or "")
        body: dict[str, Any] | None = getattr(self, part)
        return body

    @property
    def alarm_on(self) -> bool:
        return self.alarm is not None and self.alarm.get("state") == "on"


def seq_of(body: dict[str, Any] | None) -> int | None:
    """A body's ``seq``: a whole number of 0 or more, else None."""
    seq = None if body is None else body.get("seq")
    return seq if isinstance(seq, int) and not isinstance(seq, bool) and seq >= 0 else None


def time_left(timer: dict[str, Any], now_wall: float) -> float | None:
    """Seconds left on a timer's body: ``deadline - now`` while running, else ``remaining_s``."""
    deadline = number(timer.get("deadline"))
    if timer.get("state") == "running" and deadline is not None:
        return max(0.0, deadline - now_wall)
    left = number(timer.get("remaining_s"))
    return None if left is None else max(0.0, left)


def number(value: Any) -> float | None:
    """*value* as a finite float when it is a JSON number, else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return float(value) if math.isfinite(value) else None
    except OverflowError:  # an int past a float's range
        return None


class Venue:
    """Every table heard of, by id."""

    def __init__(self) -> None:
        self.tables: dict[str, TableView] = {}

    def heard(self, h: Heard, now_wall: float, *, retained: bool = False) -> Change | None:
        """Fold one message in; the change to report, or None when it changes nothing.

        A state message with a ``seq`` at or below the last one applied of its topic is a repeat
        (delivery is at least once); one without a ``seq`` is not this protocol's. A ``status``
        has none and is applied whenever it differs from the one held. An empty payload clears
        the topic (a timer gone). An offline table's time is when its ``offline`` was heard, or,
        for a *retained* one (heard on subscribing: it may be old), the time the message gives.
        """
        if h.part not in STATE_PARTS:
            return None
        view = self.tables.get(h.table)
        if view is None:
            if h.body is None:
                return None
            view = self.tables[h.table] = TableView(h.table)
        key = (h.part, h.name)
        seq = seq_of(h.body)
        if h.body is not None and h.part != "status":
            last = view.seqs.get(key)
            if seq is None or (last is not None and seq <= last):
                return None
            view.seqs[key] = seq
        held = view.part(h.part, h.name)
        if h.body == held:
            return None
        self._apply(view, h, now_wall, retained)
        view.changed = now_wall
        return Change(now_wall, h.table, h.part, h.name, seq, h.body)

    @staticmethod
    def _apply(view: TableView, h: Heard, now_wall: float, retained: bool) -> None:
        body = h.body
        if h.part == "timer":
            if body is None:
                view.timers.pop(h.name or "", None)
            else:
                view.timers[h.name or ""] = body
            return
        setattr(view, h.part, body)
        if h.part == "status":
            state = None if body is None else body.get("state")
            view.online = None if state not in ("online", "offline") else state == "online"
            said = None if body is None else number(body.get("t"))
            if view.online is False:
                view.offline_since = said if retained and said is not None else now_wall
            else:
                view.offline_since = None

    def in_order(self) -> list[TableView]:
        """The tables by id."""
        return [self.tables[t] for t in sorted(self.tables)]


# --- the MQTT client -------------------------------------------------------------------------


@dataclass(frozen=True)
class Received:
    """A message of a table, parsed, as the paho thread queued it."""

    heard: Heard
    retained: bool
    t_wall: float


@dataclass(frozen=True)
class LinkState:
    """The watcher's connection: ``connecting``, ``connected`` or ``reconnecting`` (and why)."""

    state: str
    why: str = ""

    def __str__(self) -> str:
        return f"{self.state}: {self.why}" if self.why else self.state


class Unreachable(Exception):
    """The broker could not be reached, or did not answer, at the first connection."""


class Refused(Exception):
    """The broker refused the first connection; ``credentials``: for the user name or password."""

    def __init__(self, message: str, *, credentials: bool) -> None:
        super().__init__(message)
        self.credentials = credentials


def client_id() -> str:
    return f"companion-watch-{socket.gethostname()}-{os.getpid()}"


class Watcher:
    """A paho client subscribed (QoS 1, kept session) to every table under *prefix*.

    Messages and connection changes go into :attr:`events`; paho's thread touches nothing
    else. Paho reconnects by itself after a lost connection (1 s, doubling up to 30 s).
    """

    def __init__(self, broker: Broker, prefix: str, *, username: str = "", password: str = "",
                 ca_file: str = "") -> None:
        self.broker, self.prefix = broker, prefix
        self.events: queue.SimpleQueue[Received | LinkState] = queue.SimpleQueue()
        self._first = threading.Event()
        self._first_refusal: ReasonCode | None = None
        self._ever_connected = False
        self._client = new_client(client_id(), broker, username=username, password=password, ca_file=ca_file)
        self._client.reconnect_delay_set(1, 30)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message

    def connect(self, timeout_s: float = 30.0) -> None:
        """Connect and wait for the broker's answer; then paho's thread keeps the link.

        :raises Unreachable: naming host:port, when the broker cannot be reached or is silent.
        :raises Refused: when it answers no.
        """
        host = self.broker.host
        where = f"[{host}]:{self.broker.port}" if ":" in host else f"{host}:{self.broker.port}"
        self.events.put(LinkState("connecting"))
        props = session_properties(PacketTypes.CONNECT, SESSION_EXPIRY_S)
        try:
            self._client.connect(self.broker.host, self.broker.port, keepalive=KEEPALIVE_S,
                                 clean_start=False, properties=props)
        except (OSError, ssl.SSLError, UnicodeError) as exc:
            raise Unreachable(f"cannot reach the broker at {where}: {connect_failure(exc)}") from None
        self._client.loop_start()
        if not self._first.wait(timeout_s):
            self._client.loop_stop()
            raise Unreachable(f"no answer from the broker at {where} in {timeout_s:g} s")
        refusal = self._first_refusal
        if refusal is not None:
            self._client.loop_stop()
            if refusal.value in CREDENTIALS_REFUSED:
                raise Refused(f"the broker at {where} refused the credentials ({refusal})", credentials=True)
            raise Refused(f"the broker at {where} refused the connection ({refusal})", credentials=False)

    def close(self) -> None:
        """Leave, telling the broker to drop this watcher's session."""
        self._client.disconnect(properties=session_properties(PacketTypes.DISCONNECT, 0))
        self._client.loop_stop()

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode,
                    properties: Any) -> None:
        if reason.is_failure:
            if not self._first.is_set():
                self._first_refusal = reason
                self._first.set()
            else:
                self.events.put(LinkState("reconnecting", f"refused ({reason})"))
            return
        client.subscribe(watch_filter(self.prefix), options=SubscribeOptions(qos=1))
        self._ever_connected = True
        self.events.put(LinkState("connected"))
        self._first.set()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode,
                       properties: Any) -> None:
        if not self._first.is_set():
            self._first_refusal = reason
            self._first.set()
            return
        if self._ever_connected:
            self.events.put(LinkState("reconnecting", _lost(reason)))

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        if len(message.payload) > MAX_PAYLOAD_BYTES:
            return
        try:
            heard = parse_topic(self.prefix, message.topic, bytes(message.payload))
        except (ValueError, RecursionError):  # JSON nested past the parser's depth
            return
        if heard is not None:
            self.events.put(Received(heard, bool(message.retain), time.time()))


def _lost(reason: ReasonCode) -> str:
    text = str(reason)
    return "connection lost" if text == "Unspecified error" else text


DRAIN_AT_MOST = 1000
"""Messages folded in between two looks at the clock."""


# --- running ---------------------------------------------------------------------------------


class Output(Protocol):
    """Where :func:`watch` shows what it hears (:mod:`venue.watch_view`)."""

    def link(self, state: LinkState) -> None: ...

    def change(self, change: Change, venue: Venue) -> None: ...

    def draw(self, venue: Venue, now_wall: float) -> None: ...

    @property
    def draw_every_s(self) -> float | None: ...


def watch(events: queue.SimpleQueue[Received | LinkState], out: Output, *, for_s: float | None = None,
          clock: Callable[[], float] = time.monotonic, wall: Callable[[], float] = time.time) -> Venue:
    """Fold *events* into a :class:`Venue` on this thread and show it on *out*, for *for_s*
    seconds or until Ctrl-C (which the caller handles); the venue as it stands then."""
    venue = Venue()
    end = float("inf") if for_s is None else clock() + for_s
    every = out.draw_every_s
    next_draw = clock()

    def take(event: Received | LinkState) -> None:
        if isinstance(event, LinkState):
            out.link(event)
        elif (change := venue.heard(event.heard, event.t_wall, retained=event.retained)) is not None:
            out.change(change, venue)

    while True:
        for _ in range(DRAIN_AT_MOST):  # what is queued (a flood still lets the view draw), then a draw
            try:
                take(events.get_nowait())
            except queue.Empty:
                break
        now = clock()
        if now >= end:
            return venue
        if every is not None and now >= next_draw:
            out.draw(venue, wall())
            next_draw = now + every
        wait = min(end, next_draw if every is not None else end) - now
        with contextlib.suppress(queue.Empty):
            take(events.get(timeout=max(0.0, min(wait, 1.0))))
