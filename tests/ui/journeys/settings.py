"""Journeys through the Settings screen and the turn clock: a new PIN typed twice, PIN pads that
hold still under a message, the rows (volume, warnings, the turn clock's defaults) changed by
taps and saved, the Advanced rows, and the turn clock's panels as its buttons.

Taps only: rows further down the list are reached with the list's own "More" cue, never by
setting the scroll position.
"""

from __future__ import annotations

import tomllib
from typing import Any

from tests.ui.kit import find, result, screen, start_game, tap

LIST_TAP_S = 0.35
"""A touch on a row of the scrolling list is held this long: Kivy's ScrollView hands a touch
to the button under it once it has decided that it is not a scroll."""


def layout_faults(app: Any) -> list[str]:
    """The layout checker's faults on what is drawn now, the status strip (not ours) left out."""
    from kivy.core.window import Window

    from tests.ui.layout import faults

    return faults(Window, skip=app.strip)


def config_file(app: Any) -> dict[str, Any]:
    """The config file as it is on disk now."""
    return tomllib.loads(app.svc.config_path.read_text())


async def pin(app: Any, code: str) -> None:
    """Type *code* on the PIN pad on screen, then OK."""
    for digit in code:
        await tap(app, find(app, "TouchButton", digit))
    await tap(app, find(app, "TouchButton", "OK"))


def is_in_view(settings: Any, widget: Any) -> bool:
    """The whole of *widget* lies inside the settings list's visible part."""
    view = settings.ids.scroller
    _x0, bottom = view.to_window(view.x, view.y)
    _x1, top = view.to_window(view.right, view.top)
    _wx, wy0 = widget.to_window(widget.x, widget.y)
    _wx, wy1 = widget.to_window(widget.right, widget.top)
    return bool(wy0 >= bottom - 1 and wy1 <= top + 1)


async def reveal(app: Any, settings: Any, widget: Any) -> None:
    """Tap the list's "More" cue until *widget* is in view (from the top, if need be)."""
    for _ in range(12):
        if is_in_view(settings, widget):
            return
        assert settings.scrolls, "the list does not scroll, yet the row is out of view"
        await tap(app, settings.ids.more)
        await app.wait_clock_frames(3)
    raise AssertionError("the More cue never brought the row into view")


def stepper(app: Any, key: str) -> Any:
    return find(app, "SettingStepper", setting_key=key)


async def bump(app: Any, settings: Any, key: str, sign: str, times: int = 1) -> None:
    """Tap a row's − or + *times* times."""
    row = stepper(app, key)
    button = next(w for w in row.children if getattr(w, "text", "") == sign)
    await reveal(app, settings, button)
    for _ in range(times):
        await tap(app, button, duration=LIST_TAP_S)


async def open_settings(app: Any) -> Any:
    await tap(app, find(app, "TouchButton", "Settings"))
    settings = screen(app, "settings")
    assert settings.ids.pages.current == "settings"
    return settings


async def pin_twice(app: Any) -> None:
    """No PIN yet: "Set a PIN"; typed twice alike it saves only its hash, typed unlike it is
    refused and starts over; with one set, the button and the page say "Change the PIN"."""
    from kiosk.pin import verify_pin

    settings = await open_settings(app)
    assert settings.ids.change_pin.text == "Set a PIN"
    await tap(app, settings.ids.change_pin)
    assert settings.ids.pages.current == "new_pin"
    assert settings.ids.pin_title.text == "Set a PIN"
    assert settings.ids.pin_step.text.startswith("Step 1 of 2")
    assert layout_faults(app) == [], layout_faults(app)
    await pin(app, "12")  # too short: refused at once
    assert settings.message == "A PIN has 4 to 8 digits" and settings.pin_step == "new"
    await pin(app, "1234")
    assert settings.pin_step == "again" and settings.ids.pin_step.text.startswith("Step 2 of 2")
    assert settings.ids.newpin.code == ""
    await pin(app, "4321")  # not the same: refused, back to the first step
    assert settings.message == "The two PINs differ: type the new PIN again", settings.message
    assert settings.pin_step == "new" and settings.ids.pages.current == "new_pin"
    assert "admin_pin_hash" not in config_file(app).get("ui", {})
    mismatch = settings.message
    await pin(app, "1357")
    await pin(app, "1357")
    assert settings.ids.pages.current == "settings", settings.message
    assert settings.message == "The new PIN is saved", settings.message
    text = app.svc.config_path.read_text()
    stored = config_file(app)["ui"]["admin_pin_hash"]
    assert "1357" not in text and verify_pin("1357", stored)
    assert settings.ids.change_pin.text == "Change the PIN"
    await tap(app, settings.ids.change_pin)
    assert settings.ids.pin_title.text == "Change the PIN"
    await tap(app, settings.ids.cancel_pin)  # changed one's mind: the PIN stays
    assert settings.ids.pages.current == "settings"
    assert config_file(app)["ui"]["admin_pin_hash"] == stored
    result(mismatch=mismatch, saved=True, title=settings.ids.change_pin.text)


