from __future__ import annotations

import csv
import io
import json
import math
import re
import unicodedata
from dataclasses import replace
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import InvalidInput
from companion.export import (
    BGSTATS_LINK_BASE,
    CSV_FIELDS,
    FinishedPlay,
    PlayerResult,
    check_play,
    play_id,
    player_id,
    to_bgstats,
    to_bgstats_link,
    to_csv,
)
from companion.games import games

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
T0 = 1_740_855_900.0  # 2025-03-01T19:05:00Z

# The push format's documented fields (bgstatsapp.com, "Push plays to BG Stats from other apps
# or websites"): name -> (JSON types, always written by us). "Always" is every field the
# page marks as needed plus the four booleans the Android app is reported to insist on.
TOP_FIELDS: dict[str, tuple[tuple[type, ...], bool]] = {
    "sourceName": ((str,), True), "sourcePlayId": ((str,), True), "playDate": ((str,), True),
    "durationMin": ((int,), True), "game": ((dict,), True), "players": ((list,), True),
    "location": ((str,), False), "comments": ((str,), False), "board": ((str,), False),
}
GAME_FIELDS: dict[str, tuple[tuple[type, ...], bool]] = {
    "name": ((str,), True), "sourceGameId": ((str,), True), "highestWins": ((bool,), True),
    "noPoints": ((bool,), True), "bggId": ((int,), False),
}
PLAYER_FIELDS: dict[str, tuple[tuple[type, ...], bool]] = {
    "name": ((str,), True), "sourcePlayerId": ((str,), True), "winner": ((bool,), True),
    "startPlayer": ((bool,), True), "score": ((int, float), False), "rank": ((int,), False),
    "role": ((str,), False),
}


def drakon_play(**changes: Any) -> FinishedPlay:
    play = FinishedPlay(
        game_key="drakon", game_name="Drakon", bgg_id=23107, started_wall=T0, ended_wall=T0 + 47 * 60 + 40,
        players=(
            PlayerResult("Kovács Ádám", 10, True, colour="piros", start_player=True, rank=1),
            PlayerResult("Дмитрий", 7.5, False, colour="синий", rank=2),
            PlayerResult("Ősz Örs", 3, False, rank=3),
        ),
        location="Budapest, Király utca", comment="Sárkány ébren — дракон не спит")
    return replace(play, **changes)


def assert_fields(obj: dict[str, Any], spec: dict[str, tuple[tuple[type, ...], bool]], where: str) -> None:
    assert set(obj) <= set(spec), f"{where}: undocumented {set(obj) - set(spec)}"
    for key, (types, always) in spec.items():
        if always:
            assert key in obj, f"{where}.{key} missing"
        if key in obj:
            assert isinstance(obj[key], types), f"{where}.{key}: {obj[key]!r}"
            if bool not in types:
                assert not isinstance(obj[key], bool), f"{where}.{key}: {obj[key]!r}"


def test_bgstats_json_has_every_documented_field_with_its_type() -> None:
    doc = json.loads(to_bgstats(drakon_play()))
    assert_fields(doc, TOP_FIELDS, "play")
    assert_fields(doc["game"], GAME_FIELDS, "game")
    for i, seat in enumerate(doc["players"]):
        assert_fields(seat, PLAYER_FIELDS, f"players[{i}]")


def test_bgstats_json_carries_the_play() -> None:
    doc = json.loads(to_bgstats(drakon_play()))
    assert doc == {
        "sourceName": "Table companion",
        "sourcePlayId": play_id(drakon_play()),
        "playDate": "2025-03-01 19:52:40",
        "durationMin": 48,
        "location": "Budapest, Király utca",
        "comments": "Sárkány ébren — дракон не спит",
        "game": {"name": "Drakon", "sourceGameId": "drakon", "bggId": 23107, "highestWins": True,
                 "noPoints": False},
        "players": [
            {"name": "Kovács Ádám", "sourcePlayerId": player_id("Kovács Ádám"), "score": 10, "winner": True,
             "startPlayer": True, "rank": 1, "role": "piros"},
            {"name": "Дмитрий", "sourcePlayerId": player_id("Дмитрий"), "score": 7.5, "winner": False,
             "startPlayer": False, "rank": 2, "role": "синий"},
            {"name": "Ősz Örs", "sourcePlayerId": player_id("Ősz Örs"), "score": 3, "winner": False,
             "startPlayer": False, "rank": 3},
        ],
    }


