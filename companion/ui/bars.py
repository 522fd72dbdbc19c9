"""The app shell's two bars: the status strip along the top and the navigation bar along the
bottom, and the strip's banner text while the database cannot be written. Their layout is in
``companion.kv``; they hold no logic beyond fitting their texts.
"""

from __future__ import annotations

import math
from typing import Any

from kivy.clock import Clock
from kivy.properties import BooleanProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from companion.ui.lang import TR
from companion.ui.theme import THEME
from companion.ui.widgets import MIN_FONT_PX

NAV_COMPACT_U = 12
"""A window narrower than this many touch units shows undo and redo as arrows alone."""
NAV_FONT_U = 0.42
"""The nav bar's largest font, in touch units (every button's label, as a FitLabel's)."""


def storage_banner(trouble: str | None) -> str:
    """The status strip's banner while the database cannot be written (``Store.trouble``), in
    the language now in use; empty while everything is saved."""
    if trouble is None:
        return ""
    if trouble == "full":
        return TR._("storage full: moves are not being saved")
    if trouble in ("read-only", "no permission"):
        return TR._("storage is read-only: moves are not being saved")
    return TR._("storage is failing: moves are not being saved")


class StatusStrip(BoxLayout):  # type: ignore[misc]
    """The top strip: GPIO, accessory, camera and sound, or, while there is one, a message
    across the whole strip (one to three lines; the strip grows for a long one).

    ``note`` is a passing message (the app clears it after a while); ``banner`` stays until
    the app clears it (the database cannot be written) and comes first, above any note.
    ``shown`` is what the message line shows: the banner and the note, a line each."""

    gpio = StringProperty("off")
    accessory = StringProperty("none")
    camera = StringProperty("none")
    sound = StringProperty("none")
    note = StringProperty("")
    banner = StringProperty("")
    shown = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # Strong references (ids are weak): each is out of the tree while the other shows.
        self._status = self.ids.status.__self__
        self._note = self.ids.note.__self__
        self.remove_widget(self._note)
        for label in self._status.children:
            label.fbind("text", self._share_widths)
        self.fbind("note", self._show)
        self.fbind("banner", self._show)
        self.fbind("width", self._fit_height)
        THEME.fbind("u", self._fit_height)
        self._share_widths()
        self._fit_height()

    def _share_widths(self, *_: Any) -> None:
        """Each status word gets room in proportion to its text (``Accessory: disconnected``
        needs more than ``GPIO: real``)."""
        for label in self._status.children:
            label.size_hint_x = max(6, len(label.text))

    def _show(self, *_: Any) -> None:
        self.shown = "\n".join(text for text in (self.banner, self.note) if text)
        showing_note = self._note.parent is self
        if self.shown and not showing_note:
            self.remove_widget(self._status)
            self.add_widget(self._note)
        elif not self.shown and showing_note:
            self.remove_widget(self._note)
            self.add_widget(self._status)
        self._fit_height()

    def note_font_px(self) -> int:
        """The message's font, as the kv rule's ``base_font_size`` (19 px or more: ``u`` >= 48)."""
        return max(MIN_FONT_PX, int(THEME.u * 0.4))

    def _fit_height(self, *_: Any) -> None:
        """One line high, or as many lines (three at most) as the message needs at its font."""
        lines = 1
        if self.shown:
            from kivy.core.text import Label as CoreLabel

            font = self.note_font_px()
            room = max(1.0, self.width - 2 * self.padding[0] - 2 * self._note.padding[0])
            measure = CoreLabel(font_name=self._note.font_name, font_size=font)
            lines = sum(max(1, math.ceil(measure.get_extents(part)[0] * 1.08 / room))
                        for part in self.shown.split("\n"))
            lines = min(3, lines)
            self.height = max(THEME.u * 0.6, lines * font * 1.2 + THEME.u * 0.12)
        else:
            self.height = THEME.u * 0.6


class NavBar(BoxLayout):  # type: ignore[misc]
    """The bottom row: the screens, and undo/redo. Each button's width follows its text (a
    long "Beállítások" gets more than "Játék"); in a narrow window (portrait) undo and redo
    show their arrows alone."""

    current = StringProperty("home")
    can_undo = BooleanProperty(False)
    can_redo = BooleanProperty(False)
    compact = BooleanProperty(False)
    go = ObjectProperty(lambda _name: None)
    undo = ObjectProperty(lambda: None)
    redo = ObjectProperty(lambda: None)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._even = Clock.create_trigger(self._even_fonts, -1)
        for button in self.children:
            button.fbind("text", self._share_widths)
            button.fbind("width", self._even)
        self.fbind("width", self._fit)
        THEME.fbind("u", self._fit)
        self._fit()

    def _fit(self, *_: Any) -> None:
        self.compact = self.width < THEME.u * NAV_COMPACT_U
        self._share_widths()

    def on_compact(self, *_: Any) -> None:
        self._even()

    def _share_widths(self, *_: Any) -> None:
        for button in self.children:
            button.size_hint_x = max(6, len(button.text)) + 2
        self._even()

    def _even_fonts(self, *_: Any) -> None:
        """One font size for the whole row: the largest at which every label fits on one line
        (18 px at least), so the row does not read as big and small words at random."""
        from kivy.core.text import Label as CoreLabel

        base = THEME.u * NAV_FONT_U
        arrows = [self.ids.undo.__self__, self.ids.redo.__self__] if self.compact else []
        words = [b for b in self.children if all(b is not a for a in arrows)]
        scale = 1.0
        for button in words:
            measure = CoreLabel(font_name=button.font_name, font_size=int(base))
            wide = measure.get_extents(button.text)[0]
            room = button.width - 2 * button.padding[0] - 2
            if wide > 0 and room > 0:
                scale = min(scale, room / wide)
        size = max(MIN_FONT_PX, int(base * scale))
        for button in words:
            button.base_font_size = size
        for button in arrows:
            button.base_font_size = int(THEME.u * 0.55)
