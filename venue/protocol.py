"""The venue's wire format: topics, JSON payloads and commands (``docs/venue-protocol.md``).

No network here. A table publishes under ``PREFIX/TABLE/``: ``status``, ``timer/NAME`` (one per
timer; an empty retained payload when the timer is gone), ``main`` (the main timer), ``alarm``,
``game`` and ``scores``, all retained JSON objects with ``t`` (the wall time of the change) and,
all but ``status``, ``seq`` (the table's change counter, only ever growing). Commands come on
``PREFIX/TABLE/cmd/ACTION``; each answer goes to ``PREFIX/TABLE/reply``.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote, urlsplit

PROTOCOL_VERSION = 1
TIMER_STATES = ("idle", "running", "paused", "expired")
ACTIONS = ("start", "pause", "reset", "add", "announce")
MAX_COMMAND_BYTES = 4096
MAX_ANNOUNCEMENT_CHARS = 280
MAX_ADD_S = 3600.0
ANNOUNCE_SHOWN_S = 15.0
"""How long an announcement stays on the table's screen unless the command says otherwise."""


class CommandError(ValueError):
    """A command the table cannot take; the message says why, in one line."""


@dataclass(frozen=True)
class Broker:
    """Where the broker is: host, port and whether the link is TLS (``mqtts://``)."""

    host: str
    port: int
    tls: bool

    @classmethod
    def from_url(cls, url: str) -> Broker:
        """``mqtt://HOST[:PORT]`` (1883) or ``mqtts://HOST[:PORT]`` (8883).

        :raises ValueError: for any other form (the config checks it first).
        """
        parts = urlsplit(url)
        if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
            raise ValueError(f"{url!r} is not mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
        tls = parts.scheme == "mqtts"
        return cls(parts.hostname, parts.port or (8883 if tls else 1883), tls)

    def __str__(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


@dataclass(frozen=True)
class Topics:
    """The topics of one table under a venue's prefix."""

    prefix: str
    table: str

    @property
    def base(self) -> str:
        return f"{self.prefix}/{self.table}"

    @property
    def status(self) -> str:
        return f"{self.base}/status"

    def timer(self, name: str) -> str:
        """The timer's topic; its name is percent-encoded into one level (``/``, ``+``, ``#``)."""
        return f"{self.base}/timer/{quote(name, safe='')}"

    @property
    def main(self) -> str:
        """The main timer: the running one that ends first, else the first."""
        return f"{self.base}/main"

    @property
    def alarm(self) -> str:
        return f"{self.base}/alarm"

    @property
    def game(self) -> str:
        return f"{self.base}/game"

    @property
    def scores(self) -> str:
        return f"{self.base}/scores"

    @property
    def commands(self) -> str:
        """The filter the table subscribes to for the venue's commands."""
        return f"{self.base}/cmd/+"

    def command(self, action: str) -> str:
        return f"{self.base}/cmd/{action}"

    @property
    def reply(self) -> str:
        return f"{self.base}/reply"


def watch_filter(prefix: str) -> str:
    """The filter that sees every table's state under *prefix* (commands included)."""
    return f"{prefix}/+/#"


@dataclass(frozen=True)
class Heard:
    """One message of a table, read back: which table, what part, and its JSON (None: cleared)."""

    table: str
    part: str  # status, timer, main, alarm, game, scores, reply, cmd
    name: str | None  # the timer's name, or the command's action
    body: dict[str, Any] | None


def parse_topic(prefix: str, topic: str, payload: bytes) -> Heard | None:
    """What a message under *prefix* is, or None for a topic or payload this format has not."""
    head = prefix + "/"
    if not topic.startswith(head):
        return None
    levels = topic[len(head):].split("/")
    if len(levels) < 2 or not levels[0]:
        return None
    table, part, rest = levels[0], levels[1], levels[2:]
    name: str | None = None
    if part in ("timer", "cmd"):
        if len(rest) != 1:
            return None
        name = unquote(rest[0])
    elif rest or part not in ("status", "main", "alarm", "game", "scores", "reply"):
        return None
    if not payload:
        return Heard(table, part, name, None)
    if part == "cmd":
        return Heard(table, part, name, {"raw": payload[:MAX_COMMAND_BYTES].decode("utf-8", "replace")})
    try:
        body = json.loads(payload)
    except (ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: nested too deep
        return None
    return Heard(table, part, name, body) if isinstance(body, dict) else None


def encode(body: dict[str, Any]) -> bytes:
    """A payload: compact JSON, UTF-8, keys in the order given."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def status_body(state: str, t_wall: float, *, version: str = "") -> dict[str, Any]:
    """``online`` or ``offline`` (the last will carries ``offline`` too)."""
    body: dict[str, Any] = {"state": state, "t": round(t_wall, 3), "protocol": PROTOCOL_VERSION}
    if version:
        body["version"] = version
    return body


def timer_body(name: str, state: str, remaining_s: float, total_s: float, deadline_wall: float | None,
               t_wall: float) -> dict[str, Any]:
    """A timer's state; ``deadline`` (wall time, s since the epoch) only while running."""
    return {"name": name, "state": state, "remaining_s": round(remaining_s, 3), "total_s": round(total_s, 3),
            "deadline": None if deadline_wall is None else round(deadline_wall, 3), "t": round(t_wall, 3)}


@dataclass(frozen=True)
class Command:
    """A command from the venue: *action* on *timer* (None: the table's main timer)."""

    action: str
    timer: str | None = None
    seconds: float = 0.0
    text: str = ""
    shown_s: float = ANNOUNCE_SHOWN_S

    def to_log(self) -> dict[str, Any]:
        """How the command is written in the session store and in its reply."""
        data: dict[str, Any] = {"action": self.action}
        if self.timer is not None:
            data["timer"] = self.timer
        if self.action == "add":
            data["seconds"] = self.seconds
        if self.action == "announce":
            data["text"] = self.text
            data["shown_s"] = self.shown_s
        return data


def parse_command(action: str, payload: bytes) -> Command:
    """A command from its topic's last level and its payload.

    ``start``, ``pause``, ``reset``: an empty payload, ``{}`` or ``{"timer": NAME}``. ``add``:
    seconds as a bare number (``30``, ``-10``) or ``{"seconds": 30, "timer": NAME}``.
    ``announce``: the text as it is, or ``{"text": ..., "seconds": S}``.

    :raises CommandError: for an unknown action, a payload over 4 KiB, bad JSON or bad values.
    """
    if action not in ACTIONS:
        raise CommandError(f"unknown command {action!r} (known: {', '.join(ACTIONS)})")
    if len(payload) > MAX_COMMAND_BYTES:
        raise CommandError(f"a command is at most {MAX_COMMAND_BYTES} bytes")
    try:
        raw = payload.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise CommandError("the payload is not UTF-8") from None
    body: Any = {}
    if raw:
        try:
            body = json.loads(raw)
        except (ValueError, RecursionError):
            if action != "announce":
                raise CommandError("the payload is not JSON") from None
            body = {"text": raw}
    if action == "announce" and isinstance(body, str):
        body = {"text": body}
    if action == "add" and isinstance(body, (int, float)) and not isinstance(body, bool):
        body = {"seconds": body}
    if not isinstance(body, dict):
        raise CommandError("the payload must be a JSON object")
    unknown = set(body) - {"timer", "seconds", "text"}
    if unknown:
        raise CommandError(f"unknown field {sorted(unknown)[0]!r}")
    timer = body.get("timer")
    if timer is not None and (not isinstance(timer, str) or not timer.strip() or len(timer) > 64):
        raise CommandError("timer must be a timer's name")
    if action == "add":
        return Command(action, timer, seconds=_seconds(body.get("seconds"), MAX_ADD_S, signed=True))
    if action == "announce":
        text = body.get("text")
        if not isinstance(text, str) or not text.strip():
            raise CommandError("an announcement needs its text")
        text = re.sub(r"\s+", " ", text).strip()
        if len(text) > MAX_ANNOUNCEMENT_CHARS:
            raise CommandError(f"an announcement is at most {MAX_ANNOUNCEMENT_CHARS} characters")
        shown = ANNOUNCE_SHOWN_S if body.get("seconds") is None else _seconds(body["seconds"], 600.0)
        return Command(action, None, text=text, shown_s=shown)
    if "seconds" in body or "text" in body:
        raise CommandError(f"{action} takes only a timer's name")
    return Command(action, timer)


def _seconds(value: Any, at_most: float, *, signed: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise CommandError("seconds must be a number")
    if signed and (value == 0 or abs(value) > at_most):
        raise CommandError(f"seconds must be from -{at_most:g} to {at_most:g}, and not 0")
    if not signed and not 0 < value <= at_most:
        raise CommandError(f"seconds must be more than 0 and at most {at_most:g}")
    return float(value)
