"""Volatio on the touch screen: a round with an illegal speed change refused, a crash penalty and a
fatigue applied, undo of the crash, and the finish; every number checked against the rules core."""

from __future__ import annotations

from typing import Any

from companion.games import volatio as v
from companion.games.volatio import Dragon
from companion.games.volatio import play as vt
from companion.ui.lang import TR
from companion.ui.theme import THEME
from tests.ui.kit import find, result, run_until, screen, settle, start_game, tap, until

MAGES = (("Anna", "red"), ("Bence", "blue"), ("Csilla", "green"))


async def press(app: Any, panel: Any, button: str, times: int = 1) -> None:
    for _ in range(times):
        await tap(app, panel.ids[button], duration=0.02)


def banner_lines(race_screen: Any) -> list[str]:
    banner = race_screen.ids.banner
    assert banner.shown
    return [w.text.removeprefix("• ") for w in reversed(banner.ids.lines.children)]


def dragon(app: Any, name: str) -> Dragon:
    race: vt.Race = screen(app, "game:volatio").race
    return race.dragons[name]


async def volatio_round(app: Any) -> None:
    home = screen(app, "home")
    for name, colour in MAGES:
        home.ids.name_input.text = name
        home.colour = colour
        await tap(app, home.ids.add_player)
    await tap(app, find(app, "TouchButton", "Volatio"))
    await tap(app, home.ids.start)
    assert app.manager.current == "game:volatio"
    race_screen = screen(app, "game:volatio")
    session = app.svc.session
    anna, bence, csilla = (race_screen.panels[n] for n, _ in MAGES)

    # The start (§4.1): Anna's Avolatio card has 3 tokens; everyone flies at the card's 500 DP.
    assert race_screen.round_text == "Start flight"
    await press(app, anna, "energy_plus")
    assert dragon(app, "Anna") == Dragon(energy=3, hand=1, silver=500, coloured=500)
    for panel in (anna, bence, csilla):
        await press(app, panel, "reveal")
    await press(app, anna, "position_plus", 3)
    await press(app, bence, "position_plus", 2)
    await press(app, csilla, "position_plus", 1)
    await tap(app, race_screen.ids.next_round)
    assert race_screen.round_text == "Round 1"
    assert race_screen.order_text == "Order: Anna → Bence → Csilla"
    assert anna.next_up and "Next to fly" in anna.status

    # Anna flies at 600 and her path touches the edge: -2 tokens, both pointers 100 (§5.7).
    await press(app, anna, "dial_plus")
    await press(app, anna, "reveal")
    await tap(app, race_screen.ids.next_round)  # refused: Bence and Csilla have not flown
    assert race_screen.race.round == 1
    await press(app, anna, "path")
    expected, events = v.crash_path(Dragon(energy=3, hand=1, silver=600, coloured=600))
    assert dragon(app, "Anna") == expected and (expected.energy, expected.silver) == (1, 100)
    said = banner_lines(race_screen)  # what to do at the table stays in the banner until tapped away
    assert "Energy −2" in said and "Both pointers 100 DP" in said
    assert anna.energy_text == "Energy 1/4"
    crash_note = f"{race_screen.ids.banner.title}: " + ", ".join(said)
    await tap(app, race_screen.ids.banner.ids.close)

    # Undo takes the crash back (the tokens and the 600 DP return); redo applies it again.
    await tap(app, app.nav.ids.undo)
    assert (dragon(app, "Anna").energy, dragon(app, "Anna").silver) == (3, 600)
    assert anna.energy_text == "Energy 3/4" and app.strip.note == "Undone: Anna's penalty"
    await tap(app, app.nav.ids.redo)
    assert dragon(app, "Anna") == expected and app.strip.note == "Redone: Anna's penalty"

    # Bence tries 500 -> 100: 400 DP is more than the dial may move (§5.3); refused, nothing logged.
    logged = len(session.play_log)
    await press(app, bence, "dial_minus", 4)
    assert bence.dial == 100 and list(bence.dial_colour) == list(THEME.red)
    await press(app, bence, "reveal")
    check = v.speed_check(500, 100)
    assert not check.legal and "Bence: 100 DP is more than 300 DP from last round's 500 DP" in app.strip.note
    assert bence.status == "Not allowed: 100 DP · 200–800 DP"
    assert len(session.play_log) == logged and "Bence" not in race_screen.race.flown
    await press(app, bence, "dial_plus")
    await press(app, bence, "reveal")
    assert dragon(app, "Bence").silver == 200 and bence.status == "Flown"

    # Csilla flies at 500 and her base touches the edge: -1 token.
    await press(app, csilla, "reveal")
    await press(app, csilla, "base")
    assert dragon(app, "Csilla") == v.crash_base(Dragon(energy=2, hand=1, silver=500, coloured=500))[0]
    assert race_screen.can_next
    await tap(app, race_screen.ids.next_round)
    assert race_screen.round_text == "Round 2"

    # Round 2: Anna (1 token, 100 DP) may go up to 400; her path crashes again and she cannot pay
    # the second token: fatigue, 2 tokens, both pointers 300, her card discarded (§5.9, Example 3).
    await press(app, anna, "dial_plus", 4)
    await press(app, anna, "reveal")  # 500 from 100: refused
    assert anna.status.startswith("Not allowed") and "Anna" not in race_screen.race.flown
    await press(app, anna, "dial_minus")
    await press(app, anna, "reveal")
    await press(app, anna, "path")
    fatigued, _ = v.crash_path(Dragon(energy=1, hand=1, silver=400, coloured=400))
    assert dragon(app, "Anna") == fatigued
    assert (fatigued.energy, fatigued.silver, fatigued.coloured, fatigued.hand) == (2, 300, 300, 0)
    assert fatigued.is_fatigued and "Fatigued" in anna.status
    assert any("nearest passed energy field" in line for line in banner_lines(race_screen))
    # Csilla's banner, not yet closed, waits under Anna's: a tap closes Anna's and shows it again
    banner = race_screen.ids.banner
    assert (banner.title, banner.waiting) == ("Anna", 1), (banner.title, banner.waiting)
    assert "Closing this shows the one before it (1 waiting)" in banner_lines(race_screen)
    await tap(app, banner)
    assert banner.shown and (banner.title, banner.waiting) == ("Csilla", 0), (banner.title, banner.waiting)
    assert "Energy −1" in banner_lines(race_screen)
    await tap(app, banner.ids.close)
    assert not banner.shown
    assert race_screen.race.legal_dials("Anna") == (100, 200, 300, 400, 500)

    # Bence and Csilla fly over the line.
    await press(app, bence, "reveal")
    await press(app, bence, "position_plus", 5)
    await press(app, csilla, "reveal")
    await press(app, csilla, "position_plus", 4)
    assert race_screen.order_text == "Order: Anna ✓ → Bence ✓ → Csilla ✓"

    # The finish: Bence 5 cm past the line, Csilla 2 cm; Anna short of it (§5.11).
    await tap(app, race_screen.ids.finish)
    popup = race_screen.finish_popup
    await tap(app, popup.crossed["Bence"])
    plus = [w for w in popup.past["Bence"].walk() if getattr(w, "text", None) == "+"][0]
    for _ in range(5):
        await tap(app, plus, duration=0.02)
    await tap(app, popup.crossed["Csilla"])
    plus = [w for w in popup.past["Csilla"].walk() if getattr(w, "text", None) == "+"][0]
    for _ in range(2):
        await tap(app, plus, duration=0.02)
    await tap(app, popup.ids.confirm)
    positions = {"Anna": v.TrackPosition(3), "Bence": v.TrackPosition(8 + 50), "Csilla": v.TrackPosition(8 + 20)}
    core = v.race_result(positions, 8)
    race = race_screen.race
    assert race.result is not None and race.result.ranking == core.ranking == ("Bence", "Csilla", "Anna")
    assert race.result.winners == core.winners == ("Bence",)
    assert session.result == vt.result_document(race)
    shown = race_screen.results_popup
    assert dict(shown.scores) == {"Bence": 3, "Csilla": 2, "Anna": 1} and list(shown.winners) == ["Bence"]
    result(crash_note=crash_note, anna=[fatigued.energy, fatigued.silver], ranking=list(race.result.ranking),
           winners=list(race.result.winners), past_line_mm=dict(race.result.past_line_mm))


