"""Journeys through the app's shell: the sand-timer, the turn clock, settings, languages,
undo/redo, and the kill-and-resume pair."""

from __future__ import annotations

from typing import Any

from pytest import approx

from tests.ui.kit import find, hold, pass_time, pin_states, result, run_until, screen, start_game, tap, until


async def negotiation(app: Any) -> None:
    """Start a negotiation timer, pause, flip, add time, let it expire: buzzer and LED bar."""
    await tap(app, find(app, "TouchButton", "Start"))
    timer = screen(app, "timer")
    assert app.manager.current == "timer"
    await tap(app, timer.ids.preset_negotiation)
    session = app.svc.session
    assert session.board["negotiation"].is_running
    assert pin_states(app, 5)[-1] == 1  # the LED bar is full
    await pass_time(app, 0.6)
    await tap(app, timer.ids.toggle)  # pause
    assert timer.phase == "paused"
    left = session.board["negotiation"].remaining_s(session.now())
    assert left == approx(6.0 - 0.6, abs=1e-6)  # exactly the 0.6 s the journey let pass
    await tap(app, timer.ids.flip)
    flipped = session.board["negotiation"].remaining_s(session.now())
    assert flipped == approx(6.0 - left, abs=1e-6), (left, flipped)
    await tap(app, timer.ids.plus)
    assert session.board["negotiation"].remaining_s(session.now()) == approx(flipped + 10, abs=1e-6)
    await tap(app, timer.ids.minus)
    await tap(app, timer.ids.toggle)  # resume
    assert timer.phase == "running"
    before = len(pin_states(app, 18))
    assert await run_until(app, lambda: timer.phase == "expired", within_s=12) >= flipped
    # The alarm's pattern plays on gpiozero's own thread, on the real clock: wait for it.
    await until(app, lambda: 1.0 in pin_states(app, 18)[before:], what="the buzzer")
    buzzer = pin_states(app, 18)
    assert all(pin_states(app, p)[-1] == 0 for p in (5, 6, 13, 19, 26, 16, 20, 21))  # the bar drained
    assert app.alarm == "negotiation"  # the screen flashes, until a tap
    assert timer.digits == "0:00"
    result(expired=True, buzzer_edges=buzzer.count(1.0))


async def turn_clock(app: Any) -> None:
    """Four players, the turn clock, three taps; before it, the panels it will have."""
    names = ["Anna", "Bence", "Csilla", "Dávid"]
    await start_game(app, "Dragon's Gold", names)
    await tap(app, find(app, "TouchButton", "Turns"))
    turns = screen(app, "turns")
    # No clock yet: the panels Start makes, at the row's budget (and its changes), Anna first;
    # a tap on another's says whose it is, and nothing is logged
    session = app.svc.session
    assert session.turn_clock is None and list(turns.panels) == names
    assert [(p.current, p.time_text) for p in turns.panels.values()] == [(True, "5:00")] + [(False, "5:00")] * 3
    await tap(app, next(w for w in turns.ids.budget.walk() if getattr(w, "text", None) == "+"))
    assert [p.time_text for p in turns.panels.values()] == ["6:00"] * 4
    await tap(app, turns.panels["Csilla"])
    assert turns.panels["Csilla"].hint == "It is Anna's turn" and session.turn_clock is None
    await tap(app, next(w for w in turns.ids.budget.walk() if getattr(w, "text", None) == "−"))
    await tap(app, turns.ids.setup)
    assert list(turns.panels) == names
    await tap(app, turns.ids.next)  # starts the clock: Anna
    await pass_time(app, 0.5)
    await tap(app, turns.ids.next)  # Bence
    await pass_time(app, 2.0)
    await tap(app, turns.ids.next)  # Csilla
    tc = app.svc.session.turn_clock
    assert tc.player == "Csilla"
    now = app.svc.session.now()
    left = {name: tc.remaining_s(name, now) for name in ("Anna", "Bence", "Csilla")}
    assert left == approx({"Anna": 299.5, "Bence": 298.0, "Csilla": 300.0}, abs=1e-6), left  # her turn just began
    current = [name for name, p in turns.panels.items() if p.current]
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
    await tap(app, find(app, "TouchButton", "Magyar"), duration=0.35)
    assert settings.pending == {"ui.language": "hu"}, settings.pending
    await tap(app, settings.ids.save)
    text = app.svc.config_path.read_text()
    assert settings.message.startswith("Saved") or settings.message.startswith("Elmentve"), settings.message
    assert 'language = "hu"' in text, text
    await app.wait_clock_frames(3)
    assert find(app, "TouchButton", "Beállítások") is not None
    result(config=text)


