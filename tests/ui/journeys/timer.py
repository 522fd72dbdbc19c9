"""Journeys through the sand-timer screen: the paused look, the big-digit view, two timers side
by side, and the screen's sizes in every language. Taps only.

Set ``TIMER_SHOTS=DIR`` in the environment to have ``timer_layout`` and ``big_view_journey`` save
a PNG of each state.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tests.ui.kit import find, hold, result, run_until, screen, tap, until
from tests.ui.layout import faults

LANGUAGE_BUTTONS = {"en": "English", "hu": "Magyar", "ru": "Русский"}


def own_faults(app: Any) -> list[str]:
    """The layout checker's faults, the status strip (another part of the app owns it) left out."""
    from kivy.core.window import Window

    return faults(Window, skip=app.strip)


def big_view(app: Any) -> Any:
    """The open big-digit view (it is a child of the window, not of the app's root)."""
    from kivy.core.window import Window

    views = [w for w in Window.children if type(w).__name__ == "BigTimerView"]
    assert len(views) == 1, f"{len(views)} big views open"
    return views[0]


def is_big_open(app: Any) -> bool:
    from kivy.core.window import Window

    return any(type(w).__name__ == "BigTimerView" for w in Window.children)


def popup(name: str) -> Any:
    from kivy.core.window import Window

    return next(w for w in Window.children if type(w).__name__ == name)


async def start_timer_screen(app: Any, lang: str = "en") -> Any:
    """From Home: the language's button (when not English), then Start: the timer screen."""
    if lang != "en":
        await tap(app, find(app, "TouchButton", LANGUAGE_BUTTONS[lang]))
    await tap(app, screen(app, "home").ids.start)
    assert app.manager.current == "timer"
    return screen(app, "timer")


async def press(app: Any, widget: Any) -> None:
    """A quick tap on a tap-or-hold button: Kivy's own test touch, down and up in one frame.

    kit.tap waits a few frames between down and up, and under Xvfb's software rendering on a
    busy machine a frame of the big view can take a third of a second: the tap then outlasts
    the one-second hold and resets the timer. A finger's tap never lasts that long.
    """
    from kivy.tests.async_common import AsyncUnitTestTouch

    touch = AsyncUnitTestTouch(*widget.to_window(*widget.center))
    touch.touch_down()
    touch.touch_up()
    await app.wait_clock_frames(2)


def shot(app: Any, name: str) -> None:
    out = os.environ.get("TIMER_SHOTS")
    if not out:
        return
    from kivy.core.window import Window

    Path(out).mkdir(parents=True, exist_ok=True)
    w, h = Window.size
    Window.screenshot(name=str(Path(out) / f"{name}_{w}x{h}_.png"))  # Kivy adds a counter


async def paused_look(app: Any) -> None:
    """A tap on Pause: the PAUSED band shows, the digits dim (and blink), the sand goes grey;
    a tap on Resume takes it all away."""
    from companion.ui.theme import THEME
    from companion.ui.timer import PAUSED_SAND

    timer = await start_timer_screen(app)
    await tap(app, timer.ids.preset_market)
    digits, band = timer.ids.digits, timer.ids.band
    assert band.opacity == 0 and digits.color[3] == 1 and list(timer.ids.hourglass.sand) == THEME.primary
    await press(app, timer.ids.toggle)  # pause
    await app.wait_clock_frames(2)
    assert app.svc.session.board["market"].phase.value == "paused"
    assert band.opacity == 1 and band.text == "PAUSED", (band.opacity, band.text)
    assert digits.color[3] <= 0.8, digits.color
    assert list(timer.ids.hourglass.sand) == PAUSED_SAND
    assert timer.ids.toggle_label.text == "Resume"
    assert "❚❚" in timer.ids.preset_market.text  # the chip says paused too
    alphas = set()
    # it blinks: BLINK_S on the app's clock between its two dim levels
    await run_until(app, lambda: alphas.add(round(digits.color[3], 2)) or len(alphas) > 1, within_s=1.0)
    assert max(alphas) <= 0.8, alphas
    assert own_faults(app) == [], own_faults(app)
    await press(app, timer.ids.toggle)  # resume
    await app.wait_clock_frames(2)
    assert app.svc.session.board["market"].is_running
    assert band.opacity == 0 and digits.color[3] == 1 and list(timer.ids.hourglass.sand) == THEME.primary
    result(ok=True)


