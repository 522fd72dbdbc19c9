"""How late the buzzer goes off, on the real clock with gpiozero's mock pins.

1. Many short timers, one after another: the lateness of the buzzer pin's rising edge
   after each deadline (p50 / p99 / max).
2. A long timer (60 s unless --long-s says otherwise) whose tick listener sleeps 50 ms
   on every tick: how far from the intended end the expiry and the buzzer edge land.

Run: .venv/bin/python benchmarks/timer_latency.py [--timers 200] [--long-s 60] [--json]
Pin times come from MockPin's own history (monotonic deltas), anchored to the moment
the history was cleared.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPWMPin

from companion.clock import MonotonicClock
from companion.events import EventBus, TimerExpired, TimerTicked
from companion.loop import CoreLoop
from companion.timers import TimerBoard
from firmware_bridge.gpio import ButtonActions, PanelSettings, PinSetup, SandTimerPanel

BUZZER = 18


def rising_edges(pin: MockPWMPin, anchor: float) -> list[float]:
    """Absolute monotonic times at which *pin* went high, from its delta-stamped history."""
    t, edges = anchor, []
    for change in pin.states[1:]:
        t += change.timestamp
        if change.state:
            edges.append(t)
    return edges


def rig(tick_hz: float, warnings: tuple[float, ...]) -> tuple[TimerBoard, CoreLoop, SandTimerPanel,
                                                             MockFactory, EventBus]:
    factory = MockFactory(pin_class=MockPWMPin)
    clock = MonotonicClock()
    bus = EventBus()
    board = TimerBoard(clock, bus, tick_hz=tick_hz, warnings_s=warnings)
    loop = CoreLoop(board, clock)
    panel = SandTimerPanel(PanelSettings(alarm_s=0.05), PinSetup("mock", "mock", factory), loop.post,
                           ButtonActions(lambda: None, lambda: None))
    panel.attach(bus, on_alarm_done=loop.stop)
    return board, loop, panel, factory, bus


def short_timers(count: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    board, loop, panel, factory, _ = rig(10.0, ())
    pin = factory.pin(BUZZER)
    lateness_ms = []
    try:
        for i in range(count):
            name = f"t{i}"
            board.add(name, rng.uniform(0.12, 0.25))
            board.start(name)
            deadline = board[name].deadline
            assert deadline is not None
            panel.wait_for_buzzer(1)  # the start beep is over (80 ms)
            anchor = time.monotonic()
            pin.clear_states()
            loop.run()  # returns when the alarm has sounded
            edges = [t for t in rising_edges(pin, anchor) if t >= deadline - 0.001]
            lateness_ms.append((edges[0] - deadline) * 1000)
            board.cancel(name)
    finally:
        panel.close()
        factory.close()
    return lateness_ms


def long_timer(length_s: float, tick_hz: float, listener_sleep_s: float) -> dict[str, Any]:
    board, loop, panel, factory, bus = rig(tick_hz, (10.0, 3.0))
    pin = factory.pin(BUZZER)
    ticks: list[TimerTicked] = []
    expired: list[TimerExpired] = []

    def slow_listener(event: TimerTicked) -> None:
        ticks.append(event)
        time.sleep(listener_sleep_s)

    bus.subscribe(TimerTicked, slow_listener)
    bus.subscribe(TimerExpired, expired.append)
    try:
        anchor = time.monotonic()
        pin.clear_states()
        board.add("long", length_s)
        board.start("long")
        intended_end = board["long"].deadline
        assert intended_end is not None
        loop.run()
        edge = [t for t in rising_edges(pin, anchor) if t >= intended_end - 0.001][0]
        truth_errors = [abs((intended_end - t.t_mono) - t.remaining_s) * 1000 for t in ticks]
        return {
            "length_s": length_s, "tick_hz": tick_hz, "listener_sleep_ms": listener_sleep_s * 1000,
            "ticks_delivered": len(ticks), "ticks_skipped": loop.ticks_skipped,
            "expiry_error_ms": (expired[0].t_mono - intended_end) * 1000,
            "buzzer_edge_error_ms": (edge - intended_end) * 1000,
            "tick_remaining_max_error_ms": max(truth_errors, default=0.0),
        }
    finally:
        panel.close()
        factory.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def machine() -> dict[str, Any]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("model name", "Model")):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import os

    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "system": f"{platform.system()} {platform.release()} {platform.machine()}"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timers", type=int, default=200)
    parser.add_argument("--long-s", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    late = short_timers(args.timers, args.seed)
    results = {
        "machine": machine(),
        "short_timers": {"count": len(late), "p50_ms": statistics.median(late),
                         "p99_ms": percentile(late, 0.99), "max_ms": max(late)},
        "long_timer": long_timer(args.long_s, 10.0, 0.05),
        "long_timer_saturated": long_timer(args.long_s, 20.0, 0.05),
    }
    if args.json:
        print(json.dumps(results, indent=2))
        return
    s = results["short_timers"]
    print(f"machine: {results['machine']}")
    print(f"{s['count']} short timers: buzzer edge after deadline p50 {s['p50_ms']:.3f} ms, "
          f"p99 {s['p99_ms']:.3f} ms, max {s['max_ms']:.3f} ms")
    for key in ("long_timer", "long_timer_saturated"):
        r = results[key]
        print(f"{r['length_s']:g} s timer, {r['tick_hz']:g} Hz ticks, listener sleeps "
              f"{r['listener_sleep_ms']:g} ms: expiry {r['expiry_error_ms']:+.3f} ms, buzzer edge "
              f"{r['buzzer_edge_error_ms']:+.3f} ms, {r['ticks_delivered']} ticks "
              f"({r['ticks_skipped']} skipped), tick remaining off by <= "
              f"{r['tick_remaining_max_error_ms']:.3f} ms")


if __name__ == "__main__":
    main()
