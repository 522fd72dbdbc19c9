"""The app shell driven by touch (tests/ui/journeys/app.py): sounds, the alarm until a tap, the
status strip, the export popup's QR code, resume after a kill; and the shipped sounds."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import wave
from pathlib import Path

import numpy as np
import pytest

from tests.processes import Lines
from tests.ui.test_journeys import DRIVER, ROOT, drive, first_result, journey_env, scratch

QUICK = '[timer]\nwarnings_s = [3, 1.5]\n[timer.presets]\nnegotiation = 4\n[gpio]\nalarm_s = 1.0\n[ui]\nvolume = 40\n'


pytestmark = pytest.mark.slow


def test_ui_alarm_sounds_and_flashes_until_a_tap(tmp_path: Path, display: str) -> None:
    [out] = drive("alarm_sounds_and_flashes_until_tap", scratch(tmp_path, QUICK), display)
    assert out == {"ok": True, "played": ["warn-1", "warn-2", "alarm"]}


def test_ui_volume_zero_is_silent(tmp_path: Path, display: str) -> None:
    config = QUICK.replace("volume = 40", "volume = 0")
    assert drive("silent_at_volume_zero", scratch(tmp_path, config), display) == [{"ok": True}]


def test_ui_no_audio_device_runs_without_sound(tmp_path: Path, display: str) -> None:
    env = {**scratch(tmp_path, QUICK), "SDL_AUDIODRIVER": "no-such-driver"}
    [out] = drive("no_audio_device", env, display)
    assert out["problem"]


def test_ui_strip_message_clears_after_its_time(tmp_path: Path, display: str) -> None:
    [out] = drive("strip_message_clears", scratch(tmp_path), display)
    assert out["shown_s"] == 6.0  # NOTE_S after the second message, on the app's clock


@pytest.mark.parametrize("size", ["800x480", "720x1280"])
def test_ui_export_popup_shows_the_path_and_a_qr_of_the_link(tmp_path: Path, display: str, size: str) -> None:
    [out] = drive("export_popup_with_qr", scratch(tmp_path), display, size=size)
    assert out["side"] >= 200


def _kill_and_resume(tmp_path: Path, display: str, config: str, first: str, second: str) -> tuple[dict, dict]:
    """*first* runs until its first RESULT, then is killed (-9); *second* starts after it. When
    *first* reports a ``deadline_mono``, *second* starts once the system's monotonic clock (the
    one both processes start their clocks from) has passed it: the timer ran out while closed."""
    env = scratch(tmp_path, config)
    killed = Lines(subprocess.Popen([sys.executable, str(DRIVER), first], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, env=journey_env(env, display)), first)
    try:
        before = first_result(killed)
        killed.proc.send_signal(signal.SIGKILL)
        killed.wait(10)
    finally:
        killed.stop()
    while "deadline_mono" in before and time.monotonic() <= before["deadline_mono"]:
        time.sleep(0.05)  # the system's clock passing a time: what the next start must come after
    [after] = drive(second, env, display)
    return before, after


def test_ui_resume_says_a_timer_ran_out_while_closed(tmp_path: Path, display: str) -> None:
    config = '[timer.presets]\nnegotiation = 3\n'
    before, after = _kill_and_resume(tmp_path, display, config, "run_until_killed", "resume_says_it_ran_out")
    assert before["remaining"] == 3  # killed before it ran out (its clock had not moved)
    assert after["session"] == before["session"]
    assert after["phase"] == "expired" and after["ran_out"] == ["negotiation"]
    assert after["screen"] == "timer" and after["selected"] == "negotiation"
    assert after["note"] == "Negotiation ran out while the app was closed"
    assert after["alarm"] is None  # said, not rung: it is long over


def test_ui_resume_does_not_say_a_timer_ran_out_while_closed_when_it_rang(tmp_path: Path, display: str) -> None:
    before, after = _kill_and_resume(tmp_path, display, '[timer.presets]\nnegotiation = 3\n', "alarm_then_killed",
                                     "resume_says_it_ran_out")
    assert after["session"] == before["session"]
    assert after["phase"] == "expired" and after["ran_out"] == []
    assert after["note"] == "Session resumed"
    assert after["alarm"] is None


def test_ui_resume_opens_the_running_timer_not_the_game(tmp_path: Path, display: str) -> None:
    config = "[timer.presets]\nmarket = 3600\n"  # still running however long the restart takes
    before, after = _kill_and_resume(tmp_path, display, config, "game_with_market_until_killed",
                                     "resume_opens_the_timer")
    assert after == {"session": before["session"], "phase": "running", "screen": "timer", "selected": "market",
                     "game": "dragons-gold"}


def test_ui_a_timer_tapped_before_resume_goes_on_with_the_game(tmp_path: Path, display: str) -> None:
    config = "[timer.presets]\nmarket = 3600\nnegotiation = 600\n"
    before, after = _kill_and_resume(tmp_path, display, config, "game_with_market_until_killed",
                                     "timer_tapped_before_resume")
    tab = after.pop("tab")
    assert tab["session"] == before["session"] and tab["selected"] == "market"
    assert tab["digits"].startswith("59:")  # the market's hour, going on
    assert after == {"session": before["session"], "game": "dragons-gold", "screen": "timer",
                     "selected": "negotiation", "phases": {"market": "running", "negotiation": "running"},
                     "note": "Session resumed", "can_resume": False, "open": before["session"],
                     "home": ["dragons-gold", ["P1", "P2", "P3"]]}


def test_ui_game_tapped_before_resume_shows_the_game_left_open(tmp_path: Path, display: str) -> None:
    config = "[timer.presets]\nmarket = 3600\n"
    before, after = _kill_and_resume(tmp_path, display, config, "game_with_market_until_killed",
                                     "game_tapped_before_resume")
    assert after == {"session": before["session"], "screen": "game:dragons-gold", "market": "running",
                     "note": "Session resumed"}


def test_ui_the_button_pressed_before_resume_resumes_then_pauses(tmp_path: Path, display: str) -> None:
    config = "[timer.presets]\nmarket = 3600\n"
    before, after = _kill_and_resume(tmp_path, display, config, "game_with_market_until_killed",
                                     "button_pressed_before_resume")
    sid = before["session"]
    assert after == {"seen": [{"session": sid, "screen": "timer", "market": "running"},
                              {"session": sid, "screen": "timer", "market": "paused"}],
                     "note": "Session resumed"}


def test_shipped_sounds_are_what_the_script_makes() -> None:
    """companion/ui/sounds/*.wav come from scripts/make_sounds.py (to within one step of rounding,
    which another platform's sine may take differently)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import make_sounds
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    folder = ROOT / "companion" / "ui" / "sounds"
    made = make_sounds.make_all()
    assert sorted(p.name for p in folder.glob("*.wav")) == sorted(made)
    for name, data in made.items():
        with wave.open(str(folder / name)) as shipped:
            assert (shipped.getnchannels(), shipped.getsampwidth(), shipped.getframerate()) == (1, 2, 22_050)
            ours = np.frombuffer(shipped.readframes(shipped.getnframes()), "<i2").astype(int)
        theirs = np.frombuffer(data[44:], "<i2").astype(int)
        assert len(ours) == len(theirs) and np.abs(ours - theirs).max() <= 1, name


def test_sound_audio_missing_reads_the_kernels_card_list(tmp_path: Path) -> None:
    from companion.ui.sound import audio_missing

    cards = tmp_path / "cards"
    assert audio_missing(cards, {}) is not None  # no list at all: no ALSA
    cards.write_text("--- no soundcards ---\n")
    assert audio_missing(cards, {}) is not None
    cards.write_text(" 0 [vc4hdmi0       ]: vc4-hdmi - vc4-hdmi-0\n")
    assert audio_missing(cards, {}) is None
    assert audio_missing(tmp_path / "none", {"SDL_AUDIODRIVER": "dummy"}) is None  # SDL's own choice


def test_sound_off_without_a_loader_that_loads(tmp_path: Path) -> None:
    """A loader that gives nothing (no provider) or an empty sound (no mixer): sound off, said once."""
    from companion.ui.sound import Sounds

    class Empty:
        length = 0

    for loader in (type("L", (), {"load": staticmethod(lambda _p: None)}),
                   type("L", (), {"load": staticmethod(lambda _p: Empty())})):
        sounds = Sounds(lambda: 80, loader=loader).load()
        assert not sounds.is_available and sounds.problem and sounds.state_word() == "none"
        sounds.play_warning(0)
        sounds.start_alarm()
        assert list(sounds.played) == []
