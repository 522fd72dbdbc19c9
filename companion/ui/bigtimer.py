"""The big-digit view: one timer over the whole window, readable from across the table.

A tap anywhere on the digits pauses or resumes, a hold resets (as on the timer screen), Close
goes back. It shows what its :class:`~companion.ui.timer.TimerScreen` shows (name, digits,
colour, the paused band), so the two never disagree; with more than one timer a row of chips
at the bottom switches between them. At an expiry it flashes with the app's own flash.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.lang import Builder
from kivy.properties import ListProperty, NumericProperty, ObjectProperty
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView
from kivy.uix.widget import Widget

from companion.ui.theme import FONT_NAME, THEME
from companion.ui.widgets import MIN_FONT_PX, TouchButton

REFERENCE_PX = 100
"""The font size the digits are measured at before scaling to their box."""
CHIP_MIN_U = 2.7
"""A timer chip's narrowest width, in touch units: "Egyezkedés" still fits at the smallest font."""


def lay_chips(row: Any) -> None:
    """Give a GridLayout of timer chips as many columns as fit at :data:`CHIP_MIN_U` wide (at
    least three, at most one per chip): one row mostly, a second for many custom timers."""
    gap = row.spacing[0] if isinstance(row.spacing, (list, tuple)) else row.spacing
    fit = int((row.width + gap) // (THEME.u * CHIP_MIN_U + gap))
    row.cols = max(1, min(len(row.children), max(3, fit)))


class FitDigits(Label):  # type: ignore[misc]
    """A time (``"0:59"``) as large as its box allows, up to ``max_font_size``.

    Sized in one step, not by FitLabel's search (a search through fonts of a few hundred pixels
    takes long enough on each second's new text to turn a tap into a hold): the text is
    measured once at :data:`REFERENCE_PX` and scaled. Every digit is measured as a 0, so the
    size holds still while the time counts down. Main thread only.
    """

    max_font_size = NumericProperty(10000)
    fill = NumericProperty(0.94)
    """The share of the box's width and height the text may take."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("font_name", FONT_NAME)
        super().__init__(**kwargs)
        self._fit_trigger = Clock.create_trigger(lambda _dt: self.fit(), -1)
        for prop in ("size", "text", "max_font_size", "fill"):
            self.fbind(prop, self._fit_trigger)
        self._fit_trigger()

    def fit(self) -> None:
        if self.width <= 1 or self.height <= 1 or not self.text:
            return
        template = re.sub(r"[0-9]", "0", self.text)
        measure = CoreLabel(font_name=self.font_name, font_size=REFERENCE_PX, bold=self.bold)
        w, h = measure.get_extents(template)
        scale = min(self.width * self.fill / max(1, w), self.height * self.fill / max(1, h))
        self.font_size = max(MIN_FONT_PX, int(min(REFERENCE_PX * scale, self.max_font_size)))


class SandBar(Widget):  # type: ignore[misc]
    """The sand left as a bar: full width at the start, empty at the end (drawn in kv)."""

    fraction = NumericProperty(1.0)
    sand = ListProperty(THEME.primary)


class BigTimerView(ModalView):  # type: ignore[misc]
    """The whole window (``size_hint`` (1, 1)), over the nav bar and the status strip.

    ``screen`` is the timer screen it mirrors; ``flash_source`` an object whose ``flash``
    colour (the app's root) it copies as its background. Main thread only.
    """

    screen: Any = ObjectProperty(None)
    flash_source: Any = ObjectProperty(None, allownone=True)
    flash = ListProperty([0, 0, 0, 0])

    def __init__(self, **kwargs: Any) -> None:
        self._chips: dict[str, TouchButton] = {}
        super().__init__(**kwargs)
        if self.flash_source is not None:
            self.flash = list(self.flash_source.flash)
            self.flash_source.bind(flash=self._copy_flash)
            self.bind(on_dismiss=lambda *_: self.flash_source.unbind(flash=self._copy_flash))

    def _copy_flash(self, _source: Any, colour: list[float]) -> None:
        self.flash = list(colour)

    def lay_chips(self) -> None:
        lay_chips(self.ids.chips)

    def show_chips(self, items: list[tuple[str, str]], selected: str) -> None:
        """One chip per timer, ``(name, text)``, when there is more than one; none otherwise."""
        row = self.ids.chips
        names = [name for name, _ in items] if len(items) > 1 else []
        if list(self._chips) != names:
            row.clear_widgets()
            self._chips = {}
            for name in names:
                chip = TouchButton()
                chip.bind(on_release=lambda _b, n=name: self.screen.select(n))
                row.add_widget(chip)
                self._chips[name] = chip
            lay_chips(row)
        for name, text in items:
            if name in self._chips:
                self._chips[name].text = text
                self._chips[name].selected = name == selected


KV_FILE = Path(__file__).with_suffix(".kv")
if str(KV_FILE) not in Builder.files:
    Builder.load_file(str(KV_FILE))
