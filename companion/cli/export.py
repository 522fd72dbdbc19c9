"""``companion export``: finished plays for BG Stats (JSON or link) or as CSV."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from companion.cli.common import EXIT_OK
from companion.config import load_config
from companion.errors import InvalidInput


def register(commands: Any) -> None:
    """Adds this group's subcommands to the ``companion`` parser's *commands*."""
    export = commands.add_parser("export", help="finished plays for BG Stats (JSON or link) or as CSV")
    export.add_argument("--format", choices=("bgstats", "bgstats-link", "csv"), default="bgstats")
    export.add_argument("--session", type=int, metavar="N", help="one session (default: the last finished)")
    export.add_argument("--game", help="csv: only this game's plays")
    export.add_argument("--out", type=Path, metavar="FILE", help="write here instead of standard output")
    export.set_defaults(run=run_export)


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
