"""Drakon at the table: the play log folded into counts, heroes and the reveal; the sheet as a document."""

from __future__ import annotations

import logging
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.errors import InvalidInput
from companion.games import drakon
from companion.games.drakon import AbilityCounter, AbilityRefused, Hero
from companion.games.drakon.play import (
    DrakonPlay,
    check_coins,
    coins_of,
    deal,
    default_teams,
    fold,
    next_team,
    sheet_document,
    to_coins_text,
    winners,
)

PLAYERS = ("Anna", "Bence", "Csilla", "Dávid")


def play(*moves: tuple[str, dict[str, Any]]) -> list[tuple[str, dict[str, Any], float]]:
    """A session play log of Drakon moves (logged as ``drakon.<kind>``)."""
    return [("drakon." + kind, data, float(i)) for i, (kind, data) in enumerate(moves)]


KNIGHT_AND_THIEF = {"heroes": {"Anna": "knight", "Bence": "thief", "Csilla": "dwarf", "Dávid": "wizard"}}


# --- counts ------------------------------------------------------------------------------------


def test_fold_counts_start_at_zero_and_follow_the_log() -> None:
    state = fold(PLAYERS, play(("count", {"player": "Anna", "count": 3}), ("count", {"player": "Bence", "count": 1}),
                               ("count", {"player": "Anna", "count": 2})))
    assert state.counts == {"Anna": 2, "Bence": 1, "Csilla": 0, "Dávid": 0}


def test_count_beyond_the_box_is_refused() -> None:
    state = DrakonPlay.new(PLAYERS).apply("count", {"player": "Anna", "count": 20})
    with pytest.raises(InvalidInput, match="box's 28") as info:
        state.apply("count", {"player": "Bence", "count": 9})
    assert info.value.field == "counts"


def test_count_for_a_stranger_is_refused() -> None:
    with pytest.raises(InvalidInput, match="not at this table") as info:
        DrakonPlay.new(PLAYERS).apply("count", {"player": "Zoltán", "count": 1})
    assert info.value.value == "Zoltán"


def test_negative_count_is_refused() -> None:
    with pytest.raises(InvalidInput, match="negative"):
        DrakonPlay.new(PLAYERS).apply("count", {"player": "Anna", "count": -1})


# --- Heroes! -------------------------------------------------------------------------------------


def test_deal_gives_each_player_a_different_hero_and_an_unused_counter() -> None:
    state = DrakonPlay.new(PLAYERS).apply("heroes", deal(PLAYERS, random.Random(3)))
    assert sorted(state.heroes) == sorted(PLAYERS)
    assert len({c.hero for c in state.heroes.values()}) == 4
    assert not any(c.used for c in state.heroes.values())


def test_deal_is_the_same_for_the_same_seed_whatever_the_order() -> None:
    assert deal(PLAYERS, random.Random(9)) == deal(PLAYERS[::-1], random.Random(9))


def test_second_deal_is_refused() -> None:
    state = DrakonPlay.new(PLAYERS).apply("heroes", KNIGHT_AND_THIEF)
    with pytest.raises(InvalidInput, match="dealt already"):
        state.apply("heroes", KNIGHT_AND_THIEF)


def test_deal_with_one_hero_twice_is_refused() -> None:
    with pytest.raises(InvalidInput, match="each hero is dealt once"):
        DrakonPlay.new(("Anna", "Bence")).apply("heroes", {"heroes": {"Anna": "thief", "Bence": "thief"}})


def test_deal_with_a_hero_not_in_the_box_is_refused() -> None:
    with pytest.raises(InvalidInput) as info:
        DrakonPlay.new(("Anna", "Bence")).apply("heroes", {"heroes": {"Anna": "thief", "Bence": "paladin"}})
    assert info.value.field == "heroes.Bence"


def test_ability_is_used_once_then_refused() -> None:
    state = DrakonPlay.new(PLAYERS).apply("heroes", KNIGHT_AND_THIEF).apply("ability", {"player": "Bence"})
    assert state.heroes["Bence"] == AbilityCounter(Hero.THIEF, used=True)
    assert state.heroes["Anna"] == AbilityCounter(Hero.KNIGHT)
    with pytest.raises(AbilityRefused, match="once per game"):
        state.apply("ability", {"player": "Bence"})


def test_ability_before_the_deal_is_refused() -> None:
    with pytest.raises(InvalidInput, match="deal the heroes first"):
        DrakonPlay.new(PLAYERS).apply("ability", {"player": "Anna"})


# --- the reveal, and the log ---------------------------------------------------------------------


def test_reveal_happens_once() -> None:
    state = DrakonPlay.new(PLAYERS).apply("reveal", {})
    assert state.revealed
    with pytest.raises(InvalidInput, match="revealed already"):
        state.apply("reveal", {})


def test_unknown_move_is_refused() -> None:
    with pytest.raises(InvalidInput, match="not a Drakon move") as info:
        DrakonPlay.new(PLAYERS).apply("kill", {})
    assert info.value.field == "kind"


