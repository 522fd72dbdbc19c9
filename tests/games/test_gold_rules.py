"""Gold!: cards and the box, taking and exchanging, sets, colour scoring and the tie rules."""

from __future__ import annotations

import pytest

from companion.errors import InvalidInput
from companion.games import gold
from companion.games.gold import (
    Card,
    Colour,
    Exchange,
    ExchangeOption,
    Refusal,
    Steal,
    ThreeReading,
)
from tests.games.gold_helpers import (
    ALL_CARDS,
    EXAMPLE_2,
    c,
    cs,
)

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
