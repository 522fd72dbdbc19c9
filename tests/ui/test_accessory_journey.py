"""The touch app with the simulated USB timer accessory, in a real window (Xvfb) and a real pty."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.processes import Lines, runtime_dir
from tests.slowdown import scaled
from tests.ui.test_journeys import DRIVER, journey_env, scratch

pytestmark = pytest.mark.slow


def test_ui_accessory_button_pauses_and_the_app_survives_the_unplug(tmp_path: Path, display: str) -> None:
    """Two processes, each on the real monotonic clock: every wait is for the next line one of
    them prints (deadlines scaled by the slowdown), and a failure shows both stderrs."""
    runtime = runtime_dir(tmp_path / "run")  # this test's own: no other simulator, no other app
    sim = subprocess.Popen([sys.executable, "-m", "companion", "accessory", "simulate", "--json"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=journey_env({"XDG_RUNTIME_DIR": runtime}, None))
    shown = Lines(sim, "the simulator")
    app: Lines | None = None
    try:
        port = json.loads(shown.next(15))["port"]
        env = scratch(tmp_path, f'[timer.presets]\nnegotiation = 60\n[accessory]\nport = "{port}"\n')
        app = Lines(subprocess.Popen([sys.executable, str(DRIVER), "accessory"], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True,
                                     env=journey_env({**env, "XDG_RUNTIME_DIR": runtime}, display)),
                    "the app")

        def step() -> dict:
            return json.loads(app.next_matching(lambda line: line.startswith("RESULT "), 60)[7:])

        try:
            assert step() == {"step": "running"}
            view = shown.until(lambda v: v["state"] == "running" and v["link"] == "up", 30)
            # the app's 60 s, less the moment the frame took (generous: a busy machine's moment)
            assert 60_000 - scaled(5_000) < view["remaining_ms"] <= 60_000, view
            shown.write("press\n")
            assert step() == {"step": "paused"}
            paused = shown.until(lambda v: v["state"] == "paused", 30)
            assert paused["remaining_ms"] <= view["remaining_ms"], (paused, view)
            shown.write("quit\n")  # the cable is pulled: the pty goes away
            assert shown.wait(10) == 0, shown.stderr
            last = step()
            assert last["step"] == "works_without" and "disconnected" in last["strip"]
            assert app.wait(30) == 0, app.stderr
        except BaseException as exc:
            raise AssertionError(f"{exc}\n-- the app's stderr:\n{app.stderr[-3000:]}\n"
                                 f"-- the simulator's stderr:\n{shown.stderr[-1500:]}") from exc
    finally:
        for lines in (app, shown):
            if lines is not None:
                lines.stop()
