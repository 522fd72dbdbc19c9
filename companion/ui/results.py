"""Results shared by every game: a bar chart of the final scores, in a popup.

``ResultsPopup(scores=..., winners=..., colours=...)`` shows who won; the scores come from
the game's own ``score_document`` (the same answer as ``companion score``).
"""

from __future__ import annotations

from typing import Any

from kivy.graphics import Color, Rectangle
from kivy.properties import DictProperty, ListProperty
from kivy.uix.popup import Popup
from kivy.uix.widget import Widget

from companion.ui.lang import TR
from companion.ui.theme import PLAYER_RGB, rgb


class BarChart(Widget):  # type: ignore[misc]
    """Horizontal-free, plain bars: one per player, height by score, in the player's colour."""

    scores = DictProperty({})
    colours = DictProperty({})

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        for prop in ("pos", "size", "scores", "colours"):
            self.fbind(prop, self._redraw)

    def _redraw(self, *_: Any) -> None:
        self.canvas.clear()
        if not self.scores:
            return
        top = max(max(self.scores.values()), 1)
        n = len(self.scores)
        slot = self.width / n
        with self.canvas:
            for i, (name, score) in enumerate(self.scores.items()):
                Color(rgba=rgb(PLAYER_RGB.get(self.colours.get(name, ""), "#ffd21f")))
                h = max(2.0, (self.height - 2) * max(0, score) / top)
                Rectangle(pos=(self.x + i * slot + slot * 0.15, self.y), size=(slot * 0.7, h))


class ResultsPopup(Popup):  # type: ignore[misc]
    scores = DictProperty({})
    winners = ListProperty([])
    colours = DictProperty({})

    def winners_text(self, winners: list[str]) -> str:
        return TR._("Winner") + ": " + ", ".join(winners)