def test_bgstats_ids_are_pinned_uuid5s() -> None:
    # Changing these makes BG Stats treat every player and play it has had from us as new.
    assert player_id("Kovács Ádám") == "32430cca-bf1d-5ceb-8cdc-e865a7de1814"
    assert play_id(drakon_play()) == "eb585303-6c2d-572f-ac20-372abbdb6dcf"


def test_bgstats_ids_resolve_consistently() -> None:
    play = drakon_play()
    doc = json.loads(to_bgstats(play))
    ids = [seat["sourcePlayerId"] for seat in doc["players"]]
    assert len(set(ids)) == len(play.players)
    assert all(UUID.match(i) for i in ids + [doc["sourcePlayId"]])
    assert doc["game"]["sourceGameId"] == play.game_key
    # The same person keeps the same id in another game, which is what BG Stats' remembered match needs.
    other = FinishedPlay("gold", "Gold!", None, T0 + 7200, T0 + 9000,
                         (PlayerResult("kovács ádám ", 31, True), PlayerResult("Дмитрий", 28, False)))
    other_ids = {s["name"]: s["sourcePlayerId"] for s in json.loads(to_bgstats(other))["players"]}
    assert other_ids["kovács ádám "] == ids[0]
    assert other_ids["Дмитрий"] == ids[1]
    assert json.loads(to_bgstats(other))["sourcePlayId"] != doc["sourcePlayId"]


def test_bgstats_winners_and_start_player_marked() -> None:
    doc = json.loads(to_bgstats(drakon_play()))
    assert [s["winner"] for s in doc["players"]] == [True, False, False]
    assert [s["startPlayer"] for s in doc["players"]] == [True, False, False]


def test_bgstats_keeps_non_ascii_text_as_written() -> None:
    text = to_bgstats(drakon_play())
    for word in ("Kovács Ádám", "Дмитрий", "Ősz Örs", "синий", "Király", "дракон не спит"):
        assert word in text
    assert "\\u" not in text
    text.encode("utf-8")  # and it is valid UTF-8


def test_bgstats_output_is_deterministic() -> None:
    assert to_bgstats(drakon_play()) == to_bgstats(drakon_play())
    assert to_bgstats(drakon_play(), source="X") != to_bgstats(drakon_play())


def test_bgstats_same_play_keeps_its_id_when_a_score_is_corrected() -> None:
    corrected = drakon_play(players=(replace(drakon_play().players[0], score=11),) + drakon_play().players[1:])
    assert play_id(corrected) == play_id(drakon_play())
    assert play_id(drakon_play(started_wall=T0 + 1)) != play_id(drakon_play())


def test_bgstats_leaves_out_what_is_not_known() -> None:
    race = FinishedPlay("volatio", "Volatio", None, T0, T0 + 29,
                        (PlayerResult("Anna", None, True), PlayerResult("Béla", None, False)))
    doc = json.loads(to_bgstats(race))
    assert doc["game"] == {"name": "Volatio", "sourceGameId": "volatio", "highestWins": True, "noPoints": True}
    assert doc["players"] == [
        {"name": "Anna", "sourcePlayerId": player_id("Anna"), "winner": True, "startPlayer": False},
        {"name": "Béla", "sourcePlayerId": player_id("Béla"), "winner": False, "startPlayer": False},
    ]
    assert "location" not in doc and "comments" not in doc
    assert doc["durationMin"] == 0  # 29 s rounds to no minutes


def test_bgstats_play_date_is_the_end_in_utc_to_the_second() -> None:
    doc = json.loads(to_bgstats(drakon_play(started_wall=0.0, ended_wall=86_399.999)))
    assert doc["playDate"] == "1970-01-01 23:59:59"
    assert doc["durationMin"] == 1440


