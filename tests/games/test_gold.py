"""Gold!: the digest's and the rule book's worked examples, the tie rules, the readings, bad input."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from companion.errors import InvalidInput
from companion.games import gold
from companion.games.gold import (
    Card,
    Colour,
    Exchange,
    ExchangeOption,
    Refusal,
    Steal,
    Tableau,
    ThreeReading,
)


def c(text: str) -> Card:
    return gold.parse_card(text)


def cs(*texts: str) -> tuple[Card, ...]:
    return tuple(c(text) for text in texts)


def doc_of(players: dict[str, tuple[list[str], list[str]]]) -> dict[str, Any]:
    """A ``companion score gold`` document from {name: (scored, display)}."""
    return {"players": {name: {"scored": scored, "display": display}
                        for name, (scored, display) in players.items()}}


ALL_CARDS = sorted(gold.deck(3), key=gold.card_sort_key)

# --- Worked examples as data: documents and the answers the rule texts give ----------------------

# Digest §6, Example 3 (3 players): colour ties, an unscored colour, the card-count tie-break.
EXAMPLE_3 = doc_of({
    "A": (["purple:8", "purple:7", "purple:6", "green:8", "green:7", "green:donkey"],
          ["red:8", "red:donkey", "blue:5", "pink:donkey", "green:3"]),
    "B": (["purple:5", "purple:4", "purple:3", "pink:8", "pink:3", "pink:3"],
          ["red:6", "blue:7", "blue:3", "orange:6"]),
    "C": (["pink:7", "pink:6", "pink:donkey", "blue:8", "blue:6", "blue:donkey",
           "orange:7", "orange:5", "orange:donkey"],
          ["blue:4", "orange:3", "orange:3", "green:5", "green:donkey"]),
})

# Digest §6, Example 4 (2 players), as it stands after X's final turn: the orange set is
# in X's pile and the stolen blue 8 in X's holding (digest G4).
EXAMPLE_4_AFTER = doc_of({
    "X": (["purple:8", "purple:7", "purple:5", "red:3", "red:3", "red:donkey",
           "orange:7", "orange:3", "orange:5"],
          ["green:4", "blue:8"]),
    "Y": (["red:8", "red:6", "red:4", "pink:8", "pink:7", "pink:3", "purple:3", "purple:3", "purple:donkey"],
          ["green:6", "green:donkey", "pink:5"]),
})

# Rule book, SZÍN PONTOZÁSA: Karcsi, Dani and Bruno compare red, then green.
RULE_BOOK_COLOURS = doc_of({
    "Karcsi": ([], ["red:6", "green:donkey"]),
    "Dani": ([], ["red:8", "red:donkey"]),
    "Bruno": ([], []),
})

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


# Digest §6, Example 2: a set with a restricted bonus steal.
EXAMPLE_2 = {
    "A": Tableau(holding=cs("blue:6", "blue:4", "red:donkey", "green:5", "blue:3")),
    "B": Tableau(holding=cs("red:8", "orange:7", "green:3")),
    "C": Tableau(holding=cs("blue:8", "green:6")),
}


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


# --- Cards and the box -----------------------------------------------------------------------


@pytest.mark.parametrize("card", ALL_CARDS, ids=gold.to_card_text)
def test_card_text_round_trips(card: Card) -> None:
    assert gold.parse_card(gold.to_card_text(card)) == card


def test_parse_card_ignores_case_and_outer_spaces() -> None:
    assert gold.parse_card(" Red : Donkey ") == Card(Colour.RED)


@pytest.mark.parametrize("text", ["yellow:6", "red:9", "red:2", "red:-2", "red5", "", "red:", ":5",
                                  "red:5.0", "red:05", "red:five", "red:5:5"])
def test_parse_card_refuses_with_the_field_and_the_text(text: str) -> None:
    with pytest.raises(InvalidInput) as info:
        gold.parse_card(text, "players.Anna.display[2]")
    assert info.value.field == "players.Anna.display[2]"
    assert repr(text) in str(info.value)


def test_parse_card_says_how_a_donkey_is_written() -> None:
    with pytest.raises(InvalidInput, match="donkey"):
        gold.parse_card("red:-2")


def test_card_refuses_a_gold_value_off_the_cards() -> None:
    with pytest.raises(InvalidInput):
        Card(Colour.RED, 9)


def test_card_value_of_a_donkey_is_minus_two() -> None:
    assert (Card(Colour.PINK).value, Card(Colour.PINK).is_donkey) == (-2, True)


def test_deck_three_players_uses_all_60_cards() -> None:
    assert gold.deck(3).total() == 60


def test_deck_two_players_removes_one_donkey_per_colour() -> None:
    assert {colour: gold.deck(2)[Card(colour)] for colour in gold.COLOURS} == dict.fromkeys(gold.COLOURS, 2)


def test_deck_two_players_keeps_every_gold_card() -> None:
    assert [card for card in gold.deck(3) - gold.deck(2) if not card.is_donkey] == []


def test_deck_has_two_threes_and_sums_36_gold_per_colour() -> None:
    box = gold.deck(3)
    assert [(box[Card(colour, 3)], sum(card.gold or 0 for card in box.elements() if card.colour is colour))
            for colour in gold.COLOURS] == [(2, 36)] * 6


@pytest.mark.parametrize("count", [1, 4])
def test_deck_refuses_a_player_count_outside_2_to_3(count: int) -> None:
    with pytest.raises(InvalidInput) as info:
        gold.deck(count)
    assert info.value.field == "player_count"


@pytest.mark.parametrize(("count", "expected"), [
    (3, gold.SetupCounts(3, 60, 3, 2, 50, 10)),
    (2, gold.SetupCounts(2, 54, 2, 2, 45, 9)),
])
def test_setup_counts_match_the_digests_card_arithmetic(count: int, expected: gold.SetupCounts) -> None:
    assert gold.setup_counts(count) == expected


@pytest.mark.parametrize(("count", "in_play"), [(3, 58), (2, 52)])
def test_cards_in_play_is_the_deck_less_two_unseen(count: int, in_play: int) -> None:
    assert gold.cards_in_play(count) == in_play


# --- Taking and exchanging --------------------------------------------------------------------


def test_check_take_refuses_a_card_not_in_the_display() -> None:
    assert gold.check_take(cs("red:4"), c("red:3")) == (Refusal.NOT_IN_DISPLAY,)


def test_check_take_refuses_a_card_that_is_not_lowest() -> None:
    assert gold.check_take(cs("red:4", "blue:5"), c("blue:5")) == (Refusal.NOT_LOWEST,)


def test_legal_takes_of_an_empty_display_is_nothing() -> None:
    assert gold.legal_takes(()) == ()


def test_legal_takes_offers_every_tied_lowest_gold_card() -> None:
    assert gold.legal_takes(cs("pink:4", "red:4", "blue:5")) == cs("red:4", "pink:4")


def test_check_exchange_refuses_an_equal_gold_card() -> None:
    # Digest G6: "kisebb értékű", lower value; the second 3 of a colour is not lower.
    display = cs("blue:5")
    assert gold.check_exchange(cs("red:5"), display, Exchange(c("red:5"), c("blue:5"))) == (Refusal.NOT_LOWER,)


@pytest.mark.parametrize("reading", list(ThreeReading))
def test_check_exchange_never_gives_a_3_under_option_1(reading: ThreeReading) -> None:
    exchange = Exchange(c("red:3"), c("green:3"))
    assert Refusal.NOT_LOWER in gold.check_exchange(cs("red:3"), cs("green:3"), exchange, threes=reading)


def test_three_reading_defaults_to_the_digests_give_only_reading() -> None:
    assert gold.THREE_READING is ThreeReading.GIVE_ONLY


@pytest.mark.parametrize("give", ["blue:4", "blue:donkey"])
def test_check_exchange_default_reading_may_take_a_3(give: str) -> None:
    assert gold.check_exchange(cs(give), cs("green:3"), Exchange(c(give), c("green:3"))) == ()


@pytest.mark.parametrize("give", ["blue:4", "blue:donkey"])
def test_check_exchange_literal_reading_never_takes_a_3(give: str) -> None:
    exchange = Exchange(c(give), c("green:3"))
    reasons = gold.check_exchange(cs(give), cs("green:3"), exchange, threes=ThreeReading.LITERAL)
    assert reasons == (Refusal.TAKES_THREE,)


def test_check_exchange_reports_every_reason_at_once() -> None:
    exchange = Exchange(c("red:6"), c("blue:donkey"))
    assert gold.check_exchange((), (), exchange) == (
        Refusal.NOT_IN_HOLDING, Refusal.NOT_IN_DISPLAY, Refusal.TAKES_DONKEY)


def test_can_exchange_is_false_on_a_donkey_only_display() -> None:
    assert not gold.can_exchange(cs("red:8", "blue:donkey"), cs("green:donkey", "pink:donkey"))


def test_can_exchange_is_false_with_only_threes_to_give() -> None:
    assert not gold.can_exchange(cs("red:3", "blue:3"), cs("green:4", "pink:3"))


@pytest.mark.parametrize(("give", "option"), [
    ("red:6", ExchangeOption.GOLD_FOR_LOWER_GOLD), ("red:donkey", ExchangeOption.DONKEY_FOR_GOLD)])
def test_exchange_option_follows_the_card_given(give: str, option: ExchangeOption) -> None:
    assert Exchange(c(give), c("blue:4")).option is option


# --- Sets --------------------------------------------------------------------------------------


def test_completed_sets_count_donkeys() -> None:
    assert gold.completed_sets(cs("red:donkey", "red:donkey", "red:5", "blue:3")) == (Colour.RED,)


def test_has_set_is_false_with_two_of_each_colour() -> None:
    assert not gold.has_set(cs("red:4", "red:5", "blue:3", "blue:4"))


def test_bonus_options_may_take_a_donkey() -> None:
    # Digest G5, settled by the rule book: "egy lapot", a card, so a donkey too.
    assert gold.STEAL_MAY_TAKE_DONKEY
    options = gold.bonus_options(cs("red:3", "red:4", "red:5"), Colour.RED, {"B": cs("pink:donkey")})
    assert options == (Steal("B", c("pink:donkey")),)


def test_bonus_options_refuse_the_scored_colour() -> None:
    assert gold.bonus_options(cs("red:3", "red:4", "red:5"), Colour.RED, {"B": cs("red:8")}) == ()


def test_score_set_may_decline_the_bonus() -> None:
    # Digest G5, settled by the rule book: "elvehet", may take.
    assert gold.STEAL_IS_OPTIONAL
    scored = gold.score_set(EXAMPLE_2, "A", Colour.BLUE)
    assert (scored.steal, scored.tableaus["B"]) == (None, EXAMPLE_2["B"])


def test_score_set_refuses_a_steal_of_a_held_colour() -> None:
    with pytest.raises(InvalidInput) as info:
        gold.score_set(EXAMPLE_2, "A", Colour.BLUE, Steal("C", c("green:6")))
    assert info.value.field == "steal"


def test_score_set_refuses_a_colour_without_three_cards() -> None:
    with pytest.raises(InvalidInput) as info:
        gold.score_set(EXAMPLE_2, "A", Colour.GREEN)
    assert info.value.field == "colour"


def test_score_set_refuses_an_unknown_player() -> None:
    with pytest.raises(InvalidInput) as info:
        gold.score_set(EXAMPLE_2, "Zoe", Colour.BLUE)
    assert info.value.field == "player"


def test_score_set_leaves_its_input_unchanged() -> None:
    before = dict(EXAMPLE_2)
    gold.score_set(EXAMPLE_2, "A", Colour.BLUE, Steal("B", c("orange:7")))
    assert before == EXAMPLE_2


# --- Colour scoring and the final tie rules ----------------------------------------------------


def test_score_colour_leader_banks_the_highest_gold_not_the_sum() -> None:
    step = gold.score_colour({"A": cs("red:4", "red:7"), "B": cs("red:8")}, Colour.RED)
    assert (step.leaders, step.banked) == (("A",), {"A": c("red:7")})


def test_score_colour_discards_the_leaders_other_cards_too() -> None:
    step = gold.score_colour({"A": cs("red:4", "red:7"), "B": cs("red:8")}, Colour.RED)
    assert step.discarded == {"A": cs("red:4"), "B": cs("red:8")}


def test_score_colour_a_pair_of_threes_banks_one() -> None:
    step = gold.score_colour({"A": cs("red:3", "red:3"), "B": ()}, Colour.RED)
    assert (step.banked, step.discarded) == ({"A": c("red:3")}, {"A": cs("red:3")})


def test_score_colour_three_way_tie_banks_three_cards() -> None:
    step = gold.score_colour({"A": cs("red:6"), "B": cs("red:3", "red:3"), "C": cs("red:8", "red:donkey")},
                             Colour.RED)
    assert step.banked == {"A": c("red:6"), "B": c("red:3"), "C": c("red:8")}


def test_score_colour_with_no_cards_discards_nothing() -> None:
    step = gold.score_colour({"A": cs("red:6"), "B": ()}, Colour.BLUE)
    assert (step.scored, step.sums, step.banked, step.discarded) == (False, {"A": 0, "B": 0}, {}, {})


def test_score_colour_only_donkeys_are_all_discarded() -> None:
    step = gold.score_colour({"A": cs("red:donkey"), "B": cs("red:donkey", "red:donkey")}, Colour.RED)
    assert (step.scored, step.discarded) == (False, {"A": cs("red:donkey"), "B": cs("red:donkey", "red:donkey")})


def test_score_colour_leader_without_gold_banks_nothing() -> None:
    # Unreachable at a table (3 held cards of a colour); the guard keeps it defined.
    step = gold.score_colour({"A": cs("red:donkey", "red:donkey", "red:3"), "B": ()}, Colour.RED)
    assert (step.scored, step.leaders, step.banked) == (True, ("B",), {})


def test_winners_with_tiebreak_most_points_wins_with_fewer_cards() -> None:
    assert gold.winners_with_tiebreak({"A": 40, "B": 39}, {"A": 6, "B": 12}) == ("A",)


def test_winners_with_tiebreak_more_cards_breaks_a_points_tie() -> None:
    assert gold.winners_with_tiebreak({"A": 40, "B": 40}, {"A": 6, "B": 7}) == ("B",)


def test_winners_with_tiebreak_cards_count_only_among_the_tied() -> None:
    assert gold.winners_with_tiebreak({"A": 40, "B": 40, "C": 39}, {"A": 6, "B": 7, "C": 30}) == ("B",)


def test_winners_with_tiebreak_still_tied_all_win_sorted() -> None:
    assert gold.winners_with_tiebreak({"Zsuzsa": 40, "Anna": 40}, {"Zsuzsa": 9, "Anna": 9}) == ("Anna", "Zsuzsa")


def test_final_result_counts_donkeys_minus_two() -> None:
    result = gold.final_result({"A": cs("red:donkey", "red:8", "red:7"), "B": ()})
    assert (result.scores, result.pile_sizes) == ({"A": 13, "B": 0}, {"A": 3, "B": 0})


# --- score_document: the contract and its bad input ------------------------------------------


def test_score_document_answers_exactly_the_three_keys() -> None:
    assert sorted(gold.score_document(EXAMPLE_3)) == ["pile_sizes", "scores", "winners"]


def test_game_info_registers_gold() -> None:
    assert (gold.GAME.key, gold.GAME.aliases, gold.GAME.min_players, gold.GAME.max_players,
            gold.GAME.score_document) == ("gold", ("gold!",), 2, 3, gold.score_document)


def _two(anna: dict[str, Any], bruno: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"players": {"Anna": anna, "Bruno": bruno or {"scored": [], "display": []}}}


def _all_but_one_card() -> dict[str, Any]:
    """59 cards for 3 players, each colour complete but green's green:donkey: one too many."""
    piles: dict[str, list[str]] = {"A": [], "B": [], "C": []}
    helds: dict[str, list[str]] = {"A": [], "B": [], "C": []}
    for i, colour in enumerate(gold.COLOURS):
        texts = [gold.to_card_text(card) for card in gold.deck(3).elements() if card.colour is colour]
        if colour is Colour.GREEN:
            texts.remove("green:donkey")
        owner = "ABC"[i % 3]
        piles[owner] += texts[:9]
        helds["ABC"[(i + 1) % 3]] += texts[9:]
    return doc_of({name: (piles[name], helds[name]) for name in "ABC"})


