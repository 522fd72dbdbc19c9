"""Drakon on the touch screen: secret coin values behind the cover, the reveal, Heroes!, Finish."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from companion.games.drakon.play import to_coins_text
from companion.i18n import LANGUAGES
from companion.ui.games.drakon_text import side_name
from companion.ui.lang import TR
from tests.processes import run
from tests.ui.journeys.gold import layout_faults, photo_layout
from tests.ui.kit import find, hold, result, screen, start_game, tap, until

# 11 gold: Anna holds the standard goal; Bence 6. Bence sits first: totals follow the table's order.
SECRET = {"Bence": [2, 1, 3], "Anna": [3, 3, 3, 2]}
TEAMS = {"Anna": [3, 3, 2], "Bence": [3, 1], "Csilla": [3, 3, 3, 2], "Dávid": [2, 2]}
TEAM_GOAL = {"Anna": [3, 3, 3], "Csilla": [3, 3, 3, 2]}  # Team A's 20 gold: its goal, before the reveal


def all_texts(app: Any) -> Iterator[str]:
    """Every text of every widget in the window: the screens, the strip, and any cover or popup."""
    for top in app.root_widget.get_root_window().children:
        for widget in top.walk():
            text = getattr(widget, "text", None)
            if isinstance(text, str) and text:
                yield plain(text)


def plain(text: str) -> str:
    """*text* with its no-break spaces (which keep "Team A 19" on one line) as plain ones."""
    return text.replace("\u00a0", " ")


def value_forms(name: str, coins: Sequence[int]) -> list[str]:
    """The ways a coin list or its total could be spelt on a screen."""
    forms = [to_coins_text(coins), json.dumps(list(coins)), str(list(coins)),
             f"{name} {sum(coins)}", f"{name}: {sum(coins)}", f"{sum(coins)} gold"]
    for order in (list(coins), sorted(coins), sorted(coins, reverse=True)):
        forms += [sep.join(str(v) for v in order) for sep in (" ", ", ", "+", " + ", " · ", "·")]
    return forms


def assert_no_values(app: Any, entered: dict[str, list[int]]) -> None:
    for text in all_texts(app):
        for name, coins in entered.items():
            for form in value_forms(name, coins):
                assert form not in text, f"{name}'s secret {coins} shows as {form!r} in {text!r}"


def cli_score(doc: dict[str, Any]) -> dict[str, Any]:
    cli = run([sys.executable, "-m", "companion", "score", "drakon", "--json"],
              input=json.dumps(doc), timeout_s=60)
    assert cli.returncode == 0, cli.stderr
    return dict(json.loads(cli.stdout))


async def start_drakon(app: Any, names: Sequence[str]) -> Any:
    await start_game(app, TR._("Drakon"), names)
    assert app.manager.current == "game:drakon"
    await fits(app)
    return screen(app, "game:drakon")


async def fits(app: Any) -> None:
    """Whatever is on top now (the screen, the cover, a popup) fits at the size this runs."""
    await app.wait_clock_frames(3)
    assert layout_faults(app) == [], layout_faults(app)


def plus_of(stepper: Any) -> Any:
    return next(w for w in stepper.walk() if getattr(w, "text", None) == "+")


async def enter_in_secret(app: Any, sheet: Any, name: str, coins: Sequence[int]) -> None:
    """*name*'s coin values, tapped in behind the cover, and the cover closed again."""
    await tap(app, sheet.cards[name].secret_button)
    cover = sheet.secret
    await tap(app, cover.ids.show)
    for value in coins:
        await tap(app, cover.ids[f"coin{value}"])
    await tap(app, cover.ids.done)
    await tap(app, cover.ids.close)
    await app.wait_clock_frames(3)
    assert cover.parent is None and app.manager.current == "game:drakon"


