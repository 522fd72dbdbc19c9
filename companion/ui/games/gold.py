"""Gold! on the touch screen: the end-of-game scorer, the colour scoring step by step, the winner.

The score sheet is the session's (``set_score(player, "display" | "scored", [CARD, ...])``), so
it is undoable and survives a restart; this screen keeps only what is on view (the player,
the list, the page of the colour scoring). A card is checked with the rules core
(:func:`companion.games.gold_sheet.check_add`) before anything is logged: a card the box has
no more of is refused on the spot, with where its copies are. The colour scoring and the
totals are :func:`companion.games.gold_sheet.walk`'s, the same numbers as ``companion score gold``.
A photo of the chosen list, laid out face up (the Photo button, with a camera), fills it at once,
each card checked as a tap on its button is (:func:`companion.games.gold.photo.gold_cards`).

Main thread only.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from kivy.core.text import Label as CoreLabel
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.gridlayout import GridLayout

from companion.errors import CompanionError
from companion.games import gold
from companion.games.gold import COLOURS, Card, Colour
from companion.games.gold import photo as gold_photo
from companion.games.gold import sheet as gold_sheet
from companion.games.gold.sheet import DISPLAY, SCORED, ColourStep, ScoringWalk
from companion.session import TableSession
from companion.ui.games.gold_text import (
    card_name,
    cards_summary,
    cards_text,
    colour_name,
    place_name,
    refusal_text,
    tie_break_text,
    value_name,
    verdict_text,
    warnings_text,
)
from companion.ui.lang import TR
from companion.ui.photo import PhotoGame, PhotoTaker
from companion.ui.results import ResultsPopup, seated
from companion.ui.screens import BaseScreen
from companion.ui.theme import FONT_NAME, PLAYER_RGB, THEME, rgb
from companion.ui.widgets import MIN_FONT_PX, FitLabel, TouchButton

CARD_RGB: dict[Colour, str] = {
    Colour.GREEN: "#43a047", Colour.BLUE: "#1e88e5", Colour.PURPLE: "#8e24aa",
    Colour.RED: "#e53935", Colour.ORANGE: "#ef6c00", Colour.PINK: "#ec407a",
}
"""The six card colours (the player colours where they share a name; pink is the game's own)."""

TOTALS_PAGE = len(COLOURS)
"""Pages 0-5 are the colours in the rule book's order; page 6 the final scoring."""

DIM = 0.42


def dimmed(colour: list[float], k: float = DIM) -> list[float]:
    """*colour* darkened (not made transparent), so the text colour a button picks stays readable."""
    return [c * k for c in colour[:3]] + [1.0]


def word_room_px(text: str, padding_x: float) -> float:
    """How wide a button must be to show *text*'s widest word at the smallest font (wrapping
    never splits a word), with its padding on both sides and a pixel to spare."""
    measure = CoreLabel(font_name=FONT_NAME, font_size=MIN_FONT_PX)
    widest = max((measure.get_extents(word)[0] for word in text.split()), default=0)
    return float(widest) + 2 * padding_x + 2


def fit_columns(grid: GridLayout, texts: list[str]) -> None:
    """Give each column of *grid* (its buttons' *texts*, in the order laid out) the width its
    widest word needs at the smallest font, and never less than a touch unit; what is left is
    shared out evenly. (Every column gets its minimum here: Kivy shares the rest unevenly when
    some columns have a minimum and others only their buttons' ``size_hint_min_x``.)"""
    cols = max(1, int(grid.cols or 1))
    padding_x = THEME.u * 0.12   # a TouchButton's own padding (companion.kv)
    needed: dict[int, float] = {}
    for i, text in enumerate(texts):
        needed[i % cols] = max(needed.get(i % cols, float(THEME.u)), word_room_px(text, padding_x))
    if dict(grid.cols_minimum) != needed:
        grid.cols_minimum = needed
        grid.do_layout()   # a GridLayout lays out again on its size or children, not on cols_minimum

CARDS_PHOTO = PhotoGame(rules=gold_photo.PIECES,
                        value_name=lambda text: card_name(gold.parse_card(text)), describe=cards_summary,
                        columns=len(gold_sheet.VALUES),
                        button_text=lambda text: value_name(gold.parse_card(text)),
                        value_fill=lambda text: rgb(CARD_RGB[gold.parse_card(text).colour]))
"""Gold!'s photo: one player's display or scoring pile, laid out face up; the picker is the
sheet's own grid of cards (a row per colour)."""


class GoldColumn(BoxLayout):  # type: ignore[misc]
    """One player's column of the colour scoring: cards held, sum, what is banked, the pile."""

    name = StringProperty("")
    name_fill = ListProperty([0, 0, 0, 1])
    name_color = ListProperty([1, 1, 1, 1])
    held = StringProperty("")
    total = StringProperty("")
    outcome = StringProperty("")
    outcome_color = ListProperty([1, 1, 1, 1])
    standing = StringProperty("")
    leading = BooleanProperty(False)


class WarningLine(ButtonBehavior, FitLabel):  # type: ignore[misc]
    """The line under the scoring that says what is odd about the sheet; a tap, the next thing."""


class GoldScoreScreen(BaseScreen):
    """Gold!'s end: each player's display and scoring pile by touch, then the colour scoring."""

    player = StringProperty("")
    field = StringProperty(DISPLAY)
    view = StringProperty("sheet")          # "sheet" or "scoring"
    page = NumericProperty(0)
    ready = BooleanProperty(False)          # a Gold! session with 2-3 players
    can_score = BooleanProperty(False)      # the sheet is a document the rules core scores
    message = StringProperty("")
    refused = BooleanProperty(False)
    summary = StringProperty("")
    verdict = StringProperty("")
    warnings = StringProperty("")
    last_page = NumericProperty(TOTALS_PAGE)
    display_count = NumericProperty(0)
    scored_count = NumericProperty(0)
    has_photo = BooleanProperty(False)
    reading = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        self.card_buttons: dict[str, TouchButton] = {}   # "red:8" -> its button; filled in on_kv_post
        self.page_buttons: list[TouchButton] = []
        self.walk: ScoringWalk | None = None
        self._shown: int | None = None  # the session the screen was last drawn for
        self._warning_at = 0  # which of the sheet's odd colours the line under the scoring says
        self.photo = PhotoTaker(notify=lambda message: self.notify(message))
        super().__init__(**kwargs)
        self.photo.bind(busy=lambda _taker, busy: setattr(self, "reading", busy))

    def on_kv_post(self, _base: Any) -> None:
        for grid in (self.ids.cards, self.ids.pages):
            grid.fbind("cols", lambda *_: self._fit_grids())
        THEME.fbind("u", lambda *_: self._fit_grids())
        grid = self.ids.cards
        for colour in COLOURS:
            for value in gold_sheet.VALUES:
                card = gold_sheet.card_of(colour, value)
                button = TouchButton(fill=rgb(CARD_RGB[colour]))
                button.bind(on_release=lambda _b, c=card: self.add(c))
                self.card_buttons[gold.to_card_text(card)] = button
                grid.add_widget(button)
        for i in range(TOTALS_PAGE + 1):
            button = TouchButton()
            button.bind(on_release=lambda _b, n=i: self.show_page(n))
            self.page_buttons.append(button)
            self.ids.pages.add_widget(button)

    def on_pre_enter(self, *_: Any) -> None:
        self.refresh()

    def on_view(self, _screen: Any, view: str) -> None:
        self.ids.views.current = view

    # -- reading the session ---------------------------------------------------------------------

    def _session(self) -> TableSession | None:
        session = self.svc.session if self.svc is not None else None
        return session if session is not None and session.game == "gold" else None

    def _doc(self) -> dict[str, Any] | None:
        session = self._session()
        return session.score_document() if session is not None and self.ready else None

    # -- redrawing -------------------------------------------------------------------------------

    def refresh(self) -> None:
        session = self._session()
        shown = session.id if session is not None else None
        if shown != self._shown:  # another game: its sheet from the start, nothing said yet
            self._shown = shown
            self.view, self.page, self.field, self.player, self.message, self.refused = \
                "sheet", 0, DISPLAY, "", "", False
        players = session.players if session is not None else ()
        self.ready = gold.MIN_PLAYERS <= len(players) <= gold.MAX_PLAYERS
        self.has_photo = self.svc is not None and self.svc.read_pieces is not None
        if self.player not in [p.name for p in players]:
            self.player = players[0].name if players else ""
        doc = self._doc()
        self.walk, problem = None, ""
        if doc is not None:
            try:
                self.walk = gold_sheet.walk(doc)
            except CompanionError as exc:   # a sheet from a hand-edited log: say what is wrong with it
                problem = str(exc)
        self.can_score = self.walk is not None
        self._build_tabs()
        self._draw_sheet(doc, problem)
        self._draw_scoring(doc)

    def _build_tabs(self) -> None:
        tabs = self.ids.tabs
        tabs.clear_widgets()
        session = self._session()
        for p in session.players if session is not None else ():
            colour = rgb(PLAYER_RGB.get(p.colour, "#888888"))
            chosen = p.name == self.player
            tab = TouchButton(text=p.name, selected=chosen, fill=colour if chosen else dimmed(colour))
            tab.player = p.name
            tab.bind(on_release=lambda _b, n=p.name: self.choose(n))
            tabs.add_widget(tab)

    def _draw_sheet(self, doc: dict[str, Any] | None, problem: str) -> None:
        self.ids.chips.clear_widgets()
        self.display_count = self.scored_count = 0
        left: Counter[Card] | None = None
        if doc is None:
            self.summary = (TR._("Gold! is for 2 to 3 players: start it on the Home screen with them.")
                            if self._session() is not None
                            else TR._("Start a Gold! game on the Home screen to score it here."))
        else:
            try:
                left = gold_sheet.cards_left(doc)
                self._draw_chips(doc)
            except CompanionError as exc:
                problem = problem or str(exc)
            self.summary = problem or self._standings()
        for text, button in self.card_buttons.items():
            card = gold.parse_card(text)
            colour = rgb(CARD_RGB[card.colour])
            button.text = value_name(card)
            button.disabled = left is None
            button.fill = colour if left is None or left[card] else dimmed(colour, 0.3)   # none left: dark
        self._fit_grids()

    def _fit_grids(self) -> None:
        """The card grid's donkey column and the page buttons as wide as their words need."""
        fit_columns(self.ids.cards, [b.text for b in reversed(self.ids.cards.children)])
        fit_columns(self.ids.pages, [b.text for b in self.page_buttons])

    def _draw_chips(self, doc: dict[str, Any]) -> None:
        self.display_count = len(gold_sheet.card_texts(doc, self.player, DISPLAY))
        self.scored_count = len(gold_sheet.card_texts(doc, self.player, SCORED))
        for card in gold_sheet.by_colour(gold_sheet.cards(doc, self.player, self.field)):
            chip = TouchButton(text=f"{card_name(card)}  ×", fill=rgb(CARD_RGB[card.colour]))
            chip.card = gold.to_card_text(card)
            chip.bind(on_release=lambda _b, c=card: self.remove(c))
            self.ids.chips.add_widget(chip)

    def _standings(self) -> str:
        """``A 45   B 45 ★   C 41``: the final scores if the game ended on the sheet as it is."""
        if self.walk is None:
            return ""
        winners = self.walk.tie_break.winners
        star = "\u00a0★"  # no-break spaces: a wrapped line never parts a name, its points and its star
        return "   ".join(f"{name}\u00a0{pile.points}{star if name in winners else ''}"
                          for name, pile in self.walk.steps[-1].piles.items())

    def _draw_scoring(self, doc: dict[str, Any] | None) -> None:
        if self.walk is None or doc is None:
            self.ids.columns.clear_widgets()
            self.verdict, self.warnings = "", ""
            if self.view == "scoring":
                self.view = "sheet"
            return
        if self.view != "scoring":   # drawn when shown: a tap on the sheet need not lay out the pages
            return
        self.warnings = warnings_text(gold_sheet.sheet_warnings(doc), self._warning_at)
        for i, button in enumerate(self.page_buttons):
            chosen = i == self.page
            if i == TOTALS_PAGE:
                button.text, button.selected, button.fill = TR._("Totals"), chosen, [0, 0, 0, 0]
            else:
                colour = rgb(CARD_RGB[COLOURS[i]])
                button.text, button.selected = colour_name(COLOURS[i]), chosen
                button.fill = colour if chosen else dimmed(colour)
        self._fit_grids()
        self._draw_page(self.walk)

    def _draw_page(self, walk: ScoringWalk) -> None:
        columns = self.ids.columns
        columns.clear_widgets()
        colours = self._player_colours()
        winners = walk.tie_break.winners
        step = walk.steps[self.page] if self.page < TOTALS_PAGE else None
        self.verdict = verdict_text(step) if step is not None else tie_break_text(walk)
        for name in walk.players:
            fill = rgb(PLAYER_RGB.get(colours.get(name, ""), "#888888"))
            column = GoldColumn(name=name, name_fill=fill,
                                name_color=THEME.on_primary if sum(fill[:3]) / 3 > 0.55 else THEME.text)
            if step is not None:
                self._fill_step(column, step, name)
            else:
                self._fill_totals(column, walk, name, name in winners)
            columns.add_widget(column)

    def _fill_step(self, column: GoldColumn, step: ColourStep, name: str) -> None:
        held = step.held[name]
        banked = step.scoring.banked.get(name)
        discarded = step.scoring.discarded.get(name, ())
        column.held = ", ".join(value_name(card) for card in held) or "—"
        column.total = f"= {step.scoring.sums[name]}" if held else ""
        lines = []
        if banked is not None:
            lines.append(TR._("banks {card}").format(card=value_name(banked)))
        if discarded:
            lines.append(TR._("discards {cards}").format(cards=", ".join(value_name(c) for c in discarded)))
        column.outcome = "\n".join(lines)
        column.outcome_color = THEME.green if banked is not None else THEME.muted
        column.leading = name in step.scoring.leaders
        pile = step.piles[name]
        column.standing = TR._("pile {points} ({cards})").format(points=pile.points,
                                                                 cards=cards_text(pile.cards))

    def _fill_totals(self, column: GoldColumn, walk: ScoringWalk, name: str, won: bool) -> None:
        before, pile = walk.before[name], walk.steps[-1].piles[name]
        column.held = " + ".join([str(before.points), *(str(card.value) for card in walk.banked[name])])
        column.total = f"= {pile.points}"
        column.outcome = cards_text(pile.cards)
        column.outcome_color = THEME.text
        column.leading = won
        column.standing = "★ " + TR._("Winner") if won else ""

    def _player_colours(self) -> dict[str, str]:
        session = self._session()
        return {p.name: p.colour for p in session.players} if session is not None else {}

    # -- touches ---------------------------------------------------------------------------------

    def choose(self, player: str) -> None:
        self.player = player
        self.message = ""
        self.refresh()

    def choose_field(self, field: str) -> None:
        self.field = field
        self.message = ""
        self.refresh()

    def taken_back(self) -> None:
        self.message, self.refused = "", False  # the strip says what Undo or Redo did

    def _say(self, text: str, *, refused: bool = False) -> None:
        self.message, self.refused = text, refused
        if refused:
            self.notify(text)

    def add(self, card: Card) -> None:
        """Put *card* on the chosen list, unless the rules core says the box has no more of it."""
        session, doc = self._session(), self._doc()
        if session is None or doc is None or not self.player:
            return
        try:
            refusal = gold_sheet.check_add(doc, self.player, self.field, card)
            if refusal is not None:
                self._say(refusal_text(refusal), refused=True)
                return
            texts = gold_sheet.card_texts(gold_sheet.with_card(doc, self.player, self.field, card),
                                          self.player, self.field)
            session.set_score(self.player, self.field, texts)
        except CompanionError as exc:
            self._say(str(exc), refused=True)
            return
        self._say(TR._("{card} added to {place}").format(card=card_name(card),
                                                        place=place_name(self.player, self.field)))
        self.refresh()

    def remove(self, card: Card) -> None:
        """Take one *card* off the chosen list (a chip tapped)."""
        session, doc = self._session(), self._doc()
        if session is None or doc is None:
            return
        try:
            after = gold_sheet.without_card(doc, self.player, self.field, card)
            session.set_score(self.player, self.field, gold_sheet.card_texts(after, self.player, self.field))
        except CompanionError as exc:
            self._say(str(exc), refused=True)
            return
        self._say(TR._("{card} taken off {place}").format(card=card_name(card),
                                                         place=place_name(self.player, self.field)))
        self.refresh()

    def take_photo(self) -> None:
        """Read the chosen player's chosen list from a photo (the popup corrects, then applies)."""
        if self._doc() is None or not self.player:
            return
        player, where = self.player, self.field
        self.photo.take(self.svc.read_pieces, CARDS_PHOTO,
                        TR._("Photo: {place}").format(place=place_name(player, where)),
                        lambda values: self.apply_photo(player, where, values))

    def apply_photo(self, player: str, where: str, values: tuple[str, ...]) -> str:
        """Put a photo's cards on *player*'s *where* list in place of what it held, each card
        checked as a tap on its button is (one logged change: one undo takes it back). Returns
        the refusal, or "" when applied."""
        session, doc = self._session(), self._doc()
        if session is None or doc is None:
            return TR._("Start a game first")
        try:
            cards = gold_photo.gold_cards(doc, player, where, values)
            if not isinstance(cards, list):
                return refusal_text(cards)
            session.set_score(player, where, cards)
        except CompanionError as exc:
            return str(exc)
        if len(cards) == 1:
            said = TR._("{place}: the photo's one card is on the sheet").format(
                place=place_name(player, where))
        else:
            said = TR._("{place}: the photo's {count} cards are on the sheet").format(
                place=place_name(player, where), count=len(cards))
        self._say(said)
        self.refresh()
        return ""

    def open_scoring(self) -> None:
        """The colour scoring from its first colour (back to the sheet if the sheet cannot be scored)."""
        self.page, self._warning_at = 0, 0
        self.view = "scoring"
        self.refresh()

    def next_warning(self) -> None:
        """A tap on the line under the scoring: the sheet's next odd colour."""
        self._warning_at += 1
        self.refresh()

    def open_sheet(self) -> None:
        self.view = "sheet"
        self.refresh()

    def show_page(self, page: int) -> None:
        self.page = max(0, min(TOTALS_PAGE, page))
        self.refresh()

    def step(self, by: int) -> None:
        self.show_page(int(self.page) + by)

    def finish(self) -> None:
        """Record what ``companion score gold`` answers for the sheet, end the game, show the results."""
        session, doc = self._session(), self._doc()
        if session is None or doc is None:
            return
        if gold_sheet.cards_entered(doc) == 0:
            self._say(TR._("No cards are on the sheet yet: enter each player's display and scoring pile "
                           "first"), refused=True)
            return
        try:
            out = gold.score_document(doc)
        except CompanionError as exc:
            self.notify(str(exc))
            return
        self.attempt(lambda: session.finish_game(out))
        scores = seated(out["scores"], (p.name for p in session.players))
        ResultsPopup(scores=scores, winners=out["winners"], colours=self._player_colours()).open()


SCREEN = GoldScoreScreen
