"""The four games' rules as pure code: one module per game, found by :func:`find_game`.

Every module keeps to the standard library, takes no time and does no I/O; the
touch screens, the camera and the CLI all call the same functions. A module that
answers ``companion score`` gives its :class:`GameInfo` a ``score_document``: a JSON
document in (already parsed), a JSON document out, :class:`InvalidInput` naming the
field for anything wrong with it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from companion.errors import InvalidInput


@dataclass(frozen=True)
class GameInfo:
    key: str  # the CLI's name: "dragons-gold"
    title: str
    min_players: int
    max_players: int
    aliases: tuple[str, ...] = ()
    score_document: Callable[[Any], dict[str, Any]] | None = None


def _registry() -> Mapping[str, GameInfo]:
    from companion.games import dragons_gold, drakon, gold, volatio

    return {g.key: g for g in (dragons_gold.GAME, volatio.GAME, gold.GAME, drakon.GAME)}


def games() -> list[GameInfo]:
    return list(_registry().values())


def find_game(alias: str) -> GameInfo:
    """The game a name or alias stands for (case and spaces do not matter).

    :raises InvalidInput: naming ``GAME`` for a name no game answers to.
    """
    wanted = alias.strip().lower().replace(" ", "-").replace("_", "-").replace("'", "")
    for game in _registry().values():
        if wanted == game.key or wanted in game.aliases:
            return game
    known = ", ".join(_registry())
    raise InvalidInput("GAME", alias, f"unknown game (known: {known})")
