"""``companion app``: the touch app (the default command)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from companion.cli import venue_link
from companion.cli.common import (
    EXIT_OK,
    EXIT_USAGE,
    signals_interrupt,
)
from companion.errors import InvalidInput


def register(commands: Any) -> None:
    """Adds this group's subcommands to the ``companion`` parser's *commands*."""
    app = commands.add_parser("app", help="the touch app (the default command)")
    app.add_argument("--size", metavar="WxH", help="window size, like 800x480 (default: config)")
    app.add_argument("--fullscreen", action="store_true", default=None, help="fill the screen")
    app.add_argument("--lang", choices=("en", "hu", "ru"), help="language (default: config)")
    app.add_argument("--gpio", choices=("auto", "real", "mock", "off"), help="pins (default: config)")
    venue_link.add_arguments(app)
    app.set_defaults(run=run_app)


NO_DISPLAY = ("companion: no display here: run the app on a screen, or on a virtual one with "
              "`xvfb-run -a companion app`")


def run_app(args: argparse.Namespace) -> int:
    """The touch app. Without a display: one line naming the way to a virtual one, exit 2."""
    from companion.config import load_config
    from companion.ui.app_env import has_display

    if args.size is not None:
        from companion.config import window_size

        try:
            window_size(args.size)
        except Exception:
            raise InvalidInput("--size", args.size, "must be WIDTHxHEIGHT in pixels, like 800x480") from None
    if args.venue is not None or args.table is not None:  # a bad one is said before the display's lack
        venue_link.settings(args, load_config(args.config))
    if not has_display():
        print(NO_DISPLAY, file=sys.stderr)
        return EXIT_USAGE
    from companion.ui.launch import build

    app = build(args.config, size=args.size, fullscreen=args.fullscreen, lang=args.lang, gpio=args.gpio,
                venue=args.venue, table=args.table)
    restore = signals_interrupt()
    try:
        app.run()
    except KeyboardInterrupt:
        app.stop()
    finally:
        restore()
        app.on_stop_cleanup()
    return EXIT_OK