async def speak(app: Any, lang: str) -> Any:
    """Switch to *lang* by its button on the Home screen, and go back to Drakon's screen."""
    await tap(app, find(app, "TouchButton", TR._("Home")))
    await tap(app, screen(app, "home").ids[f"lang_{lang}"])
    await tap(app, find(app, "TouchButton", TR._("Game")))
    assert TR.lang == lang and app.manager.current == "game:drakon"
    return screen(app, "game:drakon")


async def drakon_secret_scoring(app: Any) -> None:
    """Two players enter their values in secret; the shared screen never shows one; the reveal
    equals `companion score drakon`; a Heroes! counter works once; Finish."""
    sheet = await start_drakon(app, list(SECRET))
    session = app.svc.session

    # The variant: the team game needs 4 or 6 players, so it is refused for two.
    await tap(app, sheet.ids.variant_team)
    assert sheet.variant == "standard" and "variant" not in session.score_options
    assert "4 / 6" in app.strip.note
    await tap(app, sheet.ids.variant_escape)
    assert session.score_options["variant"] == "escape" and "8 gold" in sheet.goal
    await tap(app, sheet.cards["Bence"].flag_button)
    assert session.score_sheet["Bence"]["escaped"] is True
    await fits(app)
    await tap(app, sheet.ids.variant_standard)
    assert session.score_options["variant"] == "standard" and "10 gold" in sheet.goal
    assert sheet.cards["Anna"].flag_button is None

    # Public counts: Anna shows one coin drawn, then two (typed on the count's number pad); her
    # secret entry will make it four.
    stepper = sheet.cards["Anna"].ids.stepper
    await tap(app, plus_of(stepper))
    stepper = sheet.cards["Anna"].ids.stepper
    assert stepper.ids.count.text == "1 coin"
    await tap(app, stepper.ids.count)
    await until(app, lambda: stepper.pad is not None and stepper.pad.parent is not None)
    pad = stepper.pad
    assert pad.title == "Anna: number of coins"
    await fits(app)
    await tap(app, next(key for key in pad.ids["keys"].children if key.text == "2"))
    await tap(app, pad.ids.ok)
    await until(app, lambda: pad.parent is None)
    await app.wait_clock_frames(3)
    assert [d["count"] for k, d, _t in session.play_log if k == "drakon.count"] == [1, 2]
    assert sheet.cards["Anna"].ids.stepper.value == 2
    assert sheet.cards["Anna"].ids.stepper.ids.count.text == "2 coins"

    # Heroes!: dealt at random; Bence's counter works once and is refused the second time.
    await tap(app, sheet.deal_button)
    assert sheet.deal_button is None and set(sheet.cards) == set(SECRET)
    hero = sheet.cards["Bence"].hero_button
    assert hero.text.endswith("ready"), hero.text
    await tap(app, hero)
    assert sheet.cards["Bence"].hero_button.text.endswith("used")
    assert "used the" in app.strip.note
    await tap(app, sheet.cards["Bence"].hero_button)
    assert "once per game" in app.strip.note
    assert [d for k, d, _t in session.play_log if k == "drakon.ability"] == [{"player": "Bence"}]
    await fits(app)

    # The secret entries, each behind the cover; after each, no value anywhere in the window.
    entered: dict[str, list[int]] = {}
    for name, coins in SECRET.items():
        await tap(app, sheet.cards[name].secret_button)
        cover = sheet.secret
        assert cover.stage == "cover" and name in cover.ids.pass_to.text
        assert_no_values(app, entered)
        await fits(app)
        await tap(app, cover.ids.show)
        assert cover.stage == "entry"
        await tap(app, cover.ids.coin1)
        assert cover.total_text == "1 gold in one coin", cover.total_text
        await tap(app, cover.ids.take_back)  # a slip taken back
        for value in coins:
            await tap(app, cover.ids[f"coin{value}"])
        assert cover.coins_text == to_coins_text(coins)  # on the private page only
        await fits(app)
        table = sheet.cards[name].ids.stepper.value
        if table:  # a count set on the table that the entry changes: Done asks first, on this page
            assert table != len(coins)
            await tap(app, cover.ids.done)
            assert cover.stage == "entry" and "coins" not in session.score_sheet.get(name, {})
            assert cover.message == f"The table says {table}, you entered {len(coins)}: Done again saves {len(coins)}"
            await fits(app)
        await tap(app, cover.ids.done)
        entered[name] = coins
        assert cover.stage == "done"
        assert_no_values(app, entered)
        await fits(app)
        await tap(app, cover.ids.close)
        await app.wait_clock_frames(3)
        assert cover.parent is None and app.manager.current == "game:drakon"
        assert_no_values(app, entered)
        assert session.score_sheet[name]["coins"] == coins
        assert sheet.cards[name].ids.stepper.value == len(coins)  # the count followed: no secret
        assert sheet.cards[name].secret_button.text.startswith("Coins entered")
    assert "Goal reached: Anna" in plain(sheet.summary)  # who, never how much
    assert "Secret coins entered: 2 of 2" in plain(sheet.summary), sheet.summary

    # A coin lost since (the public count lowered): that entry no longer counts until made again.
    last = list(entered)[-1]
    await tap(app, next(w for w in sheet.cards[last].ids.stepper.walk() if getattr(w, "text", None) == "−"))
    await app.wait_clock_frames(2)
    assert sheet.cards[last].secret_button.text.startswith("Coins changed"), sheet.cards[last].secret_button.text
    assert "Secret coins entered: 1 of 2" in plain(sheet.summary), sheet.summary
    await tap(app, plus_of(sheet.cards[last].ids.stepper))
    await app.wait_clock_frames(2)
    assert "Secret coins entered: 2 of 2" in plain(sheet.summary), sheet.summary

    # A tap does not reveal; a hold does.
    await tap(app, sheet.reveal_button)
    assert not sheet.revealed and "Hold" in app.strip.note
    assert_no_values(app, entered)
    await hold(app, sheet.reveal_button)
    await app.wait_clock_frames(3)
    assert sheet.revealed
    # Undo turns the coins face down again: no value left on the screen; Redo reveals them again.
    await tap(app, app.nav.ids.undo)
    await app.wait_clock_frames(3)
    assert not sheet.revealed and app.strip.note == "Undone: the reveal"
    assert_no_values(app, entered)
    await tap(app, app.nav.ids.redo)
    await app.wait_clock_frames(3)
    assert sheet.revealed
    await fits(app)
    expected = cli_score(session.score_document())
    for name, gold in expected["totals"].items():
        assert f"{name} {gold}" in plain(sheet.summary), (sheet.summary, expected)
        assert sheet.reveal_rows[name].total_text == str(gold)
        assert sheet.reveal_rows[name].coins_text == to_coins_text(SECRET[name])
    assert expected["goal_reached"] == ["Anna"] and "Goal reached: Anna" in plain(sheet.summary)
    assert "Most gold: " + ", ".join(expected["leaders"]) in plain(sheet.summary)

    await tap(app, sheet.finish_button)
    assert session.result == expected
    popup = next(w for w in app.root_widget.get_root_window().children if type(w).__name__ == "ResultsPopup")
    assert popup.winners == ["Anna"] and popup.scores == expected["totals"]
    assert list(popup.scores) == ["Bence", "Anna"] and "Bence 6 · Anna 11" in plain(sheet.summary), sheet.summary
    await fits(app)
    result(totals=expected["totals"], goal_reached=expected["goal_reached"], leaders=expected["leaders"])


