"""Runs one journey of the PIN pad across a restart, in the kiosk's app in a real window.

    python tests/kiosk/pin_driver.py JOURNEY CONFIG KIVY_SETTINGS

Each run is one start of the app (a fresh process), made as ``companion kiosk run`` makes it;
the data folder beside CONFIG carries the pad's count of wrong tries from one run to the next.
A failing journey prints ``JOURNEY FAILED`` and its traceback and exits 1.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.update(KIVY_NO_ARGS="1", KIVY_NO_FILELOG="1", KIVY_LOG_MODE="PYTHON", KIVY_CLIPBOARD="sdl2",
                  KIVY_NO_CONFIG="1")

from companion.ui.launch import configure_kivy  # noqa: E402 - after the path

configure_kivy(800, 480, fullscreen=True)  # before Kivy makes its window

from kivy.tests.async_common import UnitKivyApp  # noqa: E402 - after Kivy's settings

from companion.ui.app import CompanionApp  # noqa: E402
from companion.ui.kiosk_mode import prepare  # noqa: E402
from tests.kiosk.journeys import enter_pin  # noqa: E402
from tests.ui.kit import find, result, run_journey, screen, tap  # noqa: E402


class DrivenApp(UnitKivyApp, CompanionApp):  # type: ignore[misc]
    pass


async def lock_out(app: Any) -> None:
    """Three wrong PINs: the pad locks for 30 s."""
    await tap(app, find(app, "TouchButton", "Settings"))
    settings = screen(app, "settings")
    assert settings.ids.pages.current == "locked" and settings.message == ""
    for code in ("1111", "2222", "3333"):
        await enter_pin(app, code)
    assert settings.message == "Too many wrong PINs: try again in 30 s", settings.message
    result(ok=True)


async def after_restart(app: Any) -> None:
    """The next start: the pad says it is locked before any try, and turns the right PIN away."""
    await tap(app, find(app, "TouchButton", "Settings"))
    settings = screen(app, "settings")
    assert settings.ids.pages.current == "locked"
    assert settings.message == "Too many wrong PINs: try again in 30 s", settings.message
    await enter_pin(app, "2468")
    assert settings.ids.pages.current == "locked" and settings.message.startswith("Too many wrong PINs")
    result(ok=True)


JOURNEYS = {"lock_out": lock_out, "after_restart": after_restart}


def main() -> int:
    import logging

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(name)s: %(message)s")
    app = prepare(Path(sys.argv[2]), Path(sys.argv[3]), app_class=DrivenApp)
    return run_journey(app, JOURNEYS[sys.argv[1]])


if __name__ == "__main__":
    sys.exit(main())
