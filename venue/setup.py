"""A table's venue link from its config: the settings (with ``--venue`` / ``--table`` over the
config's ``[venue]``) and the link with its outbox in the session database."""

from __future__ import annotations

import re
import ssl
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version

from companion.clock import Clock, wall_now
from companion.config import Config, broker_url
from companion.errors import InvalidInput
from companion.events import Post
from venue.link import CommandHandler, VenueLink, VenueSettings, connect_failure
from venue.outbox import Outbox
from venue.protocol import Broker


def venue_settings(config: Config, url: str | None = None, table: str | None = None) -> VenueSettings | None:
    """Where the table publishes: *url* and *table* (``--venue``, ``--table``; None: the config's)
    over the config's ``[venue]``; None when the table is on no broker (``none`` or nothing).

    :raises InvalidInput: for a bad URL or table id, or a broker without a table id.
    """
    url = url if url is not None else config["venue.broker"]
    if url in ("", "none"):
        return None
    try:
        broker_url(url)
    except ValueError as exc:  # the config's check, which says why
        raise InvalidInput("--venue", url, str(exc)) from None
    table = table if table is not None else config["venue.table"]
    if not table:
        raise InvalidInput("--table", None, "a table on a venue's broker needs its id: --table ID, "
                                            "or venue.table in the config")
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", table):
        raise InvalidInput("--table", table, "a table id is 1-64 letters, digits, '-' or '_'")
    broker = Broker.from_url(url)
    ca_file = config["venue.ca_file"]
    if broker.tls and ca_file:
        try:
            ssl.create_default_context(cafile=ca_file)
        except (OSError, ssl.SSLError) as exc:
            raise InvalidInput("venue.ca_file", ca_file, f"cannot be used ({connect_failure(exc)})") from None
    return VenueSettings(broker, table, prefix=config["venue.prefix"],
                         username=config["venue.username"], password=config["venue.password"],
                         ca_file=ca_file, accept_commands=config["venue.accept_commands"],
                         discovery_prefix=config["venue.discovery_prefix"])


def open_link(settings: VenueSettings, config: Config, post: Post, clock: Clock, *,
              on_command: CommandHandler | None, on_status: Callable[[str], None] | None,
              wall: Callable[[], float] = wall_now) -> VenueLink:
    """The link, with its outbox in the session database (``paths.database``)."""
    outbox = Outbox(config.database_path, settings.topics.base)
    return VenueLink(settings, outbox, post, clock, wall=wall, on_command=on_command, on_status=on_status,
                     version=_version())


def _version() -> str:
    try:
        return version("table-companion")
    except PackageNotFoundError:
        return ""
