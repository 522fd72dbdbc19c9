"""A number typed by touch: the pad a :class:`~companion.ui.widgets.Stepper` opens when its count
is tapped, so 25 discs take three taps, not 25."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.lang import Builder
from kivy.properties import NumericProperty, ObjectProperty, StringProperty
from kivy.uix.modalview import ModalView

from companion.ui.lang import TR


class NumberPad(ModalView):  # type: ignore[misc]
    """Digits for a whole number between ``low`` and ``high``; OK gives it to ``chosen``.

    The pad opens showing the current value; the first digit typed replaces it. A number out
    of range is refused with the range, and the pad stays open.
    """

    title = StringProperty("")
    typed = StringProperty("")
    value = NumericProperty(0)
    low = NumericProperty(0)
    high = NumericProperty(100)
    unit = StringProperty("")
    message = StringProperty("")
    chosen: Callable[[int], None] = ObjectProperty(lambda _v: None)

    def open(self, *args: Any, **kwargs: Any) -> None:
        from kivy.core.window import Window

        self.size_hint = (0.92, 0.96) if Window.width > Window.height else (0.96, 0.7)
        super().open(*args, **kwargs)

    def press(self, digit: str) -> None:
        if len(self.typed) < len(str(int(self.high))):
            self.typed = (self.typed + digit).lstrip("0") or "0"
        self.message = ""

    def back(self) -> None:
        self.typed = self.typed[:-1]
        self.message = ""

    def ok(self) -> None:
        if not self.typed:
            self.dismiss()
            return
        number = int(self.typed)
        if not self.low <= number <= self.high:
            self.message = TR._("From {low} to {high}").format(low=f"{self.low:g}", high=f"{self.high:g}")
            self.typed = ""
            return
        self.dismiss()
        self.chosen(number)

    def range_text(self, *_: Any) -> str:
        return f"{self.low:g} – {self.high:g} {self.unit}".strip()


KV_FILE = Path(__file__).with_suffix(".kv")
if str(KV_FILE) not in Builder.files:
    Builder.load_file(str(KV_FILE))
