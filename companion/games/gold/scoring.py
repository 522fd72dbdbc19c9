"""Gold!: scoring a set, the colour scoring and the final scoring (rule book, EGY KÉSZLET PONTOZÁSA,
SZÍN PONTOZÁSA, VÉGSŐ PONTOZÁS), and the ``companion score gold`` document."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from companion.errors import InvalidInput
from companion.games._input import (
    expect_keys,
    expect_list,
    expect_object,
    expect_players,
    expect_str,
    winners_of,
)
from companion.games.gold import rules
from companion.games.gold.rules import (
    Card,
    Colour,
    card_sort_key,
    cards_in_play,
    deck,
    parse_card,
    sorted_cards,
    to_card_text,
)

# --- Scoring a set (rule book, EGY KÉSZLET PONTOZÁSA) ------------------------------------------


@dataclass(frozen=True)
class Tableau:
    """What one player has on the table: the open holding and the face-down scoring pile."""

    holding: tuple[Card, ...] = ()
    pile: tuple[Card, ...] = ()

    @property
    def pile_points(self) -> int:
        return points(self.pile)


@dataclass(frozen=True)
class Steal:
    """The bonus of a set: *card* taken from *victim*'s holding."""

    victim: str
    card: Card


@dataclass(frozen=True)
class SetScored:
    """The outcome of scoring a set: what moved where, and every tableau afterwards."""

    player: str
    colour: Colour
    cards: tuple[Card, ...]            # the three cards now face down on the pile
    points: int                        # their sum, donkeys -2 (it can be negative)
    steal: Steal | None
    tableaus: Mapping[str, Tableau]


def points(cards: Iterable[Card]) -> int:
    """The sum of the cards' values, donkeys -2 (rule book, VÉGSŐ PONTOZÁS)."""
    return sum(card.value for card in cards)


def colour_counts(cards: Iterable[Card]) -> Counter[Colour]:
    return Counter(card.colour for card in cards)


def completed_sets(holding: Sequence[Card]) -> tuple[Colour, ...]:
    """The colours of which *holding* has 3 or more cards (donkeys count: they have a colour)."""
    counts = colour_counts(holding)
    return tuple(colour for colour in rules.COLOURS if counts[colour] >= rules.SET_SIZE)


def has_set(holding: Sequence[Card]) -> bool:
    return bool(completed_sets(holding))


def bonus_options(holding: Sequence[Card], colour: Colour,
                  opponents: Mapping[str, Sequence[Card]]) -> tuple[Steal, ...]:
    """The cards a player scoring *colour* may steal: none of a colour in his holding, nor *colour*.

    The steal comes before the set leaves the holding, so "not the scored colour" is
    also "not a colour held"; the rule book says both. An empty answer means no bonus.
    Ordered by victim name, then card.
    """
    barred = {card.colour for card in holding} | {colour}
    return tuple(Steal(victim, card)
                 for victim in sorted(opponents) for card in sorted_cards(set(opponents[victim]))
                 if card.colour not in barred and (rules.STEAL_MAY_TAKE_DONKEY or not card.is_donkey))


def score_set(tableaus: Mapping[str, Tableau], player: str, colour: Colour,
              steal: Steal | None = None) -> SetScored:
    """Score *player*'s set of *colour*: the bonus steal first, then the three cards onto his pile.

    The rule book orders it so: "Bónuszként elvehet egy lapot ... Ezután a játékos elveszi
    a készletét" (he may take a bonus card, *then* puts the set face down).

    :raises InvalidInput: naming ``player`` for an unknown player, ``colour`` unless the
        holding has exactly three cards of it, ``steal`` for a card the rules do not offer
        (or no steal when :data:`STEAL_IS_OPTIONAL` is off and one was possible).
    """
    if player not in tableaus:
        raise InvalidInput("player", player, "is not at this table: " + ", ".join(sorted(tableaus)))
    mine = tableaus[player]
    held = [card for card in mine.holding if card.colour is colour]
    if len(held) != rules.SET_SIZE:
        raise InvalidInput("colour", str(colour), f"a set is exactly {rules.SET_SIZE} cards of one colour; "
                                                  f"{player}'s holding has {len(held)}")
    opponents = {name: t.holding for name, t in tableaus.items() if name != player}
    options = bonus_options(mine.holding, colour, opponents)
    if steal is not None and steal not in options:
        allowed = ", ".join(f"{s.victim}'s {to_card_text(s.card)}" for s in options) or "nothing"
        raise InvalidInput("steal", steal, f"the bonus may take {allowed}")
    if steal is None and options and not rules.STEAL_IS_OPTIONAL:
        raise InvalidInput("steal", steal, "a bonus card must be taken when one is on offer")
    after = dict(tableaus)
    holding = [card for card in mine.holding if card.colour is not colour]
    if steal is not None:
        victim_holding = list(tableaus[steal.victim].holding)
        victim_holding.remove(steal.card)
        after[steal.victim] = replace(tableaus[steal.victim], holding=tuple(victim_holding))
        holding.append(steal.card)
    after[player] = Tableau(tuple(holding), mine.pile + tuple(held))
    return SetScored(player, colour, tuple(held), points(held), steal, after)


