"""Dragon's Gold on the touch screen."""

from __future__ import annotations

import json
import sys
from typing import Any

from tests.processes import run
from tests.ui.kit import (
    find,
    pass_time,
    pin_states,
    result,
    run_until,
    screen,
    settle,
    start_game,
    tap,
    until,
)

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
    for rules in ("simple", "advanced"):
        if rules == "advanced":
            await tap(app, game.ids.advanced)  # the rules switch, in the game's top row
        assert app.svc.session.score_rules in (None, rules) and game.advanced == (rules == "advanced")
        doc = app.svc.session.score_document()
        cli = run([sys.executable, "-m", "companion", "score", "dragons-gold", "--json"],
                  input=json.dumps(doc), timeout_s=60)
        assert cli.returncode == 0, cli.stderr
        expected = json.loads(cli.stdout)
        shown = sheet.summary.replace("\u00a0", " ")  # no-break spaces keep a name with its score
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
    from kivy.core.window import Window

    from tests.ui.layout import faults

    attack = 0
    for player, role, strength in [("P1", "wizard", 2), ("P2", "thief", 1), ("P3", "knight", 4),
                                   ("P1", "thief", 1), ("P2", "knight", 3)]:
        await tap(app, next(w for w in cards[0].walk() if getattr(w, "text", "") == "Send an adventurer"))
        popup = next(w for w in app.root_window.children if type(w).__name__ == "PlacePopup")
        assert popup.about == f"⚔ 9 · Attack: {attack} / 9", popup.about  # the dragon the dialog covers
        assert faults(Window, skip=app.strip) == []
        attack += strength
        await tap(app, next(w for w in popup.ids.players.children if w.text == player))
        await tap(app, getattr(popup.ids, role))
        plus = next(w for w in popup.ids.strength.walk() if getattr(w, "text", "") == "+")
        for _ in range(strength - 1):
            await tap(app, plus, 0.02)
        await tap(app, popup.ids.ok)
    kill = next(w for w in app.root_window.children if type(w).__name__ == "KillPopup")  # 11 >= 9
    assert kill.ids.hidden.value == 2  # the card's hidden treasure, to start with
    for _ in range(2):
        await tap(app, next(w for w in kill.ids.red.walk() if getattr(w, "text", "") == "+"), 0.02)
    await tap(app, kill.ids.ok)
    sharing = next(w for w in app.root_window.children if type(w).__name__ == "SharingPopup")
    assert "P1 (2)" in sharing.text  # the single wizard's owner takes both red discs first
    assert sharing.text.index("Thief: P2") < sharing.text.index("Thief: P1")  # joining order
    session = app.svc.session
    assert session.board["negotiation"].is_running  # started by itself
    before = len(pin_states(app, 18))
    # the time-out, by itself: the negotiation's 2 s (the test's config) on the app's clock
    assert await run_until(app, lambda: game.state().removed == 3, within_s=4) == 2
    # the alarm's pattern plays on gpiozero's own thread, on the real clock: wait for it
    await until(app, lambda: 1.0 in pin_states(app, 18)[before:], what="the buzzer")
    assert all(pin_states(app, p)[-1] == 0 for p in (5, 6, 13, 19, 26, 16, 20, 21))
    assert session.board["negotiation"].phase.value == "expired"
    state = game.state()
    assert state.removed == 3 and state.slots[0].is_empty and state.bag == 126 - 14
    await tap(app, app.root_widget)  # the expiry flash goes on until a tap, which presses nothing else
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
    notes = []
    await tap(app, app.nav.ids.undo)  # the market timer's start
    notes.append(app.strip.note)
    assert "market" in app.svc.session.board and not app.svc.session.board["market"].is_running
    await tap(app, app.nav.ids.undo)  # the market timer itself
    notes.append(app.strip.note)
    await tap(app, find(app, "TouchButton", "Timer"))
    await tap(app, app.nav.ids.undo)  # the dragon, from the Timer screen
    notes.append(app.strip.note)
    assert game.state().revealed == 0
    await tap(app, app.nav.ids.redo)
    notes.append(app.strip.note)
    assert game.state().revealed == 1
    await tap(app, find(app, "TouchButton", "Game"))
    await tap(app, next(w for w in card.walk() if getattr(w, "text", "") == "Send an adventurer"))
    await tap(app, next(w for w in app.root_window.children if type(w).__name__ == "PlacePopup").ids.ok)
    assert [a.player for a in game.state().slots[0].dragon.attackers] == ["P1"]
    await tap(app, app.nav.ids.undo)
    notes.append(app.strip.note)
    assert game.state().slots[0].dragon.attackers == ()
    result(notes=notes)


