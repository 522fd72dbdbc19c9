"""A table's venue link for ``companion timer`` and ``companion app``: the ``--venue`` and
``--table`` options, the settings from them and the config, and the link itself."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from companion.clock import Clock, wall_now
from companion.config import Config, broker_url
from companion.errors import InvalidInput
from companion.events import Post
from venue.link import CommandHandler, VenueLink, VenueSettings
from venue.outbox import Outbox
from venue.protocol import Broker


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--venue URL`` and ``--table ID`` on a command that runs a table."""
    parser.add_argument("--venue", metavar="URL",
                        help="publish on the venue's MQTT broker, mqtt://HOST[:PORT] or mqtts://..., "
                             "or 'none' (default: the config's venue.broker)")
    parser.add_argument("--table", metavar="ID", help="this table's id on the broker (default: venue.table)")


def settings(args: argparse.Namespace, config: Config) -> VenueSettings | None:
    """The venue settings from *args* over the config, or None when the table is on no broker.

    :raises InvalidInput: for a bad URL or table id, or a broker without a table id.
    """
    url = args.venue if args.venue is not None else config["venue.broker"]
    if url in ("", "none"):
        return None
    try:
        broker_url(url)
    except ValueError as exc:  # the config's check, which says why
        raise InvalidInput("--venue", url, str(exc)) from None
    table = args.table if args.table is not None else config["venue.table"]
    if not table:
        raise InvalidInput("--table", None, "a table on a venue's broker needs its id: --table ID, "
                                            "or venue.table in the config")
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", table):
        raise InvalidInput("--table", table, "a table id is 1-64 letters, digits, '-' or '_'")
    return VenueSettings(Broker.from_url(url), table, prefix=config["venue.prefix"],
                         username=config["venue.username"], password=config["venue.password"],
                         ca_file=config["venue.ca_file"], accept_commands=config["venue.accept_commands"],
                         discovery_prefix=config["venue.discovery_prefix"])


def open_link(venue: VenueSettings, config: Config, post: Post, clock: Clock, *,
              on_command: CommandHandler | None, on_status: Callable[[str], None] | None,
              wall: Callable[[], float] = wall_now, **_: Any) -> VenueLink:
    """The link, with its outbox in the session database."""
    outbox = Outbox(config.database_path, venue.topics.base)
    return VenueLink(venue, outbox, post, clock, wall=wall, on_command=on_command, on_status=on_status,
                     version=_version())


def _version() -> str:
    try:
        return version("table-companion")
    except PackageNotFoundError:
        return ""