JOURNEYS = {f.__name__: f for f in (volatio_round,)}




async def volatio_camera(app: Any) -> None:
    """Anna flies, the camera (a photo of the table) says her template touches the edge, and one
    tap on its call applies the path crash (§5.7)."""
    home = screen(app, "home")
    for name, colour in MAGES[:2]:
        home.ids.name_input.text = name
        home.colour = colour
        await tap(app, home.ids.add_player)
    await tap(app, find(app, "TouchButton", "Volatio"))
    await tap(app, home.ids.start)
    race_screen = screen(app, "game:volatio")
    anna, bence = (race_screen.panels[n] for n, _ in MAGES[:2])
    assert race_screen.has_camera and race_screen.ids.camera.opacity == 1
    for panel in (anna, bence):
        await press(app, panel, "reveal")
    await tap(app, race_screen.ids.next_round)
    await press(app, anna, "reveal")  # Anna flies at 500
    before = dragon(app, "Anna")
    await tap(app, race_screen.ids.camera)
    await until(app, lambda: race_screen.flight_popup is not None, timeout=20)
    popup = race_screen.flight_popup
    await settle(app)
    picture = popup.ids.picture
    assert popup.picture is not None and picture.opacity == 1
    assert inside(window_box(picture), window_box(popup)) and picture.width > popup.width / 3
    assert window_box(picture)[2] <= window_box(popup.ids.rows)[0] + 1  # beside the list, not over it
    rows = [w.text for row in popup.ids.rows.children for w in getattr(row, "children", []) if hasattr(w, "text")]
    crash = [b for row in popup.ids.rows.children for b in getattr(row, "children", [])
             if getattr(b, "text", "") == "Crash · Path: Anna"]
    assert crash, rows
    await tap(app, crash[0], duration=0.3)
    expected, _events = v.crash_path(before)
    assert popup.applied == [("Anna", "path")], (popup.applied, app.strip.note)
    assert dragon(app, "Anna") == expected, (dragon(app, "Anna"), expected, before)
    assert popup.applied == [("Anna", "path")] and crash[0].disabled
    popup.dismiss()
    result(rows=sorted(r for r in rows if ":" in r and "Crash" not in r), picture=list(popup.picture.size))


