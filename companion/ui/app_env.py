"""Whether a window can be opened here, asked before Kivy is imported (which would try)."""

from __future__ import annotations

import os

WINDOWLESS_DRIVERS = ("kmsdrm", "offscreen", "dummy")


def has_display() -> bool:
    """An X11 or Wayland display, or an SDL driver that needs none (the Pi's console: kmsdrm)."""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
                or os.environ.get("SDL_VIDEODRIVER") in WINDOWLESS_DRIVERS)
