"""Where a session's game stands for the venue: the game and its round, the points so far by the
game's own scoring, the leader, and nothing of what the table keeps hidden."""

from __future__ import annotations

import pytest

from companion.events import EventBus, SessionChanged
from companion.games import dragons_gold
from companion.session import Player, TableSession
from companion.standings import game_state, score_state
from companion.store import Store
from tests.conftest import FakeClock, Recorder


@pytest.fixture
def store() -> Store:
    return Store.open(":memory:")


def session_of(store: Store, clock: FakeClock, bus: EventBus, game: str, *names: str) -> TableSession:
    colours = ("red", "blue", "green", "yellow")
    return TableSession.start(store, game, [Player(n, c) for n, c in zip(names, colours, strict=False)],
                              clock, bus)


def test_standings_dragons_gold_scores_each_filled_sheet(store: Store, clock: FakeClock, bus: EventBus) -> None:
    s = session_of(store, clock, bus, "dragons-gold", "Anna", "Béla", "Csilla")
    assert game_state(s) == {"key": "dragons-gold", "title": "Dragon's Gold",
                             "players": ["Anna", "Béla", "Csilla"], "round": None}
    assert score_state(s) == {"players": {"Anna": None, "Béla": None, "Csilla": None}, "leader": None,
                              "final": False}
    s.set_score("Anna", "silver", 3)
    s.set_score("Béla", "gold", 2)
    from companion.games import dragons_gold

    expected = dragons_gold.score_document(s.score_document())["scores"]
    state = score_state(s)
    assert state["players"] == {"Anna": expected["Anna"], "Béla": expected["Béla"], "Csilla": None}
    top = max(expected["Anna"], expected["Béla"])
    leaders = [n for n in ("Anna", "Béla") if expected[n] == top]
    assert state["leader"] == (leaders[0] if len(leaders) == 1 else None)


def test_standings_a_tie_has_no_leader(store: Store, clock: FakeClock, bus: EventBus) -> None:
    s = session_of(store, clock, bus, "gold", "Anna", "Béla")
    s.set_score("Anna", "scored", ["red:5"])
    s.set_score("Béla", "scored", ["blue:5"])
    assert score_state(s) == {"players": {"Anna": 5, "Béla": 5}, "leader": None, "final": False}
    s.set_score("Béla", "scored", ["blue:5", "green:3"])
    assert score_state(s) == {"players": {"Anna": 5, "Béla": 8}, "leader": "Béla", "final": False}


def test_standings_drakon_coins_stay_secret_until_the_reveal(store: Store, clock: FakeClock,
                                                             bus: EventBus) -> None:
    s = session_of(store, clock, bus, "drakon", "Anna", "Béla")
    s.set_score("Anna", "coins", [3, 3])
    s.set_score("Béla", "coins", [1])
    assert score_state(s)["players"] == {"Anna": None, "Béla": None}
    s.record_play("drakon.reveal", {})
    assert score_state(s) == {"players": {"Anna": 6, "Béla": 1}, "leader": "Anna", "final": False}


def test_standings_volatio_round_and_no_points_before_the_finish(store: Store, clock: FakeClock,
                                                                  bus: EventBus) -> None:
    s = session_of(store, clock, bus, "volatio", "Anna", "Béla")
    assert game_state(s)["round"] == 0  # the start flight
    for name in ("Anna", "Béla"):
        s.record_play("volatio.reveal", {"player": name, "speed": 500})
    s.record_play("volatio.next_round", {})
    assert game_state(s)["round"] == 1
    assert score_state(s)["players"] == {"Anna": None, "Béla": None}
    s.undo()
    assert game_state(s)["round"] == 0


def test_standings_a_finished_game_gives_its_result(store: Store, clock: FakeClock, bus: EventBus) -> None:
    s = session_of(store, clock, bus, "gold", "Anna", "Béla")
    s.finish_game({"scores": {"Anna": 41, "Béla": 45}, "winners": ["Béla"]})
    assert score_state(s) == {"players": {"Anna": 41, "Béla": 45}, "leader": "Béla", "final": True}


def test_standings_a_sheet_put_right_after_the_finish_is_live_again(store: Store, clock: FakeClock,
                                                                     bus: EventBus) -> None:
    """A move made after Finish leaves the game unfinished (the result was for another sheet):
    the standings are the sheet's own points until Finish records the new result."""
    s = session_of(store, clock, bus, "dragons-gold", "Anna", "Béla", "Csaba")
    s.set_score("Anna", "gold", 3)
    s.finish_game(dragons_gold.score_document(s.score_document()))
    assert score_state(s)["final"] is True
    s.set_score("Béla", "gold", 4)
    assert score_state(s) == {"players": {"Anna": 9, "Béla": 12, "Csaba": None}, "leader": "Béla",
                              "final": False}
    s.undo()
    assert score_state(s) == {"players": {"Anna": 9, "Béla": 0, "Csaba": 0}, "leader": "Anna", "final": True}


def test_standings_the_sand_timer_has_no_players_and_no_round(store: Store, clock: FakeClock,
                                                              bus: EventBus) -> None:
    s = session_of(store, clock, bus, "timer")
    assert game_state(s) == {"key": "timer", "title": "Sand-timer", "players": [], "round": None}
    assert score_state(s) == {"players": {}, "leader": None, "final": False}


def test_session_says_each_change_of_its_log(store: Store, clock: FakeClock, bus: EventBus) -> None:
    """The score sheet and the play log have no events of their own: SessionChanged says when
    they may have changed (a command recorded, the start, undo and redo), never for a refusal."""
    seen = Recorder(bus, SessionChanged)
    s = session_of(store, clock, bus, "gold", "Anna", "Béla")
    s.set_score("Anna", "scored", ["red:5"])
    s.add_timer("t", 30)
    with pytest.raises(ValueError):
        s.set_score("Nobody", "scored", [])
    s.undo()
    s.redo()
    changes = [e for e in seen.events if isinstance(e, SessionChanged)]
    assert [e.kind for e in changes] == ["session.started", "score.set", "timer.add", "undo", "redo"]
    assert all(e.t_mono == clock.now() for e in changes)
