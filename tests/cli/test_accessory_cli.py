"""``companion accessory ...`` and ``companion timer`` with the simulated accessory: real processes, real ptys."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.processes import Lines, run, runtime_dir

__all__ = ["Lines", "companion", "env"]  # Lines lives in tests/processes.py; other tests take it from here too


def env(tmp_path: Path) -> dict[str, str]:
    """A private runtime dir, so no other simulator is found by ``auto`` (and this test's
    simulator is found by no other test's ``auto``)."""
    return {**os.environ, "XDG_RUNTIME_DIR": runtime_dir(tmp_path / "run")}


def companion(tmp_path: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``companion ARGS``, given *timeout* desktop seconds (scaled); a hang fails with its stderr."""
    return run([sys.executable, "-m", "companion", *args], timeout_s=timeout, env=env(tmp_path))


@pytest.fixture
def simulator(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Lines, str]]:
    proc = subprocess.Popen([sys.executable, "-m", "companion", "accessory", "simulate", "--json"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env(tmp_path))
    lines = Lines(proc, "the simulator")
    try:
        first = json.loads(lines.next(15))
        assert set(first) == {"port"}
        yield proc, lines, first["port"]
        if proc.poll() is None:
            lines.write("quit\n")
            assert lines.wait(10) == 0, lines.stderr
        assert not os.path.exists(first["port"])  # the pty's link goes with it
    finally:
        lines.stop()


@pytest.mark.slow
def test_status_json_names_the_device(simulator: tuple[Any, Lines, str], tmp_path: Path) -> None:
    _proc, _lines, port = simulator
    done = companion(tmp_path, "accessory", "status", "--port", port, "--json")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert {k: got[k] for k in ("connected", "port", "protocol_version", "device_id", "firmware")} == {
        "connected": True, "port": port, "protocol_version": 1, "device_id": "sim-0001",
        "firmware": "simulator-1.0"}


@pytest.mark.slow
def test_status_finds_a_running_simulator_by_itself(simulator: tuple[Any, Lines, str], tmp_path: Path) -> None:
    done = companion(tmp_path, "accessory", "status")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"accessory connected on {simulator[2]}: sim-0001")


@pytest.mark.slow
def test_status_of_a_missing_port_is_not_connected_exit_1(tmp_path: Path) -> None:
    done = companion(tmp_path, "accessory", "status", "--port", str(tmp_path / "ttyACM9"), "--json", "--wait", "0.5")
    assert done.returncode == 1
    got = json.loads(done.stdout)
    assert got["connected"] is False and got["device_id"] is None and "cannot open it" in got["detail"]
    assert done.stderr == ""


@pytest.mark.parametrize(("args", "message"), [
    (["accessory", "simulate", "--drop", "200"], "--drop"),
    (["accessory", "simulate", "--unplug-for", "0"], "--unplug-for"),
    (["accessory", "status", "--port", "none"], "--port"),
    (["accessory", "frobnicate"], "invalid choice"),
])
@pytest.mark.slow
def test_accessory_bad_input_is_one_line_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    done = companion(tmp_path, *args)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and message in done.stderr


@pytest.mark.slow
def test_timer_and_simulator_count_down_together_and_its_button_pauses(
        simulator: tuple[subprocess.Popen[str], Lines, str], tmp_path: Path) -> None:
    """Both count real seconds (two processes, each on its own monotonic clock): every wait is
    for the next line either prints, and the checks are on what the lines say."""
    _sim, shown, port = simulator
    config = tmp_path / "config.toml"
    config.write_text("[timer]\nwarnings_s = [1]\n")
    timer = subprocess.Popen([sys.executable, "-m", "companion", "--config", str(config), "timer", "5",
                              "--accessory", port, "--json", "--gpio", "off"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(tmp_path))
    events = Lines(timer, "companion timer")
    try:
        start = json.loads(events.next(15))
        assert start["event"] == "start"
        running = shown.until(lambda v: v["state"] == "running" and v["link"] == "up")
        assert running["display"] in (" 005", " 004"), running
        shown.until(lambda v: v["display"] == " 003")  # it counts down by itself, second by second
        shown.write("press\n")  # the simulator's button
        paused = json.loads(events.next())
        assert paused["event"] == "paused", paused
        on_device = shown.until(lambda v: v["state"] == "paused")
        assert on_device["display"] == f"{0:2d}{int(-(-paused['remaining_s'] // 1)):02d}"
        shown.write("press\n")
        assert json.loads(events.next())["event"] == "resumed"
        shown.until(lambda v: v["state"] == "running")
        assert json.loads(events.next())["event"] == "warning"
        assert json.loads(events.next())["event"] == "expired"
        assert events.wait() == 0, events.stderr
        shown.until(lambda v: v["state"] == "expired")
    finally:
        events.stop()
    views = [json.loads(line) for line in shown.seen[1:]]
    seconds = [int(v["display"]) for v in views if v["state"] in ("running", "paused")]
    assert seconds == sorted(seconds, reverse=True)  # never back up, through the pause too
    assert seconds[0] >= 4 and seconds[-1] <= 1


@pytest.mark.slow
def test_monitor_prints_the_handshake_both_ways(simulator: tuple[Any, Lines, str], tmp_path: Path) -> None:
    done = companion(tmp_path, "accessory", "monitor", "--port", simulator[2], "--for", "0.7")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "host -> device  HELLO v1" in out
    assert "device -> host  HELLO v1 (reply) id=sim-0001" in out
    assert "host -> device  BRIGHTNESS 80%" in out
    assert "bad frames received: 0" in out


@pytest.mark.slow
def test_accessory_test_runs_every_output(simulator: tuple[Any, Lines, str], tmp_path: Path) -> None:
    done = companion(tmp_path, "accessory", "test", "--port", simulator[2])
    assert done.returncode == 0, done.stdout + done.stderr
    steps = done.stdout.splitlines()
    assert len(steps) >= 15 and all(line.endswith(" ok") for line in steps)
    sounds = {json.loads(line)["tone_hz"] for line in simulator[1].drain()[1:]}
    assert {523, 659, 784, 1047, 1760} <= sounds  # the scale and the alarm were heard
