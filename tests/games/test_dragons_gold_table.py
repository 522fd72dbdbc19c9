from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import InvalidInput
from companion.games.dragons_gold.play import BAG_SIZE, TableState, play
from companion.games.dragons_gold.play import fold as fold_log


def fold(moves: list[tuple[str, dict]], rules: str | None = None) -> TableState:
    """The table after *moves* logged as the screen logs them, with another game's move between."""
    log = [("dg." + kind, data, float(t)) for t, (kind, data) in enumerate(moves)]
    return fold_log(["P1", "P2", "P3"], [("volatio.reveal", {"player": "P1"}, -1.0), *log], rules=rules)


def opening() -> list[tuple[str, dict]]:
    return [("reveal", {"slot": i, "strength": 9, "known": 3, "hidden": 2}) for i in range(4)]


def test_table_opening_draws_known_treasure_from_the_bag() -> None:
    state = fold(opening())
    assert state.bag == BAG_SIZE - 12 and state.revealed == 4 and not state.can_reveal


def test_table_example_5_kill_share_and_timeout() -> None:
    moves = opening() + [("place", {"slot": 0, "player": p, "role": r, "strength": s}) for p, r, s in
                         [("P1", "wizard", 2), ("P2", "thief", 1), ("P3", "knight", 4), ("P1", "thief", 1),
                          ("P2", "knight", 3)]]
    state = fold(moves)
    assert state.slots[0].dragon is not None and state.slots[0].dragon.is_dead
    state = play(state, "kill", {"slot": 0, "hidden_drawn": 2, "red": 2})
    assert state.bag == BAG_SIZE - 14
    sharing = state.sharing(0)
    assert sharing.needs_negotiation and sharing.red_to_wizard == "P1" and sharing.red_taken == 2
    assert [t.thief_of for t in sharing.thefts] == ["P2", "P1"]
    state = play(state, "shared", {"slot": 0, "outcome": "timeout"})
    assert state.removed == 3 and state.slots[0].is_empty and state.can_reveal  # the wizard kept 2 reds


def test_table_market_due_after_seven_dragons_from_the_deck() -> None:
    state = fold(opening())
    for _n in range(7):
        state = play(state, "place", {"slot": 0, "player": "A", "role": "knight", "strength": 9})
        state = play(state, "kill", {"slot": 0, "hidden_drawn": 0, "red": 0})
        state = play(state, "shared", {"slot": 0, "outcome": "solo"})
        assert not state.is_market_due
        state = play(state, "reveal", {"slot": 0, "strength": 9, "known": 1, "hidden": 0})
    state = play(state, "place", {"slot": 0, "player": "A", "role": "knight", "strength": 9})
    state = play(state, "kill", {"slot": 0, "hidden_drawn": 0, "red": 0})
    state = play(state, "shared", {"slot": 0, "outcome": "solo"})
    assert state.is_market_due and not state.can_reveal
    state = play(state, "market", {})
    assert state.can_reveal


def test_table_end_phase_no_hidden_no_reveal() -> None:
    state = fold([("reveal", {"slot": 0, "strength": 5, "known": 126, "hidden": 3})])
    assert state.is_end_phase and not state.can_reveal
    state = play(state, "place", {"slot": 0, "player": "A", "role": "knight", "strength": 5})
    state = play(state, "kill", {"slot": 0, "hidden_drawn": 3, "red": 0})
    assert state.slots[0].treasure_discs == 126  # no hidden treasure in the end phase
    state = play(state, "shared", {"slot": 0, "outcome": "solo"})
    assert state.is_over


@pytest.mark.parametrize(("kind", "data", "field"), [
    ("place", {"slot": 0, "player": "A", "role": "knight", "strength": 3}, "slot"),
    ("reveal", {"slot": 7, "strength": 3, "known": 1, "hidden": 1}, "slot"),
    ("reveal", {"slot": 0, "strength": -3, "known": 1, "hidden": 1}, "strength"),
    ("kill", {"slot": 0, "hidden_drawn": 0, "red": 0}, "slot"),
    ("fly", {}, "move"),
])
def test_table_refuses_moves_that_cannot_happen(kind: str, data: dict, field: str) -> None:
    with pytest.raises(InvalidInput) as info:
        play(fold([]), kind, data)
    assert info.value.field == field


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=1, max_size=40))
def test_table_bag_never_goes_below_zero_and_counts_every_disc(knowns: list[int]) -> None:
    state = fold([])
    drawn = 0
    for k in knowns:
        if not state.can_reveal:
            break
        before = state.bag
        state = play(state, "reveal", {"slot": 0, "strength": 3, "known": k, "hidden": 1})
        drawn += before - state.bag
        state = play(state, "place", {"slot": 0, "player": "A", "role": "knight", "strength": 3})
        before = state.bag
        state = play(state, "kill", {"slot": 0, "hidden_drawn": 1, "red": 0})
        drawn += before - state.bag
        state = play(state, "shared", {"slot": 0, "outcome": "solo"})
        if state.is_market_due:
            state = play(state, "market", {})
    assert state.bag >= 0 and state.bag + drawn == BAG_SIZE


def test_a_refused_move_in_the_log_is_skipped_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    moves = opening() + [("reveal", {"slot": 0, "strength": 9, "known": 3, "hidden": 2})]  # slot 0 is taken
    with caplog.at_level("WARNING"):
        state = fold(moves)
    assert state == fold(opening())
    assert any("dg.reveal" in r.getMessage() and "skipped" in r.getMessage() for r in caplog.records)


def test_the_sessions_rules_reach_the_fold() -> None:
    assert fold([], rules="advanced").rules.value == "advanced"
    assert fold([]).rules.value == "simple"
