from __future__ import annotations

import json

from companion.events import EventBus
from companion.export import to_bgstats, to_csv
from companion.games import dragons_gold
from companion.history import finished_plays, play_from_log
from companion.session import Player, TableSession
from companion.store import Store
from tests.conftest import FakeClock


def finished_session(store: Store, wall: float) -> int:
    clock = FakeClock()
    s = TableSession.start(store, "dragons-gold", [Player("Anna", "red"), Player("Бора", "blue"),
                                                    Player("Csaba", "green")], clock, EventBus(),
                           wall=lambda: wall, boot="b")
    s.set_score("Anna", "gold", 3)
    s.set_score("Бора", "gold", 3)
    s.set_score("Csaba", "silver", 2)
    s.finish_game(dragons_gold.score_document(s.score_document()))
    return s.id


def test_history_reads_finished_plays_with_ranks_and_winners() -> None:
    store = Store.open(":memory:")
    sid = finished_session(store, 1_700_000_000.0)
    TableSession.start(store, "gold", [Player("X", "red"), Player("Y", "blue")], FakeClock(), EventBus(),
                       wall=lambda: 1.0, boot="b")  # not finished: not history
    [(got_id, play)] = finished_plays(store)
    assert got_id == sid and play.game_name == "Dragon's Gold"
    assert [(p.name, p.score, p.is_winner, p.rank) for p in play.players] == [
        ("Anna", 9, True, 1), ("Бора", 9, True, 1), ("Csaba", 2, False, 3)]
    assert play_from_log(sid + 1, store) is None


def test_history_exports_to_bgstats_and_csv() -> None:
    store = Store.open(":memory:")
    finished_session(store, 1_700_000_000.0)
    [(_sid, play)] = finished_plays(store)
    doc = json.loads(to_bgstats(play))
    assert {p["name"] for p in doc["players"]} == {"Anna", "Бора", "Csaba"}
    assert sorted(p["name"] for p in doc["players"] if p["winner"]) == ["Anna", "Бора"]
    assert to_csv([play]).count("\n") == 4


def test_finish_again_logs_a_changed_result_once_and_history_takes_it() -> None:
    """Finish tapped twice logs the result once; the sheet put right after a finish (an undo
    here) and Finish again logs the new result, and that is the play's."""
    store = Store.open(":memory:")
    clock = FakeClock()
    s = TableSession.start(store, "dragons-gold", [Player("Anna", "red"), Player("Béla", "blue"),
                                                    Player("Csaba", "green")], clock, EventBus(),
                           wall=lambda: 1_700_000_000.0, boot="b")
    s.set_score("Anna", "gold", 3)
    s.set_score("Béla", "gold", 4)
    first = dragons_gold.score_document(s.score_document())
    s.finish_game(first)
    s.finish_game(dragons_gold.score_document(s.score_document()))
    finished = lambda: [e.data["result"] for e in store.events(s.id) if e.kind == "game.finished"]  # noqa: E731
    assert len(finished()) == 1
    s.undo()  # Béla's gold taken back
    assert s.result is None  # the sheet the result was for is no longer the sheet
    opened = store.open_session()  # open again: after a restart, it is offered to resume
    assert opened is not None and opened.id == s.id
    assert TableSession.resume(store, s.id, clock, EventBus(), wall=lambda: 1_700_000_050.0, boot="b").result is None
    play = play_from_log(s.id, store)  # the last result recorded, until Finish records another
    assert play is not None and {p.name: p.score for p in play.players} == first["scores"]
    again = TableSession.resume(store, s.id, clock, EventBus(), wall=lambda: 1_700_000_060.0, boot="b")
    again.redo()  # after a restart, as live
    assert again.result == first and store.open_session() is None  # it stands again: ended again
    s = TableSession.resume(store, s.id, clock, EventBus(), wall=lambda: 1_700_000_070.0, boot="b")
    s.set_score("Csaba", "gold", 1)
    assert s.result is None and store.open_session() is not None
    s.undo()  # an entry made after Finish taken back: the sheet the result was for
    assert s.result == first and store.open_session() is None
    s.set_score("Anna", "gold", 3)  # the same value entered again: the sheet is as it was
    assert s.result == first and store.open_session() is None
    s.set_score_rules("advanced")
    assert s.result is None and store.open_session() is not None  # another rule: another result
    s.undo()
    assert s.result == first and store.open_session() is None
    s.undo()  # the value entered again taken back: the sheet is still as it was
    assert s.result == first
    s.finish_game(dragons_gold.score_document(s.score_document()))
    assert len(finished()) == 1 and store.open_session() is None
    s.undo()
    second = dragons_gold.score_document(s.score_document())
    assert second["scores"] != first["scores"]
    s.finish_game(second)
    assert [r["scores"] for r in finished()] == [first["scores"], second["scores"]]
    assert s.result == second and not s.can_redo  # a new result: the undone entry stays undone
    play = play_from_log(s.id, store)
    assert play is not None and {p.name: p.score for p in play.players} == second["scores"]
    resumed = TableSession.resume(store, s.id, clock, EventBus(), wall=lambda: 1_700_000_100.0, boot="b")
    assert not resumed.can_redo and resumed.score_document() == s.score_document()  # as it was live
    resumed.finish_game(dragons_gold.score_document(resumed.score_document()))  # as stored: still the same
    assert len(finished()) == 2
