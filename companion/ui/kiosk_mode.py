"""The touch app as the kiosk runs it: full screen, locked down, and telling systemd how it is.

``companion kiosk run`` (the kiosk unit's command) calls :func:`run_kiosk`. The app itself is
the same as ``companion app``; what differs is around it:

- Kivy's input providers and the screen's rotation come from the kiosk's Kivy settings file
  (``/etc/table-companion/kivy.ini``, written by ``companion kiosk install``). Its ``[input]``
  section *replaces* Kivy's: Kivy's defaults on a Pi read a touch panel twice (its ``mouse``
  provider fed by SDL's touch-as-mouse, and ``probesysfs,provider=hidinput`` reading the same
  panel), so every tap would land twice. The rotation is Kivy's own (``Window.rotation``): it
  turns the picture and the touches together, which the Pi's KMS planes cannot do for 90°.
- Ctrl+C, Ctrl+\\ and Ctrl+Z on the console do nothing; SIGTERM (systemd stopping the unit)
  stops the app cleanly, closing the database.
- What stopped the app last is kept beside its config (:func:`kiosk.host.record_last_error`)
  for the fallback page systemd shows after several failed starts; faulthandler writes every
  thread's stack to the journal when systemd's watchdog kills a frozen app (SIGABRT).
"""

from __future__ import annotations

import configparser
import faulthandler
import signal
import traceback
from pathlib import Path
from typing import Any

from companion.config import default_config_path, load_config
from companion.errors import CompanionError
from kiosk.host import clear_last_error, record_last_error

ROTATIONS = (0, 90, 180, 270)
IGNORED_SIGNALS = (signal.SIGINT, signal.SIGQUIT, signal.SIGTSTP, signal.SIGHUP)
"""Keyboard signals from the console (and its hang-up): a player's Ctrl+C must not end the app."""


class KioskSettings:
    """The kiosk's Kivy settings file: ``[graphics] rotation`` and the ``[input]`` providers.

    :raises CompanionError: naming the file and the setting, for anything else in it.
    """

    def __init__(self, path: Path) -> None:
        parser = configparser.ConfigParser(interpolation=None)  # keys like %(name)s are Kivy's own
        parser.optionxform = str  # type: ignore[assignment, method-assign]
        try:
            parser.read_string(path.read_text(encoding="utf-8"), str(path))
        except (OSError, UnicodeDecodeError, configparser.Error) as exc:
            raise CompanionError(f"kivy settings {path}: cannot read it ({exc})".splitlines()[0]) from None
        self.path = path
        self.rotation = 0
        self.inputs: dict[str, str] = {}
        for section in parser.sections():
            for key, value in parser.items(section):
                if (section, key) == ("graphics", "rotation"):
                    self.rotation = self._rotation(value)
                elif section == "input":
                    self.inputs[key] = value
                else:
                    raise CompanionError(f"kivy settings {path}: [{section}] {key}: not a setting the kiosk "
                                         "applies (only [graphics] rotation and [input])")
        if parser.has_section("input") and len(self.inputs) != 1:
            raise CompanionError(f"kivy settings {path}: [input] must name exactly one provider, not "
                                 f"{len(self.inputs)}: two read the same panel twice")

    def _rotation(self, value: str) -> int:
        if value.strip() not in {str(r) for r in ROTATIONS}:
            raise CompanionError(f"kivy settings {self.path}: [graphics] rotation: must be 0, 90, 180 or 270 "
                                 f"(got {value!r})")
        return int(value)

    def apply(self) -> None:
        """Into Kivy, after the window exists and before the app runs (Kivy starts its input
        providers in ``run()``). Main thread."""
        from kivy.config import Config as KivyConfig
        from kivy.core.window import Window

        if self.inputs:
            for key in list(KivyConfig.options("input")):
                KivyConfig.remove_option("input", key)
            for key, value in self.inputs.items():
                KivyConfig.set("input", key, value)
        Window.rotation = self.rotation


def prepare(config_path: Path | None, kivy_settings: Path | None, *, app_class: Any = None) -> Any:
    """The app, built full screen for the kiosk with its Kivy settings applied; ready to ``run()``.

    :raises CompanionError: for a config that is not in kiosk mode, a bad config or Kivy
        settings file, or no display (one line each).
    """
    from companion.ui.app_env import has_display
    from companion.ui.launch import build

    config = load_config(config_path)
    if not config["ui.kiosk"]:
        where = config_path if config_path is not None else default_config_path()
        raise CompanionError(f"config {where}: ui.kiosk is false: the kiosk's app runs only in kiosk mode "
                             "(set ui.kiosk = true, or run `companion app`)")
    settings = KioskSettings(kivy_settings) if kivy_settings is not None else None
    if not has_display():
        raise CompanionError("no display: the kiosk's unit sets SDL_VIDEODRIVER=kmsdrm (or runs under cage); "
                             "elsewhere run it on a virtual display with xvfb-run")
    app = build(config_path, fullscreen=True, app_class=app_class)
    if settings is not None:
        settings.apply()
    return app


def run_kiosk(config_path: Path | None, kivy_settings: Path | None) -> int:
    """Run the kiosk's app until systemd stops it; returns the exit code (0).

    Every failure is recorded for the fallback page first, then raised as usual (the CLI
    prints a one-line error and exits 2, and the unit does not restart on 2: a bad config
    does not mend itself; anything else keeps its traceback and the unit restarts the app).
    """
    where = config_path if config_path is not None else default_config_path()
    faulthandler.enable()
    for sig in IGNORED_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    try:
        app = prepare(config_path, kivy_settings)
    except CompanionError as exc:
        record_last_error(where, str(exc))
        raise
    except BaseException:
        record_last_error(where, traceback.format_exc(limit=-3))
        raise
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    from kivy.clock import Clock

    Clock.schedule_once(lambda _dt: clear_last_error(where), 0)  # up and drawing: the old error is stale
    try:
        app.run()
    except KeyboardInterrupt:  # SIGTERM: systemd is stopping the unit
        app.stop()
    except BaseException:
        record_last_error(where, traceback.format_exc(limit=-3))
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
        app.on_stop_cleanup()
    return 0
