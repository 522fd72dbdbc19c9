"""The History chart's line colours (companion/ui/history.py's ``line_colours``): one palette
colour a charted player, none shared, each player's latest colour kept where no one else's
latest was the same. No window: the journey on the screen is tests/ui/test_history_journeys.py."""

from __future__ import annotations

import os

os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_FILELOG", "1")

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from companion.export import FinishedPlay, PlayerResult  # noqa: E402
from companion.session import PLAYER_COLOURS  # noqa: E402
from companion.ui.history import MAX_LINES, chart_series, line_colours  # noqa: E402

Seat = tuple[str, str | None, int | None]
"""(name, colour, score) of one seat; a score of None is a seat the chart leaves out."""


def plays(*tables: list[Seat]) -> list[tuple[int, FinishedPlay]]:
    """Finished plays, oldest first, one a table of seats."""
    return [(sid, FinishedPlay(game_key="dragons-gold", game_name="Dragon's Gold", bgg_id=None, started_wall=0.0,
                               ended_wall=0.0, players=tuple(PlayerResult(name, score, False, colour)
                                                             for name, colour, score in table)))
            for sid, table in enumerate(tables, start=1)]


def legend(found: list[tuple[int, FinishedPlay]]) -> dict[str, str]:
    return {name: colour for name, colour, _pts in chart_series(found)}


def test_line_colours_keep_each_latest_colour_no_one_else_had() -> None:
    found = plays([("Anna", "red", 5), ("Bob", "green", 3)], [("Anna", "purple", 4), ("Bob", "blue", 6)])
    assert legend(found) == {"Anna": "purple", "Bob": "blue"}


def test_line_colours_latest_wearer_keeps_a_shared_colour_the_other_takes_an_old_one() -> None:
    found = plays([("Anna", "red", 5), ("Bob", "green", 3)], [("Bob", "blue", 2), ("Csilla", "red", 4)],
                  [("Anna", "blue", 4), ("Csilla", "yellow", 1)])
    # Bob's last colour was blue, which Anna wore after him; his green before it is free.
    assert legend(found) == {"Anna": "blue", "Bob": "green", "Csilla": "yellow"}


def test_line_colours_take_the_palette_in_order_when_a_players_own_are_taken() -> None:
    found = plays([("Anna", "red", 5), ("Bob", "blue", 3)], [("Anna", "blue", 4), ("Csilla", "green", 1)])
    assert legend(found) == {"Anna": "blue", "Bob": "red", "Csilla": "green"}


def test_line_colours_a_tie_goes_to_the_first_charted() -> None:
    found = plays([("Bob", "green", 2)], [("Anna", "red", 5), ("Bob", "red", 3)])  # a clash in one play
    assert legend(found) == {"Bob": "red", "Anna": "blue"}  # Bob, with two plays, is charted first


def test_line_colours_give_every_charted_player_one_when_none_had_a_colour() -> None:
    names = [f"P{i}" for i in range(MAX_LINES)]
    found = plays([(name, None, i) for i, name in enumerate(names)], [(name, "mauve", 1) for name in names])
    assert sorted(legend(found).values()) == sorted(PLAYER_COLOURS)


seats = st.tuples(st.sampled_from(["Anna", "Bob", "Csilla", "Dávid", "Erik", "Feri", "Gábor", "Hanna", "Ivan"]),
                  st.sampled_from([*PLAYER_COLOURS, None, "", "mauve"]),
                  st.one_of(st.none(), st.integers(-5, 60)))


@given(st.lists(st.lists(seats, min_size=1, max_size=6), max_size=8))
def test_line_colours_are_palette_colours_none_shared_latest_kept_if_unique(tables: list[list[Seat]]) -> None:
    found = plays(*tables)
    series = chart_series(found)
    names = [name for name, _c, _pts in series]
    colours = line_colours(found, names)
    assert [colour for _n, colour, _pts in series] == [colours[n] for n in names]
    assert all(c in PLAYER_COLOURS for c in colours.values()), colours
    assert len(set(colours.values())) == len(names), colours
    latest: dict[str, str] = {}
    for _sid, play in found:
        for p in play.players:
            if p.name in colours and p.score is not None:
                latest[p.name] = p.colour or ""
    for name, colour in latest.items():
        if colour in PLAYER_COLOURS and list(latest.values()).count(colour) == 1:
            assert colours[name] == colour, (name, colour, colours)