async def big_view_journey(app: Any) -> None:
    """Enlarge opens the big view over the whole window: digits a third of its height at least,
    the timer's name; taps pause and resume, a hold resets, Close goes back; the digits
    themselves open it too; amber and red at the warnings, 0:00 at the end."""
    from kivy.core.window import Window

    from companion.ui.theme import THEME

    timer = await start_timer_screen(app)
    await tap(app, timer.ids.preset_market)
    await tap(app, timer.ids.big)
    view = big_view(app)
    await app.wait_clock_frames(3)
    digits = view.ids.digits
    third = min(Window.size) / 3  # a third of the height, or of the width when standing up
    assert digits.font_size >= third and digits.texture_size[1] >= third, (digits.font_size, digits.texture_size,
                                                                         Window.size)
    font = digits.font_size
    assert tuple(view.size) == tuple(Window.size), (view.size, Window.size)  # over the nav bar too
    assert view.ids.name.text == "Market"
    assert own_faults(app) == [], own_faults(app)
    shot(app, "big")
    board = app.svc.session.board

    await press(app, view.ids.face)
    await app.wait_clock_frames(2)
    assert board["market"].phase.value == "paused"
    assert view.ids.band.opacity == 1 and digits.color[3] <= 0.8  # paused, the same way
    assert own_faults(app) == [], own_faults(app)
    shot(app, "big-paused")
    await press(app, view.ids.face)
    assert board["market"].is_running
    await hold(app, view.ids.face)
    assert board["market"].phase.value == "idle"
    await press(app, view.ids.face)
    assert board["market"].is_running and view.ids.band.opacity == 0
    await tap(app, view.ids.close)
    await app.wait_clock_frames(2)
    assert not is_big_open(app) and app.manager.current == "timer"
    await tap(app, timer.ids.digits)  # the digits open it as well
    assert is_big_open(app)
    await tap(app, big_view(app).ids.close)
    # A twelve-second negotiation (the test's config): amber at 10 s left, red at 3, 0:00 at the end.
    # Paused at once, so that a slow display cannot miss the amber before the big view is up.
    await tap(app, timer.ids.preset_negotiation)
    await press(app, timer.ids.toggle)
    await tap(app, timer.ids.big)
    view = big_view(app)
    digits = view.ids.digits
    assert view.ids.name.text == "Negotiation" and view.ids.band.opacity == 1
    assert len(view.ids.chips.children) == 2  # both timers, to switch between them
    seen = [tuple(digits.color[:3])]
    digits.bind(color=lambda _w, colour: seen.append(tuple(colour[:3])))
    await press(app, view.ids.face)  # resume
    # Red at 3 s left: 9 s on; a busy machine may draw the new colour one step (0.5 s) later.
    took = await run_until(app, lambda: digits.color[:3] == THEME.red[:3], within_s=12, step_s=0.5)
    assert took in (9, 9.5), took
    assert tuple(THEME.amber[:3]) in seen, seen  # amber came first
    assert await run_until(app, lambda: board["negotiation"].phase.value == "expired", within_s=4) == 3
    await app.wait_clock_frames(2)
    assert digits.text == "0:00" and digits.color[:3] == THEME.red[:3]
    await until(app, lambda: view.flash[3] == 1, what="the flash")  # the app's expiry flash shows here too
    # over the whole face, with the words for it, not in the margins alone
    await until(app, lambda: list(view.ids.face._fill_colour.rgba) == list(view.flash), what="the face's flash")
    assert view.ids.hint.text == "Time ran out"
    await press(app, view.ids.face)  # the first tap stops the alarm
    assert board["negotiation"].phase.value == "expired"
    await app.wait_clock_frames(2)
    assert list(view.ids.face._fill_colour.rgba) == list(THEME.background), view.ids.face._fill_colour.rgba
    assert view.ids.hint.text == "Tap: pause or resume · Hold: reset"
    await press(app, view.ids.face)  # the next one starts it again
    assert board["negotiation"].is_running
    await tap(app, view.ids.close)
    result(font=font, window=list(Window.size))