async def rows_saved(app: Any) -> None:
    """Volume, the two warnings, the turn clock's budget and increment, changed with − and +
    and saved: the file says so, and the turn clock's next clock gets the new budget."""
    settings = await open_settings(app)
    assert settings.scrolls and settings.more_below  # 800x480: the list goes on below, and says so
    assert settings.ids.more.opacity == 1 and settings.ids.more.text == "▼ More"
    assert settings.ids.save.disabled  # nothing to save yet
    assert layout_faults(app) == [], layout_faults(app)
    await bump(app, settings, "ui.volume", "−", 2)  # 80 -> 60 %
    assert not settings.ids.save.disabled and settings.ids.save.primary
    await bump(app, settings, "timer.warnings_s[0]", "+")  # 10 -> 15 s
    await bump(app, settings, "timer.warnings_s[1]", "−")  # 3 -> 2 s
    await bump(app, settings, "turn_clock.budget_s", "+", 2)  # 5 -> 7 min
    await bump(app, settings, "turn_clock.increment_s", "+")  # 0 -> 5 s
    assert settings.pending == {"ui.volume": 60, "timer.warnings_s": [15, 2], "turn_clock.budget_s": 420,
                                "turn_clock.increment_s": 5}, settings.pending
    # Left unsaved and come back to: the changes wait, and the screen says so.
    await tap(app, find(app, "TouchButton", "Home"))
    await tap(app, find(app, "TouchButton", "Settings"))
    assert settings.message == "Not saved yet: tap Save" and not settings.ids.save.disabled, settings.message
    await tap(app, settings.ids.save)
    assert settings.message == "Saved", settings.message
    saved = config_file(app)
    assert saved["ui"]["volume"] == 60 and saved["timer"]["warnings_s"] == [15, 2]
    assert saved["turn_clock"] == {"budget_s": 420, "increment_s": 5}, saved
    assert app.svc.config["ui.volume"] == 60
    assert settings.ids.save.disabled
    # The second warning set to off leaves one warning in the file.
    await bump(app, settings, "timer.warnings_s[1]", "−", 2)  # 2 -> 0: off
    assert stepper(app, "timer.warnings_s[1]").ids.count.text == "off"
    await tap(app, settings.ids.save)
    assert config_file(app)["timer"]["warnings_s"] == [15]
    # Taken into use: the Turns screen's next clock has the saved budget and increment.
    await tap(app, find(app, "TouchButton", "Turns"))
    turns = screen(app, "turns")
    assert turns.ids.budget.value == 7
    await tap(app, turns.ids.next)  # no clock yet: one tap makes it and starts it
    tc = app.svc.session.turn_clock
    assert tc is not None and tc.is_running and tc.budget_s == 420 and tc.increment_s == 5
    assert app.svc.session.board.warnings_s == (15,)
    # The end of the list: the cue turns round and takes the list back to the top.
    await tap(app, find(app, "TouchButton", "Settings"))
    for _ in range(12):
        if not settings.more_below:
            break
        await tap(app, settings.ids.more)
    assert settings.ids.more.text == "▲ Top"
    await tap(app, settings.ids.more)
    assert settings.ids.scroller.scroll_y == 1.0 and settings.more_below
    result(volume=saved["ui"]["volume"], warnings=config_file(app)["timer"]["warnings_s"],
           turn_clock=saved["turn_clock"])