BAD_DOCUMENTS = [
    pytest.param(["players"], "document", id="not-an-object"),
    pytest.param({"player": {}}, "player", id="unknown-top-field"),
    pytest.param({}, "players", id="no-players"),
    pytest.param({"players": {"Anna": {"scored": [], "display": []}}}, "players", id="one-player"),
    pytest.param({"players": {n: {"scored": [], "display": []} for n in "ABCD"}}, "players", id="four-players"),
    pytest.param(_two({"scored": [], "display": [], "hand": []}), "players.Anna.hand", id="unknown-player-field"),
    pytest.param(_two({"scored": "red:5", "display": []}), "players.Anna.scored", id="scored-not-a-list"),
    pytest.param(_two({"scored": [], "display": ["red:4", "red:9"]}), "players.Anna.display[1]", id="no-such-card"),
    pytest.param(_two({"scored": [], "display": ["yellow:6"]}), "players.Anna.display[0]", id="yellow"),
    pytest.param(_two({"scored": [], "display": ["red5"]}), "players.Anna.display[0]", id="malformed"),
    pytest.param(_two({"scored": [], "display": [5]}), "players.Anna.display[0]", id="not-a-string"),
    pytest.param(_two({"scored": [], "display": ["red:8"]}, {"scored": [], "display": ["blue:4", "red:8"]}),
                 "players.Bruno.display[1]", id="copies-across-players"),
    pytest.param(_two({"scored": ["red:donkey", "red:donkey", "red:8"], "display": []},
                      {"scored": [], "display": ["red:donkey"]}),
                 "players.Bruno.display[0]", id="third-donkey-with-two-players"),
    pytest.param(_all_but_one_card(), "players", id="more-cards-than-in-play"),
]


