"""Drakon: the digest's worked examples as data, every variant and reading, bad input, and properties."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

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
    team_totals,
)


def doc(variant: str, **players: Any) -> dict[str, Any]:
    """A score document; each player is a coin list, or a dict of fields."""
    return {"variant": variant,
            "players": {n: p if isinstance(p, dict) else {"coins": p} for n, p in players.items()}}


def refusal(document: Any) -> InvalidInput:
    with pytest.raises(InvalidInput) as info:
        score_document(document)
    return info.value


# --- The digest's worked examples (§6), as data ----------------------------------------------

# (example, document, expected answer)
WORKED_EXAMPLES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("1: 8 gold, no win yet", doc("standard", P1=[3, 2, 2, 1], P2=[1]),
     {"totals": {"P1": 8, "P2": 1}, "goal_reached": [], "leaders": ["P1"]}),
    ("1: drew a 2, 10 gold wins", doc("standard", P1=[3, 2, 2, 1, 2], P2=[1]),
     {"totals": {"P1": 10, "P2": 1}, "goal_reached": ["P1"], "leaders": ["P1"]}),
    ("1: drew a 3, 11 gold wins too", doc("standard", P1=[3, 2, 2, 1, 3], P2=[1]),
     {"totals": {"P1": 11, "P2": 1}, "goal_reached": ["P1"], "leaders": ["P1"]}),
    ("3: blocked game, by value P2", doc("standard", P1=[1, 1, 2, 2], P2=[3, 3, 2], P3=[1, 2, 2, 2]),
     {"totals": {"P1": 6, "P2": 8, "P3": 7}, "goal_reached": [], "leaders": ["P2"]}),
    ("4: before the steal", doc("team", A1={"coins": [3, 3, 3], "team": "A"},
                                A2={"coins": [3, 3, 2], "team": "A"},
                                B1={"coins": [3, 3, 3], "team": "B"},
                                B2={"coins": [3, 3, 2, 2], "team": "B"}),
     {"totals": {"A1": 9, "A2": 8, "B1": 9, "B2": 10}, "team_totals": {"A": 17, "B": 19},
      "goal_reached": [], "leaders": ["B"]}),
    ("4: A2 steals a 3, team A wins", doc("team", A1={"coins": [3, 3, 3], "team": "A"},
                                          A2={"coins": [3, 3, 2, 3], "team": "A"},
                                          B1={"coins": [3, 3, 3], "team": "B"},
                                          B2={"coins": [3, 2, 2], "team": "B"}),
     {"totals": {"A1": 9, "A2": 11, "B1": 9, "B2": 7}, "team_totals": {"A": 20, "B": 16},
      "goal_reached": ["A"], "leaders": ["A"]}),
    ("4: A2 steals a 2, play goes on", doc("team", A1={"coins": [3, 3, 3], "team": "A"},
                                           A2={"coins": [3, 3, 2, 2], "team": "A"},
                                           B1={"coins": [3, 3, 3], "team": "B"},
                                           B2={"coins": [3, 3, 2], "team": "B"}),
     {"totals": {"A1": 9, "A2": 10, "B1": 9, "B2": 8}, "team_totals": {"A": 19, "B": 17},
      "goal_reached": [], "leaders": ["A"]}),
    ("5: five small coins win", doc("five-coins", P1=[1, 1, 1, 1, 2], P2=[3, 3, 3, 3]),
     {"totals": {"P1": 6, "P2": 12}, "goal_reached": ["P1"], "leaders": ["P2"]}),
    ("5: four coins worth 12 have not won", doc("five-coins", P1=[1, 1, 1, 1], P2=[3, 3, 3, 3]),
     {"totals": {"P1": 4, "P2": 12}, "goal_reached": [], "leaders": ["P2"]}),
]


@pytest.mark.parametrize(("example", "document", "expected"), WORKED_EXAMPLES,
                         ids=[e[0] for e in WORKED_EXAMPLES])
def test_score_document_answers_worked_example(example: str, document: dict[str, Any],
                                               expected: dict[str, Any]) -> None:
    assert score_document(document) == expected


@pytest.mark.parametrize(("drawn", "gold"), [(2, 10), (3, 11)])
def test_example1_find_a_coin_wins_at_once(drawn: int, gold: int) -> None:
    after = Holdings((3, 2, 2, 1)).with_coin(drawn)
    assert (after.gold, drakon.has_ten_gold(after)) == (gold, True)


def test_example2_drakon_strikes_twice_costs_two_coins() -> None:
    p2 = Holdings((3, 2, 1))
    p2 = p2.without_coin(2)            # first strike, in the room with P3
    p2 = p2.without_coin(1)            # second strike, already in the Start Room: coin only
    assert p2.count == 1


def test_example2_knight_keeps_the_coin_and_spends_the_counter() -> None:
    p3, knight = Holdings((2, 1)), AbilityCounter(Hero.KNIGHT)
    knight = knight.use(on_own_turn=False)    # P1's turn: the Knight reacts before the reveal
    assert (p3.gold, knight.can_use(on_own_turn=False)) == (3, False)


def test_example3_literal_count_ties_p1_and_p3() -> None:
    sides = {"P1": Holdings((1, 1, 2, 2)), "P2": Holdings((3, 3, 2)), "P3": Holdings((1, 2, 2, 2))}
    assert blocked_game_winners(sides, measure="coins") == ["P1", "P3"]


def test_example4_seating_alternates() -> None:
    assert is_alternating_seating(["A", "B", "A", "B"])


def test_example4_a2_steals_clockwise_from_b2() -> None:
    assert steal_target(["A1", "B1", "A2", "B2"], "A2", Direction.CLOCKWISE) == "B2"


def test_example5_fifth_coin_wins() -> None:
    four = Holdings((1, 1, 1, 1))
    assert (drakon.has_five_coins(four), drakon.has_five_coins(four.with_coin(2))) == (False, True)


def test_example6_two_players_steal_from_the_same_opponent() -> None:
    seating = ["P1", "P2"]
    assert {steal_target(seating, "P1", d) for d in Direction} == {"P2"}


# --- Constants from the rule book, and the readings ------------------------------------------


def test_box_holds_28_coins_worth_1_to_3() -> None:
    assert (drakon.COIN_VALUES, drakon.COINS_IN_BOX) == ((1, 2, 3), 28)


def test_box_split_by_value_is_unknown() -> None:
    assert drakon.COINS_BY_VALUE is None


def test_goals_match_the_rule_book() -> None:
    assert (drakon.STANDARD_GOAL_GOLD, drakon.ESCAPE_GOAL_GOLD, drakon.TEAM_GOAL_GOLD,
            drakon.FIXED_STAKE_COINS) == (10, 8, 20, 5)


def test_player_count_reading_is_two_to_six() -> None:
    assert (drakon.MIN_PLAYERS, drakon.MAX_PLAYERS, drakon.HERO_COUNT) == (2, 6, 6)


def test_blocked_game_reading_counts_gold_and_shares_ties() -> None:
    assert (drakon.BLOCKED_GAME_MEASURE, drakon.BLOCKED_GAME_TIES_SHARE) == ("gold", True)


def test_seating_reading_is_strict_rotation() -> None:
    assert drakon.SEATING_IS_STRICT_ROTATION is True


def test_knight_reading_reacts_on_any_turn() -> None:
    assert drakon.KNIGHT_REACTS_ON_ANY_TURN is True


def test_reactive_heroes_are_the_knight_only() -> None:
    assert sorted(drakon.REACTIVE_HEROES) == [Hero.KNIGHT]


def test_variants_registry_names_the_cli_variants() -> None:
    assert list(drakon.VARIANTS) == ["standard", "escape", "team", "five-coins"]


def test_heroes_are_the_six_of_the_rule_book() -> None:
    assert set(drakon.HERO_ABILITIES) == set(Hero) and len(Hero) == drakon.HERO_COUNT


def test_game_info_registers_drakon() -> None:
    game = drakon.GAME
    assert (game.key, game.min_players, game.max_players, game.score_document) == (
        "drakon", 2, 6, score_document)


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


# --- Bad input -------------------------------------------------------------------------------------

BAD_DOCUMENTS: list[tuple[str, Any, str, str]] = [
    # (case, document, field named, value quoted)
    ("document not an object", [1, 2], "document", "[1, 2]"),
    ("unknown root field", {"players": {}, "varient": "team"}, "varient", "'team'"),
    ("players missing", {"variant": "standard"}, "players", "None"),
    ("unknown variant", doc("blitz", P1=[], P2=[]), "variant", "'blitz'"),
    ("variant not a string", {"variant": 3, "players": {}}, "variant", "3"),
    ("one player", doc("standard", P1=[]), "players", "1"),
    ("seven players", doc("standard", **{f"P{i}": [] for i in range(7)}), "players", "7"),
    ("team game of 5", doc("team", **{f"P{i}": {"coins": [], "team": "AB"[i % 2]} for i in range(5)}),
     "players", "5"),
    ("team game of 2", doc("team", P1={"coins": [], "team": "A"}, P2={"coins": [], "team": "B"}),
     "players", "2"),
    ("player not an object", {"players": {"P1": 5, "P2": {"coins": []}}}, "players.P1", "5"),
    ("unknown player field", doc("standard", P1={"coins": [], "gold": 3}, P2=[]), "players.P1.gold", "3"),
    ("coins missing", doc("standard", P1={}, P2=[]), "players.P1.coins", "None"),
    ("coins not a list", doc("standard", P1={"coins": 7}, P2=[]), "players.P1.coins", "7"),
    ("coin worth 0", doc("standard", P1=[1, 0], P2=[]), "players.P1.coins[1]", "0"),
    ("coin worth 4", doc("standard", P1=[], P2=[4]), "players.P2.coins[0]", "4"),
    ("negative coin", doc("standard", P1=[2, 2, -1], P2=[]), "players.P1.coins[2]", "-1"),
    ("fractional coin", doc("standard", P1=[1.5], P2=[]), "players.P1.coins[0]", "1.5"),
    ("coin as text", doc("standard", P1=["2"], P2=[]), "players.P1.coins[0]", "'2'"),
    ("coin as boolean", doc("standard", P1=[True], P2=[]), "players.P1.coins[0]", "True"),
    ("more coins than the box", doc("standard", P1=[1] * 15, P2=[2] * 14), "players", "29"),
    ("escaped not a boolean", doc("escape", P1={"coins": [], "escaped": "yes"}, P2=[]),
     "players.P1.escaped", "'yes'"),
    ("team missing in the team variant", doc("team", P1={"coins": [], "team": "A"},
                                             P2={"coins": [], "team": "A"}, P3={"coins": [], "team": "B"},
                                             P4={"coins": []}), "players.P4.team", "None"),
    ("team not a string", doc("team", P1={"coins": [], "team": 1}, P2={"coins": [], "team": 1},
                              P3={"coins": [], "team": 2}, P4={"coins": [], "team": 2}),
     "players.P1.team", "1"),
    ("empty team name", doc("team", P1={"coins": [], "team": ""}, P2={"coins": [], "team": "A"},
                            P3={"coins": [], "team": "B"}, P4={"coins": [], "team": "B"}),
     "players.P1.team", "''"),
    ("team of three", doc("team", P1={"coins": [], "team": "A"}, P2={"coins": [], "team": "A"},
                          P3={"coins": [], "team": "A"}, P4={"coins": [], "team": "B"}),
     "players.P3.team", "'A'"),
    ("everyone on one team", doc("team", **{f"P{i}": {"coins": [], "team": "A"} for i in range(4)}),
     "players.P3.team", "'A'"),
    ("three teams of four players", doc("team", P1={"coins": [], "team": "A"}, P2={"coins": [], "team": "A"},
                                        P3={"coins": [], "team": "B"}, P4={"coins": [], "team": "C"}),
     "players.P3.team", "'B'"),
]


@pytest.mark.parametrize(("case", "document", "field", "quoted"), BAD_DOCUMENTS,
                         ids=[b[0] for b in BAD_DOCUMENTS])
def test_score_document_refusal_names_the_field_and_quotes_the_value(
        case: str, document: Any, field: str, quoted: str) -> None:
    error = refusal(document)
    assert (error.field, str(error).startswith(f"{field}: "), f"(got {quoted})" in str(error)) == (
        field, True, True)


def test_score_document_unknown_field_suggests_the_closest() -> None:
    assert "did you mean 'coins'" in str(refusal(doc("standard", P1={"coin": [1]}, P2=[])))


def test_score_document_unknown_variant_lists_the_known_ones() -> None:
    assert "'five-coins'" in str(refusal(doc("fixed", P1=[], P2=[])))


def test_score_document_fields_of_other_variants_are_read_and_ignored() -> None:
    """The contract's player object carries coins, escaped and team whatever the variant."""
    out = drakon.score_document(doc("standard", P1={"coins": [3, 3, 3, 1], "team": "A", "escaped": True},
                                    P2={"coins": [2], "team": "B", "escaped": False}))
    assert out == {"totals": {"P1": 10, "P2": 2}, "goal_reached": ["P1"], "leaders": ["P1"]}
    assert refusal(doc("standard", P1={"coins": [], "escaped": "yes"}, P2=[])).field == "players.P1.escaped"


