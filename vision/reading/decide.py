"""Stage 5: known, face down, or unknown.

A face is named only when three things hold: its correlation (with the piece as it is or less
the light's shade across it) clears an absolute bar, it beats every other face of the kind (and
the back) by a clear margin, and the aligned difference leaves no patch that the face does not
explain. Anything else is unknown: never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass

from vision.reading.identify import Match
from vision.reading.params import Params


@dataclass(frozen=True)
class Verdict:
    face: str | None
    """The front's name, ``"back"``, or None for unknown."""
    best: Match | None
    margin: float
    confidence: float


def decide(matches: list[Match], params: Params) -> Verdict:
    """The verdict on one piece from its faces' matches, best first (:func:`compare`)."""
    if not matches:
        return Verdict(None, None, 0.0, 0.0)
    best = matches[0]
    runner_up = matches[1].score if len(matches) > 1 else -1.0
    margin = best.score - runner_up if best.lead is None else max(best.lead, best.score - runner_up)
    score = best.bar_score
    known = score >= params.score_min and margin >= params.margin_min and best.residual <= params.residual_max
    if not known:
        return Verdict(None, best, margin, 0.0)
    confidence = min(1.0, (score - params.score_min) / (1.0 - params.score_min),
                     margin / (2 * params.margin_min), 1.0 - best.residual / (2 * params.residual_max))
    return Verdict(best.face, best, margin, max(0.0, confidence))
