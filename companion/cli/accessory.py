"""``companion accessory``: the USB timer accessory's status, monitor, test and simulator."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from companion.cli.common import EXIT_OK, signals_interrupt
from companion.clock import MonotonicClock
from companion.config import Config, load_config
from companion.errors import InvalidInput
from firmware_bridge.accessory import AccessoryBridge, AccessoryStatus


def register(commands: Any) -> None:
    """Adds this group's subcommands to the ``companion`` parser's *commands*."""
    accessory = commands.add_parser("accessory",
                                    help="the USB timer accessory: status, monitor, test, simulate")
    acc = accessory.add_subparsers(dest="action", metavar="ACTION", required=True)
    status = acc.add_parser("status", help="is it there, and what is it (exit 1 when not connected)")
    monitor = acc.add_parser("monitor", help="connect and print every frame both ways")
    test = acc.add_parser("test", help="the display, the LEDs and the buzzer through their patterns")
    for sub in (status, monitor, test):
        sub.add_argument("--port", metavar="PORT", help="auto, a port or a pyserial URL (default: config)")
    status.add_argument("--json", action="store_true", help="answer in JSON")
    status.add_argument("--wait", type=float, default=3.0, metavar="S",
                        help="how long to wait for a handshake")
    status.set_defaults(run=run_accessory_status)
    monitor.add_argument("--for", dest="for_s", type=float, metavar="S", help="stop after S seconds")
    monitor.set_defaults(run=run_accessory_monitor)
    test.set_defaults(run=run_accessory_test)
    sim = acc.add_parser("simulate", help="a simulated accessory on a pty, running the firmware's own code")
    sim.add_argument("--json", action="store_true",
                     help='first line {"port": PATH}, then the display as JSON lines; commands on stdin')
    sim.add_argument("--link", type=Path, metavar="PATH", help="where to put the port's symlink")
    sim.add_argument("--drop", type=float, default=0.0, metavar="PCT", help="drop this %% of bytes")
    sim.add_argument("--corrupt", type=float, default=0.0, metavar="PCT",
                     help="flip a bit in this %% of bytes")
    sim.add_argument("--delay", type=float, default=0.0, metavar="MS", help="every byte arrives this late")
    sim.add_argument("--reply-late", type=float, default=0.0, metavar="MS",
                     help="the device answers this late")
    sim.add_argument("--unplug-every", type=float, default=0.0, metavar="S",
                     help="pull the cable every S seconds (and put it back after --unplug-for)")
    sim.add_argument("--unplug-for", type=float, default=1.0, metavar="S", help="how long it stays unplugged")
    sim.add_argument("--protocol-version", type=int, default=None, metavar="N",
                     help="speak this protocol version (to try a mismatch)")
    sim.add_argument("--seed", type=int, metavar="N", help="seed for the faults (repeatable runs)")
    sim.add_argument("--baud", type=int, default=0, metavar="N",
                     help="pace bytes like a UART at N baud (default: as fast as the pty)")
    sim.set_defaults(run=run_accessory_simulate)


def _accessory_port(args: argparse.Namespace, config: Config) -> str:
    setting: str = args.port if args.port is not None else config["accessory.port"]
    if setting == "none":
        raise InvalidInput("--port", setting, "no accessory is configured; give --port PORT")
    return setting


def _connect(args: argparse.Namespace, **kwargs: Any) -> tuple[AccessoryBridge, bool]:
    """A started bridge on the configured or given port, and whether it connected in time."""
    config = load_config(args.config)
    bridge = AccessoryBridge(_accessory_port(args, config), lambda fn: fn(),
                             usb_ids=config["accessory.usb_ids"], brightness=config["accessory.brightness"],
                             **kwargs)
    bridge.start()
    wait_s = getattr(args, "wait", 3.0)
    ok = bridge.wait_until(lambda: bridge.status.is_connected
                           or bridge.status.state in ("version mismatch", "no answer"), max(0.0, wait_s))
    return bridge, ok and bridge.status.is_connected


def run_accessory_status(args: argparse.Namespace) -> int:
    """Is the accessory there: exit 0 when connected, 1 when not."""
    bridge, connected = _connect(args)
    bridge.close(flush_s=0)
    status = bridge.status
    if args.json:
        print(json.dumps(status.to_json()))
    else:
        print(status.to_text())
    return EXIT_OK if connected else 1


def run_accessory_monitor(args: argparse.Namespace) -> int:
    """Hold the link and print every decoded frame, both ways, until Ctrl-C or --for.

    The I/O thread only queues the lines; this (main) thread prints them, so a closed
    stdout (``| head``) ends the command here, not the link's thread.
    """
    import queue

    from firmware_bridge.firmware.accessory_proto import describe

    clock = MonotonicClock()
    start = clock.now()
    lines: queue.SimpleQueue[str] = queue.SimpleQueue()

    def tap(direction: str, mtype: int, payload: bytes) -> None:
        arrow = "host -> device" if direction == "tx" else "device -> host"
        lines.put(f"{clock.now() - start:9.3f}  {arrow}  {describe(mtype, payload)}")

    def on_status(status: AccessoryStatus) -> None:
        lines.put(f"{clock.now() - start:9.3f}  {status.to_text()}")

    restore = signals_interrupt()
    config = load_config(args.config)
    bridge = AccessoryBridge(_accessory_port(args, config), lambda fn: fn(), tap=tap, on_status=on_status,
                             usb_ids=config["accessory.usb_ids"], brightness=config["accessory.brightness"])
    end = start + (args.for_s if args.for_s is not None else float("inf"))
    try:
        bridge.start()
        while clock.now() < end:
            try:
                print(lines.get(timeout=min(0.1, max(0.0, end - clock.now()))), flush=True)
            except queue.Empty:
                continue
        print(f"bad frames received: {bridge.protocol.link.bad_frames}", flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        bridge.close(flush_s=0)
        restore()
    return EXIT_OK


def run_accessory_test(args: argparse.Namespace) -> int:
    """Every output through its paces; exit 1 when the accessory is not there or refuses."""
    from firmware_bridge.accessory import self_test

    bridge, connected = _connect(args)
    try:
        if not connected:
            print(bridge.status.to_text(), file=sys.stderr)
            return 1
        ok = self_test(bridge, lambda line: print(line, flush=True))
    finally:
        bridge.close()
    return EXIT_OK if ok else 1


def run_accessory_simulate(args: argparse.Namespace) -> int:
    """A simulated accessory on a pty until Ctrl-C, q, or 'quit' on stdin."""
    from firmware_bridge.simulator import serve

    for flag, value in (("--drop", args.drop), ("--corrupt", args.corrupt)):
        if not 0 <= value <= 100:
            raise InvalidInput(flag, value, "must be a percentage from 0 to 100")
    for flag, value in (("--delay", args.delay), ("--reply-late", args.reply_late),
                        ("--unplug-every", args.unplug_every)):
        if value < 0:
            raise InvalidInput(flag, value, "must not be negative")
    if args.baud < 0:
        raise InvalidInput("--baud", args.baud, "must not be negative")
    if args.unplug_for <= 0:
        raise InvalidInput("--unplug-for", args.unplug_for, "must be more than 0")
    restore = signals_interrupt()
    try:
        return serve(args)
    except KeyboardInterrupt:
        return EXIT_OK
    finally:
        restore()
