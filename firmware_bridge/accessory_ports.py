"""Finding and opening the timer accessory's serial port.

A setting of ``auto`` picks the first serial port with a known USB VID:PID (a Pico
running MicroPython, an Arduino), then a running simulator's port; any other setting is
a device path or a pyserial URL. :func:`open_port` opens it without resetting a board
that resets on DTR.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import serial
from serial.tools import list_ports

DEFAULT_USB_IDS = ("2e8a:0005", "2341:0043", "2341:0001", "2341:8036")
"""MicroPython's USB CDC on a Pico, and Arduino Uno, Mega and Leonardo boards."""

BAUDRATE = 115200
READ_TIMEOUT_S = 0.02

SIMULATOR_FILE = "simulator.port"


def simulator_port_file() -> Path:
    """Where ``companion accessory simulate`` leaves its port for ``auto`` to find."""
    import warnings

    from platformdirs import user_runtime_dir

    with warnings.catch_warnings():  # no XDG_RUNTIME_DIR (a bare ssh or CI shell): its fallback is fine
        warnings.simplefilter("ignore")
        return Path(user_runtime_dir("companion")) / SIMULATOR_FILE


def parse_usb_id(text: str) -> tuple[int, int]:
    """``"2e8a:0005"`` as ``(0x2E8A, 0x0005)``. :raises ValueError: for anything else."""
    vid, sep, pid = text.strip().partition(":")
    if not sep or len(vid) != 4 or len(pid) != 4:
        raise ValueError(f"USB id {text!r} is not VID:PID in hex, like 2e8a:0005")
    return int(vid, 16), int(pid, 16)


def find_port(setting: str, usb_ids: Sequence[str] = DEFAULT_USB_IDS) -> str | None:
    """The port to open for *setting*: ``none`` gives None; ``auto`` the first serial
    port with one of *usb_ids* (then a running simulator's); anything else is a device
    path or a pyserial URL (``loop://``, ``socket://host:port``) and is returned as is."""
    if setting == "none":
        return None
    if setting != "auto":
        return setting
    wanted = {parse_usb_id(u) for u in usb_ids}
    for port in sorted(list_ports.comports(), key=lambda p: p.device):
        if (port.vid, port.pid) in wanted:
            return str(port.device)
    try:
        path = simulator_port_file().read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return path if path and os.path.exists(path) else None


RESETS_ON_DTR = (0x2341, 0x2A03, 0x1A86, 0x0403, 0x10C4)
"""USB vendors of boards whose reset line hangs on DTR: Arduino, and the USB-serial
chips (CH340, FTDI, CP210x) on their clones."""


def resets_on_dtr(name: str) -> bool:
    """Whether the board on *name* resets when DTR is raised (known by its USB vendor)."""
    try:
        real = os.path.realpath(name)
        return any(p.vid in RESETS_ON_DTR for p in list_ports.comports()
                   if os.path.realpath(p.device) == real)
    except Exception:  # list_ports fails in its own ways; then assume the common case
        return False


def open_port(name: str, baudrate: int = BAUDRATE) -> Any:
    """Open *name* (a path or a pyserial URL) exclusively.

    A board that resets on DTR (an Arduino) gets DTR and RTS cleared before the open,
    which keeps it from resetting where the driver allows; where the kernel raises DTR
    on open anyway, the handshake waits for the board's HELLO (section 4 of the
    protocol). Every other board gets DTR raised as usual: a Pico's USB serial only
    sends once the host has raised DTR, on older MicroPython builds.

    :raises serial.SerialException: when the port cannot be opened.
    """
    port = serial.serial_for_url(name, baudrate=baudrate, timeout=READ_TIMEOUT_S, write_timeout=1.0,
                                 exclusive=True, do_not_open=True)
    if "://" not in name and resets_on_dtr(name):
        port.dtr = False
        port.rts = False
    port.open()
    return port
