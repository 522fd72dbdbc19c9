"""Gold! (Michael Schacht, ABACUSSPIELE 2011) for 2-3 players: its rules as pure code.

Sources: the Hungarian rule book (``shared/seeds/002_*.txt``, cited by its section
headings, e.g. *SZÍN PONTOZÁSA*) and the English digest (``shared/rules/gold.md``,
cited as "digest §5.5"). Where they differ the rule book wins.

Words: a player's **holding** (*állomány*) is the open row of cards in front of him;
the **display** (*kínálat*) is the row of up to 5 cards in the middle; the **pile**
(*pontozó pakli*) is his face-down scoring pile. The ``companion score gold`` document
calls the holding ``display`` ("what lies open before him"); :func:`score_document`
is the only place that knows that.

Readings, where the rule book leaves a choice (each one named below):

* :data:`THREE_READING` (digest G2): the rule book says a 3 "cannot be taken" with
  action B; we read it as "cannot be *given* with option 1", as the digest does.
* :data:`STEAL_IS_OPTIONAL`, :data:`STEAL_MAY_TAKE_DONKEY` (digest G5).
* Tied leaders in the colour scoring always bank: the rule book says each "may"
  (*hozzáteheti*), but banking a gold card (3-8 points, one more card) can only
  help its owner, so nobody declines; see :func:`score_colour`.
* A set made by the game's last action is scored before the colour scoring
  (digest G4): :func:`score_document` takes the pile with that set already in it.

Everything here is stdlib-only, takes no time and does no I/O.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from companion.errors import InvalidInput
from companion.games import GameInfo
from companion.games._input import (
    expect_keys,
    expect_list,
    expect_object,
    expect_players,
    expect_str,
    winners_of,
)


class Colour(enum.StrEnum):
    """The six colours (rule book, TARTOZÉKOK). There is no yellow: see digest G1."""

    GREEN = "green"
    BLUE = "blue"
    PURPLE = "purple"
    RED = "red"
    ORANGE = "orange"
    PINK = "pink"


COLOURS: Final[tuple[Colour, ...]] = tuple(Colour)
"""In the rule book's order (zöld, kék, lila, piros, narancs, rózsaszín); colour scoring uses it."""

GOLD_VALUES: Final[tuple[int, ...]] = (3, 3, 4, 5, 6, 7, 8)
"""The gold cards of one colour (rule book, TARTOZÉKOK): two 3s, one each of 4-8."""

DONKEY_VALUE: Final = -2
DONKEYS_PER_COLOUR: Final = 3
DONKEYS_REMOVED_FOR_TWO_PLAYERS: Final = 1
"""Per colour, back into the box for a 2-player game (rule book, A JÁTÉK ELŐKÉSZÍTÉSE)."""

UNSEEN_REMOVED: Final = 2
"""Cards taken from the draw pile unseen at setup (rule book, A JÁTÉK ELŐKÉSZÍTÉSE)."""

DISPLAY_SIZE: Final = 5
SET_SIZE: Final = 3
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 3
MAX_HELD_PER_COLOUR: Final = SET_SIZE - 1
"""A holding never keeps 3 of a colour past an action: the set must be scored at once
(rule book, EGY KÉSZLET PONTOZÁSA), and a stolen bonus card is of a colour the scorer
lacks, so it never makes a second set (digest §5.3, "Consequence")."""


class ThreeReading(enum.Enum):
    """The two readings of the rule book's sentence about 3s in action B (digest G2)."""

    GIVE_ONLY = "a 3 cannot be given under option 1; it may be taken by either option"
    LITERAL = "no 3 may be taken by action B at all"


THREE_READING: Final = ThreeReading.GIVE_ONLY
"""Reading of digest G2, the default for every exchange check.

The rule book (B) Egy lap kicserélése) says "A B akciót ... választva 3-es értékű
aranykártyát nem lehet elvenni, mert nincs kisebb értékű aranykártya, amivel ki
lehetne cserélni": a 3 cannot be *taken* with B, "because there is no lower gold card
to exchange it for". Read literally it contradicts both options it follows (option 1
takes any lower gold card, option 2 "a gold card" of the player's choice), and its
own reason only makes sense for *giving* a 3. So, like the digest, we read it as
"a 3 cannot be given under option 1", which the strict "lower" rule already implies.
:data:`ThreeReading.LITERAL` is there for tables that read it the other way.
"""

