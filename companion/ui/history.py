"""Past plays: the list, a score-over-time chart per player, and the exports (BG Stats, CSV).

Reads the finished plays from the session store through :mod:`companion.history`; writes the
exports into the data folder's ``exports/`` and says where.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kivy.lang import Builder
from kivy.properties import ListProperty, StringProperty

from companion.export import FinishedPlay, to_bgstats, to_csv
from companion.history import GAME_NAMES, finished_plays
from companion.ui.lang import TR
from companion.ui.screens import BaseScreen
from companion.ui.widgets import FitLabel, TouchButton

MAX_LINES = 8  # the players charted: the most frequent ones


class HistoryScreen(BaseScreen):
    game = StringProperty("")  # "" for every game
    series = ListProperty([])

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
        for key in ("", "dragons-gold", "volatio", "gold", "drakon"):
            title = TR._(GAME_NAMES[key]) if key else TR._("All games")
            b = TouchButton(text=title, selected=key == self.game)
            b.bind(on_release=lambda _b, k=key: self.choose(k))
            filters.add_widget(b)
        plays = self.plays()
        rows = self.ids.rows
        rows.clear_widgets()
        for _sid, play in reversed(plays[-6:]):
            when = datetime.fromtimestamp(play.ended_wall, tz=UTC).strftime("%Y-%m-%d")
            winners = ", ".join(p.name for p in play.players if p.is_winner)
            scores = "  ".join(f"{p.name} {p.score}" for p in play.players if p.score is not None)
            rows.add_widget(FitLabel(text=f"{when}  {TR._(play.game_name)}  ★ {winners}   {scores}",
                                     halign="left"))
        if not plays:
            rows.add_widget(FitLabel(text=TR._("No finished game yet"), color=[0.7, 0.7, 0.7, 1]))
        self.series = chart_series(plays)

    def export(self, kind: str) -> None:
        plays = self.plays()
        if not plays:
            self.notify(TR._("No finished game yet"))
            return
        folder = Path(self.svc.config.database_path).parent / "exports"
        folder.mkdir(parents=True, exist_ok=True)
        sid, last = plays[-1]
        if kind == "csv":
            path = folder / "plays.csv"
            path.write_text(to_csv([p for _s, p in plays]), encoding="utf-8")
        else:
            path = folder / f"play-{sid}.bgstats.json"
            path.write_text(to_bgstats(last), encoding="utf-8")
        self.notify(TR._("Exported to") + f" {path}")


def chart_series(plays: list[tuple[int, FinishedPlay]]) -> list[tuple[str, str, list[tuple[int, float]]]]:
    """One line per player (the most frequent first), each point (play number, score)."""
    counts: dict[str, int] = {}
    colours: dict[str, str] = {}
    for _sid, play in plays:
        for p in play.players:
            if p.score is not None:
                counts[p.name] = counts.get(p.name, 0) + 1
                colours[p.name] = p.colour or ""
    names = sorted(counts, key=lambda n: (-counts[n], n))[:MAX_LINES]
    series = []
    for name in names:
        pts = [(i, float(p.score)) for i, (_sid, play) in enumerate(plays) for p in play.players
               if p.name == name and p.score is not None]
        series.append((name, colours[name], pts))
    return series


SCREEN = HistoryScreen


KV_FILE = Path(__file__).with_suffix(".kv")
if str(KV_FILE) not in Builder.files:
    Builder.load_file(str(KV_FILE))
