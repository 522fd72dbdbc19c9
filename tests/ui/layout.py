"""What a player sees, measured: every button big enough to hit, every text big enough to read
and whole (no line dropped, for want of height or by Kivy's way of laying a text out), and no
text drawn over another text or over a button it does not belong to.

:func:`faults` walks the window as it is drawn now (the top popup, or the screen when no popup
is open) and returns one line per fault. The screenshot script runs it on every state it shoots;
journeys may call it on states of their own, leaving out a part that another screen owns (the
app's status strip).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

MIN_TOUCH_PX = 48
"""A button's smallest side at 800x480: about 9 mm on a 7" panel."""
MIN_TEXT_PX = 18
"""The smallest font a player must read."""
SLACK_PX = 1.0
"""Boxes that meet within this much do not count as overlapping (rounding of pixel positions)."""

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in window pixels


@dataclass(frozen=True)
class Seen:
    widget: Any
    box: Box  # the widget's own box in the window, clipped to what is on screen
    full: Box  # the widget's whole box, not clipped


def faults(window: Any, *, skip: Any = None, min_touch: float = MIN_TOUCH_PX,
           min_text: float = MIN_TEXT_PX) -> list[str]:
    """Every size, overlap and crossing fault among the widgets drawn on top now, those in the
    widget *skip* (and it) left out."""
    from kivy.uix.behaviors import ButtonBehavior
    from kivy.uix.label import Label
    from kivy.uix.textinput import TextInput

    seen = list(_visible(_top_layer(window), skip))
    found: list[str] = []
    buttons = [s for s in seen if isinstance(s.widget, ButtonBehavior)]
    texts: list[tuple[Seen, Box]] = []
    win = window.width, window.height
    for s in seen:
        w = s.widget
        if (isinstance(w, ButtonBehavior) or (isinstance(w, Label) and w.text.strip())) and _off_window(s, win):
            found.append(f"{_name(w)} runs off the window: {_box_text(s.full)} in {win[0]}x{win[1]}")
        if isinstance(w, ButtonBehavior):
            width, height = s.full[2] - s.full[0], s.full[3] - s.full[1]
            if width + SLACK_PX < min_touch or height + SLACK_PX < min_touch:
                found.append(f"button {_name(w)} is {width:.0f}x{height:.0f} px, under {min_touch} px")
        if isinstance(w, (Label, TextInput)) and _text(w) and w.font_size + 0.01 < min_text:
            found.append(f"text {_name(w)} is {w.font_size:.0f} px, under {min_text} px")
        if isinstance(w, Label) and w.text.strip():
            needed = _needed_height(w)
            drawn, lines = _drawn_lines(w)
            if needed > w.height + 1.5:
                found.append(f"text {_name(w)} needs {needed:.0f} px of height in {w.height:.0f} px: lines are cut off")
            elif drawn < lines:
                found.append(f"text {_name(w)} shows {drawn} of its {lines} lines in {w.height:.0f} px: "
                             "lines are cut off")
            box = _clip(_text_box(w), s.box)
            if box is not None:
                texts.append((s, box))
    for i, (a, abox) in enumerate(texts):
        for b, bbox in texts[i + 1:]:
            if _related(a.widget, b.widget):
                continue
            if _overlap(abox, bbox):
                found.append(f"text {_name(a.widget)} overlaps text {_name(b.widget)}")
        for button in buttons:
            if button.widget is a.widget or _related(a.widget, button.widget):
                continue
            if _overlap(abox, button.box):
                found.append(f"text {_name(a.widget)} crosses button {_name(button.widget)}")
    return found


def _off_window(seen: Seen, size: tuple[int, int]) -> bool:
    """Whether part of the widget lies beyond the window's edge, where nothing could scroll it
    into view (it is in no ScrollView)."""
    from kivy.uix.scrollview import ScrollView

    x0, y0, x1, y1 = seen.full
    if x0 >= -SLACK_PX and y0 >= -SLACK_PX and x1 <= size[0] + SLACK_PX and y1 <= size[1] + SLACK_PX:
        return False
    parent = seen.widget.parent
    while parent is not None and parent is not parent.parent:
        if isinstance(parent, ScrollView):
            return False
        parent = parent.parent
    return True


def _box_text(box: Box) -> str:
    return "({:.0f}, {:.0f})-({:.0f}, {:.0f})".format(*box)


def _top_layer(window: Any) -> Any:
    """The newest open popup (it covers what is below it), else the app's root."""
    from kivy.uix.modalview import ModalView

    for child in window.children:  # the newest child comes first
        if isinstance(child, ModalView):
            return child
    return window.children[-1]


