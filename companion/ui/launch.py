"""Starting the touch app: Kivy's settings first (before its window exists), then the app.

``companion`` (or ``companion app``) calls :func:`build`. Kivy reads its window settings when
``kivy.core.window`` is first imported, so nothing here imports the app before they are set.
This is also where the venue link is made (:func:`make_venue`): the one module of the app that
knows ``venue``; the screens get its state and its calls as plain callables.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.ui.services import Services
    from companion.ui.venue_feed import VenueFeed
    from firmware_bridge.accessory import AccessoryBridge
    from firmware_bridge.gpio import ButtonActions, SandTimerPanel
    from venue.link import VenueSettings


def configure_kivy(width: int, height: int, fullscreen: bool) -> None:
    """Kivy's process-wide settings: window size, no argv parsing, quiet logs, no multitouch
    emulation on the mouse (a right click would leave red dots on a touch table)."""
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_NO_FILELOG", "1")
    os.environ.setdefault("KIVY_LOG_MODE", "PYTHON")
    os.environ.setdefault("KIVY_CLIPBOARD", "sdl2")  # not xclip/xsel, which a Pi does not have
    from kivy.config import Config as KivyConfig
    from kivy.logger import LOG_LEVELS, Logger

    KivyConfig.set("kivy", "log_level", "warning")
    Logger.setLevel(LOG_LEVELS["warning"])
    KivyConfig.set("kivy", "exit_on_escape", "0")
    KivyConfig.set("graphics", "width", str(width))
    KivyConfig.set("graphics", "height", str(height))
    KivyConfig.set("graphics", "fullscreen", "auto" if fullscreen else "0")
    KivyConfig.set("graphics", "resizable", "1")
    KivyConfig.set("input", "mouse", "mouse,disable_multitouch")


class CameraCalls:
    """The overhead camera's questions for the screens: the Volatio edge check and the piece
    reading. Both run on worker threads and share one camera, which serves one of them at a
    time; the camera's :class:`VisionError` arrives as a one-line :class:`CompanionError` (a
    missing piece library as :class:`NotRegistered`, a camera that gives no picture as
    :class:`NoCamera`)."""

    def __init__(self, camera: Any) -> None:
        self._camera = camera
        self._lock = threading.Lock()

    def check(self) -> dict[str, Any]:
        return self._ask(self._camera.check)

    def read_pieces(self) -> dict[str, Any]:
        return self._ask(self._camera.read_pieces)

    def _ask(self, question: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        from companion.errors import CompanionError, NoCamera, NotRegistered
        from vision.errors import CameraUnavailable, NoLibrary, VisionError

        with self._lock:
            try:
                return question()
            except NoLibrary as exc:
                raise NotRegistered(str(exc).splitlines()[0]) from None
            except CameraUnavailable as exc:
                raise NoCamera(str(exc).splitlines()[0]) from None
            except VisionError as exc:
                raise CompanionError(str(exc).splitlines()[0]) from None


def make_table_camera(config: Any, cameras: list[str]) -> CameraCalls | None:
    """The overhead camera, or None without one (``none``, or ``auto`` with no camera
    attached). Its setup files and piece library sit in ``vision/`` beside the database."""
    from vision.sources import has_picamera
    from vision.table_camera import TableCamera

    source = config["camera.source"]
    if source == "none" or (source == "auto" and not cameras and not has_picamera()):
        return None
    layout = config["camera.layout"] or None
    return CameraCalls(TableCamera(source, config.database_path.parent / "vision",
                                   Path(layout).expanduser() if layout else None))


def make_camera_check(config: Any, cameras: list[str]) -> Any:
    """The overhead camera's edge check for the Volatio screen, or None without a camera."""
    camera = make_table_camera(config, cameras)
    return camera.check if camera is not None else None


def make_piece_reader(config: Any, cameras: list[str]) -> Any:
    """The overhead camera's piece reader for the scoring screens' Photo buttons, or None
    without a camera."""
    camera = make_table_camera(config, cameras)
    return camera.read_pieces if camera is not None else None


def build(config_path: Path | None, *, size: str | None = None, fullscreen: bool | None = None,
          lang: str | None = None, gpio: str | None = None, venue: str | None = None,
          table: str | None = None, app_class: Any = None) -> Any:
    """Everything the app needs, made in order; returns the app, ready to ``run()``.

    *venue* and *table* are ``--venue`` and ``--table`` (None: the config's ``[venue]``).

    :raises CompanionError: for a bad config, venue or database (one line, exit 2, nothing
        switched on), and (:class:`companion.store.StoreLocked`) when another app is writing
        the database.
    :raises BridgeError: for GPIO that cannot be had.
    """
    from companion.config import load_config
    from companion.store import Store
    from venue.setup import venue_settings

    config = load_config(config_path)
    on_venue = venue_settings(config, venue, table)
    # Before Kivy is even loaded: a second app on this database stops here, with one line.
    store = Store.open(config.database_path)
    try:
        width, height = (int(v) for v in (size or config["ui.size"]).split("x"))
        configure_kivy(width, height, config["ui.fullscreen"] if fullscreen is None else fullscreen)
        overrides: dict[str, Any] = {}
        if lang is not None:
            overrides["ui.language"] = lang
        if gpio is not None:
            overrides["gpio.mode"] = gpio
        if overrides:
            from companion.config import Config

            config = Config({**config.values, **overrides}, config.presets, config.source)
        return _assemble(config, config_path, store, app_class, on_venue)
    except BaseException:
        store.close()  # lets the writer's lock go
        raise


