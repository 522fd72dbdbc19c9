from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import InvalidInput
from companion.games import dragons_gold as dg
from companion.games.dragons_gold import (
    BOX,
    GEMS,
    Attacker,
    Disc,
    Dragon,
    DragonInPlay,
    Hoard,
    MarketCard,
    Role,
    Rules,
    Team,
    TreasureBag,
    new_table,
    refill_row,
    score_document,
    score_game,
    share,
    strategic_order,
)

EXAMPLES = json.loads((Path(__file__).parent / "dragons_gold_examples.json").read_text())["examples"]


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["name"] for e in EXAMPLES])
def test_score_worked_examples(example: dict) -> None:
    out = score_document({"rules": example["rules"], "players": example["players"]})
    assert out["scores"] == example["scores"]
    assert out["winners"] == example["winners"]


def test_score_example_2_breakdown_shows_the_curse() -> None:
    ex = EXAMPLES[1]
    out = score_document({"rules": "advanced", "players": ex["players"]})
    a, b = out["breakdown"]["A"], out["breakdown"]["B"]
    assert a["cursed"] and a["black"] == 19 and sum(a["majorities"].values()) == 0
    assert b["majorities"] == {"green": 0, "blue": 5, "purple": 5, "yellow": 0, "white": 10}


def test_score_cursed_sole_leader_scores_for_nobody() -> None:
    hoards = {"P1": Hoard.of(yellow=4, black=1), "P2": Hoard.of(yellow=2), "P3": Hoard.of(yellow=1)}
    result = score_game(hoards, Rules.ADVANCED)
    yellow = next(m for m in result.majorities if m.colour is Disc.YELLOW)
    assert yellow.points == {}
    assert "nobody scores" in yellow.why


def test_score_basic_black_diamond_owner_keeps_majorities() -> None:
    hoards = {"A": Hoard.of(green=2, black=1), "B": Hoard.of(green=1), "C": Hoard()}
    assert score_game(hoards, Rules.SIMPLE).scores["A"].total == 7 + 15


def test_score_unowned_colour_scores_for_nobody() -> None:
    hoards = {"A": Hoard.of(silver=1), "B": Hoard(), "C": Hoard()}
    result = score_game(hoards, Rules.SIMPLE)
    assert all(m.points == {} for m in result.majorities)
    assert result.winners == ("A",)


@pytest.mark.parametrize(("players", "expected"), [(3, 6), (4, 5), (5, 5), (6, 4)])
def test_score_advanced_two_way_tie_halves(players: int, expected: int) -> None:
    hoards = {f"P{i}": Hoard.of(blue=2 if i < 2 else 0) for i in range(players)}
    result = score_game(hoards, Rules.ADVANCED)
    assert result.scores["P0"].majorities[Disc.BLUE] == expected == result.scores["P1"].majorities[Disc.BLUE]


def test_score_advanced_three_way_tie_scores_nothing() -> None:
    hoards = {f"P{i}": Hoard.of(white=1) for i in range(4)}
    assert all(s.total == 0 for s in score_game(hoards, Rules.ADVANCED).scores.values())


def test_score_set_bonus_needs_all_five_and_no_curse() -> None:
    full = dict.fromkeys([g.value for g in GEMS], 1)
    hoards = {"A": Hoard.of(**full), "B": Hoard.of(**full, black=1), "C": Hoard.of(**{**full, "white": 0})}
    scores = score_game(hoards, Rules.ADVANCED).scores
    assert (scores["A"].set_bonus, scores["B"].set_bonus, scores["C"].set_bonus) == (5, 0, 0)
    assert score_game(hoards, Rules.SIMPLE).scores["A"].set_bonus == 0