@pytest.mark.parametrize(("doc", "field"), BAD_DOCUMENTS)
def test_score_document_refuses_naming_the_field(doc: Any, field: str) -> None:
    with pytest.raises(InvalidInput) as info:
        gold.score_document(doc)
    assert (info.value.field, str(info.value).startswith(f"{field}: ")) == (field, True)


@pytest.mark.parametrize(("doc", "field"), BAD_DOCUMENTS)
def test_score_document_error_quotes_the_value(doc: Any, field: str) -> None:
    with pytest.raises(InvalidInput) as info:
        gold.score_document(doc)
    assert repr(info.value.value) in str(info.value)


def test_score_document_copy_error_quotes_the_card_text() -> None:
    doc = _two({"scored": [], "display": ["red:8"]}, {"scored": [], "display": ["Red:8"]})
    with pytest.raises(InvalidInput, match=r"\(got 'Red:8'\)"):
        gold.score_document(doc)


def test_score_document_three_donkeys_of_a_colour_are_fine_with_three_players() -> None:
    doc = doc_of({"A": (["red:donkey", "red:donkey", "red:8"], []), "B": ([], ["red:donkey"]), "C": ([], [])})
    assert gold.score_document(doc)["scores"] == {"A": 4, "B": 0, "C": 0}


# --- Properties --------------------------------------------------------------------------------

