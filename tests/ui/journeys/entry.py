"""Journeys through what every screen shares: numbers typed on the Stepper's pad, and the
language switched after popups were opened and closed."""

from __future__ import annotations

import gc
from typing import Any

from tests.ui.kit import find, result, screen, tap
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
    await type_on_pad(app, pad, "999")
    await tap(app, pad.ids.ok)
    assert pad.parent is not None and "120" in pad.ids.message.text, pad.ids.message.text
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
    assert abs(session.board[name].remaining_s(session.now()) - 25 * 60) < 1
    result(ok=True)


async def popups_then_language(app: Any) -> None:
    """Open and close the app's popups, then switch the language three times: no crash, and every
    screen follows the language."""
    from kivy.core.window import Window

    await tap(app, find(app, "TouchButton", "Start"))
    timer = screen(app, "timer")
    for _ in range(3):
        await tap(app, timer.ids.preset_custom)
        popup = next(w for w in Window.children if type(w).__name__ == "CustomTimerPopup")
        await tap(app, popup.ids.minutes.ids.count)
        await tap(app, popup.ids.minutes.pad.ids.cancel)
        await tap(app, key(popup, "Cancel"))
        await app.wait_clock_frames(2)
    gc.collect()  # the closed popups' widgets are gone: their kv rules hold dead references
    await tap(app, find(app, "TouchButton", "Home"))
    for lang, timer_word in (("Русский", "Таймер"), ("Magyar", "Időzítő"), ("English", "Timer")):
        await tap(app, find(app, "TouchButton", lang))
        await app.wait_clock_frames(2)
        assert find(app, "TouchButton", timer_word) is not None
    result(ok=True)


JOURNEYS = {f.__name__: f for f in (numpad, popups_then_language)}
