"""Table mode: every player's panel by the screen's edge nearest their seat, turned to face it.

The seats go round the table clockwise from the host's edge (:data:`~companion.seats.AROUND_ANGLES`):
bottom, left, top, right; a fifth and sixth player share the bottom and top edges. On a screen
wider than high, the panels facing the left and right edges stand at the sides, as high as the
table, and those facing the bottom and top share the middle column, a row each; on one higher
than wide, the bottom and top panels take the whole width and the side panels share the middle.
"""

from __future__ import annotations

from typing import Any

from kivy.clock import Clock
from kivy.properties import BooleanProperty, NumericProperty
from kivy.uix.widget import Widget

from companion.ui.widgets import SeatFrame

_EDGES = {0: "bottom", 180: "top", 270: "left", 90: "right"}


class SeatTable(Widget):  # type: ignore[misc]
    """The panels of table mode laid round the screen by seat (:meth:`seat` adds one)."""

    side_px = NumericProperty(120)
    """On a wide table: the width of the left and right columns, the height a panel turned to a
    side seat is given (px)."""
    row_px = NumericProperty(120)
    """On a high table: the height of the bottom and top rows (px)."""
    gap = NumericProperty(8)
    """The space between two panels (px)."""
    wide = BooleanProperty(None, allownone=True)
    """Lay the panels out as on a wide screen (True) or a high one (False); None: by the table's
    own shape (a table that scrolls may be wider than its screen is)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.frames: list[SeatFrame] = []
        trigger = Clock.create_trigger(self._arrange, -1)
        for prop in ("pos", "size", "side_px", "row_px", "gap", "wide"):
            self.fbind(prop, trigger)

    def seat(self, content: Widget, angle: int) -> SeatFrame:
        """Add *content*, turned by *angle* (0, 90, 180 or 270) to face its seat's edge."""
        frame = SeatFrame(content, angle=angle, size_hint=(None, None))
        self.frames.append(frame)
        self.add_widget(frame)
        self._arrange()
        return frame

    def least(self, panel_w: float, panel_h: float, wide: bool) -> tuple[float, float]:
        """The least size (px) at which each seated panel gets *panel_w* by *panel_h* (turned,
        at a side seat), laid out *wide* (sides as columns) or not (bottom and top as rows)."""
        edges, gap = self._edges(), self.gap
        across = max(len(edges["bottom"]), len(edges["top"]), 1)
        down = max(len(edges["left"]), len(edges["right"]), 1)
        rows = bool(edges["bottom"]) + bool(edges["top"])
        sides = bool(edges["left"]) + bool(edges["right"])
        row_w = across * panel_w + (across - 1) * gap  # panels side by side along an edge
        side_h = down * panel_w + (down - 1) * gap  # turned panels one above the other
        if wide:
            return row_w + sides * (panel_h + gap), max(rows * panel_h + (rows - 1) * gap, side_h)
        return max(row_w, sides * panel_h + (sides - 1) * gap), rows * (panel_h + gap) + side_h

    def _edges(self) -> dict[str, list[SeatFrame]]:
        edges: dict[str, list[SeatFrame]] = {"bottom": [], "top": [], "left": [], "right": []}
        for frame in self.frames:
            edges[_EDGES[round(frame.angle) % 360]].append(frame)
        return edges

    def _arrange(self, *_: Any) -> None:
        edges = self._edges()
        gap = self.gap
        if (self.width >= self.height) if self.wide is None else self.wide:
            side = min(self.side_px, (self.width - 2 * gap) / 3)
            x0 = self.x + (side + gap if edges["left"] else 0)
            x1 = self.right - (side + gap if edges["right"] else 0)
            self._column(edges["left"], self.x, self.top, side, self.height)
            self._column(edges["right"], self.right - side, self.top, side, self.height)
            both = bool(edges["top"]) and bool(edges["bottom"])
            row_h = (self.height - gap) / 2 if both else self.height
            self._row(edges["bottom"], x0, x1, self.y, row_h)
            self._row(edges["top"], x0, x1, self.top - row_h, row_h)
            return
        row_h = min(self.row_px, (self.height - 2 * gap) / 3)
        self._row(edges["bottom"], self.x, self.right, self.y, row_h)
        self._row(edges["top"], self.x, self.right, self.top - row_h, row_h)
        y1 = self.top - (row_h + gap if edges["top"] else 0)
        y0 = self.y + (row_h + gap if edges["bottom"] else 0)
        both = bool(edges["left"]) and bool(edges["right"])
        col_w = (self.width - gap) / 2 if both else self.width
        self._column(edges["left"], self.x, y1, col_w, y1 - y0)
        self._column(edges["right"], self.right - col_w, y1, col_w, y1 - y0)

    def _column(self, frames: list[SeatFrame], x: float, top: float, width: float, height: float) -> None:
        """*frames* one above the other in a column *width* by *height* whose top left is at
        (*x*, *top*)."""
        if not frames:
            return
        h = (height - self.gap * (len(frames) - 1)) / len(frames)
        for i, frame in enumerate(frames):
            frame.size = (width, h)
            frame.pos = (x, top - (i + 1) * h - i * self.gap)

    def _row(self, frames: list[SeatFrame], x0: float, x1: float, y: float, height: float) -> None:
        """*frames* side by side between *x0* and *x1*, *height* high at *y*."""
        if not frames:
            return
        w = (x1 - x0 - self.gap * (len(frames) - 1)) / len(frames)
        for i, frame in enumerate(frames):
            frame.size = (w, height)
            frame.pos = (x0 + i * (w + self.gap), y)
