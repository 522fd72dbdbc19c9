"""The games, one package each, and the registry the CLI, the screens and the history look them up in.

A game is a package ``companion/games/<name>/`` holding its rules as pure code (standard library
only, no time, no I/O), the fold of a session's play log, and whatever else it needs; its
``__init__`` defines ``GAME``, a :class:`GameInfo`. :data:`PACKAGES` lists the packages, in the
order Home shows them: adding a game is its folder, its screen, and a line there.

A fold turns a session's whole play log (:attr:`companion.session.TableSession.play_log`, every
game's moves as ``(kind, data, t_mono)``) into what the game's screen shows. It takes the moves
of its own game (their kinds start with its prefix) and never raises for one: a move the state
refuses (a log edited by hand, or written by an older version; the screens check every move
before logging it) is skipped with a warning, so the screen still comes up.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from companion.errors import CompanionError, InvalidInput

PACKAGES: tuple[str, ...] = (
    "companion.games.dragons_gold",
    "companion.games.volatio",
    "companion.games.gold",
    "companion.games.drakon",
)
"""The registry: each game's package, in the order Home lists them."""

LogEntry = tuple[str, Mapping[str, Any], float]
"""One entry of a session's play log: ``(kind, data, t_mono)``, e.g. ``("volatio.reveal", {...}, 12.5)``."""

State = TypeVar("State")
log = logging.getLogger(__name__)


class Fold(Protocol):
    """A game's play log folded: the players in seat order, the whole log, the session's rules."""

    def __call__(self, players: Sequence[str], play_log: Iterable[LogEntry], *,
                 rules: str | None = None) -> Any: ...


Points = Mapping[str, "int | float | None"]
Standings = Callable[[Sequence[str], Mapping[str, Any], Any], Points]
"""Each player's points so far: from the players in seat order, the session's score document
(``{"players": {NAME: sheet}, ...}``) and the folded play state (None for a game without a fold);
None for a player whose points are not to be said yet."""


def sheet_points(score: Callable[[Any], dict[str, Any]], field: str = "scores") -> Standings:
    """Standings read off the game's own scoring of the sheet as it stands (*field* of its
    answer); a player with nothing on the sheet yet has None."""
    def standings(names: Sequence[str], document: Mapping[str, Any], _state: Any) -> Points:
        points = score(document).get(field, {})
        sheets = document.get("players", {})
        return {n: points.get(n) if sheets.get(n) else None for n in names}
    return standings


@dataclass(frozen=True)
class GameInfo:
    """What the rest of the app knows of a game."""

    key: str
    """The CLI's and the store's name: ``"dragons-gold"``."""
    title: str
    """The name people know it by, in English; the screens translate it."""
    min_players: int
    max_players: int
    aliases: tuple[str, ...] = ()
    """Other names :func:`find_game` answers to."""
    score_document: Callable[[Any], dict[str, Any]] | None = None
    """``companion score``: a JSON document in (already parsed), one out; :class:`InvalidInput`
    naming the field for anything wrong with it. None for a game with no end scoring."""
    fold: Fold | None = None
    """The play log folded into the screen's state; None for a game that logs no moves."""
    screen: str | None = None
    """The module under ``companion.ui.games`` whose ``SCREEN`` shows the game; None: the plain page."""
    bgg_id: int | None = None
    """Its BoardGameGeek id, where one was found with evidence (for ``companion export``)."""
    standings: Standings | None = None
    """Who stands where during the game, for the venue (:mod:`companion.standings`); None for a
    game that scores only at its end."""


def fold_moves(state: State, prefix: str, play_log: Iterable[LogEntry],
               play: Callable[[State, str, Mapping[str, Any]], State]) -> State:
    """*state* after every move of *play_log* whose kind starts with *prefix*, by *play*.

    The one error policy of every fold: a move *play* refuses is skipped with a warning.
    """
    for kind, data, _t_mono in play_log:
        if not kind.startswith(prefix):
            continue
        try:
            state = play(state, kind, data)
        except CompanionError as exc:
            log.warning("%s move %s %r skipped: %s", prefix.rstrip("."), kind, dict(data), exc)
    return state


def _registry() -> Mapping[str, GameInfo]:
    found: dict[str, GameInfo] = {}
    for package in PACKAGES:
        game: GameInfo = importlib.import_module(package).GAME
        found[game.key] = game
    return found


def games() -> list[GameInfo]:
    """Every registered game, in :data:`PACKAGES` order."""
    return list(_registry().values())


def registered(key: str) -> GameInfo | None:
    """The game registered under exactly *key* (a stored key, not an alias), or None for one no
    longer registered."""
    return _registry().get(key)


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