JOURNEYS[volatio_camera.__name__] = volatio_camera


# -- the layout at 800x480, the banner, the finish dialog's words ---------------------------------

def window_box(widget: Any) -> tuple[float, float, float, float]:
    x0, y0 = widget.to_window(widget.x, widget.y)
    x1, y1 = widget.to_window(widget.right, widget.top)
    return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)


def inside(inner: tuple[float, ...], outer: tuple[float, ...]) -> bool:
    return inner[0] >= outer[0] - 1 and inner[1] >= outer[1] - 1 and inner[2] <= outer[2] + 1 and \
        inner[3] <= outer[3] + 1


def screen_faults(app: Any) -> list[str]:
    """The layout checker's faults, the status strip (the app shell's, not this screen's) left out."""
    from kivy.core.window import Window

    from tests.ui.layout import faults

    return faults(Window, skip=app.strip)


async def volatio_four_fit(app: Any) -> None:
    """Four dragons at 800x480: every panel whole inside the panels' view and the window, 2×2."""
    from kivy.core.window import Window

    await start_game(app, "Volatio", ("Anna", "Bence", "Csilla", "Dora"))
    race_screen = screen(app, "game:volatio")
    await app.wait_clock_frames(5)
    assert tuple(Window.size) == (800, 480)
    view = window_box(race_screen.ids.scroll)
    boxes = {name: window_box(panel) for name, panel in race_screen.panels.items()}
    for name, box in boxes.items():
        assert inside(box, view) and inside(box, (0, 0, 800, 480)), (name, box, view)
    assert race_screen.ids.panels.cols == 2 and race_screen.cue_w == 0
    assert screen_faults(app) == [], screen_faults(app)
    await press(app, race_screen.panels["Anna"], "reveal")  # after a flight too: the panel's other rows
    assert inside(window_box(race_screen.panels["Anna"].ids.position_plus), view)
    assert screen_faults(app) == [], screen_faults(app)
    result(boxes={n: [round(c) for c in b] for n, b in boxes.items()}, view=[round(c) for c in view])