NAMES = st.lists(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", min_size=1, max_size=6),
                 min_size=2, max_size=3, unique=True)


@st.composite
def legal_documents(draw: st.DrawFn) -> dict[str, Any]:
    """The end of some game: cards of a shuffled deck dealt as piles of sets and held pairs."""
    names = draw(NAMES)
    in_play = draw(st.permutations(list(gold.deck(len(names)).elements())))[gold.UNSEEN_REMOVED:]
    scored: dict[str, list[Card]] = {name: [] for name in names}
    held: dict[str, list[Card]] = {name: [] for name in names}
    for colour in gold.COLOURS:
        pool = [card for card in in_play if card.colour is colour]
        for name in names:
            for _ in range(draw(st.integers(0, 2))):
                if len(pool) >= gold.SET_SIZE:
                    scored[name] += pool[:gold.SET_SIZE]
                    pool = pool[gold.SET_SIZE:]
            keep = draw(st.integers(0, gold.MAX_HELD_PER_COLOUR))
            held[name] += pool[:keep]
            pool = pool[keep:]
    return doc_of({name: ([gold.to_card_text(card) for card in scored[name]],
                          [gold.to_card_text(card) for card in held[name]]) for name in names})


def _cards(doc: dict[str, Any], name: str, key: str) -> list[Card]:
    return [c(text) for text in doc["players"][name][key]]