async def advanced_pins(app: Any) -> None:
    """The GPIO rows wait, closed, under the Advanced heading at the end; a tap opens them
    (right under it), a pin changed there is saved with a note that it needs a restart."""
    settings = await open_settings(app)
    heading = find(app, "SettingHeadingButton")
    assert heading.text == "▼ Advanced: GPIO pins"
    rows = list(reversed(settings.ids.rows.children))
    assert rows[-1] is heading  # the last row
    keys = {getattr(w, "setting_key", None) for w in settings.ids.rows.walk()}
    assert not keys & {"gpio.buzzer_pin", "gpio.status_led_pin", "gpio.button_pin"}, keys
    await reveal(app, settings, heading)
    await tap(app, heading, duration=LIST_TAP_S)
    await app.wait_clock_frames(3)
    heading = find(app, "SettingHeadingButton")
    assert heading.text == "▲ Advanced: GPIO pins"
    rows = list(reversed(settings.ids.rows.children))
    below = rows[rows.index(heading) + 1:]
    titles = [getattr(r, "title", "") for r in below]
    assert titles == ["GPIO", "Buzzer", "Buzzer pin", "Status LED pin", "Button pin"], titles
    assert is_in_view(settings, heading)  # opened, the list shows what opened
    assert layout_faults(app) == [], layout_faults(app)
    await bump(app, settings, "gpio.buzzer_pin", "+")  # 18 -> 19: one of the LED bar's pins
    assert settings.pending == {"gpio.buzzer_pin": 19}, settings.pending
    await tap(app, settings.ids.save)
    assert "gpio" not in config_file(app) and "19" in settings.message, settings.message  # refused, said why
    refused = settings.message
    await bump(app, settings, "gpio.buzzer_pin", "+", 3)  # 22: free
    await tap(app, settings.ids.save)
    assert config_file(app)["gpio"]["buzzer_pin"] == 22
    assert settings.message == "Saved. Pin and GPIO changes take effect after a restart.", settings.message
    await reveal(app, settings, find(app, "SettingHeadingButton"))
    await tap(app, find(app, "SettingHeadingButton"), duration=LIST_TAP_S)
    keys = {getattr(w, "setting_key", None) for w in settings.ids.rows.walk()}
    assert "gpio.buzzer_pin" not in keys
    result(titles=titles, buzzer_pin=22, refused=refused)


def drawn_fill(panel: Any) -> list[float]:
    """The colour the panel's background is drawn in (its canvas's first Color)."""
    from kivy.graphics import Color

    return [round(c, 3) for c in next(i for i in panel.canvas.before.children if isinstance(i, Color)).rgba]


async def turn_panels(app: Any) -> None:
    """Each player's panel is their button: the one on the clock passes by tapping it, a tap
    on another's only says whose turn it is; the panel on the clock is in its player's colour."""
    from companion.ui.theme import PLAYER_RGB, rgb

    await start_game(app, "Dragon's Gold", ("Anna", "Bence", "Csilla", "Dávid"))
    colours = {p.name: p.colour for p in app.svc.session.players}
    await tap(app, find(app, "TouchButton", "Turns"))
    turns = screen(app, "turns")
    await tap(app, turns.ids.setup)
    panels = turns.panels
    tc = app.svc.session.turn_clock
    assert not tc.is_started and panels["Anna"].current
    await tap(app, panels["Bence"])  # out of turn: nothing starts
    assert not app.svc.session.turn_clock.is_started
    assert panels["Bence"].ids.heading.text == "It is Anna's turn", panels["Bence"].ids.heading.text
    await tap(app, panels["Anna"])  # Anna's own clock starts the game's clock
    tc = app.svc.session.turn_clock
    assert tc.is_running and tc.player == "Anna"
    await tap(app, panels["Anna"])  # and passes to Bence
    assert app.svc.session.turn_clock.player == "Bence"
    await tap(app, panels["Dávid"])  # not Dávid's turn: nothing changes
    assert app.svc.session.turn_clock.player == "Bence"
    assert panels["Dávid"].ids.heading.text == "It is Bence's turn"
    await tap(app, panels["Bence"])
    assert app.svc.session.turn_clock.player == "Csilla"
    current = [name for name, p in panels.items() if p.current]
    assert current == ["Csilla"]
    fills = {name: drawn_fill(p) for name, p in panels.items()}
    want = [round(c, 3) for c in rgb(PLAYER_RGB[colours["Csilla"]])]
    assert fills["Csilla"] == want, (fills, colours)
    assert all(fills[n] != want for n in ("Anna", "Bence", "Dávid"))
    ink = panels["Csilla"].ids.time.color
    assert list(ink[:3]) in ([0.0, 0.0, 0.0], [1.0, 1.0, 1.0])
    assert layout_faults(app) == [], layout_faults(app)
    result(player="Csilla", colour=colours["Csilla"])


