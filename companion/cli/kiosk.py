"""``companion kiosk``: kiosk mode on a Raspberry Pi."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from companion.cli.common import EXIT_OK
from companion.config import default_config_path


def register(commands: Any) -> None:
    """Adds this group's subcommands to the ``companion`` parser's *commands*."""
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
    from kiosk.uninstall import uninstall

    uninstall(args.root, args.dry_run, lambda line: print(line, flush=True))
    return EXIT_OK


def run_kiosk_status(args: argparse.Namespace) -> int:
    """What is installed; exit 0 when the kiosk is, 1 when not."""
    from kiosk.status import status, status_text

    doc = status(args.root)
    print(json.dumps(doc, indent=2) if args.json else status_text(doc))
    return EXIT_OK if doc["installed"] else 1


def run_kiosk_set_pin(args: argparse.Namespace) -> int:
    """A new admin PIN into the config, as its hash; a plain-text ``ui.admin_pin`` goes."""
    from companion.config import save_settings
    from kiosk.pin import hash_pin
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
