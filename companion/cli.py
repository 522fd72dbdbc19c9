"""The ``companion`` command: a stable interface for people and scripts.

Every command that answers with data answers JSON with ``--json``. A user's mistake
(bad arguments, a bad config, pins that cannot be had) is one line on stderr and
exit code 2; anything else is a bug and keeps its traceback.

This module is the composition root: the one place in ``companion`` that wires the
core to the hardware adapters.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from companion.clock import MonotonicClock
from companion.config import Config, default_config_path, defaults, load_config
from companion.durations import parse_duration
from companion.errors import CompanionError, InvalidInput, one_line
from companion.events import EventBus, TimerEvent
from companion.loop import CoreLoop
from companion.terminal import KEY_HELP, DrainingBar, JsonLines, keyboard
from companion.timers import Phase, TimerBoard
from firmware_bridge.accessory import AccessoryBridge, AccessoryStatus
from firmware_bridge.board import board_model, is_raspberry_pi
from firmware_bridge.errors import BridgeError
from firmware_bridge.gpio import (
    ButtonActions,
    GpioMode,
    PanelSettings,
    PinSetup,
    SandTimerPanel,
    choose_pin_factory,
)
from vision.errors import VisionError

EXIT_OK, EXIT_USAGE, EXIT_CANCELLED = 0, 2, 130
ADJUST_STEP_S = 10.0


class UsageError(Exception):
    """Bad command-line arguments (raised by the parser instead of printing usage)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def build_parser() -> _Parser:
    parser = _Parser(prog="companion", description="The table companion: sand-timer and scorekeeper.")
    parser.add_argument("--config", type=Path, metavar="PATH",
                        help=f"config file (default: {default_config_path()})")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

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
    timer.set_defaults(run=run_timer)

    accessory = commands.add_parser("accessory",
                                    help="the USB timer accessory: status, monitor, test, simulate")
    acc = accessory.add_subparsers(dest="action", metavar="ACTION", required=True)
    status = acc.add_parser("status", help="is it there, and what is it (exit 1 when not connected)")
    monitor = acc.add_parser("monitor", help="connect and print every frame both ways")
    test = acc.add_parser("test", help="the display, the LEDs and the buzzer through their patterns")
    for sub in (status, monitor, test):
        sub.add_argument("--port", metavar="PORT", help="auto, a port or a pyserial URL (default: config)")
    status.add_argument("--json", action="store_true", help="answer in JSON")
    status.add_argument("--wait", type=float, default=3.0, metavar="S",
                        help="how long to wait for a handshake")
    status.set_defaults(run=run_accessory_status)
    monitor.add_argument("--for", dest="for_s", type=float, metavar="S", help="stop after S seconds")
    monitor.set_defaults(run=run_accessory_monitor)
    test.set_defaults(run=run_accessory_test)
    sim = acc.add_parser("simulate", help="a simulated accessory on a pty, running the firmware's own code")
    sim.add_argument("--json", action="store_true",
                     help='first line {"port": PATH}, then the display as JSON lines; commands on stdin')
    sim.add_argument("--link", type=Path, metavar="PATH", help="where to put the port's symlink")
    sim.add_argument("--drop", type=float, default=0.0, metavar="PCT", help="drop this %% of bytes")
    sim.add_argument("--corrupt", type=float, default=0.0, metavar="PCT",
                     help="flip a bit in this %% of bytes")
    sim.add_argument("--delay", type=float, default=0.0, metavar="MS", help="every byte arrives this late")
    sim.add_argument("--reply-late", type=float, default=0.0, metavar="MS",
                     help="the device answers this late")
    sim.add_argument("--unplug-every", type=float, default=0.0, metavar="S",
                     help="pull the cable every S seconds (and put it back after --unplug-for)")
    sim.add_argument("--unplug-for", type=float, default=1.0, metavar="S", help="how long it stays unplugged")
    sim.add_argument("--protocol-version", type=int, default=None, metavar="N",
                     help="speak this protocol version (to try a mismatch)")
    sim.add_argument("--seed", type=int, metavar="N", help="seed for the faults (repeatable runs)")
    sim.add_argument("--baud", type=int, default=0, metavar="N",
                     help="pace bytes like a UART at N baud (default: as fast as the pty)")
    sim.set_defaults(run=run_accessory_simulate)

    score = commands.add_parser("score", help="a game's end scoring from a JSON document")
    score.add_argument("game", metavar="GAME", help="dragons-gold, gold or drakon")
    score.add_argument("file", nargs="?", default="-", metavar="FILE",
                       help="the JSON document (default or '-': standard input)")
    score.add_argument("--json", action="store_true", help="answer in JSON")
    score.set_defaults(run=run_score)

    rules = commands.add_parser("rules", help="ask a rule a question")
    questions = rules.add_subparsers(dest="question", metavar="QUESTION", required=True)
    speed = questions.add_parser("volatio-speed", help="may a Volatio dragon set this speed?")
    speed.add_argument("--previous", type=int, required=True, metavar="N", help="last round's dial value")
    speed.add_argument("--new", type=int, required=True, metavar="M", help="the dial value revealed now")
    speed.add_argument("--fatigued", action="store_true", help="the dragon has a Debilitatus card")
    speed.add_argument("--spell", choices=("vis-draconis", "ventus-magicus"),
                       help="a spell played on this flight's template")
    speed.add_argument("--json", action="store_true", help="answer in JSON")
    speed.set_defaults(run=run_volatio_speed)

    export = commands.add_parser("export", help="finished plays for BG Stats (JSON or link) or as CSV")
    export.add_argument("--format", choices=("bgstats", "bgstats-link", "csv"), default="bgstats")
    export.add_argument("--session", type=int, metavar="N", help="one session (default: the last finished)")
    export.add_argument("--game", help="csv: only this game's plays")
    export.add_argument("--out", type=Path, metavar="FILE", help="write here instead of standard output")
    export.set_defaults(run=run_export)

    app = commands.add_parser("app", help="the touch app (the default command)")
    app.add_argument("--size", metavar="WxH", help="window size, like 800x480 (default: config)")
    app.add_argument("--fullscreen", action="store_true", default=None, help="fill the screen")
    app.add_argument("--lang", choices=("en", "hu", "ru"), help="language (default: config)")
    app.add_argument("--gpio", choices=("auto", "real", "mock", "off"), help="pins (default: config)")
    app.set_defaults(run=run_app)

    _vision_parser(commands)

    doctor = commands.add_parser("doctor", help="what this machine has: board, pins, ports, camera")
    doctor.add_argument("--json", action="store_true", help="answer in JSON")
    doctor.set_defaults(run=run_doctor)

    _kiosk_parser(commands)
    for sub in commands.choices.values():  # --config after the command works too
        sub.add_argument("--config", type=Path, metavar="PATH", default=argparse.SUPPRESS,
                         help=argparse.SUPPRESS)
    return parser


