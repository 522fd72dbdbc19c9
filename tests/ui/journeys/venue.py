"""The touch app on a venue's broker: the test process runs the broker (Mosquitto) and a paho
client, and publishes the venue's commands; this journey plays the table and says what it saw.

The broker's messages arrive in real time, so the app runs on the real clock (:func:`live_clock`);
every wait is for the app's own state, with a generous deadline. Steps (``RESULT`` lines):
``running`` (a game and its timer started by taps), ``paused`` (the venue's pause seen on the
Timer screen and in the session store), ``announced`` (the venue's text over the screen, its
screenshot in ``VENUE_SHOTS``), ``replaced`` (a second announcement in its place, screenshot
too), ``closed`` (a tap took it away), ``settings`` (the link's state on the Settings screen);
then the app stops, and its link says ``offline``.

:func:`venue_state` shows the link's state on the Settings screen as it goes through the states
named in ``VENUE_STATES`` (the test stops and starts the broker in between).
:func:`announcement_times_out` needs no broker: on the journey's own clock, an announcement over
the big timer view stays for its seconds, and goes at the end of them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tests.ui.kit import find, live_clock, pass_time, result, screen, settle, start_game, tap, until
from tests.ui.layout import faults


def _window() -> Any:
    from kivy.core.window import Window

    return Window


def announcement(app: Any) -> Any:
    """The announcement's dialog on the window, or None."""
    return next((w for w in _window().children if type(w).__name__ == "AnnouncementView"), None)


async def looked_at(app: Any, view: Any, name: str) -> dict[str, Any]:
    """What the announcement looks like once drawn: its screenshot (in ``VENUE_SHOTS``), the
    layout checker's faults, its text's font and whether it fits, where it lies."""
    await settle(app)
    await app.wait_clock_frames(5)  # the text fitted to its box (FitLabel refits on the next frame)
    message = view.ids.message
    shots = Path(os.environ["VENUE_SHOTS"])
    shots.mkdir(parents=True, exist_ok=True)
    w, h = _window().size
    shot = _window().screenshot(name=str(shots / f"{name}_{w}x{h}_.png"))  # Kivy adds a counter
    return {"text": view.text, "shot": shot, "faults": faults(_window()), "overflows": message.overflows,
            "font_px": message.font_size, "box": [round(v) for v in (*view.pos, *view.size)], "window": [w, h],
            "over": app.manager.current}


@live_clock
async def venue(app: Any) -> None:
    feed = app.hw.venue
    assert feed is not None, "the config's [venue] made no link"
    await until(app, lambda: feed.state == "connected", timeout=30, what="the venue's broker")
    await start_game(app, "Gold!", ["Anna", "Béla"])
    await tap(app, find(app, "TouchButton", "Timer"))
    timer = screen(app, "timer")
    await tap(app, timer.ids.preset_negotiation)
    session = app.svc.session
    assert session.board["negotiation"].is_running
    result(step="running", session=session.id, db=str(app.svc.store.path))

    await until(app, lambda: timer.phase == "paused", timeout=60, what="the venue's pause")
    assert timer.paused and timer.toggle_text == "Resume"
    events = [(e.kind, dict(e.data)) for e in app.svc.store.events(session.id)]
    result(step="paused", events=events[-2:], can_undo=session.can_undo)

    await until(app, lambda: announcement(app) is not None, timeout=60, what="the venue's announcement")
    view = announcement(app)
    result(step="announced", **await looked_at(app, view, "announcement"))

    first = view.text
    await until(app, lambda: view.text != first, timeout=60, what="the second announcement")
    assert announcement(app) is view, "the second announcement opened a second dialog"
    result(step="replaced", **await looked_at(app, view, "replaced"))

    await tap(app, view)
    await until(app, lambda: announcement(app) is None, what="the announcement to close at a tap")
    assert timer.phase == "paused"  # the tap that closed it pressed nothing under it
    result(step="closed", screen=app.manager.current)

    await tap(app, find(app, "TouchButton", "Settings"))
    settings = screen(app, "settings")
    line = settings.venue_label
    assert line is not None, "Settings shows no venue row"
    settings.scroll_to_top_of(line.parent)
    await app.wait_clock_frames(5)
    w, h = _window().size
    shot = _window().screenshot(name=str(Path(os.environ["VENUE_SHOTS"]) / f"settings_{w}x{h}_.png"))
    result(step="settings", line=line.text, shot=shot, faults=faults(_window()), overflows=line.overflows)


@live_clock
async def venue_state(app: Any) -> None:
    feed = app.hw.venue
    assert feed is not None, "the config's [venue] made no link"
    await tap(app, find(app, "TouchButton", "Settings"))
    settings = screen(app, "settings")
    line = settings.venue_label
    assert line is not None, "Settings shows no venue row"
    for state in os.environ["VENUE_STATES"].split(","):
        await until(app, lambda s=state: feed.state == s, timeout=60, what=f"the link {state}")
        await app.wait_clock_frames(3)  # Settings reads the state each frame
        result(step=state, line=line.text)


async def announcement_times_out(app: Any) -> None:
    """The timer's big view open (a dialog over the whole window), an announcement comes for 15 s:
    it lies over the big view, a new one 10 s later gives it 15 s more, and it goes at their end;
    the timer under it ran on untouched."""
    await tap(app, screen(app, "home").ids.start)
    timer = screen(app, "timer")
    await tap(app, timer.ids.preset_negotiation)
    view = timer.open_big()
    await settle(app)
    app.announcer.show("Zárás 22 órakor", 15.0)  # what the venue link's announce calls
    await settle(app)
    assert _window().children[0] is announcement(app) and view.parent is not None  # on top of it
    await pass_time(app, 10, step_s=2.5)
    assert announcement(app) is not None
    app.announcer.show("Закрываемся в 22:00", 15.0)
    await pass_time(app, 14.5, step_s=2.5)
    shown = announcement(app)
    assert shown is not None and shown.text == "Закрываемся в 22:00"
    await pass_time(app, 1, step_s=1)
    assert announcement(app) is None and view.parent is not None  # the big view stays
    assert app.svc.session.board["negotiation"].is_running
    result(ok=True)


JOURNEYS = {f.__name__: f for f in (venue, venue_state, announcement_times_out)}
