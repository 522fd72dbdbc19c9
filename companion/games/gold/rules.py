"""Gold!'s cards, the box, and a turn: taking and exchanging (rule book, A JÁTÉK MENETE)."""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from companion.errors import InvalidInput


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
