"""Journeys through the History screen: the "All games" chart's legend, one colour a player."""

from __future__ import annotations

from typing import Any

from tests.ui.kit import find, result, screen, tap

PLAYS = (
    (("Anna", "red", 4), ("Bob", "blue", 6), ("Csilla", "green", 3)),
    (("Anna", "red", 7), ("Bob", "blue", 5), ("Csilla", "green", 6)),
    (("Anna", "blue", 6), ("Csilla", "green", 8), ("Dávid", "yellow", 5)),
)
"""Three finished Dragon's Gold plays, (name, colour, silver coins) a seat: Anna red, then blue
in the last one, the colour Bob had in his last play."""


def finish_plays(app: Any) -> None:
    """Record :data:`PLAYS` as finished plays, each through a session of its own, scored by the
    game's rules as its scoring page does (the journey is about the chart, not the scoring)."""
    from companion.games import dragons_gold
    from companion.session import Player

    for seats in PLAYS:
        session = app.svc.start_session("dragons-gold", [Player(name, colour) for name, colour, _n in seats])
        for name, _colour, silver in seats:
            session.set_score(name, "silver", silver)
        session.finish_game(dragons_gold.score_document(session.score_document()))
    app.svc.session = None


async def history_legend_colours(app: Any) -> None:
    """Past plays where two players' last colours are alike: on History's "All games" chart each
    line, and its legend entry, has a colour no other has; the result maps each legend name to
    its colour's name, and says whether the chart drew the same colours."""
    from companion.ui.theme import PLAYER_RGB, rgb
    from tests.ui.layout import faults

    finish_plays(app)
    await tap(app, screen(app, "home").ids.history)
    history = screen(app, "history")
    assert app.manager.current == "history" and history.game == ""
    await tap(app, find(app, "TouchButton", "All games"))
    await app.wait_clock_frames(3)
    by_rgba = {tuple(rgb(value)): name for name, value in PLAYER_RGB.items()}
    legend = {label.text.removeprefix("■ "): by_rgba.get(tuple(label.color), str(label.color))
              for label in reversed(history.ids.legend.children)}
    charted = {name: colour for name, colour, _pts in history.series}

    from kivy.core.window import Window

    assert faults(Window, skip=app.strip) == [], faults(Window, skip=app.strip)
    result(legend=legend, same_as_chart=legend == charted)


JOURNEYS = {f.__name__: f for f in (history_legend_colours,)}
