"""Drakon (third edition): coins, goals, the blocked game and the Heroes! counters, as pure code.

The rule book is the Russian text "Drakon правила игры" (shared seed ``003``); sections
are cited by its headings (``«Цель игры Drakon»``) and by the English digest's numbers
(``digest §5.3``). Where the two differ the rule book wins; every point the rule book
leaves open is a named constant below whose docstring says it is a reading.

``companion score drakon`` reads (see :func:`parse_document`)::

    {"variant": "standard" | "escape" | "team" | "five-coins",      optional, default "standard"
     "players": {"NAME": {"coins": [1, 3, ...],                      required, may be empty
                          "escaped": true | false,                   escape variant; default false
                          "team": "A"}}}                             team variant, required there

``escaped`` and ``team`` are checked (a boolean, a non-empty name) in every variant and
ignored where the variant has no use for them. It answers (see :func:`to_document`)::

    {"totals": {"NAME": gold, ...},           every player's gold, by name
     "team_totals": {"TEAM": gold, ...},      team variant only
     "goal_reached": [...],                   sides holding the variant's goal now
     "leaders": [...]}                        sides that would win if the game blocked now

A *side* is a player, or in the team variant a team (the rule book pools a team's coins,
and a team wins or loses as one). Every list is sorted, so the order of the input never
changes an answer. The document is a snapshot: it cannot say who reached a goal first, so
``goal_reached`` lists every side that holds it; nor does it check that a position is
reachable in play (only that the box holds the coins it names).
"""

from companion.games import GameInfo
from companion.games.drakon.rules import *  # noqa: F403 - the rules are the package's face
from companion.games.drakon.scoring import *  # noqa: F403 - the rules are the package's face
from companion.i18n import N_

# isort: split
# After the rules: the fold's module reads them as it loads.
from companion.games.drakon import play, rules, scoring

# BoardGameGeek 23107 is Drakon (Third Edition): a public BGG-derived audit table names it as the
# keeper for the second (61269) and fourth (171630) editions.
GAME = GameInfo(key="drakon", title=N_("Drakon"), min_players=rules.MIN_PLAYERS,
                max_players=rules.MAX_PLAYERS, aliases=("дракон", "drakon-3e"),
                score_document=scoring.score_document, fold=play.fold, screen="drakon", bgg_id=23107,
                standings=play.standings)
