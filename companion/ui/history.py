"""Past plays: the list, a score-over-time chart per player, and the exports (BG Stats, CSV).

Reads the finished plays from the session store through :mod:`companion.history`; writes the
exports into the data folder's ``exports/`` and says where in a popup (:class:`ExportPopup`):
the file's path in lines that fit, and for BG Stats the import link as a QR code that a phone
with the BG Stats app scans to add the play (:class:`QRCode`, drawn from ``segno``'s matrix).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import segno
from kivy.clock import Clock
from kivy.graphics import Color, Rectangle
from kivy.graphics.texture import Texture
from kivy.lang import Builder
from kivy.properties import ListProperty, NumericProperty, StringProperty
from kivy.uix.popup import Popup
from kivy.uix.widget import Widget

from companion.export import FinishedPlay, to_bgstats, to_bgstats_link, to_csv
from companion.games import games
from companion.history import finished_plays
from companion.session import PLAYER_COLOURS
from companion.ui.lang import TR
from companion.ui.screens import BaseScreen
from companion.ui.theme import PLAYER_RGB, THEME, rgb
from companion.ui.widgets import MIN_FONT_PX, FitLabel, TouchButton

MAX_LINES = len(PLAYER_COLOURS)
"""The players charted, the most frequent ones: no more than the player palette has colours, so
every line has a colour of its own (:func:`line_colours`)."""
QUIET_MODULES = 4
"""The blank border round a QR code, in modules: the four the QR standard asks for."""
PATH_LINE_CHARS = 30
"""A path is broken after a ``/`` into lines of at most about this many characters."""


ROWS_MOST = 6
"""The most recent plays listed under the chart (fewer where fewer fit)."""
ROW_PX = MIN_FONT_PX * 1.4
"""A play's row: one line of the smallest text (px)."""


