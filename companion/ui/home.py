"""The Home screen: the game, the players at the table, the language, Start and Resume."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.lang import Builder
from kivy.properties import BooleanProperty, ListProperty, ObjectProperty, StringProperty

from companion.session import PLAYER_COLOURS, Player
from companion.ui.lang import TR
from companion.ui.screens import BaseScreen
from companion.ui.services import GAMES
from companion.ui.theme import PLAYER_RGB, THEME, rgb
from companion.ui.widgets import TouchButton


class HomeScreen(BaseScreen):
    colour = StringProperty(PLAYER_COLOURS[0])
    colour_rgba = ListProperty(rgb(PLAYER_RGB[PLAYER_COLOURS[0]]))
    can_resume = BooleanProperty(False)
    game = StringProperty("timer")
    seats = StringProperty("side")  # table mode: "around" turns each player's panel to their seat
    # Not named on_*: Kivy takes on_* keyword arguments as event bindings.
    choose_language: Callable[[str], None] = ObjectProperty(lambda _lang: None)
    session_started: Callable[[str], None] = ObjectProperty(lambda _game: None)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.players: list[Player] = []

    def on_kv_post(self, _base: Any) -> None:
        self._build_games()

    def _build_games(self) -> None:
        grid = self.ids.games
        grid.clear_widgets()
        for key, title in GAMES:
            button = TouchButton(text=TR._(title), selected=key == self.game)
            button.game_key = key
            button.bind(on_release=lambda b: self.choose_game(b.game_key))
            grid.add_widget(button)

    def on_pre_enter(self, *_: Any) -> None:
        self.refresh()

    def refresh(self) -> None:
        self.can_resume = self.svc is not None and self.svc.session is None and \
            self.svc.store.open_session() is not None
        self._build_games()
        self._build_players()
        self._build_recent()

    def choose_game(self, key: str) -> None:
        self.game = key
        self._build_games()

    def set_language(self, lang: str) -> None:
        self.choose_language(lang)

    def next_colour(self) -> None:
        taken = {p.colour for p in self.players}
        free = [c for c in PLAYER_COLOURS if c not in taken] or list(PLAYER_COLOURS)
        i = free.index(self.colour) + 1 if self.colour in free else 0
        self.colour = free[i % len(free)]
        self.colour_rgba = rgb(PLAYER_RGB[self.colour])

    def add_player(self, name: str | None = None, colour: str | None = None) -> None:
        text = (name if name is not None else self.ids.name_input.text).strip()
        if not text:
            self.notify(TR._("Type a name first"))
            return
        if any(p.name == text for p in self.players):
            self.notify(TR._("That name is already at the table"))
            return
        if len(self.players) >= 6:
            self.notify(TR._("Six players at most"))
            return
        self.players.append(Player(text, colour or self.colour))
        self.ids.name_input.text = ""
        self.next_colour()
        self._build_players()
        self._build_recent()

    def remove_player(self, name: str) -> None:
        self.players = [p for p in self.players if p.name != name]
        self._build_players()
        self._build_recent()

    def _build_players(self) -> None:
        box = self.ids.players
        box.clear_widgets()
        for p in self.players:
            chip = TouchButton(text=f"{p.name}  ×", fill=rgb(PLAYER_RGB.get(p.colour, "#888888")))
            chip.bind(on_release=lambda b, n=p.name: self.remove_player(n))
            box.add_widget(chip)

    def _build_recent(self) -> None:
        box = self.ids.recent
        box.clear_widgets()
        if self.svc is None:
            return
        here = {p.name for p in self.players}
        for name, colour in self.svc.store.recent_players(8):
            if name in here:
                continue
            chip = TouchButton(text=name, size_hint=(None, None), height=THEME.u * 0.85,
                               width=max(THEME.u * 2, THEME.u * 0.35 * len(name) + THEME.u))
            chip.bind(on_release=lambda b, n=name, c=colour: self.add_player(n, c))
            box.add_widget(chip)

    def toggle_seats(self) -> None:
        self.seats = "around" if self.seats == "side" else "side"

    def start(self) -> None:
        def go() -> None:
            session = self.svc.start_session(self.game, list(self.players))
            if self.seats != "side":
                session.set_seats(self.seats)

        self.attempt(go)
        self.session_started(self.game)

    def resume(self) -> None:
        self.attempt(self.svc.resume_session)
        if self.svc.session is not None:
            note = self.svc.session.resume_note
            self.notify(TR._(note) if note else TR._("Session resumed"))
            self.session_started(self.svc.session.game)

KV_FILE = Path(__file__).with_suffix(".kv")
if str(KV_FILE) not in Builder.files:
    Builder.load_file(str(KV_FILE))