async def drakon_team_reveal(app: Any) -> None:
    """Four players, the team game; every value entered openly at the reveal; team totals match
    `companion score drakon`."""
    sheet = await start_drakon(app, list(TEAMS))
    session = app.svc.session
    await tap(app, sheet.ids.variant_team)
    assert session.score_options["variant"] == "team"
    teams = {name: session.score_sheet[name]["team"] for name in TEAMS}
    assert teams == {"Anna": "A", "Bence": "B", "Csilla": "A", "Dávid": "B"}  # alternating seats
    await tap(app, sheet.cards["Bence"].flag_button)  # Bence to A: three in A is refused by the rules
    assert session.score_sheet["Bence"]["team"] == "A" and "teams are pairs" in plain(sheet.summary)
    await tap(app, sheet.cards["Bence"].flag_button)
    assert session.score_sheet["Bence"]["team"] == "B" and "teams are pairs" not in plain(sheet.summary)
    await fits(app)
    await hold(app, sheet.reveal_button)
    await app.wait_clock_frames(3)
    assert sheet.revealed
    for name, coins in TEAMS.items():
        row = sheet.reveal_rows[name]
        for value in coins:
            await tap(app, row.ids[f"add{value}"])
            row = sheet.reveal_rows[name]
    await fits(app)
    expected = cli_score(session.score_document())
    assert expected["team_totals"] == {"A": 19, "B": 8}
    for team, gold in expected["team_totals"].items():
        assert f"Team {team} {gold}" in plain(sheet.summary), sheet.summary
    for name, gold in expected["totals"].items():
        assert f"{name} {gold}" in plain(sheet.summary)
    assert "Nobody reached the goal" in plain(sheet.summary) and "Most gold: Team A" in plain(sheet.summary)
    await tap(app, sheet.finish_button)
    assert session.result == expected
    await fits(app)
    # A value found wrong once the results are up: closed, put right (Undo) and Finish again:
    # the new result is the one logged (once), the one History and the exports read.
    popup = next(w for w in app.root_window.children if type(w).__name__ == "ResultsPopup")
    await tap(app, next(w for w in popup.walk() if type(w).__name__ == "TouchButton" and w.text == "Close"))
    assert popup.parent is None
    await tap(app, app.nav.ids.undo)
    await app.wait_clock_frames(3)
    corrected = cli_score(session.score_document())
    assert corrected["team_totals"] != expected["team_totals"]
    await tap(app, sheet.finish_button)
    assert session.result == corrected
    logged = [e.data["result"] for e in session.store.events(session.id) if e.kind == "game.finished"]
    assert logged == [expected, corrected]
    result(team_totals=expected["team_totals"], leaders=expected["leaders"])


