"""The ``companion`` command: a stable interface for people and scripts.

Every command that answers with data answers JSON with ``--json``. A user's mistake
(bad arguments, a bad config, pins that cannot be had) is one line on stderr and
exit code 2; anything else is a bug and keeps its traceback.

This package is the composition root: the one place in ``companion`` that wires the core
to the hardware adapters. Each command group is a module that registers its subcommands
beside their handlers (``register``); this one builds the parser from them and runs a
command, turning a user's mistake into one line.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from companion.cli import accessory, app, doctor, export, kiosk, scoring, timer, venue, vision
from companion.cli.common import EXIT_OK, EXIT_USAGE, UsageError
from companion.config import default_config_path
from companion.errors import CompanionError, one_line
from firmware_bridge.errors import BridgeError
from vision.errors import VisionError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def build_parser() -> _Parser:
    parser = _Parser(prog="companion", description="The table companion: sand-timer and scorekeeper.")
    parser.add_argument("--config", type=Path, metavar="PATH",
                        help=f"config file (default: {default_config_path()})")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for group in (timer, accessory, scoring, export, app, vision, doctor, kiosk, venue):
        group.register(commands)
    for sub in commands.choices.values():  # --config after the command works too
        sub.add_argument("--config", type=Path, metavar="PATH", default=argparse.SUPPRESS,
                         help=argparse.SUPPRESS)
    return parser


def _one_blas_thread() -> None:
    """Keep numpy's OpenBLAS to one thread unless the environment already says how many: the camera
    work multiplies small matrices, where more threads only busy the cores the touch app and the
    camera need. Takes effect because no command has loaded numpy yet."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main(argv: Sequence[str] | None = None) -> int:
    _one_blas_thread()
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

