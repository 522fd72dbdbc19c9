"""Dragon's Gold's final scoring page: a player at a time, nine disc counts, live totals.

Each count is the disc's colour and name, then its stepper, side by side on one row (two
counts a row beside a column of the players when the window is wide, one a row under a row of
the players when it stands up), so a name can never drift over another row's number. Each
change is checked with the game's own ``score_document`` before it is logged; the totals shown
are exactly what ``companion score`` answers. A photo of a player's treasure pile (the Photo
button, with a camera) fills their nine counts at once, checked the same way
(:func:`companion.games.dragons_gold.photo.dragons_gold_counts`).
"""

from __future__ import annotations

from typing import Any

from kivy.core.text import Label as CoreLabel
from kivy.properties import BooleanProperty, ListProperty, StringProperty

from companion.errors import CompanionError
from companion.games import dragons_gold
from companion.games.dragons_gold import photo as dg_photo
from companion.ui.lang import TR
from companion.ui.photo import PhotoGame, PhotoTaker
from companion.ui.results import ResultsPopup
from companion.ui.screens import BaseScreen
from companion.ui.theme import PLAYER_RGB, THEME, rgb
from companion.ui.widgets import FitLabel, Stepper, TouchButton

DISC_FIELDS: tuple[str, ...] = tuple(d.value for d in dragons_gold.Disc)

DISC_RGB: dict[str, str] = {**PLAYER_RGB, "silver": "#b0bec5", "gold": "#ffb300", "white": "#fafafa",
                            "black": "#212121"}
"""The discs' colours (the gems share the player colours' names): the score rows' swatches and
the photo picker's buttons."""

NBSP = "\u00a0"
PAIRS_WIDE = 2
"""Counts side by side in a row of a wide window (one a row when it stands up)."""


def disc_summary(values: tuple[str, ...]) -> str:
    """A photo's treasure in a line: ``silver 3 · gold 1 · red 2``, in the box's order."""
    counts = dg_photo.disc_counts(values)
    return " · ".join(f"{TR._(field)} {n}" for field, n in counts.items() if n)


TREASURE_PHOTO = PhotoGame(rules=dg_photo.PIECES, value_name=lambda field: TR._(field),
                           describe=disc_summary, columns=3, value_fill=lambda field: rgb(DISC_RGB[field]))
"""Dragon's Gold's photo: a player's treasure pile, one face-up disc at a time."""


def is_light(hex_colour: str) -> bool:
    """True for a colour that wants black text on it (yellow, white, silver, gold)."""
    return sum(rgb(hex_colour)[:3]) / 3 > 0.55


def _least_width(box: Any) -> float:
    """The narrowest a horizontal box of controls can be: its fixed widths, its flexible ones'
    least widths, and the spacing between them."""
    kids = box.children
    fixed = sum(c.width if c.size_hint_x is None else (c.size_hint_min_x or 0) for c in kids)
    return float(fixed + box.spacing * max(0, len(kids) - 1) + box.padding[0] + box.padding[2])


class DiscLabel(FitLabel):
    """A disc's name on a swatch of its colour (drawn in kv), black text on the light ones."""

    field = StringProperty("")
    swatch = ListProperty([0, 0, 0, 1])


