"""Where a session's game stands, for those who watch the table from elsewhere: the game, its
players and round, and each player's points so far.

Read from a :class:`~companion.session.TableSession` with the game's own rules: its fold and
its ``standings`` (``companion.games.GameInfo``), which say only what the table's screen shows
to everyone (Drakon's coin values stay unknown until the reveal). Pure; main thread, like the
session.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from companion.errors import CompanionError
from companion.games import registered
from companion.history import game_name
from companion.session import TableSession

log = logging.getLogger(__name__)

def game_state(session: TableSession) -> dict[str, Any]:
    """``{"key", "title", "players", "round"}``: the stored key, the English title, the players'
    names in seat order, and the round where the game's state counts one (else None)."""
    return {"key": session.game, "title": game_name(session.game),
            "players": [p.name for p in session.players], "round": _round(session)}


def score_state(session: TableSession) -> dict[str, Any]:
    """``{"players", "leader", "final"}``: each player's points as the game's scoring gives them
    for the sheet so far (None for a player with nothing on it yet, and for every player of a
    game that scores nothing before its end); the one player strictly ahead, else None; and
    whether the game is finished (then the points are its recorded result's)."""
    names = [p.name for p in session.players]
    final = session.result is not None
    points = _final_points(session.result, names) if session.result is not None else _points(session, names)
    numbers = {n: p for n, p in points.items() if p is not None}
    top = max(numbers.values(), default=None)
    ahead = [n for n, p in numbers.items() if p == top]
    return {"players": points, "leader": ahead[0] if len(ahead) == 1 else None, "final": final}


def _round(session: TableSession) -> int | None:
    state = _folded(session)
    number = getattr(state, "round", None)
    return number if isinstance(number, int) and not isinstance(number, bool) else None


def _folded(session: TableSession) -> Any:
    game = registered(session.game)
    if game is None or game.fold is None:
        return None
    return game.fold([p.name for p in session.players], session.play_log, rules=session.score_rules)


def _points(session: TableSession, names: list[str]) -> dict[str, int | float | None]:
    game = registered(session.game)
    if game is None or game.standings is None:
        return dict.fromkeys(names)
    try:
        points = game.standings(names, session.score_document(), _folded(session))
    except CompanionError as exc:  # a sheet the rules refuse (a hand-edited log): nothing to say
        log.info("session %d: the sheet does not score: %s", session.id, exc)
        return dict.fromkeys(names)
    return {n: _number(points.get(n)) for n in names}


def _final_points(result: Mapping[str, Any], names: list[str]) -> dict[str, int | float | None]:
    scores = result.get("scores") or result.get("totals") or {}
    return {n: _number(scores.get(n)) for n in names}


def _number(value: Any) -> int | float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
