"""Drakon: the score document's bad input, and properties."""

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
    Hero,
    Holdings,
    is_alternating_seating,
    score_document,
    seating_plan,
    team_totals,
)
from tests.games.drakon_helpers import doc


def refusal(document: Any) -> InvalidInput:
    with pytest.raises(InvalidInput) as info:
        score_document(document)
    return info.value


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
