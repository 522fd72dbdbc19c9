"""Journeys through the kiosk's app: what a player cannot do, what the host can, and the watchdog."""

from __future__ import annotations

import os
import select
import sys
from pathlib import Path
from typing import Any

from tests.ui.kit import find, journey_clock, result, screen, tap


def listening_sockets() -> list[str]:
    """This process's TCP sockets in LISTEN and its bound UDP sockets, from /proc."""
    mine = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            mine.add(target[8:-1])
    found = []
    for table in ("tcp", "tcp6", "udp", "udp6"):
        try:
            rows = Path(f"/proc/net/{table}").read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            parts = row.split()
            if parts[9] in mine and (table.startswith("udp") or parts[3] == "0A"):
                found.append(f"{table} {parts[1]}")
    return found


async def lockdown(app: Any) -> None:
    """No cursor, one input provider, Escape / F1 / the window's close do nothing, no open port."""
    from kivy.base import EventLoop
    from kivy.config import Config
    from kivy.core.window import Window

    assert Window.show_cursor is False
    assert Config.items("input") == [("touch", "probesysfs,provider=hidinput")], Config.items("input")
    providers = sorted(type(p).__name__ for p in EventLoop.input_providers)
    assert "MouseMotionEventProvider" not in providers, providers
    app.manager.current = "timer"  # not by a tap: on a turned window Kivy's test touches land elsewhere
    assert Window.dispatch("on_keyboard", 27, 9, None, []) is True  # Escape: swallowed
    Window.dispatch("on_keyboard", 282, 67, None, [])  # F1: Kivy's own settings panel
    assert Window.dispatch("on_request_close") is True  # the window system's close: refused
    await app.wait_clock_frames(5)
    assert app.manager.current == "timer" and app._app_settings is None
    assert not any(type(w).__name__.startswith("Settings") for w in Window.children)
    result(ok=True, listening=listening_sockets(), rotation=Window.rotation)


async def enter_pin(app: Any, code: str) -> None:
    for digit in code:
        await tap(app, find(app, "TouchButton", digit))
    await tap(app, find(app, "TouchButton", "OK"))


async def tap_in_list(app: Any, button: Any) -> None:
    """A button in the settings' scrolling list: scrolled into view, then a touch held long enough
    for the list to decide it is not a scroll."""
    from kivy.uix.scrollview import ScrollView

    view = button.parent
    while not isinstance(view, ScrollView):
        view = view.parent
    view.scroll_to(button, padding=0, animate=False)
    await app.wait_clock_frames(3)
    await tap(app, button, duration=0.35)


async def pin_and_shutdown(app: Any) -> None:
    """Three wrong PINs lock the pad (even the right one waits), then the host shuts the table down."""
    clock = journey_clock(app)  # the app's clock, which only the journey moves
    runtime = Path(os.environ["RUNTIME_DIRECTORY"])
    await tap(app, find(app, "TouchButton", "Settings"))
    settings = screen(app, "settings")
    assert settings.ids.pages.current == "locked"
    for code in ("1111", "2222"):
        await enter_pin(app, code)
        assert settings.message == "Wrong PIN", settings.message
    await enter_pin(app, "3333")
    assert settings.message == "Too many wrong PINs: try again in 30 s", settings.message
    await enter_pin(app, "2468")
    assert settings.ids.pages.current == "locked" and settings.message.startswith("Too many wrong PINs")
    clock.advance(29.9)
    await enter_pin(app, "2468")
    assert settings.ids.pages.current == "locked", "the lock-out is 30 s"
    clock.advance(0.2)
    await enter_pin(app, "2468")
    assert settings.ids.pages.current == "settings", settings.message
    await tap_in_list(app, find(app, "TouchButton", "Shut down"))
    assert settings.message == "Tap Shut down again to power off the table", settings.message
    assert not (runtime / "poweroff").exists()
    await tap_in_list(app, find(app, "TouchButton", "Shut down"))
    assert (runtime / "poweroff").read_text() == "poweroff\n"
    assert settings.message.startswith("Shutting down"), settings.message
    await tap(app, find(app, "TouchButton", "Home"))
    await tap(app, find(app, "TouchButton", "Settings"))
    assert settings.ids.pages.current == "locked"  # left and came back: the PIN again
    result(ok=True, requests=sorted(p.name for p in runtime.iterdir()))


async def next_line(app: Any) -> str:
    """The test's next word on standard input, the app running meanwhile."""
    while not select.select([sys.stdin], [], [], 0)[0]:
        await app.async_sleep(0.05)
    return sys.stdin.readline().strip()


async def watchdog(app: Any) -> None:
    """On the test's word, stand the main loop still until its next word; then run until 'done'."""
    assert await next_line(app) == "block"
    print("BLOCKING", flush=True)
    assert sys.stdin.readline() == "go\n"  # the main thread, and with it Kivy's loop, waits here
    assert await next_line(app) == "done"
    result(ok=True)


JOURNEYS = {"lockdown": lockdown, "pin_and_shutdown": pin_and_shutdown, "watchdog": watchdog}
