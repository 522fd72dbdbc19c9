"""Runs one user journey through the real touch app, in a real window, with Kivy's touch helpers.

    python tests/ui/driver.py JOURNEY

Started by tests/ui/test_journeys.py in a fresh process per journey (Kivy has one window a
process). The environment gives the scratch data and config folders. A journey that fails
raises; the driver prints ``JOURNEY FAILED`` and the traceback, and exits 1. Journeys may
print ``RESULT {json}`` lines for the test to check.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.update(KIVY_NO_ARGS="1", KIVY_NO_FILELOG="1", KIVY_LOG_MODE="PYTHON", KIVY_CLIPBOARD="sdl2")

from companion.ui.launch import build, configure_kivy  # noqa: E402 - after the path

SIZE = sys.argv[2] if len(sys.argv) > 2 else "800x480"
configure_kivy(*(int(v) for v in SIZE.split("x")), fullscreen=False)  # before Kivy makes its window

from kivy.tests.async_common import UnitKivyApp  # noqa: E402 - after Kivy's settings

from companion.ui.app import CompanionApp  # noqa: E402


class DrivenApp(UnitKivyApp, CompanionApp):  # type: ignore[misc]
    pass


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


# -- journeys ----------------------------------------------------------------------------------


async def negotiation(app: Any) -> None:
    """Start a negotiation timer, pause, flip, add time, let it expire: buzzer and LED bar."""
    await tap(app, find(app, "TouchButton", "Start"))
    timer = screen(app, "timer")
    assert app.manager.current == "timer"
    await tap(app, timer.ids.preset_negotiation)
    session = app.svc.session
    assert session.board["negotiation"].is_running
    assert pin_states(app, 5)[-1] == 1  # the LED bar is full
    await app.async_sleep(0.6)
    await tap(app, timer.ids.toggle)  # pause
    assert timer.phase == "paused"
    left = session.board["negotiation"].remaining_s(session.now())
    await tap(app, timer.ids.flip)
    flipped = session.board["negotiation"].remaining_s(session.now())
    assert abs(flipped - (6.0 - left)) < 0.01, (left, flipped)
    await tap(app, timer.ids.plus)
    assert abs(session.board["negotiation"].remaining_s(session.now()) - (flipped + 10)) < 0.01
    await tap(app, timer.ids.minus)
    await tap(app, timer.ids.toggle)  # resume
    assert timer.phase == "running"
    await until(app, lambda: timer.phase == "expired", timeout=12)
    await app.async_sleep(0.2)
    buzzer = pin_states(app, 18)
    assert 1.0 in buzzer[-6:], buzzer  # the alarm sounded
    assert all(pin_states(app, p)[-1] == 0 for p in (5, 6, 13, 19, 26, 16, 20, 21))  # the bar drained
    assert app.root_widget.flash[3] == 1 or app._flash_until > 0  # the screen flashes
    assert timer.digits == "0:00"
    result(expired=True, buzzer_edges=buzzer.count(1.0))


async def turn_clock(app: Any) -> None:
    """Four players, the turn clock, three taps."""
    home = screen(app, "home")
    for name in ("Anna", "Bence", "Csilla", "Dávid"):
        home.ids.name_input.text = name  # typed on Kivy's on-screen keyboard at a real table
        await tap(app, home.ids.add_player)
    await tap(app, find(app, "TouchButton", "Dragon's Gold"))
    await tap(app, home.ids.start)
    await tap(app, find(app, "TouchButton", "Turns"))
    turns = screen(app, "turns")
    await tap(app, turns.ids.setup)
    assert [p.name for p in reversed(turns.ids.panels.children)] == ["Anna", "Bence", "Csilla", "Dávid"]
    await tap(app, turns.ids.next)  # starts the clock: Anna
    await app.async_sleep(0.5)
    await tap(app, turns.ids.next)  # Bence
    await tap(app, turns.ids.next)  # Csilla
    tc = app.svc.session.turn_clock
    assert tc.player == "Csilla"
    now = app.svc.session.now()
    assert 299.0 < tc.remaining_s("Anna", now) < 299.7
    current = [p.name for p in turns.ids.panels.children if p.current]
    assert current == ["Csilla"]
    result(player=tc.player)


async def settings_pin(app: Any) -> None:
    """Kiosk mode: the settings need the PIN; change the language and save."""
    await tap(app, find(app, "TouchButton", "Settings"))
    settings = screen(app, "settings")
    assert settings.ids.pages.current == "locked"
    pad = settings.ids.pinpad
    for digit in "1111":
        await tap(app, find(app, "TouchButton", digit))
    await tap(app, find(app, "TouchButton", "OK"))
    assert settings.message == "Wrong PIN" and settings.ids.pages.current == "locked"
    for digit in "2468":
        await tap(app, find(app, "TouchButton", digit))
    assert pad.code == "2468"
    await tap(app, find(app, "TouchButton", "OK"))
    assert settings.ids.pages.current == "settings"
    # Inside a ScrollView a touch reaches the button once the view decides it is not a scroll.
    await tap(app, find(app, "TouchButton", "hu"), duration=0.35)
    assert settings.pending == {"ui.language": "hu"}, settings.pending
    await tap(app, settings.ids.save)
    text = app.svc.config_path.read_text()
    assert settings.message.startswith("Saved") or settings.message.startswith("Elmentve"), settings.message
    assert 'language = "hu"' in text, text
    await app.wait_clock_frames(3)
    assert find(app, "TouchButton", "Beállítások") is not None
    result(config=text)


async def language(app: Any) -> None:
    """Switch the language at run time from the Home screen."""
    await tap(app, find(app, "TouchButton", "Русский"))
    assert find(app, "TouchButton", "Таймер") is not None
    await tap(app, find(app, "TouchButton", "Magyar"))
    assert find(app, "TouchButton", "Időzítő") is not None
    await tap(app, find(app, "TouchButton", "English"))
    assert find(app, "TouchButton", "Timer") is not None
    result(ok=True)


async def undo_redo(app: Any) -> None:
    """+10 s, undo it, redo it."""
    await tap(app, find(app, "TouchButton", "Start"))
    timer = screen(app, "timer")
    await tap(app, timer.ids.preset_market)
    await tap(app, timer.ids.toggle)  # pause, so the numbers hold still
    session = app.svc.session
    left = session.board["market"].remaining_s(session.now())
    await tap(app, timer.ids.plus)
    assert abs(session.board["market"].remaining_s(session.now()) - (left + 10)) < 0.01
    await tap(app, app.nav.ids.undo)
    assert abs(session.board["market"].remaining_s(session.now()) - left) < 0.01
    await tap(app, app.nav.ids.redo)
    assert abs(session.board["market"].remaining_s(session.now()) - (left + 10)) < 0.01
    await tap(app, app.nav.ids.undo)
    await tap(app, app.nav.ids.undo)  # the pause
    assert session.board["market"].is_running
    result(ok=True)


async def long_press_reset(app: Any) -> None:
    """A long press on the big button resets the timer."""
    await tap(app, find(app, "TouchButton", "Start"))
    timer = screen(app, "timer")
    await tap(app, timer.ids.preset_market)
    await app.async_sleep(0.3)
    await hold(app, timer.ids.toggle)
    assert timer.phase == "idle", timer.phase
    result(ok=True)


async def run_and_wait(app: Any) -> None:
    """For the kill test: a running negotiation timer with 10 s added, then wait to be killed."""
    await tap(app, find(app, "TouchButton", "Start"))
    timer = screen(app, "timer")
    await tap(app, timer.ids.preset_negotiation)
    await tap(app, timer.ids.plus)
    session = app.svc.session
    result(session=session.id, remaining=session.board["negotiation"].remaining_s(session.now()),
           t_mono=session.now())
    await app.async_sleep(600)


async def resume(app: Any) -> None:
    """For the kill test: resume from Home and report the timer."""
    home = screen(app, "home")
    assert home.can_resume
    await tap(app, home.ids.resume)
    session = app.svc.session
    timer = session.board["negotiation"]
    result(session=session.id, phase=timer.phase.value, remaining=timer.remaining_s(session.now()),
           t_mono=session.now(), screen=app.manager.current)


EXAMPLE_1 = {  # shared/rules/dragons_gold.md, example 1 (A holds the black diamond)
    "A": {"silver": 6, "gold": 2, "red": 3, "black": 1, "blue": 3, "green": 2, "yellow": 1, "white": 1},
    "B": {"silver": 4, "gold": 3, "red": 1, "blue": 3, "green": 1, "purple": 2, "white": 2},
    "C": {"silver": 8, "gold": 1, "red": 2, "blue": 1, "green": 2, "purple": 2, "yellow": 3},
    "D": {"silver": 2, "gold": 4, "purple": 1, "yellow": 2},
}


async def dragons_gold_scoring(app: Any) -> None:
    """Enter example 1 by touch, in both rule sets; the totals must be `companion score`'s."""
    import subprocess

    home = screen(app, "home")
    for name in EXAMPLE_1:
        home.ids.name_input.text = name
        await tap(app, home.ids.add_player)
    await tap(app, find(app, "TouchButton", "Dragon's Gold"))
    await tap(app, home.ids.start)
    assert app.manager.current == "game:dragons-gold"
    sheet = screen(app, "game:dragons-gold")
    for name, counts in EXAMPLE_1.items():
        await tap(app, find(app, "TouchButton", name))
        assert sheet.player == name
        for field, n in counts.items():
            plus = next(w for w in sheet.counters[field].walk() if getattr(w, "text", None) == "+")
            for _ in range(n):
                await tap(app, plus, duration=0.02)
    answers = {}
    for rules, button in (("simple", sheet.ids.rules_simple), ("advanced", sheet.ids.rules_advanced)):
        await tap(app, button)
        doc = app.svc.session.score_document()
        cli = subprocess.run([sys.executable, "-m", "companion", "score", "dragons-gold", "--json"],
                             input=json.dumps(doc), capture_output=True, text=True, timeout=60)
        expected = json.loads(cli.stdout)
        shown = sheet.summary
        for player, score in expected["scores"].items():
            assert f"{player} {score}" in shown, (shown, expected)
        answers[rules] = expected["scores"]
    await tap(app, sheet.ids.finish)
    assert app.svc.session.result["scores"] == answers["advanced"]
    result(**answers)


JOURNEYS = {f.__name__: f for f in (dragons_gold_scoring, negotiation, turn_clock, settings_pin, language, undo_redo,
                                     long_press_reset, run_and_wait, resume)}


def main() -> int:
    journey = JOURNEYS[sys.argv[1]]
    app = build(None, size=SIZE, gpio="mock", app_class=DrivenApp)
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


if __name__ == "__main__":
    sys.exit(main())
