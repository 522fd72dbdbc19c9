"""The touch app, driven through real touches in a real window (Xvfb), one process per journey.

A journey runs the app on a clock it moves itself (tests/ui/kit.py), so no check here depends
on how fast the machine is; the limits below are only how long to wait for a journey before
saying it hangs (desktop seconds, scaled by COMPANION_TEST_SLOWDOWN), and a failure shows the
journey's stderr.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.processes import Lines, finish, runtime_dir, tail

DRIVER = Path(__file__).with_name("driver.py")
ROOT = Path(__file__).resolve().parents[2]
JOURNEY_S = 100.0
"""How long one journey may take, in desktop seconds (the slowest took 44 s beside two CPU-bound
processes): under pytest-timeout's 120 s per test, so a hang ends here, with the journey's stderr."""


pytestmark = pytest.mark.slow


def scratch(tmp_path: Path, config: str = "") -> dict[str, str]:
    """The app's own data, config (*config* in it) and runtime folders in *tmp_path*: the
    runtime one so that its accessory ``auto`` finds no simulator another test started."""
    (tmp_path / "config" / "table-companion").mkdir(parents=True)
    (tmp_path / "config" / "table-companion" / "config.toml").write_text(config)
    return {"XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "XDG_RUNTIME_DIR": runtime_dir(tmp_path / "run")}


def journey_env(env: dict[str, str], display: str | None) -> dict[str, str]:
    """The test's environment (COMPANION_TEST_SLOWDOWN included) with *env* and the display."""
    return {**os.environ, **env, **({"DISPLAY": display} if display is not None else {})}


def drive(journey: str, env: dict[str, str], display: str, size: str = "800x480",
          timeout_s: float = JOURNEY_S) -> list[dict]:
    """Run *journey* in a fresh driver process; its ``RESULT`` lines. A journey that fails, or
    is not done within *timeout_s* desktop seconds (scaled), fails the test with its stderr."""
    proc = subprocess.Popen([sys.executable, str(DRIVER), journey, size], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=journey_env(env, display))
    out, err = finish(proc, f"journey {journey}", timeout_s)
    assert proc.returncode == 0, f"journey {journey} failed; its stderr:\n{tail(err)}"
    return [json.loads(line[7:]) for line in out.splitlines() if line.startswith("RESULT ")]


def first_result(lines: Lines, timeout_s: float = 60) -> dict:
    """The first ``RESULT`` line a running journey prints (its stderr shown if none comes)."""
    return json.loads(lines.next_matching(lambda line: line.startswith("RESULT "), timeout_s)[7:])


QUICK = '[timer.presets]\nnegotiation = 6\n[gpio]\nalarm_s = 0.6\n'


def test_ui_negotiation_pause_flip_add_expire(tmp_path: Path, display: str) -> None:
    [out] = drive("negotiation", scratch(tmp_path, QUICK), display)
    assert out["expired"] and out["buzzer_edges"] >= 2


def test_ui_turn_clock_four_players(tmp_path: Path, display: str) -> None:
    assert drive("turn_clock", scratch(tmp_path), display) == [{"player": "Csilla"}]


def test_ui_turn_clock_portrait(tmp_path: Path, display: str) -> None:
    assert drive("turn_clock", scratch(tmp_path), display, size="720x1280") == [{"player": "Csilla"}]


def test_ui_settings_behind_the_pin(tmp_path: Path, display: str) -> None:
    from kiosk.pin import CONFIG_MIN_COST_N, hash_pin

    env = scratch(tmp_path, f'[ui]\nkiosk = true\nadmin_pin_hash = "{hash_pin("2468", cost_n=CONFIG_MIN_COST_N)}"\n')
    [out] = drive("settings_pin", env, display)
    assert 'language = "hu"' in out["config"] and "admin_pin_hash" in out["config"]
    assert "2468" not in out["config"]


def test_ui_language_switch_at_runtime(tmp_path: Path, display: str) -> None:
    assert drive("language", scratch(tmp_path), display) == [{"ok": True}]


def test_ui_undo_redo(tmp_path: Path, display: str) -> None:
    [out] = drive("undo_redo", scratch(tmp_path), display)
    assert out == {"notes": ["Undone: Market's time changed", "Redone: Market's time changed", "Undone: Market paused",
                             "Отменено: запуск таймера «Рынок»", "Возвращено: запуск таймера «Рынок»"],
                   "running": True}


def test_ui_new_game_after_one_with_timers(tmp_path: Path, display: str) -> None:
    assert drive("new_game_after_timers", scratch(tmp_path), display) == [{"ok": True}]


def test_ui_long_press_resets(tmp_path: Path, display: str) -> None:
    assert drive("long_press_reset", scratch(tmp_path), display) == [{"ok": True}]


