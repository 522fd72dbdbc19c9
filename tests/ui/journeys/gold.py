"""Gold! on the touch screen: the end-of-game scorer, the colour scoring, the winner."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from tests.ui.kit import result, screen, start_game, tap

# shared/rules/gold.md §6, Example 3 (3 players): {name: (scoring pile, display)}.
EXAMPLE_3 = {
    "A": (["purple:8", "purple:7", "purple:6", "green:8", "green:7", "green:donkey"],
          ["red:8", "red:donkey", "blue:5", "pink:donkey", "green:3"]),
    "B": (["purple:5", "purple:4", "purple:3", "pink:8", "pink:3", "pink:3"],
          ["red:6", "blue:7", "blue:3", "orange:6"]),
    "C": (["pink:7", "pink:6", "pink:donkey", "blue:8", "blue:6", "blue:donkey",
           "orange:7", "orange:5", "orange:donkey"],
          ["blue:4", "orange:3", "orange:3", "green:5", "green:donkey"]),
}

# Example 4 (2 players) after X's last turn: the orange set is on X's pile, Y's blue 8 stolen.
EXAMPLE_4 = {
    "X": (["purple:8", "purple:7", "purple:5", "red:3", "red:3", "red:donkey",
           "orange:7", "orange:3", "orange:5"],
          ["green:4", "blue:8"]),
    "Y": (["red:8", "red:6", "red:4", "pink:8", "pink:7", "pink:3", "purple:3", "purple:3", "purple:donkey"],
          ["green:6", "green:donkey", "pink:5"]),
}


def clipped(app: Any) -> list[str]:
    """Texts on screen that do not fit their label (what the screenshot test fails on)."""
    from companion.ui.widgets import FitLabel

    return [w.text for w in app.root_widget.walk()
            if isinstance(w, FitLabel) and w.text and w.opacity > 0 and w.get_root_window() is not None
            and w.overflows]


def companion_score(doc: dict[str, Any]) -> dict[str, Any]:
    cli = subprocess.run([sys.executable, "-m", "companion", "score", "gold", "--json"],
                         input=json.dumps(doc), capture_output=True, text=True, timeout=60)
    assert cli.returncode == 0, cli.stderr
    answer: dict[str, Any] = json.loads(cli.stdout)
    return answer


async def start_gold(app: Any, players: list[str]) -> Any:
    await start_game(app, "Gold!", players)
    assert app.manager.current == "game:gold", app.manager.current
    return screen(app, "game:gold")


async def choose(app: Any, sheet: Any, player: str, field: str) -> None:
    await tap(app, next(t for t in sheet.ids.tabs.children if t.player == player))
    await tap(app, sheet.ids.field_scored if field == "scored" else sheet.ids.field_display)
    assert (sheet.player, sheet.field) == (player, field)


async def enter(app: Any, sheet: Any, example: dict[str, tuple[list[str], list[str]]]) -> None:
    """Every card of *example* by touch: a player's tab, the list, then the card's button."""
    for name, (pile, display) in example.items():
        for field, cards in (("scored", pile), ("display", display)):
            await choose(app, sheet, name, field)
            for card in cards:
                await tap(app, sheet.card_buttons[card], duration=0.02)
                assert not sheet.refused, sheet.message
    doc = app.svc.session.score_document()
    assert doc == {"players": {n: {"scored": p, "display": d} for n, (p, d) in example.items()}}, doc


async def refused(app: Any, sheet: Any, player: str, field: str, card: str) -> str:
    """Tap *card* for *player*: it must be refused on the spot, with nothing logged."""
    await choose(app, sheet, player, field)
    before = app.svc.session.score_document()
    await tap(app, sheet.card_buttons[card])
    assert sheet.refused, sheet.message
    assert app.svc.session.score_document() == before
    assert app.strip.note == sheet.message
    message: str = sheet.message
    return message


def columns(sheet: Any) -> dict[str, Any]:
    return {c.name: c for c in sheet.ids.columns.children}


async def gold_scoring(app: Any) -> None:
    """Example 3 by touch; the colour scoring step by step; totals and winner as `companion score`."""
    sheet = await start_gold(app, list(EXAMPLE_3))
    assert clipped(app) == []
    await enter(app, sheet, EXAMPLE_3)

    # The box has one purple 8 (A's pile) and two pink 3s (both on B's pile).
    purple = await refused(app, sheet, "B", "display", "purple:8")
    assert "purple 8" in purple and "A's scoring pile" in purple, purple
    pink = await refused(app, sheet, "C", "scored", "pink:3")
    assert "a 3-player game has 2" in pink and "B's scoring pile; B's scoring pile" in pink, pink

    # A chip takes a card off; the grid puts it back.
    await choose(app, sheet, "B", "scored")
    chip = next(c for c in sheet.ids.chips.children if c.card == "pink:8")
    await tap(app, chip)
    assert "pink:8" not in app.svc.session.score_document()["players"]["B"]["scored"]
    await tap(app, sheet.card_buttons["pink:8"])
    assert sorted(app.svc.session.score_document()["players"]["B"]["scored"]) == sorted(EXAMPLE_3["B"][0])
    assert clipped(app) == []

    await tap(app, sheet.ids.open_scoring)
    assert sheet.ids.views.current == "scoring"
    verdicts = []
    steps = []
    for page in range(7):
        assert sheet.page == page
        assert clipped(app) == [], (page, clipped(app))
        verdicts.append(sheet.verdict)
        shown = columns(sheet)
        steps.append({n: [c.total, c.outcome] for n, c in sorted(shown.items())})
        if page < 6:
            await tap(app, sheet.ids.next)
    # green: A and C tie on 3; A banks the 3, C the 5 and discards the donkey.
    assert "tie on 3" in verdicts[0] and steps[0]["A"] == ["= 3", "banks 3"], (verdicts[0], steps[0])
    assert steps[0]["C"] == ["= 3", "banks 5\ndiscards donkey"], steps[0]
    assert "B has the highest sum (10)" in verdicts[1], verdicts[1]   # blue
    assert "nobody has a card" in verdicts[2]                          # purple
    assert "not scored" in verdicts[5] and steps[5]["A"] == ["= -2", "discards donkey"]   # pink

    doc = app.svc.session.score_document()
    expected = companion_score(doc)
    shown = columns(sheet)
    for name, score in expected["scores"].items():
        assert shown[name].total == f"= {score}", (name, shown[name].total, expected)
        assert shown[name].outcome == f"{expected['pile_sizes'][name]} cards"
        assert ("Winner" in shown[name].standing) == (name in expected["winners"])
    assert "A, B tie on 45 points" in sheet.verdict and "Winner: B" in sheet.verdict, sheet.verdict

    await tap(app, sheet.ids.finish)
    from kivy.core.window import Window

    from companion.ui.results import ResultsPopup

    popups = [w for w in Window.children if isinstance(w, ResultsPopup)]
    assert len(popups) == 1 and popups[0].winners == expected["winners"]
    assert app.svc.session.result == expected
    result(**expected)


async def gold_two_players(app: Any) -> None:
    """Example 4 (2 players, a full tie) by touch; a 2-player box; undo; every winner shares."""
    sheet = await start_gold(app, list(EXAMPLE_4))
    await enter(app, sheet, EXAMPLE_4)

    # Two donkeys a colour with 2 players: Y's pile has a purple one, X may enter the other.
    await choose(app, sheet, "X", "display")
    await tap(app, sheet.card_buttons["purple:donkey"])
    assert not sheet.refused, sheet.message
    second = await refused(app, sheet, "X", "display", "purple:donkey")
    assert "a 2-player game has 2" in second, second
    # Undo takes the extra donkey back off the sheet; redo and a chip do the same by touch.
    await tap(app, app.nav.ids.undo)
    assert app.svc.session.score_document()["players"]["X"]["display"] == EXAMPLE_4["X"][1]
    await tap(app, app.nav.ids.redo)
    assert "purple:donkey" in app.svc.session.score_document()["players"]["X"]["display"]
    await tap(app, next(c for c in sheet.ids.chips.children if c.card == "purple:donkey"))
    assert app.svc.session.score_document()["players"]["X"]["display"] == EXAMPLE_4["X"][1]
    assert clipped(app) == []

    await tap(app, sheet.ids.open_scoring)
    await tap(app, sheet.page_buttons[6])   # straight to the totals
    assert clipped(app) == [], clipped(app)
    expected = companion_score(app.svc.session.score_document())
    shown = columns(sheet)
    for name, score in expected["scores"].items():
        assert shown[name].total == f"= {score}" and "Winner" in shown[name].standing
    assert "they all win" in sheet.verdict, sheet.verdict
    await tap(app, sheet.ids.finish)
    assert app.svc.session.result == expected
    result(**expected)


JOURNEYS = {f.__name__: f for f in (gold_scoring, gold_two_players)}