# --- The end: colour scoring (rule book, SZÍN PONTOZÁSA) and final scoring (VÉGSŐ PONTOZÁS) -------


@dataclass(frozen=True)
class ColourScoring:
    """One colour of the end scoring, step by step, for a screen to show.

    *sums* has every player (0 with no card of the colour). *scored* is false when no
    holding has a gold card of the colour; then *leaders* and *banked* are empty.
    *discarded* lists, per player who had any, the cards of the colour that go to the
    discard pile: everything not banked, donkeys always.
    """

    colour: Colour
    sums: Mapping[str, int]
    scored: bool
    leaders: tuple[str, ...]
    banked: Mapping[str, Card]
    discarded: Mapping[str, tuple[Card, ...]]


def score_colour(holdings: Mapping[str, Sequence[Card]], colour: Colour) -> ColourScoring:
    """The colour scoring of *colour* over every player's holding (rule book, SZÍN PONTOZÁSA).

    Each player sums his holding's cards of the colour (donkeys -2; piles do not count).
    The highest sum's holder banks his highest gold card of the colour; on a tie each
    tied player banks his own. With no gold card of the colour in any holding, nothing
    is scored. Every other card of the colour, donkeys always, is discarded.

    Reading: for a tie the rule book says each tied player "hozzáteheti" (*may* add) his
    card. A gold card is worth 3-8 and adds a card for the tie-break, so declining can
    never help; we always bank. With at most 2 cards of a colour held (a set is scored
    at once), a holding with gold sums to 3 - 2 = 1 or more and one without to 0 or
    less, so the leaders always hold gold; the guard below is for states that cannot
    arise at a real table.
    """
    cards = {name: [card for card in held if card.colour is colour] for name, held in holdings.items()}
    sums = {name: points(mine) for name, mine in cards.items()}
    scored = any(not card.is_donkey for mine in cards.values() for card in mine)
    leaders = tuple(winners_of(sums)) if scored else ()
    banked: dict[str, Card] = {}
    for name in leaders:
        gold = [card for card in cards[name] if not card.is_donkey]
        if gold:
            banked[name] = max(gold, key=card_sort_key)
    discarded: dict[str, tuple[Card, ...]] = {}
    for name in sorted(cards):
        rest = list(cards[name])
        if name in banked:
            rest.remove(banked[name])
        if rest:
            discarded[name] = sorted_cards(rest)
    return ColourScoring(colour, sums, scored, leaders, banked, discarded)


def colour_scoring(holdings: Mapping[str, Sequence[Card]]) -> tuple[ColourScoring, ...]:
    """All six colours scored, in the rule book's colour order ("Minden színt külön kell pontozni")."""
    return tuple(score_colour(holdings, colour) for colour in rules.COLOURS)


@dataclass(frozen=True)
class FinalResult:
    """The final scoring: points and card count of each pile, and who won."""

    scores: Mapping[str, int]
    pile_sizes: Mapping[str, int]
    winners: tuple[str, ...]


def winners_with_tiebreak(scores: Mapping[str, int], pile_sizes: Mapping[str, int]) -> tuple[str, ...]:
    """Most points; among those tied, most cards in the pile; still tied, all of them (sorted).

    Rule book, VÉGSŐ PONTOZÁS: "Döntetlen esetén az lesz a győztes, akinek a legtöbb lapja
    van a pontozó paklijában. Ha még ezután is döntetlen az állás, minden érintett
    játékos nyer." The card count only separates players tied on points.
    """
    tied = winners_of(scores)
    return tuple(winners_of({name: pile_sizes[name] for name in tied}))


def final_result(piles: Mapping[str, Sequence[Card]]) -> FinalResult:
    """Score each pile as the sum of its cards' values, donkeys -2 (rule book, VÉGSŐ PONTOZÁS)."""
    scores = {name: points(pile) for name, pile in sorted(piles.items())}
    sizes = {name: len(pile) for name, pile in sorted(piles.items())}
    return FinalResult(scores, sizes, winners_with_tiebreak(scores, sizes))


@dataclass(frozen=True)
class GameEnd:
    """The end of a game: the colour scoring's steps, each final pile, and the result."""

    colours: tuple[ColourScoring, ...]
    piles: Mapping[str, tuple[Card, ...]]
    result: FinalResult