# --- Properties -------------------------------------------------------------------------------------

NAMES = ["Ann", "Bob", "Cid", "Dot", "Eve", "Fay", "Gus"]
coin_lists = st.lists(st.sampled_from([1, 2, 3]), max_size=4)   # 6 players x 4 <= 28: always in the box


@st.composite
def documents(draw: st.DrawFn, variant: str | None = None) -> dict[str, Any]:
    variant = variant or draw(st.sampled_from(list(drakon.VARIANTS)))
    n = draw(st.sampled_from([4, 6])) if variant == "team" else draw(st.integers(2, 6))
    names = draw(st.permutations(NAMES))[:n]
    teams = draw(st.permutations(["A", "B", "C"][: n // 2] * 2))
    players: dict[str, Any] = {}
    for i, name in enumerate(names):
        player: dict[str, Any] = {"coins": draw(coin_lists)}
        if variant == "team":
            player["team"] = teams[i]
        if variant == "escape":
            player["escaped"] = draw(st.booleans())
        players[name] = player
    return {"variant": variant, "players": players}


@pytest.mark.slow
@given(documents(), st.randoms(use_true_random=False))
def test_score_document_ignores_player_order(document: dict[str, Any], rng: random.Random) -> None:
    items = list(document["players"].items())
    rng.shuffle(items)
    shuffled = {"variant": document["variant"], "players": dict(items)}
    assert json.dumps(score_document(shuffled)) == json.dumps(score_document(document))


@pytest.mark.slow
@given(documents())
def test_score_document_totals_are_sums_of_coins(document: dict[str, Any]) -> None:
    totals = score_document(document)["totals"]
    assert totals == {name: sum(p["coins"]) for name, p in document["players"].items()}


@pytest.mark.slow
@given(documents("team"))
def test_score_document_team_totals_are_sums_of_members(document: dict[str, Any]) -> None:
    out = score_document(document)
    expected: dict[str, int] = {}
    for name, p in document["players"].items():
        expected[p["team"]] = expected.get(p["team"], 0) + out["totals"][name]
    assert out["team_totals"] == expected


@pytest.mark.slow
@given(documents())
def test_score_document_leaders_hold_the_most_gold(document: dict[str, Any]) -> None:
    out = score_document(document)
    gold = out.get("team_totals", out["totals"])
    assert out["leaders"] == sorted(n for n, g in gold.items() if g == max(gold.values()))


@given(coin_lists, st.sampled_from([1, 2, 3]), st.sampled_from(list(drakon.VARIANTS)), st.booleans())
def test_goal_adding_a_coin_never_unreaches_it(coins: list[int], extra: int, variant: str,
                                               escaped: bool) -> None:
    goal, before = drakon.VARIANTS[variant].goal, Holdings(tuple(coins) * 2, escaped=escaped)
    assert not goal(before) or goal(before.with_coin(extra))


@pytest.mark.slow
@given(st.lists(st.tuples(st.sampled_from(["A", "B", "C"]), coin_lists), min_size=1, max_size=6))
def test_team_totals_sum_members(members: list[tuple[str, list[int]]]) -> None:
    players = {f"P{i}": Holdings(tuple(c), team=t) for i, (t, c) in enumerate(members)}
    expected: dict[str, int] = {}
    for team, coins in members:
        expected[team] = expected.get(team, 0) + sum(coins)
    assert team_totals(players) == expected


@given(st.integers(2, 3), st.integers(1, 3))
def test_seating_plan_always_alternates(n_teams: int, size: int) -> None:
    teams = {t: [f"{t}{i}" for i in range(size)] for t in "ABC"[:n_teams]}
    assert is_alternating_seating([name[0] for name in seating_plan(teams)])


@given(st.sampled_from(list(Hero)), st.booleans())
def test_ability_counter_second_use_always_refused(hero: Hero, on_own_turn: bool) -> None:
    with pytest.raises(AbilityRefused):
        AbilityCounter(hero, used=True).use(on_own_turn=on_own_turn)