@pytest.mark.slow
@given(doc=legal_documents(), data=st.data())
def test_score_document_player_order_never_changes_the_result(doc: dict[str, Any], data: st.DataObject) -> None:
    order = data.draw(st.permutations(list(doc["players"])))
    shuffled = {"players": {name: doc["players"][name] for name in order}}
    assert gold.score_document(shuffled) == gold.score_document(doc)


@pytest.mark.slow
@given(doc=legal_documents())
def test_score_document_colour_scoring_never_lowers_a_score(doc: dict[str, Any]) -> None:
    scores = gold.score_document(doc)["scores"]
    assert all(scores[name] >= gold.points(_cards(doc, name, "scored")) for name in doc["players"])


@pytest.mark.slow
@given(doc=legal_documents())
def test_end_game_banks_at_most_one_card_per_colour_per_player(doc: dict[str, Any]) -> None:
    sizes = gold.score_document(doc)["pile_sizes"]
    assert all(0 <= sizes[name] - len(doc["players"][name]["scored"]) <= len(gold.COLOURS)
               for name in doc["players"])


@pytest.mark.slow
@given(doc=legal_documents())
def test_end_game_every_held_card_is_banked_or_discarded_once(doc: dict[str, Any]) -> None:
    tableaus = gold.parse_document(doc)
    steps = gold.end_game(tableaus).colours
    after: Counter[tuple[str, Card]] = Counter()
    for step in steps:
        after.update((name, card) for name, card in step.banked.items())
        after.update((name, card) for name, cards in step.discarded.items() for card in cards)
    assert after == Counter((name, card) for name, t in tableaus.items() for card in t.holding)


