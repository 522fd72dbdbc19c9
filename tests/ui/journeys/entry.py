"""Journeys through what every screen shares: numbers typed on the Stepper's pad, and the
language switched after popups were opened and closed."""

from __future__ import annotations

import gc
from typing import Any

from tests.ui.kit import find, result, screen, start_game, tap
from tests.ui.layout import faults


def key(view: Any, text: str) -> Any:
    """The one button of *view* (a popup) showing *text*."""
    hits = [w for w in view.walk() if getattr(w, "text", None) == text and hasattr(w, "trigger_action")]
    assert len(hits) == 1, (text, len(hits))
    return hits[0]


async def type_on_pad(app: Any, pad: Any, digits: str) -> None:
    for digit in digits:
        await tap(app, key(pad, digit))


async def numpad(app: Any) -> None:
    """25 minutes in four taps: the count opens the pad, two digits, OK; out of range is refused."""
    from kivy.core.window import Window

    await tap(app, find(app, "TouchButton", "Start"))
    timer = screen(app, "timer")
    await tap(app, timer.ids.preset_custom)
    popup = next(w for w in Window.children if type(w).__name__ == "CustomTimerPopup")
    minutes = popup.ids.minutes
    await tap(app, minutes.ids.count)
    pad = minutes.pad
    assert pad is not None and pad.parent is not None, "the pad did not open"
    assert faults(Window) == [], faults(Window)
    await type_on_pad(app, pad, "9999")  # past 24 h
    await tap(app, pad.ids.ok)
    assert pad.parent is not None and "1440" in pad.ids.message.text, pad.ids.message.text
    await type_on_pad(app, pad, "25")
    await tap(app, pad.ids.ok)
    await app.wait_clock_frames(2)
    assert pad.parent is None and minutes.value == 25, minutes.value
    await tap(app, minutes.ids.count)  # opened and left alone: nothing changes
    await tap(app, minutes.pad.ids.cancel)
    assert minutes.value == 25
    await tap(app, popup.ids.ok)
    session = app.svc.session
    [name] = session.board.names
    left = session.board[name].remaining_s(session.now())
    assert abs(left - 25 * 60) < 1e-6, (name, left, popup.ids.seconds.value)  # the app's clock stood still
    result(ok=True)


async def popups_then_language(app: Any) -> None:
    """Open and close the app's popups (the name keyboard, Volatio's finish dialog, the custom
    timer and its number pad, the big timer view), then switch the language three times: no
    crash, and every screen follows the language."""
    from kivy.core.window import Window

    home = screen(app, "home")
    for _ in range(3):
        await tap(app, home.ids.name_input)
        assert home.keyboard is not None, "the keyboard did not open"
        await tap(app, home.keyboard.ids.done)
        await app.wait_clock_frames(2)
    await start_game(app, "Volatio", ("Anna", "Bence", "Csilla"))
    volatio = screen(app, "game:volatio")
    for _ in range(3):
        await tap(app, volatio.ids.finish)
        popup = volatio.finish_popup
        assert popup is not None and popup.parent is not None
        await tap(app, popup.ids.cancel)
        await app.wait_clock_frames(2)
    await tap(app, find(app, "TouchButton", "Timer"))
    timer = screen(app, "timer")
    for _ in range(3):
        await tap(app, timer.ids.preset_custom)
        popup = next(w for w in Window.children if type(w).__name__ == "CustomTimerPopup")
        await tap(app, popup.ids.minutes.ids.count)
        await tap(app, popup.ids.minutes.pad.ids.cancel)
        await tap(app, key(popup, "Cancel"))
        await app.wait_clock_frames(2)
    await tap(app, timer.ids.preset_negotiation)
    for _ in range(2):
        await tap(app, timer.ids.big)
        assert timer.big is not None
        await tap(app, timer.big.ids.close)
        await app.wait_clock_frames(2)
    gc.collect()  # the closed popups' widgets are gone: their kv rules hold dead references
    await tap(app, find(app, "TouchButton", "Home"))
    for lang, timer_word in (("Русский", "Таймер"), ("Magyar", "Időzítő"), ("English", "Timer")):
        await tap(app, find(app, "TouchButton", lang))
        await app.wait_clock_frames(2)
        assert find(app, "TouchButton", timer_word) is not None
    result(ok=True)


