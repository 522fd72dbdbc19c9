"""Volatio (Wrede & du Poël, AMIGO / Rio Grande Games, version 1.0): the dragon race's rules as data.

Pure and stdlib-only: no time, no I/O, no randomness except a ``random.Random`` handed in.
Section numbers (§) are those of ``shared/rules/volatio.md``, which restates the Hungarian
rule book; "book p. N" is the page of that rule book. Where the two differ the book wins,
and where the book is silent the reading the digest gives (V1-V18) is a named constant
here whose docstring says so. Functions read those constants when called, so a test or
a house-rule setting can change one (on :mod:`.rules` or :mod:`.grid`, where it is defined).

What is modelled: the speed dial and the templates a flight may use, what a flight's
final position costs or earns (crash, collision, traps, energy fields, spell symbols),
fatigue and elimination, the spells' effects on energy and pointers, the start grid,
the order of flight and the finish. What is left to the players and the camera: the
geometry (V3 where the dragon sits on the template, V6 where a hit dragon goes, V13
the lasso's path, V17 the cave), because the rules only say it in pictures.

Speeds are written in DP ("Sárkány Erő", dragon power); distances along the track in mm.
"""

from companion.games import GameInfo
from companion.games.volatio.dragon import *  # noqa: F403 - the rules are the package's face
from companion.games.volatio.grid import *  # noqa: F403 - the rules are the package's face
from companion.games.volatio.outcomes import *  # noqa: F403 - the rules are the package's face
from companion.games.volatio.rules import *  # noqa: F403 - the rules are the package's face
from companion.i18n import N_

# isort: split
# After the rules: the fold's module reads them as it loads.
from companion.games.volatio import play, rules

GAME = GameInfo(key="volatio", title=N_("Volatio"), min_players=rules.MIN_PLAYERS,
                max_players=rules.MAX_PLAYERS, aliases=("dragon-race",),
                score_document=None, fold=play.fold, screen="volatio", bgg_id=None)