@pytest.mark.slow
@given(doc=legal_documents())
def test_end_game_every_leader_banks_when_a_colour_is_scored(doc: dict[str, Any]) -> None:
    steps = gold.end_game(gold.parse_document(doc)).colours
    assert all(set(step.leaders) == set(step.banked) for step in steps)


@pytest.mark.slow
@given(doc=legal_documents())
def test_score_document_winners_top_the_points_and_then_the_cards(doc: dict[str, Any]) -> None:
    out = gold.score_document(doc)
    best = max(out["scores"].values())
    most = max(out["pile_sizes"][name] for name, score in out["scores"].items() if score == best)
    assert out["winners"] == sorted(name for name, score in out["scores"].items()
                                    if score == best and out["pile_sizes"][name] == most)


@pytest.mark.slow
@given(doc=legal_documents(), data=st.data())
def test_score_document_adding_a_card_nobody_else_holds_never_lowers_the_score(
        doc: dict[str, Any], data: st.DataObject) -> None:
    names = sorted(doc["players"])
    used = Counter(card for name in names for key in ("scored", "display") for card in _cards(doc, name, key))
    assume(used.total() < gold.cards_in_play(len(names)))
    spare = sorted(gold.deck(len(names)) - used, key=gold.card_sort_key)
    candidates = [(name, card) for name in names for card in spare
                  if sum(h.colour is card.colour for h in _cards(doc, name, "display")) < gold.MAX_HELD_PER_COLOUR
                  and not any(h.colour is card.colour for other in names if other != name
                              for h in _cards(doc, other, "display"))]
    assume(candidates)
    name, card = data.draw(st.sampled_from(candidates))
    more = {"players": {**doc["players"], name: {"scored": doc["players"][name]["scored"],
                                                 "display": [*doc["players"][name]["display"],
                                                             gold.to_card_text(card)]}}}
    assert gold.score_document(more)["scores"][name] >= gold.score_document(doc)["scores"][name]


