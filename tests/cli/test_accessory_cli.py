"""``companion accessory ...`` and ``companion timer`` with the simulated accessory: real processes, real ptys."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def env(tmp_path: Path) -> dict[str, str]:
    """A private runtime dir, so no other simulator is found by ``auto``."""
    runtime = tmp_path / "run"
    runtime.mkdir(exist_ok=True)
    return {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}


def companion(tmp_path: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True,
                          timeout=timeout, env=env(tmp_path))


class Lines:
    """A process's stdout lines, read on a thread, waited for with a timeout."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.seen: list[str] = []
        self._q: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._q.put(line)
        self._q.put(None)

    def next(self, timeout_s: float = 10) -> str:
        line = self._q.get(timeout=timeout_s)
        assert line is not None, "the process ended"
        self.seen.append(line)
        return line

    def drain(self) -> list[str]:
        """Every line so far (waits for none)."""
        while True:
            try:
                line = self._q.get_nowait()
            except queue.Empty:
                return self.seen
            if line is not None:
                self.seen.append(line)

    def until(self, pred: Any, timeout_s: float = 10) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while True:
            record: dict[str, Any] = json.loads(self.next(max(0.01, deadline - time.monotonic())))
            if pred(record):
                return record


@pytest.fixture
def simulator(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Lines, str]]:
    proc = subprocess.Popen([sys.executable, "-m", "companion", "accessory", "simulate", "--json"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env(tmp_path))
    lines = Lines(proc)
    first = json.loads(lines.next(15))
    assert set(first) == {"port"}
    try:
        yield proc, lines, first["port"]
    finally:
        if proc.poll() is None:
            assert proc.stdin is not None
            proc.stdin.write("quit\n")
            proc.stdin.flush()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
        assert not os.path.exists(first["port"])  # the pty's link goes with it


def test_status_json_names_the_device(simulator: tuple[Any, Lines, str], tmp_path: Path) -> None:
    _proc, _lines, port = simulator
    done = companion(tmp_path, "accessory", "status", "--port", port, "--json")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert {k: got[k] for k in ("connected", "port", "protocol_version", "device_id", "firmware")} == {
        "connected": True, "port": port, "protocol_version": 1, "device_id": "sim-0001",
        "firmware": "simulator-1.0"}


def test_status_finds_a_running_simulator_by_itself(simulator: tuple[Any, Lines, str], tmp_path: Path) -> None:
    done = companion(tmp_path, "accessory", "status")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"accessory connected on {simulator[2]}: sim-0001")


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
def test_accessory_bad_input_is_one_line_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    done = companion(tmp_path, *args)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and message in done.stderr


def test_timer_and_simulator_count_down_together_and_its_button_pauses(
        simulator: tuple[subprocess.Popen[str], Lines, str], tmp_path: Path) -> None:
    sim, shown, port = simulator
    config = tmp_path / "config.toml"
    config.write_text("[timer]\nwarnings_s = [1]\n")
    timer = subprocess.Popen([sys.executable, "-m", "companion", "--config", str(config), "timer", "5",
                              "--accessory", port, "--json", "--gpio", "off"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(tmp_path))
    events = Lines(timer)
    try:
        start = json.loads(events.next(15))
        assert start["event"] == "start"
        running = shown.until(lambda v: v["state"] == "running" and v["link"] == "up")
        assert running["display"] in (" 005", " 004")
        shown.until(lambda v: v["display"] == " 003")  # it counts down by itself, second by second
        assert sim.stdin is not None
        sim.stdin.write("press\n")  # the simulator's button
        sim.stdin.flush()
        paused = json.loads(events.next(5))
        assert paused["event"] == "paused"
        on_device = shown.until(lambda v: v["state"] == "paused")
        assert on_device["display"] == f"{0:2d}{int(-(-paused['remaining_s'] // 1)):02d}"
        sim.stdin.write("press\n")
        sim.stdin.flush()
        assert json.loads(events.next(5))["event"] == "resumed"
        shown.until(lambda v: v["state"] == "running")
        assert json.loads(events.next(10))["event"] == "warning"
        assert json.loads(events.next(10))["event"] == "expired"
        assert timer.wait(10) == 0
        shown.until(lambda v: v["state"] == "expired")
    finally:
        if timer.poll() is None:
            timer.kill()
    views = [json.loads(line) for line in shown.seen[1:]]
    seconds = [int(v["display"]) for v in views if v["state"] in ("running", "paused")]
    assert seconds == sorted(seconds, reverse=True)  # never back up, through the pause too
    assert seconds[0] >= 4 and seconds[-1] <= 1


def test_monitor_prints_the_handshake_both_ways(simulator: tuple[Any, Lines, str], tmp_path: Path) -> None:
    done = companion(tmp_path, "accessory", "monitor", "--port", simulator[2], "--for", "0.7")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "host -> device  HELLO v1" in out
    assert "device -> host  HELLO v1 (reply) id=sim-0001" in out
    assert "host -> device  BRIGHTNESS 80%" in out
    assert "bad frames received: 0" in out


def test_accessory_test_runs_every_output(simulator: tuple[Any, Lines, str], tmp_path: Path) -> None:
    done = companion(tmp_path, "accessory", "test", "--port", simulator[2])
    assert done.returncode == 0, done.stdout + done.stderr
    steps = done.stdout.splitlines()
    assert len(steps) >= 15 and all(line.endswith(" ok") for line in steps)
    sounds = {json.loads(line)["tone_hz"] for line in simulator[1].drain()[1:]}
    assert {523, 659, 784, 1047, 1760} <= sounds  # the scale and the alarm were heard
