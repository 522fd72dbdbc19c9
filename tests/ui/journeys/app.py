"""Journeys through the app shell: the app's own sounds, the expiry alarm that flashes until a
tap, the status strip's messages, the export popup with its QR code, and resume after a kill."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from tests.ui.kit import find, pass_time, pin_states, result, run_until, screen, tap


def _clock(app: Any) -> float:
    """The app's own clock (the one its messages and alarm go by; the journey moves it)."""
    return float(app.svc.clock.now())


async def alarm_sounds_and_flashes_until_tap(app: Any) -> None:
    """A negotiation timer: each warning beeps on the Pi's audio at ui.volume, the expiry
    alarm plays and the window flashes; the flash goes on past 3 s, the alarm sound stops
    after gpio.alarm_s; one tap anywhere (here: on the "Again" button) stops the flash and
    presses nothing; the next tap on "Again" starts the timer again."""
    from companion.ui.app import FLASH_RGBA, NO_FLASH
    from tests.ui.layout import faults

    sounds = app.sounds
    assert sounds.is_available, sounds.problem
    assert app.strip.sound == "on"
    await tap(app, find(app, "TouchButton", "Start"))
    timer = screen(app, "timer")
    await tap(app, timer.ids.preset_negotiation)
    volume = app.svc.config["ui.volume"] / 100
    warn = sounds.sound("warn-1")

    def played(name: str) -> bool:
        return any(n == name for n, _s, _v in sounds.played)

    # Warnings at 3 s and 1.5 s left of 4 s: 1 s in, then 2.5 s in; the end at 4 s.
    assert await run_until(app, lambda: played("warn-1"), within_s=3, step_s=0.125) == 1.0
    assert warn.volume == volume  # ("play" was its state just after it started: really playing)
    assert await run_until(app, lambda: played("warn-2"), within_s=3, step_s=0.125) == 1.5
    assert await run_until(app, lambda: timer.phase == "expired", within_s=3, step_s=0.125) == 1.5
    alarm = sounds.sound("alarm")
    assert alarm.state == "play"  # on a loop until it is stopped
    assert alarm.volume == volume
    assert [(n, s, v) for n, s, v in sounds.played] == [("warn-1", "play", volume), ("warn-2", "play", volume),
                                                        ("alarm", "play", volume)]
    assert app.alarm == "negotiation"
    assert "Negotiation" in app.strip.note and "Tap anywhere" in app.strip.note
    assert faults(app.root_window) == [], faults(app.root_window)
    started = app._alarm_t0
    seen: set[tuple[float, ...]] = set()

    def flashing_past_3_s() -> bool:
        seen.add(tuple(app.root_widget.flash))
        return _clock(app) - started > 3.6

    await run_until(app, flashing_past_3_s, within_s=4.0, step_s=0.125)
    assert app.alarm == "negotiation"  # still on after 3 s: it waits for a tap
    assert tuple(FLASH_RGBA) in seen and tuple(NO_FLASH) in seen  # and it blinks
    assert alarm.state != "play"  # the sound stopped after gpio.alarm_s (1 s here)
    again = timer.ids.toggle
    await tap(app, again)
    assert app.alarm is None and list(app.root_widget.flash) == NO_FLASH
    assert timer.phase == "expired"  # the tap that stopped the alarm pressed nothing
    assert app.strip.note == ""
    assert pin_states(app, 18)[-1] == 0  # the buzzer is silent
    await tap(app, again)
    assert timer.phase == "running"
    result(ok=True, played=[n for n, _s, _v in sounds.played])


async def silent_at_volume_zero(app: Any) -> None:
    """ui.volume = 0: the strip says the sound is off, and an expiry flashes without a sound."""
    sounds = app.sounds
    assert sounds.is_available and app.strip.sound == "off"
    assert find(app, "FitLabel", "Sound: off") is not None
    await tap(app, find(app, "TouchButton", "Start"))
    timer = screen(app, "timer")
    await tap(app, timer.ids.preset_negotiation)
    await run_until(app, lambda: timer.phase == "expired", within_s=4.0)
    assert app.alarm is not None
    assert list(sounds.played) == [] and sounds.sound("alarm").state == "stop"
    await tap(app, app.root_widget)
    assert app.alarm is None
    result(ok=True)