def _visible(root: Any, skip: Any = None) -> Iterator[Seen]:
    """Every widget drawn under *root* (but not *skip* or what it holds), with its box on screen."""
    from kivy.uix.screenmanager import Screen, ScreenManager
    from kivy.uix.scrollview import ScrollView
    from kivy.uix.stencilview import StencilView

    win = root.get_root_window()
    screen_box: Box = (0.0, 0.0, float(win.width), float(win.height))

    def walk(widget: Any, clip: Box) -> Iterator[Seen]:
        if widget.opacity <= 0.01 or widget is skip:
            return
        full = _window_box(widget)
        box = _clip(full, clip)
        if box is not None:
            yield Seen(widget, box, full)
        clips = isinstance(widget, (ScrollView, StencilView))
        if clips and box is None:
            return
        inner = box if clips and box is not None else clip
        children = list(widget.children)
        if isinstance(widget, ScreenManager):
            children = [c for c in children if not isinstance(c, Screen) or c is widget.current_screen]
        for child in children:
            yield from walk(child, inner)

    yield from walk(root, screen_box)


def _window_box(widget: Any) -> Box:
    """The widget's box in window pixels (the bounding box, if a Scatter turns it)."""
    corners = [widget.to_window(x, y) for x in (widget.x, widget.right) for y in (widget.y, widget.top)]
    xs = [c[0] for c in corners]
    ys = [c[1] for c in corners]
    return min(xs), min(ys), max(xs), max(ys)


def _text_box(label: Any) -> Box:
    """Where the label's text itself is drawn, in window pixels (not the label's whole box)."""
    core = label._label
    iw, ih = core._internal_size if core is not None else (0, 0)
    pad_l, pad_t, pad_r, pad_b = _padding(label)
    cw, ch = max(0.0, iw - pad_l - pad_r), max(0.0, ih - pad_t - pad_b)
    tw, th = label.texture_size
    tx, ty = label.center_x - tw / 2, label.center_y - th / 2
    x = {"left": pad_l, "right": tw - pad_r - cw}.get(label.halign, (tw - cw) / 2)
    y = {"top": th - pad_t - ch, "bottom": pad_b}.get(label.valign, (th - ch) / 2)
    x0, y0 = label.to_window(tx + x, ty + y)
    x1, y1 = label.to_window(tx + x + cw, ty + y + ch)
    return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)


def _needed_height(label: Any) -> float:
    """How tall the label's text is when wrapped to its width (one line where it is shortened
    with …): Kivy drops the lines that do not fit its height without a sign, so a text cut short
    is found by laying it out again."""
    from kivy.core.text import Label as CoreLabel

    if label.width < 2 or label.text_size[0] is None:
        return 0.0
    core = CoreLabel(text=label.text, font_size=label.font_size, font_name=label.font_name, bold=label.bold,
                     text_size=(label.text_size[0], None), padding=label.padding, halign=label.halign,
                     markup=label.markup, line_height=label.line_height, shorten=label.shorten,
                     shorten_from=label.shorten_from)
    core.refresh()
    return float(core.texture.size[1]) if core.texture is not None else 0.0


def _drawn_lines(label: Any) -> tuple[int, int]:
    """How many lines Kivy draws of the label's text in its box, and how many the text has when
    wrapped to its width. They differ even when the text is short enough: a middle-aligned text
    is laid out from its middle newline, half the box each way, and a half taller than half the
    box loses its lines."""
    from kivy.core.text import Label as CoreLabel

    if label.width < 2 or label.text_size[0] is None or label.text_size[1] is None:
        return 0, 0

    def laid_out(height: float | None) -> int:
        core = CoreLabel(text=label.text, font_size=label.font_size, font_name=label.font_name, bold=label.bold,
                         text_size=(label.text_size[0], height), padding=label.padding, halign=label.halign,
                         valign=label.valign, markup=label.markup, line_height=label.line_height,
                         shorten=label.shorten, shorten_from=label.shorten_from)
        core.render()
        return len(core._cached_lines)

    return laid_out(label.text_size[1]), laid_out(None)


def _padding(label: Any) -> tuple[float, float, float, float]:
    pad = list(label.padding)
    if len(pad) == 2:
        return pad[0], pad[1], pad[0], pad[1]
    return pad[0], pad[1], pad[2], pad[3]


def _text(widget: Any) -> str:
    return str(getattr(widget, "text", "") or getattr(widget, "hint_text", "") or "").strip()


def _clip(box: Box, clip: Box) -> Box | None:
    x0, y0 = max(box[0], clip[0]), max(box[1], clip[1])
    x1, y1 = min(box[2], clip[2]), min(box[3], clip[3])
    if x1 - x0 <= 0.5 or y1 - y0 <= 0.5:
        return None
    return x0, y0, x1, y1


def _overlap(a: Box, b: Box) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > SLACK_PX and min(a[3], b[3]) - max(a[1], b[1]) > SLACK_PX


def _related(a: Any, b: Any) -> bool:
    """One is the other or holds it."""
    return _holds(a, b) or _holds(b, a)


def _holds(outer: Any, inner: Any) -> bool:
    node = inner
    while node is not None:
        if node is outer:
            return True
        parent = node.parent
        if parent is node:
            return False
        node = parent
    return False


def _name(widget: Any) -> str:
    text = _text(widget).replace("\n", " ")
    short = text if len(text) <= 30 else text[:29] + "…"
    return f"{type(widget).__name__}({short!r})"