def test_bgstats_link_carries_the_json() -> None:
    link = to_bgstats_link(drakon_play())
    assert link.startswith(BGSTATS_LINK_BASE)
    assert " " not in link and "Д" not in link
    assert parse_qs(urlsplit(link).query)["data"] == [to_bgstats(drakon_play())]


def test_bgstats_refuses_a_blank_source() -> None:
    with pytest.raises(InvalidInput) as info:
        to_bgstats(drakon_play(), source="  ")
    assert info.value.field == "source"


def test_csv_round_trips_through_dictreader() -> None:
    play = drakon_play(players=drakon_play().players + (PlayerResult('Anna "Hat", Jr.', None, False),))
    text = to_csv([play, play])
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert tuple(rows[0]) == CSV_FIELDS
    assert len(rows) == 8
    assert rows[0] == {"date": "2025-03-01T19:05:00Z", "game": "Drakon", "player": "Kovács Ádám", "colour": "piros",
                       "score": "10", "winner": "true", "rank": "1", "duration_min": "48"}
    assert rows[1]["player"] == "Дмитрий" and rows[1]["score"] == "7.5" and rows[1]["colour"] == "синий"
    assert rows[3] == {"date": "2025-03-01T19:05:00Z", "game": "Drakon", "player": 'Anna "Hat", Jr.', "colour": "",
                       "score": "", "winner": "false", "rank": "", "duration_min": "48"}
    assert '"Anna ""Hat"", Jr."' in text  # RFC 4180: quoted, inner quotes doubled
    assert text.endswith("\r\n") and "\r\n" in text.split("Drakon", 1)[0]


def test_csv_of_no_plays_is_the_header() -> None:
    assert to_csv([]) == ",".join(CSV_FIELDS) + "\r\n"


@pytest.mark.parametrize(("play", "field"), [
    (drakon_play(players=()), "players"),
    (drakon_play(players=(PlayerResult("Anna", 1, True), PlayerResult(" anna ", 2, False))), "players[1].name"),
    (drakon_play(players=(PlayerResult("ANNA", 1, True), PlayerResult("Anna", 2, False))), "players[1].name"),
    (drakon_play(players=(PlayerResult("  ", 1, True),)), "players[0].name"),
    (drakon_play(players=(PlayerResult("An\nna", 1, True),)), "players[0].name"),
    (drakon_play(players=(PlayerResult("Anna", math.nan, True),)), "players[0].score"),
    (drakon_play(players=(PlayerResult("Anna", 1, True), PlayerResult("Béla", math.inf, False))), "players[1].score"),
    (drakon_play(players=(PlayerResult("Anna", 1, True, rank=0),)), "players[0].rank"),
    (drakon_play(players=(PlayerResult("Anna", 1, True, start_player=True),
                          PlayerResult("Béla", 1, True, start_player=True))), "players[1].start_player"),
    (drakon_play(ended_wall=T0 - 1), "ended_wall"),
    (drakon_play(started_wall=math.nan), "started_wall"),
    (drakon_play(ended_wall=1e300), "ended_wall"),
    (drakon_play(started_wall=-1.0), "started_wall"),
    (drakon_play(game_key=" "), "game_key"),
    (drakon_play(game_name=""), "game_name"),
    (drakon_play(bgg_id=0), "bgg_id"),
])
def test_check_play_refuses_and_names_the_field(play: FinishedPlay, field: str) -> None:
    with pytest.raises(InvalidInput) as info:
        check_play(play)
    assert info.value.field == field
    assert str(info.value).startswith(f"{field}: ")
    assert repr(info.value.value) in str(info.value)
    with pytest.raises(InvalidInput):
        to_bgstats(play)


def test_csv_names_the_play_of_a_bad_field() -> None:
    bad = drakon_play(players=(PlayerResult("Anna", math.nan, True),))
    with pytest.raises(InvalidInput) as info:
        to_csv([drakon_play(), bad])
    assert info.value.field == "plays[1].players[0].score"


