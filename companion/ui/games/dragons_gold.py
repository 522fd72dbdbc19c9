"""Dragon's Gold on the touch screen: the end-of-game score sheet, scored by the rules core.

Every number goes through the session log (undoable, resumable); each change is checked with
the game's own ``score_document`` first, so a count the box cannot hold is refused on the spot
and nothing is logged. The totals shown are exactly what ``companion score`` answers.
"""

from __future__ import annotations

from typing import Any

from kivy.properties import ListProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from companion.errors import CompanionError
from companion.games import dragons_gold
from companion.ui.lang import TR
from companion.ui.results import ResultsPopup
from companion.ui.screens import BaseScreen
from companion.ui.theme import PLAYER_RGB, rgb
from companion.ui.widgets import FitLabel, Stepper, TouchButton

DISC_FIELDS: tuple[str, ...] = tuple(d.value for d in dragons_gold.Disc)


class DiscCounter(BoxLayout):  # type: ignore[misc]
    field = StringProperty("")


class DragonsGoldScoreScreen(BaseScreen):
    """Dragon's Gold's final scoring: a player at a time, nine big steppers, live totals."""

    player = StringProperty("")
    summary = StringProperty("")
    rules = StringProperty("simple")
    players = ListProperty([])

    def __init__(self, **kwargs: Any) -> None:
        self._loading = False
        self.counters: dict[str, Stepper] = {}  # before super(): kv's on_kv_post fills it
        super().__init__(**kwargs)

    def on_kv_post(self, _base: Any) -> None:
        grid = self.ids.counts
        for field in DISC_FIELDS:
            box = DiscCounter(field=field)
            stepper = Stepper(low=0, high=dragons_gold.BOX[dragons_gold.Disc(field)])
            stepper.bind(value=lambda s, v, f=field: self.count_changed(f, int(v), s))
            box.add_widget(FitLabel(text=TR._(field), size_hint_y=0.4))
            box.add_widget(stepper)
            self.counters[field] = stepper
            grid.add_widget(box)

    def on_pre_enter(self, *_: Any) -> None:
        self.refresh()

    def refresh(self) -> None:
        session = self.svc.session if self.svc is not None else None
        names = [p.name for p in session.players] if session is not None else []
        self.players = names
        if self.player not in names:
            self.player = names[0] if names else ""
        self.rules = (session.score_rules if session is not None else None) or "simple"
        tabs = self.ids.tabs
        tabs.clear_widgets()
        for p in session.players if session is not None else ():
            tab = TouchButton(text=p.name, selected=p.name == self.player,
                              fill=[0, 0, 0, 0] if p.name == self.player else rgb(PLAYER_RGB[p.colour], 0.55))
            tab.bind(on_release=lambda _b, n=p.name: self.choose(n))
            tabs.add_widget(tab)
        for widget in self.counters.values():
            widget.disabled = not self.player
        for field, label in zip(DISC_FIELDS, self.ids.counts.children[::-1], strict=True):
            label.children[1].text = TR._(field)
        self._load_counts()
        self._rescore()

    def choose(self, player: str) -> None:
        self.player = player
        self.refresh()

    def set_rules(self, rules: str) -> None:
        session = self.svc.session
        if session is not None:
            self.attempt(lambda: session.set_score_rules(rules))
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

    def _rescore(self) -> None:
        session = self.svc.session if self.svc is not None else None
        if session is None or len(session.players) < dragons_gold.MIN_PLAYERS:
            self.summary = TR._("Dragon's Gold is for 3 to 6 players: add them on the Home screen")
            return
        try:
            out = dragons_gold.score_document(session.score_document())
        except CompanionError as exc:
            self.summary = str(exc)
            return
        winners = set(out["winners"])
        self.summary = "   ".join(f"{name} {score}{' ★' if name in winners else ''}"
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


SCREEN = DragonsGoldScoreScreen
