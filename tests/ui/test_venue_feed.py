"""The touch app's side of the venue link (companion/ui/venue_feed.py), on a real session and
store: the venue's commands logged like taps, their refusals in one line, and what is handed to
the link after a change of whatever session is current. No window, no broker: the journey with
both is tests/ui/test_venue_journey.py."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_FILELOG", "1")

import pytest  # noqa: E402

from companion.config import load_config  # noqa: E402
from companion.errors import CompanionError  # noqa: E402
from companion.events import EventBus  # noqa: E402
from companion.session import Player  # noqa: E402
from companion.store import Store  # noqa: E402
from companion.timers import Phase, main_timer  # noqa: E402
from companion.ui.services import Services  # noqa: E402
from companion.ui.venue_feed import LinkCalls, VenueFeed  # noqa: E402
from tests.conftest import FakeClock  # noqa: E402
from venue.protocol import Command, parse_command  # noqa: E402


class Table:
    """A feed on real services; the link's side records what it is handed, and the closures
    the feed posts wait in :attr:`posted` until :meth:`run_posted`."""

    def __init__(self, tmp_path: Path) -> None:
        (tmp_path / "config.toml").write_text(f'[paths]\ndatabase = "{tmp_path / "db.sqlite3"}"\n')
        config = load_config(tmp_path / "config.toml")
        self.clock = FakeClock()
        self.svc = Services(config=config, config_path=tmp_path / "config.toml", store=Store.open(":memory:"),
                            bus=EventBus(), clock=self.clock)
        self.posted: list[Callable[[], None]] = []
        self.sent: list[tuple[str, Any]] = []
        self.announced: list[tuple[str, float]] = []
        self.feed = VenueFeed(self.svc, self.posted.append, table="t07", broker="mqtt://venue:1883")
        self.feed.link = LinkCalls(start=lambda: self.sent.append(("start", None)),
                                   close=lambda: self.sent.append(("close", None)),
                                   refresh=lambda: self.sent.append(("refresh", None)),
                                   publish_game=lambda body: self.sent.append(("game", dict(body))),
                                   publish_scores=lambda body: self.sent.append(("scores", dict(body))),
                                   state=lambda: "connecting")
        self.feed.start(lambda text, s: self.announced.append((text, s)))

    def run_posted(self) -> None:
        while self.posted:
            self.posted.pop(0)()

    def kinds(self) -> list[str]:
        session = self.svc.session
        assert session is not None
        return [e.kind for e in self.svc.store.events(session.id)]


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return Table(tmp_path)


def cmd(action: str, payload: str = "") -> Command:
    return parse_command(action, payload.encode())


def test_venue_commands_are_logged_like_taps_and_undone_like_them(table: Table) -> None:
    session = table.svc.ensure_session()
    session.add_timer("negotiation", 60)
    session.add_timer("market", 90)
    table.feed.command(cmd("start", '{"timer": "market"}'))
    assert session.board["market"].phase is Phase.RUNNING
    table.clock.advance(5)
    table.feed.command(cmd("add", "30"))  # the main timer: the running one
    assert session.board["market"].remaining_s(table.clock.now()) == pytest.approx(115)
    table.feed.command(cmd("pause"))
    assert session.board["market"].phase is Phase.PAUSED
    table.feed.command(cmd("reset", '{"timer": "market"}'))
    assert session.board["market"].phase is Phase.IDLE
    assert table.kinds()[-4:] == ["timer.toggle", "timer.adjust", "timer.toggle", "timer.reset"]
    session.undo()
    assert session.board["market"].phase is Phase.PAUSED


@pytest.mark.parametrize(("action", "payload", "why"), [
    ("start", '{"timer": "market"}', "timer 'market' is already running"),
    ("pause", '{"timer": "negotiation"}', "timer 'negotiation' is not running (it is idle)"),
    ("reset", '{"timer": "lunch"}', "timer: no such timer here (timers: negotiation, market) (got 'lunch')"),
])
def test_venue_commands_refused_say_why_in_one_line(table: Table, action: str, payload: str, why: str) -> None:
    session = table.svc.ensure_session()
    session.add_timer("negotiation", 60)
    session.add_timer("market", 90)
    session.toggle("market")
    before = table.kinds()
    with pytest.raises(CompanionError) as caught:
        table.feed.command(cmd(action, payload))
    assert str(caught.value) == why
    assert table.kinds() == before  # a refusal is never logged


def test_venue_commands_need_a_timer(table: Table) -> None:
    with pytest.raises(CompanionError, match="^this table has no timers$"):
        table.feed.command(cmd("start"))
    table.svc.ensure_session()
    with pytest.raises(CompanionError, match="^this table has no timers$"):
        table.feed.command(cmd("pause"))


def test_venue_announcement_goes_to_the_screen(table: Table) -> None:
    table.feed.command(cmd("announce", '{"text": "Zárás 22 órakor", "seconds": 20}'))
    assert table.announced == [("Zárás 22 órakor", 20.0)]


def test_main_timer_is_the_running_one_ending_first(table: Table) -> None:
    session = table.svc.ensure_session()
    assert main_timer(table.feed.timers()) is None
    for name, total in (("a", 60), ("b", 30), ("c", 10)):
        session.add_timer(name, total)
    assert main_timer(table.feed.timers()) == "a"
    session.toggle("b")
    session.toggle("a")
    assert main_timer(table.feed.timers()) == "b"


def test_venue_feed_follows_whichever_session_is_current(table: Table) -> None:
    """A new game is published once it is the app's session (the flush waits for the post); a
    score changes the scores; an undo rebuilds and refreshes the timers."""
    table.run_posted()
    table.sent.clear()
    table.svc.start_session("gold", [Player("Anna", "red"), Player("Béla", "blue")])
    assert table.sent == []  # nothing during the event: the session is not the app's yet
    table.run_posted()
    assert table.sent == [("refresh", None),
                          ("game", {"key": "gold", "title": "Gold!", "players": ["Anna", "Béla"], "round": None}),
                          ("scores", {"players": {"Anna": None, "Béla": None}, "leader": None, "final": False})]
    table.sent.clear()
    session = table.svc.session
    assert session is not None
    session.set_score("Anna", "scored", ["red:5"])
    session.set_score("Béla", "scored", ["red:4"])
    assert len(table.posted) == 1  # one publish for the changes of a frame
    table.run_posted()
    assert table.sent == [  # the same session, not rebuilt: its timers follow their own events
        ("game", {"key": "gold", "title": "Gold!", "players": ["Anna", "Béla"], "round": None}),
        ("scores", {"players": {"Anna": 5, "Béla": 4}, "leader": "Anna", "final": False})]
    table.sent.clear()
    session.undo()
    table.run_posted()
    assert [what for what, _ in table.sent] == ["refresh", "game", "scores"]
    assert table.sent[-1][1]["players"] == {"Anna": 5, "Béla": None}
    table.feed.close()
    table.feed.close()
    assert [what for what, _ in table.sent].count("close") == 1


@pytest.mark.parametrize(("state", "said"), [
    ("connected", "t07 on mqtt://venue:1883, connected"),
    ("unreachable", "t07 on mqtt://venue:1883, cannot reach the broker"),
    ("refused", "t07 on mqtt://venue:1883, refused by the broker"),
    ("duplicate", "t07 on mqtt://venue:1883, another table uses this id"),
])
def test_settings_line_says_the_links_state(table: Table, state: str, said: str) -> None:
    table.feed.link = dataclasses.replace(table.feed.link, state=lambda: state)  # type: ignore[arg-type]
    table.feed.link_said("whatever the link said")
    table.run_posted()
    assert table.feed.status_line() == said
