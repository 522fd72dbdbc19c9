"""A photo of the table turned into score-sheet entries: the reading, the front names, the calls,
the players' corrections, and the sheets' own checks."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.errors import InvalidInput
from companion.games import dragons_gold, drakon, gold
from companion.games.dragons_gold import Disc
from companion.games.dragons_gold.photo import (
    PIECES as DRAGONS_GOLD_PIECES,
)
from companion.games.dragons_gold.photo import (
    disc_counts,
    dragons_gold_counts,
    parse_disc_front,
    to_disc_front,
)
from companion.games.drakon import play as drakon_play
from companion.games.drakon.photo import (
    PIECES as DRAKON_PIECES,
)
from companion.games.drakon.photo import (
    coin_worths,
    drakon_coins,
    parse_coin_front,
    to_coin_front,
)
from companion.games.gold import sheet as gold_sheet
from companion.games.gold.photo import PIECES as GOLD_PIECES
from companion.games.gold.photo import card_list, gold_cards, parse_card_front, to_card_front
from companion.games.gold.sheet import AllCardsEntered, NoCopyLeft
from companion.games.table_photo import (
    Call,
    PhotoPiece,
    PhotoTally,
    first_call,
    parse_reading,
    piece_at,
)

RULES = (DRAGONS_GOLD_PIECES, DRAKON_PIECES, GOLD_PIECES)
SQUARE = [[0, 0], [10, 0], [10, 10], [0, 10]]


def matched(kind: str, front: str | None, face: str = "up", outline: Any = None) -> dict[str, Any]:
    """A matched piece as the camera reports it."""
    return {"kind": kind, "face": face, "front": front if face == "up" else None, "center_px": [5, 5],
            "angle_deg": 0.0, "confidence": 0.9, "outline_px": outline if outline is not None else SQUARE}


def unknown(outline: Any = None) -> dict[str, Any]:
    return {"center_px": [5, 5], "outline_px": outline if outline is not None else SQUARE}


def reading(pieces: list[dict[str, Any]], unknowns: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    return {"pieces": pieces, "unknown": list(unknowns), "width": 20, "height": 20, "rgb": b"\0" * 1200}


# --- The reading -------------------------------------------------------------------------------


def test_parse_reading_matched_pieces_first_then_the_unknown_in_order() -> None:
    pieces = parse_reading(reading([matched("coin", "3"), matched("coin", None, "down")], (unknown(),)))
    assert [(p.kind, p.face, p.front) for p in pieces] == [("coin", "up", "3"), ("coin", "down", None),
                                                            (None, None, None)]
    assert pieces[0].outline_px == ((0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0))
    assert pieces[0].center_px == (5.0, 5.0) and pieces[0].confidence == 0.9
    assert not pieces[2].is_matched


def test_parse_reading_a_face_down_piece_shows_no_front() -> None:
    [piece] = parse_reading(reading([{**matched("coin", "3"), "face": "down"}]))
    assert piece.front is None


@pytest.mark.parametrize(("doc", "field"), [
    ([], "reading"),
    ({"pieces": {}}, "pieces"),
    ({"pieces": [{"face": "up"}]}, "pieces[0].kind"),
    ({"pieces": [{"kind": "coin", "face": "sideways"}]}, "pieces[0].face"),
    ({"pieces": [{"kind": "coin", "face": "up", "front": 3}]}, "pieces[0].front"),
    ({"pieces": [{"kind": "coin", "face": "up", "outline_px": [[1, 2, 3]]}]}, "pieces[0].outline_px[0]"),
    ({"pieces": [{"kind": "coin", "face": "up", "outline_px": [[1, float("nan")]]}]}, "pieces[0].outline_px[0]"),
    ({"pieces": [{"kind": "coin", "face": "up", "confidence": "high"}]}, "pieces[0].confidence"),
    ({"unknown": [{"outline_px": [["a", 1]]}]}, "unknown[0].outline_px[0]"),
])
def test_parse_reading_names_what_is_wrong(doc: Any, field: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_reading(doc)
    assert caught.value.field == field


def test_piece_at_picks_the_smallest_outline_holding_the_point() -> None:
    big = PhotoPiece("card", "up", "red-5", ((0, 0), (100, 0), (100, 100), (0, 100)))
    small = PhotoPiece("coin", "up", "3", ((40, 40), (60, 40), (60, 60), (40, 60)))
    assert piece_at([big, small], (50, 50)) == 1
    assert piece_at([big, small], (10, 10)) == 0


def test_piece_at_takes_the_nearest_outline_within_the_slack() -> None:
    left = PhotoPiece("coin", "up", "1", ((0, 0), (10, 0), (10, 10), (0, 10)))
    right = PhotoPiece("coin", "up", "2", ((30, 0), (40, 0), (40, 10), (30, 10)))
    assert piece_at([left, right], (14, 5), slack_px=5) == 0
    assert piece_at([left, right], (27, 5), slack_px=5) == 1
    assert piece_at([left, right], (20, 5), slack_px=5) is None
    assert piece_at([left, right], (14, 5)) is None


# --- Front names -------------------------------------------------------------------------------


def test_disc_fronts_round_trip_every_disc() -> None:
    for disc in Disc:
        assert parse_disc_front(to_disc_front(disc)) is disc
    assert parse_disc_front(" Gold ") is Disc.GOLD


def test_coin_fronts_round_trip_every_worth() -> None:
    for worth in drakon.COIN_VALUES:
        assert parse_coin_front(to_coin_front(worth)) == worth


def test_card_fronts_round_trip_every_card() -> None:
    for card in gold.deck(3):
        front = to_card_front(card)
        assert ":" not in front and parse_card_front(front) == card
    assert to_card_front(gold.parse_card("red:donkey")) == "red-donkey"


@pytest.mark.parametrize(("parse", "name"), [
    (parse_disc_front, "diamond"), (parse_coin_front, "4"), (parse_coin_front, "03"),
    (parse_card_front, "red:5"), (parse_card_front, "red5"), (parse_card_front, "yellow-5"),
    (parse_card_front, "red-9"),
])
def test_front_parsers_refuse_names_naming_the_front(parse: Any, name: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse(name)
    assert caught.value.field == "front"


@given(name=st.text(alphabet="abcdeglnoprsuyk0123456789-_.", max_size=14))
def test_a_front_name_is_a_value_of_the_game_or_none(name: str) -> None:
    for rules in RULES:
        value = rules.value_of(name)
        assert value is None or value in rules.values


def test_the_games_read_their_own_kind_and_values() -> None:
    assert (DRAGONS_GOLD_PIECES.kind, DRAKON_PIECES.kind, GOLD_PIECES.kind) == ("treasure", "coin", "card")
    assert DRAGONS_GOLD_PIECES.values == tuple(d.value for d in Disc)
    assert DRAKON_PIECES.values == ("1", "2", "3")
    assert len(GOLD_PIECES.values) == len(gold.COLOURS) * 7 and "red:donkey" in GOLD_PIECES.values
    assert GOLD_PIECES.value_of("Red-5") == "red:5" and GOLD_PIECES.value_of("red-donkey") == "red:donkey"


# --- Calls and corrections -----------------------------------------------------------------------


@pytest.mark.parametrize(("piece", "call", "value"), [
    (PhotoPiece("coin", "up", "3", ()), Call.READ, "3"),
    (PhotoPiece("coin", "down", None, ()), Call.FACE_DOWN, None),
    (PhotoPiece("coin", "up", "7", ()), Call.UNMAPPED, None),
    (PhotoPiece("card", "up", "red-5", ()), Call.OTHER_KIND, None),
    (PhotoPiece(None, None, None, ()), Call.UNKNOWN, None),
])
def test_first_call_of_each_kind_of_piece(piece: PhotoPiece, call: Call, value: str | None) -> None:
    got = first_call(piece, DRAKON_PIECES)
    assert (got.call, got.value) == (call, value)
    assert got.call.is_counted == (value is not None)
    assert got.call.is_open == (value is None)


def test_tally_counts_what_is_read_and_lists_the_rest() -> None:
    tally = PhotoTally.of(reading([matched("coin", "3"), matched("coin", None, "down"), matched("chamber", "hall"),
                                   matched("coin", "2")], (unknown(),)), DRAKON_PIECES)
    assert tally.values == ("3", "2")
    assert tally.open == (1, 2, 4) and not tally.is_complete


def test_tally_corrections_give_a_value_or_drop_a_piece() -> None:
    tally = PhotoTally.of(reading([matched("coin", "3"), matched("coin", None, "down")], (unknown(),)),
                          DRAKON_PIECES)
    after = tally.correct(1, "2").correct(2, None).correct(0, "1")
    assert after.values == ("1", "2") and after.is_complete
    assert [c.call for c in after.calls()] == [Call.GIVEN, Call.GIVEN, Call.DROPPED]
    assert tally.values == ("3",), "a correction makes a new tally"


def test_tally_refuses_a_piece_or_value_it_has_not_got() -> None:
    tally = PhotoTally.of(reading([matched("coin", "3")]), DRAKON_PIECES)
    with pytest.raises(InvalidInput, match="piece"):
        tally.correct(1, "2")
    with pytest.raises(InvalidInput, match="value"):
        tally.correct(0, "4")


pieces = st.builds(
    PhotoPiece,
    kind=st.sampled_from([None, "coin", "treasure", "card", "chamber"]),
    face=st.sampled_from(["up", "down"]),
    front=st.sampled_from([None, "1", "2", "3", "7", "gold", "black", "red-5", "pink-donkey", "joker"]),
    outline_px=st.just(((0.0, 0.0), (1.0, 0.0), (1.0, 1.0))))
game_rules = st.sampled_from(RULES)


@pytest.mark.slow
@given(photo=st.lists(pieces, max_size=12), rules=game_rules)
def test_every_piece_is_counted_or_open_and_counted_ones_are_read_fronts(photo: list[PhotoPiece],
                                                                         rules: Any) -> None:
    tally = PhotoTally(rules, tuple(photo))
    assert len(tally.values) + len(tally.open) == len(photo)
    assert list(tally.values) == [rules.value_of(p.front) for p in photo
                                  if p.kind == rules.kind and p.face == "up" and rules.value_of(p.front)]


@pytest.mark.slow
@given(photo=st.lists(pieces, max_size=12), rules=game_rules, data=st.data())
def test_corrections_change_exactly_the_pieces_they_name(photo: list[PhotoPiece], rules: Any,
                                                         data: st.DataObject) -> None:
    tally = PhotoTally(rules, tuple(photo))
    given_values: dict[int, str | None] = {}
    for _ in range(data.draw(st.integers(0, 2 * len(photo)))):
        index = data.draw(st.integers(0, len(photo) - 1))
        value = data.draw(st.sampled_from([None, *rules.values]))
        tally, given_values[index] = tally.correct(index, value), value
    untouched = PhotoTally(rules, tuple(photo))
    expected = Counter(untouched.call(i).value for i in range(len(photo))
                       if i not in given_values and untouched.call(i).value is not None)
    expected.update(v for v in given_values.values() if v is not None)
    assert Counter(tally.values) == expected
    assert set(tally.open) == set(untouched.open) - set(given_values)
    dropped = sum(1 for v in given_values.values() if v is None)
    assert len(tally.values) + len(tally.open) + dropped == len(photo)


@pytest.mark.slow
@given(photo=st.lists(pieces, max_size=12), rules=game_rules, value=st.data())
def test_giving_every_open_piece_a_value_completes_the_tally(photo: list[PhotoPiece], rules: Any,
                                                            value: st.DataObject) -> None:
    tally = PhotoTally(rules, tuple(photo))
    for index in tally.open:
        tally = tally.correct(index, value.draw(st.sampled_from(rules.values)))
    assert tally.is_complete and len(tally.values) == len(photo)


# --- Onto the sheets -----------------------------------------------------------------------------


@given(values=st.lists(st.sampled_from(DRAGONS_GOLD_PIECES.values), max_size=30), order=st.randoms())
def test_disc_counts_count_every_disc_once_whatever_the_order(values: list[str], order: Any) -> None:
    counts = disc_counts(values)
    assert list(counts) == [d.value for d in Disc] and sum(counts.values()) == len(values)
    shuffled = list(values)
    order.shuffle(shuffled)
    assert disc_counts(shuffled) == counts


@pytest.mark.slow
@given(values=st.lists(st.sampled_from(DRAKON_PIECES.values), max_size=30), order=st.randoms())
def test_coin_worths_are_the_values_highest_first_whatever_the_order(values: list[str], order: Any) -> None:
    shuffled = list(values)
    order.shuffle(shuffled)
    assert coin_worths(shuffled) == coin_worths(values) == sorted(map(int, values), reverse=True)


@pytest.mark.slow
@given(values=st.lists(st.sampled_from(GOLD_PIECES.values), max_size=20), order=st.randoms())
def test_card_list_is_the_cards_in_colour_order_whatever_the_order(values: list[str], order: Any) -> None:
    shuffled = list(values)
    order.shuffle(shuffled)
    assert card_list(shuffled) == card_list(values)
    assert Counter(card_list(values)) == Counter(values)


def dg_sheet(**players: dict[str, int]) -> dict[str, Any]:
    return {"rules": "simple", "players": {name: dict(counts) for name, counts in players.items()}}


def test_dragons_gold_counts_replace_the_players_counts() -> None:
    doc = dg_sheet(A={"silver": 4, "white": 2}, B={"gold": 1}, C={})
    counts = dragons_gold_counts(doc, "A", ["silver", "gold", "gold", "black"])
    assert counts == {**{d.value: 0 for d in Disc}, "silver": 1, "gold": 2, "black": 1}
    assert doc == dg_sheet(A={"silver": 4, "white": 2}, B={"gold": 1}, C={}), "the sheet is not changed"


def test_dragons_gold_counts_refuse_a_second_black_diamond() -> None:
    with pytest.raises(InvalidInput, match="only one black diamond"):
        dragons_gold_counts(dg_sheet(A={}, B={"black": 1}, C={}), "A", ["black"])


def test_dragons_gold_counts_refuse_more_than_the_box_holds() -> None:
    with pytest.raises(InvalidInput, match="the box holds 6"):
        dragons_gold_counts(dg_sheet(A={}, B={"white": 4}, C={}), "A", ["white"] * 3)


def test_dragons_gold_counts_name_a_player_not_on_the_sheet() -> None:
    with pytest.raises(InvalidInput, match="player"):
        dragons_gold_counts(dg_sheet(A={}, B={}, C={}), "Z", [])


@given(others=st.lists(st.lists(st.sampled_from(DRAGONS_GOLD_PIECES.values), max_size=12), min_size=2, max_size=5),
       values=st.lists(st.sampled_from(DRAGONS_GOLD_PIECES.values), max_size=40))
@pytest.mark.slow
def test_dragons_gold_counts_are_taken_exactly_when_the_sheet_would_score(others: list[list[str]],
                                                                           values: list[str]) -> None:
    doc = {"players": {f"P{i}": disc_counts(v) for i, v in enumerate(others)} | {"A": {"silver": 35}}}
    candidate = {"players": {**doc["players"], "A": disc_counts(values)}}
    try:
        dragons_gold.score_document(candidate)
        scores = True
    except InvalidInput:
        scores = False
    try:
        assert dragons_gold_counts(doc, "A", values) == disc_counts(values)
        taken = True
    except InvalidInput:
        taken = False
    assert taken == scores


def test_drakon_coins_replace_the_players_coins() -> None:
    doc = drakon_play.sheet_document({"players": {"Anna": {"coins": [1]}, "Bence": {"coins": [3]}}},
                                      ["Anna", "Bence"])
    assert drakon_coins(doc, "Anna", ["2", "3", "1"]) == [3, 2, 1]


def test_drakon_coins_refuse_more_than_the_box_holds() -> None:
    doc = drakon_play.sheet_document({"players": {"Anna": {"coins": []}, "Bence": {"coins": [1] * 20}}},
                                      ["Anna", "Bence"])
    assert len(drakon_coins(doc, "Anna", ["3"] * 8)) == 8
    with pytest.raises(InvalidInput):
        drakon_coins(doc, "Anna", ["3"] * 9)


def gold_doc(**players: tuple[list[str], list[str]]) -> dict[str, Any]:
    return {"players": {name: {"scored": pile, "display": shown} for name, (pile, shown) in players.items()}}


def test_gold_cards_replace_the_list_so_its_old_cards_do_not_count_against_the_box() -> None:
    doc = gold_doc(A=([], ["red:5", "pink:7"]), B=([], []))
    assert gold_cards(doc, "A", "display", ["red:5", "green:8"]) == ["green:8", "red:5"]


def test_gold_cards_refuse_a_card_the_box_has_no_more_of_naming_where_it_is() -> None:
    doc = gold_doc(A=([], []), B=([], ["red:5"]))
    refusal = gold_cards(doc, "A", "display", ["green:8", "red:5"])
    assert refusal == NoCopyLeft(gold.parse_card("red:5"), 2, 1, (("B", "display"),))


def test_gold_cards_refuse_past_every_card_in_play() -> None:
    deck = sorted(gold.deck(2).elements(), key=gold.card_sort_key)
    texts = [gold.to_card_text(card) for card in deck]
    doc = gold_doc(A=([], []), B=(texts[:gold.cards_in_play(2)], []))
    assert gold_cards(doc, "A", "display", [texts[-1]]) == AllCardsEntered(2, 52)


@pytest.mark.slow
@given(data=st.data())
def test_gold_cards_are_taken_exactly_when_the_rules_core_takes_the_sheet(data: st.DataObject) -> None:
    cards = st.lists(st.sampled_from(GOLD_PIECES.values), max_size=8)
    doc = gold_doc(A=(data.draw(cards), data.draw(cards)), B=(data.draw(cards), data.draw(cards)))
    try:
        gold.parse_document(doc)
    except InvalidInput:
        return  # a sheet the screen never holds
    values = data.draw(st.lists(st.sampled_from(GOLD_PIECES.values), max_size=12))
    where = data.draw(st.sampled_from(gold_sheet.FIELDS))
    replaced = {"players": {**doc["players"], "A": {**doc["players"]["A"], where: card_list(values)}}}
    try:
        gold.parse_document(replaced)
        valid = True
    except InvalidInput:
        valid = False
    assert isinstance(gold_cards(doc, "A", where, values), list) == valid
