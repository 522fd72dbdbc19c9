"""Dragon's Gold on the touch screen."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from tests.ui.kit import find, result, screen, tap

EXAMPLE_1 = {  # shared/rules/dragons_gold.md, example 1 (A holds the black diamond)
    "A": {"silver": 6, "gold": 2, "red": 3, "black": 1, "blue": 3, "green": 2, "yellow": 1, "white": 1},
    "B": {"silver": 4, "gold": 3, "red": 1, "blue": 3, "green": 1, "purple": 2, "white": 2},
    "C": {"silver": 8, "gold": 1, "red": 2, "blue": 1, "green": 2, "purple": 2, "yellow": 3},
    "D": {"silver": 2, "gold": 4, "purple": 1, "yellow": 2},
}


async def dragons_gold_scoring(app: Any) -> None:
    """Enter example 1 by touch, in both rule sets; the totals must be `companion score`'s."""
    home = screen(app, "home")
    for name in EXAMPLE_1:
        home.ids.name_input.text = name
        await tap(app, home.ids.add_player)
    await tap(app, find(app, "TouchButton", "Dragon's Gold"))
    await tap(app, home.ids.start)
    assert app.manager.current == "game:dragons-gold"
    sheet = screen(app, "game:dragons-gold")
    for name, counts in EXAMPLE_1.items():
        await tap(app, find(app, "TouchButton", name))
        assert sheet.player == name
        for field, n in counts.items():
            plus = next(w for w in sheet.counters[field].walk() if getattr(w, "text", None) == "+")
            for _ in range(n):
                await tap(app, plus, duration=0.02)
    answers = {}
    for rules, button in (("simple", sheet.ids.rules_simple), ("advanced", sheet.ids.rules_advanced)):
        await tap(app, button)
        doc = app.svc.session.score_document()
        cli = subprocess.run([sys.executable, "-m", "companion", "score", "dragons-gold", "--json"],
                             input=json.dumps(doc), capture_output=True, text=True, timeout=60)
        expected = json.loads(cli.stdout)
        shown = sheet.summary
        for player, score in expected["scores"].items():
            assert f"{player} {score}" in shown, (shown, expected)
        answers[rules] = expected["scores"]
    await tap(app, sheet.ids.finish)
    assert app.svc.session.result["scores"] == answers["advanced"]
    result(**answers)


async def history_after_scoring(app: Any) -> None:
    """Finish a Dragon's Gold game, then find it in History: the chart and the exports."""
    from pathlib import Path

    await dragons_gold_scoring(app)
    popup = next(w for w in app.root_window.children if type(w).__name__ == "ResultsPopup")
    popup.dismiss()
    await app.wait_clock_frames(3)
    await tap(app, find(app, "TouchButton", "Home"))
    await tap(app, screen(app, "home").ids.history)
    history = screen(app, "history")
    assert app.manager.current == "history"
    assert {name for name, _c, _pts in history.series} == set(EXAMPLE_1)
    assert dict((name, pts) for name, _c, pts in history.series)["B"] == [(0, 34.0)]
    await tap(app, history.ids.export_csv)
    await tap(app, history.ids.export_bgstats)
    folder = Path(app.svc.config.database_path).parent / "exports"
    csv_text = (folder / "plays.csv").read_text()
    bgstats = json.loads(next(folder.glob("play-*.bgstats.json")).read_text())
    assert csv_text.count("Dragon's Gold") == 4
    assert sorted(p["name"] for p in bgstats["players"] if p["winner"]) == ["A", "B"]
    result(exported=sorted(p.name for p in folder.iterdir()))


JOURNEYS = {f.__name__: f for f in (dragons_gold_scoring, history_after_scoring)}