async def drakon_team_summary_every_language(app: Any) -> None:
    """The team game's summary line fits in every language the app ships: before the reveal, when
    it says that a team holds the goal and to hold the button (the longest it gets), and after
    it, with the players' and the teams' totals."""
    sheet = await start_drakon(app, list(TEAMS))
    await tap(app, sheet.ids.variant_team)
    for name, coins in TEAM_GOAL.items():
        await enter_in_secret(app, sheet, name, coins)
    for lang in LANGUAGES:
        sheet = await speak(app, lang)
        reached = TR._("Goal reached: {sides}. Hold to reveal.").format(sides=side_name("A", "team"))
        assert reached in sheet.summary, sheet.summary
        await fits(app)
    await hold(app, sheet.reveal_button)
    await app.wait_clock_frames(3)
    assert sheet.revealed
    for lang in LANGUAGES:
        sheet = await speak(app, lang)
        assert plain(f"{side_name('A', 'team')} 20") in plain(sheet.summary), sheet.summary
        await fits(app)
    result(languages=list(LANGUAGES))


async def drakon_photo_layout(app: Any) -> None:
    """At the reveal, a player's photo popup and its coin picker fit the screen."""
    sheet = await start_drakon(app, ["Anna", "Bence", "Csilla"])
    await hold(app, sheet.reveal_button)
    await app.wait_clock_frames(3)
    assert sheet.revealed
    await fits(app)
    before = app.svc.session.score_document()
    picker = await photo_layout(app, sheet.photo, sheet.reveal_rows["Anna"].ids.photo)
    assert app.svc.session.score_document() == before   # cancelled: nothing applied
    result(values=sorted(picker.value_buttons), columns=picker.columns)


JOURNEYS = {f.__name__: f for f in (drakon_secret_scoring, drakon_team_reveal, drakon_team_summary_every_language,
                                     drakon_photo_layout)}