class DragonsGoldScoreScreen(BaseScreen):
    """Dragon's Gold's final scoring: a player at a time, nine big steppers, live totals."""

    player = StringProperty("")
    summary = StringProperty("")
    problem = StringProperty("")
    """Why there are no totals (too few players, a sheet the rules refuse), or ""."""
    rules = StringProperty("simple")
    players = ListProperty([])
    wide = BooleanProperty(True)
    """Wider than high: the players in a column on the left, two counts a row."""
    has_photo = BooleanProperty(False)
    reading = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        self._loading = False
        self.counters: dict[str, Stepper] = {}  # before super(): kv's on_kv_post fills them
        self.labels: dict[str, DiscLabel] = {}
        self.photo = PhotoTaker(notify=lambda message: self.notify(message))
        super().__init__(**kwargs)
        self.photo.bind(busy=lambda _taker, busy: setattr(self, "reading", busy))

    def on_kv_post(self, _base: Any) -> None:
        grid = self.ids.counts
        for field in DISC_FIELDS:
            label = DiscLabel(field=field, text=TR._(field), swatch=rgb(DISC_RGB[field]), size_hint_x=None)
            label.color = THEME.on_primary if is_light(DISC_RGB[field]) else THEME.text
            stepper = Stepper(low=0, high=dragons_gold.BOX[dragons_gold.Disc(field)], title=TR._(field))
            stepper.bind(value=lambda s, v, f=field: self.count_changed(f, int(v), s))
            grid.add_widget(label)
            grid.add_widget(stepper)
            self.labels[field], self.counters[field] = label, stepper
        self.bind(size=lambda *_: self._arrange())
        grid.bind(width=lambda *_: self._arrange())
        THEME.bind(u=lambda *_: self._arrange())

    def _arrange(self) -> None:
        """Wide or standing up; the count rows' columns; each column of names as wide as its
        widest name at the names' font (no wider than leaves each stepper its least width), so
        a name shrinks only if it must, and never onto a stepper."""
        self.wide = self.width > self.height
        for tab in self.ids.tabs.children:
            tab.size_hint_y, tab.height = (None, THEME.u) if self.wide else (1, THEME.u)
        grid = self.ids.counts
        pairs = PAIRS_WIDE if self.wide else 1
        grid.cols = 2 * pairs
        steppers = pairs * max(_least_width(s) for s in self.counters.values())
        room = (grid.width - grid.spacing[0] * (2 * pairs - 1) - steppers) / pairs
        for column in range(pairs):
            fields = DISC_FIELDS[column::pairs]
            widest = max(self._text_width(self.labels[f]) for f in fields) + THEME.u * 0.2
            for f in fields:
                self.labels[f].width = max(THEME.u, min(widest, room))

    @staticmethod
    def _text_width(label: FitLabel) -> float:
        measure = CoreLabel(font_name=label.font_name, font_size=int(label.base_font_size), bold=label.bold)
        return float(measure.get_extents(label.text)[0])

    def on_pre_enter(self, *_: Any) -> None:
        self.refresh()

    def refresh(self) -> None:
        session = self.svc.session if self.svc is not None else None
        names = [p.name for p in session.players] if session is not None else []
        self.players = names
        if self.player not in names:
            self.player = names[0] if names else ""
        self.rules = (session.score_rules if session is not None else None) or "simple"
        self.has_photo = self.svc is not None and self.svc.read_pieces is not None
        tabs = self.ids.tabs
        tabs.clear_widgets()
        for p in session.players if session is not None else ():
            tab = TouchButton(text=p.name, selected=p.name == self.player,
                              fill=[0, 0, 0, 0] if p.name == self.player else rgb(PLAYER_RGB[p.colour], 0.55))
            tab.bind(on_release=lambda _b, n=p.name: self.choose(n))
            tabs.add_widget(tab)
        for field, stepper in self.counters.items():
            stepper.disabled = not self.player
            stepper.title = TR._(field)
            self.labels[field].text = TR._(field)
        self._arrange()
        self._load_counts()
        self._rescore()

    def choose(self, player: str) -> None:
        self.player = player
        self.refresh()

    def _load_counts(self) -> None:
        session = self.svc.session if self.svc is not None else None
        sheet = session.score_sheet.get(self.player, {}) if session is not None else {}
        self._loading = True
        try:
            for field, stepper in self.counters.items():
                stepper.value = sheet.get(field, 0)
        finally:
            self._loading = False

    def count_changed(self, field: str, value: int, stepper: Stepper) -> None:
        session = self.svc.session
        if self._loading or session is None or not self.player:
            return
        if session.score_sheet.get(self.player, {}).get(field, 0) == value:
            return
        candidate = session.score_document()
        candidate["players"][self.player][field] = value
        try:
            dragons_gold.score_document(candidate)  # refuse what the box cannot hold, before logging
            session.set_score(self.player, field, value)
        except CompanionError as exc:
            self.notify(str(exc))
            self._load_counts()
            return
        self._rescore()

    def take_photo(self) -> None:
        """Read the chosen player's treasure pile from a photo (the popup corrects, then applies)."""
        player = self.player
        if not player or self.svc is None:
            return
        self.photo.take(self.svc.read_pieces, TREASURE_PHOTO,
                        TR._("Photo: {player}'s treasure").format(player=player),
                        lambda values: self.apply_photo(player, values))

    def apply_photo(self, player: str, values: tuple[str, ...]) -> str:
        """Put a photo's discs on *player*'s sheet in place of their counts: all nine checked
        together first, as a stepper's change is, then the changed counts logged as one change
        (one undo takes the photo back). Returns the refusal, or "" when applied."""
        session = self.svc.session
        if session is None:
            return TR._("Start a game first")
        try:
            counts = dg_photo.dragons_gold_counts(session.score_document(), player, values)
        except CompanionError as exc:
            return str(exc)
        sheet = session.score_sheet.get(player, {})
        # the player is at the table and every n >= 0: set_scores takes them
        session.set_scores(player, {field: n for field, n in counts.items() if sheet.get(field, 0) != n})
        self.refresh()
        self.notify(TR._("{player}: the photo's treasure is on the sheet").format(player=player))
        return ""

    def _rescore(self) -> None:
        session = self.svc.session if self.svc is not None else None
        self.summary = ""
        if session is None or len(session.players) < dragons_gold.MIN_PLAYERS:
            self.problem = TR._("Dragon's Gold is for 3 to 6 players: add them on the Home screen")
            return
        try:
            out = dragons_gold.score_document(session.score_document())
        except CompanionError as exc:
            self.problem = str(exc)
            return
        self.problem = ""
        winners = set(out["winners"])
        # no-break spaces: a line may wrap between players, never between a name and its score
        star = NBSP + "★"
        self.summary = "   ".join(f"{name}{NBSP}{score}{star if name in winners else ''}"
                                  for name, score in out["scores"].items())

    def finish(self) -> None:
        session = self.svc.session
        if session is None:
            return
        try:
            out = dragons_gold.score_document(session.score_document())
        except CompanionError as exc:
            self.notify(str(exc))
            return
        colours = {p.name: p.colour for p in session.players}
        self.attempt(lambda: session.finish_game(out))
        ResultsPopup(scores=out["scores"], winners=out["winners"], colours=colours).open()