async def no_audio_device(app: Any) -> None:
    """No audio output at all: the app runs, says "Sound: none", and the alarm still flashes."""
    sounds = app.sounds
    assert not sounds.is_available and sounds.problem
    assert app.strip.sound == "none"
    assert find(app, "FitLabel", "Sound: none") is not None
    await tap(app, find(app, "TouchButton", "Start"))
    timer = screen(app, "timer")
    await tap(app, timer.ids.preset_negotiation)
    await run_until(app, lambda: app.alarm is not None, within_s=4.0)
    await tap(app, app.root_widget)
    assert app.alarm is None and timer.phase == "expired"
    result(problem=sounds.problem)


async def strip_message_clears(app: Any) -> None:
    """A message clears itself after NOTE_S on the app's clock, a new one restarts the time,
    and the hardware's state comes back when it clears."""
    from companion.ui.app import NOTE_S
    from tests.ui.layout import faults

    await tap(app, screen(app, "home").ids.history)
    history = screen(app, "history")
    assert app.manager.current == "history"
    await tap(app, history.ids.export_csv)  # no finished game yet: it says so
    assert app.strip.note == "No finished game yet"
    first = _clock(app)
    note = app.strip.ids.note
    assert note.get_root_window() is not None and note.font_size >= 18
    assert app.strip.ids.gpio.get_root_window() is None  # the message has the whole strip
    assert faults(app.root_window) == []
    await pass_time(app, NOTE_S * 0.6)
    assert app.strip.note == "No finished game yet"
    second = _clock(app)  # just before the second message
    await tap(app, history.ids.export_csv)
    await pass_time(app, first + NOTE_S + 0.5 - _clock(app))
    assert app.strip.note == "No finished game yet"  # the second message restarted the time
    await run_until(app, lambda: app.strip.note == "", within_s=NOTE_S, step_s=0.05)
    cleared = _clock(app)
    assert second + NOTE_S <= cleared < second + NOTE_S + 0.05 + 1e-9, (second, cleared)
    await app.wait_clock_frames(2)
    gpio = app.strip.ids.gpio
    assert gpio.get_root_window() is not None and gpio.text == "GPIO: mock" and gpio.font_size >= 18
    assert faults(app.root_window) == []
    result(shown_s=round(cleared - second, 1))


def _finish_a_play(app: Any) -> Any:
    """Setup, not what is tested: one finished Dragon's Gold play in the store (as the
    screenshot script makes them), then back to no session."""
    from companion.games import dragons_gold
    from companion.session import Player

    players = [Player("Anna", "red"), Player("Bence", "blue"), Player("Csilla", "green"),
               Player("Дмитрий", "yellow")]
    past = app.svc.start_session("dragons-gold", players)
    for i, p in enumerate(players):
        past.set_score(p.name, "silver", 3 + 2 * i)
        past.set_score(p.name, "gold", i % 3)
    past.finish_game(dragons_gold.score_document(past.score_document()))
    app.svc.session = None
    screen(app, "home").refresh()
    return past


def _decode_qr(widget: Any) -> str:
    """What a phone reads off the QR code as drawn: the widget rendered to a PNG, then OpenCV's
    two QR readers, as drawn and at twice the size (each misses some dense symbols on its own)."""
    import cv2

    with tempfile.TemporaryDirectory() as tmp:
        png = Path(tmp) / "qr.png"
        widget.export_to_png(str(png))
        image = cv2.imread(str(png), cv2.IMREAD_GRAYSCALE)
    for scale in (1, 2):
        seen = image if scale == 1 else cv2.resize(image, None, fx=scale, fy=scale,
                                                   interpolation=cv2.INTER_NEAREST)
        for reader in (cv2.QRCodeDetector(), cv2.QRCodeDetectorAruco()):
            text = reader.detectAndDecode(seen)[0]
            if text:
                return str(text)
    return ""


