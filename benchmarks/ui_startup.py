"""The touch app's start-up time and its frame times while the hourglass runs (under a display).

    xvfb-run -a .venv/bin/python benchmarks/ui_startup.py [--runs 5] [--seconds 5] [--json]

1. Cold start: from spawning a fresh process to the first frame Kivy flips to the screen, over
   --runs starts (each on a new scratch database). Monotonic time is system-wide, so the child
   reports the flip's time and the parent subtracts its own spawn time.
2. Animation: with a negotiation timer running on the Timer screen, the interval between frames
   over --seconds, the time the frame pump spends in the core per frame (polling the session,
   ticking), and how long appending one event to the store takes (WAL, synchronous=FULL).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def child(mode: str, seconds: float) -> None:
    sys.path.insert(0, str(ROOT))
    from companion.ui.launch import build

    app = build(None, size="800x480", gpio="mock")
    from kivy.clock import Clock
    from kivy.core.window import Window

    flips: list[float] = []
    pump_s: list[float] = []
    appends_s: list[float] = []

    def on_flip(*_: Any) -> None:
        flips.append(time.monotonic())
        if mode == "start" and len(flips) == 1:
            print(json.dumps({"first_flip": flips[0]}), flush=True)
            Clock.schedule_once(lambda _dt: app.stop(), 0)

    Window.bind(on_flip=on_flip)
    if mode == "animate":
        real_pump = app.pump

        def timed_pump(dt: float) -> None:
            t = time.perf_counter()
            real_pump(dt)
            pump_s.append(time.perf_counter() - t)

        app.pump = timed_pump

        def setup(_dt: float) -> None:
            Clock.unschedule(real_pump)
            Clock.schedule_interval(timed_pump, 0)
            session = app.svc.start_session("timer", [])
            for i in range(20):  # the cost of an action: one durable append each
                t = time.perf_counter()
                session.add_timer(f"t{i}", 60)
                appends_s.append(time.perf_counter() - t)
            app.manager.current = "timer"
            app._screens["timer"].use_preset("negotiation")
            flips.clear()
            pump_s.clear()
            Clock.schedule_once(finish, seconds)

        def finish(_dt: float) -> None:
            gaps = [b - a for a, b in zip(flips, flips[1:], strict=False)]
            print(json.dumps({"frame_gaps_s": gaps, "pump_s": pump_s, "appends_s": appends_s}), flush=True)
            app.stop()

        Clock.schedule_once(setup, 1.0)
    app.run()


def spawn(mode: str, seconds: float) -> tuple[float, dict[str, Any]]:
    scratch = Path(tempfile.mkdtemp(prefix="companion-bench-"))
    env = {**os.environ, "XDG_DATA_HOME": str(scratch / "data"), "XDG_CONFIG_HOME": str(scratch / "config")}
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, __file__, "--child", mode, "--seconds", str(seconds)],
                          capture_output=True, text=True, env=env, timeout=120)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"child failed: {done.stderr[-2000:]}")
    return t0, json.loads(lines[-1])


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", choices=("start", "animate"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.seconds)
        return
    starts = []
    for _ in range(args.runs):
        t0, out = spawn("start", 0)
        starts.append(out["first_flip"] - t0)
    _, anim = spawn("animate", args.seconds)
    gaps, pump, appends = anim["frame_gaps_s"], anim["pump_s"], anim["appends_s"]
    results = {
        "cold_start_s": {"runs": len(starts), "median": statistics.median(starts), "max": max(starts)},
        "animation": {"frames": len(gaps) + 1, "fps_median": 1 / statistics.median(gaps),
                      "frame_gap_ms_median": statistics.median(gaps) * 1000,
                      "frame_gap_ms_p99": pct(gaps, 0.99) * 1000,
                      "pump_ms_median": statistics.median(pump) * 1000,
                      "pump_ms_p99": pct(pump, 0.99) * 1000},
        "store_append_ms": {"median": statistics.median(appends) * 1000, "p99": pct(appends, 0.99) * 1000},
    }
    if args.json:
        print(json.dumps(results, indent=2))
        return
    c, a, s = results["cold_start_s"], results["animation"], results["store_append_ms"]
    print(f"cold start to first frame: median {c['median']:.2f} s, max {c['max']:.2f} s "
          f"over {c['runs']} runs")
    print(f"hourglass running: {a['frames']} frames, {a['fps_median']:.1f} fps median, frame gap median "
          f"{a['frame_gap_ms_median']:.1f} ms, p99 {a['frame_gap_ms_p99']:.1f} ms; core per frame median "
          f"{a['pump_ms_median']:.3f} ms, p99 {a['pump_ms_p99']:.3f} ms")
    print(f"one durable store append: median {s['median']:.2f} ms, p99 {s['p99']:.2f} ms")


if __name__ == "__main__":
    main()