async def layout_checker(app: Any) -> None:
    """The checker the screenshot test relies on sees each fault it is meant to: a small button, a
    small text, a text whose lines are cut off (too tall, or laid out from its middle), a text
    over a text, a text over a button not its own; a clean popup passes; and a part left out
    (as the status strip is by the journeys) takes only its own faults with it."""
    from kivy.core.window import Window
    from kivy.uix.floatlayout import FloatLayout
    from kivy.uix.label import Label
    from kivy.uix.modalview import ModalView

    from companion.ui.widgets import FitLabel, TouchButton

    view = ModalView(size_hint=(1, 1))
    board = FloatLayout()
    view.add_widget(board)
    view.open(animation=False)
    await app.wait_clock_frames(3)
    assert faults(Window) == [], faults(Window)  # an empty popup covers the screen: nothing to find

    def place(widget: Any, x: float, y: float, w: float, h: float) -> Any:
        widget.size_hint = (None, None)
        widget.pos, widget.size = (x, y), (w, h)
        board.add_widget(widget)
        return widget

    place(TouchButton(text="OK"), 10, 10, 120, 60)
    place(FitLabel(text="Score", base_font_size=24), 200, 10, 200, 60)
    await app.wait_clock_frames(3)
    assert faults(Window) == [], faults(Window)
    small = place(TouchButton(text="x"), 10, 100, 40, 60)
    tiny = place(FitLabel(text="tiny", base_font_size=24, font_size=12), 200, 100, 200, 60)
    await app.wait_clock_frames(3)
    tiny.font_size = 12  # as a label drawn at 12 px would be
    seen = faults(Window)
    assert any("TouchButton('x') is 40x60" in f for f in seen), seen
    assert any("FitLabel('tiny') is 12 px" in f for f in seen), seen
    board.remove_widget(small)
    board.remove_widget(tiny)
    long = place(FitLabel(text="banks five\ndiscards the donkey\nand more", base_font_size=24), 500, 300, 180, 40)
    await app.wait_clock_frames(3)
    seen = faults(Window)
    assert any("FitLabel('banks five" in f and "cut off" in f for f in seen), seen
    board.remove_widget(long)
    # Tall enough for its three lines, but Kivy lays a middle-aligned text out from its middle
    # newline, half the box each way: the two wrapped lines below it do not fit half the box.
    split = place(Label(text="one line\ntwo lines once it is wrapped", font_size=18, valign="middle",
                        halign="center"), 300, 300, 160, 68)
    split.text_size = split.size
    await app.wait_clock_frames(3)
    seen = faults(Window)
    assert any("Label('one line two lines" in f and "shows 2 of its 3 lines" in f for f in seen), seen
    board.remove_widget(split)
    place(FitLabel(text="Anna", base_font_size=24), 200, 200, 200, 60)
    place(FitLabel(text="Bence", base_font_size=24), 220, 205, 200, 60)
    place(FitLabel(text="silver", base_font_size=24), 10, 10, 120, 60)  # over the OK button
    await app.wait_clock_frames(3)
    seen = faults(Window)
    assert any("'Anna'" in f and "overlaps" in f and "'Bence'" in f for f in seen), seen
    assert any("FitLabel('silver') crosses button TouchButton('OK')" in f for f in seen), seen
    # a part another screen owns is left out, and only it
    bence = next(w for w in board.children if getattr(w, "text", "") == "Bence")
    without = faults(Window, skip=bence)
    assert not any("'Bence'" in f for f in without), without
    assert any("FitLabel('silver') crosses button TouchButton('OK')" in f for f in without), without
    assert faults(Window, skip=board) == [], faults(Window, skip=board)
    view.dismiss(animation=False)
    await app.wait_clock_frames(2)
    result(ok=True)


JOURNEYS = {f.__name__: f for f in (numpad, popups_then_language, layout_checker)}
