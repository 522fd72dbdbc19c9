"""The sand-timer screen: a row of every timer, the hourglass, the digits, and the big view.

The row at the top holds one chip per timer (the two presets always, the custom ones as they
are made), each with its name in the language in use and its own time left, so a second timer
takes nothing from the digits' height. A paused timer looks paused from across the table: a
PAUSED band over dimmed, blinking digits and grey sand. A tap on the digits (or on Enlarge)
opens :class:`~companion.ui.bigtimer.BigTimerView`, the same timer over the whole window.

The screen only shows what the core says (``session.board``); every command goes to the session.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.lang import Builder
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.popup import Popup

from companion.durations import to_duration_text
from companion.timers import MAX_TIMER_S, MIN_TIMER_S, Phase
from companion.ui.bigtimer import BigTimerView, FitDigits, lay_chips
from companion.ui.lang import TR
from companion.ui.screens import BaseScreen
from companion.ui.theme import THEME, rgb
from companion.ui.widgets import TouchButton

PRESETS = ("negotiation", "market")
"""The presets that always have a chip (and kv ids ``preset_<name>``)."""
PAUSED_SAND = rgb("#9e9e9e")
"""A paused timer's sand and digits: grey, so nobody takes it for a running one."""
BLINK_S = 0.5
"""A paused timer's digits alternate between two dim levels every this many seconds."""
DIM_ALPHAS = (0.8, 0.4)
_CUSTOM = re.compile(r"timer(?: (\d+))?", re.IGNORECASE)


def timer_label(name: str) -> str:
    """A timer's name for players, in the language in use: ``negotiation`` is "Negotiation"
    ("Egyezkedés" in Hungarian), a custom ``timer 2`` is "Timer 2" ("Időzítő 2"); any other
    name is shown as it is."""
    if name == "negotiation":
        return TR._("Negotiation")
    if name == "market":
        return TR._("Market")
    custom = _CUSTOM.fullmatch(name)
    if custom is not None:
        return TR._("Timer") + (f" {custom.group(1)}" if custom.group(1) else "")
    return name


def chip_text(name: str, phase: Phase | None, left_s: float) -> str:
    """A chip's two lines: the name, and the time left (a running one marked ▶, a paused ❚❚)."""
    mark = {Phase.RUNNING: "▶ ", Phase.PAUSED: "❚❚ "}.get(phase, "") if phase is not None else ""
    return f"{timer_label(name)}\n{mark}{to_duration_text(left_s)}"


def sand_colour(phase: Phase, left_s: float, warnings_s: tuple[float, ...]) -> list[float]:
    """Grey while paused, red at the last warning or expired, amber at the first, else yellow."""
    if phase is Phase.PAUSED:
        return PAUSED_SAND
    if phase is Phase.EXPIRED or (warnings_s and left_s <= warnings_s[-1]):
        return list(THEME.red)
    if warnings_s and left_s <= warnings_s[0]:
        return list(THEME.amber)
    return list(THEME.primary)


class DigitsButton(ButtonBehavior, FitDigits):  # type: ignore[misc]
    """The digits themselves: a tap opens the big view. Coloured by the screen, not as a button."""


class CustomTimerPopup(Popup):  # type: ignore[misc]
    """A timer of any length: a usual one in one tap, or minutes and seconds set and Start."""

    confirmed: Callable[[float], None] = ObjectProperty(lambda _s: None)

    def confirm(self) -> None:
        total = self.ids.minutes.value * 60 + self.ids.seconds.value
        if MIN_TIMER_S <= total <= MAX_TIMER_S:  # the limits of a typed duration
            self.confirmed(float(total))
        self.dismiss()

    def start_now(self, total_s: float) -> None:
        self.confirmed(float(total_s))
        self.dismiss()


