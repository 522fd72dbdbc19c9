"""``companion timer``: a countdown in the terminal with the GPIO parts and the accessory."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from companion.cli import venue_link
from companion.cli.common import EXIT_CANCELLED, EXIT_OK, signals_interrupt
from companion.clock import MonotonicClock
from companion.config import Config, load_config
from companion.durations import parse_duration
from companion.errors import InvalidInput, TimerStateError
from companion.events import EventBus, TimerEvent
from companion.loop import CoreLoop
from companion.terminal import KEY_HELP, DrainingBar, JsonLines, keyboard
from companion.timers import Phase, TimerBoard
from firmware_bridge.accessory import AccessoryBridge, AccessoryStatus
from firmware_bridge.gpio import (
    ButtonActions,
    GpioMode,
    PanelSettings,
    SandTimerPanel,
    choose_pin_factory,
)
from venue.link import VenueLink
from venue.protocol import Command
from venue.setup import open_link

ADJUST_STEP_S = 10.0
"""The terminal timer's +/- keys add or take this many seconds."""


def register(commands: Any) -> None:
    """Adds this group's subcommands to the ``companion`` parser's *commands*."""
    timer = commands.add_parser("timer", help="run a countdown in the terminal, with the GPIO parts")
    timer.add_argument("seconds", nargs="?", metavar="SECONDS",
                       help="length: 90, 1:30 or 1m30s (or use --preset)")
    timer.add_argument("--name", help="the timer's name (default: the preset's, or 'timer')")
    timer.add_argument("--preset", help="negotiation, market, or a preset from the config")
    timer.add_argument("--gpio", choices=("auto", "real", "mock", "off"),
                       help="pins: real on a Pi, gpiozero's MockFactory, or none (default: config)")
    timer.add_argument("--json", action="store_true", help="one JSON event per line on stdout")
    timer.add_argument("--repeat", action="store_true",
                       help="after the alarm, reset and wait for the button (a sand-timer station)")
    timer.add_argument("--accessory", metavar="PORT",
                       help="the USB timer accessory: auto, none, a port or a pyserial URL (default: config)")
    venue_link.add_arguments(timer)
    timer.set_defaults(run=run_timer)


def panel_settings(config: Config) -> PanelSettings:
    return PanelSettings.from_config(config)


def resolve_timer(args: argparse.Namespace, config: Config) -> tuple[str, float]:
    """The timer's name and length from SECONDS and/or --preset.

    :raises InvalidInput: for neither, an unknown preset, or a bad length.
    """
    if args.preset is not None and args.preset not in config.presets:
        known = ", ".join(sorted(config.presets))
        raise InvalidInput("--preset", args.preset, f"no such preset (known: {known})")
    if args.seconds is not None:
        total = parse_duration(args.seconds, "SECONDS")
    elif args.preset is not None:
        total = config.presets[args.preset]
    else:
        raise InvalidInput("SECONDS", None, "give a length in seconds, or --preset NAME")
    name = args.name if args.name is not None else (args.preset or "timer")
    if not name.strip():
        raise InvalidInput("--name", name, "must not be empty")
    return name, total


