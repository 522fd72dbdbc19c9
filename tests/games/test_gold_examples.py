"""Gold!: the digest's and the rule book's worked examples, as data and answers."""

from __future__ import annotations

from typing import Any

import pytest

from companion.games import gold
from companion.games.gold import (
    Card,
    Colour,
    Exchange,
    Refusal,
    Steal,
    Tableau,
)
from tests.games.gold_helpers import (
    EXAMPLE_2,
    EXAMPLE_3,
    EXAMPLE_4_AFTER,
    RULE_BOOK_COLOURS,
    c,
    cs,
    doc_of,
)

# --- Worked examples as data: documents and the answers the rule texts give ----------------------

# Example 2's and 3's tables, Example 4's end and the rule book's colours are in
# gold_helpers: the score sheet's tests use them too.

WORKED_DOCUMENTS = [
    pytest.param(EXAMPLE_3, {"scores": {"A": 45, "B": 45, "C": 41},
                             "pile_sizes": {"A": 8, "B": 9, "C": 11}, "winners": ["B"]},
                 id="digest-example-3"),
    pytest.param(EXAMPLE_4_AFTER, {"scores": {"X": 51, "Y": 51}, "pile_sizes": {"X": 11, "Y": 11},
                                   "winners": ["X", "Y"]},
                 id="digest-example-4"),
    pytest.param(RULE_BOOK_COLOURS, {"scores": {"Bruno": 0, "Dani": 8, "Karcsi": 6},
                                     "pile_sizes": {"Bruno": 0, "Dani": 1, "Karcsi": 1}, "winners": ["Dani"]},
                 id="rule-book-colour-scoring"),
]

# Digest §6, Example 3, colour by colour: (colour, sums A/B/C, banked, discarded).
EXAMPLE_3_COLOURS = [
    ("green", (3, 0, 3), {"A": "green:3", "C": "green:5"}, {"C": ["green:donkey"]}),
    ("blue", (5, 10, 4), {"B": "blue:7"}, {"A": ["blue:5"], "B": ["blue:3"], "C": ["blue:4"]}),
    ("purple", (0, 0, 0), {}, {}),
    ("red", (6, 6, 0), {"A": "red:8", "B": "red:6"}, {"A": ["red:donkey"]}),
    ("orange", (0, 6, 6), {"B": "orange:6", "C": "orange:3"}, {"C": ["orange:3"]}),
    ("pink", (-2, 0, 0), {}, {"A": ["pink:donkey"]}),
]


def holdings_of(doc: dict[str, Any]) -> dict[str, tuple[Card, ...]]:
    return {name: t.holding for name, t in gold.parse_document(doc).items()}


@pytest.mark.parametrize(("doc", "expected"), WORKED_DOCUMENTS)
def test_score_document_matches_worked_example(doc: dict[str, Any], expected: dict[str, Any]) -> None:
    assert gold.score_document(doc) == expected


@pytest.mark.parametrize(("colour", "sums", "banked", "discarded"), EXAMPLE_3_COLOURS)
def test_score_colour_matches_digest_example_3(colour: str, sums: tuple[int, int, int],
                                               banked: dict[str, str], discarded: dict[str, list[str]]) -> None:
    step = gold.score_colour(holdings_of(EXAMPLE_3), Colour(colour))
    assert (step.sums, step.banked, step.discarded) == (
        dict(zip("ABC", sums, strict=True)),
        {name: c(text) for name, text in banked.items()},
        {name: cs(*texts) for name, texts in discarded.items()},
    )


def test_end_game_total_banked_can_exceed_the_number_of_colours() -> None:
    # Ties let several players bank in one colour: Example 3 banks 7 cards over 6 colours.
    # So "at most one banked card per colour" holds per player, not for the table.
    steps = gold.end_game(gold.parse_document(EXAMPLE_3)).colours
    assert sum(len(step.banked) for step in steps) == 7


def test_score_colour_rule_book_tie_lets_both_bank_their_highest_red() -> None:
    step = gold.score_colour(holdings_of(RULE_BOOK_COLOURS), Colour.RED)
    assert (step.sums, step.banked) == ({"Karcsi": 6, "Dani": 6, "Bruno": 0},
                                        {"Karcsi": c("red:6"), "Dani": c("red:8")})


def test_score_colour_rule_book_green_donkey_alone_is_not_scored() -> None:
    step = gold.score_colour(holdings_of(RULE_BOOK_COLOURS), Colour.GREEN)
    assert (step.scored, step.leaders, step.banked, step.discarded) == (
        False, (), {}, {"Karcsi": cs("green:donkey")})


# Digest §6, Example 1: one display, one holding, every legal outcome.
EXAMPLE_1_DISPLAY = cs("red:donkey", "green:3", "pink:5", "blue:8", "orange:4")
EXAMPLE_1_HOLDING = cs("purple:6", "green:donkey")


def test_legal_takes_digest_example_1_must_take_the_red_donkey() -> None:
    assert gold.legal_takes(EXAMPLE_1_DISPLAY) == cs("red:donkey")


@pytest.mark.parametrize(("give", "takes"), [
    ("purple:6", ["green:3", "orange:4", "pink:5"]),
    ("green:donkey", ["green:3", "orange:4", "pink:5", "blue:8"]),
])
def test_legal_exchanges_digest_example_1(give: str, takes: list[str]) -> None:
    found = [e.take for e in gold.legal_exchanges(EXAMPLE_1_HOLDING, EXAMPLE_1_DISPLAY) if e.give == c(give)]
    assert found == list(cs(*takes))


def test_legal_exchanges_digest_example_1_a_gold_3_gives_nothing() -> None:
    assert gold.legal_exchanges(cs("red:3"), EXAMPLE_1_DISPLAY) == ()