async def volatio_six_follow(app: Any) -> None:
    """Six dragons: the panels scroll, a cue says so, and each time the turn passes the next
    flyer's panel comes into view by itself (the taps on its Reveal reach it there)."""
    names = ("Anna", "Bence", "Csilla", "Dora", "Endre", "Flora")
    await start_game(app, "Volatio", names)
    race_screen = screen(app, "game:volatio")
    await app.wait_clock_frames(5)
    assert race_screen.cue_w > 0 and race_screen.more_below and not race_screen.more_above
    hidden_at_start = [n for n in names if not race_screen.is_in_view(n)]
    assert hidden_at_start, "six panels should not all fit 800x480"
    # ▲ is off at the top; ▼ brings the last panels into view, ▲ the first again
    up, down = race_screen.ids.cue_up, race_screen.ids.cue_down
    assert up.disabled and not down.disabled
    await tap(app, down)
    await until(app, lambda: race_screen.is_in_view(hidden_at_start[-1]) and not race_screen.more_below)
    assert down.disabled and not up.disabled and not race_screen.is_in_view(names[0])
    await tap(app, up)
    await until(app, lambda: race_screen.is_in_view(names[0]) and not race_screen.more_above)
    followed = []
    for _ in range(2):  # the start flight and round 1: the turn passes six times each
        for _ in names:
            nxt = race_screen.race.next_to_fly()
            await until(app, lambda n=nxt: race_screen.is_in_view(n))
            followed.append(nxt)
            await press(app, race_screen.panels[nxt], "reveal")
            if race_screen.race.round == vt.START_ROUND:
                await press(app, race_screen.panels[nxt], "position_plus", names.index(nxt) % 3 + 1)
        assert race_screen.race.waiting == ()
        if race_screen.race.round == vt.START_ROUND:
            await every_flown_status_whole(app, race_screen)
        await tap(app, race_screen.ids.next_round)
    assert race_screen.more_above or race_screen.more_below
    result(followed=followed, hidden_at_start=hidden_at_start)


async def every_flown_status_whole(app: Any, race_screen: Any) -> None:
    """In every language, with the scroll buttons beside the panels: each flown panel's status
    (beside its position) whole, not cut short, and no layout fault; English again after."""
    from companion.i18n import LANGUAGES
    from companion.ui.widgets import FitLabel

    for lang in [*LANGUAGES, "en"]:
        await tap(app, find(app, "TouchButton", TR._("Home")))
        await tap(app, screen(app, "home").ids[f"lang_{lang}"])
        await tap(app, find(app, "TouchButton", TR._("Game")))
        await app.wait_clock_frames(3)
        assert race_screen.cue_w > 0
        for name, panel in race_screen.panels.items():
            label = panel.ids.status
            assert label.text == TR._("Flown") and not label.shorten, (lang, name, label.size)
            spilt = [w.text for w in panel.walk(restrict=True) if isinstance(w, FitLabel) and w.opacity and w.overflows]
            assert spilt == [], (lang, name, spilt)
        assert screen_faults(app) == [], (lang, screen_faults(app))