def run_timer(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    name, total = resolve_timer(args, config)
    venue = venue_link.settings(args, config)
    mode: GpioMode = args.gpio or config["gpio.mode"]
    settings = panel_settings(config)
    settings.used_pins()
    setup = choose_pin_factory(mode)
    if setup.kind != "real":
        print(f"companion: {setup.note}", file=sys.stderr)

    clock = MonotonicClock()
    bus = EventBus()
    board = TimerBoard(clock, bus, tick_hz=config["timer.tick_hz"], warnings_s=config["timer.warnings_s"])
    board.add(name, total)
    loop = CoreLoop(board, clock)
    panel: SandTimerPanel | None = None
    accessory: AccessoryBridge | None = None
    link: VenueLink | None = None
    display: JsonLines | DrainingBar | None = None
    restore_signals = signals_interrupt()

    def press() -> None:
        if panel is not None and panel.is_alarm_sounding:
            panel.silence()
            return
        if board[name].phase is Phase.EXPIRED:
            board.reset(name)
        board.toggle(name)

    def reset() -> None:
        if panel is not None and panel.is_alarm_sounding:
            panel.silence()
        board.reset(name)

    def after_alarm() -> None:
        if args.repeat:
            board.reset(name)
        else:
            loop.stop()

    def silenced() -> None:
        if panel is not None:
            panel.silence()

    actions = ButtonActions(toggle=press, reset=reset, silenced=silenced)
    try:
        panel = SandTimerPanel(settings, setup, loop.post, actions)
        panel.attach(bus, on_alarm_done=after_alarm)  # first: the buzzer before any printing
        display = JsonLines() if args.json else DrainingBar(name, total)
        accessory = _accessory(args.accessory, config, loop.post, actions, display.note)
        if accessory is not None:
            accessory.attach(bus)
            accessory.start()
        bus.subscribe(TimerEvent, display.show)
        if venue is not None:
            link = open_link(venue, config, loop.post, clock, on_status=display.note,
                             on_command=_venue_commands(board, name, press, reset, display.note))
            link.attach(bus, lambda: {n: board[n] for n in board.names})
            link.start()
        keys = _key_actions(board, name, press, reset, loop)
        with keyboard(lambda k: loop.post(lambda: keys.get(k, lambda: None)())) as has_keys:
            if has_keys and not args.json:
                display.note(KEY_HELP)
            board.start(name)
            loop.run()
        return EXIT_OK if name in board else EXIT_CANCELLED
    except KeyboardInterrupt:
        if name in board:
            board.cancel(name)
        return EXIT_CANCELLED
    finally:
        if panel is not None:
            panel.close()
        if accessory is not None:
            accessory.close()
        if link is not None:
            link.close()
        if display is not None:
            display.close()
        restore_signals()
        if setup.factory is not None:
            setup.factory.close()


def _accessory(port: str | None, config: Config, post: Callable[[Callable[[], None]], None],
               actions: ButtonActions | None, note: Callable[[str], None] | None) -> AccessoryBridge | None:
    """The accessory bridge for *port* (or the config's), or None for ``none``."""
    setting = port if port is not None else config["accessory.port"]
    if setting == "none":
        return None

    def on_status(status: AccessoryStatus) -> None:  # a degraded link is logged as a WARNING already
        if note is not None and status.is_connected:
            note(f"companion: {status.to_text()}")

    return AccessoryBridge(setting, post, actions, usb_ids=config["accessory.usb_ids"],
                           brightness=config["accessory.brightness"], alarm_s=config["gpio.alarm_s"],
                           on_status=on_status)


def _venue_commands(board: TimerBoard, name: str, press: Callable[[], None], reset: Callable[[], None],
                    note: Callable[[str], None]) -> Callable[[Command], None]:
    """The venue's commands on the terminal's one timer, as its button and keys do them."""
    def run(command: Command) -> None:
        if command.timer not in (None, name):
            raise InvalidInput("timer", command.timer, f"no such timer here (this table runs {name!r})")
        phase = board[name].phase
        if command.action == "start":
            if phase is Phase.RUNNING:
                raise TimerStateError(f"{name!r} is already running")
            press()
        elif command.action == "pause":
            if phase is not Phase.RUNNING:
                raise TimerStateError(f"{name!r} is not running")
            press()
        elif command.action == "reset":
            reset()
        elif command.action == "add":
            board.adjust(name, command.seconds)
        elif command.action == "announce":
            note(f"venue: {command.text}")
    return run


def _key_actions(board: TimerBoard, name: str, press: Callable[[], None],
                 reset: Callable[[], None], loop: CoreLoop) -> dict[str, Callable[[], None]]:
    def adjust(delta: float) -> Callable[[], None]:
        return lambda: board.adjust(name, delta) if board[name].phase is not Phase.EXPIRED else None

    def quit_() -> None:
        board.cancel(name)
        loop.stop()

    return {" ": press, "\n": press, "p": press, "r": reset, "+": adjust(ADJUST_STEP_S),
            "=": adjust(ADJUST_STEP_S), "-": adjust(-ADJUST_STEP_S), "q": quit_}


