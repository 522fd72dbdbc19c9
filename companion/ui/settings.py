"""The Settings screen, behind the admin PIN in kiosk mode."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from kivy.lang import Builder
from kivy.properties import ObjectProperty, StringProperty

from companion.errors import CompanionError
from companion.host import LEAVE, POWEROFF, HostRequests
from companion.pin import PinGuard, hash_pin, is_pin
from companion.ui.lang import TR
from companion.ui.screens import BaseScreen
from companion.ui.widgets import Stepper, TouchButton


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

KV_FILE = Path(__file__).with_suffix(".kv")
if str(KV_FILE) not in Builder.files:
    Builder.load_file(str(KV_FILE))
