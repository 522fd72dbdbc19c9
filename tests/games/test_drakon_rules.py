"""Drakon: the variants, the blocked game, seating and steals, holdings, the Heroes! counters."""

from __future__ import annotations

import random

import pytest

from companion.errors import InvalidInput
from companion.games import drakon
from companion.games.drakon import (
    AbilityCounter,
    AbilityRefused,
    Direction,
    Hero,
    Holdings,
    blocked_game_winners,
    check_coin_supply,
    deal_heroes,
    goal_reached,
    is_alternating_seating,
    score_document,
    seating_plan,
    steal_target,
    team_pools,
)
from tests.games.drakon_helpers import doc

# --- Variants --------------------------------------------------------------------------------


def test_standard_nine_gold_has_not_won() -> None:
    assert score_document(doc("standard", P1=[3, 3, 3], P2=[]))["goal_reached"] == []


def test_standard_variant_is_the_default() -> None:
    assert score_document({"players": {"P1": {"coins": [3, 3, 3, 1]}, "P2": {"coins": []}}})[
        "goal_reached"] == ["P1"]


def test_escape_eight_gold_and_escaped_wins() -> None:
    out = score_document(doc("escape", P1={"coins": [3, 3, 2], "escaped": True}, P2=[1]))
    assert out["goal_reached"] == ["P1"]


def test_escape_eight_gold_still_inside_has_not_won() -> None:
    assert score_document(doc("escape", P1={"coins": [3, 3, 2], "escaped": False}, P2=[]))[
        "goal_reached"] == []


def test_escape_ten_gold_without_leaving_has_not_won() -> None:
    assert score_document(doc("escape", P1=[3, 3, 3, 1], P2=[]))["goal_reached"] == []


def test_escape_escaped_with_seven_gold_has_not_won() -> None:
    out = score_document(doc("escape", P1={"coins": [3, 3, 1], "escaped": True}, P2=[]))
    assert out["goal_reached"] == []


def test_escape_escaped_defaults_to_false() -> None:
    assert drakon.parse_document(doc("escape", P1=[3], P2=[])).players["P1"].escaped is False


def test_team_variant_six_players_three_teams() -> None:
    out = score_document(doc("team", **{f"{t}{i}": {"coins": [3, 3, 3, 1] if t == "C" else [1], "team": t}
                                        for t in "ABC" for i in (1, 2)}))
    assert (out["team_totals"], out["goal_reached"], out["leaders"]) == (
        {"A": 2, "B": 2, "C": 20}, ["C"], ["C"])


def test_team_variant_leaders_are_teams() -> None:
    out = score_document(doc("team", Ann={"coins": [3, 3], "team": "Red"},
                             Bob={"coins": [3, 3, 1], "team": "Blue"},
                             Cid={"coins": [3, 3], "team": "Red"}, Dot={"coins": [], "team": "Blue"}))
    assert out["leaders"] == ["Red"]


def test_team_pools_take_members_coins_together() -> None:
    players = {"A1": Holdings((1, 3), team="A"), "A2": Holdings((2,), team="A")}
    assert team_pools(players) == {"A": Holdings((1, 2, 3), team="A")}


def test_five_coins_counts_coins_not_gold() -> None:
    assert drakon.has_five_coins(Holdings((1,) * 5)) and not drakon.has_five_coins(Holdings((3,) * 4))


def test_team_totals_absent_outside_team_variant() -> None:
    assert "team_totals" not in score_document(doc("standard", P1=[1], P2=[2]))


def test_score_document_lists_names_sorted() -> None:
    out = score_document(doc("standard", Zoe=[3, 3, 3, 1], Amy=[3, 3, 3, 1], Max=[]))
    assert (list(out["totals"]), out["goal_reached"], out["leaders"]) == (
        ["Amy", "Max", "Zoe"], ["Amy", "Zoe"], ["Amy", "Zoe"])


def test_score_document_accepts_whole_floats_as_coins() -> None:
    assert score_document(doc("standard", P1=[2.0], P2=[]))["totals"]["P1"] == 2


def test_score_document_accepts_escaped_false_in_any_variant() -> None:
    assert score_document(doc("standard", P1={"coins": [1], "escaped": False}, P2=[]))["totals"]["P1"] == 1


def test_goal_reached_lists_every_side_holding_the_goal() -> None:
    players = {"P1": Holdings((3, 3, 3, 1)), "P2": Holdings((3, 3, 3, 3)), "P3": Holdings()}
    assert goal_reached(drakon.VARIANTS["standard"], players) == ["P1", "P2"]


# --- The blocked game -------------------------------------------------------------------------


def test_blocked_game_tie_shares_the_win() -> None:
    sides = {"P1": Holdings((3, 1)), "P2": Holdings((2, 2)), "P3": Holdings((1,))}
    assert blocked_game_winners(sides) == ["P1", "P2"]


def test_blocked_game_tie_without_sharing_has_no_winner() -> None:
    sides = {"P1": Holdings((3, 1)), "P2": Holdings((2, 2))}
    assert blocked_game_winners(sides, ties_share=False) == []