class _AppClock:
    """The clock the app's services hold now (a journey may swap it after the app is made)."""

    def __init__(self, services: Services) -> None:
        self._services = services

    def now(self) -> float:
        return float(self._services.clock.now())


def make_venue(services: Services, settings: VenueSettings) -> VenueFeed:
    """The venue link for *settings* and the app's side of it (a ``VenueFeed``): the link's
    closures run on Kivy's main thread, its timers are the current session's, its commands
    go to the session and the announcer."""
    from companion.ui.app import kivy_post
    from companion.ui.venue_feed import LinkCalls, VenueFeed
    from venue.setup import open_link

    feed = VenueFeed(services, kivy_post, table=settings.table, broker=str(settings.broker))
    link = open_link(settings, services.config, kivy_post, _AppClock(services),
                                on_command=feed.command, on_status=feed.link_said)

    def start() -> None:
        link.attach(services.bus, feed.timers)
        link.start()

    feed.link = LinkCalls(start=start, close=link.close, refresh=link.refresh, publish_game=link.publish_game,
                          publish_scores=link.publish_scores, state=lambda: link.state)
    return feed


def make_accessory(services: Services, app: list[Any]) -> AccessoryBridge | None:
    """The accessory bridge for the config's port (None for ``none``); its button and its
    status reach the app (in *app*, filled once the app exists) on the main thread."""
    from companion.ui.app import kivy_post
    from firmware_bridge.accessory import AccessoryBridge

    config = services.config
    if config["accessory.port"] == "none":
        return None
    return AccessoryBridge(config["accessory.port"], kivy_post, _button_actions(app),
                           usb_ids=config["accessory.usb_ids"], brightness=config["accessory.brightness"],
                           alarm_s=config["gpio.alarm_s"],
                           on_status=lambda status: app[0].accessory_changed(status))


def make_panel(services: Services, setup: Any, app: list[Any]) -> SandTimerPanel:
    """The GPIO panel; its button acts on the app (in *app*, filled once the app exists)."""
    from companion.ui.app import kivy_post
    from firmware_bridge.gpio import PanelSettings, SandTimerPanel

    return SandTimerPanel(PanelSettings.from_config(services.config), setup, kivy_post, _button_actions(app))


def _button_actions(app: list[Any]) -> ButtonActions:
    """What a button (the GPIO panel's or the accessory's) does to the app in *app*."""
    from firmware_bridge.gpio import ButtonActions

    return ButtonActions(toggle=lambda: app[0].button_toggle(), reset=lambda: app[0].button_reset(),
                         silenced=lambda: app[0].button_silenced())


def _assemble(config: Any, config_path: Path | None, store: Any, app_class: Any, on_venue: Any = None) -> Any:
    """The app around an open store: services, GPIO, accessory, camera, venue, the app object."""
    from companion.clock import MonotonicClock
    from companion.config import default_config_path
    from companion.events import EventBus
    from companion.ui.app import STRIP_ACCESSORY, CompanionApp, Hardware
    from companion.ui.services import Services
    from firmware_bridge.gpio import choose_pin_factory
    from firmware_bridge.serial_ports import list_serial_ports
    from vision.devices import list_video_devices

    services = Services(config=config, config_path=config_path or default_config_path(), store=store,
                        bus=EventBus(), clock=MonotonicClock())
    setup = choose_pin_factory(config["gpio.mode"])
    if setup.kind != "real":
        print(f"companion: {setup.note}", file=sys.stderr)
    holder: list[Any] = []
    panel = make_panel(services, setup, holder) if setup.kind != "off" else None
    try:
        ports = [p["device"] for p in list_serial_ports()]
    except Exception:  # the strip reports; it must not stop the app
        ports = []
    cameras = [v["device"] for v in list_video_devices()]
    camera = make_table_camera(config, cameras)  # one camera for both: it takes one frame at a time
    services.camera_check = camera.check if camera is not None else None
    services.read_pieces = camera.read_pieces if camera is not None else None
    bridge = make_accessory(services, holder)
    accessory = STRIP_ACCESSORY["searching" if bridge is not None else "off"]
    hardware = Hardware(panel=panel, gpio=setup.kind, accessory=accessory, camera="ok" if cameras else "none",
                        ports=ports, cameras=cameras, bridge=bridge,
                        venue=make_venue(services, on_venue) if on_venue is not None else None)
    app = (app_class or CompanionApp)(services=services, hardware=hardware)
    holder.append(app)
    return app