async def two_timers_hu(app: Any) -> None:
    """In Hungarian: negotiation, then market, then a custom timer; the digits keep their size,
    the chips show the translated names and each its own time."""
    timer = await start_timer_screen(app, "hu")
    await tap(app, timer.ids.preset_negotiation)
    await app.wait_clock_frames(3)
    one = (timer.ids.digits.font_size, timer.ids.digits.height)
    await tap(app, timer.ids.preset_market)
    await app.wait_clock_frames(3)
    two = (timer.ids.digits.font_size, timer.ids.digits.height)
    assert one == two, (one, two)
    assert timer.ids.name.text == "Piac"
    neg, market = timer.ids.preset_negotiation.text, timer.ids.preset_market.text
    assert neg.startswith("Egyezkedés\n▶ ") and market.startswith("Piac\n▶ "), (neg, market)
    assert "negotiation" not in neg
    await tap(app, timer.ids.preset_custom)
    custom = popup("CustomTimerPopup")
    assert own_faults(app) == [], own_faults(app)
    # no length, no start: Start stays off at 0:00, and on once there is a second
    await tap(app, next(w for w in custom.ids.minutes.walk() if getattr(w, "text", "") == "−"))
    assert (custom.ids.minutes.value, custom.ids.seconds.value) == (0, 0) and custom.ids.ok.disabled
    await tap(app, custom.ids.ok)
    assert custom.parent is not None and "timer 1" not in app.svc.session.board
    await tap(app, next(w for w in custom.ids.seconds.walk() if getattr(w, "text", "") == "+"))
    assert not custom.ids.ok.disabled
    await tap(app, next(w for w in custom.ids.quick.children if w.text == "▶ 5:00"))  # one tap starts it
    await app.wait_clock_frames(3)
    assert custom.parent is None
    assert app.svc.session.board["timer 1"].total_s == 300
    three = (timer.ids.digits.font_size, timer.ids.digits.height)
    assert three == one, (one, three)
    chips = [w.text for w in timer.ids.chips.children]
    assert any(t.startswith("Időzítő 1\n▶ ") for t in chips), chips
    assert timer.ids.name.text == "Időzítő 1"
    left = app.svc.session.board["negotiation"].remaining_s(app.svc.session.now())
    await tap(app, timer.ids.preset_negotiation)  # shows it; a running timer is not restarted
    assert timer.selected == "negotiation"
    assert app.svc.session.board["negotiation"].remaining_s(app.svc.session.now()) <= left
    assert own_faults(app) == [], own_faults(app)
    result(font=one[0])


async def timer_layout(app: Any) -> None:
    """In each language (``TIMER_LANGS``, default en,hu,ru): two timers and a custom one, paused,
    the custom popup and the big view; the layout checker finds nothing on any of them."""
    from companion.ui.lang import TR

    found: list[str] = []
    for lang in os.environ.get("TIMER_LANGS", "en,hu,ru").split(","):
        if app.manager.current != "home":
            await tap(app, find(app, "TouchButton", TR._("Home")))
        home = screen(app, "home")
        await tap(app, find(app, "TouchButton", LANGUAGE_BUTTONS[lang]))
        await tap(app, home.ids.start)
        timer = screen(app, "timer")
        await app.wait_clock_frames(2)
        found += [f"{lang} empty: {f}" for f in own_faults(app)]
        await tap(app, timer.ids.preset_negotiation)
        await tap(app, timer.ids.preset_market)
        await tap(app, timer.ids.preset_custom)
        found += [f"{lang} popup: {f}" for f in own_faults(app)]
        shot(app, f"custom_{lang}")
        await tap(app, popup("CustomTimerPopup").ids.ok)
        await press(app, timer.ids.toggle)
        await app.wait_clock_frames(3)
        assert timer.paused and app.svc.session.board["timer 1"].phase.value == "paused"
        found += [f"{lang} paused: {f}" for f in own_faults(app)]
        shot(app, f"paused_{lang}")
        await tap(app, timer.ids.big)
        await app.wait_clock_frames(3)
        found += [f"{lang} big paused: {f}" for f in own_faults(app)]
        shot(app, f"bigpaused_{lang}")
        await press(app, big_view(app).ids.face)
        await app.wait_clock_frames(3)
        assert app.svc.session.board["timer 1"].is_running
        found += [f"{lang} big: {f}" for f in own_faults(app)]
        shot(app, f"big_{lang}")
        await tap(app, big_view(app).ids.close)
    assert found == [], "\n".join(found)
    result(ok=True)


JOURNEYS = {"timer_paused_look": paused_look, "timer_big_view": big_view_journey,
            "timer_two_timers_hu": two_timers_hu, "timer_layout": timer_layout}
