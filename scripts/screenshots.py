"""Render every screen of the touch app, in each language and size, into docs/screenshots/.

Run under a display (``xvfb-run -a .venv/bin/python scripts/screenshots.py``). The app runs
for real on a scratch database with a sample table: four players, a negotiation timer
running, a turn clock. Files are named SCREEN_LANG_WxH.png. Every label that overflows
its widget is listed on stderr, and the exit code is 1 if there is any.

Options: --out DIR, --sizes 800x480,1280x720,720x1280, --langs en,hu,ru, --screens home,timer,...
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SIZES = ("800x480", "1280x720", "720x1280")
LANGS = ("en", "hu", "ru")
SCREENS = ("home", "timer", "turns", "settings", "history", "game:dragons-gold", "game:dragons-gold#score",
           "game:volatio", "game:gold", "game:gold#scoring", "game:drakon")
"""A screen, or a screen's inner page after '#': its own page switch is called before the shot."""
STATES: dict[str, str] = {
    "home-keyboard": "home",
    "timer-paused": "timer",
    "timer-big": "timer",
    "alarm": "timer",
    "sharing-countdown": "game:dragons-gold",
    "numpad": "game:dragons-gold#score",
    "volatio-banner": "game:volatio",
    "history-export": "history",
}
"""A state a player meets on a screen (a popup open, a timer paused): its screen, which is shown
first; :func:`enter_state` brings the state about and :func:`leave_state` ends it after the shot."""
DEFAULT_SCREENS = SCREENS + tuple(STATES)


SAMPLE_START_S = 1000.0
"""The app's clock when the sample table is laid out: a fixed time, so what blinks with the clock
(a paused timer's digits) is in the same phase in every run."""
SAMPLE_ELAPSED_S = 12.0
"""How long the sample table's negotiation and turn clock have run in every shot: the app runs on
a clock that stands still, so the same table gives the same pictures."""
STILL_FRAMES = 3
"""A shot is taken once every widget has kept its place and size this many frames running and no
animation is playing."""
MOST_FRAMES = 600
"""A screen not still after this many frames is shot anyway and reported."""


def layout_signature(window: Any) -> tuple[tuple[Any, ...], ...]:
    """Every widget on *window*: its class, place, size and opacity."""
    return tuple((type(w).__name__, round(w.x), round(w.y), round(w.width), round(w.height),
                  round(getattr(w, "opacity", 1.0), 2))
                 for top in window.children for w in top.walk())


def enter_state(app: Any, shown: Any, state: str) -> None:
    """Bring *state* about on *shown*, the screen it belongs to."""
    if state == "home-keyboard":
        shown.open_keyboard()
    elif state == "timer-paused":
        shown.show_state("paused")
    elif state == "timer-big":
        shown.open_big()
    elif state == "alarm":
        app.show_alarm_for_screenshot()
    elif state == "sharing-countdown":
        shown.open_sharing_for_screenshot()
    elif state == "numpad":
        from companion.ui.widgets import Stepper

        next(w for w in shown.walk() if isinstance(w, Stepper) and not w.disabled).open_pad()
    elif state == "volatio-banner":
        shown.show_banner_for_screenshot()
    elif state == "history-export":
        shown.open_export_for_screenshot()