async def volatio_fatigue_banner(app: Any) -> None:
    """A path crash Anna cannot pay for fatigues her (§5.9): the banner lists every consequence,
    at 18 px or more, none cut off, and it stays through other moves until a tap closes it."""
    from companion.ui.app import NOTE_S
    from companion.ui.games.volatio_popups import consequences
    from companion.ui.widgets import MIN_FONT_PX

    await start_game(app, "Volatio", ("Anna", "Bence"))
    race_screen = screen(app, "game:volatio")
    anna, bence = race_screen.panels["Anna"], race_screen.panels["Bence"]
    await press(app, anna, "energy_minus", 2)  # her Avolatio card: no tokens
    await press(app, anna, "reveal")
    await press(app, bence, "reveal")
    await tap(app, race_screen.ids.next_round)
    banner = race_screen.ids.banner
    assert not banner.shown
    await press(app, anna, "reveal")
    await press(app, anna, "path")
    lines, at_table = consequences(v.crash_path(Dragon(energy=0, hand=1, silver=500, coloured=500))[1])
    assert at_table and len(lines) >= 5
    assert banner.shown and banner.title == "Anna"
    await app.wait_clock_frames(3)
    shown = [w for w in banner.ids.lines.children]
    texts = [w.text for w in reversed(shown)]
    assert texts == [f"• {t[:1].upper()}{t[1:]}" for t in lines], texts
    assert any("Debilitatus" in t for t in texts) and any("300 DP" in t for t in texts)
    box = window_box(banner)
    for line in shown:
        assert line.font_size >= MIN_FONT_PX, line.font_size
        assert line.texture_size[0] <= line.width + 1 and line.texture_size[1] <= line.height + 1, line.text
        assert inside(window_box(line), box), line.text
    assert inside(box, (0, 0, 800, 480)) and banner.height >= sum(w.height for w in shown)
    assert screen_faults(app) == [], screen_faults(app)
    await press(app, bence, "reveal")  # another move, and the strip's note comes and goes: it stays
    await run_until(app, lambda: app.strip.note == "", within_s=NOTE_S + 1)  # on the app's clock
    assert banner.shown and [w.text for w in reversed(banner.ids.lines.children)] == texts
    await tap(app, banner.ids.lines)  # a tap anywhere on it closes it
    assert not banner.shown and banner.height == 0
    await press(app, anna, "collision")  # a collision has its own: the ✕ closes that one
    assert banner.shown
    await tap(app, banner.ids.close)
    assert not banner.shown
    # A round's banner (as the screen shows one) keeps its round's name once the race moves on,
    # and says it in the language chosen since
    race_screen.show_banner(None, v.crash_path(Dragon(energy=0, hand=1, silver=500, coloured=500))[1])
    assert banner.title == "Round 1"
    await tap(app, race_screen.ids.next_round)
    assert race_screen.race.round == 2 and banner.shown and banner.title == "Round 1", banner.title
    await tap(app, find(app, "TouchButton", "Home"))
    await tap(app, screen(app, "home").ids.lang_hu)
    await tap(app, find(app, "TouchButton", TR._("Game")))
    assert banner.title == f"{TR._('Round')} 1" != "Round 1", banner.title
    result(lines=texts, font=shown[0].font_size)


async def volatio_finish_words(app: Any) -> None:
    """Finish while Dora has yet to fly: the dialog says so in the chosen language (switched by
    taps on Home), refuses, and once she has flown the ranking labels its rank points."""
    from companion.ui.lang import TR

    names = ("Anna", "Bence", "Csilla", "Dora")
    home = await start_game(app, "Volatio", names)
    race_screen = screen(app, "game:volatio")
    for name in names[:3]:
        await press(app, race_screen.panels[name], "reveal")
    said = {}
    for lang in ("en", "hu", "ru"):
        if lang != "en":
            await tap(app, find(app, "TouchButton", TR._("Home")))
            await tap(app, home.ids[f"lang_{lang}"])
            await tap(app, find(app, "TouchButton", TR._("Game")))
            assert app.manager.current == "game:volatio"
        await tap(app, race_screen.ids.finish)
        popup = race_screen.finish_popup
        said[lang] = popup.message
        await tap(app, popup.crossed["Anna"])
        await tap(app, popup.ids.confirm)  # refused: the round is played to its end
        assert popup.get_parent_window() is not None and popup.message == said[lang]
        assert "round:" not in popup.message and "(got" not in popup.message
        await tap(app, popup.ids.cancel)
    assert said["en"] == "Dora has not flown yet"
    await tap(app, find(app, "TouchButton", TR._("Home")))
    await tap(app, home.ids.lang_en)
    await tap(app, find(app, "TouchButton", "Game"))
    await press(app, race_screen.panels["Dora"], "reveal")
    await tap(app, race_screen.ids.finish)
    popup = race_screen.finish_popup
    assert popup.message == ""
    await tap(app, popup.crossed["Bence"])
    await tap(app, popup.ids.confirm)
    ranking = race_screen.results_popup
    await app.wait_clock_frames(3)
    assert ranking.ids.points_heading.text == "Rank points"
    rows = [[w.text for w in reversed(row.children)] for row in reversed(ranking.ids.rows.children)]
    assert rows[0][:2] == ["1.", "Bence"] and rows[0][-1] == str(ranking.scores["Bence"]) == "4"
    assert [r[-1] for r in rows] == ["4", "3", "2", "1"], rows
    assert screen_faults(app) == [], screen_faults(app)
    result(said=said, rows=rows)


for _journey in (volatio_four_fit, volatio_six_follow, volatio_fatigue_banner, volatio_finish_words):
    JOURNEYS[_journey.__name__] = _journey