@pytest.mark.parametrize(("doc", "field", "why"), [
    ({"players": {"A": {}, "B": {}}}, "players", "3 to 6 players"),
    ({"players": {"A": {"sliver": 1}, "B": {}, "C": {}}}, "players.A.sliver", "did you mean 'silver'"),
    ({"players": {"A": {"silver": -1}, "B": {}, "C": {}}}, "players.A.silver", "must not be negative"),
    ({"players": {"A": {"white": 4}, "B": {"white": 3}, "C": {}}}, "players.B.white", "the box holds 6"),
    ({"players": {"A": {"black": 1}, "B": {"black": 1}, "C": {}}}, "players.B.black", "only one black diamond"),
    ({"players": {"A": {"black": 2}, "B": {}, "C": {}}}, "players.A.black", "must be at most 1"),
    ({"rules": "expert", "players": {"A": {}, "B": {}, "C": {}}}, "rules", "must be one of"),
    ({"players": {"A": {"gold": 1.5}, "B": {}, "C": {}}}, "players.A.gold", "whole number"),
    ({"players": {"A": {"gold": True}, "B": {}, "C": {}}}, "players.A.gold", "whole number"),
    ({"players": {"A": [], "B": {}, "C": {}}}, "players.A", "JSON object"),
    ({"player": {}}, "player", "unknown field"),
])
def test_score_document_bad_input_names_the_field(doc: dict, field: str, why: str) -> None:
    with pytest.raises(InvalidInput) as info:
        score_document(doc)
    assert info.value.field == field
    assert why in str(info.value)


# -- an independent oracle, written straight from §6, and properties ------------------------------


def oracle(rules: str, players: dict[str, dict[str, int]]) -> dict[str, int]:
    n = len(players)
    value = {"simple": {3: 15, 4: 12, 5: 12, 6: 10}, "advanced": {3: 12, 4: 10, 5: 10, 6: 8}}[rules][n]
    totals = {}
    for name, h in players.items():
        g = lambda c, h=h: h.get(c, 0)  # noqa: E731
        totals[name] = g("silver") + 3 * g("gold") + g("red") + (7 if rules == "simple" else 19) * g("black")
    for colour in ("green", "blue", "purple", "yellow", "white"):
        top = max(p.get(colour, 0) for p in players.values())
        if top == 0:
            continue
        leaders = [name for name, p in players.items() if p.get(colour, 0) == top]
        if rules == "simple":
            for name in leaders:
                totals[name] += value
            continue
        if len(leaders) == 1:
            if not players[leaders[0]].get("black"):
                totals[leaders[0]] += value
        elif len(leaders) == 2:
            for name in leaders:
                if not players[name].get("black"):
                    totals[name] += value // 2
    if rules == "advanced":
        for name, p in players.items():
            if not p.get("black") and all(p.get(c, 0) for c in ("green", "blue", "purple", "yellow", "white")):
                totals[name] += 5
    return totals


