"""Past sessions as finished plays: what the history screen charts and ``companion export`` writes.

Read from the session store: a session counts once its log holds ``game.finished`` (the
game's ``companion score`` answer, recorded by the game's screen). Pure apart from reading
the store; main thread only, like the store.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.export import FinishedPlay, PlayerResult
from companion.games import registered
from companion.i18n import N_
from companion.store import Store

SAND_TIMER = "timer"
"""The key a session without a game is stored under: the plain sand-timer."""


def game_name(key: str) -> str:
    """The name a stored game key is shown by, in English: a registered game's title, the
    sand-timer's, or the key itself for a game no longer registered."""
    if key == SAND_TIMER:
        return N_("Sand-timer")
    game = registered(key)
    return game.title if game is not None else key


def play_from_log(session_id: int, store: Store) -> FinishedPlay | None:
    """The finished play a session's log describes, or None if no result was recorded."""
    events = list(store.events(session_id))
    started = next((e for e in events if e.kind == "session.started"), None)
    finished = [e for e in events if e.kind == "game.finished"]
    if started is None or not finished:
        return None
    game = str(started.data["game"])
    colours = {str(n): str(c) for n, c in started.data["players"]}
    result: Mapping[str, Any] = finished[-1].data["result"]
    scores = result.get("scores") or result.get("totals") or {}
    winners = set(result.get("winners") or result.get("leaders") or [])
    ranks = _ranks(scores)
    players = tuple(
        PlayerResult(name=name, score=scores.get(name), is_winner=name in winners, colour=colours.get(name),
                     rank=ranks.get(name))
        for name in colours)
    if not players:
        return None
    return FinishedPlay(game_key=game, game_name=game_name(game),
                        bgg_id=info.bgg_id if (info := registered(game)) is not None else None,
                        started_wall=started.t_wall, ended_wall=max(finished[-1].t_wall, started.t_wall),
                        players=players)


def finished_plays(store: Store, game: str | None = None) -> list[tuple[int, FinishedPlay]]:
    """Every finished play in the store, oldest first, as ``(session id, play)``."""
    plays = []
    for row in store.sessions():
        if game is not None and row.game != game:
            continue
        play = play_from_log(row.id, store)
        if play is not None:
            plays.append((row.id, play))
    return plays


def _ranks(scores: Mapping[str, Any]) -> dict[str, int]:
    """Competition ranking (1, 1, 3) by score, highest first; players without a number get none."""
    numbers = {n: s for n, s in scores.items() if isinstance(s, (int, float)) and not isinstance(s, bool)}
    ordered = sorted(numbers.values(), reverse=True)
    return {n: ordered.index(s) + 1 for n, s in numbers.items()}