def test_blocked_game_single_leader_wins_without_sharing() -> None:
    sides = {"P1": Holdings((3, 1)), "P2": Holdings((2,))}
    assert blocked_game_winners(sides, ties_share=False) == ["P1"]


def test_blocked_game_with_no_coins_at_all_is_a_tie() -> None:
    assert score_document(doc("standard", P1=[], P2=[]))["leaders"] == ["P1", "P2"]


# --- Seating and steals ------------------------------------------------------------------------


def test_seating_six_players_strict_rotation_alternates() -> None:
    assert is_alternating_seating(["B", "C", "A", "B", "C", "A"])


def test_seating_abacbc_fails_strict_reading() -> None:
    assert not is_alternating_seating(["A", "B", "A", "C", "B", "C"])


def test_seating_abacbc_passes_loose_reading() -> None:
    assert is_alternating_seating(["A", "B", "A", "C", "B", "C"], strict=False)


def test_seating_teammates_side_by_side_fail_loose_reading() -> None:
    assert not is_alternating_seating(["A", "A", "B", "B"], strict=False)


def test_seating_one_team_does_not_alternate() -> None:
    assert not is_alternating_seating(["A", "A"])


def test_seating_plan_interleaves_teams() -> None:
    assert seating_plan({"B": ["Bob", "Bea"], "A": ["Ann", "Al"]}) == ["Al", "Bea", "Ann", "Bob"]


def test_seating_plan_refuses_unequal_teams() -> None:
    with pytest.raises(InvalidInput, match=r"^teams\.B: "):
        seating_plan({"A": ["Al", "Ann"], "B": ["Bob"]})


def test_steal_counter_clockwise_takes_previous_seat() -> None:
    assert steal_target(["P1", "P2", "P3"], "P1", Direction.COUNTER_CLOCKWISE) == "P3"


def test_steal_target_refuses_unseated_thief() -> None:
    with pytest.raises(InvalidInput, match=r"^thief: .*'Zed'"):
        steal_target(["P1", "P2"], "Zed", Direction.CLOCKWISE)


def test_steal_target_refuses_a_table_of_one() -> None:
    with pytest.raises(InvalidInput, match=r"^seating: "):
        steal_target(["P1"], "P1", Direction.CLOCKWISE)


# --- Holdings and the coin supply ----------------------------------------------------------------


def test_holdings_refuse_a_coin_worth_four() -> None:
    with pytest.raises(InvalidInput, match=r"^coins\[1\]: .*\(got 4\)"):
        Holdings((1, 4))


def test_holdings_refuse_an_empty_team_name() -> None:
    with pytest.raises(InvalidInput, match=r"^team: "):
        Holdings(team=" ")


def test_holdings_without_coin_refuses_a_value_not_held() -> None:
    with pytest.raises(InvalidInput, match=r"^coin: .*\(got 3\)"):
        Holdings((1, 2)).without_coin(3)


def test_holdings_without_coin_removes_one_of_that_value() -> None:
    assert Holdings((2, 1, 2)).without_coin(2) == Holdings((1, 2))


def test_coin_supply_checks_each_value_when_the_split_is_known() -> None:
    players = {"P1": Holdings((3, 3)), "P2": Holdings((3,))}
    with pytest.raises(InvalidInput, match=r"worth 3 .*\(got 3\)"):
        check_coin_supply(players, coins_by_value={1: 20, 2: 6, 3: 2})


def test_coin_supply_accepts_exactly_the_box() -> None:
    check_coin_supply({"P1": Holdings((1,) * 14), "P2": Holdings((1,) * 14)})


# --- Heroes! counters ------------------------------------------------------------------------------


def test_ability_counter_use_sets_it_aside() -> None:
    assert AbilityCounter(Hero.AMAZON).use() == AbilityCounter(Hero.AMAZON, used=True)


def test_ability_counter_refuses_a_second_use() -> None:
    with pytest.raises(AbilityRefused, match="used already"):
        AbilityCounter(Hero.WIZARD).use().use()


def test_ability_counter_refuses_off_turn_use_of_a_non_knight() -> None:
    with pytest.raises(AbilityRefused, match="own turn"):
        AbilityCounter(Hero.THIEF).use(on_own_turn=False)


def test_ability_counter_knight_may_react_on_another_turn() -> None:
    assert AbilityCounter(Hero.KNIGHT).use(on_own_turn=False).used


def test_ability_refused_is_a_runtime_error() -> None:
    assert issubclass(AbilityRefused, RuntimeError)


def test_deal_heroes_gives_distinct_heroes() -> None:
    dealt = deal_heroes(["P1", "P2", "P3", "P4", "P5", "P6"], random.Random(7))
    assert {c.hero for c in dealt.values()} == set(Hero) and not any(c.used for c in dealt.values())


def test_deal_heroes_ignores_the_order_of_names() -> None:
    assert deal_heroes(["Ann", "Bob", "Cid"], random.Random(1)) == deal_heroes(
        ["Cid", "Ann", "Bob"], random.Random(1))


def test_deal_heroes_refuses_seven_players() -> None:
    with pytest.raises(InvalidInput, match=r"^players: .*\(got 7\)"):
        deal_heroes([f"P{i}" for i in range(7)], random.Random(0))
