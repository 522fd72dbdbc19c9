"""Volatio on the touch screen: a round with an illegal speed change refused, a crash penalty and a
fatigue applied, undo of the crash, and the finish; every number checked against the rules core."""

from __future__ import annotations

from typing import Any

from companion.games import volatio as v
from companion.games import volatio_table as vt
from companion.games.volatio import Dragon
from companion.ui.theme import THEME
from tests.ui.kit import find, result, screen, tap, until

MAGES = (("Anna", "red"), ("Bence", "blue"), ("Csilla", "green"))


async def press(app: Any, panel: Any, button: str, times: int = 1) -> None:
    for _ in range(times):
        await tap(app, panel.ids[button], duration=0.02)


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
    assert "Energy −2" in app.strip.note and "both pointers 100 DP" in app.strip.note
    assert anna.energy_text == "Energy 1/4"
    crash_note = app.strip.note

    # Undo takes the crash back (the tokens and the 600 DP return); redo applies it again.
    await tap(app, app.nav.ids.undo)
    assert (dragon(app, "Anna").energy, dragon(app, "Anna").silver) == (3, 600)
    assert anna.energy_text == "Energy 3/4"
    await tap(app, app.nav.ids.redo)
    assert dragon(app, "Anna") == expected

    # Bence tries 500 -> 100: 400 DP is more than the dial may move (§5.3); refused, nothing logged.
    logged = len(session.play_log)
    await press(app, bence, "dial_minus", 4)
    assert bence.dial == 100 and list(bence.dial_colour) == list(THEME.red)
    await press(app, bence, "reveal")
    check = v.speed_check(500, 100)
    assert not check.legal and check.reason is not None and check.reason in app.strip.note
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
    assert "nearest passed energy field" in app.strip.note
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
    result(rows=sorted(r for r in rows if ":" in r and "Crash" not in r))


JOURNEYS[volatio_camera.__name__] = volatio_camera
