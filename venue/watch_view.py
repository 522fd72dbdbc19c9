"""How ``companion venue watch`` shows the venue: a live table, plain lines, or JSON lines.

:class:`LiveView` redraws a :mod:`rich` table of every table four times a second (time left
counting down from each running timer's deadline); :class:`PlainLines` prints one line per
change where stdout is no terminal; :class:`JsonLines` prints each change as a JSON line. All
three are driven by :func:`venue.watch.watch` on the thread that owns the model. Whatever a
table sends is escaped before it reaches the terminal.
"""

from __future__ import annotations

import json
import math
import sys
import time
from typing import Any, TextIO

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from companion.durations import to_duration_text
from companion.errors import shorten
from venue.watch import Change, LinkState, TableView, Venue, time_left

NAME_MAX = 32
"""Characters of a name, title or player shown (longer ones are cut)."""


def _text(value: Any, limit: int = NAME_MAX) -> str:
    return shorten(value, limit) if isinstance(value, str) else ""


def clock_text(t_wall: float, now_wall: float | None = None) -> str:
    """A wall time as the local ``HH:MM:SS``, with its date (``YYYY-MM-DD HH:MM``) when that is
    not today's."""
    when = time.localtime(t_wall)
    today = time.localtime(time.time() if now_wall is None else now_wall)
    if when[:3] == today[:3]:
        return time.strftime("%H:%M:%S", when)
    return time.strftime("%Y-%m-%d %H:%M", when)


def left_text(timer: dict[str, Any], now_wall: float) -> str:
    """A timer's time left as ``m:ss`` (``h:mm:ss``), or "" when its body does not say."""
    left = time_left(timer, now_wall)
    return "" if left is None else to_duration_text(left)


def timer_text(timer: dict[str, Any] | None, now_wall: float, *, named: bool = True) -> str:
    """``market running 0:54`` (without the name unless *named*), or ``none``."""
    if timer is None:
        return "none"
    parts = [_text(timer.get("name")) or "?"] if named else []
    parts += [_text(timer.get("state"), 12), left_text(timer, now_wall)]
    return " ".join(p for p in parts if p)


def players_of(game: dict[str, Any] | None) -> int | None:
    players = None if game is None else game.get("players")
    return len(players) if isinstance(players, list) else None


def game_text(game: dict[str, Any] | None) -> str:
    """``Volatio, 2 players, round 3``, or ``none``."""
    if game is None:
        return "none"
    parts = [_text(game.get("title")) or _text(game.get("key")) or "?"]
    count = players_of(game)
    if count is not None:
        parts.append(f"{count} player{'' if count == 1 else 's'}")
    rnd = game.get("round")
    if isinstance(rnd, int) and not isinstance(rnd, bool):
        parts.append(f"round {rnd}")
    return ", ".join(parts)


def leader_text(scores: dict[str, Any] | None) -> str:
    """The leader's name (``tie`` when no one leads), ``(final)`` once the game is over."""
    if scores is None:
        return ""
    leader = _text(scores.get("leader")) or "tie"
    return f"{leader} (final)" if scores.get("final") is True else leader


def scores_text(scores: dict[str, Any] | None) -> str:
    if scores is None:
        return "none"
    players = scores.get("players")
    points = ", ".join(f"{_text(k)} {v if isinstance(v, (int, float)) else '-'}"
                       for k, v in list(players.items())[:12]) if isinstance(players, dict) else ""
    return f"{points}; leader {leader_text(scores)}" if points else f"leader {leader_text(scores)}"


def status_text(view: TableView, now_wall: float | None = None) -> str:
    """``online``, ``offline since 12:03:04`` or ``unknown`` (no status heard yet)."""
    if view.online is None:
        return "unknown"
    if view.online:
        return "online"
    if view.offline_since is None:
        return "offline"
    return f"offline since {clock_text(view.offline_since, now_wall)}"


def describe(change: Change, view: TableView, now_wall: float) -> str:
    """One line for a change, as :class:`PlainLines` prints it (without the time)."""
    body, what = change.body, change.part
    if what == "status":
        text = status_text(view, now_wall)
    elif what == "timer":
        what = f"timer {_text(change.name)}"
        text = "gone" if body is None else timer_text(body, now_wall, named=False)
    elif what == "main":
        what = "main timer"
        text = timer_text(body, now_wall)
    elif what == "alarm":
        text = "off" if body is None or body.get("state") != "on" else f"on ({_text(body.get('timer'))})"
    elif what == "game":
        text = game_text(body)
    else:
        text = scores_text(body)
    return f"{change.table} {what}: {text}"