def test_ui_dragons_gold_scoring_matches_the_cli(tmp_path: Path, display: str) -> None:
    [out] = drive("dragons_gold_scoring", scratch(tmp_path), display)
    assert out == {"simple": {"A": 46, "B": 50, "C": 49, "D": 14}, "advanced": {"A": 34, "B": 34, "C": 33, "D": 14}}


def test_ui_dragons_gold_sharing_timers_and_strategic_order(tmp_path: Path, display: str) -> None:
    env = scratch(tmp_path, '[timer.presets]\nnegotiation = 2\nmarket = 3\n[gpio]\nalarm_s = 0.4\n')
    assert drive("dragons_gold_sharing", env, display) == [{"removed": 3, "market": True}]


def test_ui_undo_across_screens(tmp_path: Path, display: str) -> None:
    [out] = drive("undo_across_screens", scratch(tmp_path), display)
    assert out == {"notes": ["Undone: Market started", "Undone: Market added", "Undone: the dragon turned up",
                             "Redone: the dragon turned up", "Undone: P1's adventurer sent"]}


def test_ui_history_chart_and_exports(tmp_path: Path, display: str) -> None:
    [_scored, out] = drive("history_after_scoring", scratch(tmp_path), display)
    assert out == {"exported": ["play-1.bgstats.json", "plays.csv"]}


@pytest.mark.parametrize("size", ["800x480", "720x1280"])
def test_ui_table_mode_panels_stand_by_their_seats(tmp_path: Path, display: str, size: str) -> None:
    assert drive("table_mode", scratch(tmp_path), display, size=size) == [{"angles": [0, 270, 180, 90]}]


def test_ui_sigkill_and_resume(tmp_path: Path, display: str) -> None:
    """kill -9 while a timer runs; the next start resumes it with the right time left."""
    env = scratch(tmp_path, "[timer.presets]\nnegotiation = 3600\n")  # runs through any machine's restart
    first = Lines(subprocess.Popen([sys.executable, str(DRIVER), "run_and_wait"], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, env=journey_env(env, display)),
                  "run_and_wait")
    try:
        before = first_result(first)
        first.proc.send_signal(signal.SIGKILL)
        first.wait(10)
    finally:
        first.stop()
    [after] = drive("resume", env, display)
    assert after["session"] == before["session"]
    assert after["phase"] == "running"
    # monotonic time is system-wide: the deadline survived the process
    expected = before["remaining"] - (after["t_mono"] - before["t_mono"])
    assert after["remaining"] == pytest.approx(expected, abs=1e-6)
    assert before["remaining"] == pytest.approx(3610, abs=1e-6)  # the preset and +10 s, on the journey's clock
    assert after["t_mono"] > before["t_mono"]


SHOTS = 19 * 3 * 3
"""Every screen and state, in three languages and three sizes."""
SHOT_S = 10.0
"""Desktop seconds one shot may take: its layout settling (0.5 s, 1.5 s after a resize), the
render, the checks; about 7 s each were measured on a desktop."""
SHOTS_START_S = 60.0
"""Desktop seconds for the script to start the app and make its sample table."""
SHOTS_S = SHOTS_START_S + SHOTS * SHOT_S


@pytest.mark.timeout(SHOTS_S + 60)  # the script's own limit below, and the checks after it (scaled)
def test_ui_screenshots_have_no_clipped_text(tmp_path: Path, display: str) -> None:
    """Every screen and state, in every language and size, renders; no label's text overflows its
    widget; every button and text is big enough, and no text lies over another or over a button
    not its own (tests/ui/layout.py)."""
    report = tmp_path / "overflows.json"
    proc = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "screenshots.py"), "--out", str(tmp_path / "shots"),
                             "--report", str(report)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=journey_env({"SDL_AUDIODRIVER": "dummy"}, display))
    _out, err = finish(proc, f"{SHOTS} screenshots", SHOTS_S)
    assert report.exists(), tail(err)
    found = json.loads(report.read_text())
    assert found == {"overflows": [], "faults": []}, tail(err, 4000)
    assert proc.returncode == 0, tail(err)
    shots = sorted(p.name for p in (tmp_path / "shots").glob("*.png"))
    assert len(shots) == SHOTS
    for name in ("timer_hu_720x1280.png", "settings_ru_1280x720.png", "home-keyboard_ru_800x480.png",
                 "sharing-countdown_hu_800x480.png", "timer-paused_en_720x1280.png", "timer-big_ru_1280x720.png",
                 "numpad_hu_800x480.png", "alarm_en_800x480.png", "volatio-banner_ru_800x480.png",
                 "history-export_hu_720x1280.png"):
        assert name in shots
