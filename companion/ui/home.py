"""The Home screen: the game, the players at the table, the language, Start and Resume.

Everything here is done by touch: a name is typed on the app's own keyboard
(:class:`~companion.ui.keyboard.NameKeyboard`), a player from an earlier game is one tap on
their chip, and nothing moves under a finger: a recent player's chip stays where it is once
added (ticked and dimmed), and a removed player leaves a chip in their place that brings them
back with one tap.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.lang import Builder
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from companion.errors import CompanionError
from companion.games import find_game
from companion.history import SAND_TIMER, game_name
from companion.session import PLAYER_COLOURS, Player
from companion.ui.keyboard import NameKeyboard
from companion.ui.lang import TR
from companion.ui.screens import BaseScreen
from companion.ui.services import game_choices
from companion.ui.theme import FONT_NAME, PLAYER_RGB, THEME, rgb
from companion.ui.widgets import TouchButton

log = logging.getLogger(__name__)

MAX_PLAYERS = 6
"""The most any game takes (and the most the turn clock's seats have room for)."""


def player_range(game: str) -> tuple[int, int] | None:
    """The fewest and most players *game* (a key of :func:`game_choices`) is for; None for any count
    (the sand-timer)."""
    if game == "timer":
        return None
    info = find_game(game)
    return info.min_players, info.max_players


class NameField(TouchButton):
    """What looks like a text field: shows ``text`` (the name) or, while empty, ``hint``; a
    tap opens the keyboard. It takes no keyboard focus, so no system keyboard ever opens."""

    hint = StringProperty("")


class HomeScreen(BaseScreen):
    colour = StringProperty(PLAYER_COLOURS[0])
    """The colour the next player gets."""
    colour_rgba = ListProperty(rgb(PLAYER_RGB[PLAYER_COLOURS[0]]))
    can_resume = BooleanProperty(False)
    game = StringProperty("timer")
    seats = StringProperty("side")  # table mode: "around" turns each player's panel to their seat
    count_ok = BooleanProperty(True)
    """True while the players at the table are as many as the chosen game is for."""
    ending = StringProperty("")
    """The unfinished game a second tap on Start ends (its shown name), or ""."""
    range_note = StringProperty("")
    """How many players the chosen game is for, shown on Start ("3–6 players")."""
    choices = NumericProperty(5)
    """How many buttons the game row holds: the sand-timer and each registered game."""
    row_most = NumericProperty(6)
    """The most game buttons side by side on a landscape screen; more go on a second row."""
    # Not named on_*: Kivy takes on_* keyword arguments as event bindings.
    choose_language: Callable[[str], None] = ObjectProperty(lambda _lang: None)
    session_started: Callable[[str], None] = ObjectProperty(lambda _game: None)
    keyboard: NameKeyboard | None = ObjectProperty(None, allownone=True)
    """The name keyboard while it is open."""

    def __init__(self, **kwargs: Any) -> None:
        # Set before Kivy's __init__, which applies the kv rule (and so on_kv_post) itself.
        self.players: list[Player] = []
        self._shown: list[Player] = []  # the chips in the players' grid: the players, and those just removed
        self._gone: set[str] = set()  # removed players whose chip still stands, to bring them back
        self._recent: list[tuple[str, str]] = []  # the recent players' row, as it was when the screen opened
        self._recent_trigger = Clock.create_trigger(lambda _dt: self._build_recent(), -1)
        super().__init__(**kwargs)

    def on_kv_post(self, _base: Any) -> None:
        self._build_games()
        self.ids.recent.fbind("width", self._recent_trigger)
        self.fbind("size", self._recent_trigger)

    def on_colour(self, _screen: Any, colour: str) -> None:
        self.colour_rgba = rgb(PLAYER_RGB.get(colour, "#888888"))

    def on_pre_enter(self, *_: Any) -> None:
        self.refresh()

    def refresh(self) -> None:
        self.ending = ""
        self.can_resume = self.svc is not None and self.svc.session is None and \
            self.svc.store.open_session() is not None
        self._recent = self.svc.store.recent_players(8) if self.svc is not None else []
        session = self.svc.session if self.svc is not None else None
        if session is not None and session.players and not self._shown:
            # a game resumed after a restart: Home shows its game and its players, for the next one
            self._shown, self.players = list(session.players), list(session.players)
            self.game = session.game
        self._build_games()
        self._build_players()
        self._build_recent()

    # -- the game -------------------------------------------------------------------------------

    def choose_game(self, key: str) -> None:
        self.game = key
        self._build_games()

    def _build_games(self) -> None:
        grid = self.ids.games
        grid.clear_widgets()
        choices = game_choices()
        self.choices = len(choices)
        for key, title in choices:
            button = TouchButton(text=TR._(title), selected=key == self.game)
            button.game_key = key
            button.bind(on_release=lambda b: self.choose_game(b.game_key))
            grid.add_widget(button)
        self._check_count()

    def count_refusal(self) -> str | None:
        """Why the chosen game cannot start with the players at the table, or None."""
        span = player_range(self.game)
        if span is None or span[0] <= len(self.players) <= span[1]:
            return None
        title = next(t for k, t in game_choices() if k == self.game)
        return TR._("{game} is for {low} to {high} players ({count} at the table)").format(
            game=TR._(title), low=span[0], high=span[1], count=len(self.players))

    def _check_count(self) -> None:
        span = player_range(self.game)
        self.range_note = "" if span is None else \
            TR._("{low}–{high} players").format(low=span[0], high=span[1])
        self.count_ok = self.count_refusal() is None

    # -- the language -------------------------------------------------------------------------

    def set_language(self, lang: str) -> None:
        """Switch the app to *lang* and keep it in the config for the next start; a config
        that cannot be written is reported on the status line, and the switch stands."""
        self.choose_language(lang)
        if self.svc is None or self.svc.config["ui.language"] == lang:
            return
        try:
            self.svc.save({"ui.language": lang})
        except (CompanionError, OSError) as exc:
            log.warning("the language %r is not saved: %s", lang, exc)
            self.notify(TR._("The language is not saved: the config file cannot be written"))

    # -- adding players -------------------------------------------------------------------------

    def next_colour(self) -> None:
        taken = {p.colour for p in self.players}
        free = [c for c in PLAYER_COLOURS if c not in taken] or list(PLAYER_COLOURS)
        i = free.index(self.colour) + 1 if self.colour in free else 0
        self.colour = free[i % len(free)]

    def add_pressed(self) -> None:
        """The Add player button: adds a name already in the field, else opens the keyboard."""
        if self.ids.name_input.text.strip():
            self.add_player()
        else:
            self.open_keyboard()

    def open_keyboard(self) -> None:
        """Open the name keyboard (the screenshot state ``home-keyboard``). Main thread."""
        if len(self.players) >= MAX_PLAYERS:
            self.notify(TR._("Six players at most"))
            return
        if self.keyboard is not None:
            return
        keyboard = NameKeyboard(add=self.admit, next_colour=self.next_colour, colour=self.colour,
                                colour_rgba=self.colour_rgba)
        follow = [("colour", keyboard.setter("colour")), ("colour_rgba", keyboard.setter("colour_rgba"))]
        for name, setter in follow:
            self.fbind(name, setter)

        def closed(*_: Any) -> None:
            for name, setter in follow:
                self.funbind(name, setter)
            self.keyboard = None

        keyboard.bind(on_dismiss=closed)
        self.keyboard = keyboard
        keyboard.open()

    def refusal(self, name: str) -> str | None:
        """Why *name* cannot join the table now, or None."""
        if not name:
            return TR._("Type a name first")
        if any(p.name == name for p in self.players):
            return TR._("That name is already at the table")
        if len(self.players) >= MAX_PLAYERS:
            return TR._("Six players at most")
        return None

    def admit(self, name: str, colour: str | None = None) -> str | None:
        """Seat *name* (in *colour*, if it is free, else the next free colour); None when done,
        else the refusal."""
        name = name.strip()
        why = self.refusal(name)
        if why is not None:
            return why
        taken = {p.colour for p in self.players}
        if colour is None or colour in taken:
            colour = self.colour if self.colour not in taken else \
                next((c for c in PLAYER_COLOURS if c not in taken), self.colour)
        self._shown = [p for p in self._shown if p.name not in self._gone] + [Player(name, colour)]
        self._gone.clear()
        self._sync()
        if self.colour in {p.colour for p in self.players}:
            self.next_colour()
        if self.keyboard is not None and len(self.players) >= MAX_PLAYERS:
            self.keyboard.dismiss()  # the table is full: nothing more to type
        return None

    def add_player(self, name: str | None = None, colour: str | None = None) -> bool:
        """Seat *name*, or the name in the field; a refusal is shown on the status line."""
        why = self.admit(name if name is not None else self.ids.name_input.text, colour)
        if why is not None:
            self.notify(why)
            return False
        self.ids.name_input.text = ""
        return True

    # -- the players at the table --------------------------------------------------------------

    def remove_player(self, name: str) -> None:
        """Take *name* off the table; their chip stays, greyed, and a tap on it brings them back."""
        if name not in {p.name for p in self.players}:
            return
        self._gone.add(name)
        self._sync()
        self.notify(TR._("{name} removed: tap ↶ {name} to undo").format(name=name))

    def bring_back(self, name: str) -> None:
        if len(self.players) >= MAX_PLAYERS:
            self.notify(TR._("Six players at most"))
            return
        self._gone.discard(name)
        self._sync()
        self.notify("")

    def recolour(self, name: str) -> None:
        """Give *name* the next colour no other player has."""
        taken = {p.colour for p in self.players if p.name != name}
        free = [c for c in PLAYER_COLOURS if c not in taken]
        for i, p in enumerate(self._shown):
            if p.name == name and free:
                at = free.index(p.colour) + 1 if p.colour in free else 0
                self._shown[i] = replace(p, colour=free[at % len(free)])
        self._sync()

    def _sync(self) -> None:
        self.players = [p for p in self._shown if p.name not in self._gone]
        self._build_players()
        self._label_recent()
        self._check_count()

    def _build_players(self) -> None:
        box = self.ids.players
        box.clear_widgets()
        for p in self._shown:
            box.add_widget(self._chip(p, gone=p.name in self._gone))

    def _chip(self, player: Player, gone: bool) -> BoxLayout:
        chip = BoxLayout(spacing=THEME.u * 0.06)
        if gone:
            back = TouchButton(text=f"↶ {player.name}")
            back.bind(on_release=lambda _b, n=player.name: self.bring_back(n))
            chip.add_widget(back)
            return chip
        name = TouchButton(text=player.name, fill=rgb(PLAYER_RGB.get(player.colour, "#888888")))
        name.bind(on_release=lambda _b, n=player.name: self.recolour(n))
        cross = TouchButton(text="✕", size_hint_x=None, width=THEME.u)
        cross.player = player.name
        cross.bind(on_release=lambda _b, n=player.name: self.remove_player(n))
        chip.add_widget(name)
        chip.add_widget(cross)
        return chip

    # -- recent players -------------------------------------------------------------------------

    def _build_recent(self) -> None:
        """One row of chips (two in portrait), as many as fit, in the order they had when the
        screen opened: adding or removing a player never moves one."""
        box = self.ids.recent
        box.clear_widgets()
        rows, x = (2 if self.height > self.width else 1), 0.0
        gap = box.spacing[0]
        measure = CoreLabel(font_name=FONT_NAME, font_size=THEME.u * 0.42)
        for name, colour in self._recent:
            width = max(THEME.u * 2, measure.get_extents(f"✓ {name}")[0] + THEME.u * 0.6)
            if x and x + width > box.width + 0.5:  # the next row
                rows, x = rows - 1, 0.0
            if rows == 0 or width > box.width:
                break
            x += width + gap
            chip = TouchButton(text=name, size_hint=(None, None), height=THEME.u, width=width)
            chip.recent_name = name
            chip.bind(on_release=lambda _b, n=name, c=colour: self.add_player(n, c))
            box.add_widget(chip)
        self._label_recent()

    def _label_recent(self) -> None:
        here = {p.name for p in self.players}
        for chip in self.ids.recent.children:
            seated = chip.recent_name in here
            chip.text = f"✓ {chip.recent_name}" if seated else chip.recent_name
            chip.disabled = seated

    # -- starting -------------------------------------------------------------------------------

    def toggle_seats(self) -> None:
        self.seats = "around" if self.seats == "side" else "side"

    def start(self) -> None:
        """Start the chosen game with the players at the table; refused at once, with the game's
        range, when they are too few or too many."""
        why = self.count_refusal()
        if why is not None:
            self.notify(why)
            return
        unfinished = self._unfinished()
        if unfinished is not None and not self.ending:  # a game in play is ended on a second tap only
            self.ending = TR._(game_name(unfinished))
            self.notify(TR._("{game} is not finished: “Start over” ends it").format(game=self.ending))
            return
        self.ending = ""
        try:
            session = self.svc.start_session(self.game, list(self.players))
            if self.seats != "side":
                session.set_seats(self.seats)
        except CompanionError as exc:
            self.notify(str(exc))
            return
        self.notify("")  # what Home said (a removed player's undo) is not the new game's
        self.session_started(self.game)

    def _unfinished(self) -> str | None:
        """The game that starting another would leave unfinished: the session's, once a move is
        made and while it has no result; with none going, the one Home offers to resume."""
        if self.svc is None:
            return None
        session = self.svc.session
        if session is not None:
            played = bool(session.play_log or session.score_sheet) and session.result is None
            return session.game if played and session.game != SAND_TIMER else None
        row = self.svc.store.open_session()
        return row.game if row is not None and row.game != SAND_TIMER else None

    def on_game(self, *_: Any) -> None:
        self.ending = ""

    def resume(self) -> None:
        self.attempt(self.svc.resume_session)
        if self.svc.session is not None:
            note = self.svc.session.resume_note
            self.notify(TR._(note) if note else TR._("Session resumed"))
            self.session_started(self.svc.session.game)


KV_FILE = Path(__file__).with_suffix(".kv")
if str(KV_FILE) not in Builder.files:
    Builder.load_file(str(KV_FILE))
