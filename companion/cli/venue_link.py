"""The ``--venue`` and ``--table`` options of the commands that run a table."""

from __future__ import annotations

import argparse

from companion.config import Config
from venue.link import VenueSettings
from venue.setup import venue_settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--venue URL`` and ``--table ID`` on a command that runs a table."""
    parser.add_argument("--venue", metavar="URL",
                        help="publish on the venue's MQTT broker, mqtt://HOST[:PORT] or mqtts://..., "
                             "or 'none' (default: the config's venue.broker)")
    parser.add_argument("--table", metavar="ID", help="this table's id on the broker (default: venue.table)")


def settings(args: argparse.Namespace, config: Config) -> VenueSettings | None:
    """The venue settings from ``--venue`` and ``--table`` over the config (None: no broker).

    :raises InvalidInput: for a bad URL or table id, or a broker without a table id.
    """
    return venue_settings(config, args.venue, args.table)
