"""The screens' services (companion/ui/services.py) on a real store file, as the app meets it after
a restart: the session left open goes on when a timer is used before Resume, a new game ends it,
and an open session that cannot be resumed gives way to a new one. No window: the journeys with
the app killed and started again are in tests/ui/test_app_journeys.py."""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_FILELOG", "1")

import pytest  # noqa: E402

from companion.config import load_config  # noqa: E402
from companion.events import EventBus  # noqa: E402
from companion.history import SAND_TIMER  # noqa: E402
from companion.session import Player, TableSession  # noqa: E402
from companion.store import Store  # noqa: E402
from companion.timers import Phase  # noqa: E402
from companion.ui.services import Services  # noqa: E402
from tests.conftest import FakeClock  # noqa: E402

PLAYERS = [Player("Ann", "red"), Player("Bo", "blue"), Player("Cy", "green")]


def boot(tmp_path: Path, clock: FakeClock) -> tuple[Services, list[TableSession]]:
    """The services of a freshly started app on the database in *tmp_path*; the list collects
    what :attr:`Services.resumed` is told."""
    (tmp_path / "config.toml").write_text(f'[paths]\ndatabase = "{tmp_path / "db.sqlite3"}"\n')
    config = load_config(tmp_path / "config.toml")
    told: list[TableSession] = []
    svc = Services(config=config, config_path=tmp_path / "config.toml", store=Store.open(tmp_path / "db.sqlite3"),
                   bus=EventBus(), clock=clock, resumed=told.append)
    return svc, told


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def test_a_timer_before_resume_goes_on_with_the_session_left_open(tmp_path: Path, clock: FakeClock) -> None:
    first, _ = boot(tmp_path, clock)
    game = first.start_session("dragons-gold", PLAYERS)
    game.add_timer("market", 600.0)
    game.toggle("market")
    first.store.close()  # the app ends without finishing the session: a crash, a pulled plug
    clock.advance(30.0)
    again, told = boot(tmp_path, clock)
    assert again.session is None and again.store.open_session() is not None
    session = again.ensure_session()
    assert (session.id, session.game) == (game.id, "dragons-gold")
    assert told == [session]
    assert session.board["market"].phase is Phase.RUNNING
    assert session.board["market"].remaining_s(clock.now()) == pytest.approx(570.0)
    assert again.ensure_session() is session and told == [session]  # resumed once


def test_a_new_game_ends_the_session_left_open(tmp_path: Path, clock: FakeClock) -> None:
    first, _ = boot(tmp_path, clock)
    left = first.start_session("dragons-gold", PLAYERS).id
    first.store.close()
    again, told = boot(tmp_path, clock)
    newer = again.start_session("volatio", PLAYERS[:2])
    assert again.store.open_session().id == newer.id
    newer.finish()
    again.session = None  # as after the next start
    assert again.store.open_session() is None  # the game left open does not come back
    fresh = again.ensure_session()
    assert fresh.game == SAND_TIMER and fresh.id not in (left, newer.id) and told == []


def test_an_open_session_with_nothing_to_resume_gives_way_to_a_new_one(tmp_path: Path, clock: FakeClock,
                                                                       caplog: pytest.LogCaptureFixture) -> None:
    svc, told = boot(tmp_path, clock)
    empty = svc.store.new_session("gold", 0.0)  # its first event never written
    session = svc.ensure_session()
    assert session.game == SAND_TIMER and session.id != empty and told == []
    assert "not resumed" in caplog.text
