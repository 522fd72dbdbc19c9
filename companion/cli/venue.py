"""``companion venue``: the venue's broker seen from a terminal (``watch``: every table, live)."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from companion.cli.common import EXIT_OK, EXIT_USAGE, signals_interrupt
from companion.config import load_config
from companion.durations import parse_duration
from companion.errors import InvalidInput, one_line

EXIT_UNREACHABLE = 1
_PREFIX = re.compile(r"[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*")

WATCH_HELP = """\
Every table on the venue's broker: its status (online, or offline and since when), its main
timer (time left counting down, ALARM while it sounds), its game and who leads. A live table on
a terminal; one line per change otherwise. The broker, prefix, user, password and CA file come
from the config's [venue] section unless given here.

--json prints one JSON object per change, a line each, flushed:
  {"t": WALL_TIME_HEARD, "table": ID, "part": "status|timer|main|alarm|game|scores",
   "name": TIMER_NAME_OR_NULL, "seq": SEQ_OR_NULL, "body": {...} or null (cleared)}
(docs/venue-protocol.md). Exit codes: 0 after --for or Ctrl-C; 1 when the broker cannot be
reached at the start; 2 for a bad URL or option, no broker configured, or credentials refused.
"""


def register(commands: Any) -> None:
    """Adds this group's subcommands to the ``companion`` parser's *commands*."""
    venue = commands.add_parser("venue", help="the venue's MQTT broker: watch every table")
    actions = venue.add_subparsers(dest="action", metavar="ACTION", required=True)
    watch = actions.add_parser("watch", help="a live view of every table on the broker",
                               description=WATCH_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    watch.add_argument("url", nargs="?", metavar="URL",
                       help="mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (default: the config's venue.broker)")
    watch.add_argument("--json", action="store_true", help="one JSON line per change instead of the view")
    watch.add_argument("--for", dest="for_s", metavar="S",
                       help="stop after S seconds (90, 1:30, 2m; from 1 s to 24 h)")
    watch.add_argument("--prefix", metavar="P", help="the venue's topic prefix (default: the config's "
                       "venue.prefix)")
    watch.add_argument("--config", type=Path, metavar="PATH", default=argparse.SUPPRESS,
                       help=argparse.SUPPRESS)  # after the action too
    watch.set_defaults(run=run_venue_watch)


def broker_url(url: str) -> str:
    """*url* when it is ``mqtt://HOST[:PORT]`` or ``mqtts://HOST[:PORT]``.

    :raises InvalidInput: for anything else (a path, a query, credentials in it, a bad port).
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise InvalidInput("URL", url, f"is not a broker address ({exc})") from None
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname or parts.path not in ("", "/") \
            or parts.query or parts.fragment:
        raise InvalidInput("URL", url, "must be mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
    if parts.username is not None or parts.password is not None:
        raise InvalidInput("URL", url, "credentials go in the config's venue.username and venue.password")
    if port == 0:
        raise InvalidInput("URL", url, "must name a port from 1 to 65535")
    if ":" not in parts.hostname:
        try:
            parts.hostname.encode("idna")
        except UnicodeError:
            raise InvalidInput("URL", url, "does not name a host that can be looked up") from None
    return url


def run_venue_watch(args: argparse.Namespace) -> int:
    """Watch every table until --for runs out or Ctrl-C; exit 1 when the broker is not there."""
    config = load_config(args.config)
    url = args.url if args.url is not None else config["venue.broker"]
    if not url:
        raise InvalidInput("URL", url, "no broker given, and the config has no venue.broker")
    broker_url(url)
    prefix = args.prefix if args.prefix is not None else config["venue.prefix"]
    if len(prefix) > 64 or not _PREFIX.fullmatch(prefix):
        raise InvalidInput("--prefix", prefix, "is 1-64 letters, digits, '-' or '_', levels split by '/'")
    for_s = None if args.for_s is None else parse_duration(args.for_s, "--for")

    from rich.console import Console

    from venue.protocol import Broker
    from venue.watch import Refused, Unreachable, Watcher, watch
    from venue.watch_view import JsonLines, LiveView, PlainLines

    broker = Broker.from_url(url)
    restore = signals_interrupt()
    watcher = Watcher(broker, prefix, username=config["venue.username"], password=config["venue.password"],
                      ca_file=config["venue.ca_file"])
    try:
        try:
            watcher.connect()
        except Refused as exc:
            print(one_line(f"companion: venue watch: {exc}"), file=sys.stderr)
            return EXIT_USAGE if exc.credentials else EXIT_UNREACHABLE
        except Unreachable as exc:
            print(one_line(f"companion: venue watch: {exc}"), file=sys.stderr)
            return EXIT_UNREACHABLE
        console = Console()
        where = str(broker)
        out: JsonLines | LiveView | PlainLines
        if args.json:
            out = JsonLines(where)
        elif console.is_terminal:
            out = LiveView(console, where)
        else:
            out = PlainLines(where)
        with out:
            watch(watcher.events, out, for_s=for_s)
    except KeyboardInterrupt:
        pass
    finally:
        watcher.close()
        restore()
    return EXIT_OK