def _vision_parser(commands: Any) -> None:
    vision = commands.add_parser("vision",
                                 help="the overhead camera: markers, calibration, the Volatio edge check")
    acts = vision.add_subparsers(dest="action", metavar="ACTION", required=True)

    def layout_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument("--layout", type=Path, metavar="L.json",
                       help="the table layout (default: the Volatio set's, shipped with the app)")
        p.add_argument("--lens", type=Path, metavar="LENS.json", help="a lens calibration (calibrate-lens)")
        p.add_argument("--json", action="store_true", help="answer in JSON")

    cal = acts.add_parser("calibrate", help="image -> table homography from the table markers")
    cal.add_argument("image", type=Path, metavar="IMAGE")
    layout_arg(cal)
    cal.add_argument("--out", type=Path, metavar="CAL.json", help="save the calibration here")
    cal.set_defaults(run=run_vision_calibrate)

    learn = acts.add_parser("learn-track", help="the drivable region from a frame of the empty board")
    learn.add_argument("image", type=Path, metavar="IMAGE")
    layout_arg(learn)
    learn.add_argument("--seed", action="append", required=True, metavar="X,Y",
                       help="a point inside the track, in table mm (repeat for more)")
    learn.add_argument("--out", type=Path, required=True, metavar="TRACK.json",
                       help="where to save the track")
    learn.add_argument("--overlay", type=Path, metavar="FILE.png",
                       help="draw the learned track (or where it failed) over the photo, into this file")
    learn.set_defaults(run=run_vision_learn_track)

    check = acts.add_parser("check-flight", help="does each template and dragon base touch the track's edge")
    check.add_argument("image", type=Path, metavar="IMAGE")
    layout_arg(check)
    check.add_argument("--track", type=Path, required=True, metavar="TRACK.json", help="from learn-track")
    check.add_argument("--calibration", type=Path, metavar="CAL.json",
                       help="used when the frame shows too few table markers (a hand over them)")
    check.add_argument("--overlay", type=Path, metavar="FILE.png",
                       help="draw the track and each piece's outline, verdict and clearance over the photo, "
                            "into this file")
    check.set_defaults(run=run_vision_check_flight)

    piece = acts.add_parser("learn-template",
                            help="measure a real template's (or base's) outline from a photo")
    piece.add_argument("image", type=Path, metavar="IMAGE")
    layout_arg(piece)
    piece.add_argument("--marker", type=int, required=True, metavar="ID", help="the piece's marker id")
    piece.add_argument("--height", type=float, metavar="MM", help="its top's height (default: the layout's)")
    piece.add_argument("--out", type=Path, metavar="L.json",
                       help="write the layout with this outline in it (default: only print the outline)")
    piece.set_defaults(run=run_vision_learn_template)

    reg = acts.add_parser("register", help="add a piece's front or back to a piece library")
    reg.add_argument("image", type=Path, metavar="IMAGE", nargs="?",
                     help="a photo of the piece alone, a crop of it, or one of it on the registration square")
    reg.add_argument("--camera", nargs="?", const="", metavar="SOURCE",
                     help="take the photo with the camera (default: the config's camera.source); the piece "
                          "lies on the registration square (`companion vision markers --register-square`)")
    reg.add_argument("--library", type=Path, required=True, metavar="DIR", help="the library (made if new)")
    reg.add_argument("--kind", required=True, metavar="KIND", help="the kind of piece, like drakon-coin")
    face = reg.add_mutually_exclusive_group(required=True)
    face.add_argument("--front", metavar="NAME", help="this image is the front called NAME")
    face.add_argument("--back", action="store_true", help="this image is the kind's back")
    reg.add_argument("--shape", required=True, choices=("disc", "rect"))
    reg.add_argument("--size-mm", required=True, metavar="W[xH]", help="its real size, like 25 or 57x88")
    reg.add_argument("--json", action="store_true", help="answer in JSON")
    reg.set_defaults(run=run_vision_register)

    empty = acts.add_parser("remember-empty", help="save a frame of the empty table: the app then reads "
                                                   "pieces as what differs from it")
    empty.add_argument("--camera", default="", metavar="SOURCE", help="default: the config's camera.source")
    empty.add_argument("--json", action="store_true", help="answer in JSON")
    empty.set_defaults(run=run_vision_remember_empty)

    read = acts.add_parser("read", help="every library piece in a photo: kind, face, which front")
    read.add_argument("image", type=Path, metavar="IMAGE")
    read.add_argument("--library", type=Path, required=True, metavar="DIR")
    read.add_argument("--layout", type=Path, metavar="L.json",
                      help="with it, positions come back in table mm (the table markers must show)")
    read.add_argument("--lens", type=Path, metavar="LENS.json", help="a lens calibration")
    read.add_argument("--empty", type=Path, metavar="EMPTY.png",
                      help="the same view without pieces (as remember-empty saves it): pieces are then "
                           "what differs from it, which a patterned cloth needs")
    read.add_argument("--json", action="store_true", help="answer in JSON")
    read.set_defaults(run=run_vision_read)

    sheet = acts.add_parser("markers", help="a printable sheet (PNG and PDF, A4, true size) of every marker")
    sheet.add_argument("--out", type=Path, required=True, metavar="FILE", help="FILE.png and FILE.pdf")
    sheet.add_argument("--register-square", action="store_true",
                       help="the registration square instead: a piece laid on it is registered with "
                            "`companion vision register --camera`")
    sheet.add_argument("--layout", type=Path, metavar="L.json", help="the table layout (default: Volatio's)")
    sheet.add_argument("--dpi", type=int, default=300, choices=(150, 300, 600), help="print resolution")
    sheet.add_argument("--json", action="store_true", help="answer in JSON")
    sheet.set_defaults(run=run_vision_markers)

    lens = acts.add_parser("calibrate-lens", help="the lens from 15-30 photos of the printed ChArUco board")
    lens.add_argument("images", type=Path, nargs="*", metavar="IMAGE")
    lens.add_argument("--out", type=Path, metavar="LENS.json", help="save the lens calibration here")
    lens.add_argument("--board", type=Path, metavar="FILE",
                      help="instead: write the ChArUco board to print (FILE.png and FILE.pdf, A4)")
    lens.add_argument("--json", action="store_true", help="answer in JSON")
    lens.set_defaults(run=run_vision_calibrate_lens)


