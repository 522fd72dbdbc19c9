"""Gold!'s score sheet: the box's counts, adding and removing cards, the colour scoring as steps."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.errors import InvalidInput
from companion.games import gold
from companion.games.gold import Colour
from companion.games.gold import sheet as gold_sheet
from companion.games.gold.sheet import (
    AllCardsEntered,
    NoCopyLeft,
    SheetWarning,
    Standing,
    StepOutcome,
    TieBreakKind,
)
from tests.games.gold_helpers import EXAMPLE_3, EXAMPLE_4_AFTER, RULE_BOOK_COLOURS, c, doc_of


def empty(*names: str) -> dict[str, Any]:
    return doc_of({name: ([], []) for name in names})


# --- Adding and removing -------------------------------------------------------------------------


def test_check_add_allows_a_card_still_in_the_box() -> None:
    assert gold_sheet.check_add(EXAMPLE_3, "B", "display", c("green:4")) is None


def test_check_add_refuses_the_only_copy_naming_where_it_is() -> None:
    assert gold_sheet.check_add(EXAMPLE_3, "B", "scored", c("purple:8")) == \
        NoCopyLeft(c("purple:8"), 3, 1, (("A", "scored"),))


def test_check_add_refuses_a_third_three_of_a_colour() -> None:
    # Example 3: B's pile has both pink 3s.
    assert gold_sheet.check_add(EXAMPLE_3, "C", "display", c("pink:3")) == \
        NoCopyLeft(c("pink:3"), 3, 2, (("B", "scored"), ("B", "scored")))


def test_check_add_two_players_have_two_donkeys_a_colour() -> None:
    doc = doc_of({"X": (["red:donkey"], []), "Y": ([], ["red:donkey"])})
    assert gold_sheet.check_add(doc, "X", "display", c("red:donkey")) == \
        NoCopyLeft(c("red:donkey"), 2, 2, (("X", "scored"), ("Y", "display")))
    three = doc_of({"X": (["red:donkey"], []), "Y": ([], ["red:donkey"]), "Z": ([], [])})
    assert gold_sheet.check_add(three, "Z", "display", c("red:donkey")) is None


def test_check_add_refuses_once_every_card_in_play_is_entered() -> None:
    deck = sorted(gold.deck(3).elements(), key=gold.card_sort_key)
    entered, left = deck[:gold.cards_in_play(3)], deck[gold.cards_in_play(3):]
    texts = [gold.to_card_text(card) for card in entered]
    doc = doc_of({"A": (texts[:20], texts[20:25]), "B": (texts[25:45], []), "C": (texts[45:], [])})
    assert gold_sheet.check_add(doc, "A", "display", left[0]) == AllCardsEntered(3, 58)


def test_cards_left_counts_down_from_the_box() -> None:
    left = gold_sheet.cards_left(EXAMPLE_3)
    assert (left[c("purple:8")], left[c("pink:3")], left[c("green:4")], left[c("pink:donkey")]) == (0, 0, 1, 1)
    assert left.total() == 60 - 35


def test_check_add_raises_for_a_player_not_on_the_sheet() -> None:
    with pytest.raises(InvalidInput, match="player: is not on the sheet: A, B"):
        gold_sheet.check_add(empty("A", "B"), "Q", "display", c("red:5"))


def test_check_add_raises_for_an_unknown_field() -> None:
    with pytest.raises(InvalidInput, match="field: must be one of display, scored"):
        gold_sheet.check_add(empty("A", "B"), "A", "holding", c("red:5"))


def test_check_add_raises_for_four_players() -> None:
    with pytest.raises(InvalidInput, match="player_count"):
        gold_sheet.check_add(empty("A", "B", "C", "D"), "A", "display", c("red:5"))


def test_with_card_appends_without_touching_the_original() -> None:
    doc = empty("A", "B")
    after = gold_sheet.with_card(doc, "A", "scored", c("red:donkey"))
    assert after["players"]["A"]["scored"] == ["red:donkey"]
    assert doc == empty("A", "B")


def test_without_card_takes_one_copy_off() -> None:
    doc = doc_of({"A": (["pink:3", "pink:8", "pink:3"], []), "B": ([], [])})
    assert gold_sheet.without_card(doc, "A", "scored", c("pink:3"))["players"]["A"]["scored"] == \
        ["pink:8", "pink:3"]


def test_without_card_raises_for_a_card_not_listed() -> None:
    with pytest.raises(InvalidInput, match=r"players\.A\.display: that card is not on the list"):
        gold_sheet.without_card(empty("A", "B"), "A", "display", c("red:5"))


def test_by_colour_reads_colour_then_value_donkeys_last() -> None:
    assert gold_sheet.by_colour(gold_sheet.cards(EXAMPLE_3, "A", "display")) == \
        (c("green:3"), c("blue:5"), c("red:8"), c("red:donkey"), c("pink:donkey"))


def test_card_of_refuses_yellow() -> None:
    with pytest.raises(InvalidInput, match="colour: unknown colour"):
        gold_sheet.card_of("yellow", 5)


# --- Warnings ------------------------------------------------------------------------------------


def test_sheet_warnings_none_for_the_digest_example() -> None:
    assert gold_sheet.sheet_warnings(EXAMPLE_3) == ()


def test_sheet_warnings_a_third_display_card_and_a_broken_set() -> None:
    doc = doc_of({"A": (["purple:8", "purple:7"], ["red:3", "red:4", "red:5"]), "B": ([], [])})
    assert gold_sheet.sheet_warnings(doc) == (SheetWarning("A", "display", Colour.RED, 3),
                                               SheetWarning("A", "scored", Colour.PURPLE, 2))


# --- The colour scoring, step by step ------------------------------------------------------------


def test_walk_example_3_outcomes_in_colour_order() -> None:
    steps = gold_sheet.walk(EXAMPLE_3).steps
    assert [(s.colour, s.outcome, s.top_sum) for s in steps] == [
        (Colour.GREEN, StepOutcome.TIE, 3), (Colour.BLUE, StepOutcome.LEADER, 10),
        (Colour.PURPLE, StepOutcome.NOBODY, 0), (Colour.RED, StepOutcome.TIE, 6),
        (Colour.ORANGE, StepOutcome.TIE, 6), (Colour.PINK, StepOutcome.NO_GOLD, 0)]


def test_walk_example_3_piles_grow_colour_by_colour() -> None:
    walk = gold_sheet.walk(EXAMPLE_3)
    assert walk.before == {"A": Standing(34, 6), "B": Standing(26, 6), "C": Standing(33, 9)}
    assert [dict(s.piles) for s in walk.steps][:2] == [
        {"A": Standing(37, 7), "B": Standing(26, 6), "C": Standing(38, 10)},
        {"A": Standing(37, 7), "B": Standing(33, 7), "C": Standing(38, 10)}]
    assert walk.steps[-1].piles == {"A": Standing(45, 8), "B": Standing(45, 9), "C": Standing(41, 11)}
    assert walk.banked == {"A": (c("green:3"), c("red:8")), "B": (c("blue:7"), c("red:6"), c("orange:6")),
                           "C": (c("green:5"), c("orange:3"))}


def test_walk_example_3_held_cards_of_a_colour() -> None:
    green = gold_sheet.walk(EXAMPLE_3).steps[0]
    assert green.held == {"A": (c("green:3"),), "B": (), "C": (c("green:donkey"), c("green:5"))}


def test_walk_example_3_card_count_breaks_the_tie() -> None:
    tie = gold_sheet.walk(EXAMPLE_3).tie_break
    assert (tie.kind, tie.points, tie.tied, tie.cards, tie.winners) == \
        (TieBreakKind.CARDS, 45, ("A", "B"), 9, ("B",))


def test_walk_example_4_full_tie_shares_the_win() -> None:
    tie = gold_sheet.walk(EXAMPLE_4_AFTER).tie_break
    assert (tie.kind, tie.points, tie.tied, tie.cards, tie.winners) == \
        (TieBreakKind.SHARED, 51, ("X", "Y"), 11, ("X", "Y"))


def test_walk_rule_book_colours_clear_winner() -> None:
    walk = gold_sheet.walk(RULE_BOOK_COLOURS)
    assert (walk.tie_break.kind, walk.tie_break.winners) == (TieBreakKind.CLEAR, ("Dani",))
    assert walk.steps[0].outcome is StepOutcome.NO_GOLD   # green: Karcsi's donkey alone


# --- Properties: the sheet agrees with the rules core --------------------------------------------


@st.composite
def sheets(draw: st.DrawFn) -> dict[str, Any]:
    """A random sheet: some of a 2- or 3-player deck dealt into displays and piles."""
    names = ["A", "B", "C"][:draw(st.integers(2, 3))]
    deck = sorted(gold.deck(len(names)).elements(), key=gold.card_sort_key)
    dealt = draw(st.lists(st.sampled_from(range(len(deck))), unique=True, max_size=30))
    places = draw(st.lists(st.tuples(st.sampled_from(names), st.sampled_from(gold_sheet.FIELDS)),
                           min_size=len(dealt), max_size=len(dealt)))
    players: dict[str, dict[str, list[str]]] = {name: {"scored": [], "display": []} for name in names}
    for i, (name, field) in zip(dealt, places, strict=True):
        players[name][field].append(gold.to_card_text(deck[i]))
    return {"players": players}


@pytest.mark.slow
@given(doc=sheets())
def test_walk_last_step_is_what_companion_score_answers(doc: dict[str, Any]) -> None:
    walk = gold_sheet.walk(doc)
    answer = gold.score_document(doc)
    assert {n: s.points for n, s in walk.steps[-1].piles.items()} == answer["scores"]
    assert {n: s.cards for n, s in walk.steps[-1].piles.items()} == answer["pile_sizes"]
    assert list(walk.tie_break.winners) == answer["winners"]


@given(doc=sheets(), colour=st.sampled_from(gold.COLOURS), value=st.sampled_from(gold_sheet.VALUES),
       field=st.sampled_from(gold_sheet.FIELDS))
@pytest.mark.slow
def test_check_add_refuses_exactly_what_the_rules_core_refuses(doc: dict[str, Any], colour: Colour,
                                                                value: int | None, field: str) -> None:
    card = gold_sheet.card_of(colour, value)
    refusal = gold_sheet.check_add(doc, "A", field, card)
    try:
        gold.parse_document(gold_sheet.with_card(doc, "A", field, card))
        accepted = True
    except InvalidInput:
        accepted = False
    assert (refusal is None) == accepted
