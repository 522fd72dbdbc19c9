"""Runs one user journey through the real touch app, in a real window, with Kivy's touch helpers.

    python tests/ui/driver.py JOURNEY

Started by tests/ui/test_journeys.py in a fresh process per journey (Kivy has one window a
process). The environment gives the scratch data and config folders. A journey that fails
raises; the driver prints ``JOURNEY FAILED`` and the traceback, and exits 1. Journeys may
print ``RESULT {json}`` lines for the test to check.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.update(KIVY_NO_ARGS="1", KIVY_NO_FILELOG="1", KIVY_LOG_MODE="PYTHON", KIVY_CLIPBOARD="sdl2")
# The app's sounds play through SDL2's mixer; the dummy driver plays them to nowhere, in real time.
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("KIVY_AUDIO", "sdl2")

from companion.ui.launch import build, configure_kivy  # noqa: E402 - after the path

SIZE = sys.argv[2] if len(sys.argv) > 2 else "800x480"
configure_kivy(*(int(v) for v in SIZE.split("x")), fullscreen=False)  # before Kivy makes its window

from kivy.tests.async_common import UnitKivyApp  # noqa: E402 - after Kivy's settings

from companion.ui.app import CompanionApp  # noqa: E402
from tests.ui.kit import run_journey  # noqa: E402


class DrivenApp(UnitKivyApp, CompanionApp):  # type: ignore[misc]
    pass


def journeys() -> dict[str, Any]:
    """Every journey of every module in tests/ui/journeys/."""
    import importlib

    found: dict[str, Any] = {}
    for path in sorted((Path(__file__).parent / "journeys").glob("*.py")):
        if path.stem != "__init__":
            found.update(importlib.import_module(f"tests.ui.journeys.{path.stem}").JOURNEYS)
    return found


def main() -> int:
    journey = journeys()[sys.argv[1]]
    if os.environ.get("COMPANION_TEST_GAME"):  # a test's game packages, added as their registry lines would be
        import companion.games

        companion.games.PACKAGES += tuple(os.environ["COMPANION_TEST_GAME"].split(","))
    app = build(None, size=SIZE, gpio="mock", app_class=DrivenApp)
    return run_journey(app, journey)


if __name__ == "__main__":
    sys.exit(main())
