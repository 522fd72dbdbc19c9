"""Each game's ``companion score`` answer against an independent implementation.

The oracles below are written straight from the rule digests (shared/rules), in the plainest
code that does the job, and share nothing with companion/games but the JSON shape. Hypothesis
feeds both thousands of random tables that the box could hold (2,000 each on a desktop; fewer,
divided by COMPANION_TEST_SLOWDOWN, on a slower machine: tests/slowdown.py).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import drakon, gold
from tests.slowdown import examples

# -- Gold! -------------------------------------------------------------------------------------------

COLOURS = ["green", "blue", "purple", "red", "orange", "pink"]


def gold_value(card: str) -> int:
    value = card.split(":")[1]
    return -2 if value == "donkey" else int(value)


def gold_oracle(players: dict[str, dict[str, list[str]]]) -> dict:
    piles = {name: list(p.get("scored", [])) for name, p in players.items()}
    for colour in COLOURS:
        held = {name: [c for c in p.get("display", []) if c.startswith(colour + ":")] for name, p in players.items()}
        if not any(not c.endswith("donkey") for cards in held.values() for c in cards):
            continue  # no gold card of the colour in any holding: not scored
        sums = {name: sum(gold_value(c) for c in cards) for name, cards in held.items()}
        best = max(sums.values())
        for name, cards in held.items():
            golds = [gold_value(c) for c in cards if not c.endswith("donkey")]
            if sums[name] == best and golds:
                piles[name].append(f"{colour}:{max(golds)}")
    scores = {name: sum(gold_value(c) for c in pile) for name, pile in piles.items()}
    sizes = {name: len(pile) for name, pile in piles.items()}
    top = max(scores.values())
    tied = [n for n in scores if scores[n] == top]
    most = max(sizes[n] for n in tied)
    return {"scores": scores, "pile_sizes": sizes, "winners": sorted(n for n in tied if sizes[n] == most)}


@st.composite
def gold_tables(draw: st.DrawFn) -> dict:
    n = draw(st.integers(2, 3))
    rng = random.Random(draw(st.integers(0, 2**32)))
    deck = [f"{c}:{v}" for c in COLOURS for v in (3, 3, 4, 5, 6, 7, 8)]
    deck += [f"{c}:donkey" for c in COLOURS for _ in range(3 if n == 3 else 2)]
    rng.shuffle(deck)
    deck = deck[2:]  # two cards leave the game unseen at setup
    players = {}
    for name in ["Anna", "Bruno", "Csaba"][:n]:
        sets = draw(st.integers(0, 4))
        pile: list[str] = []
        for _ in range(sets):  # a pile is made of sets of three of one colour
            colour = rng.choice(COLOURS)
            three = [c for c in deck if c.startswith(colour + ":")][:3]
            if len(three) == 3:
                pile += three
                for c in three:
                    deck.remove(c)
        display: list[str] = []
        for colour in COLOURS:  # at most two of a colour lie open
            for c in [c for c in deck if c.startswith(colour + ":")][:draw(st.integers(0, 2))]:
                display.append(c)
                deck.remove(c)
        players[name] = {"scored": pile, "display": display}
    return {"players": players}


@pytest.mark.slow
@settings(max_examples=examples(2000), deadline=None)
@given(gold_tables())
def test_gold_score_agrees_with_the_oracle(doc: dict) -> None:
    assert gold.score_document(doc) == gold_oracle(doc["players"])


# -- Drakon ------------------------------------------------------------------------------------------


def drakon_oracle(variant: str, players: dict[str, dict]) -> dict:
    totals = {name: sum(p["coins"]) for name, p in players.items()}
    if variant == "team":
        sides: dict[str, int] = {}
        for name, p in players.items():
            sides[p["team"]] = sides.get(p["team"], 0) + totals[name]
        reached = [t for t, g in sides.items() if g >= 20]
    else:
        sides = dict(totals)
        if variant == "standard":
            reached = [n for n, g in totals.items() if g >= 10]
        elif variant == "escape":
            reached = [n for n, p in players.items() if p.get("escaped") and totals[n] >= 8]
        else:  # five-coins
            reached = [n for n, p in players.items() if len(p["coins"]) >= 5]
    top = max(sides.values())
    out = {"totals": totals, "goal_reached": sorted(reached), "leaders": sorted(s for s, g in sides.items() if g == top)}
    if variant == "team":
        out["team_totals"] = sides
    return out


@st.composite
def drakon_tables(draw: st.DrawFn) -> dict:
    variant = draw(st.sampled_from(["standard", "escape", "team", "five-coins"]))
    n = draw(st.sampled_from([4, 6])) if variant == "team" else draw(st.integers(2, 6))
    names = ["Ann", "Bob", "Cid", "Dot", "Eve", "Fay"][:n]
    left = 28
    players = {}
    for i, name in enumerate(names):
        coins = draw(st.lists(st.sampled_from([1, 2, 3]), max_size=min(left, 8)))
        left -= len(coins)
        players[name] = {"coins": coins, "escaped": draw(st.booleans()), "team": "ABC"[i % (n // 2)]}
    return {"variant": variant, "players": players}


@pytest.mark.slow
@settings(max_examples=examples(2000), deadline=None)
@given(drakon_tables())
def test_drakon_score_agrees_with_the_oracle(doc: dict) -> None:
    assert drakon.score_document(doc) == drakon_oracle(doc["variant"], doc["players"])
