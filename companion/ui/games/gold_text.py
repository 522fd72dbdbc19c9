"""What Gold!'s screen says: card and place names, the rules core's refusals and verdicts as
sentences, counts of cards that read right for one card and for many.

Main thread only (it reads the language in use).
"""

from __future__ import annotations

from typing import Any

from companion.games import gold
from companion.games.gold import Card, Colour
from companion.games.gold import photo as gold_photo
from companion.games.gold import sheet as gold_sheet
from companion.games.gold.sheet import (
    DISPLAY,
    SCORED,
    AllCardsEntered,
    ColourStep,
    NoCopyLeft,
    ScoringWalk,
    SheetRefusal,
    StepOutcome,
    TieBreakKind,
)
from companion.ui.lang import TR


def N_(text: str) -> str:  # noqa: N802 - gettext's "mark for the catalogue, translate later"
    return text


MARKED = (N_("pink"), N_("donkey"))   # texts translated from data (the colours' other names are shared)


def colour_name(colour: Colour) -> str:
    return TR._(str(colour))


def value_name(card: Card) -> str:
    return TR._("donkey") if card.gold is None else str(card.gold)


def cards_text(count: int) -> str:
    """``1 card`` or ``{count} cards``, in the language in use (Hungarian and Russian say it so
    that one form serves every count above one)."""
    return TR._("1 card") if count == 1 else TR._("{cards} cards").format(cards=count)


def card_name(card: Card) -> str:
    return f"{colour_name(card.colour)} {value_name(card)}"


def place_name(player: str, field: str) -> str:
    if field == SCORED:
        return TR._("{player}'s scoring pile").format(player=player)
    return TR._("{player}'s display").format(player=player)


def names(players: Any) -> str:
    return ", ".join(players)


def refusal_text(refusal: SheetRefusal) -> str:
    if isinstance(refusal, NoCopyLeft):
        return TR._("No {card} left: a {count}-player game has {copies}, all entered ({where}).").format(
            card=card_name(refusal.card), count=refusal.player_count, copies=refusal.copies,
            where="; ".join(place_name(p, f) for p, f in refusal.entered))
    assert isinstance(refusal, AllCardsEntered)
    return TR._("All {limit} cards in play are entered: a {count}-player game has no more.").format(
        limit=refusal.limit, count=refusal.player_count)


def verdict_text(step: ColourStep) -> str:
    """What happened to one colour, in a sentence (rule book, SZÍN PONTOZÁSA)."""
    colour = colour_name(step.colour)
    leaders = step.scoring.leaders
    if step.outcome is StepOutcome.NOBODY:
        return TR._("{colour}: nobody has a card of this colour, nothing to score.").format(colour=colour)
    if step.outcome is StepOutcome.NO_GOLD:
        return TR._("{colour}: no gold card in any display, so the colour is not scored; donkeys are "
                    "discarded.").format(colour=colour)
    if step.outcome is StepOutcome.LEADER:
        return TR._("{colour}: {player} has the highest sum ({sum}) and banks the highest gold card; the "
                    "other cards are discarded.").format(colour=colour, player=leaders[0], sum=step.top_sum)
    return TR._("{colour}: {players} tie on {sum}, each banks the highest gold card; the other cards are "
                "discarded.").format(colour=colour, players=names(leaders), sum=step.top_sum)


def tie_break_text(walk: ScoringWalk) -> str:
    """Who won and why (rule book, VÉGSŐ PONTOZÁS: points, then cards in the pile, then shared)."""
    tie = walk.tie_break
    if tie.kind is TieBreakKind.CLEAR:
        return TR._("{player} has the most points ({points}) and wins.").format(player=tie.winners[0],
                                                                             points=tie.points)
    if tie.kind is TieBreakKind.CARDS:
        return TR._("{players} tie on {points} points; the most cards in the scoring pile ({cards}) breaks "
                    "the tie. Winner: {winners}.").format(players=names(tie.tied), points=tie.points,
                                                          cards=tie.cards, winners=names(tie.winners))
    return TR._("{players} tie on {points} points and {cards} cards: they all win.").format(
        players=names(tie.tied), points=tie.points, cards=tie.cards)


def warning_text(warning: gold_sheet.SheetWarning) -> str:
    where = place_name(warning.player, warning.field)
    if warning.field == DISPLAY:
        return TR._("{place} has {count} {colour} cards: a set of 3 is scored at once.").format(
            place=where, count=warning.count, colour=colour_name(warning.colour))
    if warning.count == 1:
        return TR._("{place} has 1 {colour} card: a pile holds sets of 3.").format(
            place=where, colour=colour_name(warning.colour))
    return TR._("{place} has {count} {colour} cards: a pile holds sets of 3.").format(
        place=where, count=warning.count, colour=colour_name(warning.colour))


def warnings_text(warnings: tuple[gold_sheet.SheetWarning, ...], at: int = 0) -> str:
    """The sheet's odd colour number *at* (counted round) and, where there are more, which of how
    many it is and that a tap shows the next: one line's worth at the table."""
    if not warnings:
        return ""
    at %= len(warnings)
    text = warning_text(warnings[at])
    if len(warnings) > 1:
        text += " " + TR._("({index} of {count}: tap for the next)").format(index=at + 1, count=len(warnings))
    return text


def cards_summary(values: tuple[str, ...]) -> str:
    """A photo's cards in a line, in the rule book's colour order: ``red 5, blue donkey``."""
    return ", ".join(card_name(gold.parse_card(text)) for text in gold_photo.card_list(values))