def test_fold_skips_a_move_that_no_longer_applies(caplog: pytest.LogCaptureFixture) -> None:
    log = play(("heroes", KNIGHT_AND_THIEF), ("ability", {"player": "Anna"}), ("ability", {"player": "Anna"}),
               ("reveal", {}))
    with caplog.at_level(logging.WARNING):
        state = fold(PLAYERS, log)
    assert state.revealed and state.heroes["Anna"].used
    assert [r.levelname for r in caplog.records] == ["WARNING"]


# --- the sheet as a `companion score drakon` document --------------------------------------------


def test_sheet_document_gives_every_player_coins_and_drops_other_fields() -> None:
    raw = {"players": {"Anna": {"coins": [3, 2], "silver": 4}, "Bence": {"escaped": True}}}
    doc = sheet_document(raw, ["Anna", "Bence", "Csilla"])
    assert doc == {"variant": "standard", "players": {"Anna": {"coins": [3, 2]},
                                                      "Bence": {"escaped": True, "coins": []},
                                                      "Csilla": {"coins": []}}}
    assert drakon.score_document(doc)["totals"] == {"Anna": 5, "Bence": 0, "Csilla": 0}


def test_sheet_document_keeps_the_variant_and_teams() -> None:
    raw = {"variant": "team", "players": {n: {"coins": [3], "team": t} for n, t in default_teams(PLAYERS).items()}}
    doc = sheet_document(raw, PLAYERS)
    assert doc["variant"] == "team"
    assert drakon.score_document(doc)["team_totals"] == {"A": 6, "B": 6}


def test_coins_of_a_player_without_values_is_empty() -> None:
    doc = sheet_document({"players": {"Anna": {"coins": [1, 3]}}}, PLAYERS)
    assert coins_of(doc, "Anna") == [1, 3] and coins_of(doc, "Bence") == []


def test_check_coins_refuses_more_than_the_box_quoting_only_a_count() -> None:
    doc = sheet_document({"players": {"Anna": {"coins": [3] * 20}}}, PLAYERS)
    check_coins(doc, "Bence", [2] * 8)
    with pytest.raises(InvalidInput) as info:
        check_coins(doc, "Bence", [2] * 9)
    assert info.value.value == 29 and "[3" not in str(info.value)


def test_check_coins_refuses_a_value_no_coin_has() -> None:
    with pytest.raises(InvalidInput, match="worth 1, 2 or 3"):
        check_coins(sheet_document({}, PLAYERS), "Anna", [4])


# --- teams, winners, text -----------------------------------------------------------------------


@pytest.mark.parametrize("players", [PLAYERS, (*PLAYERS, "Erzsébet", "Ferenc")])
def test_default_teams_are_pairs_that_alternate_round_the_table(players: tuple[str, ...]) -> None:
    teams = default_teams(players)
    assert drakon.is_alternating_seating([teams[p] for p in players])
    drakon.check_teams({p: drakon.Holdings(team=t) for p, t in teams.items()})


def test_next_team_goes_round_the_teams_there_are() -> None:
    assert [next_team(t, 4) for t in ("A", "B", None)] == ["B", "A", "A"]
    assert [next_team(t, 6) for t in ("A", "B", "C")] == ["B", "C", "A"]


def test_winners_are_who_holds_the_goal_else_the_leaders() -> None:
    assert winners({"goal_reached": ["B"], "leaders": ["A"]}) == ["B"]
    assert winners({"goal_reached": [], "leaders": ["A", "C"]}) == ["A", "C"]


def test_coins_text_shows_the_values_highest_first() -> None:
    assert to_coins_text([1, 3, 2, 3]) == "3 · 3 · 2 · 1"
    assert to_coins_text([]) == ""


# --- properties ----------------------------------------------------------------------------------

moves = st.one_of(
    st.tuples(st.just("count"), st.fixed_dictionaries({"player": st.sampled_from(PLAYERS),
                                                       "count": st.integers(0, 30)})),
    st.tuples(st.just("ability"), st.fixed_dictionaries({"player": st.sampled_from(PLAYERS)})),
    st.tuples(st.just("heroes"), st.builds(lambda seed: deal(PLAYERS, random.Random(seed)), st.integers(0, 99))),
    st.tuples(st.just("reveal"), st.just({})),
)


@pytest.mark.slow
@given(st.lists(moves, max_size=30))
def test_checked_moves_keep_the_box_and_use_each_counter_once(log: list[tuple[str, dict[str, Any]]]) -> None:
    state, uses = DrakonPlay.new(PLAYERS), 0
    for kind, data in log:
        try:
            state = state.apply(kind, data)
        except (InvalidInput, AbilityRefused):
            continue
        uses += kind == "ability"
    assert sum(state.counts.values()) <= drakon.COINS_IN_BOX
    assert uses == sum(c.used for c in state.heroes.values()) <= len(PLAYERS)
    assert fold(PLAYERS, play(*log)) == state  # the fold is the same checks, skipping refusals


def test_fold_ignores_other_games_moves_without_a_word(caplog: pytest.LogCaptureFixture) -> None:
    log = [("dg.place", {"slot": 0}, 1.0), *play(("count", {"player": "Anna", "count": 2}))]
    with caplog.at_level(logging.WARNING):
        state = fold(PLAYERS, log)
    assert state.counts["Anna"] == 2 and caplog.records == []