async def history_after_scoring(app: Any) -> None:
    """Finish a Dragon's Gold game, then find it in History: the chart and the exports."""
    from pathlib import Path

    await dragons_gold_scoring(app)
    popup = next(w for w in app.root_window.children if type(w).__name__ == "ResultsPopup")
    popup.dismiss()
    await settle(app)
    await tap(app, find(app, "TouchButton", "Home"))
    await tap(app, screen(app, "home").ids.history)
    history = screen(app, "history")
    assert app.manager.current == "history"
    assert {name for name, _c, _pts in history.series} == set(EXAMPLE_1)
    assert dict((name, pts) for name, _c, pts in history.series)["B"] == [(0, 34.0)]
    top = max(pts[0][1] for _n, _c, pts in history.series)
    assert history.ids.chart.ticks == [f"{top:g}", "0"]  # the score axis says what it spans
    # Many plays, with a name too long for a line: as many rows as fit, each one whole line
    from dataclasses import replace

    from kivy.core.window import Window

    from tests.ui.layout import faults

    [(sid, play)] = history._plays
    [row] = history.ids.rows.children
    for p in play.players:  # a row that wraps never parts a name from its score
        assert f"{p.name}\u00a0{p.score}" in row.text, row.text
    long = replace(play, players=tuple(replace(p, name="Wwwwwwwwwwwwwwww") if p.name == "D" else p
                                       for p in play.players))
    history._plays = [(sid, play)] + [(sid, long)] * 7
    history._fill_rows()
    await app.wait_clock_frames(3)
    rows = history.ids.rows
    shown = list(reversed(rows.children))
    assert 3 <= len(shown) <= 6 and all(r.texture_size[1] <= r.height + 0.5 for r in shown), \
        [(r.texture_size, r.size) for r in shown]
    assert all(r.shorten for r in shown[1:])  # the long rows end in … on their one line
    assert faults(Window, skip=app.strip) == [], faults(Window, skip=app.strip)
    history.refresh()
    await tap(app, history.ids.export_csv)
    await tap(app, history.popup.ids.close)  # the popup says where the file went
    await tap(app, history.ids.export_bgstats)
    folder = Path(app.svc.config.database_path).parent / "exports"
    csv_text = (folder / "plays.csv").read_text()
    bgstats = json.loads(next(folder.glob("play-*.bgstats.json")).read_text())
    assert csv_text.count("Dragon's Gold") == 4
    assert sorted(p["name"] for p in bgstats["players"] if p["winner"]) == ["A", "B"]
    result(exported=sorted(p.name for p in folder.iterdir()))


# --- the sharing dialog's countdown, the kill's defaults, the score rows -----------------------


SEEN: dict[str, list[str]] = {}
"""The layout checker's faults in each dialog and page the journey met (tests/ui/layout.py)."""


def _popup(app: Any, kind: str) -> Any:
    from kivy.core.window import Window

    from tests.ui.layout import faults

    popup = next(w for w in app.root_window.children if type(w).__name__ == kind)
    SEEN.setdefault(kind, []).extend(f for f in faults(Window) if f not in SEEN.get(kind, []))
    return popup


def _button(widget: Any, text: str) -> Any:
    return next(w for w in widget.walk() if getattr(w, "text", None) == text and hasattr(w, "on_release"))


async def _turn_up(app: Any, game: Any, slot: int, strength_plus: int = 0, hidden_plus: int = 0) -> None:
    """Turn up a dragon by taps: the dialog's 8 / 3 / 2, then + on strength and hidden."""
    card = list(reversed(game.ids.row.children))[slot]
    await tap(app, _button(card, "Turn up a dragon"))
    popup = _popup(app, "RevealPopup")
    for _ in range(strength_plus):
        await tap(app, _button(popup.ids.strength, "+"), 0.02)
    for _ in range(hidden_plus):
        await tap(app, _button(popup.ids.hidden, "+"), 0.02)
    await tap(app, popup.ids.ok)


async def _send(app: Any, game: Any, slot: int, role: str | None = None, plus: int = 0,
                player: str | None = None) -> Any:
    """Open Send on *slot*, optionally choose the player and the role, tap + *plus* times, Send.
    Returns the dialog as it opened (its player, role and strength before any tap)."""
    card = list(reversed(game.ids.row.children))[slot]
    await tap(app, _button(card, "Send an adventurer"))
    popup = _popup(app, "PlacePopup")
    opened = {"player": popup.player, "role": popup.role, "strength": int(popup.ids.strength.value)}
    if player is not None:
        await tap(app, next(w for w in popup.ids.players.children if w.text == player))
    if role is not None:
        await tap(app, getattr(popup.ids, role))
    for _ in range(plus):
        await tap(app, _button(popup.ids.strength, "+"), 0.02)
    await tap(app, popup.ids.ok)
    return opened


