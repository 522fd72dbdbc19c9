"""What board this is: a Raspberry Pi (and which) or something else."""

from __future__ import annotations

from pathlib import Path

MODEL_FILES = (Path("/proc/device-tree/model"), Path("/sys/firmware/devicetree/base/model"))


def board_model() -> str | None:
    """The device-tree model string (``"Raspberry Pi 5 Model B Rev 1.0"``), or None."""
    for path in MODEL_FILES:
        try:
            return path.read_bytes().rstrip(b"\0\n").decode("ascii", "replace")
        except OSError:
            continue
    return None


def is_raspberry_pi() -> bool:
    model = board_model()
    return model is not None and model.startswith("Raspberry Pi")
