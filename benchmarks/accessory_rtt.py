"""The timer accessory's link: command-to-ack round trip, and how soon a replug is resynchronised.

1. Round trip: the host bridge sends one PATTERN command at a time to the simulator (a
   separate process, the firmware's own protocol code, behind a real pty) and times from
   the frame's write to its ACK's arrival, both seen on the bridge's I/O thread. Once over
   the raw pty (as fast as the kernel moves bytes), once with the simulator pacing every
   byte like a 115200-baud UART (10 bits a byte).
2. Resync: a timer runs on the host while the simulator pulls its cable every 1.5 s for
   0.5 s; the time from the pty coming back to the (rebooted) device showing the running
   timer again.

Run: .venv/bin/python benchmarks/accessory_rtt.py [--commands 2000] [--replugs 10] [--json]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

from companion.clock import MonotonicClock
from companion.events import EventBus
from companion.timers import TimerBoard
from firmware_bridge.accessory import AccessoryBridge
from firmware_bridge.firmware import accessory_proto as proto
from firmware_bridge.simulator import Faults, Simulator


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"n": len(ordered), "p50_ms": round(statistics.median(ordered), 3),
            "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 3),
            "max_ms": round(ordered[-1], 3)}


def round_trips(commands: int, baud: int) -> dict[str, Any]:
    args = [sys.executable, "-m", "companion", "accessory", "simulate", "--json"]
    if baud:
        args += ["--baud", str(baud)]
    sim = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert sim.stdout is not None
    port = json.loads(sim.stdout.readline())["port"]
    threading.Thread(target=lambda: [None for _ in sim.stdout], daemon=True).start()  # type: ignore[union-attr]
    sent_at: dict[int, float] = {}
    rtts: list[float] = []
    acked = threading.Event()
    pending: list[int] = []

    def tap(direction: str, mtype: int, payload: bytes) -> None:
        now = time.monotonic()
        if direction == "tx" and mtype == proto.PATTERN:
            sent_at.setdefault(payload[3], now)  # the first send; a retransmission keeps it
            pending[:] = [payload[3]]
        elif direction == "rx" and mtype == proto.ACK and pending and pending[0] in sent_at:
            rtts.append((now - sent_at.pop(pending[0])) * 1000)
            pending.clear()
            acked.set()

    bridge = AccessoryBridge(port, lambda fn: fn(), tap=tap).start()
    try:
        assert bridge.wait_until(lambda: bridge.status.is_connected, 10), bridge.status
        bridge.wait_until(bridge.is_idle, 2)
        for i in range(commands):
            acked.clear()
            bridge.command(proto.PATTERN, proto.pack_pattern(proto.PAT_TEST, 0, i % 256))
            if not acked.wait(2):
                raise SystemExit(f"no ack for command {i}")
            bridge.wait_until(bridge.is_idle, 2)
        retransmits = bridge.protocol.link.retransmits
    finally:
        bridge.close(flush_s=0)
        if sim.stdin is not None:
            sim.stdin.write("quit\n")
            sim.stdin.flush()
        sim.wait(10)
    return {**percentiles(rtts), "baud": baud or "raw pty", "retransmits": retransmits}


def resyncs(replugs: int) -> dict[str, Any]:
    sim = Simulator(faults=Faults(unplug_every_s=1.5, unplug_for_s=0.5))
    thread = threading.Thread(target=sim.run, daemon=True)
    thread.start()
    sim.ready.wait(5)
    clock = MonotonicClock()
    bus = EventBus()
    board = TimerBoard(clock, bus)
    bridge = AccessoryBridge(str(sim.link), lambda fn: fn())
    bridge.attach(bus)
    bridge.start()
    times: list[float] = []
    try:
        assert bridge.wait_until(lambda: bridge.status.is_connected, 10)
        board.add("t", 3600)
        board.start("t")
        for _ in range(replugs):
            while sim.port is not None:
                time.sleep(0.0005)
            while sim.port is None:
                time.sleep(0.0005)
            back = time.monotonic()
            while sim.device.state != proto.STATE_RUNNING:
                time.sleep(0.0005)
                if time.monotonic() - back > 10:
                    raise SystemExit("no resync within 10 s")
            times.append((time.monotonic() - back) * 1000)
            now = clock.now()
            error_ms = abs(sim.device.remaining_ms(now * 1000) - board["t"].remaining_s(now) * 1000)
            assert error_ms < 50, error_ms
    finally:
        bridge.close(flush_s=0)
        sim.stop()
        thread.join(5)
    return percentiles(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=2000)
    parser.add_argument("--replugs", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = {
        "machine": f"{platform.processor() or platform.machine()}, Python {platform.python_version()}",
        "raw_pty": round_trips(args.commands, 0),
        "uart_115200": round_trips(args.commands, 115200),
        "replug_resync": resyncs(args.replugs),
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for name in ("raw_pty", "uart_115200", "replug_resync"):
        r = report[name]
        line = f"{name:<14} n={r['n']:<5} p50 {r['p50_ms']:8.3f} ms  p99 {r['p99_ms']:8.3f} ms"
        extra = f"  retransmits {r['retransmits']}" if "retransmits" in r else ""
        print(line + f"  max {r['max_ms']:8.3f} ms" + extra)


if __name__ == "__main__":
    main()