class TimerScreen(BaseScreen):
    """The selected timer big, every timer in the row above it. Main thread only."""

    selected = StringProperty("")
    fraction_left = NumericProperty(1.0)
    sand = ListProperty(THEME.primary)
    digits = StringProperty("1:00")
    title = StringProperty("")
    phase = StringProperty("")
    has_timer = BooleanProperty(False)
    toggle_text = StringProperty("")
    paused = BooleanProperty(False)
    """True while the selected timer is paused: the band shows and the digits dim."""
    digits_alpha = NumericProperty(1.0)
    """The digits' opacity: 1, or blinking between two dim levels while paused."""
    big: BigTimerView | None = ObjectProperty(None, allownone=True)
    """The big view while it is open."""

    def __init__(self, **kwargs: Any) -> None:
        self._custom_chips: dict[str, TouchButton] = {}
        super().__init__(**kwargs)

    # -- what the core says, copied into the widgets ------------------------------------------

    def _session_timer(self) -> tuple[Any, str] | None:
        session = self.svc.session if self.svc is not None else None
        if session is None or self.selected not in session.board:
            return None
        return session, self.selected

    def on_pre_enter(self, *_: Any) -> None:
        self.refresh()

    def refresh(self) -> None:
        session = self.svc.session if self.svc is not None else None
        names = session.board.names if session is not None else []
        if self.selected not in names:
            self.selected = names[-1] if names else ""
        self._rebuild_custom_chips([n for n in names if n not in PRESETS])
        now = session.now() if session is not None else 0.0
        self._update_chips(session, now)
        if session is not None and self.selected:
            self.update(now)
        else:  # no session, or one without timers yet (a new game after one that had some)
            self.has_timer, self.phase, self.title = False, "", TR._("Choose a timer above")
            self.digits, self.fraction_left, self.sand = "–:––", 1.0, THEME.primary
            self.paused, self.digits_alpha = False, 1.0
            self.toggle_text = TR._("Start")

    def _rebuild_custom_chips(self, customs: list[str]) -> None:
        if list(self._custom_chips) == customs:
            return
        row = self.ids.chips
        for chip in self._custom_chips.values():
            row.remove_widget(chip)
        self._custom_chips = {}
        for name in customs:  # each just left of the Custom button, so in the order they were made
            chip = TouchButton()
            chip.bind(on_release=lambda _b, n=name: self.tap_timer(n))
            row.add_widget(chip, index=1)
            self._custom_chips[name] = chip
        self.lay_chips()

    def lay_chips(self) -> None:
        lay_chips(self.ids.chips)

    def chip_items(self, session: Any, now: float) -> list[tuple[str, str]]:
        """Every timer of the session as ``(name, chip text)``, in the order they were made."""
        items = []
        for name in session.board.names:
            timer = session.board[name]
            items.append((name, chip_text(name, timer.phase, timer.remaining_s(now))))
        return items

    def _update_chips(self, session: Any, now: float) -> None:
        board = session.board if session is not None else None
        for name in PRESETS:
            chip = self.ids[f"preset_{name}"]
            if board is not None and name in board:
                timer = board[name]
                chip.text = chip_text(name, timer.phase, timer.remaining_s(now))
            else:
                total = self.svc.config.presets.get(name, 60.0) if self.svc is not None else 60.0
                chip.text = chip_text(name, None, total)
            chip.selected = name == self.selected
        for name, chip in self._custom_chips.items():
            if board is not None and name in board:
                timer = board[name]
                chip.text = chip_text(name, timer.phase, timer.remaining_s(now))
            chip.selected = name == self.selected
        if self.big is not None and session is not None:
            self.big.show_chips(self.chip_items(session, now), self.selected)

    def update(self, now: float) -> None:
        session = self.svc.session if self.svc is not None else None
        if session is not None:
            self._update_chips(session, now)
        found = self._session_timer()
        if found is None:
            if self.has_timer:
                self.refresh()
            return
        session, name = found
        timer = session.board[name]
        left = timer.remaining_s(now)
        self.has_timer = True
        self.phase = timer.phase.value
        self.title = timer_label(name)
        self.digits = to_duration_text(left)
        self.fraction_left = timer.fraction_left(now)
        self.sand = sand_colour(timer.phase, left, timer.warnings_s)
        self.paused = timer.phase is Phase.PAUSED
        self.digits_alpha = DIM_ALPHAS[int(now / BLINK_S) % 2] if self.paused else 1.0
        self.toggle_text = {Phase.RUNNING: TR._("Pause"), Phase.PAUSED: TR._("Resume"),
                            Phase.IDLE: TR._("Start"), Phase.EXPIRED: TR._("Again")}[timer.phase]

    # -- commands ------------------------------------------------------------------------------

    def _act(self, fn: Callable[[Any, str], None]) -> None:
        found = self._session_timer()
        if found is not None:
            session, name = found
            self.attempt(lambda: fn(session, name))
            self.update(session.now())

    def toggle(self) -> None:
        self._act(lambda s, n: s.toggle(n))

    def reset(self) -> None:
        self._act(lambda s, n: s.reset(n))

    def adjust(self, delta: float) -> None:
        self._act(lambda s, n: s.adjust(n, delta))

    def flip(self) -> None:
        self._act(lambda s, n: s.flip(n))

    def select(self, name: str) -> None:
        self.selected = name
        self.refresh()

    def tap_timer(self, name: str) -> None:
        """A chip's tap: show that timer, and start it if it is not going (a preset's timer is made
        first). A running or paused timer is never restarted by a tap: a hold on the big button
        resets it."""
        session = self.svc.ensure_session()

        def go() -> None:
            if name not in session.board:
                session.add_timer(name, self.svc.config.presets.get(name, 60.0))
            if session.board[name].phase in (Phase.IDLE, Phase.EXPIRED):
                session.toggle(name)  # the session restarts an expired timer from full

        self.attempt(go)
        self.select(name)

    def use_preset(self, preset: str) -> None:
        """Show the preset's timer and start it if it is not going (made if need be)."""
        self.tap_timer(preset)

    def open_custom(self) -> None:
        CustomTimerPopup(confirmed=self.start_custom).open()

    def start_custom(self, total_s: float) -> None:
        """Make the next custom timer (``timer 1``, ``timer 2``...: shown as "Timer 1" in the
        language in use) and start it."""
        session = self.svc.ensure_session()
        n = 1
        while f"timer {n}" in session.board:
            n += 1
        name = f"timer {n}"

        def go() -> None:
            session.add_timer(name, total_s)
            session.toggle(name)

        self.attempt(go)
        self.select(name)

    # -- the big view ----------------------------------------------------------------------------

    def open_big(self) -> BigTimerView:
        """Open the selected timer over the whole window (the nav bar too); returns the view."""
        if self.big is None:
            self.big = BigTimerView(screen=self, flash_source=self._flash_source())
            self.big.bind(on_dismiss=lambda *_: setattr(self, "big", None))
            self.big.open(animation=False)
            self.refresh()
        return self.big

    def close_big(self) -> None:
        if self.big is not None:
            self.big.dismiss(animation=False)

    def _flash_source(self) -> Any:
        """The app's root, whose ``flash`` colour the big view copies at an expiry (or None)."""
        node = self.parent
        while node is not None and node.parent is not node:
            if hasattr(node, "flash"):
                return node
            node = node.parent
        return None

    def show_state(self, state: str) -> None:
        """For the screenshot script, not for journeys: put the selected timer in *state*
        (``"paused"`` or ``"running"``), or open (``"big"``) or close (``"normal"``) the big view."""
        found = self._session_timer()
        if state in ("paused", "running") and found is not None:
            session, name = found
            running = session.board[name].phase is Phase.RUNNING
            if running != (state == "running"):
                self.toggle()
        elif state == "big":
            self.open_big()
        elif state == "normal":
            self.close_big()


KV_FILE = Path(__file__).with_suffix(".kv")
if str(KV_FILE) not in Builder.files:
    Builder.load_file(str(KV_FILE))