def end_game(tableaus: Mapping[str, Tableau]) -> GameEnd:
    """Colour scoring on the holdings, the banked cards onto the piles, then the final scoring.

    Call it after the action that took the last display card, that action's set (if
    any) already scored (digest G4). Holdings are emptied: every card in them is banked
    or discarded.
    """
    steps = colour_scoring({name: t.holding for name, t in tableaus.items()})
    piles = {name: t.pile + tuple(step.banked[name] for step in steps if name in step.banked)
             for name, t in sorted(tableaus.items())}
    return GameEnd(steps, piles, final_result(piles))


# --- companion score gold ----------------------------------------------------------------------

_PLAYER_FIELDS: Final = ("scored", "display")


def parse_document(doc: Any) -> dict[str, Tableau]:
    """The tableaus a ``companion score gold`` document describes (``display`` is the holding).

    Besides the shape and the card spelling, it refuses more copies of a card than the
    game uses (with 2 players, 2 donkeys per colour) and more cards than are in play (58,
    or 52). A missing ``scored`` or ``display`` is an empty one. States no table reaches
    but that break no count (three cards of a colour in a display, a pile that is not
    made of sets) are scored as written, by the rule book's arithmetic: refusing them
    would answer "bad input" where the rules still give a number. :func:`check_holding`
    and :func:`check_pile` are there for a screen that wants to warn about them.
    Players are checked in name order, scored before display, so the error named never
    depends on the input's order.

    :raises InvalidInput: naming the offending place, e.g. ``players.Anna.display[3]``.
    """
    root = expect_object(doc, "document")
    expect_keys(root, "", ("players",), required=("players",))
    players = expect_players(root, "players", rules.MIN_PLAYERS, rules.MAX_PLAYERS)
    box = deck(len(players))
    seen: Counter[Card] = Counter()
    tableaus: dict[str, Tableau] = {}
    for name in sorted(players):
        where = f"players.{name}"
        entry = expect_object(players[name], where)
        expect_keys(entry, where, _PLAYER_FIELDS)
        lists: dict[str, tuple[Card, ...]] = {}
        for key in _PLAYER_FIELDS:
            cards: list[Card] = []
            for i, item in enumerate(expect_list(entry.get(key, []), f"{where}.{key}")):
                field = f"{where}.{key}[{i}]"
                card = parse_card(expect_str(item, field), field)
                seen[card] += 1
                if seen[card] > box[card]:
                    raise InvalidInput(field, item, f"a {len(players)}-player game has only {box[card]} "
                                                    f"of this card; this is copy {seen[card]}")
                cards.append(card)
            lists[key] = tuple(cards)
        tableaus[name] = Tableau(holding=lists["display"], pile=lists["scored"])
    total = seen.total()
    if total > cards_in_play(len(players)):
        raise InvalidInput("players", total, f"only {cards_in_play(len(players))} cards are in play with "
                                             f"{len(players)} players ({box.total()} used, "
                                             f"{rules.UNSEEN_REMOVED} removed unseen at setup)")
    return tableaus


def check_pile(pile: Sequence[Card], field: str) -> None:
    """:raises InvalidInput: when some colour's count is not a multiple of 3 (piles hold sets)."""
    for colour, count in colour_counts(pile).items():
        if count % rules.SET_SIZE:
            texts = [to_card_text(card) for card in pile if card.colour is colour]
            raise InvalidInput(field, texts, f"{count} {colour} cards: before the end a pile holds only "
                                             f"sets of {rules.SET_SIZE} of one colour")


def check_holding(holding: Sequence[Card], field: str) -> None:
    """:raises InvalidInput: at a third card of one colour (that set would have been scored)."""
    counts: Counter[Colour] = Counter()
    for i, card in enumerate(holding):
        counts[card.colour] += 1
        if counts[card.colour] > rules.MAX_HELD_PER_COLOUR:
            raise InvalidInput(f"{field}[{i}]", to_card_text(card),
                               f"a third {card.colour} card: a set of {rules.SET_SIZE} is scored in the "
                               "action that makes it, so a holding keeps at most "
                               f"{rules.MAX_HELD_PER_COLOUR}")


def score_document(doc: Any) -> dict[str, Any]:
    """Answer ``companion score gold``: the colour scoring, then each player's total.

    In: ``{"players": {NAME: {"scored": [CARD, ...], "display": [CARD, ...]}}}``, both
    lists required, CARD as :func:`parse_card` reads it. ``scored`` is the pile when the
    last display card has been taken, a set made by that last action included (digest
    G4); ``display`` is the holding then. Out: ``scores`` (the sum of the values of the
    pile's cards after the colour scoring, gold at face value and donkeys -2, so it may
    be negative), ``pile_sizes`` (cards in that pile: ``scored`` plus the banked cards,
    one per colour at most) and ``winners`` (the tie-break applied, sorted by name).

    :raises InvalidInput: as :func:`parse_document`.
    """
    result = end_game(parse_document(doc)).result
    return {"scores": dict(result.scores), "pile_sizes": dict(result.pile_sizes),
            "winners": list(result.winners)}
