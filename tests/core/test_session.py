"""The session log: commands, undo/redo, and resume (same boot and across a reboot)."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from companion.errors import CompanionError, InvalidInput, TimerStateError
from companion.events import EventBus, TimerExpired, TimerRestored, TimerStarted
from companion.session import Player, SessionRebuilt, TableSession
from companion.store import Store
from companion.timers import Phase
from tests.conftest import FakeClock, Recorder


class Wall:
    def __init__(self, t: float = 1_700_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def start(store: Store, clock: FakeClock, bus: EventBus, wall: Wall, boot: str = "boot-1") -> TableSession:
    return TableSession.start(store, "dragons-gold", [Player("Anna", "red"), Player("Bence", "blue")], clock,
                              bus, wall=wall, boot=boot)


def advance(clock: FakeClock, wall: Wall, s: float) -> None:
    clock.advance(s)
    wall.t += s


@pytest.fixture
def store() -> Store:
    return Store.open(":memory:")


def test_session_commands_drive_the_board(store: Store, clock: FakeClock, bus: EventBus) -> None:
    wall = Wall()
    s = start(store, clock, bus, wall)
    seen = Recorder(bus, TimerStarted)
    s.add_timer("negotiation", 60)
    s.toggle("negotiation")
    advance(clock, wall, 20)
    s.adjust("negotiation", 10)
    assert s.board["negotiation"].remaining_s(clock.now()) == 50
    assert len(seen.events) == 1
    assert s.players == (Player("Anna", "red"), Player("Bence", "blue"))
    assert sorted(store.recent_players()) == [("Anna", "red"), ("Bence", "blue")]


def test_session_undo_and_redo_the_last_action(store: Store, clock: FakeClock, bus: EventBus) -> None:
    wall = Wall()
    s = start(store, clock, bus, wall)
    s.add_timer("t", 60)
    s.toggle("t")
    advance(clock, wall, 5)
    s.adjust("t", -10)
    assert s.board["t"].remaining_s(clock.now()) == 45
    rebuilt = Recorder(bus, SessionRebuilt)
    taken = s.undo()
    assert (taken.kind, taken.data) == ("timer.adjust", {"name": "t", "delta_s": -10})
    assert s.board["t"].remaining_s(clock.now()) == 55
    assert s.can_redo
    assert s.redo() == taken
    assert s.board["t"].remaining_s(clock.now()) == 45
    assert [e.reason for e in rebuilt.events] == ["undo", "redo"]
    s.undo()
    assert s.undo().kind == "timer.toggle"  # the start
    assert s.board["t"].phase is Phase.IDLE
    assert s.undo().kind == "timer.add"
    assert "t" not in s.board
    with pytest.raises(TimerStateError, match="nothing to undo"):
        s.undo()


def test_session_redo_puts_an_action_back_where_it_was_logged(store: Store, clock: FakeClock,
                                                               bus: EventBus) -> None:
    """A pause undone lets its timer run out (noted in the log); redone, the pause stands where
    it was logged, before that note: the timer is paused with the time it had, live and resumed."""
    wall = Wall()
    s = start(store, clock, bus, wall)
    s.add_timer("t", 10)
    s.toggle("t")
    advance(clock, wall, 4)
    s.toggle("t")  # paused, 6 s left
    advance(clock, wall, 1)
    s.undo()
    advance(clock, wall, 6)
    assert s.poll() == ("t",)  # ran out: noted in the log
    advance(clock, wall, 9)
    assert s.redo().kind == "timer.toggle"
    assert (s.board["t"].phase, s.board["t"].remaining_s(clock.now())) == (Phase.PAUSED, 6)
    again = TableSession.resume(store, s.id, clock, EventBus(), wall=wall, boot="boot-1")
    assert (again.board["t"].phase, again.board["t"].remaining_s(clock.now())) == (Phase.PAUSED, 6)


def test_session_new_action_clears_redo(store: Store, clock: FakeClock, bus: EventBus) -> None:
    s = start(store, clock, bus, Wall())
    s.add_timer("t", 60)
    s.add_timer("u", 30)
    s.undo()
    s.add_timer("v", 10)
    assert not s.can_redo
    assert s.board.names == ["t", "v"]


def test_session_refused_command_is_not_logged(store: Store, clock: FakeClock, bus: EventBus) -> None:
    s = start(store, clock, bus, Wall())
    s.add_timer("t", 60)
    with pytest.raises(TimerStateError):
        s.flip("t")  # idle: nothing to flip
    assert [e.kind for e in store.events(s.id)] == ["session.started", "timer.add"]


def test_session_resume_same_boot_keeps_the_deadline(store: Store, clock: FakeClock, bus: EventBus) -> None:
    wall = Wall()
    s = start(store, clock, bus, wall)
    s.add_timer("t", 60)
    s.toggle("t")
    advance(clock, wall, 12)
    # the process dies; 30 s later a new one opens the same store on the same boot
    advance(clock, wall, 30)
    restored = Recorder(bus, TimerRestored)
    again = TableSession.resume(store, s.id, clock, bus, wall=wall, boot="boot-1")
    assert again.board["t"].is_running
    assert again.board["t"].remaining_s(clock.now()) == pytest.approx(18)
    assert again.resume_note is None
    assert restored.events[-1].phase == "running"


def test_session_resume_after_reboot_uses_wall_time_and_says_so(store: Store, bus: EventBus) -> None:
    clock, wall = FakeClock(5_000.0), Wall()
    s = start(store, clock, bus, wall, boot="boot-1")
    s.add_timer("t", 60)
    s.toggle("t")
    advance(clock, wall, 10)
    # power cut; the Pi boots again: monotonic starts near zero, the wall clock went on 25 s
    new_clock = FakeClock(8.0)
    wall.t += 25
    again = TableSession.resume(store, s.id, new_clock, bus, wall=wall, boot="boot-2")
    assert again.board["t"].remaining_s(new_clock.now()) == pytest.approx(25)
    assert again.resume_note is not None and "wall clock" in again.resume_note


def test_session_resume_does_not_ring_for_what_ran_out_while_down(store: Store, clock: FakeClock,
                                                                  bus: EventBus) -> None:
    wall = Wall()
    s = start(store, clock, bus, wall)
    s.add_timer("t", 5)
    s.toggle("t")
    advance(clock, wall, 60)
    expired = Recorder(bus, TimerExpired)
    again = TableSession.resume(store, s.id, clock, bus, wall=wall, boot="boot-1")
    again.poll()
    assert expired.events == []
    assert again.board["t"].phase is Phase.EXPIRED


def test_session_turn_clock_tap_starts_then_passes(store: Store, clock: FakeClock, bus: EventBus) -> None:
    s = start(store, clock, bus, Wall())
    s.setup_turns(["A", "B", "C", "D"], 60)
    s.pass_turn()
    clock.advance(10)
    s.pass_turn()
    assert s.turn_clock is not None and s.turn_clock.player == "B"
    assert s.turn_clock.remaining_s("A", clock.now()) == 50


@settings(max_examples=300, deadline=None)
@example(script=["toggle", "minus", "minus", "wait", "wait", "toggle"])  # a tap on a glass that ran out
@given(script=st.lists(st.sampled_from(["toggle", "plus", "minus", "flip", "reset", "undo", "redo", "wait"]),
                       max_size=25))
@pytest.mark.slow
def test_session_resume_equals_the_live_state(script: list[str]) -> None:
    """Whatever was done, a session rebuilt from its log matches the one that did it."""
    store, clock, bus, wall = Store.open(":memory:"), FakeClock(), EventBus(), Wall()
    s = start(store, clock, bus, wall)
    s.add_timer("t", 30)
    for step in script:
        with contextlib.suppress(CompanionError):  # refused (nothing to undo, no such timer): not logged
            {"toggle": lambda: s.toggle("t"), "plus": lambda: s.adjust("t", 10),
             "minus": lambda: s.adjust("t", -10), "flip": lambda: s.flip("t"), "reset": lambda: s.reset("t"),
             "undo": s.undo, "redo": s.redo, "wait": lambda: advance(clock, wall, 7)}[step]()
        s.poll()
    again = TableSession.resume(store, s.id, clock, EventBus(), wall=wall, boot="boot-1")
    assert again.board.names == s.board.names
    for name in s.board.names:
        live, back = s.board[name], again.board[name]
        assert back.phase == live.phase
        assert back.remaining_s(clock.now()) == pytest.approx(live.remaining_s(clock.now()))


def test_session_score_sheet_is_logged_undoable_and_scores_like_the_cli(store: Store, clock: FakeClock,
                                                                         bus: EventBus) -> None:
    from companion.games import dragons_gold

    s = TableSession.start(store, "dragons-gold", [Player("A", "red"), Player("B", "blue"), Player("C", "green")],
                           clock, bus, wall=Wall(), boot="boot-1")
    s.set_score_rules("advanced")
    s.set_score("A", "gold", 4)
    s.set_score("B", "black", 1)
    s.set_score("B", "green", 2)
    s.undo()
    assert s.score_document() == {"rules": "advanced", "players": {"A": {"gold": 4}, "B": {"black": 1}, "C": {}}}
    out = dragons_gold.score_document(s.score_document())
    assert out["scores"] == {"A": 12, "B": 19, "C": 0}
    s.finish_game(out)
    again = TableSession.resume(store, s.id, clock, EventBus(), wall=Wall(), boot="boot-1")
    assert again.result == out and again.score_document() == s.score_document()
    assert store.open_session() is None


def test_session_score_sheet_refuses_strangers_and_negatives(store: Store, clock: FakeClock, bus: EventBus) -> None:
    s = start(store, clock, bus, Wall())
    with pytest.raises(InvalidInput, match="not at this table"):
        s.set_score("Zoltán", "gold", 1)
    with pytest.raises(InvalidInput, match="0 or more"):
        s.set_score("Anna", "gold", -1)


def test_session_scores_set_together_are_one_change(store: Store, clock: FakeClock, bus: EventBus) -> None:
    s = start(store, clock, bus, Wall())
    s.set_score("Anna", "gold", 1)
    s.set_scores("Anna", {"gold": 3, "silver": 2, "red": 0})
    assert s.score_sheet["Anna"] == {"gold": 3, "silver": 2, "red": 0}
    s.undo()  # one undo: all three back
    assert s.score_sheet["Anna"] == {"gold": 1}
    s.redo()
    again = TableSession.resume(store, s.id, clock, EventBus(), wall=Wall(), boot="boot-1")
    assert again.score_sheet["Anna"] == {"gold": 3, "silver": 2, "red": 0}
    logged = len(list(store.events(s.id)))
    with pytest.raises(InvalidInput, match="0 or more"):  # one bad entry: nothing logged
        s.set_scores("Anna", {"gold": 5, "silver": -1})
    with pytest.raises(InvalidInput, match="not at this table"):
        s.set_scores("Zoltán", {"gold": 1})
    s.set_scores("Anna", {})  # nothing to change: nothing logged
    assert len(list(store.events(s.id))) == logged and s.score_sheet["Anna"]["gold"] == 3


def test_session_play_log_is_undoable_and_survives_resume(store: Store, clock: FakeClock, bus: EventBus) -> None:
    s = start(store, clock, bus, Wall())
    s.record_play("volatio.reveal", {"dragon": "Anna", "speed": 400})
    clock.advance(3)
    s.record_play("volatio.crash", {"dragon": "Anna", "kind": "base"})
    s.undo()
    assert [(k, d) for k, d, _t in s.play_log] == [("volatio.reveal", {"dragon": "Anna", "speed": 400})]
    s.redo()
    again = TableSession.resume(store, s.id, clock, EventBus(), wall=Wall(), boot="boot-1")
    assert [k for k, _d, _t in again.play_log] == ["volatio.reveal", "volatio.crash"]
    assert again.play_log[1][2] == s.play_log[1][2] == 1003.0  # the move's monotonic time comes back
    with pytest.raises(InvalidInput, match="letters, digits"):
        s.record_play("bad kind!", {})


def test_session_table_mode_turns_panels_to_their_seats(store: Store, clock: FakeClock, bus: EventBus) -> None:
    s = TableSession.start(store, "drakon", [Player(n, "red") for n in "ABCD"], clock, bus, wall=Wall(), boot="b")
    assert s.panel_angles() == {"A": 0, "B": 0, "C": 0, "D": 0}
    s.set_seats("around")
    assert s.panel_angles() == {"A": 0, "B": 270, "C": 180, "D": 90}
    again = TableSession.resume(store, s.id, clock, EventBus(), wall=Wall(), boot="b")
    assert again.seats == "around"
    with pytest.raises(InvalidInput, match="'side' or 'around'"):
        s.set_seats("upside-down")
