"""Gold!: the score document's contract and its bad input, and properties."""

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
    ThreeReading,
)
from tests.games.gold_helpers import (
    ALL_CARDS,
    EXAMPLE_3,
    c,
    doc_of,
)

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