def test_legal_takes_rule_book_example_lets_the_player_choose_between_donkeys() -> None:
    display = cs("red:donkey", "green:donkey", "green:4", "blue:8")
    assert gold.legal_takes(display) == cs("green:donkey", "red:donkey")


@pytest.mark.parametrize(("take", "reasons"), [
    ("green:4", ()),
    ("red:donkey", (Refusal.TAKES_DONKEY,)),
    ("blue:8", (Refusal.NOT_LOWER,)),
])
def test_check_exchange_rule_book_dani_gives_blue_6(take: str, reasons: tuple[Refusal, ...]) -> None:
    display = cs("red:donkey", "green:4", "blue:8")
    assert gold.check_exchange(cs("blue:6"), display, Exchange(c("blue:6"), c(take))) == reasons


@pytest.mark.parametrize(("take", "reasons"), [
    ("blue:8", ()),
    ("blue:6", ()),
    ("red:donkey", (Refusal.TAKES_DONKEY,)),
])
def test_check_exchange_rule_book_karcsi_gives_green_donkey(take: str, reasons: tuple[Refusal, ...]) -> None:
    display = cs("red:donkey", "blue:6", "blue:8")
    exchange = Exchange(c("green:donkey"), c(take))
    assert gold.check_exchange(cs("green:donkey"), display, exchange) == reasons


def _opponents(tableaus: dict[str, Tableau], player: str) -> dict[str, tuple[Card, ...]]:
    return {name: t.holding for name, t in tableaus.items() if name != player}


def test_bonus_options_digest_example_2_only_bs_orange_7() -> None:
    options = gold.bonus_options(EXAMPLE_2["A"].holding, Colour.BLUE, _opponents(EXAMPLE_2, "A"))
    assert options == (Steal("B", c("orange:7")),)


def test_score_set_digest_example_2_moves_the_steal_and_the_set() -> None:
    scored = gold.score_set(EXAMPLE_2, "A", Colour.BLUE, Steal("B", c("orange:7")))
    assert (scored.points, scored.tableaus["A"], scored.tableaus["B"].holding) == (
        13, Tableau(cs("red:donkey", "green:5", "orange:7"), cs("blue:6", "blue:4", "blue:3")),
        cs("red:8", "green:3"))


def test_bonus_options_digest_example_2_without_the_orange_7_is_empty() -> None:
    opponents = {"B": cs("red:8", "green:3"), "C": cs("blue:8", "green:6")}
    assert gold.bonus_options(EXAMPLE_2["A"].holding, Colour.BLUE, opponents) == ()


def test_bonus_options_rule_book_krisztian_may_take_only_other_colours() -> None:
    # The rule book's Krisztián takes Bruno's "sárga" (yellow) 6; yellow is no colour of
    # the game (digest G1), so Bruno's 6 is orange here.
    holding = cs("red:3", "red:5", "red:7", "blue:4", "green:8")
    options = gold.bonus_options(holding, Colour.RED, {"Bruno": cs("orange:6", "blue:3", "red:4", "green:4")})
    assert options == (Steal("Bruno", c("orange:6")),)


# Digest §6, Example 4: the last action makes a set, then the colour scoring (digest G4).
EXAMPLE_4_BEFORE = {
    "X": Tableau(holding=cs("orange:7", "orange:3", "green:4"),
                 pile=cs("purple:8", "purple:7", "purple:5", "red:3", "red:3", "red:donkey")),
    "Y": Tableau(holding=cs("blue:8", "green:6", "green:donkey", "pink:5"),
                 pile=cs("red:8", "red:6", "red:4", "pink:8", "pink:7", "pink:3",
                         "purple:3", "purple:3", "purple:donkey")),
}


def _example_4_after_take() -> dict[str, Tableau]:
    x = EXAMPLE_4_BEFORE["X"]
    return {**EXAMPLE_4_BEFORE, "X": Tableau(x.holding + cs("orange:5"), x.pile)}


def test_bonus_options_digest_example_4_offers_blue_8_and_pink_5() -> None:
    tableaus = _example_4_after_take()
    options = gold.bonus_options(tableaus["X"].holding, Colour.ORANGE, _opponents(tableaus, "X"))
    assert options == (Steal("Y", c("pink:5")), Steal("Y", c("blue:8")))


def test_score_set_digest_example_4_brings_x_to_39_with_9_cards() -> None:
    scored = gold.score_set(_example_4_after_take(), "X", Colour.ORANGE, Steal("Y", c("blue:8")))
    assert (scored.points, scored.tableaus["X"].pile_points, len(scored.tableaus["X"].pile)) == (15, 39, 9)


def test_end_game_digest_example_4_after_the_last_set_is_a_full_tie() -> None:
    scored = gold.score_set(_example_4_after_take(), "X", Colour.ORANGE, Steal("Y", c("blue:8")))
    assert gold.end_game(scored.tableaus).result == gold.FinalResult(
        {"X": 51, "Y": 51}, {"X": 11, "Y": 11}, ("X", "Y"))


def test_score_set_digest_example_5_a_set_can_cost_points() -> None:
    tableaus = {"A": Tableau(cs("green:donkey", "green:donkey", "green:3")), "B": Tableau()}
    scored = gold.score_set(tableaus, "A", Colour.GREEN)
    assert (scored.points, len(scored.tableaus["A"].pile)) == (-1, 3)


def test_score_document_score_can_be_negative() -> None:
    doc = doc_of({"A": (["green:donkey", "green:donkey", "green:3"], []), "B": ([], [])})
    assert gold.score_document(doc)["scores"] == {"A": -1, "B": 0}