def test_check_play_accepts_a_play_without_winners_or_scores() -> None:
    check_play(FinishedPlay("volatio", "Volatio", None, T0, T0, (PlayerResult("Anna", None, False),)))


def test_bgg_ids_are_positive_where_known() -> None:
    ids = {g.key: g.bgg_id for g in games()}
    assert all(i is None or (isinstance(i, int) and not isinstance(i, bool) and i > 0) for i in ids.values())
    assert ids["dragons-gold"] is None and ids["drakon"] == 23107


# --- properties ---------------------------------------------------------------------------

def name_key(name: str) -> str:
    return unicodedata.normalize("NFC", name.strip()).casefold()


names = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=12).filter(
    lambda s: bool(s.strip()))
scores = st.one_of(st.none(), st.integers(-10**6, 10**6), st.floats(allow_nan=False, allow_infinity=False))


@st.composite
def plays(draw: st.DrawFn) -> FinishedPlay:
    seat_names = draw(st.lists(names, min_size=1, max_size=6, unique_by=name_key))
    starter = draw(st.none() | st.integers(0, len(seat_names) - 1))
    seats = tuple(
        PlayerResult(name, draw(scores), draw(st.booleans()), colour=draw(st.none() | names),
                     start_player=(i == starter), rank=draw(st.none() | st.integers(1, 6)))
        for i, name in enumerate(seat_names))
    started = draw(st.floats(0, 4e9))
    return FinishedPlay(draw(st.sampled_from(["dragons-gold", "volatio", "gold", "drakon"])), draw(names),
                        draw(st.none() | st.integers(1, 500_000)), started, started + draw(st.floats(0, 2 * 86_400)),
                        seats, location=draw(st.none() | names), comment=draw(st.text(max_size=30)))


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(plays())
def test_any_valid_play_exports_to_bgstats_and_reads_back(play: FinishedPlay) -> None:
    doc = json.loads(to_bgstats(play))
    assert_fields(doc, TOP_FIELDS, "play")
    assert_fields(doc["game"], GAME_FIELDS, "game")
    assert [s["name"] for s in doc["players"]] == [p.name for p in play.players]
    for seat, player in zip(doc["players"], play.players, strict=True):
        assert_fields(seat, PLAYER_FIELDS, "seat")
        assert seat.get("score") == player.score
        assert seat["winner"] is player.is_winner
        assert seat.get("rank") == player.rank
    assert len({s["sourcePlayerId"] for s in doc["players"]}) == len(play.players)
    assert doc["durationMin"] >= 0


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(plays(), max_size=3))
def test_any_valid_plays_export_to_csv_and_read_back(batch: list[FinishedPlay]) -> None:
    rows = list(csv.DictReader(io.StringIO(to_csv(batch), newline="")))
    seats = [(play, player) for play in batch for player in play.players]
    assert len(rows) == len(seats)
    for row, (play, player) in zip(rows, seats, strict=True):
        assert (row["game"], row["player"], row["colour"]) == (play.game_name, player.name, player.colour or "")
        assert row["winner"] == ("true" if player.is_winner else "false")
        if player.score is None:
            assert row["score"] == ""
        elif isinstance(player.score, float):
            assert float(row["score"]) == player.score
        else:
            assert int(row["score"]) == player.score
        assert int(row["duration_min"]) == play.duration_min


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.data())
def test_bgstats_output_is_the_same_play_whatever_the_seat_order(data: st.DataObject) -> None:
    # The players array keeps the given (seat) order, since BG Stats keeps a seat order and the
    # format does not call it irrelevant; everything else, the ids included, must not move.
    play = data.draw(plays())
    shuffled = replace(play, players=tuple(data.draw(st.permutations(play.players))))
    a, b = json.loads(to_bgstats(play)), json.loads(to_bgstats(shuffled))
    assert [s["name"] for s in b["players"]] == [p.name for p in shuffled.players]
    for doc in (a, b):
        doc["players"].sort(key=lambda s: s["sourcePlayerId"])
    assert a == b