def _kiosk_parser(commands: Any) -> None:
    kiosk = commands.add_parser("kiosk",
                                help="kiosk mode on a Raspberry Pi: install, uninstall, status, set-pin")
    acts = kiosk.add_subparsers(dest="action", metavar="ACTION", required=True)

    def root_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument("--root", type=Path, default=Path("/"), metavar="DIR",
                       help="work on a staging tree (an image, a test) instead of this system")

    install = acts.add_parser("install", help="the units, the Kivy settings, the udev rule, the boot "
                                              "options, the data directory (root; idempotent)")
    root_arg(install)
    install.add_argument("--user", metavar="NAME", help="who runs the app (default: the user who ran sudo)")
    install.add_argument("--dry-run", action="store_true",
                         help="print every file and command; change nothing")
    install.add_argument("--rotate", type=int, default=0, choices=(0, 90, 180, 270), metavar="DEG",
                         help="turn the picture, the touches and the console: 0, 90, 180 or 270")
    install.add_argument("--panel", choices=("7inch", "touch-display-2"),
                         help="the official panel, for the console's rotation")
    install.add_argument("--touch", choices=("hidinput", "mtdev", "sdl"), default="hidinput",
                         help="the one input provider that reads the panel (default: hidinput)")
    install.add_argument("--display", choices=("auto", "kmsdrm", "cage"), default="auto",
                         help="straight on the console (kmsdrm) or under the cage compositor "
                              "(default: kmsdrm when Kivy's SDL2 has it)")
    install.add_argument("--overlay", action="store_true",
                         help="also make the root file system read-only (raspi-config's overlay)")
    install.add_argument("--companion", metavar="PATH",
                         help="the companion program on the target (default: this .venv's)")
    install.set_defaults(run=run_kiosk_install)

    uninstall = acts.add_parser("uninstall", help="remove what install added, put back what it changed")
    root_arg(uninstall)
    uninstall.add_argument("--dry-run", action="store_true", help="print what it would do; change nothing")
    uninstall.set_defaults(run=run_kiosk_uninstall)

    status = acts.add_parser("status", help="what is installed, and whether the kiosk runs")
    root_arg(status)
    status.add_argument("--json", action="store_true", help="answer in JSON")
    status.set_defaults(run=run_kiosk_status)

    set_pin = acts.add_parser("set-pin", help="a new admin PIN, kept only as its hash (asked twice, or read "
                                              "as one line from standard input)")
    set_pin.set_defaults(run=run_kiosk_set_pin)

    run = acts.add_parser("run", help="the touch app as the kiosk's unit runs it")
    run.add_argument("--kivy-config", type=Path, metavar="PATH", help="the kiosk's Kivy settings (kivy.ini)")
    run.set_defaults(run=run_kiosk_run)

    fallback = acts.add_parser("fallback", help="the text page the unit shows when the app keeps failing")
    fallback.set_defaults(run=run_kiosk_fallback)
    for sub in acts.choices.values():
        sub.add_argument("--config", type=Path, metavar="PATH", default=argparse.SUPPRESS,
                         help="config file (set-pin: default the kiosk's when it is installed)")


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="companion: %(levelname)s: %(message)s")
    try:
        args = build_parser().parse_args(argv)
        if args.command is None:  # the touch app is the default
            args = build_parser().parse_args([*(argv or sys.argv[1:]), "app"])
        code: int = args.run(args)
        return code
    except UsageError as exc:
        print(one_line(str(exc)), file=sys.stderr)
        return EXIT_USAGE
    except (CompanionError, BridgeError, VisionError) as exc:  # the user's mistake: one line, exit 2
        # Whatever the message quotes, it reaches the terminal as one short line, escaped.
        print(one_line(f"companion: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # a reader such as `head` went away: not an error of ours
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK


# -- companion timer ------------------------------------------------------------------------


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
    display: JsonLines | DrainingBar | None = None
    restore_signals = _signals_interrupt()

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


def _key_actions(board: TimerBoard, name: str, press: Callable[[], None],
                 reset: Callable[[], None], loop: CoreLoop) -> dict[str, Callable[[], None]]:
    def adjust(delta: float) -> Callable[[], None]:
        return lambda: board.adjust(name, delta) if board[name].phase is not Phase.EXPIRED else None

    def quit_() -> None:
        board.cancel(name)
        loop.stop()

    return {" ": press, "\n": press, "p": press, "r": reset, "+": adjust(ADJUST_STEP_S),
            "=": adjust(ADJUST_STEP_S), "-": adjust(-ADJUST_STEP_S), "q": quit_}


def _signals_interrupt() -> Callable[[], None]:
    """SIGTERM (systemd, kill) cancels like Ctrl-C, so the same clean-up runs."""
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)

    def restore() -> None:
        signal.signal(signal.SIGTERM, previous)

    return restore


# -- companion accessory ----------------------------------------------------------------------


def _accessory_port(args: argparse.Namespace, config: Config) -> str:
    setting: str = args.port if args.port is not None else config["accessory.port"]
    if setting == "none":
        raise InvalidInput("--port", setting, "no accessory is configured; give --port PORT")
    return setting


def _connect(args: argparse.Namespace, **kwargs: Any) -> tuple[AccessoryBridge, bool]:
    """A started bridge on the configured or given port, and whether it connected in time."""
    config = load_config(args.config)
    bridge = AccessoryBridge(_accessory_port(args, config), lambda fn: fn(),
                             usb_ids=config["accessory.usb_ids"], brightness=config["accessory.brightness"],
                             **kwargs)
    bridge.start()
    wait_s = getattr(args, "wait", 3.0)
    ok = bridge.wait_until(lambda: bridge.status.is_connected
                           or bridge.status.state in ("version mismatch", "no answer"), max(0.0, wait_s))
    return bridge, ok and bridge.status.is_connected


def run_accessory_status(args: argparse.Namespace) -> int:
    """Is the accessory there: exit 0 when connected, 1 when not."""
    bridge, connected = _connect(args)
    bridge.close(flush_s=0)
    status = bridge.status
    if args.json:
        print(json.dumps(status.to_json()))
    else:
        print(status.to_text())
    return EXIT_OK if connected else 1


def run_accessory_monitor(args: argparse.Namespace) -> int:
    """Hold the link and print every decoded frame, both ways, until Ctrl-C or --for.

    The I/O thread only queues the lines; this (main) thread prints them, so a closed
    stdout (``| head``) ends the command here, not the link's thread.
    """
    import queue

    from firmware_bridge.firmware.accessory_proto import describe

    clock = MonotonicClock()
    start = clock.now()
    lines: queue.SimpleQueue[str] = queue.SimpleQueue()

    def tap(direction: str, mtype: int, payload: bytes) -> None:
        arrow = "host -> device" if direction == "tx" else "device -> host"
        lines.put(f"{clock.now() - start:9.3f}  {arrow}  {describe(mtype, payload)}")

    def on_status(status: AccessoryStatus) -> None:
        lines.put(f"{clock.now() - start:9.3f}  {status.to_text()}")

    restore = _signals_interrupt()
    config = load_config(args.config)
    bridge = AccessoryBridge(_accessory_port(args, config), lambda fn: fn(), tap=tap, on_status=on_status,
                             usb_ids=config["accessory.usb_ids"], brightness=config["accessory.brightness"])
    end = start + (args.for_s if args.for_s is not None else float("inf"))
    try:
        bridge.start()
        while clock.now() < end:
            try:
                print(lines.get(timeout=min(0.1, max(0.0, end - clock.now()))), flush=True)
            except queue.Empty:
                continue
        print(f"bad frames received: {bridge.protocol.link.bad_frames}", flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        bridge.close(flush_s=0)
        restore()
    return EXIT_OK


def run_accessory_test(args: argparse.Namespace) -> int:
    """Every output through its paces; exit 1 when the accessory is not there or refuses."""
    from firmware_bridge.accessory import self_test

    bridge, connected = _connect(args)
    try:
        if not connected:
            print(bridge.status.to_text(), file=sys.stderr)
            return 1
        ok = self_test(bridge, lambda line: print(line, flush=True))
    finally:
        bridge.close()
    return EXIT_OK if ok else 1


def run_accessory_simulate(args: argparse.Namespace) -> int:
    """A simulated accessory on a pty until Ctrl-C, q, or 'quit' on stdin."""
    from firmware_bridge.simulator import serve

    for flag, value in (("--drop", args.drop), ("--corrupt", args.corrupt)):
        if not 0 <= value <= 100:
            raise InvalidInput(flag, value, "must be a percentage from 0 to 100")
    for flag, value in (("--delay", args.delay), ("--reply-late", args.reply_late),
                        ("--unplug-every", args.unplug_every)):
        if value < 0:
            raise InvalidInput(flag, value, "must not be negative")
    if args.baud < 0:
        raise InvalidInput("--baud", args.baud, "must not be negative")
    if args.unplug_for <= 0:
        raise InvalidInput("--unplug-for", args.unplug_for, "must be more than 0")
    restore = _signals_interrupt()
    try:
        return serve(args)
    except KeyboardInterrupt:
        return EXIT_OK
    finally:
        restore()


# -- companion vision ---------------------------------------------------------------------------


def _vision_inputs(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    """The frame, the layout and the lens (or None) the arguments name."""
    from vision.calibration import Lens
    from vision.layout import load_layout
    from vision.sources import ImageSource

    layout = load_layout(args.layout)
    lens = Lens.load(args.lens) if args.lens is not None else None
    with ImageSource(args.image) as source:
        image = source.read()
    return image, layout, lens


def _answer(args: argparse.Namespace, doc: dict[str, Any], text: str) -> None:
    print(json.dumps(doc) if args.json else text)


def run_vision_calibrate(args: argparse.Namespace) -> int:
    from vision.calibration import calibrate

    image, layout, lens = _vision_inputs(args)
    cal = calibrate(image, layout, lens)
    if args.out is not None:
        cal.save(args.out)
    doc = {"reprojection_error_mm": round(cal.reprojection_error_mm, 4),
           "markers_found": list(cal.markers_found),
           "homography": [[float(v) for v in row] for row in cal.homography]}
    _answer(args, doc, f"table calibrated from markers {list(cal.markers_found)}: "
                       f"reprojection error {cal.reprojection_error_mm:.3f} mm"
                       + (f"; saved to {args.out}" if args.out else ""))
    return EXIT_OK


def _seeds(values: list[str]) -> list[tuple[float, float]]:
    seeds = []
    for v in values:
        try:
            x, y = (float(p) for p in v.split(","))
        except ValueError:
            raise InvalidInput("--seed", v, "must be X,Y in table mm, like 400,250") from None
        seeds.append((x, y))
    return seeds


def run_vision_learn_track(args: argparse.Namespace) -> int:
    from vision.calibration import calibrate
    from vision.errors import TrackRefused
    from vision.overlay import draw_track, save_picture
    from vision.track import learn_track, save_track, track_to_json

    seeds = _seeds(args.seed)
    image, layout, lens = _vision_inputs(args)
    cal = calibrate(image, layout, lens)
    try:
        track = learn_track(image, cal, layout, seeds)
    except TrackRefused as exc:
        if args.overlay is not None:
            save_picture(args.overlay, draw_track(image, cal, None, seeds, str(exc), exc.at_mm))
        raise
    if args.overlay is not None:
        save_picture(args.overlay, draw_track(image, cal, track, seeds))
    save_track(track, args.out)
    doc = track_to_json(track)
    faint = f"; faint at {len(track.weak_mm)} place(s)" if len(track.weak_mm) else ""
    _answer(args, doc, f"track: {track.region.area / 1e6:.4f} m², {len(track.region.interiors)} hole(s)"
                       f"{faint}; saved to {args.out}")
    return EXIT_OK


def run_vision_check_flight(args: argparse.Namespace) -> int:
    from vision import markers
    from vision.calibration import TableCalibration, calibrate
    from vision.errors import CalibrationError
    from vision.flight import check_flight
    from vision.track import load_track

    image, layout, lens = _vision_inputs(args)
    track = load_track(args.track)
    seen = markers.detect(image, layout.dictionary)
    try:
        cal = calibrate(image, layout, lens, seen)
    except CalibrationError:
        if args.calibration is None:
            raise
        cal = TableCalibration.load(args.calibration)  # markers hidden: trust the saved one
    result = check_flight(image, layout, cal, track, seen)
    if args.overlay is not None:
        from vision.overlay import draw_flight, save_picture

        save_picture(args.overlay, draw_flight(image, cal, track, result))
    lines = [f"{p.spec.label:<14} {p.verdict:<9} clearance {p.clearance_mm:+7.2f} mm (±{p.band_mm:.2f})"
             + (f"  {p.note}" if p.note else "") for p in result.pieces]
    lines += [f"contact: {a} and {b}" for a, b in result.contacts]
    _answer(args, result.to_json(), "\n".join(lines) or "no pieces in view")
    return EXIT_OK


def run_vision_learn_template(args: argparse.Namespace) -> int:
    from vision.calibration import calibrate
    from vision.layout import layout_to_json, parse_layout
    from vision.pieces import measure_outline

    image, layout, lens = _vision_inputs(args)
    cal = calibrate(image, layout, lens)
    found = measure_outline(image, cal, layout, args.marker, args.height)
    if args.out is not None:
        doc = layout_to_json(layout)
        entry = next((p for p in doc["pieces"] if p["marker_id"] == args.marker
                      or any(m["id"] == args.marker for m in p.get("markers", []))), None)
        if entry is None:
            raise InvalidInput("--marker", args.marker,
                               "is no piece's marker in the layout: add the piece first")
        entry["outline_mm"] = found["outline_mm"]
        parse_layout(doc, str(args.out))  # the result must be a layout this program reads
        try:
            args.out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        except OSError as exc:
            raise InvalidInput("--out", str(args.out), f"cannot write it ({exc.strerror})") from None
    saved = f"; written to {args.out}" if args.out else ""
    _answer(args, found, f"marker {args.marker}: outline of {len(found['outline_mm'])} points, "
                         f"{found['area_mm2'] / 100:.1f} cm²{saved}")
    return EXIT_OK


def _size_mm(text: str) -> tuple[float, float]:
    try:
        parts = [float(v) for v in text.lower().split("x")]
    except ValueError:
        parts = []
    if len(parts) not in (1, 2) or not all(0 < v <= 1000 for v in parts):
        raise InvalidInput("--size-mm", text, "must be W or WxH in mm, like 25 or 57x88")
    return (parts[0], parts[-1])


def run_vision_register(args: argparse.Namespace) -> int:
    from vision import register_square
    from vision.library import Library, PieceKind
    from vision.sources import ImageSource, open_source

    size = _size_mm(args.size_mm)
    if (args.image is None) == (args.camera is None):
        raise InvalidInput("IMAGE", None, "give a photo of the piece, or --camera to take one (not both)")
    if args.camera is not None:
        spec = args.camera or load_config(args.config)["camera.source"]
        with open_source(spec) as source:
            image = source.read()
    else:
        with ImageSource(args.image) as source:
            image = source.read()
    flat = register_square.flatten(image)
    if flat is not None:  # the piece on the registration square: a top-down view at a known scale
        image = register_square.check_piece(flat, PieceKind(args.kind, args.shape, size))
    elif args.camera is not None:
        raise InvalidInput("--camera", args.camera or "camera.source",
                           "the registration square is not in view: print it with `companion vision markers "
                           "--register-square`, lay the piece on it and put it under the camera")
    library = Library.load(args.library) if (args.library / "library.json").exists() \
        else Library.create(args.library)
    saved = library.register(args.kind, args.shape, size, image,
                             **({"back": True} if args.back else {"front": args.front}))
    face = "back" if args.back else f"front {args.front!r}"
    _answer(args, {"kind": args.kind, "face": "back" if args.back else "front", "front": args.front,
                   "file": str(saved)}, f"{args.kind}: {face} saved as {saved}")
    return EXIT_OK


def run_vision_remember_empty(args: argparse.Namespace) -> int:
    """The app's ``vision/empty.png``, from the camera: the table cleared of pieces."""
    from vision.sources import open_source
    from vision.table_camera import TableCamera

    config = load_config(args.config)
    spec = args.camera or config["camera.source"]
    with open_source(spec) as source:
        frame = source.read()
    saved = TableCamera(spec, config.database_path.parent / "vision").remember_empty(frame)
    _answer(args, {"file": str(saved)}, f"the empty table saved as {saved}")
    return EXIT_OK


def run_vision_read(args: argparse.Namespace) -> int:
    from vision.calibration import Lens, calibrate
    from vision.layout import load_layout
    from vision.library import Library
    from vision.reading import read
    from vision.sources import ImageSource

    library = Library.load(args.library)
    with ImageSource(args.image) as source:
        image = source.read()
    empty = None
    if args.empty is not None:
        with ImageSource(args.empty) as source:
            empty = source.read()
        if empty.shape != image.shape:
            h, w = empty.shape[:2]
            raise UsageError(f"companion vision read: --empty: {args.empty} is {w}x{h}, the photo "
                             f"{image.shape[1]}x{image.shape[0]}: it must be the same view")
    calibration = None
    dictionary = None
    if args.layout is not None:
        layout = load_layout(args.layout)
        lens = Lens.load(args.lens) if args.lens is not None else None
        calibration = calibrate(image, layout, lens)
        dictionary = layout.dictionary
    result = read(image, library, calibration=calibration, layout_dictionary=dictionary,
                  empty=empty).to_json()
    lines = [f"{p['kind']:<14} {p['face']:<4} {p['front'] or '':<24} confidence {p['confidence']:.2f}"
             for p in result["pieces"]]
    lines += [f"unknown piece at {u.get('center_mm') or u.get('center_px')}" for u in result["unknown"]]
    _answer(args, result, "\n".join(lines) or "no pieces found")
    return EXIT_OK


def run_vision_markers(args: argparse.Namespace) -> int:
    from vision import register_square
    from vision.layout import load_layout
    from vision.markers import write_sheet

    if args.register_square:
        files = register_square.write(args.out, args.dpi)
        _answer(args, {"files": [str(f) for f in files]}, "\n".join(str(f) for f in files))
        return EXIT_OK

    files = write_sheet(load_layout(args.layout), args.out, args.dpi)
    _answer(args, {"files": [str(f) for f in files]}, "\n".join(str(f) for f in files))
    return EXIT_OK


def run_vision_calibrate_lens(args: argparse.Namespace) -> int:
    from vision.lens import calibrate_lens
    from vision.markers import write_lens_board
    from vision.sources import ImageSource

    if args.board is not None:
        files = write_lens_board(args.board)
        _answer(args, {"files": [str(f) for f in files]}, "\n".join(str(f) for f in files))
        return EXIT_OK
    if not args.images:
        raise InvalidInput("IMAGE", None,
                           "give 15-30 photos of the printed board (or --board FILE to print it)")
    if args.out is None:
        raise InvalidInput("--out", None, "say where to save the lens calibration")
    images = []
    for path in args.images:
        with ImageSource(path) as source:
            images.append(source.read())
    lens = calibrate_lens(images)
    lens.save(args.out)
    doc = {"rms_px": round(lens.rms_px, 4), "views": lens.views, "K": lens.K.tolist(),
           "dist": lens.dist.reshape(-1).tolist()}
    _answer(args, doc, f"lens calibrated from {lens.views} views: RMS {lens.rms_px:.3f} px; "
                       f"saved to {args.out}")
    return EXIT_OK


# -- companion export -------------------------------------------------------------------------


def run_export(args: argparse.Namespace) -> int:
    """Finished plays from the session store, for BG Stats or a spreadsheet. Reads the database
    read-only (beside a running app too) and never creates one."""
    from companion.export import to_bgstats, to_bgstats_link, to_csv
    from companion.games import find_game
    from companion.history import finished_plays
    from companion.store import Store, StoreMissing

    config = load_config(args.config)
    try:
        store = Store.open_read_only(config.database_path)
    except StoreMissing:
        raise StoreMissing(f"database {config.database_path}: no such file, so it holds no finished play "
                           "yet (is paths.database in the config right?)") from None
    try:
        game = find_game(args.game).key if args.game else None
        plays = finished_plays(store, game)
    finally:
        store.close()
    if args.session is not None:
        plays = [(sid, p) for sid, p in plays if sid == args.session]
        if not plays:
            raise InvalidInput("--session", args.session, "no finished play has this number")
    if not plays:
        raise InvalidInput("--game" if game else "database", args.game or str(config.database_path),
                           "holds no finished play yet")
    if args.format == "csv":
        text = to_csv([p for _sid, p in plays])
    elif args.format == "bgstats-link":
        text = to_bgstats_link(plays[-1][1]) + "\n"
    else:
        text = to_bgstats(plays[-1][1]) + "\n"
    if args.out is None:
        sys.stdout.write(text)
    else:
        try:
            args.out.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise InvalidInput("--out", str(args.out), f"cannot write it ({exc.strerror})") from None
    return EXIT_OK


# -- companion app ----------------------------------------------------------------------------

NO_DISPLAY = ("companion: no display here: run the app on a screen, or on a virtual one with "
              "`xvfb-run -a companion app`")


def run_app(args: argparse.Namespace) -> int:
    """The touch app. Without a display: one line naming the way to a virtual one, exit 2."""
    from companion.ui.app_env import has_display

    if args.size is not None:
        from companion.config import window_size

        try:
            window_size(args.size)
        except Exception:
            raise InvalidInput("--size", args.size, "must be WIDTHxHEIGHT in pixels, like 800x480") from None
    if not has_display():
        print(NO_DISPLAY, file=sys.stderr)
        return EXIT_USAGE
    from companion.ui.launch import build

    app = build(args.config, size=args.size, fullscreen=args.fullscreen, lang=args.lang, gpio=args.gpio)
    restore = _signals_interrupt()
    try:
        app.run()
    except KeyboardInterrupt:
        app.stop()
    finally:
        restore()
        app.on_stop_cleanup()
    return EXIT_OK


# -- companion kiosk ----------------------------------------------------------------------------


def run_kiosk_install(args: argparse.Namespace) -> int:
    """Install (or stage) the kiosk; a second run changes nothing."""
    from kiosk.install import InstallRequest, install
    from kiosk.pin_entry import ask_new_pin

    request = InstallRequest(root=args.root, user=args.user, companion=args.companion, display=args.display,
                             rotate=args.rotate, panel=args.panel, touch=args.touch, overlay=args.overlay,
                             dry_run=args.dry_run)
    install(request, lambda line: print(line, flush=True), ask_new_pin)
    return EXIT_OK


def run_kiosk_uninstall(args: argparse.Namespace) -> int:
    from kiosk.install import uninstall

    uninstall(args.root, args.dry_run, lambda line: print(line, flush=True))
    return EXIT_OK


def run_kiosk_status(args: argparse.Namespace) -> int:
    """What is installed; exit 0 when the kiosk is, 1 when not."""
    from kiosk.install import status, status_text

    doc = status(args.root)
    print(json.dumps(doc, indent=2) if args.json else status_text(doc))
    return EXIT_OK if doc["installed"] else 1


def run_kiosk_set_pin(args: argparse.Namespace) -> int:
    """A new admin PIN into the config, as its hash; a plain-text ``ui.admin_pin`` goes."""
    from companion.config import save_settings
    from companion.pin import hash_pin
    from kiosk.pin_entry import ask_new_pin
    from kiosk.units import CONFIG_PATH

    path: Path = args.config if args.config is not None else \
        Path(CONFIG_PATH) if Path(CONFIG_PATH).exists() else default_config_path()
    pin_hash = hash_pin(ask_new_pin())
    save_settings(path, {"ui.admin_pin_hash": pin_hash}, remove=["ui.admin_pin"])
    print(f"the admin PIN is set: {path} keeps only its hash")
    return EXIT_OK


def run_kiosk_run(args: argparse.Namespace) -> int:
    """The app, as the kiosk's unit runs it (see :mod:`companion.ui.kiosk_mode`)."""
    from companion.ui.kiosk_mode import run_kiosk

    return run_kiosk(args.config, args.kivy_config)


def run_kiosk_fallback(args: argparse.Namespace) -> int:
    """The fallback page on the console; returns only when systemd stops it."""
    from kiosk.fallback import show_fallback

    return show_fallback(args.config)


# -- companion score and companion rules ------------------------------------------------------


def read_document(file: str) -> Any:
    """The JSON document in *file* ('-' for standard input), read as a file is whatever the
    locale: at most 1 MiB of strict UTF-8, within :mod:`companion.documents`' limits.

    :raises InvalidInput: naming FILE, for a file that cannot be read, is too large, is not
        UTF-8 or not JSON, nests too deep, holds a number too large, or names a key twice.
    """
    from companion.documents import DocumentError, decode_utf8, parse_json, read_capped

    name = "standard input" if file == "-" else file
    try:
        return parse_json(decode_utf8(read_capped(None if file == "-" else Path(file),
                                                  "a score document")))
    except OSError as exc:
        raise InvalidInput("FILE", name, f"cannot read it ({exc.strerror})") from None
    except DocumentError as exc:
        raise InvalidInput("FILE", name, exc.why) from None


def run_score(args: argparse.Namespace) -> int:
    from companion.games import find_game

    game = find_game(args.game)
    if game.score_document is None:
        raise InvalidInput("GAME", args.game, f"{game.title} has no end scoring to compute")
    result = game.score_document(read_document(args.file))
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print(_score_text(game.title, result))
    return EXIT_OK


def _score_text(title: str, result: dict[str, Any]) -> str:
    scores = result.get("scores") or result.get("totals") or {}
    winners = result.get("winners") or result.get("leaders") or []
    width = max((len(n) for n in scores), default=0)
    lines = [title]
    lines += [f"  {name:<{width}}  {score:>4}{'  *' if name in winners else ''}"
              for name, score in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))]
    if "goal_reached" in result:
        lines.append("  goal reached: " + (", ".join(result["goal_reached"]) or "nobody"))
    lines.append("  winners: " + (", ".join(winners) or "none"))
    return "\n".join(lines)


def run_volatio_speed(args: argparse.Namespace) -> int:
    from companion.games import volatio

    answer = volatio.speed_check_json(args.previous, args.new, fatigued=args.fatigued, spell=args.spell)
    if args.json:
        print(json.dumps(answer))
    else:
        verdict = "legal" if answer["legal"] else f"not legal: {answer['reason']}"
        print(f"{args.previous} -> {args.new}: {verdict}; templates: "
              + (", ".join(str(t) for t in answer["templates"]) or "none"))
    return EXIT_OK


# -- companion doctor -----------------------------------------------------------------------


def run_doctor(args: argparse.Namespace) -> int:
    report = doctor_report(args.config)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(_doctor_text(report))
    return EXIT_OK


def doctor_report(config_path: Path | None) -> dict[str, Any]:
    """What this machine has. Reports; never raises for a problem it finds."""
    import sqlite3

    from companion.disk import running_pid
    from companion.store import Store, StoreError
    from firmware_bridge.serial_ports import list_serial_ports
    from vision.devices import list_video_devices
    from vision.picamera import picamera2_report

    path = config_path if config_path is not None else default_config_path()
    try:
        config = load_config(config_path)
        config_error = None
    except CompanionError as exc:
        config, config_error = defaults(), str(exc)
    mode = config["gpio.mode"]
    gpio: dict[str, Any] = {"mode": mode, "buzzer_type": config["gpio.buzzer_type"],
                            "pins": {"buzzer": config["gpio.buzzer_pin"],
                                     "bar": list(config["gpio.bar_pins"]),
                                     "status_led": config["gpio.status_led_pin"],
                                     "button": config["gpio.button_pin"]}}
    try:
        setup: PinSetup = choose_pin_factory(mode)
    except BridgeError as exc:
        gpio.update(pin_factory=None, kind=None, error=str(exc))
    else:
        gpio.update(pin_factory=setup.name, kind=setup.kind, error=None)
        if setup.factory is not None:
            setup.factory.close()
    try:
        serial_ports: list[dict[str, Any]] | dict[str, str] = list_serial_ports()
    except Exception as exc:  # a report, not a verdict: say what went wrong and go on
        serial_ports = {"error": str(exc)}
    database = config.database_path
    # Read-only, so it works beside a running app; "app_pid" is the app writing it, if one is.
    database_report: dict[str, Any] = {"path": str(database), "exists": database.exists(), "readable": False,
                                       "sessions": None, "error": None,
                                       "app_pid": running_pid(Path(f"{database}.lock"))}
    if database_report["exists"]:
        try:
            store = Store.open_read_only(database)
            try:
                database_report.update(readable=True, sessions=len(store.sessions()))
            finally:
                store.close()
        except (StoreError, sqlite3.Error) as exc:
            database_report["error"] = str(exc)
    return {
        "platform": {"system": platform.system(), "machine": platform.machine(),
                     "python": platform.python_version(), "raspberry_pi": is_raspberry_pi(),
                     "model": board_model(), "picamera2": picamera2_report()},
        "gpio": gpio,
        "serial_ports": serial_ports,
        "video_devices": list_video_devices(),
        "config": {"path": str(path), "exists": path.exists(), "valid": config_error is None,
                   "error": config_error},
        "database": database_report,
        "display": display_status(),
    }


def display_status() -> dict[str, Any]:
    """Where a window could go: X11, Wayland, or the console's KMS/DRM devices."""
    x11 = os.environ.get("DISPLAY") or None
    wayland = os.environ.get("WAYLAND_DISPLAY") or None
    drm = sorted(str(p) for p in Path("/dev/dri").glob("card*")) if Path("/dev/dri").is_dir() else []
    return {"available": bool(x11 or wayland or drm), "x11": x11, "wayland": wayland, "drm": drm}


def _doctor_text(report: dict[str, Any]) -> str:
    p, g, c, d = report["platform"], report["gpio"], report["config"], report["display"]
    ports = report["serial_ports"]
    lines = [
        f"board:     {p['model'] or 'not a Raspberry Pi'} ({p['system']} {p['machine']}, "
        f"Python {p['python']})",
        f"gpio:      mode {g['mode']}, pin factory {g['pin_factory'] or 'none: ' + str(g['error'])}",
        f"pins:      buzzer {g['pins']['buzzer']} ({g['buzzer_type']}), bar {g['pins']['bar']}, "
        f"status LED {g['pins']['status_led']}, button {g['pins']['button']}",
        "serial:    " + (", ".join(f"{s['device']} ({s['description']})" for s in ports)
                         if isinstance(ports, list) and ports else str(ports.get("error", "none"))
                         if isinstance(ports, dict) else "none"),
        "video:     " + (", ".join(v["device"] for v in report["video_devices"]) or "none"),
        "pi camera: " + (p["picamera2"]["problem"] or "picamera2 loads"),
        f"config:    {c['path']} ({'found' if c['exists'] else 'not there: defaults'}"
        f"{'' if c['valid'] else ', INVALID: ' + str(c['error'])})",
        f"database:  {report['database']['path']}",
        f"display:   {'yes' if d['available'] else 'none'} (X11 {d['x11'] or 'none'}, "
        f"Wayland {d['wayland'] or 'none'}, DRM {', '.join(d['drm']) or 'none'})",
    ]
    return "\n".join(lines)
