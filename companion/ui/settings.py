"""The Settings screen, behind the admin PIN in kiosk mode.

One scrolling list of rows, everyday ones first (language, volume, the timers' warnings and
presets, the turn clock's defaults, the devices and the venue link's state), the GPIO pin
numbers last under an
"Advanced" heading that opens on a tap. Changes wait in :attr:`SettingsScreen.pending` until
Save writes them into the config file; a new admin PIN is typed twice.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.lang import Builder
from kivy.properties import BooleanProperty, ObjectProperty, StringProperty

from companion.errors import CompanionError
from companion.timers import normalise_warnings
from companion.ui.lang import TR
from companion.ui.screens import BaseScreen
from companion.ui.widgets import FitLabel, Stepper, TouchButton
from kiosk.host import LEAVE, POWEROFF, HostRequests
from kiosk.pin import TRIES_FILE, PinGuard, PinTriesFile, hash_pin, is_pin

LANGUAGES = (("en", "English"), ("hu", "Magyar"), ("ru", "Русский"))
"""Each language's button, named in its own language (a reader of it finds it without reading
the others)."""
WARNINGS_KEY = "timer.warnings_s"
RESTART_PREFIX = "gpio."
"""Keys whose change takes effect only after a restart (the pins are claimed at start)."""


class SettingStepper(Stepper):
    """A settings row's number: shows ``zero_text`` (such as "off") for 0 when it is set."""

    zero_text = StringProperty("")

    def label(self, value: float, unit: str) -> str:
        if value == 0 and self.zero_text:
            return str(self.zero_text)
        return str(super().label(value, unit))