STEAL_IS_OPTIONAL: Final = True
"""Digest G5, settled by the rule book: the scorer "elvehet" (*may* take) a bonus card."""

STEAL_MAY_TAKE_DONKEY: Final = True
"""Digest G5, settled by the rule book: the bonus is "egy lapot", *a card*, so a donkey too."""


@dataclass(frozen=True)
class Card:
    """One card: a colour and either a gold value (3-8) or, for a donkey, ``None``."""

    colour: Colour
    gold: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.colour, Colour):
            raise InvalidInput("colour", self.colour, "must be one of " + ", ".join(COLOURS))
        if self.gold is not None and self.gold not in GOLD_VALUES:
            raise InvalidInput("gold", self.gold, "a gold card is worth 3 to 8 (None for a donkey)")

    @property
    def is_donkey(self) -> bool:
        return self.gold is None

    @property
    def value(self) -> int:
        """Points: the gold value, or -2 for a donkey (rule book, TARTOZÉKOK)."""
        return DONKEY_VALUE if self.gold is None else self.gold


def card_sort_key(card: Card) -> tuple[int, int]:
    """Lowest value first, then the rule book's colour order: a stable order for screens."""
    return card.value, COLOURS.index(card.colour)


def sorted_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=card_sort_key))


def parse_card(text: str, field: str = "card") -> Card:
    """A card from ``"red:5"`` or ``"red:donkey"`` (case and outer spaces do not matter).

    :raises InvalidInput: naming *field* and quoting *text*, for a malformed string, a
        colour the game has not got (yellow included, digest G1) or a value other than
        3-8 or ``donkey``.
    """
    colour_text, sep, value_text = text.strip().lower().partition(":")
    if not sep:
        raise InvalidInput(field, text, "a card is written COLOUR:VALUE, e.g. 'red:5' or 'red:donkey'")
    try:
        colour = Colour(colour_text.strip())
    except ValueError:
        raise InvalidInput(field, text, "unknown colour; Gold! has " + ", ".join(COLOURS)) from None
    value_text = value_text.strip()
    if value_text == "donkey":
        return Card(colour)
    if value_text in {str(gold) for gold in GOLD_VALUES}:   # not int(): "05", "٥" and "+5" are typos
        return Card(colour, int(value_text))
    hint = " (a donkey is written 'donkey', not -2)" if value_text == str(DONKEY_VALUE) else ""
    raise InvalidInput(field, text, f"the value must be 3 to 8 or 'donkey'{hint}")


def to_card_text(card: Card) -> str:
    """The :func:`parse_card` spelling of *card*: ``"red:5"``, ``"red:donkey"``."""
    return f"{card.colour}:{'donkey' if card.gold is None else card.gold}"


# --- The box -----------------------------------------------------------------------------------


def check_player_count(player_count: int) -> int:
    """:raises InvalidInput: unless 2 or 3 players (rule book, first line)."""
    if not MIN_PLAYERS <= player_count <= MAX_PLAYERS:
        raise InvalidInput("player_count", player_count, "Gold! is for 2 to 3 players")
    return player_count


def deck(player_count: int) -> Counter[Card]:
    """Every card used with *player_count* players, with its number of copies.

    60 cards in the box; with 2 players one donkey of each colour goes back into the
    box (rule book, A JÁTÉK ELŐKÉSZÍTÉSE), leaving 54.

    :raises InvalidInput: for a player count other than 2 or 3.
    """
    donkeys = DONKEYS_PER_COLOUR
    if check_player_count(player_count) == 2:
        donkeys -= DONKEYS_REMOVED_FOR_TWO_PLAYERS
    cards: Counter[Card] = Counter()
    for colour in COLOURS:
        cards[Card(colour)] = donkeys
        for gold in GOLD_VALUES:
            cards[Card(colour, gold)] += 1
    return cards


