"""The touch app with the simulated USB timer accessory, in a real window (Xvfb) and a real pty."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.cli.test_accessory_cli import Lines
from tests.ui.test_journeys import DRIVER, scratch


def test_ui_accessory_button_pauses_and_the_app_survives_the_unplug(tmp_path: Path, display: str) -> None:
    runtime = tmp_path / "run"
    runtime.mkdir()
    sim = subprocess.Popen([sys.executable, "-m", "companion", "accessory", "simulate", "--json"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env={**os.environ, "XDG_RUNTIME_DIR": str(runtime)})
    shown = Lines(sim)
    port = json.loads(shown.next(15))["port"]
    env = scratch(tmp_path, f'[timer.presets]\nnegotiation = 60\n[accessory]\nport = "{port}"\n')
    app = subprocess.Popen([sys.executable, str(DRIVER), "accessory"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True,
                           env={**os.environ, **env, "DISPLAY": display, "XDG_RUNTIME_DIR": str(runtime)})
    out = Lines(app)
    assert sim.stdin is not None
    try:
        def step() -> dict:
            while True:
                line = out.next(60)
                if line.startswith("RESULT "):
                    return json.loads(line[7:])

        assert step() == {"step": "running"}
        view = shown.until(lambda v: v["state"] == "running" and v["link"] == "up", 10)
        assert view["display"] in (" 100", " 059")  # 60 s: 1:00 or just under
        sim.stdin.write("press\n")
        sim.stdin.flush()
        assert step() == {"step": "paused"}
        assert shown.until(lambda v: v["state"] == "paused", 10)["display"] in (" 100", " 059", " 058")
        sim.stdin.write("quit\n")  # the cable is pulled: the pty goes away
        sim.stdin.flush()
        assert sim.wait(10) == 0
        last = step()
        assert last["step"] == "works_without" and "disconnected" in last["strip"]
        assert app.wait(30) == 0, app.stderr.read() if app.stderr else ""
    finally:
        for proc in (app, sim):
            if proc.poll() is None:
                proc.kill()
