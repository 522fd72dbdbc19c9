"""Journeys for the database under the app: the disk fills mid-game (a small tmpfs filled to the
last byte, or SQLite's own page limit), a move is made, the banner shows and the app plays on;
room comes back, the app's retry writes the held moves and the banner goes. And a plain start
that saves a move (after another app was killed)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.ui.kit import find, result, screen, tap, until

BANNER = "storage full: moves are not being saved"


def _saved_kinds(app: Any) -> list[str]:
    """The session's events as a second, read-only reader sees them on disk now."""
    from companion.store import Store

    reader = Store.open_read_only(app.svc.store.path)
    try:
        return [e.kind for e in reader.events(app.svc.session.id)]
    finally:
        reader.close()


async def _start_negotiation(app: Any) -> Any:
    await tap(app, find(app, "TouchButton", "Start"))
    timer = screen(app, "timer")
    await tap(app, timer.ids.preset_negotiation)
    assert timer.phase == "running"
    assert app.svc.store.trouble is None and app.strip.banner == ""
    return timer


async def _banner_then_room(app: Any, timer: Any, make_room: Callable[[], None]) -> None:
    """With the banner up after a move: readable, over any passing message, there through a
    retry that finds no room; then room, and the app's retry saves the move."""
    from companion.ui.bars import storage_banner
    from tests.ui.layout import faults

    store = app.svc.store
    assert storage_banner(store.trouble) == BANNER
    await until(app, lambda: app.strip.banner == BANNER, timeout=10)
    await app.wait_clock_frames(3)
    note = app.strip.ids.note
    assert note.get_root_window() is not None and note.text == BANNER and note.font_size >= 18
    assert faults(app.root_window) == [], faults(app.root_window)
    app.notify("Negotiation: a passing message")  # it comes and goes under the banner
    await app.wait_clock_frames(3)
    assert note.text == BANNER + "\nNegotiation: a passing message" and note.font_size >= 18
    assert faults(app.root_window) == [], faults(app.root_window)
    app.notify("")
    tried = app.store_retries
    await until(app, lambda: app.store_retries > tried, timeout=30)  # a retry on a disk still full
    assert app.strip.banner == BANNER and store.unsaved >= 1
    held = [e.kind for e in store.events(app.svc.session.id)]
    assert _saved_kinds(app) != held  # the move is not on disk yet
    make_room()
    await until(app, lambda: app.strip.banner == "", timeout=60)
    assert store.trouble is None and store.unsaved == 0 and app.strip.shown == ""
    saved = _saved_kinds(app)  # written by the retry, while the app runs
    assert saved == held and saved[-1] == "timer.toggle", saved
    assert timer.phase == "paused"
    result(ok=True, session=app.svc.session.id, saved=saved, path=store.path)


async def full_disk_banner_until_room(app: Any) -> None:
    """The database on a small tmpfs (the test mounted it): a timer runs; the disk fills; Pause
    is tapped: the timer pauses, the banner says moves are not being saved; the disk gets room:
    the banner goes and the pause is in the database."""
    from tests.disks import SmallDisk

    timer = await _start_negotiation(app)
    disk = SmallDisk(Path(app.svc.store.path).parent)
    disk.fill()
    await tap(app, timer.ids.toggle)  # a move on a full disk
    assert timer.phase == "paused"  # the app plays on
    assert app.svc.store.trouble == "full"
    await _banner_then_room(app, timer, disk.make_room)


async def page_limit_banner_until_room(app: Any) -> None:
    """The same with SQLite's own page limit for the full disk (no mount needed): the database
    may grow no more, then moves are made until one needs a page (a real SQLITE_FULL)."""
    timer = await _start_negotiation(app)
    conn = app.svc.store._conn
    conn.execute(f"PRAGMA max_page_count={conn.execute('PRAGMA page_count').fetchone()[0]}")
    for _ in range(200):
        await tap(app, timer.ids.toggle)
        if app.svc.store.trouble is not None:
            break
    assert app.svc.store.trouble == "full"
    if timer.phase == "running":  # end on a pause, as the tmpfs journey does
        await tap(app, timer.ids.toggle)
    assert timer.phase == "paused"
    await _banner_then_room(app, timer, lambda: conn.execute("PRAGMA max_page_count=1073741823"))


async def starts_and_saves(app: Any) -> None:
    """A plain start: a timer, started and saved."""
    timer = await _start_negotiation(app)
    assert _saved_kinds(app)[-1] == "timer.toggle"
    assert timer.phase == "running"
    result(ok=True, session=app.svc.session.id)


JOURNEYS = {f.__name__: f for f in (full_disk_banner_until_room, page_limit_banner_until_room, starts_and_saves)}
