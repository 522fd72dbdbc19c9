"""A venue under load: many tables on one local Mosquitto, followed by ``companion venue watch``.

Starts the tests' Mosquitto (its ACL example, a user per table), ``companion venue watch --json``
in its own process, and the tables in groups: each group is one process running its tables'
real :class:`~venue.link.VenueLink` (each with its own outbox database) on one core thread. Every
table toggles its timer (start, pause, start...) twice a second, at its own phase, for the run.

Measured: from a table's change (the ``t`` in its message) to the watcher printing it (the
``t`` of its line), over every change the watcher printed; how many changes each group made and
how many the watcher printed (none may be lost); the CPU time the broker, the watcher and the
table groups took over the run, as a share of one core.

Run: .venv/bin/python benchmarks/venue_load.py [--tables 100] [--groups 4] [--seconds 60] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import queue
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHANGES_PER_S = 2.0


def cpu_s(pid: int) -> float:
    """The CPU time (user + system) process *pid* has used, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_group(url: str, tables: list[str], seconds: float, rate: float, folder: Path) -> None:
    """One group's tables (a process): toggle each table's timer *rate* times a second."""
    from companion.clock import MonotonicClock
    from companion.events import EventBus
    from companion.timers import TimerBoard
    from venue.link import VenueLink, VenueSettings
    from venue.outbox import Outbox
    from venue.protocol import Broker

    inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
    clock = MonotonicClock()
    boards, links = [], []
    for table in tables:
        bus = EventBus()
        board = TimerBoard(clock, bus, tick_hz=1.0)
        board.add("game", 3600)
        settings = VenueSettings(Broker.from_url(url), table, username=table, password=f"{table}-secret",
                                 discovery_prefix="")
        link = VenueLink(settings, Outbox(folder / f"{table}.sqlite3", f"companion/{table}"), inbox.put,
                         clock, wall=time.time)
        link.attach(bus, lambda b=board: {n: b[n] for n in b.names})
        link.start()
        boards.append(board)
        links.append(link)
    while not all(link.connected for link in links):  # everyone online before the clock starts
        inbox.get()()
    print(json.dumps({"ready": True}), flush=True)
    waiting = threading.Thread(target=sys.stdin.readline, daemon=True)  # "go": the watcher follows
    waiting.start()
    while waiting.is_alive():
        with contextlib.suppress(queue.Empty):
            inbox.get(timeout=0.05)()
    period = 1.0 / rate
    start = clock.now()
    due = [start + period * i / len(tables) for i in range(len(tables))]
    changes = 0
    while clock.now() < start + seconds:
        nxt = min(due)
        try:
            inbox.get(timeout=max(0.0, nxt - clock.now()))()
            continue
        except queue.Empty:
            pass
        i = due.index(nxt)
        boards[i].toggle("game")
        changes += 1
        due[i] += period
    settle = clock.now() + 10
    while any(link.pending for link in links) and clock.now() < settle:
        with contextlib.suppress(queue.Empty):
            inbox.get(timeout=0.1)()
    for link in links:
        link.close()
    print(json.dumps({"changes": changes}), flush=True)


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"n": len(ordered), "p50_ms": round(statistics.median(ordered), 2),
            "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 2),
            "max_ms": round(ordered[-1], 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--groups", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--group", help=argparse.SUPPRESS)  # URL,t1,t2,...: run one group
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.group:
        url, *tables = args.group.split(",")
        run_group(url, tables, args.seconds, CHANGES_PER_S, Path(args.folder))
        return 0

    sys.path.insert(0, str(ROOT))
    from tests.support.mosquitto import Broker

    with tempfile.TemporaryDirectory(prefix="venue-load-") as tmp:
        folder = Path(tmp)
        broker = Broker(folder / "broker", tables=args.tables, log_type="notice")
        broker.start()
        try:
            return measure(args, broker, folder)
        finally:
            broker.stop()


def measure(args: argparse.Namespace, broker: Any, folder: Path) -> int:
    config = folder / "watch.toml"
    config.write_text(f'[venue]\nusername = "venue"\npassword = "{broker.passwords["venue"]}"\n')
    tables = list(broker.tables)
    groups = []
    for g in range(args.groups):
        mine = tables[g::args.groups]
        command = [sys.executable, __file__, "--group", ",".join([broker.url, *mine]),
                   "--folder", str(folder), "--seconds", str(args.seconds)]
        groups.append(subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                       cwd=ROOT))
    for proc in groups:
        assert proc.stdout is not None and json.loads(proc.stdout.readline()).get("ready"), "a group failed"
    watch = subprocess.Popen([sys.executable, "-m", "companion", "--config", str(config), "venue", "watch",
                              broker.url, "--json"], stdout=subprocess.PIPE, text=True)
    lines: queue.SimpleQueue[str | None] = queue.SimpleQueue()

    def read_watch() -> None:
        for line in watch.stdout or ():
            lines.put(line)
        lines.put(None)
    threading.Thread(target=read_watch, daemon=True).start()
    online: set[str] = set()
    while len(online) < len(tables):  # every table's retained state has reached the watcher
        record = json.loads(lines.get(timeout=60) or "null")
        if record["part"] == "timer":
            online.add(record["table"])
    began, began_wall = time.monotonic(), time.time()
    for proc in groups:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()

    def cpu_now() -> dict[str, float]:
        return {"broker": cpu_s(broker._proc.pid), "watcher": cpu_s(watch.pid),
                "tables": sum(cpu_s(p.pid) for p in groups)}
    cpu0 = cpu_now()
    latencies: list[float] = []
    seen: set[tuple[str, int]] = set()  # (table, seq) of each timer state printed during the run
    changes = 0
    cpu1: dict[str, float] = {}
    done = 0
    elapsed = args.seconds

    def take(record: dict[str, Any]) -> None:
        """A timer's state the watcher printed: counted, and timed if it changed during the run."""
        if record["part"] == "timer" and record["body"] and record["body"]["t"] >= began_wall:
            seen.add((record["table"], record["seq"]))
            latencies.append((record["t"] - record["body"]["t"]) * 1000)

    while done < len(groups) or not cpu1:
        if not cpu1 and time.monotonic() - began >= args.seconds:
            cpu1 = cpu_now()
            elapsed = time.monotonic() - began
        try:
            line = lines.get(timeout=0.05)
        except queue.Empty:
            line = ""
        if line:
            take(json.loads(line))
        for proc in groups:
            if proc.poll() is not None and proc.stdout is not None and not proc.stdout.closed:
                changes += json.loads(proc.stdout.read().strip().splitlines()[-1])["changes"]
                proc.stdout.close()
                done += 1
    # what was published last may still be on its way to the watcher
    settle = time.monotonic() + 10
    while len(seen) < changes and time.monotonic() < settle:
        try:
            line = lines.get(timeout=0.1)
        except queue.Empty:
            continue
        if line:
            take(json.loads(line))
    watch.send_signal(signal.SIGTERM)
    watch.wait(30)
    result = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "tables": args.tables, "groups": args.groups, "seconds": args.seconds,
        "changes_made": changes, "changes_seen": len(seen),
        "change_to_watch": percentiles(latencies),
        "cpu_share_of_one_core": {k: round((cpu1[k] - cpu0[k]) / elapsed, 3) for k in cpu0},
    }
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
