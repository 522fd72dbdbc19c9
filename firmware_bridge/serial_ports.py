"""Serial ports the system shows, through pyserial's ``list_ports``."""

from __future__ import annotations

from typing import Any

from serial.tools import list_ports


def list_serial_ports() -> list[dict[str, Any]]:
    """Every serial port pyserial sees, with its USB VID:PID where it has one."""
    return [
        {"device": p.device, "description": p.description, "hwid": p.hwid,
         "vid": p.vid, "pid": p.pid, "serial_number": p.serial_number}
        for p in sorted(list_ports.comports(), key=lambda p: p.device)
    ]
