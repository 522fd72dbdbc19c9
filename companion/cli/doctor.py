"""``companion doctor``: what this machine has."""

from __future__ import annotations

import argparse
import json
import os
import platform
from pathlib import Path
from typing import Any

from companion.cli.common import EXIT_OK
from companion.config import default_config_path, defaults, load_config
from companion.errors import CompanionError
from firmware_bridge.board import board_model, is_raspberry_pi
from firmware_bridge.errors import BridgeError
from firmware_bridge.gpio import (
    PinSetup,
    choose_pin_factory,
)


def register(commands: Any) -> None:
    """Adds this group's subcommands to the ``companion`` parser's *commands*."""
    doctor = commands.add_parser("doctor", help="what this machine has: board, pins, ports, camera")
    doctor.add_argument("--json", action="store_true", help="answer in JSON")
    doctor.set_defaults(run=run_doctor)


def run_doctor(args: argparse.Namespace) -> int:
    report = doctor_report(args.config)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(_doctor_text(report))
    return EXIT_OK


def doctor_report(config_path: Path | None) -> dict[str, Any]:
    """What this machine has. Reports; never raises for a problem it finds."""
    import sqlite3

    from companion.disk import running_pid
    from companion.store import Store, StoreError
    from firmware_bridge.serial_ports import list_serial_ports
    from vision.devices import list_video_devices
    from vision.picamera import picamera2_report

    path = config_path if config_path is not None else default_config_path()
    try:
        config = load_config(config_path)
        config_error = None
    except CompanionError as exc:
        config, config_error = defaults(), str(exc)
    mode = config["gpio.mode"]
    gpio: dict[str, Any] = {"mode": mode, "buzzer_type": config["gpio.buzzer_type"],
                            "pins": {"buzzer": config["gpio.buzzer_pin"],
                                     "bar": list(config["gpio.bar_pins"]),
                                     "status_led": config["gpio.status_led_pin"],
                                     "button": config["gpio.button_pin"]}}
    try:
        setup: PinSetup = choose_pin_factory(mode)
    except BridgeError as exc:
        gpio.update(pin_factory=None, kind=None, error=str(exc))
    else:
        gpio.update(pin_factory=setup.name, kind=setup.kind, error=None)
        if setup.factory is not None:
            setup.factory.close()
    try:
        serial_ports: list[dict[str, Any]] | dict[str, str] = list_serial_ports()
    except Exception as exc:  # a report, not a verdict: say what went wrong and go on
        serial_ports = {"error": str(exc)}
    database = config.database_path
    # Read-only, so it works beside a running app; "app_pid" is the app writing it, if one is.
    database_report: dict[str, Any] = {"path": str(database), "exists": database.exists(), "readable": False,
                                       "sessions": None, "error": None,
                                       "app_pid": running_pid(Path(f"{database}.lock"))}
    if database_report["exists"]:
        try:
            store = Store.open_read_only(database)
            try:
                database_report.update(readable=True, sessions=len(store.sessions()))
            finally:
                store.close()
        except (StoreError, sqlite3.Error) as exc:
            database_report["error"] = str(exc)
    return {
        "platform": {"system": platform.system(), "machine": platform.machine(),
                     "python": platform.python_version(), "raspberry_pi": is_raspberry_pi(),
                     "model": board_model(), "picamera2": picamera2_report()},
        "gpio": gpio,
        "serial_ports": serial_ports,
        "video_devices": list_video_devices(),
        "config": {"path": str(path), "exists": path.exists(), "valid": config_error is None,
                   "error": config_error},
        "database": database_report,
        "display": display_status(),
    }


def display_status() -> dict[str, Any]:
    """Where a window could go: X11, Wayland, or the console's KMS/DRM devices."""
    x11 = os.environ.get("DISPLAY") or None
    wayland = os.environ.get("WAYLAND_DISPLAY") or None
    drm = sorted(str(p) for p in Path("/dev/dri").glob("card*")) if Path("/dev/dri").is_dir() else []
    return {"available": bool(x11 or wayland or drm), "x11": x11, "wayland": wayland, "drm": drm}


def _doctor_text(report: dict[str, Any]) -> str:
    p, g, c, d = report["platform"], report["gpio"], report["config"], report["display"]
    ports = report["serial_ports"]
    lines = [
        f"board:     {p['model'] or 'not a Raspberry Pi'} ({p['system']} {p['machine']}, "
        f"Python {p['python']})",
        f"gpio:      mode {g['mode']}, pin factory {g['pin_factory'] or 'none: ' + str(g['error'])}",
        f"pins:      buzzer {g['pins']['buzzer']} ({g['buzzer_type']}), bar {g['pins']['bar']}, "
        f"status LED {g['pins']['status_led']}, button {g['pins']['button']}",
        "serial:    " + (", ".join(f"{s['device']} ({s['description']})" for s in ports)
                         if isinstance(ports, list) and ports else str(ports.get("error", "none"))
                         if isinstance(ports, dict) else "none"),
        "video:     " + (", ".join(v["device"] for v in report["video_devices"]) or "none"),
        "pi camera: " + (p["picamera2"]["problem"] or "picamera2 loads"),
        f"config:    {c['path']} ({'found' if c['exists'] else 'not there: defaults'}"
        f"{'' if c['valid'] else ', INVALID: ' + str(c['error'])})",
        f"database:  {report['database']['path']}",
        f"display:   {'yes' if d['available'] else 'none'} (X11 {d['x11'] or 'none'}, "
        f"Wayland {d['wayland'] or 'none'}, DRM {', '.join(d['drm']) or 'none'})",
    ]
    return "\n".join(lines)
