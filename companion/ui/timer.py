"""The sand-timer screen: the hourglass, the digits, the presets and a custom timer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.lang import Builder
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.popup import Popup

from companion.durations import to_duration_text
from companion.timers import Phase
from companion.ui.lang import TR
from companion.ui.screens import BaseScreen
from companion.ui.theme import THEME
from companion.ui.widgets import TouchButton


class CustomTimerPopup(Popup):  # type: ignore[misc]
    confirmed: Callable[[float], None] = ObjectProperty(lambda _s: None)

    def confirm(self) -> None:
        total = self.ids.minutes.value * 60 + self.ids.seconds.value
        if total > 0:
            self.confirmed(float(total))
        self.dismiss()


class TimerScreen(BaseScreen):
    selected = StringProperty("")
    fraction_left = NumericProperty(1.0)
    sand = ListProperty(THEME.primary)
    digits = StringProperty("1:00")
    title = StringProperty("")
    phase = StringProperty("")
    has_timer = BooleanProperty(False)
    toggle_text = StringProperty("")

    def preset_text(self, name: str) -> str:
        seconds = self.svc.config.presets.get(name, 60.0) if self.svc is not None else 60.0
        return to_duration_text(seconds)

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
        chips = self.ids.chips
        chips.clear_widgets()
        if len(names) > 1:
            for name in names:
                chip = TouchButton(text=name, selected=name == self.selected)
                chip.bind(on_release=lambda b, n=name: self.select(n))
                chips.add_widget(chip)
        if session is not None and self.selected:
            self.update(session.now())
        else:  # no session, or one without timers yet (a new game after one that had some)
            self.has_timer, self.phase, self.title = False, "", TR._("Choose a timer below")
            self.digits, self.fraction_left, self.sand = "–:––", 1.0, THEME.primary
            self.toggle_text = TR._("Start")

    def select(self, name: str) -> None:
        self.selected = name
        self.refresh()

    def update(self, now: float) -> None:
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
        self.title = TR._(name.capitalize()) if name in ("negotiation", "market") else name
        self.digits = to_duration_text(left)
        self.fraction_left = timer.fraction_left(now)
        warnings = timer.warnings_s
        if timer.phase is Phase.EXPIRED or (warnings and left <= warnings[-1]):
            self.sand = THEME.red
        elif warnings and left <= warnings[0]:
            self.sand = THEME.amber
        else:
            self.sand = THEME.primary
        self.toggle_text = {Phase.RUNNING: TR._("Pause"), Phase.PAUSED: TR._("Resume"),
                            Phase.IDLE: TR._("Start"), Phase.EXPIRED: TR._("Again")}[timer.phase]

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

    def use_preset(self, preset: str) -> None:
        """Select the preset's timer (made if need be) and start it from full."""
        session = self.svc.ensure_session()
        total = self.svc.config.presets[preset]

        def go() -> None:
            if preset not in session.board:
                session.add_timer(preset, total)
            elif session.board[preset].phase is not Phase.IDLE:
                session.reset(preset)
            session.toggle(preset)

        self.attempt(go)
        self.selected = preset
        self.refresh()

    def open_custom(self) -> None:
        CustomTimerPopup(confirmed=self.start_custom).open()

    def start_custom(self, total_s: float) -> None:
        session = self.svc.ensure_session()
        n = 1
        while f"{TR._('Timer')} {n}" in session.board:
            n += 1
        name = f"{TR._('Timer')} {n}"

        def go() -> None:
            session.add_timer(name, total_s)
            session.toggle(name)

        self.attempt(go)
        self.selected = name
        self.refresh()

KV_FILE = Path(__file__).with_suffix(".kv")
if str(KV_FILE) not in Builder.files:
    Builder.load_file(str(KV_FILE))
