"""Results shared by every game: a bar chart of the final scores, in a popup.

``ResultsPopup(scores=..., winners=..., colours=...)`` shows who won; the scores come from
the game's own ``score_document`` (the same answer as ``companion score``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from kivy.graphics import Color, Rectangle
from kivy.properties import DictProperty, ListProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.popup import Popup
from kivy.uix.widget import Widget

from companion.ui.lang import TR
from companion.ui.theme import FONT_NAME, PLAYER_RGB, THEME, rgb
from companion.ui.widgets import MIN_FONT_PX, FitLabel

_V = TypeVar("_V")


def seated(scores: Mapping[str, _V], names: Iterable[str]) -> dict[str, _V]:
    """*scores* in the table's order (*names*, those with a score): the rules cores give them by
    name, the screens show them as the players sit."""
    return {name: scores[name] for name in names if name in scores}


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
    """Who won, and each player's score as a bar with their name and score under it."""

    scores = DictProperty({})
    winners = ListProperty([])
    colours = DictProperty({})

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fbind("scores", self._label_bars)
        self._label_bars()

    def winners_text(self, winners: list[str]) -> str:
        return (TR._("Winners") if len(winners) > 1 else TR._("Winner")) + ": " + ", ".join(winners)

    def _label_bars(self, *_: Any) -> None:
        """A name and a score under each bar (the chart's slots are as wide as the labels' row)."""
        row = self.ids.labels
        row.clear_widgets()
        for name, score in self.scores.items():
            column = BoxLayout(orientation="vertical")
            # a name too long for its bar even at the smallest font ends in …
            column.add_widget(FitLabel(text=name, shorten=True, shorten_from="right"))
            column.add_widget(FitLabel(text=str(score)))
            row.add_widget(column)


class LineChart(Widget):  # type: ignore[misc]
    """Scores over time: one line per player across past plays (x: the play, y: the score), the
    score axis marked with its top and bottom scores."""

    series = ListProperty([])  # [(name, colour name, [(play index, score), ...]), ...]
    ticks = ListProperty([])
    """The score axis's marks as shown, top first (``["34", "0"]``)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        for prop in ("pos", "size", "series"):
            self.fbind(prop, self._redraw)

    def _redraw(self, *_: Any) -> None:
        from kivy.core.text import Label as CoreLabel
        from kivy.graphics import Line

        self.canvas.clear()
        points = [p for _n, _c, pts in self.series for p in pts]
        if not points:
            self.ticks = []
            return
        x_max = max(max(x for x, _y in points), 1)
        y_min = min(0, min(y for _x, y in points))
        y_max = max(max(y for _x, y in points), y_min + 1)
        pad = 8.0
        self.ticks = [f"{y_max:g}", f"{y_min:g}"]
        marks = []
        for text in self.ticks:
            mark = CoreLabel(text=text, font_name=FONT_NAME, font_size=MIN_FONT_PX)
            mark.refresh()
            marks.append(mark.texture)
        left = pad + max(t.width for t in marks) + 4  # the marks stand left of the axis
        low = max(pad, max(t.height for t in marks) / 2)  # and within the chart, top and bottom

        def at(x: float, y: float) -> tuple[float, float]:
            return (self.x + left + (self.width - left - pad) * x / x_max,
                    self.y + low + (self.height - 2 * low) * (y - y_min) / (y_max - y_min))

        with self.canvas:
            Color(rgba=[0.5, 0.5, 0.5, 1])
            Line(points=[*at(0, y_min), *at(x_max, y_min)], width=1)
            Line(points=[*at(0, y_min), *at(0, y_max)], width=1)
            Color(rgba=THEME.muted)
            for texture, y in zip(marks, (y_max, y_min), strict=True):
                _x, cy = at(0, y)
                Rectangle(texture=texture, size=texture.size,
                          pos=(self.x + left - 4 - texture.width, cy - texture.height / 2))
            for _name, colour, pts in self.series:
                Color(rgba=rgb(PLAYER_RGB.get(colour, "#ffd21f")))
                flat = [c for x, y in sorted(pts) for c in at(x, y)]
                if len(flat) >= 4:
                    Line(points=flat, width=2)
                for x, y in pts:
                    cx, cy = at(x, y)
                    Rectangle(pos=(cx - 4, cy - 4), size=(8, 8))