async def language(app: Any) -> None:
    """Switch the language at run time from the Home screen (and the screen never blanks)."""
    from kivy.core.window import Window

    assert Window.allow_screensaver is False
    await tap(app, find(app, "TouchButton", "Русский"))
    assert find(app, "TouchButton", "Таймер") is not None
    await tap(app, find(app, "TouchButton", "Magyar"))
    assert find(app, "TouchButton", "Időzítő") is not None
    await tap(app, find(app, "TouchButton", "English"))
    assert find(app, "TouchButton", "Timer") is not None
    result(ok=True)


async def undo_redo(app: Any) -> None:
    """+10 s, undo it, redo it; each time the strip says what was taken back or put back, in
    the language in use."""
    from companion.timers import Phase

    await tap(app, find(app, "TouchButton", "Start"))
    timer = screen(app, "timer")
    await tap(app, timer.ids.preset_market)
    await tap(app, timer.ids.toggle)  # pause, so the numbers hold still
    session = app.svc.session
    left = session.board["market"].remaining_s(session.now())
    await tap(app, timer.ids.plus)
    assert session.board["market"].remaining_s(session.now()) == approx(left + 10, abs=1e-6)
    notes = []
    await tap(app, app.nav.ids.undo)
    notes.append(app.strip.note)
    assert session.board["market"].remaining_s(session.now()) == approx(left, abs=1e-6)
    await tap(app, app.nav.ids.redo)
    notes.append(app.strip.note)
    assert session.board["market"].remaining_s(session.now()) == approx(left + 10, abs=1e-6)
    await tap(app, app.nav.ids.undo)
    await tap(app, app.nav.ids.undo)  # the pause
    notes.append(app.strip.note)
    assert session.board["market"].is_running
    app.set_language("ru")
    await tap(app, app.nav.ids.undo)  # the start
    notes.append(app.strip.note)
    assert session.board["market"].phase is Phase.IDLE
    await tap(app, app.nav.ids.redo)
    notes.append(app.strip.note)
    app.set_language("en")
    result(notes=notes, running=session.board["market"].is_running)


async def new_game_after_timers(app: Any) -> None:
    """A new game after one with timers: the Timer screen starts empty (no loop, no crash)."""
    await tap(app, find(app, "TouchButton", "Start"))
    timer = screen(app, "timer")
    await tap(app, timer.ids.preset_market)
    await tap(app, find(app, "TouchButton", "Home"))
    await tap(app, screen(app, "home").ids.start)
    await app.wait_clock_frames(5)
    assert app.manager.current == "timer" and not timer.has_timer and app.svc.session.board.names == []
    result(ok=True)


async def long_press_reset(app: Any) -> None:
    """A long press on the big button resets the timer."""
    await tap(app, find(app, "TouchButton", "Start"))
    timer = screen(app, "timer")
    await tap(app, timer.ids.preset_market)
    await pass_time(app, 0.3)
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
    await app.async_sleep(600)  # killed long before: the test waits for the RESULT line


async def resume(app: Any) -> None:
    """For the kill test: resume from Home and report the timer."""
    home = screen(app, "home")
    assert home.can_resume
    await tap(app, home.ids.resume)
    session = app.svc.session
    timer = session.board["negotiation"]
    result(session=session.id, phase=timer.phase.value, remaining=timer.remaining_s(session.now()),
           t_mono=session.now(), screen=app.manager.current)