class HistoryScreen(BaseScreen):
    game = StringProperty("")  # "" for every game
    series = ListProperty([])

    def __init__(self, **kwargs: Any) -> None:
        self._plays: list[tuple[int, FinishedPlay]] = []
        super().__init__(**kwargs)
        self._rows_trigger = Clock.create_trigger(lambda _dt: self._fill_rows(), -1)

    def on_kv_post(self, *_: Any) -> None:
        self.ids.rows.fbind("height", lambda *_: self._rows_trigger())

    def on_pre_enter(self, *_: Any) -> None:
        self.refresh()

    def choose(self, game: str) -> None:
        self.game = game
        self.refresh()

    def plays(self) -> list[tuple[int, FinishedPlay]]:
        return finished_plays(self.svc.store, self.game or None)

    def refresh(self) -> None:
        if self.svc is None:
            return
        filters = self.ids.filters
        filters.clear_widgets()
        for key, title in [("", TR._("All games")), *((g.key, TR._(g.title)) for g in games())]:
            b = TouchButton(text=title, selected=key == self.game, size_hint_x=max(6, len(title)) + 2)
            b.bind(on_release=lambda _b, k=key: self.choose(k))
            filters.add_widget(b)
        plays = self._plays = self.plays()
        self._fill_rows()
        self.series = chart_series(plays)
        legend = self.ids.legend
        legend.clear_widgets()
        for name, colour, _pts in self.series:  # which line is whose, in the line's colour
            label = FitLabel(text=f"■ {name}", base_font_size=THEME.u * 0.4, shorten=True,
                             shorten_from="right")
            label.color = rgb(PLAYER_RGB.get(colour, "#ffd21f"))  # after the kv rule's white
            legend.add_widget(label)

    def _fill_rows(self) -> None:
        """The latest plays, newest first: as many as fit at the smallest text, :data:`ROWS_MOST`
        at most; a long one wraps where its row has room for two lines, else ends in …."""
        rows = self.ids.rows
        rows.clear_widgets()
        if not self._plays:
            rows.add_widget(FitLabel(text=TR._("No finished game yet"), color=[0.7, 0.7, 0.7, 1]))
            return
        count = max(1, min(ROWS_MOST, int(rows.height // ROW_PX)))
        shown = self._plays[-count:]
        one_line = rows.height / len(shown) < 2 * ROW_PX
        for _sid, play in reversed(shown):
            when = datetime.fromtimestamp(play.ended_wall, tz=UTC).strftime("%Y-%m-%d")
            winners = ", ".join(p.name for p in play.players if p.is_winner)
            # a no-break space: a wrapped row never parts a name from its score
            scores = "  ".join(f"{p.name}\u00a0{p.score}" for p in play.players if p.score is not None)
            rows.add_widget(FitLabel(text=f"{when}  {TR._(play.game_name)}  ★ {winners}   {scores}",
                                     halign="left", shorten=one_line, shorten_from="right"))

    def export(self, kind: str) -> None:
        plays = self.plays()
        if not plays:
            self.notify(TR._("No finished game yet"))
            return
        folder = Path(self.svc.config.database_path).parent / "exports"
        folder.mkdir(parents=True, exist_ok=True)
        sid, last = plays[-1]
        link = ""
        if kind == "csv":
            path = folder / "plays.csv"
            path.write_text(to_csv([p for _s, p in plays]), encoding="utf-8")
        else:
            path = folder / f"play-{sid}.bgstats.json"
            path.write_text(to_bgstats(last), encoding="utf-8")
            link = to_bgstats_link(last)
        self.popup = ExportPopup(path_text=path_lines(path), link=link)
        self.popup.bind(on_dismiss=lambda *_: setattr(self, "popup", None))
        self.popup.open()

    popup: ExportPopup | None = None
    """The export popup while it is open."""

    def open_export_for_screenshot(self) -> ExportPopup | None:
        """For the screenshot script, not for journeys: export for BG Stats (the popup with the
        QR code opens); None when there is no finished play."""
        self.export("bgstats")
        return self.popup


def path_lines(path: Path, width: int = PATH_LINE_CHARS) -> str:
    """*path* for reading at the table: the home folder as ``~``, broken after a ``/`` into
    lines of about *width* characters (a path has no spaces to wrap at)."""
    text = str(path)
    home = str(Path.home())
    if home not in ("", "/") and text.startswith(home + "/"):
        text = "~" + text[len(home):]
    parts = text.split("/")
    pieces = [part + "/" for part in parts[:-1]] + [parts[-1]]  # each keeps its slash
    lines: list[str] = []
    line = ""
    for piece in pieces:
        if line and len(line) + len(piece) > width:
            lines.append(line)
            line = piece
        else:
            line += piece
    lines.append(line)
    return "\n".join(lines)


class QRCode(Widget):  # type: ignore[misc]
    """*data* as a QR code (error correction L, the smallest symbol), black on white with the
    quiet zone, drawn at a whole number of pixels a module so every module stays sharp."""

    data = StringProperty("")
    modules = NumericProperty(0)
    """The symbol's side in modules, the quiet zone included (0 with no data)."""
    module_px = NumericProperty(0)
    """Pixels a module as drawn now."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.matrix: list[list[int]] = []
        """The symbol, quiet zone included: rows from the top, 1 for a dark module."""
        with self.canvas:
            self._colour = Color(1, 1, 1, 1)
            self._rect = Rectangle()
        self._texture: Texture | None = None
        for prop in ("pos", "size"):
            self.fbind(prop, self._place)
        self.fbind("data", self._make)
        self._make()

    def _make(self, *_: Any) -> None:
        if not self.data:
            self.matrix, self.modules, self._texture = [], 0, None
            self._rect.texture = None
            self._place()
            return
        symbol = segno.make(self.data, error="l", micro=False, boost_error=False)
        self.matrix = [[1 if dark else 0 for dark in row]
                       for row in symbol.matrix_iter(scale=1, border=QUIET_MODULES)]
        n = len(self.matrix)
        pixels = bytearray()
        for row in reversed(self.matrix):  # a texture's first row is its bottom
            for dark in row:
                pixels += b"\x00\x00\x00" if dark else b"\xff\xff\xff"
        texture = Texture.create(size=(n, n), colorfmt="rgb")
        texture.blit_buffer(bytes(pixels), colorfmt="rgb", bufferfmt="ubyte")
        texture.mag_filter = "nearest"
        texture.min_filter = "nearest"
        self._texture, self.modules = texture, n
        self._rect.texture = texture
        self._place()

    def _place(self, *_: Any) -> None:
        n = self.modules
        if not n:
            self._rect.size, self.module_px = (0, 0), 0
            return
        self.module_px = max(1, int(min(self.width, self.height) // n))
        side = self.module_px * n
        self._rect.size = (side, side)
        # From x and width, not center_x: the alias may not have caught up when size changes.
        self._rect.pos = (round(self.x + (self.width - side) / 2), round(self.y + (self.height - side) / 2))


class ExportPopup(Popup):  # type: ignore[misc]
    """Where an export went (``path_text``), and for BG Stats its import link as a QR code."""

    path_text = StringProperty("")
    link = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        from kivy.core.window import Window

        super().__init__(**kwargs)
        body = self.ids.body
        self.title = TR._("Exported for BG Stats") if self.link else TR._("Exported")
        if not self.link:  # a CSV: the text alone, in a smaller popup
            body.remove_widget(self.ids.qr)
            self.ids.text.remove_widget(self.ids.scan)
            self.size_hint = (0.8, 0.7)
        # Landscape: the code left of the text; portrait: above it. Square either way.
        qr = self.ids.qr
        if Window.width >= Window.height:
            body.orientation = "horizontal"
            qr.size_hint_x = None
            qr.bind(height=qr.setter("width"))
        else:
            body.orientation = "vertical"
            qr.size_hint_y = None
            qr.bind(width=qr.setter("height"))


def chart_series(plays: list[tuple[int, FinishedPlay]]) -> list[tuple[str, str, list[tuple[int, float]]]]:
    """One line per player (the most frequent first), each point (play number, score), each in
    a colour no other line has (:func:`line_colours`)."""
    counts: dict[str, int] = {}
    for _sid, play in plays:
        for p in play.players:
            if p.score is not None:
                counts[p.name] = counts.get(p.name, 0) + 1
    names = sorted(counts, key=lambda n: (-counts[n], n))[:MAX_LINES]
    colours = line_colours(plays, names)
    series = []
    for name in names:
        pts = [(i, float(p.score)) for i, (_sid, play) in enumerate(plays) for p in play.players
               if p.name == name and p.score is not None]
        series.append((name, colours[name], pts))
    return series


def line_colours(plays: list[tuple[int, FinishedPlay]], names: list[str]) -> dict[str, str]:
    """A colour of the player palette (:data:`~companion.session.PLAYER_COLOURS`) for each of
    *names* (the charted players, in chart order), no two alike, from the plays they have a
    score in.

    A player keeps the colour of their latest play where no other charted player's latest play
    had it too; where several had it, whoever wore it in the latest play keeps it (the first in
    *names* if that is a tie). The others, in *names* order, take the newest colour they wore
    that is still free, else the palette's first free colour. With no more names than the
    palette has colours (:data:`MAX_LINES`), every one gets a colour.
    """
    worn: dict[str, list[tuple[int, str]]] = {name: [] for name in names}  # (play, colour), oldest first
    for i, (_sid, play) in enumerate(plays):
        for p in play.players:
            if p.name in worn and p.score is not None:
                worn[p.name].append((i, p.colour or ""))
    claims = sorted((history[-1][1], -history[-1][0], order, name)
                    for order, (name, history) in enumerate(worn.items())
                    if history and history[-1][1] in PLAYER_COLOURS)
    colours: dict[str, str] = {}
    for colour, _newest_first, _order, name in claims:  # each colour's latest wearer comes first
        if colour not in colours.values():
            colours[name] = colour
    for name in names:
        if name not in colours:
            taken = set(colours.values())
            own = [colour for _i, colour in reversed(worn[name])]  # newest first
            free = (c for c in (*own, *PLAYER_COLOURS) if c in PLAYER_COLOURS and c not in taken)
            colours[name] = next(free, "")
    return colours


SCREEN = HistoryScreen


KV_FILE = Path(__file__).with_suffix(".kv")
if str(KV_FILE) not in Builder.files:
    Builder.load_file(str(KV_FILE))