class SettingsScreen(BaseScreen):
    """Settings, behind the admin PIN in kiosk mode; there also the host's Shut down and Leave.

    The PIN is checked against its hash in the config by a :class:`PinGuard` that keeps its
    count of wrong tries in the data folder (``pin-tries.json`` beside the database), so the
    count and a lock-out survive leaving and coming back, and a restart. In kiosk mode the
    screen locks itself again whenever it is left. Main thread only.
    """

    message = StringProperty("")
    """What the screen says, in a band above every page that keeps its height while empty (a
    message coming or going moves no key of the PIN pads and no row)."""
    ports: list[str] = ObjectProperty([])
    cameras: list[str] = ObjectProperty([])
    host: HostRequests | None = ObjectProperty(None, allownone=True)
    """The kiosk's way to ask for a power-off or to leave kiosk mode; None outside the kiosk."""
    venue_status: Callable[[], str] | None = ObjectProperty(None, allownone=True)
    """The venue link's state in one line (``t07 on mqtt://host:1883, connected``); None when
    the table is on no venue's broker."""
    has_pin = BooleanProperty(False)
    """An admin PIN is set (the PIN page and its button then say "Change the PIN")."""
    pin_step = StringProperty("new")
    """The PIN page's step: ``new`` (type the new PIN) or ``again`` (type it again to confirm)."""
    advanced = BooleanProperty(False)
    """The Advanced rows (the GPIO pins) are open."""
    has_changes = BooleanProperty(False)
    """Some change waits for Save."""
    more_below = BooleanProperty(False)
    """The list scrolls and its end is not in view (the cue under it says so)."""
    scrolls = BooleanProperty(False)
    """The list is taller than its view."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pending: dict[str, Any] = {}
        self._guard: PinGuard | None = None
        self._guarded_hash = ""
        self._confirming = ""
        self._first_pin = ""
        self.venue_label: Any = None
        """The Devices row's text of the venue link's state, while the rows are built."""
        self.bind(size=self._check_scroll)

    def on_kv_post(self, *_: Any) -> None:
        view = self.ids.scroller
        view.bind(scroll_y=self._check_scroll, height=self._check_scroll)
        self.ids.rows.bind(height=self._check_scroll)

    def on_pre_enter(self, *_: Any) -> None:
        # changes left unsaved when the screen was last left are still waiting: say so again
        self.message = TR._("Not saved yet: tap Save") if self.pending else ""
        self._confirming = ""
        locked = self.svc.config["ui.kiosk"] and not self.svc.unlocked
        self.ids.pages.current = "locked" if locked else "settings"
        if not locked:
            self.build_rows()
        elif (guard := self._pin_guard()) is not None and (wait_s := guard.wait_s()) > 0:
            self._say_locked(wait_s)  # a lock-out from before (a restart) shows before any try

    def on_leave(self, *_: Any) -> None:
        if self.svc is not None and self.svc.config["ui.kiosk"]:
            self.svc.unlocked = False  # the next player to tap Settings meets the PIN pad again

    def refresh(self) -> None:
        if self.ids.pages.current == "settings":
            self.build_rows()

    def update(self, now: float) -> None:
        if self.venue_label is not None and self.venue_status is not None:
            self.venue_label.text = self.venue_status()  # the link's state as it changes

    # -- the lock -------------------------------------------------------------------------------

    def _pin_guard(self) -> PinGuard | None:
        stored = self.svc.config["ui.admin_pin_hash"]
        if not stored:
            return None
        if self._guard is None or stored != self._guarded_hash:
            tries = PinTriesFile(Path(self.svc.config.database_path).parent / TRIES_FILE)
            self._guard, self._guarded_hash = PinGuard(stored, self.svc.clock, tries=tries), stored
        return self._guard

    def _say_locked(self, wait_s: float) -> None:
        self.message = TR._("Too many wrong PINs: try again in {seconds} s").format(seconds=math.ceil(wait_s))

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
            self._say_locked(verdict.locked_for_s)
        else:
            self.message = TR._("Wrong PIN")

    # -- the rows ---------------------------------------------------------------------------------

    def value(self, key: str) -> Any:
        return self.pending.get(key, self.svc.config[key] if not key.startswith("timer.presets.")
                                else self.svc.config.presets[key.rsplit(".", 1)[1]])

    def build_rows(self) -> None:
        """Lay the rows out again from the config and the pending changes. Main thread only."""
        from kivy.factory import Factory

        self.has_pin = bool(self.svc.config["ui.admin_pin_hash"])
        self.has_changes = bool(self.pending)
        rows = self.ids.rows
        rows.clear_widgets()

        def row(title: str, *, tall: bool = False) -> Any:
            line = Factory.SettingLineTall() if tall else Factory.SettingLine()
            line.title = TR._(title) if title else ""
            rows.add_widget(line)
            return line

        def heading(title: str) -> None:
            label = Factory.SettingHeading()
            label.text = TR._(title)
            rows.add_widget(label)

        def choices(title: str, key: str, options: list[tuple[str, str]]) -> None:
            r = row(title, tall=len(options) > 3)
            for option, text in options:
                b = TouchButton(text=text, selected=self.value(key) == option)
                b.bind(on_release=lambda _b, o=option: self.change(key, o))
                r.ids.controls.add_widget(b)

        def cycle(title: str, key: str, options: list[str]) -> None:
            r = row(title)
            current = str(self.value(key))
            b = TouchButton(text=TR._(current) if current in ("auto", "none") else current)
            opts = options if current in options else [current, *options]
            b.bind(on_release=lambda _b: self.change(key, opts[(opts.index(current) + 1) % len(opts)]))
            r.ids.controls.add_widget(b)

        def stepper(title: str, key: str, low: float, high: float, step: float = 1, unit: str = "", *,
                    scale: int = 1, zero: str = "", index: int | None = None) -> None:
            """A number row; *scale* is how many of the key's units one shown unit is (60: the
            key is in seconds, the row in minutes); *index* picks one item of a list key."""
            r = row(title)
            stored = self.value(key)
            if index is not None:
                stored = list(stored)[index] if index < len(stored) else 0
            shown = stored / scale if stored is not None else low
            s = SettingStepper(low=min(low, shown), high=max(high, shown), step=step, value=shown,
                               unit=TR._(unit) if unit else "", title=r.title,
                               zero_text=TR._(zero) if zero else "")
            s.setting_key = key if index is None else f"{key}[{index}]"  # what a journey finds it by
            s.bind(value=lambda _s, v: self.change_number(key, v * scale, index))
            r.ids.controls.add_widget(s)

        choices("Language", "ui.language", list(LANGUAGES))
        stepper("Volume", "ui.volume", 0, 100, 10, "%", zero="off")
        heading("Timers")
        stepper("First warning", WARNINGS_KEY, 0, 600, 5, "s", zero="off", index=0)
        stepper("Second warning", WARNINGS_KEY, 0, 600, 1, "s", zero="off", index=1)
        stepper("Negotiation", "timer.presets.negotiation", 5, 600, 5, "s")
        stepper("Market", "timer.presets.market", 5, 600, 5, "s")
        heading("Turn clock")
        stepper("Time per player", "turn_clock.budget_s", 1, 60, 1, "min", scale=60)
        stepper("Time added each turn", "turn_clock.increment_s", 0, 300, 5, "s", zero="none")
        heading("Devices")
        cycle("Accessory port", "accessory.port", ["auto", "none", *self.ports])
        cycle("Camera", "camera.source", ["auto", "none", *self.cameras])
        self.venue_label = None
        if self.venue_status is not None:
            self.venue_label = FitLabel(text=self.venue_status(), halign="left")
            row("Venue").ids.controls.add_widget(self.venue_label)
        if self.host is not None and self.svc.config["ui.kiosk"]:
            r = row("This table")
            for action, title in ((POWEROFF, "Shut down"), (LEAVE, "Leave kiosk mode")):
                b = TouchButton(text=TR._(title), selected=self._confirming == action)
                b.action_name = action
                b.bind(on_release=lambda b: self.host_action(b.action_name))
                r.ids.controls.add_widget(b)
        arrow = "▲ " if self.advanced else "▼ "
        toggle = Factory.SettingHeadingButton(text=arrow + TR._("Advanced: GPIO pins"))
        toggle.bind(on_release=lambda _b: self.toggle_advanced())
        rows.add_widget(toggle)
        self.advanced_button = toggle
        if self.advanced:
            choices("GPIO", "gpio.mode", [(o, TR._(o)) for o in ("auto", "real", "mock", "off")])
            choices("Buzzer", "gpio.buzzer_type", [(o, TR._(o)) for o in ("active", "tonal")])
            stepper("Buzzer pin", "gpio.buzzer_pin", 0, 27)
            stepper("Status LED pin", "gpio.status_led_pin", 0, 27)
            stepper("Button pin", "gpio.button_pin", 0, 27)

    def toggle_advanced(self) -> None:
        """Open or close the Advanced rows; opened, the list scrolls to show them."""
        self.advanced = not self.advanced
        self.build_rows()
        if self.advanced:
            from kivy.clock import Clock

            Clock.schedule_once(lambda _dt: self.scroll_to_top_of(self.advanced_button), 0)

    def scroll_to_top_of(self, widget: Any) -> None:
        """Scroll the list so that *widget* is at the top of the view (or as near as the list's
        end allows): what opened under it then shows."""
        view, rows = self.ids.scroller, self.ids.rows
        spare = rows.height - view.height
        if spare <= 0:
            return
        from_top = rows.top - widget.top  # both in the list's coordinates
        view.scroll_y = min(1.0, max(0.0, 1 - from_top / spare))

    # -- the scroll cue ---------------------------------------------------------------------------

    def _check_scroll(self, *_: Any) -> None:
        view = self.ids.get("scroller")
        if view is None:
            return
        self.scrolls = self.ids.rows.height > view.height + 1
        self.more_below = self.scrolls and view.scroll_y > 0.01

    def scroll_more(self) -> None:
        """The cue's tap: a page further down, or back to the top from the end."""
        view = self.ids.scroller
        spare = self.ids.rows.height - view.height
        if spare <= 0:
            return
        if view.scroll_y <= 0.01:
            view.scroll_y = 1.0
        else:
            view.scroll_y = max(0.0, view.scroll_y - view.height * 0.8 / spare)

    # -- the host's actions -----------------------------------------------------------------------

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

    # -- changes and Save -------------------------------------------------------------------------

    def change(self, key: str, value: Any, *, rebuild: bool = True) -> None:
        self.pending[key] = value
        self.has_changes = True
        if self.message:  # a message still showing ("Saved"...) is out of date; the lit Save says the rest
            self.message = TR._("Not saved yet: tap Save")
        if rebuild:
            self.build_rows()

    def change_number(self, key: str, number: float, index: int | None = None) -> None:
        """A stepper moved: whole numbers stay whole; *index* sets one item of a list key (the
        warnings, where 0 is "off"). The row keeps its stepper (no rebuild)."""
        value: Any = int(round(number)) if float(number).is_integer() else number
        if index is not None:
            items = list(self.value(key))
            items += [0] * (index + 1 - len(items))
            items[index] = value
            value = items
        self.change(key, value, rebuild=False)

    def _to_save(self) -> dict[str, Any]:
        changes = dict(self.pending)
        if WARNINGS_KEY in changes:  # 0 is "off": the list keeps only the warnings that are on
            changes[WARNINGS_KEY] = [w for w in changes[WARNINGS_KEY] if w > 0]
        return changes

    def save(self) -> bool:
        """Write the pending changes into the config file and put them to work. True if saved.

        A new language shows at once, new warnings arm the timers set from now on, the turn
        clock's defaults are the Turns screen's next clock, the volume is read at each sound;
        the GPIO pins wait for a restart (the message says so).
        """
        changes = self._to_save()
        try:
            config = self.svc.save(changes)
        except CompanionError as exc:
            self.message = str(exc)
            return False
        self.pending.clear()
        if TR.lang != config["ui.language"]:
            TR.switch(config["ui.language"])
        session = self.svc.session
        if WARNINGS_KEY in changes and session is not None:
            session.board.warnings_s = normalise_warnings(config[WARNINGS_KEY])
        restart = any(k.startswith(RESTART_PREFIX) for k in changes)
        self.message = (TR._("Saved. Pin and GPIO changes take effect after a restart.") if restart
                        else TR._("Saved"))
        self.build_rows()
        return True

    # -- a new admin PIN, typed twice -------------------------------------------------------------

    def open_new_pin(self) -> None:
        """The PIN page, at its first step."""
        self._first_pin = ""
        self.pin_step = "new"
        self.message = ""
        self.ids.newpin.code = ""
        self.ids.pages.current = "new_pin"

    def cancel_pin(self) -> None:
        """Back to the rows; the PIN stays as it was."""
        self._first_pin = ""
        self.pin_step = "new"
        self.message = ""
        self.ids.pages.current = "settings"
        self.build_rows()

    def set_pin(self, code: str) -> None:
        """One entry on the PIN page: the new PIN, then the same again; a match saves only its
        hash (with any other pending change), a mismatch says so and starts over."""
        if self.pin_step == "new":
            if not is_pin(code):
                self.message = TR._("A PIN has 4 to 8 digits")
                return
            self._first_pin = code
            self.pin_step = "again"
            self.message = ""
            return
        first, self._first_pin = self._first_pin, ""
        self.pin_step = "new"
        if code != first:
            self.message = TR._("The two PINs differ: type the new PIN again")
            return
        self.pending["ui.admin_pin_hash"] = hash_pin(code)  # only the hash is ever written
        if self.save():
            self.message = TR._("The new PIN is saved")
            self.ids.pages.current = "settings"
        else:
            self.pending.pop("ui.admin_pin_hash", None)


KV_FILE = Path(__file__).with_suffix(".kv")
if str(KV_FILE) not in Builder.files:
    Builder.load_file(str(KV_FILE))
