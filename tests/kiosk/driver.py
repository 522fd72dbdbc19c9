"""Runs one journey through the kiosk's app, in a real window, with Kivy's touch helpers.

    python tests/kiosk/driver.py JOURNEY CONFIG KIVY_SETTINGS

The app is made the way ``companion kiosk run`` makes it (:func:`companion.ui.kiosk_mode.prepare`:
full screen, the kiosk's Kivy settings applied), with Kivy's test app mixed in to drive it.
Started by the tests in a fresh process per journey; the environment carries systemd's
variables when a test plays systemd. A failing journey prints ``JOURNEY FAILED`` and its
traceback and exits 1; journeys may print ``RESULT {json}`` lines.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.update(KIVY_NO_ARGS="1", KIVY_NO_FILELOG="1", KIVY_LOG_MODE="PYTHON", KIVY_CLIPBOARD="sdl2",
                  KIVY_NO_CONFIG="1")

from companion.ui.launch import configure_kivy  # noqa: E402 - after the path

configure_kivy(800, 480, fullscreen=True)  # before Kivy makes its window

from kivy.tests.async_common import UnitKivyApp  # noqa: E402 - after Kivy's settings

from companion.ui.app import CompanionApp  # noqa: E402
from companion.ui.kiosk_mode import prepare  # noqa: E402
from tests.kiosk.journeys import JOURNEYS  # noqa: E402
from tests.ui.kit import run_journey  # noqa: E402


class DrivenApp(UnitKivyApp, CompanionApp):  # type: ignore[misc]
    pass


def main() -> int:
    import logging

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(name)s: %(message)s")
    journey = JOURNEYS[sys.argv[1]]
    app = prepare(Path(sys.argv[2]), Path(sys.argv[3]), app_class=DrivenApp)
    return run_journey(app, journey)


if __name__ == "__main__":
    sys.exit(main())