async def dragons_gold_sharing_countdown(app: Any) -> None:
    """Two players kill a dragon: the sharing dialog shows the negotiation's countdown ticking
    down in the timer screen's colours; Pause freezes it under a PAUSED band, +10 s adds to the
    session's own timer, Resume runs it again, Deal reached stops it. (Config: negotiation 10 s,
    warnings at 8 s and 5 s.)"""
    from kivy.core.window import Window

    from companion.durations import to_duration_text
    from companion.timers import Phase
    from companion.ui.theme import THEME
    from companion.ui.timer import PAUSED_SAND
    from tests.ui.layout import faults

    await start_game(app, "Dragon's Gold", ("P1", "P2", "P3"))
    game = screen(app, "game:dragons-gold")
    session = app.svc.session
    await _turn_up(app, game, 0)  # strength 8
    await _send(app, game, 0, plus=4)  # P1's knight, 5
    await _send(app, game, 0, plus=2)  # P2's knight, 3: 8 >= 8
    kill = _popup(app, "KillPopup")
    await tap(app, kill.ids.ok)
    sharing = _popup(app, "SharingPopup")
    timer = session.board["negotiation"]
    assert sharing.negotiating and timer.phase is Phase.RUNNING
    first = sharing.digits
    assert first == "0:10", first  # nothing has run yet: the journey moves the app's clock
    await pass_time(app, 1.0)
    assert sharing.digits == "0:09", sharing.digits  # ticking down, in the dialog
    assert sharing.sand[:3] == list(THEME.primary)[:3]
    await pass_time(app, 1.0)  # 8 s left: the first warning
    assert sharing.sand[:3] == list(THEME.amber)[:3] and sharing.digits == "0:08", (sharing.sand, sharing.digits)
    await pass_time(app, 2.5)
    assert sharing.sand[:3] == list(THEME.amber)[:3] and sharing.digits == "0:06", (sharing.sand, sharing.digits)
    await pass_time(app, 0.5)  # 5 s left: the last warning
    assert sharing.sand[:3] == list(THEME.red)[:3] and sharing.digits == "0:05", (sharing.sand, sharing.digits)
    layout = faults(Window)
    await tap(app, sharing.ids.pause)
    timer = session.board["negotiation"]
    assert timer.phase is Phase.PAUSED and sharing.paused and sharing.ids.band.opacity == 1
    assert sharing.sand == PAUSED_SAND and sharing.toggle_text.endswith("Resume")
    left = timer.remaining_s(session.now())
    await app.wait_clock_frames(10)
    assert session.board["negotiation"].remaining_s(session.now()) == left  # frozen
    frozen = sharing.digits
    assert frozen == to_duration_text(left)
    await tap(app, sharing.ids.add)
    timer = session.board["negotiation"]
    assert timer.remaining_s(session.now()) == left + 10 and timer.phase is Phase.PAUSED
    assert sharing.digits == to_duration_text(left + 10) and sharing.digits != frozen
    paused_layout = faults(Window)
    await tap(app, sharing.ids.pause)  # now Resume
    assert session.board["negotiation"].phase is Phase.RUNNING and not sharing.paused
    assert sharing.sand[:3] == list(THEME.primary)[:3] and sharing.ids.band.opacity == 0
    # the dialog gone with the app (a restart resumes the session): Sharing takes it up again
    sharing.dismiss(animation=False)
    await pass_time(app, 1.0)
    left = session.board["negotiation"].remaining_s(session.now())
    await tap(app, _button(list(reversed(game.ids.row.children))[0], "Sharing"))
    sharing = _popup(app, "SharingPopup")
    timer = session.board["negotiation"]
    assert timer.phase is Phase.RUNNING and timer.remaining_s(session.now()) == left, timer  # not begun again
    assert sharing.digits == to_duration_text(left)
    await tap(app, sharing.ids.deal)
    assert session.board["negotiation"].phase is Phase.IDLE and sharing.parent is None
    state = game.state()
    assert state.slots[0].is_empty and state.removed == 0
    result(layout=layout, paused_layout=paused_layout)


