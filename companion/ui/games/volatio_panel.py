"""Volatio's panel per dragon and the banner above the panels (the screen is :mod:`.volatio`).

Main thread only.
"""

from __future__ import annotations

from typing import Any

from kivy.clock import Clock
from kivy.properties import (
    BooleanProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label

from companion.games import volatio as v
from companion.games.volatio import play as vt
from companion.ui.lang import TR
from companion.ui.theme import THEME
from companion.ui.widgets import MIN_FONT_PX

BANNER_FONT_U = 0.42
"""The banner's text: 20 px at 800x480 (u = 48), never under the app's 18 px."""


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


class DragonPanel(BoxLayout):  # type: ignore[misc]
    """One dragon in three rows. Shows; the screen acts.

    Before its flight: name and status; energy and cards (Lay); − DP + and Reveal.
    After it: name, status and position −/+; energy and cards (a field's +1, a symbol's card);
    Base, Path and Collision. On the start flight the Avolatio card's tokens and cards are
    set with the − / + beside them.
    """

    owner: Any = ObjectProperty(None)
    player = StringProperty("")
    colour = ListProperty([0.5, 0.5, 0.5, 1])
    dial = NumericProperty(vt.START_CARD.speed)
    status = StringProperty("")
    status_colour = ListProperty(THEME.muted)
    energy_text = StringProperty("")
    cards_text = StringProperty("")
    position_text = StringProperty("")
    reveal_text = StringProperty("")
    lay_text = StringProperty("−")
    lay_font_u = NumericProperty(0.6)  # "−" as big as the other steppers', a word as a label's
    dial_text = StringProperty("")
    base_text = StringProperty("")
    path_text = StringProperty("")
    collision_text = StringProperty("")
    dial_colour = ListProperty(THEME.text)
    can_reveal = BooleanProperty(True)
    can_judge = BooleanProperty(False)  # flown this round: penalties and gains apply
    is_active = BooleanProperty(True)  # racing, and the race not over
    next_up = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.problem = ""  # a refused reveal, shown until the next change
        self._dial_for: tuple[int, int, bool] | None = None
        self._phase: tuple[bool, bool, bool, bool] = (True, False, False, False)
        THEME.fbind("u", self._fit_rows)

    def bump_dial(self, direction: int) -> None:
        self.problem = ""
        self.dial = min(v.MAX_SPEED, max(v.MIN_SPEED, int(self.dial) + direction * 100))
        if self.owner is not None:
            self.owner.refresh_panel(self)

    def show(self, race: vt.Race) -> None:
        """Copy what the race says about this dragon into the panel's properties."""
        name = self.player
        dragon = race.dragons[name]
        flown = name in race.flown
        setup = race.round == vt.START_ROUND and not flown
        key = (race.round, dragon.silver, flown)
        if key != self._dial_for:  # a new round, a reset pointer or an undo: the dial starts from silver
            self._dial_for = key
            self.dial = dragon.silver
        self.is_active = not dragon.eliminated and not race.is_over
        self.can_reveal = self.is_active and not flown
        self.can_judge = self.is_active and flown
        self.next_up = self.is_active and race.next_to_fly() == name
        self.energy_text = f"{TR._('Energy')} {dragon.energy}/{v.ENERGY_LIMIT}"
        self.cards_text = f"{TR._('Cards')} {dragon.hand}/{v.HAND_LIMIT}"
        self.position_text = f"{TR._('Position')} {race.progress[name]}"
        self.reveal_text = TR._("Revealed") if flown else TR._("Reveal")
        if setup:
            self.lay_text, self.lay_font_u = "−", 0.6
        else:
            self.lay_text, self.lay_font_u = (_cap(TR._("laid")) if dragon.laid else TR._("Lay")), 0.4
        self.ids.cards_minus.selected = dragon.laid and not setup
        self.dial_text = f"{int(self.dial)} {TR._('DP')}"
        self.base_text, self.path_text, self.collision_text = TR._("Base"), TR._("Path"), TR._("Collision")
        legal = self.dial in race.legal_dials(name) or not self.is_active
        self.dial_colour = THEME.text if legal else THEME.red
        parts: list[str] = []
        colour = THEME.muted
        if dragon.eliminated:
            parts, colour = [TR._("Out of the race")], THEME.red
        elif self.problem:
            parts, colour = [self.problem], THEME.red
        else:
            if dragon.is_fatigued:
                parts.append(TR._("Fatigued"))
                colour = THEME.amber
            if self.next_up:
                parts.append(TR._("Next to fly"))
                colour = THEME.primary if not dragon.is_fatigued else colour
            elif flown:
                parts.append(TR._("Flown"))
                colour = THEME.green if not dragon.is_fatigued else colour
        self.status, self.status_colour = " · ".join(parts), colour
        self._phase = (setup, flown, dragon.laid, dragon.eliminated)
        self._fit_rows()

    def _fit_rows(self, *_: Any) -> None:
        """Show the controls of the dragon's phase, hide the rest (out of the way and untappable)."""
        setup, flown, laid, out = self._phase
        active = self.is_active
        ids = self.ids
        shown = {
            "position_minus": (flown and not out, 1.0), "position": (flown and not out, 1.75),
            "position_plus": (flown and not out, 1.0),
            "energy_plus": (setup or flown, 1.0), "cards_plus": (setup or flown, 1.0),
            "cards_minus": (not flown, 1.0 if setup else 2.3),
            "dial_minus": (not flown, 1.0), "dial": (not flown, None), "dial_plus": (not flown, 1.0),
            "reveal": (not flown, 2.3),
            "base": (flown, None), "path": (flown, None), "collision": (flown, None),
        }
        for key, (on, width_u) in shown.items():
            widget = ids[key]
            if on:
                if width_u is None:
                    widget.size_hint_x = 1.6 if key == "collision" else 1
                else:
                    widget.size_hint_x, widget.width = None, THEME.u * width_u
                widget.opacity = 1
            else:
                widget.size_hint_x, widget.width, widget.opacity = None, 0, 0
            widget.disabled = not (on and active)
        ids.cards_minus.disabled = ids.cards_minus.disabled or (laid and not setup)
        ids.energy_minus.disabled = not active


class BannerLine(Label):  # type: ignore[misc]
    """One consequence in the banner: wraps at word breaks, as tall as its text (never cut)."""


class Banner(ButtonBehavior, BoxLayout):  # type: ignore[misc]
    """What a move asks the players to do, one line each, until a tap on it (or its ✕) closes it.

    A tap dispatches ``on_close``, which closes the banner unless a handler bound to it (the
    screen, showing an earlier banner still waiting) returns True. *waiting* is how many earlier
    banners wait under this one: a last line says so."""

    __events__ = ("on_close",)

    title = StringProperty("")
    fill = ListProperty([0.5, 0.5, 0.5, 1])
    lines = ListProperty([])
    waiting = NumericProperty(0)
    font_px = NumericProperty(MIN_FONT_PX)
    shown = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._rebuild = Clock.create_trigger(self._build, -1)
        for prop in ("lines", "width", "title", "waiting"):
            self.fbind(prop, self._rebuild)
        THEME.fbind("u", self._rebuild)

    def show_lines(self, title: str, fill: list[float], lines: list[str], waiting: int = 0) -> None:
        self.title, self.fill, self.lines, self.waiting = title, fill, [_cap(t) for t in lines], waiting
        self.shown = True
        self._build()

    def close(self) -> None:
        self.shown = False
        self.lines = []
        self.waiting = 0
        self._build()

    def on_release(self) -> None:
        self.dispatch("on_close")

    def on_close(self) -> None:
        self.close()

    def _build(self, *_: Any) -> None:
        """One label per line, in reading order (the
        kv rule makes each label as tall as its wrapped text and the banner as tall as them)."""
        grid = self.ids.lines
        grid.clear_widgets()
        self.font_px = max(MIN_FONT_PX, int(THEME.u * BANNER_FONT_U))
        grid.cols = 1
        for text in self.lines if self.shown else ():
            grid.add_widget(BannerLine(text=f"• {text}", font_size=self.font_px))
        if self.shown and self.waiting:
            more = TR._("Closing this shows the one before it ({count} waiting)").format(count=self.waiting)
            grid.add_widget(BannerLine(text=more, font_size=self.font_px, color=THEME.muted))