async def export_popup_with_qr(app: Any) -> None:
    """History: Export for BG Stats opens a popup with where the file went and the import link
    as a QR code big enough to scan (quiet zone included) that reads back as the link; Close;
    Export CSV says where its file went too."""
    from companion.export import to_bgstats_link
    from companion.history import finished_plays
    from tests.ui.layout import faults

    _finish_a_play(app)
    await tap(app, screen(app, "home").ids.history)
    history = screen(app, "history")
    await tap(app, history.ids.export_bgstats)
    popup = history.popup
    assert popup is not None and popup in app.root_window.children
    await app.wait_clock_frames(5)
    qr = popup.ids.qr
    [(sid, play)] = finished_plays(app.svc.store)
    link = to_bgstats_link(play)
    assert qr.data == link
    side = qr.modules * qr.module_px
    assert side >= 200 and qr.module_px >= 2, (qr.modules, qr.module_px)
    assert all(v == 0 for v in qr.matrix[0]) and all(row[0] == 0 for row in qr.matrix)  # quiet zone
    import segno

    expected = [[1 if dark else 0 for dark in row]
                for row in segno.make(link, error="l", micro=False, boost_error=False).matrix_iter(border=4)]
    assert qr.matrix == expected  # the symbol drawn is the link's
    decoded = _decode_qr(qr)
    assert decoded == link, (len(decoded), len(link))
    where = popup.ids.where.text
    assert where.replace("\n", "").endswith(f"exports/play-{sid}.bgstats.json"), where
    assert popup.ids.where.font_size >= 18
    assert faults(app.root_window) == [], faults(app.root_window)
    app.root_window.screenshot(name=str(Path(tempfile.gettempdir()) / "export-qr.png"))
    await tap(app, popup.ids.close)
    assert history.popup is None
    await tap(app, history.ids.export_csv)
    csv_popup = history.popup
    assert csv_popup is not None and not any(type(w).__name__ == "QRCode" for w in csv_popup.walk())
    assert csv_popup.ids.where.text.replace("\n", "").endswith("exports/plays.csv")
    assert faults(app.root_window) == [], faults(app.root_window)
    await tap(app, csv_popup.ids.close)
    result(modules=qr.modules, module_px=qr.module_px, side=side)


async def run_until_killed(app: Any) -> None:
    """For the kill test: the negotiation (a few seconds long) runs; wait to be killed."""
    await tap(app, find(app, "TouchButton", "Start"))
    timer = screen(app, "timer")
    await tap(app, timer.ids.preset_negotiation)
    session = app.svc.session
    remaining = session.board["negotiation"].remaining_s(session.now())
    result(session=session.id, remaining=remaining, deadline_mono=session.now() + remaining)
    await app.async_sleep(600)  # killed long before: the test waits for the RESULT line


async def alarm_then_killed(app: Any) -> None:
    """For the kill test: the negotiation runs out with the app open (its alarm goes off, nobody
    taps it away); wait to be killed."""
    await tap(app, find(app, "TouchButton", "Start"))
    await tap(app, screen(app, "timer").ids.preset_negotiation)
    await run_until(app, lambda: app.alarm is not None, within_s=10, what="the alarm")
    result(session=app.svc.session.id, deadline_mono=_clock(app))  # the next start comes after it
    await app.async_sleep(600)


async def resume_says_it_ran_out(app: Any) -> None:
    """For the kill test: resume from Home; the negotiation ran out meanwhile: the strip says
    so, and the Timer screen shows it."""
    home = screen(app, "home")
    assert home.can_resume
    await tap(app, home.ids.resume)
    await app.wait_clock_frames(3)
    session = app.svc.session
    timer = screen(app, "timer")
    result(session=session.id, phase=session.board["negotiation"].phase.value, ran_out=list(session.ran_out),
           screen=app.manager.current, selected=timer.selected, note=app.strip.note, alarm=app.alarm)


