"""Video devices the kernel shows (V4L2), read from sysfs without opening a camera."""

from __future__ import annotations

from pathlib import Path
from typing import Any

SYSFS_V4L = Path("/sys/class/video4linux")


def list_video_devices(dev: Path = Path("/dev"), sysfs: Path = SYSFS_V4L) -> list[dict[str, Any]]:
    """``/dev/video*`` nodes with the name the driver gives them (None where sysfs has none)."""
    found = []
    for node in sorted(dev.glob("video*"), key=lambda p: (len(p.name), p.name)):
        try:
            name: str | None = (sysfs / node.name / "name").read_text().strip()
        except OSError:
            name = None
        found.append({"device": str(node), "name": name})
    return found
