"""Gold! (Michael Schacht, ABACUSSPIELE 2011) for 2-3 players: its rules as pure code.

Sources: the Hungarian rule book (``shared/seeds/002_*.txt``, cited by its section
headings, e.g. *SZÍN PONTOZÁSA*) and the English digest (``shared/rules/gold.md``,
cited as "digest §5.5"). Where they differ the rule book wins.

Words: a player's **holding** (*állomány*) is the open row of cards in front of him;
the **display** (*kínálat*) is the row of up to 5 cards in the middle; the **pile**
(*pontozó pakli*) is his face-down scoring pile. The ``companion score gold`` document
calls the holding ``display`` ("what lies open before him"); :func:`score_document`
is the only place that knows that.

Readings, where the rule book leaves a choice (each one named below):

* :data:`THREE_READING` (digest G2): the rule book says a 3 "cannot be taken" with
  action B; we read it as "cannot be *given* with option 1", as the digest does.
* :data:`STEAL_IS_OPTIONAL`, :data:`STEAL_MAY_TAKE_DONKEY` (digest G5).
* Tied leaders in the colour scoring always bank: the rule book says each "may"
  (*hozzáteheti*), but banking a gold card (3-8 points, one more card) can only
  help its owner, so nobody declines; see :func:`score_colour`.
* A set made by the game's last action is scored before the colour scoring
  (digest G4): :func:`score_document` takes the pile with that set already in it.

Everything here is stdlib-only, takes no time and does no I/O.
"""

from companion.games import GameInfo, sheet_points
from companion.games.gold.rules import *  # noqa: F403 - the rules are the package's face
from companion.games.gold.scoring import *  # noqa: F403 - the rules are the package's face
from companion.i18n import N_

# isort: split
# After the rules: the fold's module reads them as it loads.
from companion.games.gold import rules, scoring

GAME = GameInfo(key="gold", title=N_("Gold!"), min_players=rules.MIN_PLAYERS,
                max_players=rules.MAX_PLAYERS, aliases=("gold!",),
                score_document=scoring.score_document, fold=None, screen="gold", bgg_id=None,
                standings=sheet_points(scoring.score_document))