async def new_clock_asks(app: Any) -> None:
    """New turn clock before the clock ran: at once; mid-game: a question first, Keep playing
    leaves every time as it was, only Start over resets."""
    await start_game(app, "Dragon's Gold", ("Anna", "Bence", "Csilla"))
    await tap(app, find(app, "TouchButton", "Turns"))
    turns = screen(app, "turns")
    await tap(app, turns.ids.next)  # one tap: a clock, started
    session = app.svc.session
    assert session.turn_clock.is_running
    await tap(app, turns.panels["Anna"])
    await tap(app, turns.panels["Bence"])
    before = session.turn_clock
    assert before.player == "Csilla"
    await tap(app, turns.ids.setup)
    assert turns.confirming and turns.ids.keep_playing.get_root_window() is not None
    assert turns.ids.setup.get_root_window() is None  # the question stands in the budget row's place
    assert session.turn_clock == before  # nothing reset yet
    assert turns.ids.start_over_question.text == "Start over at 5 min each?"
    assert layout_faults(app) == [], layout_faults(app)
    await tap(app, turns.ids.keep_playing)
    assert not turns.confirming and session.turn_clock == before
    assert turns.ids.keep_playing.get_root_window() is None and turns.ids.setup.get_root_window() is not None
    await tap(app, turns.ids.setup)
    await tap(app, turns.ids.start_over)
    after = session.turn_clock
    assert after is not before and not after.is_started and after.player == "Anna"
    assert all(after.remaining_s(p, session.now()) == 300 for p in after.players)
    await tap(app, turns.ids.setup)  # a clock that never ran: new at once, no question
    assert not turns.confirming and session.turn_clock is not after
    result(asked=True, reset=True)


def key_rects(pad: Any) -> list[tuple[float, float, float, float]]:
    """Every key of PIN pad *pad*: its place in the window and its size (px)."""
    return [(*w.to_window(w.x, w.y), w.width, w.height) for w in pad.walk(restrict=True)
            if type(w).__name__ == "TouchButton"]


def moved_px(before: list[tuple[float, float, float, float]], now: list[tuple[float, float, float, float]]) -> float:
    """How far the furthest-moved key edge went between *before* and *now* (px)."""
    assert len(before) == len(now) == 12, (len(before), len(now))
    return max(abs(a - b) for old, new in zip(before, now, strict=True) for a, b in zip(old, new, strict=True))


async def pin_pads_hold_still(app: Any) -> None:
    """Kiosk mode: the admin PIN's pad, then the new PIN's: a message appearing over a pad
    ("Wrong PIN", "A PIN has 4 to 8 digits", "The two PINs differ…") or going moves none of its
    keys, and nothing overlaps. The result is how far the keys moved at each step (px)."""
    from companion.ui.lang import TR

    await tap(app, find(app, "TouchButton", "Settings"))
    settings = screen(app, "settings")
    assert settings.ids.pages.current == "locked"
    pad = settings.ids.pinpad
    await app.wait_clock_frames(3)
    before = key_rects(pad)
    moves: dict[str, float] = {}
    await pin(app, "1111")
    assert settings.message == TR._("Wrong PIN"), settings.message
    await app.wait_clock_frames(3)
    moves["wrong"] = moved_px(before, key_rects(pad))
    assert layout_faults(app) == [], layout_faults(app)
    await pin(app, "2468")
    assert settings.ids.pages.current == "settings"
    await tap(app, settings.ids.change_pin)
    assert settings.ids.pages.current == "new_pin" and settings.message == ""
    pad = settings.ids.newpin
    await app.wait_clock_frames(3)
    before = key_rects(pad)
    for step, code, said in (("short", "12", TR._("A PIN has 4 to 8 digits")), ("first", "1234", ""),
                             ("differ", "4321", TR._("The two PINs differ: type the new PIN again"))):
        await pin(app, code)
        assert settings.message == said, (step, settings.message)
        await app.wait_clock_frames(3)
        moves[step] = moved_px(before, key_rects(pad))
        assert layout_faults(app) == [], (step, layout_faults(app))
    result(moved_px=moves)


JOURNEYS = {f.__name__: f for f in (pin_twice, rows_saved, advanced_pins, turn_panels, new_clock_asks,
                                    pin_pads_hold_still)}