def row(view: TableView, now_wall: float) -> tuple[list[Text], str]:
    """A table's cells in the live view, and the row's style (dim when offline)."""
    style = "green" if view.online else "yellow" if view.online is None else ""
    status = Text(status_text(view, now_wall), style=style)
    main = view.main
    name = Text(_text(main.get("name")) if main else "")
    state = Text(_text(main.get("state"), 12) if main else "")
    if view.alarm_on:
        left = Text("ALARM", style="bold red")
    else:
        left = Text(left_text(main, now_wall) if main else "")
    game = Text(game_text(view.game) if view.game else "")
    leader = Text(leader_text(view.scores))
    return [Text(view.table, style="bold"), status, name, state, left, game, leader], \
        "" if view.online is not False else "dim"


def render(venue: Venue, where: str, link: LinkState, now_wall: float) -> Group:
    """The live view: a header (the broker, the connection) and one row per table by id."""
    tables = venue.in_order()
    offline = sum(1 for v in tables if v.online is False)
    link_style = "green" if link.state == "connected" else "yellow"
    header = Text.assemble(("venue ", "bold"), where, "  ", (str(link), link_style),
                           f"  {len(tables)} table{'' if len(tables) == 1 else 's'}",
                           f" ({offline} offline)" if offline else "")
    grid = Table(expand=False, show_edge=False, pad_edge=False)
    for title in ("table", "status", "timer", "state", "left", "game", "leader"):
        grid.add_column(title, no_wrap=title in ("table", "left"),
                        justify="right" if title == "left" else "left")
    for view in tables:
        cells, style = row(view, now_wall)
        grid.add_row(*cells, style=style)
    if not tables:
        return Group(header, Text("no table heard yet", style="dim"))
    return Group(header, grid)


class LiveView:
    """A live :mod:`rich` table, redrawn four times a second on the calling thread."""

    draw_every_s: float | None = 0.25

    def __init__(self, console: Console, where: str) -> None:
        self.where = where
        self._link = LinkState("connecting")
        self._live = Live(console=console, auto_refresh=False, redirect_stdout=False, redirect_stderr=False)

    def __enter__(self) -> LiveView:
        self._live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._live.stop()

    def link(self, state: LinkState) -> None:
        self._link = state

    def change(self, change: Change, venue: Venue) -> None:
        pass  # the next draw shows it

    def draw(self, venue: Venue, now_wall: float) -> None:
        self._live.update(render(venue, self.where, self._link, now_wall), refresh=True)


class PlainLines:
    """One plain line per change (and per connection change), each flushed."""

    draw_every_s: float | None = None

    def __init__(self, where: str, out: TextIO | None = None) -> None:
        self.where = where
        self._out = out if out is not None else sys.stdout

    def __enter__(self) -> PlainLines:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def link(self, state: LinkState) -> None:
        print(f"{clock_text(time.time())} broker {self.where}: {shorten(str(state), 200)}", file=self._out,
              flush=True)

    def change(self, change: Change, venue: Venue) -> None:
        line = describe(change, venue.tables[change.table], change.t)
        print(f"{clock_text(change.t, change.t)} {line}", file=self._out, flush=True)

    def draw(self, venue: Venue, now_wall: float) -> None:
        pass


def json_line(change: Change) -> str:
    """The change's ``--json`` line; a number a table sent as NaN or infinity is null there."""
    try:
        return json.dumps(change.to_json(), ensure_ascii=False, allow_nan=False)
    except ValueError:
        return json.dumps(_finite(change.to_json()), ensure_ascii=False, allow_nan=False)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


class JsonLines:
    """Each change as one JSON line on stdout, flushed; a lost connection as a line on stderr."""

    draw_every_s: float | None = None

    def __init__(self, where: str, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.where = where
        self._out = out if out is not None else sys.stdout
        self._err = err if err is not None else sys.stderr
        self._lost = False

    def __enter__(self) -> JsonLines:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def link(self, state: LinkState) -> None:
        if state.state == "reconnecting" or (self._lost and state.state == "connected"):
            self._lost = state.state == "reconnecting"
            print(f"companion: venue watch: {self.where}: {shorten(str(state), 200)}", file=self._err,
                  flush=True)

    def change(self, change: Change, venue: Venue) -> None:
        print(json_line(change), file=self._out, flush=True)

    def draw(self, venue: Venue, now_wall: float) -> None:
        pass
