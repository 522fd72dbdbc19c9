"""The screens: Home, the sand-timer, the turn clock, settings, and a page per game.

Each screen gets the :class:`Services` passed in (``svc``) and calls the core; none holds
game or timer logic of its own. The app calls :meth:`update` on the visible screen once a
frame; screens only copy what the core says into their properties.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.popup import Popup
from kivy.uix.screenmanager import Screen

from companion.durations import to_duration_text
from companion.errors import CompanionError
from companion.host import LEAVE, POWEROFF, HostRequests
from companion.pin import PinGuard, hash_pin, is_pin
from companion.session import PLAYER_COLOURS, Player
from companion.timers import Phase
from companion.ui.lang import TR
from companion.ui.services import GAMES, Services
from companion.ui.theme import PLAYER_RGB, THEME, rgb
from companion.ui.widgets import SeatFrame, Stepper, TouchButton

Notify = Callable[[str], None]


class BaseScreen(Screen):  # type: ignore[misc]
    svc: Services = ObjectProperty(None)
    notify: Notify = ObjectProperty(lambda _msg: None)

    def attempt(self, action: Callable[[], Any]) -> None:
        """Run a command; a refusal from the core is shown, not raised."""
        try:
            action()
        except CompanionError as exc:
            self.notify(str(exc))

    def update(self, now: float) -> None:
        pass

    def refresh(self) -> None:
        """Redraw from the core after the session changed wholesale (undo, resume, language)."""


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


class SettingsScreen(BaseScreen):
    """Settings, behind the admin PIN in kiosk mode; there also the host's Shut down and Leave.

    The PIN is checked against its hash in the config by a :class:`PinGuard` that lives as
    long as the screen, so its count of wrong tries survives leaving and coming back. In kiosk
    mode the screen locks itself again whenever it is left.
    """

    message = StringProperty("")
    ports: list[str] = ObjectProperty([])
    cameras: list[str] = ObjectProperty([])
    host: HostRequests | None = ObjectProperty(None, allownone=True)
    """The kiosk's way to ask for a power-off or to leave kiosk mode; None outside the kiosk."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pending: dict[str, Any] = {}
        self._guard: PinGuard | None = None
        self._guarded_hash = ""
        self._confirming = ""

    def on_pre_enter(self, *_: Any) -> None:
        self.message = ""
        self._confirming = ""
        locked = self.svc.config["ui.kiosk"] and not self.svc.unlocked
        self.ids.pages.current = "locked" if locked else "settings"
        if not locked:
            self.build_rows()

    def on_leave(self, *_: Any) -> None:
        if self.svc is not None and self.svc.config["ui.kiosk"]:
            self.svc.unlocked = False  # the next player to tap Settings meets the PIN pad again

    def refresh(self) -> None:
        if self.ids.pages.current == "settings":
            self.build_rows()

    def _pin_guard(self) -> PinGuard | None:
        stored = self.svc.config["ui.admin_pin_hash"]
        if not stored:
            return None
        if self._guard is None or stored != self._guarded_hash:
            self._guard, self._guarded_hash = PinGuard(stored, self.svc.clock), stored
        return self._guard

    def unlock(self, code: str) -> None:
        guard = self._pin_guard()
        if guard is None:
            self.message = TR._("No admin PIN is set: run companion kiosk set-pin on the Pi")
            return
        verdict = guard.check(code)
        if verdict.accepted:
            self.svc.unlocked = True
            self.message = ""
            self.ids.pages.current = "settings"
            self.build_rows()
        elif verdict.locked_for_s > 0:
            self.message = TR._("Too many wrong PINs: try again in {seconds} s").format(
                seconds=math.ceil(verdict.locked_for_s))
        else:
            self.message = TR._("Wrong PIN")

    def value(self, key: str) -> Any:
        return self.pending.get(key, self.svc.config[key] if not key.startswith("timer.presets.")
                                else self.svc.config.presets[key.rsplit(".", 1)[1]])

    def build_rows(self) -> None:
        from kivy.factory import Factory

        rows = self.ids.rows
        rows.clear_widgets()

        def row(title: str) -> Any:
            r = Factory.SettingRow()
            r.title = TR._(title) if title else ""
            rows.add_widget(r)
            return r

        def choices(title: str, key: str, options: list[str]) -> None:
            r = row(title)
            for option in options:
                b = TouchButton(text=TR._(option), selected=self.value(key) == option)
                b.bind(on_release=lambda _b, o=option: self.change(key, o))
                r.add_widget(b)

        def cycle(title: str, key: str, options: list[str]) -> None:
            r = row(title)
            current = str(self.value(key))
            b = TouchButton(text=TR._(current) if current in ("auto", "none") else current)
            opts = options if current in options else [current, *options]
            b.bind(on_release=lambda _b: self.change(key, opts[(opts.index(current) + 1) % len(opts)]))
            r.add_widget(b)

        def stepper(title: str, key: str, low: float, high: float, step: float = 1, unit: str = "") -> None:
            r = row(title)
            value = self.value(key)
            s = Stepper(low=low, high=high, step=step, value=value if value is not None else low, unit=unit)
            s.bind(value=lambda _s, v: self.change(key, int(v) if step >= 1 else v, rebuild=False))
            r.add_widget(s)

        choices("Language", "ui.language", ["en", "hu", "ru"])
        choices("GPIO", "gpio.mode", ["auto", "real", "mock", "off"])
        choices("Buzzer", "gpio.buzzer_type", ["active", "tonal"])
        stepper("Buzzer pin", "gpio.buzzer_pin", 0, 27)
        stepper("Status LED pin", "gpio.status_led_pin", 0, 27)
        stepper("Button pin", "gpio.button_pin", 0, 27)
        stepper("Negotiation (s)", "timer.presets.negotiation", 5, 600, 5)
        stepper("Market (s)", "timer.presets.market", 5, 600, 5)
        cycle("Accessory port", "accessory.port", ["auto", "none", *self.ports])
        cycle("Camera", "camera.source", ["auto", "none", *self.cameras])
        if self.host is not None and self.svc.config["ui.kiosk"]:
            r = row("This table")
            for action, title in ((POWEROFF, "Shut down"), (LEAVE, "Leave kiosk mode")):
                b = TouchButton(text=TR._(title), selected=self._confirming == action)
                b.action_name = action
                b.bind(on_release=lambda b: self.host_action(b.action_name))
                r.add_widget(b)

    def host_action(self, action: str) -> None:
        """Shut down or leave kiosk mode, on a second tap of the same button (the first says so)."""
        if self.host is None:
            return
        if self._confirming != action:
            self._confirming = action
            self.message = (TR._("Tap Shut down again to power off the table") if action == POWEROFF
                            else TR._("Tap Leave kiosk mode again to close the app until the next start"))
            self.build_rows()
            return
        self._confirming = ""
        try:
            self.host.request(action)
        except CompanionError as exc:
            self.message = str(exc)
            return
        if action == POWEROFF:
            self.message = TR._("Shutting down: unplug only when the Pi's green light has stopped blinking")
        else:
            self.message = TR._("Leaving kiosk mode: a login prompt opens on the screen")

    def change(self, key: str, value: Any, *, rebuild: bool = True) -> None:
        self.pending[key] = value
        if rebuild:
            self.build_rows()

    def set_pin(self, code: str) -> None:
        if not is_pin(code):
            self.message = TR._("A PIN has 4 to 8 digits")
            return
        self.pending["ui.admin_pin_hash"] = hash_pin(code)  # only the hash is ever written
        self.ids.pages.current = "settings"
        self.save()

    def save(self) -> None:
        try:
            self.svc.save(dict(self.pending))
        except CompanionError as exc:
            self.message = str(exc)
            return
        self.pending.clear()
        self.message = TR._("Saved. Pin and GPIO changes take effect after a restart.")
        if TR.lang != self.svc.config["ui.language"]:
            TR.switch(self.svc.config["ui.language"])
        self.build_rows()


class GameScreen(BaseScreen):
    title = StringProperty("")
    game = StringProperty("")
