"""Dragon's Gold: its rules (:mod:`.rules`), its final scoring (:mod:`.scoring`) and the fold of its
play log (:mod:`.play`); ``GAME``."""

from companion.games import GameInfo, sheet_points
from companion.games.dragons_gold.rules import *  # noqa: F403 - the rules are the package's face
from companion.games.dragons_gold.scoring import *  # noqa: F403 - the rules are the package's face
from companion.i18n import N_

# isort: split
# After the rules: the fold's module reads them as it loads.
from companion.games.dragons_gold import play, rules, scoring

GAME = GameInfo(key="dragons-gold", title=N_("Dragon's Gold"), min_players=rules.MIN_PLAYERS,
                max_players=rules.MAX_PLAYERS, aliases=("dragonsgold", "dragons-gold", "sarkanyarany", "dg"),
                score_document=scoring.score_document, fold=play.fold, screen="dragons_gold", bgg_id=None,
                standings=sheet_points(scoring.score_document))