def leave_state(app: Any, shown: Any, state: str) -> None:
    """Undo what :func:`enter_state` did, so the next shot starts from the sample table."""
    from kivy.core.window import Window
    from kivy.uix.modalview import ModalView

    for child in list(Window.children):
        if isinstance(child, ModalView):
            child.dismiss(animation=False)
    if state == "timer-paused":
        shown.show_state("running")
    elif state == "alarm":
        app.stop_alarm()
    elif state == "volatio-banner":
        shown.hide_banner()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--sizes", default=",".join(SIZES))
    parser.add_argument("--langs", default=",".join(LANGS))
    parser.add_argument("--screens", default=",".join(DEFAULT_SCREENS))
    parser.add_argument("--report", type=Path, help="write the overflow report here as JSON")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="companion-shots-"))
    os.environ["XDG_DATA_HOME"] = str(scratch / "data")
    os.environ["XDG_CONFIG_HOME"] = str(scratch / "config")
    sys.path.insert(0, str(ROOT))

    from companion.ui.launch import build

    first = args.sizes.split(",")[0]
    app = build(None, size=first, gpio="mock", lang="en")
    args.out.mkdir(parents=True, exist_ok=True)
    overflows: list[dict[str, str]] = []
    layout_faults: list[dict[str, str]] = []

    from kivy.animation import Animation
    from kivy.clock import Clock
    from kivy.core.window import Window

    from companion.session import Player, TableSession
    from companion.ui.lang import TR
    from companion.ui.widgets import FitLabel
    from tests.ui.kit import JourneyClock
    from tests.ui.layout import faults

    clock = JourneyClock(start=SAMPLE_START_S)
    app.svc.clock = clock

    sessions: dict[str, TableSession] = {}
    plan = [(size, lang, screen) for size in args.sizes.split(",") for lang in args.langs.split(",")
            for screen in args.screens.split(",")]

    def setup(_dt: float) -> None:
        players = [Player("Anna", "red"), Player("Bence", "blue"), Player("Csilla", "green"),
                   Player("Дмитрий", "yellow")]
        from companion.games import dragons_gold

        for silver in (2, 5):  # two finished games, for the history chart
            past = app.svc.start_session("dragons-gold", players)
            for i, p in enumerate(players):
                past.set_score(p.name, "silver", silver + 2 * i)
                past.set_score(p.name, "gold", (silver + i) % 4)
            past.finish_game(dragons_gold.score_document(past.score_document()))
        session = app.svc.start_session("dragons-gold", players)
        session.add_timer("negotiation", 60)
        session.toggle("negotiation")
        session.setup_turns([p.name for p in players], 300)
        session.pass_turn()
        session.set_score_rules("advanced")
        sample = [{"silver": 6, "gold": 2, "red": 3, "black": 1, "blue": 3, "green": 2, "yellow": 1,
                   "white": 1},
                  {"silver": 4, "gold": 3, "red": 1, "blue": 3, "green": 1, "purple": 2, "white": 2},
                  {"silver": 8, "gold": 1, "red": 2, "blue": 1, "green": 2, "purple": 2, "yellow": 3},
                  {"silver": 2, "gold": 4, "purple": 1, "yellow": 2}]
        for player, counts in zip(players, sample, strict=True):
            for field, value in counts.items():
                session.set_score(player.name, field, value)
        for slot, (strength, known, hidden) in enumerate([(9, 3, 2), (7, 2, 2), (12, 4, 3), (5, 1, 1)]):
            session.record_play("dg.reveal",
                                {"slot": slot, "strength": strength, "known": known, "hidden": hidden})
        for player, role, strength in (("Anna", "wizard", 2), ("Bence", "thief", 1), ("Csilla", "knight", 4)):
            session.record_play("dg.place", {"slot": 0, "player": player, "role": role, "strength": strength})
        sessions["dragons-gold"] = session
        # Each game's own screen is shot during a session of that game.
        store, bus = app.svc.store, app.svc.bus
        gold = TableSession.start(store, "gold", players[:3], clock, bus)
        for name, scored, display in (
                ("Anna", ["purple:8", "purple:7", "purple:6"], ["red:8", "red:donkey", "blue:5"]),
                ("Bence", ["pink:8", "pink:3", "pink:3"], ["red:6", "blue:7", "orange:6"]),
                ("Csilla", [], ["blue:4", "orange:3", "green:5", "green:donkey"])):
            gold.set_score(name, "scored", scored)
            gold.set_score(name, "display", display)
        sessions["gold"] = gold
        drakon = TableSession.start(store, "drakon", players, clock, bus)
        for name, count in (("Anna", 3), ("Bence", 5), ("Csilla", 1), ("Дмитрий", 4)):
            drakon.record_play("drakon.count", {"player": name, "count": count})
        sessions["drakon"] = drakon
        sessions["volatio"] = TableSession.start(store, "volatio", players, clock, bus)
        clock.advance(SAMPLE_ELAPSED_S)
        app.svc.session = session
        app.refresh()
        Clock.schedule_once(lambda _dt: step(0), 0.5)

    def step(i: int) -> None:
        if i >= len(plan):
            app.stop()
            return
        size, lang, screen = plan[i]
        w, h = (int(v) for v in size.split("x"))
        if tuple(Window.size) != (w, h):
            Window.size = (w, h)
        if TR.lang != lang:  # as Home's language buttons do: kept in the (scratch) config too
            app.manager.get_screen("home").set_language(lang)
            app.refresh()  # Settings shows the language saved
        name, _, page = STATES.get(screen, screen).partition("#")
        game = name.split(":", 1)[1] if name.startswith("game:") else "dragons-gold"
        if app.svc.session is not sessions[game]:
            app.svc.session = sessions[game]
            app.refresh()
        app.manager.current = name
        shown = app.manager.get_screen(name)
        if page == "score":
            shown.show_page("score")
        elif page == "scoring":
            shown.open_scoring()
        elif hasattr(shown, "show_page") and name == "game:dragons-gold":
            shown.show_page("play")
        elif name == "game:gold":
            shown.open_sheet()
        if screen in STATES:
            enter_state(app, shown, screen)
        when_still(lambda: shoot(i), plan[i])

    def when_still(then: Any, where: tuple[str, str, str]) -> None:
        """Call *then* once the window has been still for :data:`STILL_FRAMES` frames (the layouts
        follow a new size, a language or a screen over a few frames; a popup opens with an
        animation)."""
        seen: dict[str, Any] = {"last": None, "still": 0, "frames": 0}

        def check(_dt: float) -> None:
            now = layout_signature(Window)
            moving = bool(Animation._instances) or app.manager.transition.is_active
            seen["still"] = 0 if moving or now != seen["last"] else seen["still"] + 1
            seen["last"], seen["frames"] = now, seen["frames"] + 1
            if seen["still"] >= STILL_FRAMES:
                then()
            elif seen["frames"] >= MOST_FRAMES:
                size, lang, screen = where
                layout_faults.append({"screen": screen, "lang": lang, "size": size,
                                      "fault": f"still moving after {MOST_FRAMES} frames"})
                then()
            else:
                Clock.schedule_once(check, 0)

        Clock.schedule_once(check, 0)

    def shoot(i: int) -> None:
        size, lang, screen = plan[i]
        name = screen.replace(":", "-").replace("#", "-")
        target = args.out / f"{name}_{lang}_{size}.png"
        if screen in STATES:  # a popup is drawn over the root: take what the window shows
            target.unlink(missing_ok=True)
            taken = Window.screenshot(name=str(args.out / "window.png"))
            Path(taken).replace(target)
        else:
            app.root_widget.export_to_png(str(target))
        drawn = [w for top in Window.children for w in top.walk()]
        for widget in drawn:
            if isinstance(widget, FitLabel) and widget.opacity > 0 and widget.get_root_window() is not None \
                    and widget.text and widget.overflows:
                overflows.append({"screen": screen, "lang": lang, "size": size, "text": widget.text,
                                  "widget": f"{int(widget.width)}x{int(widget.height)}",
                                  "texture": f"{int(widget.texture_size[0])}x{int(widget.texture_size[1])}",
                                  "word": f"{widget.widest_word(widget.font_size):.0f}"})
        for fault in faults(Window):
            layout_faults.append({"screen": screen, "lang": lang, "size": size, "fault": fault})
        if screen in STATES:
            leave_state(app, app.manager.get_screen(STATES[screen].partition("#")[0]), screen)
        step(i + 1)

    Clock.schedule_once(setup, 0.5)
    app.run()
    for o in overflows:
        print(f"overflow: {o['screen']} {o['lang']} {o['size']}: {o['text']!r} needs {o['texture']} (its "
              f"widest word {o['word']} px wide) in {o['widget']}", file=sys.stderr)
    for f in layout_faults:
        print(f"layout: {f['screen']} {f['lang']} {f['size']}: {f['fault']}", file=sys.stderr)
    if args.report:
        found = {"overflows": overflows, "faults": layout_faults}
        args.report.write_text(json.dumps(found, ensure_ascii=False, indent=1))
    print(f"{len(plan)} screenshots in {args.out}, {len(overflows)} overflowing labels, "
          f"{len(layout_faults)} layout faults", file=sys.stderr)
    return 1 if overflows or layout_faults else 0


if __name__ == "__main__":
    sys.exit(main())