def copies_in_game(card: Card, player_count: int) -> int:
    """How many copies of *card* a game of *player_count* players uses."""
    return deck(player_count)[card]


def cards_in_play(player_count: int) -> int:
    """The deck less the 2 cards removed unseen: at the end all of them lie before the players.

    Nothing is discarded before the colour scoring (digest G7), so when the last display
    card is taken every card in play is in some holding or pile: 58 (3 players) or 52.
    """
    return deck(player_count).total() - UNSEEN_REMOVED


@dataclass(frozen=True)
class SetupCounts:
    """The card arithmetic of the setup (digest §3): what a screen shows before play."""

    player_count: int
    cards_used: int          # 60, or 54 with 2 players
    starting_donkeys: int    # one per player, each of a different colour
    unseen_removed: int
    draw_pile: int           # after the first display is turned up
    refills: int             # how many more displays of 5 the draw pile gives


def setup_counts(player_count: int) -> SetupCounts:
    """Card arithmetic for *player_count* players: 60/57/55/50 and 10 refills, or 54/52/50/45 and 9.

    Which colours the starting donkeys have is not said (digest G3); it does not change
    these numbers. The rest, the other donkeys of those colours included, is shuffled
    into the draw pile: the rule book says "Keverjük meg a többi lapot" (shuffle the
    other cards).

    :raises InvalidInput: for a player count other than 2 or 3.
    """
    used = deck(player_count).total()
    draw_pile = used - player_count - UNSEEN_REMOVED - DISPLAY_SIZE
    return SetupCounts(player_count, used, player_count, UNSEEN_REMOVED, draw_pile,
                       draw_pile // DISPLAY_SIZE)


# --- A turn: taking and exchanging (rule book, A JÁTÉK MENETE) ---------------------------------


class Refusal(enum.Enum):
    """Why a take or an exchange is not allowed; the value is a sentence for a screen."""

    NOT_IN_DISPLAY = "that card is not in the display"
    NOT_LOWEST = "action A takes only a lowest-valued card of the display"
    NOT_IN_HOLDING = "that card is not in the player's holding"
    TAKES_DONKEY = "a donkey can be taken only with action A, never by an exchange"
    NOT_LOWER = "option 1 takes only a gold card strictly lower than the gold card given"
    TAKES_THREE = "under the literal reading of the rule about 3s, action B never takes a 3"


class ExchangeOption(enum.Enum):
    GOLD_FOR_LOWER_GOLD = 1
    DONKEY_FOR_GOLD = 2


@dataclass(frozen=True)
class Exchange:
    """Action B: *give* goes from the holding into the display, *take* the other way."""

    give: Card
    take: Card

    @property
    def option(self) -> ExchangeOption:
        return ExchangeOption.DONKEY_FOR_GOLD if self.give.is_donkey else ExchangeOption.GOLD_FOR_LOWER_GOLD


def legal_takes(display: Sequence[Card]) -> tuple[Card, ...]:
    """The cards action A may take: every lowest-valued card, the player choosing among ties.

    A donkey (-2) is always lowest, so a display with a donkey gives a donkey (rule book,
    A) Egy lap elvétele). An empty display gives nothing.
    """
    if not display:
        return ()
    lowest = min(card.value for card in display)
    return sorted_cards({card for card in display if card.value == lowest})


def check_take(display: Sequence[Card], card: Card) -> tuple[Refusal, ...]:
    """Why action A may not take *card* from *display*; empty when it may (rule book, A)."""
    if card not in display:
        return (Refusal.NOT_IN_DISPLAY,)
    if card not in legal_takes(display):
        return (Refusal.NOT_LOWEST,)
    return ()


def is_take_legal(display: Sequence[Card], card: Card) -> bool:
    return not check_take(display, card)


def check_exchange(holding: Sequence[Card], display: Sequence[Card], exchange: Exchange, *,
                   threes: ThreeReading = THREE_READING) -> tuple[Refusal, ...]:
    """Every reason action B may not make *exchange*; empty when it may (rule book, B).

    Option 1 gives a gold card and takes a strictly lower one ("kisebb értékű", digest
    G6: equal is not lower, so a 3 can never be given). Option 2 gives a donkey and takes
    any gold card. Neither ever takes a donkey. *threes* picks the reading of the rule
    about 3s (:data:`THREE_READING`).
    """
    give, take = exchange.give, exchange.take
    reasons: list[Refusal] = []
    if give not in holding:
        reasons.append(Refusal.NOT_IN_HOLDING)
    if take not in display:
        reasons.append(Refusal.NOT_IN_DISPLAY)
    if take.gold is None:
        reasons.append(Refusal.TAKES_DONKEY)
    else:
        if give.gold is not None and not take.gold < give.gold:
            reasons.append(Refusal.NOT_LOWER)
        if threes is ThreeReading.LITERAL and take.gold == min(GOLD_VALUES):
            reasons.append(Refusal.TAKES_THREE)
    return tuple(reasons)


def is_exchange_legal(holding: Sequence[Card], display: Sequence[Card], exchange: Exchange, *,
                      threes: ThreeReading = THREE_READING) -> bool:
    return not check_exchange(holding, display, exchange, threes=threes)


def legal_exchanges(holding: Sequence[Card], display: Sequence[Card], *,
                    threes: ThreeReading = THREE_READING) -> tuple[Exchange, ...]:
    """Every distinct exchange action B allows, ordered by the card given, then the card taken."""
    return tuple(Exchange(give, take)
                 for give in sorted_cards(set(holding)) for take in sorted_cards(set(display))
                 if is_exchange_legal(holding, display, Exchange(give, take), threes=threes))


def can_exchange(holding: Sequence[Card], display: Sequence[Card], *,
                 threes: ThreeReading = THREE_READING) -> bool:
    """Whether action B is open at all: only if one of its options can be carried out (digest G6)."""
    return bool(legal_exchanges(holding, display, threes=threes))


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
    return tuple(colour for colour in COLOURS if counts[colour] >= SET_SIZE)


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
                 if card.colour not in barred and (STEAL_MAY_TAKE_DONKEY or not card.is_donkey))


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
    if len(held) != SET_SIZE:
        raise InvalidInput("colour", str(colour), f"a set is exactly {SET_SIZE} cards of one colour; "
                                                  f"{player}'s holding has {len(held)}")
    opponents = {name: t.holding for name, t in tableaus.items() if name != player}
    options = bonus_options(mine.holding, colour, opponents)
    if steal is not None and steal not in options:
        allowed = ", ".join(f"{s.victim}'s {to_card_text(s.card)}" for s in options) or "nothing"
        raise InvalidInput("steal", steal, f"the bonus may take {allowed}")
    if steal is None and options and not STEAL_IS_OPTIONAL:
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
    return tuple(score_colour(holdings, colour) for colour in COLOURS)


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
    players = expect_players(root, "players", MIN_PLAYERS, MAX_PLAYERS)
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
                                             f"{UNSEEN_REMOVED} removed unseen at setup)")
    return tableaus


def check_pile(pile: Sequence[Card], field: str) -> None:
    """:raises InvalidInput: when some colour's count is not a multiple of 3 (piles hold sets)."""
    for colour, count in colour_counts(pile).items():
        if count % SET_SIZE:
            texts = [to_card_text(card) for card in pile if card.colour is colour]
            raise InvalidInput(field, texts, f"{count} {colour} cards: before the end a pile holds only "
                                             f"sets of {SET_SIZE} of one colour")


def check_holding(holding: Sequence[Card], field: str) -> None:
    """:raises InvalidInput: at a third card of one colour (that set would have been scored)."""
    counts: Counter[Colour] = Counter()
    for i, card in enumerate(holding):
        counts[card.colour] += 1
        if counts[card.colour] > MAX_HELD_PER_COLOUR:
            raise InvalidInput(f"{field}[{i}]", to_card_text(card),
                               f"a third {card.colour} card: a set of {SET_SIZE} is scored in the "
                               f"action that makes it, so a holding keeps at most {MAX_HELD_PER_COLOUR}")


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


GAME = GameInfo(key="gold", title="Gold!", min_players=MIN_PLAYERS, max_players=MAX_PLAYERS,
                aliases=("gold!",), score_document=score_document)
