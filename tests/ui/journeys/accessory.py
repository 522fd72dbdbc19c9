"""The USB timer accessory with the touch app: the simulator's button pauses the app's timer, and
the app works on when the accessory goes. The test process runs the simulator and acts on it.

The simulator counts real seconds in its own process, so this journey runs the app on the real
clock too (:func:`live_clock`); it waits only for events (the link, the pause, the unplug).
"""

from __future__ import annotations

from typing import Any

from tests.ui.kit import find, live_clock, result, screen, tap, until


@live_clock
async def accessory(app: Any) -> None:
    strip = app.strip
    await until(app, lambda: strip.accessory == "connected", timeout=30, what="the accessory's link")
    assert "connected" in strip.ids.accessory.text
    await tap(app, find(app, "TouchButton", "Start"))
    timer = screen(app, "timer")
    await tap(app, timer.ids.preset_negotiation)
    assert app.svc.session.board["negotiation"].is_running
    result(step="running")
    await until(app, lambda: timer.phase == "paused", timeout=60, what="the accessory's button")
    result(step="paused")
    await until(app, lambda: strip.accessory == "disconnected", timeout=60, what="its cable pulled")
    await tap(app, timer.ids.toggle)
    assert timer.phase == "running"  # the app goes on without it
    result(step="works_without", strip=strip.ids.accessory.text)


JOURNEYS = {f.__name__: f for f in (accessory,)}