@st.composite
def games(draw: st.DrawFn) -> dict:
    n = draw(st.integers(3, 6))
    names = draw(st.lists(st.text("ABCDEFGHJKXYZ", min_size=1, max_size=3), min_size=n, max_size=n, unique=True))
    players: dict[str, dict[str, int]] = {name: {} for name in names}
    for disc, box in BOX.items():
        if disc is Disc.BLACK:
            owner = draw(st.sampled_from([None, *names]))
            if owner:
                players[owner]["black"] = 1
            continue
        left = box
        for name in names:
            k = draw(st.integers(0, min(left, 5 if disc in GEMS else box // n)))
            left -= k
            if k or draw(st.booleans()):
                players[name][disc.value] = k
    return {"rules": draw(st.sampled_from(["simple", "advanced"])), "players": players}


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(games())
def test_score_agrees_with_the_oracle(doc: dict) -> None:
    expected = oracle(doc["rules"], doc["players"])
    out = score_document(doc)
    assert out["scores"] == expected
    best = max(expected.values())
    assert out["winners"] == sorted(n for n, s in expected.items() if s == best)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(games(), st.randoms(use_true_random=False))
def test_score_shuffled_players_same_result(doc: dict, rnd: random.Random) -> None:
    names = list(doc["players"])
    rnd.shuffle(names)
    shuffled = {"rules": doc["rules"], "players": {n: doc["players"][n] for n in names}}
    assert score_document(shuffled) == score_document(doc)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(games(), st.data())
def test_score_one_more_silver_is_one_more_point(doc: dict, data: st.DataObject) -> None:
    if sum(p.get("silver", 0) for p in doc["players"].values()) >= BOX[Disc.SILVER]:
        return
    name = data.draw(st.sampled_from(list(doc["players"])))
    before = score_document(doc)["scores"]
    doc["players"][name]["silver"] = doc["players"][name].get("silver", 0) + 1
    after = score_document(doc)["scores"]
    assert after == {**before, name: before[name] + 1}


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(games())
def test_score_majority_points_never_exceed_the_colour_value(doc: dict) -> None:
    rules, hoards = dg.parse_hoards(doc)
    value = dg.MAJORITY_POINTS[rules][len(hoards)]
    for m in score_game(hoards, rules).majorities:
        assert all(p <= value for p in m.points.values())
        if rules is Rules.ADVANCED:
            assert sum(m.points.values()) <= value


# -- the bag --------------------------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(), chunk=st.integers(1, 9))
def test_bag_run_to_empty_draws_exactly_the_box(seed: int, chunk: int) -> None:
    rng, bag, drawn = random.Random(seed), TreasureBag(), []
    while not bag.is_empty:
        bag, discs = bag.draw(chunk, rng)
        drawn += discs
    assert Counter(drawn) == Counter(BOX) and len(drawn) == 126
    assert bag.draw(3, rng) == (bag, ())


def test_bag_is_reproducible_with_a_seed() -> None:
    assert TreasureBag().draw(10, random.Random(7)) == TreasureBag().draw(10, random.Random(7))


def test_bag_draw_more_than_left_gives_what_is_left() -> None:
    bag = TreasureBag({Disc.GOLD: 2})
    bag, discs = bag.draw(5, random.Random(1))
    assert discs == (Disc.GOLD, Disc.GOLD) and bag.is_empty


# -- dragons, the market, fights ----------------------------------------------------------------

DRAGONS = [Dragon(f"d{i}", strength=5 + i % 6, known=2 + i % 3, hidden=1 + i % 2) for i in range(18)]


def test_table_setup_four_dragons_and_market_after_seven_more() -> None:
    table, revealed = new_table(DRAGONS, random.Random(3))
    assert len(table.row) == 4 and len(table.deck) == 15
    assert isinstance(table.deck[7], MarketCard)
    assert [len(d.treasure) for d in table.row] == [d.dragon.known for d in table.row]
    assert table.bag.remaining == 126 - sum(d.dragon.known for d in table.row)
    markets = []
    rng = random.Random(4)
    for _ in range(8):
        table = dataclass_replace_row(table, table.row[1:])
        table, r = refill_row(table, rng)
        markets.append(r.market)
    assert markets == [False] * 7 + [True]  # the 8th replacement draw turns the market up (§5.9)
    assert len(table.row) == 4


def dataclass_replace_row(table: dg.Table, row: tuple[DragonInPlay, ...]) -> dg.Table:
    from dataclasses import replace

    return replace(table, row=row)


def test_table_end_phase_no_replacement_once_the_bag_is_empty() -> None:
    table, _ = new_table(DRAGONS, random.Random(3))
    from dataclasses import replace

    table = replace(table, bag=TreasureBag({}), row=table.row[1:])
    assert table.is_end_phase
    after, revealed = refill_row(table, random.Random(1))
    assert len(after.row) == 3 and revealed.dragons == ()


def example5_dragon() -> DragonInPlay:
    d = DragonInPlay(Dragon("x", 9, 3, 2), treasure=(Disc.RED, Disc.GOLD, Disc.SILVER))
    for a in [Attacker("P1", Role.WIZARD, 2), Attacker("P2", Role.THIEF, 1), Attacker("P3", Role.KNIGHT, 4),
              Attacker("P1", Role.THIEF, 1)]:
        d = DragonInPlay(d.dragon, d.treasure, (*d.attackers, a))
        assert not d.is_dead
    d = DragonInPlay(d.dragon, d.treasure, (*d.attackers, Attacker("P2", Role.KNIGHT, 3)))
    assert d.is_dead and d.attack == 11
    return d


def test_fight_example_5_basic() -> None:
    s = share(example5_dragon(), Rules.SIMPLE, hidden=(Disc.RED, Disc.BLUE))
    assert s.participants == ("P1", "P2", "P3")
    assert s.needs_negotiation and s.negotiation_s == 60
    assert (s.red_to_wizard, s.red_taken) == ("P1", 2)
    assert sorted(s.to_share) == sorted([Disc.GOLD, Disc.SILVER, Disc.BLUE])
    assert dg.negotiation_failed(s) == s.to_share  # the wizard keeps the reds
    assert s.thefts == (dg.Theft("P2", ("P1", "P3"), False), dg.Theft("P1", ("P2", "P3"), True))


def test_fight_example_5_advanced() -> None:
    s = share(example5_dragon(), Rules.ADVANCED, hidden=(Disc.RED, Disc.BLUE))
    assert s.red_to_wizard is None and s.to_share.count(Disc.RED) == 2
    assert s.magic_item_eligible == ("P1",)
    assert dg.magic_item_cards(s, {"P1": 1, "P3": 1}) == {"P1": 1}


def test_fight_two_wizards_share_reds_in_the_negotiation() -> None:
    d = DragonInPlay(Dragon("x", 4, 1, 0), (Disc.RED,), (Attacker("A", Role.WIZARD, 2), Attacker("B", Role.WIZARD, 2)))
    s = share(d, Rules.SIMPLE)
    assert s.red_to_wizard is None and s.to_share == (Disc.RED,)


def test_fight_solo_kill_no_timer_no_theft() -> None:
    d = DragonInPlay(Dragon("x", 3, 1, 0), (Disc.GOLD,), (Attacker("A", Role.THIEF, 1), Attacker("A", Role.KNIGHT, 3)))
    s = share(d, Rules.SIMPLE)
    assert not s.needs_negotiation and s.negotiation_s is None and s.thefts == ()


def test_fight_alive_dragon_cannot_be_shared() -> None:
    d = DragonInPlay(Dragon("x", 9, 1, 0), (), (Attacker("A", Role.KNIGHT, 3),))
    with pytest.raises(InvalidInput, match="is not dead"):
        share(d, Rules.SIMPLE)


def test_strategic_example_6_order() -> None:
    attackers = [Attacker("A", Role.KNIGHT, 6), Attacker("B", Role.KNIGHT, 3), Attacker("C", Role.KNIGHT, 3)]
    assert strategic_order(attackers) == ("A", "B", "C")
    d = DragonInPlay(Dragon("x", 12, 3, 0), (Disc.GOLD, Disc.SILVER, Disc.BLUE), tuple(attackers))
    s = share(d, Rules.SIMPLE, strategic=True)
    assert not s.needs_negotiation and s.choosing_order == ("A", "B", "C") and s.parts == 3


def test_strategic_fewer_discs_than_players_fewer_parts() -> None:
    attackers = (Attacker("A", Role.KNIGHT, 6), Attacker("B", Role.KNIGHT, 3), Attacker("C", Role.KNIGHT, 3))
    s = share(DragonInPlay(Dragon("x", 12, 2, 0), (Disc.GOLD, Disc.SILVER), attackers), Rules.SIMPLE,
              strategic=True)
    assert s.parts == 2


def test_team_refresh_and_pass() -> None:
    team = Team.of("A", {Role.KNIGHT: [1, 4], Role.THIEF: [2], Role.WIZARD: [3]})
    assert team.start_turn()[1] == "play"
    for a in list(team.ready):
        team = team.send(a)
    assert team.start_turn()[1] == "pass"
    team = team.come_back(team.fighting)
    team, what = team.start_turn()
    assert what == "refreshed" and len(team.ready) == 4
