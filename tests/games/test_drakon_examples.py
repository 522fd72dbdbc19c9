"""Drakon: the digest's worked examples as data, the rule book's constants and the readings."""

from __future__ import annotations

from typing import Any

import pytest

from companion.games import drakon
from companion.games.drakon import (
    AbilityCounter,
    Direction,
    Hero,
    Holdings,
    blocked_game_winners,
    is_alternating_seating,
    score_document,
    steal_target,
)
from tests.games.drakon_helpers import doc

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
