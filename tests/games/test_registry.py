"""The game registry: a fifth game is its folder and one line in ``PACKAGES``; every fold keeps
the one error policy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import companion.games
from companion.games import find_game, games
from companion.history import game_name

ROOT = Path(__file__).resolve().parents[2]
TOY = "tests.support.toy_game"
PLAYERS = ["Anna", "Bence", "Csilla"]


@pytest.fixture
def toy_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(companion.games, "PACKAGES", (*companion.games.PACKAGES, TOY))


def registered_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """The real ``companion`` command in its own process, the toy game's line added to the registry."""
    code = (f"import sys, companion.games as g; g.PACKAGES += ({TOY!r},); from companion.cli import main; "
            "sys.exit(main(sys.argv[1:]))")
    return subprocess.run([sys.executable, "-c", code, *args], input=stdin, capture_output=True, text=True,
                          timeout=60, cwd=ROOT)


def test_the_four_games_in_home_order() -> None:
    assert [g.key for g in games()] == ["dragons-gold", "volatio", "gold", "drakon"]
    assert [g.screen for g in games()] == ["dragons_gold", "volatio", "gold", "drakon"]


@pytest.mark.usefixtures("toy_registered")
def test_a_registered_game_is_found_by_key_alias_and_name() -> None:
    assert games()[-1].key == "toy-race"
    assert find_game("Toy").title == "Toy Race" and find_game("toy race").key == "toy-race"
    assert game_name("toy-race") == "Toy Race"


def test_an_unregistered_game_keeps_its_stored_key_as_its_name() -> None:
    assert game_name("toy-race") == "toy-race"
    assert game_name("timer") == "Sand-timer" and game_name("drakon") == "Drakon"


@pytest.mark.slow
def test_the_cli_scores_a_registered_game_and_lists_it() -> None:
    done = registered_cli("score", "toy", "-", "--json",
                          stdin=json.dumps({"players": {"Anna": {"steps": 3}, "Bence": {"steps": 5}}}))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"scores": {"Anna": 3, "Bence": 5}, "winners": ["Bence"]}
    helped = registered_cli("score", "--help")
    assert helped.returncode == 0, helped.stderr
    assert "dragons-gold, gold, drakon or toy-race" in " ".join(helped.stdout.split())
    wrong = registered_cli("score", "toy", "-", stdin=json.dumps({"players": {"Anna": {"steps": -1}}}))
    assert wrong.returncode == 2 and "Traceback" not in wrong.stderr, wrong.stderr


KINDS = st.sampled_from(["dg.", "volatio.", "drakon.", "toy.", "play.", ""]).flatmap(
    lambda prefix: st.sampled_from(["reveal", "place", "kill", "deal", "step", "finish", "counts", "x"]).map(
        lambda move: prefix + move))
DATA = st.dictionaries(st.sampled_from(["slot", "player", "speed", "count", "counts", "strength", "part"]),
                       st.one_of(st.integers(-3, 99), st.sampled_from(PLAYERS + ["", "base"]), st.none()),
                       max_size=4)


@pytest.mark.usefixtures("toy_registered")
@given(st.lists(st.tuples(KINDS, DATA, st.floats(0, 1e6)), max_size=12))
def test_no_fold_raises_for_a_move_it_refuses(log: list[tuple[str, dict, float]]) -> None:
    for game in games():
        if game.fold is not None:
            game.fold(PLAYERS, log, rules=None)  # refused moves are skipped (with a warning), never raised
