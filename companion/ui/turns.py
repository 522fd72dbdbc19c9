"""The turn clock: a panel per player, tapped to pass the turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kivy.lang import Builder
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from companion.durations import to_duration_text
from companion.ui.lang import TR
from companion.ui.screens import BaseScreen
from companion.ui.widgets import SeatFrame


class PlayerPanel(BoxLayout):  # type: ignore[misc]
    name = StringProperty("")
    time_text = StringProperty("")
    current = BooleanProperty(False)
    overtime = BooleanProperty(False)


class TurnScreen(BaseScreen):
    running = BooleanProperty(False)
    has_clock = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        self.panels: dict[str, PlayerPanel] = {}
        super().__init__(**kwargs)

    def on_pre_enter(self, *_: Any) -> None:
        self.refresh()

    def refresh(self) -> None:
        session = self.svc.session if self.svc is not None else None
        tc = session.turn_clock if session is not None else None
        panels = self.ids.panels
        panels.clear_widgets()
        self.has_clock = tc is not None
        if tc is None:
            return
        angles = session.panel_angles() if session is not None else {}
        self.panels = {}
        for name in tc.players:
            panel = PlayerPanel(name=name)
            self.panels[name] = panel
            panels.add_widget(SeatFrame(panel, angle=angles.get(name, 0)))
        self.update(session.now())  # type: ignore[union-attr]

    def update(self, now: float) -> None:
        session = self.svc.session if self.svc is not None else None
        tc = session.turn_clock if session is not None else None
        if tc is None:
            return
        self.running = tc.is_running
        for panel in self.panels.values():
            left = tc.remaining_s(panel.name, now)
            panel.current = panel.name == tc.player and tc.is_started
            panel.overtime = left <= 0
            panel.time_text = ("+" if left < 0 else "") + to_duration_text(abs(left))

    def setup_clock(self) -> None:
        session = self.svc.ensure_session()
        names = [p.name for p in session.players] or [f"{TR._('Player')} {i}" for i in range(1, 5)]
        if len(names) < 2:
            names.append(f"{TR._('Player')} 2")
        self.attempt(lambda: session.setup_turns(names, self.ids.budget.value * 60))
        self.refresh()

    def tap(self) -> None:
        if self.svc.session is not None:
            self.attempt(self.svc.session.pass_turn)
            self.update(self.svc.session.now())

    def pause(self) -> None:
        if self.svc.session is not None:
            self.attempt(self.svc.session.pause_turns)
            self.update(self.svc.session.now())

KV_FILE = Path(__file__).with_suffix(".kv")
if str(KV_FILE) not in Builder.files:
    Builder.load_file(str(KV_FILE))
