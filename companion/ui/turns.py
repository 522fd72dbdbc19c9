"""The turn clock: a panel per player, in the player's colour; the player on the clock taps
their own panel to pass the turn (a chess clock's button, as big as the panel)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kivy.clock import Clock
from kivy.lang import Builder
from kivy.properties import BooleanProperty, ListProperty, ObjectProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout

from companion.durations import to_duration_text
from companion.ui.lang import TR
from companion.ui.screens import BaseScreen
from companion.ui.seating import SeatTable
from companion.ui.theme import PLAYER_RGB, THEME, rgb

HINT_S = 2.5
"""How long a tap on another player's panel shows whose turn it is, in seconds."""


def _luminance(colour: list[float]) -> float:
    """WCAG relative luminance of an sRGB colour (0 black, 1 white)."""
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else float(((c + 0.055) / 1.055) ** 2.4)

    r, g, b = (linear(c) for c in colour[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def text_on(colour: list[float]) -> list[float]:
    """Black or white, whichever reads better on *colour* (the higher WCAG contrast)."""
    lum = _luminance(colour)
    on_black = (lum + 0.05) / 0.05
    on_white = 1.05 / (lum + 0.05)
    return rgb("#000000") if on_black >= on_white else rgb("#ffffff")


class PlayerPanel(ButtonBehavior, BoxLayout):  # type: ignore[misc]
    """One player's clock, and the button that ends their turn (``tapped`` gets the name)."""

    name = StringProperty("")
    time_text = StringProperty("")
    current = BooleanProperty(False)
    """This player is on the clock (or will be when it starts)."""
    running = BooleanProperty(False)
    """The clock is running (else the current panel shows ▶: a tap starts it)."""
    overtime = BooleanProperty(False)
    colour = ListProperty(rgb("#ffd21f"))
    """The player's colour: the whole panel's while on the clock, an edge strip otherwise."""
    ink = ListProperty(rgb("#000000"))
    """The text's colour on :attr:`colour`."""
    hint = StringProperty("")
    """Shown in place of the name for a moment after a tap out of turn."""
    tapped: Any = ObjectProperty(lambda _name: None)

    def on_release(self) -> None:
        self.tapped(self.name)

    def heading(self, *_: Any) -> str:
        if self.hint:
            return str(self.hint)
        return ("▶ " if self.current and not self.running else "") + str(self.name)


SIDE_PANEL_U = 2.5
"""Table mode: a panel's height at the edge of the screen (a panel turned to a side seat on a wide
screen, at the bottom or top on a high one), in touch units."""


class TurnScreen(BaseScreen):
    """The turn clock's page. Main thread only."""

    running = BooleanProperty(False)
    has_clock = BooleanProperty(False)
    started = BooleanProperty(False)
    """The clock has run (a new one then asks first: the times so far would be lost)."""
    confirming = BooleanProperty(False)
    """The "start over?" question is showing in place of the budget row."""
    around = BooleanProperty(False)
    """Table mode: the panels stand round the screen by seat (:class:`SeatTable`)."""

    def __init__(self, **kwargs: Any) -> None:
        self.panels: dict[str, PlayerPanel] = {}
        self._hint_ev: Any = None
        super().__init__(**kwargs)

    def on_pre_enter(self, *_: Any) -> None:
        self.confirming = False
        self.refresh()

    def on_leave(self, *_: Any) -> None:
        self.confirming = False

    def on_kv_post(self, *_: Any) -> None:
        # Strong references: ids are weak, and the row not shown is out of the tree.
        self._top_rows = {False: self.ids.budget_row.__self__, True: self.ids.confirm_row.__self__}
        self.ids.top.remove_widget(self._top_rows[True])
        self.ids.budget.bind(value=lambda *_: None if self.has_clock else self._preview())

    def on_confirming(self, _screen: Any, asking: bool) -> None:
        """Show the budget row, or the "start over?" question in its place."""
        top = self.ids.top
        top.clear_widgets()
        top.add_widget(self._top_rows[asking])

    def default_budget_min(self) -> float:
        """The budget a new clock gets, in minutes: the running clock's, else the config's."""
        session = self.svc.session if self.svc is not None else None
        tc = session.turn_clock if session is not None else None
        budget_s = tc.budget_s if tc is not None else self.svc.config["turn_clock.budget_s"]
        return float(budget_s) / 60

    def refresh(self) -> None:
        session = self.svc.session if self.svc is not None else None
        tc = session.turn_clock if session is not None else None
        if self.svc is not None:
            budget = self.ids.budget
            budget.value = self.default_budget_min()
            budget.low = min(1.0, budget.value)
        panels = self.ids.panels
        panels.clear_widgets()
        self.has_clock = tc is not None
        self.panels = {}
        if tc is None:
            self.started = self.running = False
        names = tc.players if tc is not None else self._names()
        angles = session.panel_angles() if session is not None else {}
        colours = {p.name: p.colour for p in session.players} if session is not None else {}
        self.around = any(angles.get(name, 0) for name in names)
        table = SeatTable(side_px=THEME.u * SIDE_PANEL_U, row_px=THEME.u * SIDE_PANEL_U,
                                         gap=THEME.u * 0.15) if self.around else None
        if table is not None:
            panels.add_widget(table)
        for name in names:
            hex_colour = PLAYER_RGB.get(colours.get(name, ""), "")
            colour = rgb(hex_colour) if hex_colour else list(THEME.primary)  # "Player 1": no colour
            panel = PlayerPanel(name=name, colour=colour, ink=text_on(colour), tapped=self.panel_tapped)
            self.panels[name] = panel
            if table is not None:
                table.seat(panel, angles.get(name, 0))
            else:
                panels.add_widget(panel)
        if session is not None and tc is not None:
            self.update(session.now())
        else:
            self._preview()

    def update(self, now: float) -> None:
        session = self.svc.session if self.svc is not None else None
        tc = session.turn_clock if session is not None else None
        if tc is None:
            return  # the preview is drawn by refresh and by the budget's changes, not each frame
        self.running = tc.is_running
        self.started = tc.is_started
        for panel in self.panels.values():
            left = tc.remaining_s(panel.name, now)
            panel.current = panel.name == tc.player
            panel.running = tc.is_running
            panel.overtime = left <= 0
            panel.time_text = ("+" if left < 0 else "") + to_duration_text(abs(left))

    def _preview(self) -> None:
        """No clock yet: the panels show what Start will make (each player at the row's budget,
        the first on the clock, ▶), and nothing is logged until then."""
        for i, panel in enumerate(self.panels.values()):
            panel.current, panel.running, panel.overtime = i == 0, False, False
            panel.time_text = to_duration_text(self.ids.budget.value * 60)

    def _names(self) -> list[str]:
        """Who a new clock is for: the session's players, else four numbered ones (at least two)."""
        session = self.svc.session if self.svc is not None else None
        names = [p.name for p in session.players] if session is not None else []
        names = names or [f"{TR._('Player')} {i}" for i in range(1, 5)]
        if len(names) < 2:
            names.append(f"{TR._('Player')} 2")
        return names

    # -- commands -------------------------------------------------------------------------------

    def setup_clock(self) -> None:
        """A new clock for :meth:`_names`, at the row's budget and the config's increment; not
        started yet."""
        session = self.svc.ensure_session()
        names = self._names()
        increment_s = float(self.svc.config["turn_clock.increment_s"])
        self.confirming = False
        self.attempt(lambda: session.setup_turns(names, self.ids.budget.value * 60, increment_s))
        self.refresh()

    def new_clock(self) -> None:
        """New turn clock: at once if the clock has not run yet, else after a "start over?"."""
        session = self.svc.session
        tc = session.turn_clock if session is not None else None
        if tc is not None and tc.is_started:
            self.confirming = True
            return
        self.setup_clock()

    def keep_playing(self) -> None:
        self.confirming = False

    def confirm_new_clock(self) -> None:
        self.setup_clock()

    def tap(self) -> None:
        """The big button: starts the clock (making one first if there is none, or if the budget
        was changed before it ever ran), resumes it, or passes the turn."""
        session = self.svc.session
        tc = session.turn_clock if session is not None else None
        if tc is None or (not tc.is_started and abs(tc.budget_s - self.ids.budget.value * 60) > 0.5):
            self.setup_clock()
            session = self.svc.session
        if session is not None and session.turn_clock is not None:
            self.attempt(session.pass_turn)
            self.update(session.now())

    def panel_tapped(self, name: str) -> None:
        """A tap on a panel: the player on the clock passes the turn (or starts the clock); any
        other panel shows for a moment whose turn it is, and nothing else happens."""
        session = self.svc.session
        tc = session.turn_clock if session is not None else None
        player = tc.player if tc is not None else next(iter(self.panels), None)  # the first, before a clock
        if name == player:
            self.tap()
            return
        panel = self.panels.get(name)
        if panel is None or player is None:
            return
        self.clear_hints()
        panel.hint = TR._("It is {name}'s turn").format(name=player)
        self._hint_ev = Clock.schedule_once(lambda _dt: self.clear_hints(), HINT_S)

    def clear_hints(self) -> None:
        """Every panel shows its player's name again."""
        if self._hint_ev is not None:
            self._hint_ev.cancel()
            self._hint_ev = None
        for panel in self.panels.values():
            panel.hint = ""

    def pause(self) -> None:
        if self.svc.session is not None:
            self.attempt(self.svc.session.pause_turns)
            self.update(self.svc.session.now())

    def start_over_text(self, *_: Any) -> str:
        """The question before a new clock replaces a running one."""
        minutes = f"{self.ids.budget.value:g}"
        return TR._("Start over at {minutes} min each?").format(minutes=minutes)


KV_FILE = Path(__file__).with_suffix(".kv")
if str(KV_FILE) not in Builder.files:
    Builder.load_file(str(KV_FILE))
