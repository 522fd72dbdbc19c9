"""Dragon's Gold on the touch screen."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from tests.ui.kit import find, pin_states, result, screen, start_game, tap, until

EXAMPLE_1 = {  # shared/rules/dragons_gold.md, example 1 (A holds the black diamond)
    "A": {"silver": 6, "gold": 2, "red": 3, "black": 1, "blue": 3, "green": 2, "yellow": 1, "white": 1},
    "B": {"silver": 4, "gold": 3, "red": 1, "blue": 3, "green": 1, "purple": 2, "white": 2},
    "C": {"silver": 8, "gold": 1, "red": 2, "blue": 1, "green": 2, "purple": 2, "yellow": 3},
    "D": {"silver": 2, "gold": 4, "purple": 1, "yellow": 2},
}


async def dragons_gold_scoring(app: Any) -> None:
    """Enter example 1 by touch, in both rule sets; the totals must be `companion score`'s."""
    await start_game(app, "Dragon's Gold", EXAMPLE_1)
    assert app.manager.current == "game:dragons-gold"
    game = screen(app, "game:dragons-gold")
    await tap(app, game.ids.page_score)
    sheet = game.ids.sheet
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


async def dragons_gold_sharing(app: Any) -> None:
    """Turn up dragons, send example 5's team, kill: the negotiation timer starts by itself and
    runs out (buzzer, LED bar), and the treasure leaves the game; then the market's trading
    timer, and the strategic variant's choosing order."""
    await start_game(app, "Dragon's Gold", ("P1", "P2", "P3"))
    game = screen(app, "game:dragons-gold")
    cards = list(reversed(game.ids.row.children))
    for card in cards:  # the opening four: strength 9, 3 known, 2 hidden
        await tap(app, next(w for w in card.walk() if getattr(w, "text", "") == "Turn up a dragon"))
        popup = next(w for w in app.root_window.children if type(w).__name__ == "RevealPopup")
        await tap(app, next(w for w in popup.ids.strength.walk() if getattr(w, "text", "") == "+"), 0.02)
        await tap(app, popup.ids.ok)
    state = game.state()
    assert state.revealed == 4 and state.bag == 126 - 12
    assert state.slots[0].dragon is not None and state.slots[0].dragon.dragon.strength == 9
    for player, role, strength in [("P1", "wizard", 2), ("P2", "thief", 1), ("P3", "knight", 4),
                                   ("P1", "thief", 1), ("P2", "knight", 3)]:
        await tap(app, next(w for w in cards[0].walk() if getattr(w, "text", "") == "Send an adventurer"))
        popup = next(w for w in app.root_window.children if type(w).__name__ == "PlacePopup")
        await tap(app, next(w for w in popup.ids.players.children if w.text == player))
        await tap(app, getattr(popup.ids, role))
        plus = next(w for w in popup.ids.strength.walk() if getattr(w, "text", "") == "+")
        for _ in range(strength - 1):
            await tap(app, plus, 0.02)
        await tap(app, popup.ids.ok)
    kill = next(w for w in app.root_window.children if type(w).__name__ == "KillPopup")  # 11 >= 9
    for _ in range(2):
        await tap(app, next(w for w in kill.ids.hidden.walk() if getattr(w, "text", "") == "+"), 0.02)
        await tap(app, next(w for w in kill.ids.red.walk() if getattr(w, "text", "") == "+"), 0.02)
    await tap(app, kill.ids.ok)
    sharing = next(w for w in app.root_window.children if type(w).__name__ == "SharingPopup")
    assert "P1 (2)" in sharing.text  # the single wizard's owner takes both red discs first
    assert sharing.text.index("Thief: P2") < sharing.text.index("Thief: P1")  # joining order
    session = app.svc.session
    assert session.board["negotiation"].is_running  # started by itself
    await until(app, lambda: game.state().removed == 3, timeout=10)  # the time-out, by itself
    await app.async_sleep(0.3)
    assert 1.0 in pin_states(app, 18)  # the buzzer sounded
    assert all(pin_states(app, p)[-1] == 0 for p in (5, 6, 13, 19, 26, 16, 20, 21))
    assert session.board["negotiation"].phase.value == "expired"
    state = game.state()
    assert state.removed == 3 and state.slots[0].is_empty and state.bag == 126 - 14
    # the market: seven more dragons from the deck (logged straight away), then the card
    for _ in range(7):
        session.record_play("dg.reveal", {"slot": 0, "strength": 1, "known": 1, "hidden": 0})
        session.record_play("dg.place", {"slot": 0, "player": "P1", "role": "knight", "strength": 1})
        session.record_play("dg.kill", {"slot": 0, "hidden_drawn": 0, "red": 0})
        session.record_play("dg.shared", {"slot": 0, "outcome": "solo"})
    game.refresh()
    assert game.market_due
    await tap(app, game.ids.market)
    assert session.board["market"].is_running and game.state().market_done
    # the strategic variant: A (6) first, B then C (3 each: earlier first adventurer first)
    await tap(app, game.ids.strategic)
    assert game.state().strategic
    for player, strength in [("P1", 6), ("P2", 3), ("P3", 3)]:
        session.record_play("dg.place", {"slot": 1, "player": player, "role": "knight", "strength": strength})
    game.refresh()
    game.kill(1, 0, 0)
    await app.wait_clock_frames(3)
    sharing = next(w for w in app.root_window.children if type(w).__name__ == "SharingPopup")
    assert "Choosing order: P1, P2, P3" in sharing.text and "Divider: P3" in sharing.text
    assert not sharing.negotiating
    await tap(app, sharing.ids.deal)
    result(removed=game.state().removed, market=True)


async def undo_across_screens(app: Any) -> None:
    """A move on the game's screen, undone from the Timer screen; a timer, undone from the game's."""
    await start_game(app, "Dragon's Gold", ("P1", "P2", "P3"))
    game = screen(app, "game:dragons-gold")
    card = list(reversed(game.ids.row.children))[0]
    await tap(app, next(w for w in card.walk() if getattr(w, "text", "") == "Turn up a dragon"))
    popup = next(w for w in app.root_window.children if type(w).__name__ == "RevealPopup")
    await tap(app, popup.ids.ok)
    assert game.state().revealed == 1
    await tap(app, find(app, "TouchButton", "Timer"))
    await tap(app, screen(app, "timer").ids.preset_market)
    assert app.svc.session.board["market"].is_running
    await tap(app, find(app, "TouchButton", "Game"))
    assert app.manager.current == "game:dragons-gold"
    await tap(app, app.nav.ids.undo)  # the market timer's start
    assert "market" in app.svc.session.board and not app.svc.session.board["market"].is_running
    await tap(app, app.nav.ids.undo)  # the market timer itself
    await tap(app, find(app, "TouchButton", "Timer"))
    await tap(app, app.nav.ids.undo)  # the dragon, from the Timer screen
    assert game.state().revealed == 0
    await tap(app, app.nav.ids.redo)
    assert game.state().revealed == 1
    result(ok=True)


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


JOURNEYS = {f.__name__: f for f in (dragons_gold_scoring, dragons_gold_sharing, undo_across_screens,
                                     history_after_scoring)}