async def dragons_gold_kill_defaults(app: Any) -> None:
    """Send opens on the next player, a free adventurer, its last strength; the adventurers on a
    dragon show in their players' colours; the kill's hidden treasure starts at the card's
    number, and the red discs are asked only when a single wizard takes them (§5.6)."""
    from companion.ui.theme import PLAYER_RGB, rgb

    await start_game(app, "Dragon's Gold", ("P1", "P2", "P3"))
    game = screen(app, "game:dragons-gold")
    session = app.svc.session
    colour = {p.name: p.colour for p in session.players}
    await _turn_up(app, game, 0, strength_plus=1, hidden_plus=1)  # strength 9, 3 known, 3 hidden
    opened = [await _send(app, game, 0, role="wizard", plus=1),   # P1's wizard, 2
              await _send(app, game, 0, role="thief"),            # P2's thief, 1
              await _send(app, game, 0, plus=3)]                  # P3's knight, 4
    card = list(reversed(game.ids.row.children))[0]
    chips = list(reversed(card.ids.attackers.children))
    shown = [(chip.text, chip.swatch) for chip in chips]
    assert shown == [(f"{p} · {role} {n}", rgb(PLAYER_RGB[colour[p]]))
                     for p, role, n in (("P1", "wizard", 2), ("P2", "thief", 1), ("P3", "knight", 4))], shown
    assert len({tuple(c.swatch) for c in chips}) == 3
    fourth = await _send(app, game, 0, plus=1)                    # P1 again: the wizard is fighting
    assert [o["player"] for o in opened + [fourth]] == ["P1", "P2", "P3", "P1"]
    assert fourth["role"] == "knight" and opened[0]["role"] == "knight"
    kill = _popup(app, "KillPopup")                               # 2 + 1 + 4 + 2 = 9
    assert kill.ids.hidden.value == 3  # the card's hidden treasure
    assert kill.ask_red and kill.ids.red.opacity == 1  # one wizard: its owner takes the reds first
    await tap(app, _button(kill.ids.red, "+"), 0.02)
    await tap(app, kill.ids.ok)
    sharing = _popup(app, "SharingPopup")
    assert "P1 (1)" in sharing.text
    state = game.state()
    assert state.slots[0].treasure_discs == 6 and state.bag == 126 - 6
    await tap(app, sharing.ids.deal)
    # the next dragon: P1's wizard comes back at the strength it had
    await _turn_up(app, game, 0)
    again = await _send(app, game, 0, player="P1", role="wizard")
    placed = game.state().slots[0].dragon.attackers[-1]
    assert (placed.player, placed.role.value, placed.strength) == ("P1", "wizard", 2)
    assert again["player"] == "P2"  # after P1's knight, the next seat
    from kivy.core.window import Window

    from tests.ui.layout import faults

    SEEN["play"] = faults(Window)
    result(hidden=3, colours=[c[1] for c in shown], layout=SEEN)


async def dragons_gold_score_rows(app: Any) -> None:
    """The final scoring page, reached by taps: each colour's name sits on its own stepper's row
    (its vertical centre inside the stepper's height, left of it), and the layout checker finds
    nothing on the page (names shrunk under 18 px, texts over buttons)."""
    from kivy.core.window import Window

    from companion.ui.lang import TR
    from tests.ui.layout import faults

    await start_game(app, TR._("Dragon's Gold"), ("Anna", "Bence", "Csilla", "Дмитрий", "Eszter", "Фёдор"))
    game = screen(app, "game:dragons-gold")
    await tap(app, game.ids.page_score)
    sheet = game.ids.sheet
    await app.wait_clock_frames(5)
    rows = {}
    for field, label in sheet.labels.items():
        stepper = sheet.counters[field]
        _x, centre_y = label.to_window(*label.center)
        x0, y0 = stepper.to_window(stepper.x, stepper.y)
        _x1, y1 = stepper.to_window(stepper.right, stepper.top)
        right, _y = label.to_window(label.right, label.y)
        assert y0 <= centre_y <= y1, (field, centre_y, y0, y1)
        assert right <= x0, (field, right, x0)
        assert label.font_size >= 18 and not label.overflows, (field, label.font_size)
        rows[field] = round((centre_y - y0) / (y1 - y0), 2)
    plus = _button(sheet.counters["purple"], "+")
    await tap(app, plus)
    assert app.svc.session.score_sheet["Anna"]["purple"] == 1
    result(rows=rows, faults=faults(Window))


JOURNEYS = {f.__name__: f for f in (dragons_gold_scoring, dragons_gold_sharing, undo_across_screens,
                                     history_after_scoring, dragons_gold_sharing_countdown,
                                     dragons_gold_kill_defaults, dragons_gold_score_rows)}