async def table_mode(app: Any) -> None:
    """Seats around the table: each player's panel stands by the screen's edge nearest their seat
    (the host's at the bottom, then left, top, right) and faces it, whole and readable, on the
    turn clock, the Drakon cards and the Volatio panels."""
    from kivy.core.window import Window

    from companion.ui.theme import THEME
    from tests.ui.layout import faults

    home = screen(app, "home")
    for name in ("Anna", "Bence", "Csilla", "Dávid"):
        home.ids.name_input.text = name
        await tap(app, home.ids.add_player)
    await tap(app, home.ids.seats)
    assert home.seats == "around"
    await tap(app, home.ids.start)
    await tap(app, find(app, "TouchButton", "Turns"))
    turns = screen(app, "turns")
    await tap(app, turns.ids.setup)
    await app.wait_clock_frames(3)
    [table] = turns.ids.panels.children
    angles = [round(f._scatter.rotation) % 360 for f in table.frames]
    assert angles == [0, 270, 180, 90], angles
    sideways = table.frames[1]
    assert round(sideways.content.width) == round(sideways.height)  # turned: width and height swap
    _by_seats(table.frames, _box(turns.ids.panels))
    assert faults(Window, skip=app.strip) == [], faults(Window, skip=app.strip)
    await tap(app, turns.ids.next)
    assert turns.panels["Anna"].current
    # The same seats place and turn the Drakon cards and the Volatio panels.
    for game_key, title in (("drakon", "Drakon"), ("volatio", "Volatio")):
        await tap(app, find(app, "TouchButton", "Home"))
        await tap(app, find(app, "TouchButton", title))
        await tap(app, home.ids.start)
        await app.wait_clock_frames(3)
        game = screen(app, f"game:{game_key}")
        frames = [w for w in game.walk() if type(w).__name__ == "SeatFrame"]
        assert sorted(round(f.angle) % 360 for f in frames) == [0, 90, 180, 270], game_key
        table = frames[0].parent
        # Drakon's cards fit the view whole; Volatio's bigger panels may scroll a little
        _by_seats(frames, _box(game.ids.scroll if game_key == "drakon" else table))
        assert faults(Window, skip=app.strip) == [], (game_key, faults(Window, skip=app.strip))
    # Six: two share the bottom and the top edge, each panel still whole (the view scrolls)
    await tap(app, find(app, "TouchButton", "Home"))
    for name in ("Emese", "Feri"):
        home.ids.name_input.text = name
        await tap(app, home.ids.add_player)
    least = {"volatio": (7.6 * THEME.u, 3.3 * THEME.u), "drakon": (7.0 * THEME.u, 2.35 * THEME.u)}
    for game_key, title in (("volatio", "Volatio"), ("drakon", "Drakon")):
        await tap(app, find(app, "TouchButton", title))
        await tap(app, home.ids.start)
        await app.wait_clock_frames(3)
        game = screen(app, f"game:{game_key}")
        frames = [w for w in game.walk() if type(w).__name__ == "SeatFrame"]
        assert sorted(round(f.angle) % 360 for f in frames) == [0, 0, 90, 180, 180, 270], game_key
        boxes = [_box(f.content) for f in frames]
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                assert min(a[2], b[2]) - max(a[0], b[0]) < 1 or min(a[3], b[3]) - max(a[1], b[1]) < 1, (a, b)
        least_w, least_h = least[game_key]
        across = [f.content for f in frames if round(f.angle) % 180 == 0]  # by the near and far edges
        assert all(round(c.width) >= round(least_w) and round(c.height) >= round(least_h) for c in across), \
            (game_key, [tuple(c.size) for c in across])
        assert faults(Window, skip=app.strip) == [], (game_key, faults(Window, skip=app.strip))
        await tap(app, find(app, "TouchButton", "Home"))
    result(angles=angles)


def _box(widget: Any) -> tuple[float, float, float, float]:
    """*widget*'s box in the window (x0, y0, x1, y1), through any turn of its parents."""
    corners = [widget.to_window(x, y) for x in (widget.x, widget.right) for y in (widget.y, widget.top)]
    xs, ys = [c[0] for c in corners], [c[1] for c in corners]
    return min(xs), min(ys), max(xs), max(ys)


def _by_seats(frames: list[Any], area: tuple[float, float, float, float]) -> None:
    """The panels in *frames* (one for each seat) lie whole inside *area*, none over another,
    each by its seat's edge: the left one left of the host's and the right one right of it, both
    higher, the far one highest; no text in them overflows its box or splits a word."""
    from companion.ui.widgets import FitLabel

    shown = [w for f in frames for w in f.content.walk()
             if isinstance(w, FitLabel) and w.opacity > 0 and w.width > 1 and w.height > 1]
    split = [w.text for w in shown if w.overflows]
    assert split == [], split
    boxes = {round(f.angle) % 360: _box(f.content) for f in frames}
    for angle, box in boxes.items():
        assert (box[0] >= area[0] - 1 and box[1] >= area[1] - 1 and box[2] <= area[2] + 1
                and box[3] <= area[3] + 1), (angle, box, area)
    mid = {angle: ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for angle, b in boxes.items()}
    host, left, far, right = mid[0], mid[270], mid[180], mid[90]
    assert left[0] < host[0] < right[0] and host[1] < min(left[1], right[1]) < far[1], boxes
    for a, b in ((a, b) for a in boxes for b in boxes if a < b):
        x0, y0 = max(boxes[a][0], boxes[b][0]), max(boxes[a][1], boxes[b][1])
        x1, y1 = min(boxes[a][2], boxes[b][2]), min(boxes[a][3], boxes[b][3])
        assert x1 - x0 < 1 or y1 - y0 < 1, (a, b, boxes)  # no panel over another


JOURNEYS = {f.__name__: f for f in (table_mode, new_game_after_timers, negotiation, turn_clock, settings_pin, language, undo_redo,
                                     long_press_reset, run_and_wait, resume)}