HOLDINGS = st.lists(st.sampled_from(ALL_CARDS), max_size=6)
DISPLAYS = st.lists(st.sampled_from(ALL_CARDS), max_size=gold.DISPLAY_SIZE)


@given(holding=HOLDINGS, display=DISPLAYS, reading=st.sampled_from(list(ThreeReading)))
def test_legal_exchanges_are_exactly_the_checked_pairs(holding: list[Card], display: list[Card],
                                                       reading: ThreeReading) -> None:
    pairs = {Exchange(g, t) for g in holding for t in display}
    assert set(gold.legal_exchanges(holding, display, threes=reading)) == {
        e for e in pairs if not gold.check_exchange(holding, display, e, threes=reading)}


@given(holding=HOLDINGS, display=DISPLAYS)
def test_legal_exchanges_never_take_a_donkey(holding: list[Card], display: list[Card]) -> None:
    assert not any(e.take.is_donkey for e in gold.legal_exchanges(holding, display))


@pytest.mark.slow
@given(holding=HOLDINGS, display=DISPLAYS)
def test_legal_exchanges_option_1_always_takes_strictly_lower(holding: list[Card], display: list[Card]) -> None:
    assert all(e.take.value < e.give.value for e in gold.legal_exchanges(holding, display)
               if e.option is ExchangeOption.GOLD_FOR_LOWER_GOLD)


@given(display=DISPLAYS)
def test_legal_takes_are_exactly_the_lowest_cards(display: list[Card]) -> None:
    assert {card for card in display if gold.is_take_legal(display, card)} == {
        card for card in display if card.value == min(d.value for d in display)}


def test_score_document_missing_lists_are_empty() -> None:
    out = gold.score_document({"players": {"Anna": {"scored": ["red:4", "red:5", "red:6"]}, "Bruno": {}}})
    assert out == {"scores": {"Anna": 15, "Bruno": 0}, "pile_sizes": {"Anna": 3, "Bruno": 0}, "winners": ["Anna"]}


def test_score_document_scores_states_no_table_reaches_by_the_arithmetic() -> None:
    """A third card of a colour in a display, or a pile not made of sets, breaks no count:
    it is scored as written (the screen can warn with check_holding / check_pile)."""
    doc = {"players": {"Anna": {"scored": ["red:4", "red:5", "red:6", "red:7"],
                                "display": ["blue:3", "blue:donkey", "blue:donkey"]},
                       "Bruno": {"scored": [], "display": []}}}
    # Blue: Anna -1, Bruno 0: Bruno leads but has no gold, so nothing is banked.
    assert gold.score_document(doc) == {"scores": {"Anna": 22, "Bruno": 0}, "pile_sizes": {"Anna": 4, "Bruno": 0},
                                        "winners": ["Anna"]}
    with pytest.raises(InvalidInput) as info:
        gold.check_holding(gold.Tableau(**{"holding": tuple(gold.parse_card(c) for c in
                                                             doc["players"]["Anna"]["display"]), "pile": ()}).holding,
                           "players.Anna.display")
    assert info.value.field == "players.Anna.display[2]"
    with pytest.raises(InvalidInput):
        gold.check_pile(tuple(gold.parse_card(c) for c in doc["players"]["Anna"]["scored"]), "players.Anna.scored")
