"""How the watcher shows the venue: the rich table, the plain lines, the JSON lines."""

from __future__ import annotations

import io
import json
from typing import Any

from rich.console import Console

from venue.protocol import Topics, encode, parse_topic
from venue.watch import Change, LinkState, Venue
from venue.watch_view import JsonLines, PlainLines, describe, json_line, render

NOW = 1_764_921_600.0


def fold(venue: Venue, table: str, part: str, body: dict[str, Any] | None, *, name: str = "",
         at: float = NOW, retained: bool = False) -> Change | None:
    topics = Topics("companion", table)
    topic = {"status": topics.status, "main": topics.main, "alarm": topics.alarm, "game": topics.game,
             "scores": topics.scores, "timer": topics.timer(name)}[part]
    heard = parse_topic("companion", topic, b"" if body is None else encode(body))
    assert heard is not None
    return venue.heard(heard, at, retained=retained)


def market(seq: int, deadline: float | None = NOW + 90, state: str = "running") -> dict[str, Any]:
    return {"name": "market", "state": state, "remaining_s": 90.0, "total_s": 120.0, "deadline": deadline,
            "t": NOW, "seq": seq}


def a_venue() -> Venue:
    venue = Venue()
    fold(venue, "t1", "status", {"state": "online", "t": NOW, "protocol": 1})
    fold(venue, "t1", "main", market(4))
    fold(venue, "t1", "game", {"key": "volatio", "title": "Volatio", "players": ["Anna", "Béla", "Cecil"],
                               "round": 2, "t": NOW, "seq": 2})
    fold(venue, "t1", "scores", {"players": {"Anna": 14, "Béla": 9, "Cecil": None}, "leader": "Anna",
                                 "final": False, "t": NOW, "seq": 3})
    fold(venue, "t2", "status", {"state": "offline", "t": NOW - 60, "protocol": 1}, at=NOW + 5)
    return venue


CONNECTED = LinkState("connected")


def shown(venue: Venue, now: float, link: LinkState = CONNECTED) -> tuple[str, str]:
    """The live view as text, and as the terminal gets it (with its escape sequences)."""
    console = Console(record=True, width=100, force_terminal=True, color_system="standard", file=io.StringIO())
    console.print(render(venue, "mqtt://broker.local:1883", link, now))
    return console.export_text(clear=False), console.export_text(styles=True)


def test_a_row_per_table_with_its_timer_game_and_leader() -> None:
    text, _ = shown(a_venue(), NOW)
    lines = text.splitlines()
    assert "mqtt://broker.local:1883" in lines[0] and "connected" in lines[0] and "2 tables (1 offline)" in lines[0]
    t1 = next(line for line in lines if line.startswith("t1"))
    for cell in ("online", "market", "running", "1:30", "Volatio, 3 players, round 2", "Anna"):
        assert cell in t1, (cell, t1)
    t2 = next(line for line in lines if line.startswith("t2"))
    assert "offline since" in t2
    assert lines.index(t1) < lines.index(t2)


def test_time_left_ticks_down_from_the_deadline() -> None:
    venue = a_venue()
    assert "1:30" in shown(venue, NOW)[0]
    assert "1:20" in shown(venue, NOW + 10)[0]
    assert "0:00" in shown(venue, NOW + 200)[0]


def test_an_offline_table_is_dimmed() -> None:
    _, styled = shown(a_venue(), NOW)
    t2 = next(line for line in styled.splitlines() if "offline since" in line)
    assert "\x1b[2m" in t2 or "\x1b[1;2m" in t2  # dim
    t1 = next(line for line in styled.splitlines() if "online" in line and "offline" not in line)
    assert "\x1b[2m" not in t1


def test_alarm_and_the_link_state_in_the_header() -> None:
    venue = a_venue()
    fold(venue, "t1", "alarm", {"state": "on", "timer": "market", "t": NOW, "seq": 9})
    text, _ = shown(venue, NOW, LinkState("reconnecting", "connection lost"))
    assert "reconnecting: connection lost" in text.splitlines()[0]
    assert "ALARM" in next(line for line in text.splitlines() if line.startswith("t1"))
    assert "no table heard yet" in shown(Venue(), NOW, LinkState("connecting"))[0]


def test_what_a_table_sends_cannot_drive_the_terminal() -> None:
    venue = Venue()
    fold(venue, "t1", "status", {"state": "online", "t": NOW})
    fold(venue, "t1", "game", {"key": "x", "title": "\x1b[2J[bold]boom[/bold]\n", "players": "many", "t": NOW,
                               "seq": 1})
    text, _ = shown(venue, NOW)
    assert "\x1b" not in text and "\\x1b[2J[bold]boom[/bold]\\n" in text
    line = describe(Change(NOW, "t1", "game", None, 1, venue.tables["t1"].game), venue.tables["t1"], NOW)
    assert line == "t1 game: \\x1b[2J[bold]boom[/bold]\\n"


def test_plain_lines_one_per_change() -> None:
    venue, out = Venue(), io.StringIO()
    lines = PlainLines("mqtt://b:1883", out)
    lines.link(LinkState("connected"))
    steps = [("status", {"state": "online", "t": NOW}, ""), ("timer", market(3), "market"),
             ("timer", None, "market"), ("alarm", {"state": "on", "timer": "market", "t": NOW, "seq": 5}, ""),
             ("main", market(6, deadline=None, state="paused"), ""), ("main", None, ""),
             ("status", {"state": "offline", "t": NOW}, "")]
    for part, body, name in steps:
        change = fold(venue, "t1", part, body, name=name, at=NOW + 1)
        assert change is not None
        lines.change(change, venue)
    got = [line.split(" ", 1)[1] for line in out.getvalue().splitlines()]
    assert got[0] == "broker mqtt://b:1883: connected"
    assert got[1:5] == ["t1 status: online", "t1 timer market: running 1:29", "t1 timer market: gone",
                        "t1 alarm: on (market)"]
    assert got[5:7] == ["t1 main timer: market paused 1:30", "t1 main timer: none"]
    assert got[7].startswith("t1 status: offline since ")


def test_json_lines() -> None:
    venue, out, err = Venue(), io.StringIO(), io.StringIO()
    lines = JsonLines("mqtt://b:1883", out, err)
    lines.link(LinkState("connected"))
    change = fold(venue, "t1", "timer", market(3), name="a/b")
    assert change is not None
    lines.change(change, venue)
    lines.link(LinkState("reconnecting", "connection lost"))
    lines.link(LinkState("connected"))
    assert json.loads(out.getvalue()) == {"t": NOW, "table": "t1", "part": "timer", "name": "a/b", "seq": 3,
                                          "body": market(3)}
    assert err.getvalue().splitlines() == ["companion: venue watch: mqtt://b:1883: reconnecting: connection lost",
                                           "companion: venue watch: mqtt://b:1883: connected"]


def test_a_json_line_is_json_whatever_came() -> None:
    body = {"name": "x", "state": "paused", "remaining_s": float("nan"), "deadline": [float("inf")], "seq": 1}
    line = json_line(Change(NOW, "t1", "timer", "x", 1, body))
    assert json.loads(line)["body"] == {"name": "x", "state": "paused", "remaining_s": None, "deadline": [None],
                                        "seq": 1}
