"""Gold! on the touch screen: the end-of-game scorer, the colour scoring, the winner."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.games.gold_helpers import EXAMPLE_3_PILES
from tests.processes import run
from tests.ui.kit import find, result, screen, settle, start_game, tap

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


def cut_off(top: Any, skip: Any = None) -> list[str]:
    """Labels drawn on top now whose text needs more lines than their box holds: Kivy drops the
    lines that do not fit (a column's "banks 5" over "discards donkey" lost its first line), and
    neither ``FitLabel.overflows`` nor tests/ui/layout.py sees that. Labels inside *skip* are
    left out."""
    from kivy.core.text import Label as CoreLabel
    from kivy.uix.label import Label

    from tests.ui.layout import _visible

    found = []
    for seen in _visible(top, skip):
        w = seen.widget
        if not isinstance(w, Label) or not w.text.strip() or w.width < 2:
            continue
        core = CoreLabel(text=w.text, font_size=w.font_size, font_name=w.font_name, bold=w.bold,
                         text_size=(w.width, None), padding=w.padding, halign=w.halign, markup=w.markup)
        core.refresh()
        needed = core.texture.size[1] if core.texture is not None else 0
        if needed > w.height + 1.5:
            found.append(f"text {w.text!r} needs {needed:.0f} px in {w.height:.0f} px at {w.font_size:.0f} px")
    return found


def layout_faults(app: Any) -> list[str]:
    """What tests/ui/layout.py finds on top of the window now, and every text cut off
    (:func:`cut_off`), less the status strip's: its texts are the app shell's, not this screen's."""
    from kivy.core.window import Window

    from tests.ui.layout import _top_layer, faults

    return faults(Window, skip=app.strip) + cut_off(_top_layer(Window), skip=app.strip)


def companion_score(doc: dict[str, Any]) -> dict[str, Any]:
    cli = run([sys.executable, "-m", "companion", "score", "gold", "--json"],
              input=json.dumps(doc), timeout_s=60)
    assert cli.returncode == 0, cli.stderr
    answer: dict[str, Any] = json.loads(cli.stdout)
    return answer


async def start_gold(app: Any, players: list[str]) -> Any:
    await start_game(app, "Gold!", players)
    assert app.manager.current == "game:gold", app.manager.current
    sheet = screen(app, "game:gold")
    await app.wait_clock_frames(3)
    assert layout_faults(app) == [], layout_faults(app)
    return sheet


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
    await app.wait_clock_frames(2)
    assert layout_faults(app) == [], layout_faults(app)   # the refusal fits beside the cards
    message: str = sheet.message
    return message


def columns(sheet: Any) -> dict[str, Any]:
    return {c.name: c for c in sheet.ids.columns.children}


async def gold_scoring(app: Any) -> None:
    """Example 3 by touch; the colour scoring step by step; totals and winner as `companion score`."""
    sheet = await start_gold(app, sorted(EXAMPLE_3_PILES, reverse=True))  # seated C, B, A
    assert clipped(app) == []
    await enter(app, sheet, EXAMPLE_3_PILES)
    assert layout_faults(app) == [], layout_faults(app)   # nine chips, each a card name and ×

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
    assert sorted(app.svc.session.score_document()["players"]["B"]["scored"]) == sorted(EXAMPLE_3_PILES["B"][0])
    assert clipped(app) == []

    await tap(app, sheet.ids.open_scoring)
    assert sheet.ids.views.current == "scoring"
    verdicts = []
    steps = []
    for page in range(7):
        assert sheet.page == page
        assert clipped(app) == [], (page, clipped(app))
        assert layout_faults(app) == [], (page, layout_faults(app))
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
    assert list(popups[0].scores) == ["C", "B", "A"]  # the table's order, not the names'
    await app.wait_clock_frames(3)
    assert layout_faults(app) == [], layout_faults(app)
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
    # the strip says what went; the page no longer speaks of the card it took back
    assert (app.strip.note, sheet.message) == ("Undone: X's score entry", "")
    await tap(app, app.nav.ids.redo)
    assert "purple:donkey" in app.svc.session.score_document()["players"]["X"]["display"]
    await tap(app, next(c for c in sheet.ids.chips.children if c.card == "purple:donkey"))
    assert app.svc.session.score_document()["players"]["X"]["display"] == EXAMPLE_4["X"][1]
    assert clipped(app) == []

    assert layout_faults(app) == [], layout_faults(app)

    await tap(app, sheet.ids.open_scoring)
    assert layout_faults(app) == [], layout_faults(app)
    await tap(app, sheet.page_buttons[6])   # straight to the totals
    assert clipped(app) == [], clipped(app)
    assert layout_faults(app) == [], layout_faults(app)
    expected = companion_score(app.svc.session.score_document())
    shown = columns(sheet)
    for name, score in expected["scores"].items():
        assert shown[name].total == f"= {score}" and "Winner" in shown[name].standing
    assert "they all win" in sheet.verdict, sheet.verdict
    await tap(app, sheet.ids.finish)
    assert app.svc.session.result == expected
    popup = next(w for w in app.root_window.children if type(w).__name__ == "ResultsPopup")
    await app.wait_clock_frames(3)
    assert popup.winners_text(popup.winners) == "Winners: " + ", ".join(expected["winners"])
    # each player's name and score under their own bar
    chart = next(w for w in popup.walk() if type(w).__name__ == "BarChart")
    labels = list(reversed(popup.ids.labels.children))
    slot = chart.width / len(labels)
    for i, (label, (name, score)) in enumerate(zip(labels, popup.scores.items(), strict=True)):
        assert [w.text for w in reversed(label.children)] == [name, str(score)], label.children
        assert chart.x + i * slot <= label.center_x <= chart.x + (i + 1) * slot, (name, label.center_x, chart.x)
    assert layout_faults(app) == [], layout_faults(app)
    popup.dismiss()
    await settle(app)  # a dialog fading out still takes every touch
    await corrected_after_finish(app, expected)
    await next_game_starts_blank(app, sheet, list(EXAMPLE_4))
    result(**expected)


async def corrected_after_finish(app: Any, expected: dict[str, Any]) -> None:
    """An Undo after Finish changes the sheet: the game has no result again, and Home's Start
    asks before ending it; Redo puts back the sheet the result was for, and it stands again."""
    session = app.svc.session
    await tap(app, app.nav.ids.undo)
    assert session.result is None
    home = screen(app, "home")
    await tap(app, find(app, "TouchButton", "Home"))
    await tap(app, home.ids.start)
    assert (app.svc.session is session, app.strip.note) == (True, "Gold! is not finished: “Start over” ends it")
    await tap(app, find(app, "TouchButton", "Game"))
    assert app.manager.current == "game:gold", app.manager.current
    await tap(app, app.nav.ids.redo)
    assert session.result == expected


async def next_game_starts_blank(app: Any, sheet: Any, players: list[str]) -> None:
    """After a game finished on its totals: the next Gold! game opens on an empty sheet with
    nothing said, and Finish there is refused, with no play recorded."""
    from companion.history import finished_plays

    sheet.message, sheet.refused = "the last game's word", False  # as a card's tap leaves it
    plays = len(finished_plays(app.svc.store))
    home = screen(app, "home")
    await tap(app, find(app, "TouchButton", "Home"))
    assert app.manager.current == "home"
    await tap(app, home.ids.start)
    assert app.manager.current == "game:gold", app.manager.current
    await app.wait_clock_frames(2)
    assert (sheet.ids.views.current, sheet.page, sheet.message, sheet.player) == ("sheet", 0, "", players[0])
    await tap(app, sheet.ids.open_scoring)
    await tap(app, sheet.page_buttons[6])
    await tap(app, sheet.ids.finish)
    assert sheet.refused and "No cards are on the sheet yet" in sheet.message, sheet.message
    assert app.svc.session.result is None and len(finished_plays(app.svc.store)) == plays
    await app.wait_clock_frames(2)
    assert layout_faults(app) == [], layout_faults(app)
    app.root_window.screenshot(name=str(Path(tempfile.gettempdir()) / "gold-finish-refused.png"))


async def gold_odd_sheet(app: Any) -> None:
    """A sheet the rules call odd (one red card on X's scoring pile, three green in Y's display):
    the colour scoring says so under the columns, counts one card as one, and everything still
    fits at the size it runs."""
    sheet = await start_gold(app, ["X", "Y"])
    await choose(app, sheet, "X", "scored")
    await tap(app, sheet.card_buttons["red:5"])
    await choose(app, sheet, "Y", "display")
    for card in ("green:3", "green:4", "green:donkey"):
        await tap(app, sheet.card_buttons[card])
    assert not sheet.refused, sheet.message
    assert layout_faults(app) == [], layout_faults(app)
    await tap(app, sheet.ids.open_scoring)
    shown = columns(sheet)
    assert shown["X"].standing == "pile 5 (1 card)", shown["X"].standing
    first = "X's scoring pile has 1 red card: a pile holds sets of 3. (1 of 2: tap for the next)"
    assert sheet.warnings == first, sheet.warnings
    assert sheet.ids.warnings.opacity == 1
    assert layout_faults(app) == [], layout_faults(app)
    await tap(app, sheet.ids.warnings)  # the next odd colour, then round to the first
    assert sheet.warnings == ("Y's display has 3 green cards: a set of 3 is scored at once. (2 of 2: tap for the "
                              "next)"), sheet.warnings
    await tap(app, sheet.ids.warnings)
    assert sheet.warnings == first, sheet.warnings
    assert layout_faults(app) == [], layout_faults(app)
    await tap(app, sheet.page_buttons[6])
    assert columns(sheet)["X"].outcome == "1 card", columns(sheet)["X"].outcome
    assert layout_faults(app) == [], layout_faults(app)
    await tap(app, sheet.ids.back)
    assert sheet.ids.views.current == "sheet"
    result(summary=sheet.summary)


async def photo_layout(app: Any, taker: Any, button: Any) -> Any:
    """Tap a Photo button, then a piece in the popup's list: the popup and the picker that
    opens each fit at the size this runs; a value tapped closes the picker; Cancel the popup."""
    from tests.ui.kit import until

    await tap(app, button)
    await until(app, lambda: taker.popup is not None and taker.popup.parent is not None, timeout=60)
    popup = taker.popup
    await until(app, lambda: popup.ids.photo.width > 100 and popup.ids.rows.height > 0)
    await app.wait_clock_frames(3)
    assert layout_faults(app) == [], layout_faults(app)
    await tap(app, popup.rows[0])
    await until(app, lambda: popup.picker is not None and popup.picker.parent is not None)
    picker = popup.picker
    await until(app, lambda: picker.ids.choices.width > 100)
    await app.wait_clock_frames(3)
    assert layout_faults(app) == [], layout_faults(app)
    value = sorted(picker.value_buttons)[0]
    await tap(app, picker.value_buttons[value])
    await until(app, lambda: picker.parent is None)
    assert popup.tally.call(0).value == value
    await app.wait_clock_frames(2)
    assert layout_faults(app) == [], layout_faults(app)
    await tap(app, popup.ids.cancel)
    await until(app, lambda: popup.parent is None)
    return picker


async def gold_photo_layout(app: Any) -> None:
    """Gold!'s photo popup and its card picker (42 cards, a row per colour) fit the screen."""
    sheet = await start_gold(app, ["Anna", "Bence"])
    before = app.svc.session.score_document()
    picker = await photo_layout(app, sheet.photo, sheet.ids.photo)
    assert app.svc.session.score_document() == before   # cancelled: nothing applied
    result(values=len(picker.value_buttons), columns=picker.columns)


JOURNEYS = {f.__name__: f for f in (gold_scoring, gold_two_players, gold_odd_sheet, gold_photo_layout)}
