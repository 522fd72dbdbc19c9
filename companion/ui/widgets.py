"""The app's own widgets: text that always fits, big buttons, a long-press button, the hourglass.

Every label shrinks its font until its text fits its box (a long Hungarian word must
never spill out of a button); every control is at least ``THEME.u`` pixels high.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, Line, Mesh, Rectangle, RoundedRectangle
from kivy.lang import Builder
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.widget import Widget

from companion.ui.theme import FONT_NAME, THEME

MIN_FONT_PX = 18
"""The smallest text a player must read, in pixels (about 3.4 mm on a 7" 800x480 panel)."""


class FitLabel(Label):  # type: ignore[misc]
    """A label whose font shrinks (from ``base_font_size``) until the text fits inside it; a
    single word too wide for it even at the smallest font (a long name) ends in … rather than
    break across lines."""

    base_font_size = NumericProperty(20)

    def __init__(self, **kwargs: Any) -> None:
        self._refitting = False
        self._fitted: tuple[str, float, float, float] | None = None
        kwargs.setdefault("font_name", FONT_NAME)
        kwargs.setdefault("halign", "center")
        kwargs.setdefault("valign", "middle")
        self._shorten_asked = bool(kwargs.get("shorten", False))
        super().__init__(**kwargs)
        self._refit_trigger = Clock.create_trigger(lambda _dt: self.refit(), -1)
        self.fbind("size", self._refit_trigger)
        self.fbind("text", self._refit_trigger)
        self.fbind("base_font_size", self._refit_trigger)
        # A texture that spills anyway (the label's last fit was for another state) fits again.
        self.fbind("texture_size", self._check_fit)
        self._refit_trigger()

    def _check_fit(self, *_: Any) -> None:
        state = (self.text, self.width, self.height, self.base_font_size)
        if self._refitting or state == self._fitted or not self.text or self.width <= 1:
            return  # fitted for exactly this already: a spill now is one no font size can cure
        if self.overflows:
            self._refit_trigger()

    def refit(self) -> None:
        """Largest font size, up to ``base_font_size``, at which the text fits. Main thread.

        Kivy wraps within ``text_size`` less the padding, so the box is the widget's size and
        a word must fit in the width less the padding.
        """
        if self.width <= 1 or self.height <= 1:
            return
        self._refitting = True  # the textures made while trying sizes are not a reason to refit
        try:
            self._fit()
        finally:
            self._refitting = False
            self._fitted = (self.text, self.width, self.height, self.base_font_size)

    def _fit(self) -> None:
        # Whole pixel sizes: SDL2's font cache is keyed by the whole size, so a fractional size
        # can be measured with a font opened at another one, and fit here but spill later.
        room = max(1.0, self.width - 2 * self.padding[0])
        size = float(int(self.base_font_size))
        self.shorten = self._shorten_asked
        self.text_size = (self.width, None)
        while True:
            self.font_size = size
            self.texture_update()
            tw, th = self.texture_size
            fits = tw <= self.width + 0.5 and th <= self.height + 0.5 and self.widest_word(size) <= room
            if fits or size <= MIN_FONT_PX:
                break
            size = float(max(MIN_FONT_PX, min(size - 1, int(size * 0.9))))
        if not fits and len(self.text.split()) == 1:
            self.shorten, self.shorten_from = True, "right"  # one line, ending in …
            self.text_size = (self.width, self.height)
            return
        if "\n" in self.text and self.valign in ("middle", "center") and th <= self.height + 0.5:
            # Kivy lays a middle-aligned text out from its middle newline, half the box each way,
            # and drops the lines of a half taller than half the box even when the whole fits
            # (Drakon's summary lost "чтобы открыть." so). A text that fits is laid out whole;
            # the label centres it in its box, as "middle" does.
            self.text_size = (self.width, None)
            return
        self.text_size = (self.width, self.height)

    def widest_word(self, font_size: float) -> float:
        """The widest single word at *font_size*: wrapping may not split a word in two."""
        words = self.text.split()
        if not words:
            return 0.0
        measure = CoreLabel(font_name=self.font_name, font_size=font_size, bold=self.bold)
        return float(max(measure.get_extents(word)[0] for word in words))

    @property
    def overflows(self) -> bool:
        """True when the text does not fit even at the smallest font, or a word had to be split
        across lines (what the screenshot test looks for); a text shortened with … fits on its
        one line."""
        tw, th = self.texture_size
        if self.shorten:
            return bool(th > self.height + 1)
        # Kivy splits a word even a fraction of a pixel wider than the room
        room = self.width - 2 * self.padding[0]
        split = self.widest_word(self.font_size) > room + 0.01
        return bool(tw > self.width + 1 or th > self.height + 1 or split)


class TouchButton(ButtonBehavior, FitLabel):  # type: ignore[misc]
    """A big, high-contrast button; ``primary`` ones are sand-yellow with black text."""

    primary = BooleanProperty(False)
    selected = BooleanProperty(False)
    fill = ListProperty([0, 0, 0, 0])

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        with self.canvas.before:
            self._fill_colour = Color(rgba=THEME.surface)
            self._bg = RoundedRectangle(radius=[8])
            self._edge_colour = Color(rgba=THEME.muted)
            self._edge = Line(width=1.5)
        for prop in ("pos", "size", "state", "primary", "selected", "fill", "disabled"):
            self.fbind(prop, self._redraw)
        self._redraw()

    def _redraw(self, *_: Any) -> None:
        self._bg.pos, self._bg.size = self.pos, self.size
        self._edge.rounded_rectangle = (*self.pos, *self.size, 8)
        if self.fill[3]:
            fill = self.fill
        elif self.primary or self.selected:
            fill = THEME.primary
        else:
            fill = THEME.surface
        if self.state == "down":
            fill = [min(1.0, c * 0.7 + 0.1) for c in fill[:3]] + [1]
        self._fill_colour.rgba = fill if not self.disabled else [0.15, 0.15, 0.15, 1]
        light = sum(fill[:3]) / 3 > 0.55
        self.color = THEME.on_primary if light else (THEME.muted if self.disabled else THEME.text)
        self._edge_colour.rgba = THEME.text if self.selected else THEME.muted


class HoldButton(TouchButton):
    """Tap for ``on_tap``, hold for ``hold_s`` for ``on_hold`` (a reset needs no second screen)."""

    hold_s = NumericProperty(1.0)
    __events__ = ("on_tap", "on_hold")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._held = False
        self._hold_ev: Any = None

    def on_press(self) -> None:
        self._held = False
        self._hold_ev = Clock.schedule_once(self._fire_hold, self.hold_s)

    def _fire_hold(self, _dt: float) -> None:
        self._held = True
        self.dispatch("on_hold")

    def on_release(self) -> None:
        if self._hold_ev is not None:
            self._hold_ev.cancel()
        if not self._held:
            self.dispatch("on_tap")

    def on_tap(self) -> None:
        pass

    def on_hold(self) -> None:
        pass


class Stepper(BoxLayout):  # type: ignore[misc]
    """A number set with − and + (no keyboard): ``value`` between ``low`` and ``high``. A tap
    on the number opens a :class:`~companion.ui.numpad.NumberPad` headed ``title``."""

    value = NumericProperty(0)
    low = NumericProperty(0)
    high = NumericProperty(100)
    step = NumericProperty(1)
    unit = StringProperty("")
    title = StringProperty("")
    pad: Any = None
    """The number pad while it is open."""

    def bump(self, direction: int) -> None:
        self.value = min(self.high, max(self.low, self.value + direction * self.step))

    def open_pad(self) -> None:
        from companion.ui.numpad import NumberPad

        def chosen(number: int) -> None:
            self.value = number

        self.pad = NumberPad(title=self.title, value=self.value, low=self.low, high=self.high, unit=self.unit,
                             chosen=chosen)
        self.pad.bind(on_dismiss=lambda *_: setattr(self, "pad", None))
        self.pad.open()

    def label(self, value: float, unit: str) -> str:
        number = f"{value:g}"
        return f"{number} {unit}".strip()


class Hourglass(Widget):  # type: ignore[misc]
    """An hourglass whose top bulb empties as ``fraction_left`` falls from 1 to 0.

    The sand's colour follows ``sand``; the caller sets it amber, red, or flashing.
    Redrawn only when the fraction or colour changes (the screen sets them each frame).
    """

    fraction_left = NumericProperty(1.0)
    sand = ListProperty(THEME.primary)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        with self.canvas:
            self._glass_colour = Color(rgba=THEME.text)
            self._glass = Line(width=2.5, close=True)
            self._sand_colour = Color(rgba=self.sand)
            self._top = Mesh(mode="triangle_fan")
            self._bottom = Mesh(mode="triangle_fan")
            self._stream = Rectangle()
        for prop in ("pos", "size", "fraction_left", "sand"):
            self.fbind(prop, self._redraw)
        self._redraw()

    def _geometry(self) -> tuple[float, float, float, float, float]:
        w = min(self.width, self.height * 0.62)
        cx, cy = self.center
        h = min(self.height, w / 0.62) * 0.92
        return cx, cy, w * 0.5, h * 0.5, max(2.0, w * 0.04)  # centre, half width, half height, neck

    def _redraw(self, *_: Any) -> None:
        cx, cy, hw, hh, neck = self._geometry()
        top, bottom = cy + hh, cy - hh
        self._glass.points = [cx - hw, top, cx + hw, top, cx + neck, cy, cx + hw, bottom,
                              cx - hw, bottom, cx - neck, cy]
        self._sand_colour.rgba = self.sand
        left = min(1.0, max(0.0, self.fraction_left))
        # The area of a triangle grows with the square of its height: sqrt keeps sand volume true.
        k = math.sqrt(left)
        level = cy + hh * k  # the top sand's surface
        half_at_level = neck + (hw - neck) * k
        self._top.vertices, self._top.indices = _poly(
            [(cx - neck, cy), (cx + neck, cy), (cx + half_at_level, level), (cx - half_at_level, level)])
        fill = math.sqrt(1 - left)
        pile = bottom + hh * 0.85 * fill
        self._bottom.vertices, self._bottom.indices = _poly([(cx - hw, bottom), (cx + hw, bottom),
                                                             (cx, pile)])
        running = 0.0 < left < 1.0
        self._stream.pos = (cx - 1.5, pile)
        self._stream.size = (3, (cy - pile) if running else 0)


def _poly(points: list[tuple[float, float]]) -> tuple[list[float], list[int]]:
    vertices: list[float] = []
    for x, y in points:
        vertices += [x, y, 0, 0]
    return vertices, list(range(len(points)))


class PinPad(BoxLayout):  # type: ignore[misc]
    """Digits by touch, shown as dots; ``submit`` gets the code."""

    code = StringProperty("")
    submit: Callable[[str], None] | None = ObjectProperty(None, allownone=True)
    max_len = NumericProperty(8)
    prompt = StringProperty("")
    """What the pad asks for while nothing is typed ("" for the admin PIN)."""

    def press(self, digit: str) -> None:
        if len(self.code) < self.max_len:
            self.code += digit

    def back(self) -> None:
        self.code = self.code[:-1]

    def enter(self) -> None:
        code, self.code = self.code, ""
        if self.submit is not None:
            self.submit(code)


class SeatFrame(Widget):  # type: ignore[misc]
    """Table mode: shows one panel turned by ``angle`` degrees to face a player's seat.

    A Scatter does the turning, so touches reach the panel's buttons the right way round; at
    90 or 270 degrees the panel takes the frame's height as its width.
    """

    angle = NumericProperty(0)

    def __init__(self, content: Widget, **kwargs: Any) -> None:
        from kivy.uix.scatter import Scatter

        super().__init__(**kwargs)
        self.content = content
        self._scatter = Scatter(do_rotation=False, do_scale=False, do_translation=False,
                                auto_bring_to_front=False, size_hint=(None, None))
        self._scatter.add_widget(content)
        self.add_widget(self._scatter)
        # Placed on the next frame, once the parent layout has settled (placing on each
        # intermediate pos/size a layout passes through left some panels where it began).
        self._place_trigger = Clock.create_trigger(self._place, -1)
        for prop in ("pos", "size", "angle"):
            self.fbind(prop, self._place_trigger)
        self._place()

    def _place(self, *_: Any) -> None:
        sideways = round(self.angle / 90) % 2 == 1
        w, h = (self.height, self.width) if sideways else (self.width, self.height)
        self._scatter.rotation = 0
        self._scatter.size = (w, h)
        self.content.size = (w, h)
        self.content.pos = (0, 0)
        self._scatter.rotation = self.angle
        self._scatter.center = self.center


KV_FILE = Path(__file__).with_suffix(".kv")
if str(KV_FILE) not in Builder.files:
    Builder.load_file(str(KV_FILE))
