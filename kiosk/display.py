"""Can Kivy's SDL2 draw straight on the Pi's console (KMS/DRM), or does the kiosk need cage?

Kivy's wheel bundles its own SDL2 (``Kivy.libs/libSDL2-*.so*`` beside the ``kivy`` package).
SDL2 built with its KMS/DRM video driver carries that driver's code, and with it the name of
its init function, ``KMSDRM_VideoInit``: finding those bytes in the library is a check that
needs neither a screen nor importing Kivy (which the installer must not do). When they are
missing, the kiosk falls back to the ``cage`` Wayland kiosk compositor, with the app on
Xwayland through SDL's X11 driver, which every Kivy wheel has.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

MARKER = b"KMSDRM_VideoInit"
SYSTEM_SDL = ("/usr/lib/aarch64-linux-gnu/libSDL2-2.0.so.0", "/usr/lib/arm-linux-gnueabihf/libSDL2-2.0.so.0",
              "/usr/lib/x86_64-linux-gnu/libSDL2-2.0.so.0")


@dataclass(frozen=True)
class SdlCheck:
    """Which SDL2 library Kivy will load, and whether it has the KMS/DRM driver (None: unknown)."""

    library: Path | None
    has_kmsdrm: bool | None

    def to_text(self) -> str:
        if self.library is None:
            return "Kivy's SDL2 not found: KMS/DRM unknown"
        verdict = {True: "has KMS/DRM", False: "has NO KMS/DRM", None: "KMS/DRM unknown"}[self.has_kmsdrm]
        return f"{self.library.name} {verdict}"


def kivy_sdl2() -> Path | None:
    """The SDL2 library Kivy's wheel ships, else the system's (Kivy built from source), else None."""
    spec = importlib.util.find_spec("kivy")  # finds the package without importing it
    if spec is not None and spec.origin is not None:
        site = Path(spec.origin).resolve().parent.parent
        bundled = sorted(site.glob("Kivy.libs/libSDL2-2*.so*"))
        if bundled:
            return bundled[0]
    for path in SYSTEM_SDL:
        if Path(path).exists():
            return Path(path)
    return None


def has_marker(library: Path, marker: bytes = MARKER) -> bool | None:
    """Does *library* hold *marker*? None when it cannot be read."""
    try:
        with open(library, "rb") as f:
            tail = b""
            while chunk := f.read(1 << 20):
                if marker in tail + chunk:
                    return True
                tail = chunk[-len(marker):]
    except OSError:
        return None
    return False


def check_sdl() -> SdlCheck:
    library = kivy_sdl2()
    return SdlCheck(library, has_marker(library) if library is not None else None)
