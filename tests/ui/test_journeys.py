"""The touch app, driven through real touches in a real window (Xvfb), one process per journey."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

DRIVER = Path(__file__).with_name("driver.py")
ROOT = Path(__file__).resolve().parents[2]


def scratch(tmp_path: Path, config: str = "") -> dict[str, str]:
    (tmp_path / "config" / "table-companion").mkdir(parents=True)
    (tmp_path / "config" / "table-companion" / "config.toml").write_text(config)
    return {"XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}


def drive(journey: str, env: dict[str, str], display: str, size: str = "800x480") -> list[dict]:
    done = subprocess.run([sys.executable, str(DRIVER), journey, size], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **env, "DISPLAY": display})
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line[7:]) for line in done.stdout.splitlines() if line.startswith("RESULT ")]


QUICK = '[timer.presets]\nnegotiation = 6\n[gpio]\nalarm_s = 0.6\n'


def test_ui_negotiation_pause_flip_add_expire(tmp_path: Path, display: str) -> None:
    [out] = drive("negotiation", scratch(tmp_path, QUICK), display)
    assert out["expired"] and out["buzzer_edges"] >= 2


def test_ui_turn_clock_four_players(tmp_path: Path, display: str) -> None:
    assert drive("turn_clock", scratch(tmp_path), display) == [{"player": "Csilla"}]


def test_ui_turn_clock_portrait(tmp_path: Path, display: str) -> None:
    assert drive("turn_clock", scratch(tmp_path), display, size="720x1280") == [{"player": "Csilla"}]


def test_ui_settings_behind_the_pin(tmp_path: Path, display: str) -> None:
    from companion.pin import CONFIG_MIN_COST_N, hash_pin

    env = scratch(tmp_path, f'[ui]\nkiosk = true\nadmin_pin_hash = "{hash_pin("2468", cost_n=CONFIG_MIN_COST_N)}"\n')
    [out] = drive("settings_pin", env, display)
    assert 'language = "hu"' in out["config"] and "admin_pin_hash" in out["config"]
    assert "2468" not in out["config"]


def test_ui_language_switch_at_runtime(tmp_path: Path, display: str) -> None:
    assert drive("language", scratch(tmp_path), display) == [{"ok": True}]


def test_ui_undo_redo(tmp_path: Path, display: str) -> None:
    assert drive("undo_redo", scratch(tmp_path), display) == [{"ok": True}]


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
    assert drive("undo_across_screens", scratch(tmp_path), display) == [{"ok": True}]


def test_ui_history_chart_and_exports(tmp_path: Path, display: str) -> None:
    [_scored, out] = drive("history_after_scoring", scratch(tmp_path), display)
    assert out == {"exported": ["play-1.bgstats.json", "plays.csv"]}


def test_ui_table_mode_turns_panels(tmp_path: Path, display: str) -> None:
    assert drive("table_mode", scratch(tmp_path), display) == [{"angles": [0, 270, 180, 90]}]


def test_ui_sigkill_and_resume(tmp_path: Path, display: str) -> None:
    """kill -9 while a timer runs; the next start resumes it with the right time left."""
    env = {**os.environ, **scratch(tmp_path), "DISPLAY": display}
    proc = subprocess.Popen([sys.executable, str(DRIVER), "run_and_wait"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env)
    assert proc.stdout is not None
    line = ""
    deadline = time.monotonic() + 60
    while not line.startswith("RESULT ") and time.monotonic() < deadline:
        line = proc.stdout.readline()
    before = json.loads(line[7:])
    time.sleep(1.0)
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    done = subprocess.run([sys.executable, str(DRIVER), "resume"], capture_output=True, text=True, timeout=120,
                          env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    after = json.loads(next(line for line in done.stdout.splitlines() if line.startswith("RESULT "))[7:])
    assert after["session"] == before["session"]
    assert after["phase"] == "running"
    # monotonic time is system-wide: the deadline survived the process
    expected = before["remaining"] - (after["t_mono"] - before["t_mono"])
    assert after["remaining"] == pytest.approx(expected, abs=0.05)
    assert 60 < before["remaining"] <= 70


@pytest.mark.timeout(1800)  # 171 shots, each after its layout has settled
def test_ui_screenshots_have_no_clipped_text(tmp_path: Path, display: str) -> None:
    """Every screen and state, in every language and size, renders; no label's text overflows its
    widget; every button and text is big enough, and no text lies over another or over a button
    not its own (tests/ui/layout.py)."""
    report = tmp_path / "overflows.json"
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "screenshots.py"), "--out", str(tmp_path / "shots"),
                           "--report", str(report)], capture_output=True, text=True, timeout=1700,
                          env={**os.environ, "DISPLAY": display, "SDL_AUDIODRIVER": "dummy"})
    assert report.exists(), done.stderr[-3000:]
    found = json.loads(report.read_text())
    assert found == {"overflows": [], "faults": []}, done.stderr[-4000:]
    assert done.returncode == 0
    shots = sorted(p.name for p in (tmp_path / "shots").glob("*.png"))
    assert len(shots) == 19 * 3 * 3
    for name in ("timer_hu_720x1280.png", "settings_ru_1280x720.png", "home-keyboard_ru_800x480.png",
                 "sharing-countdown_hu_800x480.png", "timer-paused_en_720x1280.png", "timer-big_ru_1280x720.png",
                 "numpad_hu_800x480.png", "alarm_en_800x480.png", "volatio-banner_ru_800x480.png",
                 "history-export_hu_720x1280.png"):
        assert name in shots
