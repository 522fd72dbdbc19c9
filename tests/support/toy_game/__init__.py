"""A fifth game for the tests: Toy Race, whose players count steps and the most steps wins.

It is what adding a game takes: this folder and one line in :data:`companion.games.PACKAGES`
(the tests add ``tests.support.toy_game`` there); the CLI, Home and the history find it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from companion.errors import InvalidInput
from companion.games import GameInfo, LogEntry, fold_moves
from companion.games._input import expect_count, expect_object, expect_players, winners_of

MIN_PLAYERS, MAX_PLAYERS = 2, 4
PREFIX = "toy."


def score_document(doc: Any) -> dict[str, Any]:
    """``{"players": {"NAME": {"steps": N}}}`` in; every player's steps and the winners out."""
    players = expect_players(expect_object(doc, "document"), "players", MIN_PLAYERS, MAX_PLAYERS)
    scores = {name: expect_count(expect_object(entry, f"players.{name}").get("steps"), f"players.{name}.steps")
              for name, entry in players.items()}
    return {"scores": scores, "winners": winners_of(scores)}


def play(steps: Mapping[str, int], kind: str, data: Mapping[str, Any]) -> dict[str, int]:
    """*steps* after ``toy.step`` ``{player}``. :raises InvalidInput: for anything else."""
    player = data.get("player")
    if kind.removeprefix(PREFIX) != "step" or player not in steps:
        raise InvalidInput("player", player, "not at this table")
    return {**steps, player: steps[player] + 1}


def fold(players: Sequence[str], play_log: Iterable[LogEntry], *, rules: str | None = None) -> dict[str, int]:
    return fold_moves(dict.fromkeys(players, 0), PREFIX, play_log, play)


GAME = GameInfo(key="toy-race", title="Toy Race", min_players=MIN_PLAYERS, max_players=MAX_PLAYERS,
                aliases=("toy",), score_document=score_document, fold=fold)
