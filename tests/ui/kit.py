"""What every journey uses: taps, holds, finding widgets, waiting, the app's clock, mock pins.

Journeys live in ``tests/ui/journeys/*.py``; each module has a ``JOURNEYS`` dict of async
functions taking the running app. ``tests/ui/driver.py`` runs one of them in a fresh process.

Time in a journey is the app's own clock, a :class:`JourneyClock` that stands still until the
journey moves it (:func:`pass_time`, :func:`run_until`): what the app shows after 2.5 s is
checked at exactly 2.5 s, however slowly a busy machine draws the frames in between. Waiting
for the app itself (a popup to open, a thread's answer) is :func:`until`, which fails only
after a deadline scaled by ``COMPANION_TEST_SLOWDOWN`` (tests/slowdown.py). A journey that
needs the real clock (another process counts down beside it) is marked :func:`live_clock`.
"""

from __future__ import annotations

import asyncio
import json
import time
import traceback
from collections.abc import Awaitable, Callable
from typing import Any

from tests.slowdown import scaled

JourneyFn = Callable[[Any], Awaitable[None]]


class JourneyClock:
    """Monotonic seconds for the app under test, moved only by the journey.

    It starts at the real ``time.monotonic()`` of its making, so times stored by one process
    still mean something to the next (the kill-and-resume journeys); then it stands still.
    """

    def __init__(self, start: float | None = None) -> None:
        self.t = time.monotonic() if start is None else start

    def now(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        assert seconds >= 0, f"time runs forwards, not by {seconds!r}"
        self.t += seconds


def live_clock(journey: JourneyFn) -> JourneyFn:
    """Mark *journey* as one the app runs through on the real monotonic clock (for a journey
    whose other side, such as the accessory's simulator, counts real seconds by itself)."""
    journey.live_clock = True  # type: ignore[attr-defined]
    return journey


def journey_clock(app: Any) -> JourneyClock:
    clock = app.svc.clock
    assert isinstance(clock, JourneyClock), "this journey runs on the real clock: it cannot move it"
    return clock


async def pass_time(app: Any, seconds: float, step_s: float = 0.25) -> None:
    """Let *seconds* pass on the app's clock, *step_s* at a time, with two frames after each step
    (the app's frame pump sees every step: each warning, each tick, in order)."""
    clock = journey_clock(app)
    end = clock.now() + seconds
    while clock.now() < end:
        clock.advance(min(step_s, end - clock.now()))
        await app.wait_clock_frames(2)


async def run_until(app: Any, predicate: Callable[[], Any], within_s: float, step_s: float = 0.25,
                    what: str = "") -> float:
    """Move the app's clock on, *step_s* at a time with two frames after each, until *predicate*
    holds; returns the app seconds that took. Fails if *within_s* pass on the app's clock first
    (a fact about the app, the same on any machine)."""
    clock = journey_clock(app)
    start = clock.now()
    while not predicate():
        assert clock.now() - start < within_s, f"not within {within_s} s of the app's time: {what or predicate}"
        clock.advance(step_s)
        await app.wait_clock_frames(2)
    return clock.now() - start


def result(**data: Any) -> None:
    print("RESULT " + json.dumps(data, ensure_ascii=False), flush=True)


async def tap(app: Any, widget: Any, duration: float = 0.05) -> None:
    """Touch *widget* down and up, then let the app draw and any dialog finish fading."""
    async for _ in app.do_touch_down_up(widget=widget, duration=duration):
        pass
    await settle(app)


async def settle(app: Any) -> None:
    """Let the app draw two frames (an opening or closing dialog starts to fade on its next
    frame), then wait until every dialog has finished fading in or out: a fading dialog still
    takes every touch (Kivy's ModalView), and one fading out is still on the window."""
    from kivy.uix.modalview import ModalView

    await app.wait_clock_frames(2)

    def still() -> bool:
        return all(w._anim_alpha >= 1 for w in app.root_window.children if isinstance(w, ModalView))

    await until(app, still, what="the dialogs to finish fading")


async def hold(app: Any, widget: Any, seconds: float = 1.3) -> None:
    await tap(app, widget, duration=seconds)


def find(app: Any, cls_name: str | None = None, text: str | None = None, **attrs: Any) -> Any:
    """The one widget on screen of that class and text (or attributes)."""
    hits = []
    for w in app.root_widget.walk():
        if cls_name is not None and type(w).__name__ != cls_name:
            continue
        if text is not None and getattr(w, "text", None) != text:
            continue
        if all(getattr(w, k, None) == v for k, v in attrs.items()) and w.get_root_window() is not None:
            hits.append(w)
    visible = [w for w in hits if _is_shown(w)]
    assert len(visible) == 1, f"expected one {cls_name} {text!r} {attrs}, found {len(visible)}"
    return visible[0]


def _is_shown(widget: Any) -> bool:
    from kivy.uix.screenmanager import Screen

    node = widget
    while node is not None:
        if isinstance(node, Screen) and node.manager is not None and node.manager.current_screen is not node:
            return False
        if node.parent is node:  # the Window is its own parent
            break
        node = node.parent
    return True


def screen(app: Any, name: str) -> Any:
    return app._screens[name]


async def until(app: Any, predicate: Any, timeout: float = 10.0, what: str = "") -> None:
    """Let the app run (a JourneyClock stands still meanwhile) until *predicate* holds: for what
    the app does in its own time, a popup opening, a thread's answer. Fails after *timeout*
    desktop seconds, scaled by the slowdown (real seconds: only how long to wait before saying
    it never came)."""
    limit_s = scaled(timeout)
    end = time.monotonic() + limit_s
    while not predicate():
        assert time.monotonic() < end, f"not within {limit_s:g} s: {what or predicate}"
        await app.async_sleep(0.05)


def pin_states(app: Any, number: int) -> list[float]:
    return [float(s.state) for s in app.hw.panel.setup.factory.pin(number).states]




async def start_game(app: Any, title: str, players: Any) -> Any:
    """From Home: the players (typed on the app's name keyboard at a real table, put straight
    into the name field here: tests/ui/journeys/home.py types them by taps), the game's button,
    Start. Returns the Home screen."""
    home = screen(app, "home")
    for name in players:
        home.ids.name_input.text = name
        await tap(app, home.ids.add_player)
    await tap(app, find(app, "TouchButton", title))
    await tap(app, home.ids.start)
    return home


def run_journey(app: Any, journey: JourneyFn) -> int:
    """Run *app* (a Kivy ``UnitKivyApp``) on a :class:`JourneyClock` (the real clock for a
    :func:`live_clock` journey) and drive *journey* through it once it has started; stop the
    app either way. 0, or 1 with ``JOURNEY FAILED`` and the traceback on stderr."""
    import sys

    if not getattr(journey, "live_clock", False):
        app.svc.clock = JourneyClock()
    failed: list[str] = []

    async def drive() -> None:
        while not app.app_has_started:
            await asyncio.sleep(0.05)
        await app.wait_clock_frames(5)
        try:
            await journey(app)
        except BaseException:
            failed.append(traceback.format_exc())
        finally:
            app.stop()

    async def both() -> None:
        await asyncio.gather(app.async_run(async_lib="asyncio"), drive())

    asyncio.run(both())
    if failed:
        print(f"JOURNEY FAILED: {journey.__name__}\n{failed[0]}", file=sys.stderr)
        return 1
    return 0