async def game_with_market_until_killed(app: Any) -> None:
    """For the kill test: a Dragon's Gold game (its page shown) with the market timer running."""
    from tests.ui.kit import start_game

    await start_game(app, "Dragon's Gold", ("P1", "P2", "P3"))
    assert app.manager.current == "game:dragons-gold"
    await tap(app, find(app, "TouchButton", "Timer"))
    await tap(app, screen(app, "timer").ids.preset_market)
    await tap(app, find(app, "TouchButton", "Game"))
    assert app.manager.current == "game:dragons-gold"
    result(session=app.svc.session.id)
    await app.async_sleep(600)


async def resume_opens_the_timer(app: Any) -> None:
    """For the kill test: resume from Home: the running market timer's screen, not the game's."""
    await tap(app, screen(app, "home").ids.resume)
    await app.wait_clock_frames(3)
    session = app.svc.session
    result(session=session.id, phase=session.board["market"].phase.value, screen=app.manager.current,
           selected=screen(app, "timer").selected, game=session.game)


async def timer_tapped_before_resume(app: Any) -> None:
    """For the kill test: a player goes to the Timer screen without resuming first, and taps a
    preset: the tab resumes the game left open and shows its market timer, the preset's timer
    runs beside it, the strip says so, and Home has nothing left to resume."""
    await tap(app, find(app, "TouchButton", "Timer"))
    timer = screen(app, "timer")
    tab = {"session": app.svc.session and app.svc.session.id, "selected": timer.selected, "digits": timer.digits}
    await tap(app, timer.ids.preset_negotiation)
    await app.wait_clock_frames(3)
    session = app.svc.session
    board = session.board
    app.root_window.screenshot(name=str(Path(tempfile.gettempdir()) / "timer-before-resume.png"))
    await tap(app, find(app, "TouchButton", "Home"))
    app.root_window.screenshot(name=str(Path(tempfile.gettempdir()) / "home-after-resume.png"))
    result(tab=tab, session=session.id, game=session.game, screen="timer", selected=timer.selected,
           phases={name: board[name].phase.value for name in board.names}, note=app.strip.note,
           can_resume=screen(app, "home").can_resume, open=app.svc.store.open_session().id,
           home=[screen(app, "home").game, [p.name for p in screen(app, "home").players]])


async def game_tapped_before_resume(app: Any) -> None:
    """For the kill test: a player taps Game without resuming first: the game left open is
    resumed and its page shown."""
    await tap(app, find(app, "TouchButton", "Game"))
    await app.wait_clock_frames(3)
    session = app.svc.session
    result(session=session.id, screen=app.manager.current, market=session.board["market"].phase.value,
           note=app.strip.note)


async def button_pressed_before_resume(app: Any) -> None:
    """For the kill test: the first press of the physical button resumes the game left open and
    shows its running timer; the second pauses it."""
    button = app.hw.panel.setup.factory.pin(app.svc.config["gpio.button_pin"])
    seen = []
    for _ in range(2):
        button.drive_low()  # pressed (to ground, pulled up)
        button.drive_high()
        await app.wait_clock_frames(3)  # the press reaches the app on its main thread
        session = app.svc.session
        seen.append({"session": session and session.id, "screen": app.manager.current,
                     "market": session and session.board["market"].phase.value})
    result(seen=seen, note=app.strip.note)


JOURNEYS = {f.__name__: f for f in (alarm_sounds_and_flashes_until_tap, silent_at_volume_zero, no_audio_device,
                                     strip_message_clears, export_popup_with_qr, run_until_killed, alarm_then_killed,
                                     resume_says_it_ran_out, game_with_market_until_killed,
                                     resume_opens_the_timer, timer_tapped_before_resume,
                                     game_tapped_before_resume, button_pressed_before_resume)}
