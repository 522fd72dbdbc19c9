"""What every journey uses: taps, holds, finding widgets, waiting, reading mock pins.

Journeys live in ``tests/ui/journeys/*.py``; each module has a ``JOURNEYS`` dict of async
functions taking the running app. ``tests/ui/driver.py`` runs one of them in a fresh process.
"""

from __future__ import annotations

import asyncio
import json
import time
import traceback
from collections.abc import Awaitable, Callable
from typing import Any


def result(**data: Any) -> None:
    print("RESULT " + json.dumps(data, ensure_ascii=False), flush=True)


async def tap(app: Any, widget: Any, duration: float = 0.05) -> None:
    async for _ in app.do_touch_down_up(widget=widget, duration=duration):
        pass
    await app.wait_clock_frames(2)


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


async def until(app: Any, predicate: Any, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, "timed out waiting"
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


def run_journey(app: Any, journey: Callable[[Any], Awaitable[None]]) -> int:
    """Run *app* (a Kivy ``UnitKivyApp``) and drive *journey* through it once it has started;
    stop the app either way. 0, or 1 with ``JOURNEY FAILED`` and the traceback on stderr."""
    import sys

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
