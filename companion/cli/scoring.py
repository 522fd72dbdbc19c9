"""``companion score`` and ``companion rules``: a game's end scoring, and rule questions."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from companion.cli.common import EXIT_OK
from companion.errors import InvalidInput


def register(commands: Any) -> None:
    """Adds this group's subcommands to the ``companion`` parser's *commands*."""
    score = commands.add_parser("score", help="a game's end scoring from a JSON document",
                                formatter_class=_GamesNamedInHelp)
    score.add_argument("game", metavar="GAME", help="a registered game")
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


class _GamesNamedInHelp(argparse.HelpFormatter):
    """Names the games ``companion score`` answers for in place of ``GAME``'s help, when the help
    is shown: a command that shows no help imports no game."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        return _scored_games() if action.dest == "game" else super()._get_help_string(action)


def _scored_games() -> str:
    """The keys of the games ``companion score`` answers for, as a phrase: "a, b or c"."""
    from companion.games import games

    keys = [g.key for g in games() if g.score_document is not None]
    return " or ".join(filter(None, (", ".join(keys[:-1]), keys[-1]))) if keys else "none yet"


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
