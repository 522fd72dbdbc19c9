"""The session's commands: their stored form, the log an earlier version wrote, and replay."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion import commands
from companion.commands import Command, from_event
from companion.errors import CompanionError
from companion.events import EventBus
from companion.session import Player, TableSession
from companion.store import Store
from tests.conftest import FakeClock
from tests.core.test_session import Wall, advance

TEXT = st.text(max_size=8)
SECONDS = st.floats(-1e6, 1e6, allow_nan=False)
JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | SECONDS | TEXT,
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
                           max_leaves=6)
DATA = st.dictionaries(TEXT, JSON_VALUES, max_size=4)
KNOWN = {"session.started", "session.seen", "undo", "redo", "timer.add", "timer.toggle", "timer.adjust", "timer.flip", "timer.reset",
         "timer.cancel", "turn.setup", "turn.tap", "turn.pause", "score.set", "score.set_many", "score.option",
         "score.rules", "table.seats", "game.finished"}
"""Every kind the session has ever stored, but the ``play.`` family."""

COMMANDS: dict[type[Command], st.SearchStrategy[Command]] = {
    commands.SessionStarted: st.builds(commands.SessionStarted, TEXT, st.lists(st.tuples(TEXT, TEXT)).map(tuple)),
    commands.Seen: st.builds(commands.Seen),
    commands.Undo: st.builds(commands.Undo),
    commands.Redo: st.builds(commands.Redo),
    commands.Unrecognised: st.builds(commands.Unrecognised,
                                     TEXT.filter(lambda k: k not in KNOWN and not k.startswith("play.")), DATA),
    commands.TimerAdd: st.builds(commands.TimerAdd, TEXT, SECONDS),
    commands.TimerToggle: st.builds(commands.TimerToggle, TEXT),
    commands.TimerAdjust: st.builds(commands.TimerAdjust, TEXT, SECONDS),
    commands.TimerFlip: st.builds(commands.TimerFlip, TEXT),
    commands.TimerReset: st.builds(commands.TimerReset, TEXT),
    commands.TimerCancel: st.builds(commands.TimerCancel, TEXT),
    commands.TurnSetup: st.builds(commands.TurnSetup, st.lists(TEXT).map(tuple), SECONDS, SECONDS),
    commands.TurnTap: st.builds(commands.TurnTap),
    commands.TurnPause: st.builds(commands.TurnPause),
    commands.ScoreSet: st.builds(commands.ScoreSet, TEXT, TEXT, JSON_VALUES),
    commands.ScoreSetMany: st.builds(commands.ScoreSetMany, TEXT, DATA),
    commands.ScoreOption: st.builds(commands.ScoreOption, TEXT, JSON_VALUES),
    commands.ScoreRules: st.builds(commands.ScoreRules, TEXT),
    commands.TableSeats: st.builds(commands.TableSeats, TEXT),
    commands.PlayRecorded: st.builds(commands.PlayRecorded, TEXT, DATA),
    commands.GameFinished: st.builds(commands.GameFinished, DATA),
}


def concrete_commands(cls: type[Command] = Command) -> set[type[Command]]:
    found: set[type[Command]] = set()
    for sub in cls.__subclasses__():
        found |= concrete_commands(sub)
        if sub is not commands.TimerCommand:
            found.add(sub)
    return found


def test_every_command_type_is_known_here_and_has_a_handler() -> None:
    assert concrete_commands() == set(COMMANDS)
    assert {c.KIND for c in concrete_commands() if "KIND" in vars(c)} == KNOWN
    handle = vars(TableSession)["_handle"].dispatcher
    never_applied = {commands.Undo, commands.Redo}
    for cls in concrete_commands() - never_applied:
        assert handle.dispatch(cls) is not handle.dispatch(Command), cls


@given(command=st.one_of(*COMMANDS.values()))
def test_a_command_comes_back_from_its_stored_form(command: Command) -> None:
    kind, data = command.to_event()
    stored = json.loads(json.dumps(data, ensure_ascii=False, sort_keys=True))  # as the store keeps it
    back = from_event(kind, stored)
    assert type(back) is type(command) and back == command
    assert back.to_event() == (kind, stored)


# What the session has always stored for each of its commands, as a user's store holds it.
EARLIER_LOG: list[tuple[str, dict[str, Any]]] = [
    ("session.started", {"game": "drakon", "players": [["Anna", "red"], ["Bence", "blue"]]}),
    ("timer.add", {"name": "t", "total_s": 60}),
    ("timer.toggle", {"name": "t"}),
    ("timer.adjust", {"name": "t", "delta_s": -10}),
    ("timer.flip", {"name": "t"}),
    ("timer.add", {"name": "u", "total_s": 12.5}),
    ("timer.reset", {"name": "t"}),
    ("timer.cancel", {"name": "u"}),
    ("turn.setup", {"players": ["Anna", "Bence"], "budget_s": 300, "increment_s": 5}),
    ("turn.tap", {}),
    ("turn.tap", {}),
    ("turn.pause", {}),
    ("score.rules", {"rules": "advanced"}),
    ("score.set", {"player": "Anna", "field": "coins", "value": [1, 2]}),
    ("score.set_many", {"player": "Bence", "values": {"escaped": True, "team": "A"}}),
    ("score.option", {"key": "variant", "value": "duel"}),
    ("table.seats", {"layout": "around"}),
    ("play.drakon.count", {"player": "Anna", "count": 2}),
    ("undo", {}),
    ("redo", {}),
    ("undo", {}),
    ("game.finished", {"result": {"scores": {"Anna": 3, "Bence": 5}}}),
]


def play_earlier_log(s: TableSession, clock: FakeClock, wall: Wall) -> None:
    s.add_timer("t", 60)
    s.toggle("t")
    advance(clock, wall, 5)
    s.adjust("t", -10)
    s.flip("t")
    s.add_timer("u", 12.5)
    s.reset("t")
    s.cancel("u")
    s.setup_turns(["Anna", "Bence"], 300, 5)
    s.pass_turn()
    advance(clock, wall, 7)
    s.pass_turn()
    s.pause_turns()
    s.set_score_rules("advanced")
    s.set_score("Anna", "coins", [1, 2])
    s.set_scores("Bence", {"escaped": True, "team": "A"})
    s.set_score_option("variant", "duel")
    s.set_seats("around")
    s.record_play("drakon.count", {"player": "Anna", "count": 2})
    s.undo()
    s.redo()
    s.undo()
    s.store.append(s.id, "game.finished", {"result": {"scores": {"Anna": 3, "Bence": 5}}}, t_mono=clock.now(),
                   t_wall=wall(), boot_id="boot-1")  # finish_game would end the session


def state(s: TableSession, now: float) -> dict[str, Any]:
    return {"board": [(n, s.board[n].phase, s.board[n].remaining_s(now)) for n in s.board.names],
            "turns": s.turn_clock, "game": s.game, "players": s.players, "sheet": s.score_sheet,
            "rules": s.score_rules, "options": s.score_options, "result": s.result, "play": s.play_log,
            "seats": s.seats, "can_undo": s.can_undo, "can_redo": s.can_redo}


def test_the_session_stores_what_it_always_has_and_resumes_an_earlier_log() -> None:
    store, clock, wall = Store.open(":memory:"), FakeClock(), Wall()
    s = TableSession.start(store, "drakon", [Player("Anna", "red"), Player("Bence", "blue")], clock, EventBus(),
                           wall=wall, boot="boot-1")
    play_earlier_log(s, clock, wall)
    assert [(e.kind, e.data) for e in store.events(s.id)] == EARLIER_LOG

    earlier, clock2 = Store.open(":memory:"), FakeClock()
    sid = earlier.new_session("drakon", wall())
    for kind, data in EARLIER_LOG:
        earlier.append(sid, kind, data, t_mono=clock2.now(), t_wall=wall(), boot_id="boot-1")
    again = TableSession.resume(earlier, sid, clock2, EventBus(), wall=wall, boot="boot-1")
    assert again.board.names == ["t"] and again.board["t"].remaining_s(clock2.now()) == 60
    assert again.turn_clock is not None and again.turn_clock.player == "Bence" and not again.turn_clock.is_running
    assert again.players == (Player("Anna", "red"), Player("Bence", "blue")) and again.game == "drakon"
    assert again.score_document() == {"variant": "duel", "rules": "advanced", "players": {
        "Anna": {"coins": [1, 2]}, "Bence": {"escaped": True, "team": "A"}}}
    # the result logged after the undo is an action: nothing is left to redo, as live
    assert again.seats == "around" and again.play_log == [] and not again.can_redo
    assert again.result == {"scores": {"Anna": 3, "Bence": 5}}


def test_a_kind_this_version_does_not_know_is_kept_and_applies_as_nothing(caplog: pytest.LogCaptureFixture) -> None:
    store, clock, wall = Store.open(":memory:"), FakeClock(), Wall()
    sid = store.new_session("timer", wall())
    for kind, data in [("session.started", {"game": "timer", "players": []}), ("timer.add", {"name": "t", "total_s": 5}),
                       ("fancy.new", {"x": 1}), ("timer.frobnicate", {"name": "t"})]:
        store.append(sid, kind, data, t_mono=clock.now(), t_wall=wall(), boot_id="boot-1")
    s = TableSession.resume(store, sid, clock, EventBus(), wall=wall, boot="boot-1")
    assert s.board.names == ["t"] and not caplog.records
    s.undo()  # takes back timer.frobnicate (a timer kind), which did nothing
    assert s.board.names == ["t"]
    s.undo()  # fancy.new is no undoable kind: the add goes
    assert s.board.names == [] and not s.can_undo


STEPS = ["add", "toggle", "adjust", "flip", "reset", "cancel", "setup", "tap", "pause", "score", "scores", "option",
         "rules", "seats", "play", "undo", "redo", "wait"]


def do(s: TableSession, clock: FakeClock, wall: Wall, step: str, n: int) -> None:
    """One step of a script through the session's public methods; *n* picks the timer and the values."""
    name = "tu"[n % 2]
    {"add": lambda: s.add_timer(name, 10 * (n + 1)), "toggle": lambda: s.toggle(name),
     "adjust": lambda: s.adjust(name, 5 - 4 * n), "flip": lambda: s.flip(name),
     "reset": lambda: s.reset(name), "cancel": lambda: s.cancel(name),
     "setup": lambda: s.setup_turns(["Anna", "Bence"], 20 * (n + 1), n), "tap": s.pass_turn,
     "pause": s.pause_turns, "score": lambda: s.set_score("Anna", "gold", n),
     "scores": lambda: s.set_scores("Bence", {"gold": n, "cards": ["x"] * n}),
     "option": lambda: s.set_score_option("variant", n), "rules": lambda: s.set_score_rules(str(n)),
     "seats": lambda: s.set_seats(["side", "around"][n % 2]),
     "play": lambda: s.record_play("drakon.count", {"count": n}),
     "undo": s.undo, "redo": s.redo, "wait": lambda: advance(clock, wall, 4 * n)}[step]()


@settings(max_examples=100)
@given(script=st.lists(st.tuples(st.sampled_from(STEPS), st.integers(0, 3)), max_size=25))
@pytest.mark.slow
def test_any_script_resumes_to_the_state_it_left(script: list[tuple[str, int]]) -> None:
    """Whatever commands were given, a session rebuilt from its store matches the one that gave them."""
    store, clock, wall = Store.open(":memory:"), FakeClock(), Wall()
    s = TableSession.start(store, "drakon", [Player("Anna", "red"), Player("Bence", "blue")], clock, EventBus(),
                           wall=wall, boot="boot-1")
    for step, n in script:
        with contextlib.suppress(CompanionError):  # refused: not logged
            do(s, clock, wall, step, n)
        s.poll()
    again = TableSession.resume(store, s.id, clock, EventBus(), wall=wall, boot="boot-1")
    assert state(again, clock.now()) == state(s, clock.now())
