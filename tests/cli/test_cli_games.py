"""``companion score`` and ``companion rules`` end to end, in real processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = json.loads((Path(__file__).parents[1] / "games" / "dragons_gold_examples.json").read_text())


def companion(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion", *args], input=stdin, capture_output=True,
                          text=True, timeout=60)


@pytest.mark.slow
def test_score_dragons_gold_from_stdin() -> None:
    ex = EXAMPLES["examples"][1]
    done = companion("score", "dragons-gold", "-", "--json",
                     stdin=json.dumps({"rules": ex["rules"], "players": ex["players"]}))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["scores"] == ex["scores"] and out["winners"] == ex["winners"]
    assert set(out["breakdown"]["A"]) >= {"silver", "gold", "red", "black", "majorities", "set_bonus"}


@pytest.mark.slow
def test_score_gold_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "end.json"
    path.write_text(json.dumps({"players": {
        "X": {"scored": ["purple:8", "purple:7", "purple:5", "red:3", "red:3", "red:donkey",
                         "orange:7", "orange:3", "orange:5"], "display": ["blue:8", "green:4"]},
        "Y": {"scored": ["red:8", "red:6", "red:4", "pink:8", "pink:7", "pink:3", "purple:3", "purple:3",
                         "purple:donkey"], "display": ["green:6", "green:donkey", "pink:5"]}}}))
    done = companion("score", "gold", str(path), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"scores": {"X": 51, "Y": 51}, "pile_sizes": {"X": 11, "Y": 11},
                                       "winners": ["X", "Y"]}


@pytest.mark.slow
def test_score_drakon() -> None:
    doc = {"variant": "five-coins", "players": {"A": {"coins": [1, 1, 1, 1, 2]}, "B": {"coins": [3, 3]}}}
    done = companion("score", "drakon", "--json", stdin=json.dumps(doc))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["totals"] == {"A": 6, "B": 6} and out["goal_reached"] == ["A"]


@pytest.mark.slow
def test_score_without_json_prints_a_table() -> None:
    ex = EXAMPLES["examples"][0]
    done = companion("score", "Dragon's Gold", stdin=json.dumps({"rules": "simple", "players": ex["players"]}))
    assert done.returncode == 0
    assert done.stdout.splitlines()[0] == "Dragon's Gold"
    assert "winners: B" in done.stdout


@pytest.mark.parametrize(("args", "stdin", "message"), [
    (["score", "chess"], "{}", "companion: GAME: unknown game (known: dragons-gold, volatio, gold, drakon) (got 'chess')"),
    (["score", "volatio"], "{}", "companion: GAME: Volatio has no end scoring to compute (got 'volatio')"),
    (["score", "gold"], "{nope", "companion: FILE: not valid JSON: Expecting property name enclosed in double quotes at line 1 column 2 (got 'standard input')"),
    (["score", "gold", "/nonexistent.json"], None, "companion: FILE: cannot read it (No such file or directory) (got '/nonexistent.json')"),
    (["score", "dragons-gold"], '{"players": {"A": {"black": 1}, "B": {"black": 1}, "C": {}}}',
     "companion: players.B.black: there is only one black diamond and A has it (got 1)"),
    (["score", "dragons-gold"], '{"players": {"A": {"silver": -2}, "B": {}, "C": {}}}',
     "companion: players.A.silver: must not be negative (got -2)"),
    (["score", "gold"], '{"players": {"A": {"display": ["yellow:6"]}, "B": {}}}', "players.A.display[0]"),
    (["score", "drakon"], '{"players": {"A": {"coins": [4]}, "B": {"coins": []}}}', "players.A.coins[0]"),
    (["score", "drakon"], '{"players": {"A": {"coins": [], "colour": "red"}, "B": {"coins": []}}}', "players.A.colour"),
])
@pytest.mark.slow
def test_score_bad_input_one_line_exit_2(args: list[str], stdin: str | None, message: str) -> None:
    done = companion(*args, stdin=stdin)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]
    assert done.stdout == ""


@pytest.mark.slow
def test_rules_volatio_speed_json() -> None:
    done = companion("rules", "volatio-speed", "--previous", "400", "--new", "800", "--json")
    assert done.returncode == 0
    out = json.loads(done.stdout)
    assert out["legal"] is False and "300" in out["reason"] and set(out) == {"legal", "reason", "templates"}
    done = companion("rules", "volatio-speed", "--previous", "400", "--new", "700", "--json")
    assert json.loads(done.stdout) == {"legal": True, "reason": None, "templates": [700]}


@pytest.mark.parametrize("args", [
    ["--previous", "400", "--new", "750"],
    ["--previous", "x", "--new", "700"],
    ["--previous", "400", "--new", "700", "--spell", "fireball"],
    ["--new", "700"],
])
@pytest.mark.slow
def test_rules_volatio_speed_bad_input_exit_2(args: list[str]) -> None:
    done = companion("rules", "volatio-speed", *args, "--json")
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_export_finished_play_as_bgstats_and_csv(tmp_path: Path) -> None:
    import os

    from companion.events import EventBus
    from companion.games import dragons_gold
    from companion.session import Player, TableSession
    from companion.store import Store
    from tests.conftest import FakeClock

    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    done = subprocess.run([sys.executable, "-m", "companion", "export"], capture_output=True, text=True, env=env)
    assert done.returncode == 2 and "holds no finished play yet" in done.stderr
    store = Store.open(tmp_path / "data" / "table-companion" / "companion.sqlite3")
    s = TableSession.start(store, "dragons-gold", [Player("Anna", "red"), Player("Béla", "blue"),
                                                    Player("Вика", "green")], FakeClock(), EventBus(), boot="b")
    s.set_score("Béla", "gold", 2)
    s.finish_game(dragons_gold.score_document(s.score_document()))
    store.close()
    done = subprocess.run([sys.executable, "-m", "companion", "export", "--format", "bgstats"], capture_output=True,
                          text=True, env=env)
    assert done.returncode == 0, done.stderr
    play = json.loads(done.stdout)
    assert play["game"]["name"] == "Dragon's Gold"
    assert [(p["name"], p["winner"]) for p in play["players"]] == [("Anna", False), ("Béla", True), ("Вика", False)]
    out = tmp_path / "plays.csv"
    done = subprocess.run([sys.executable, "-m", "companion", "export", "--format", "csv", "--out", str(out)],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 0 and out.read_text().splitlines()[0].startswith("date,")
    done = subprocess.run([sys.executable, "-m", "companion", "export", "--session", "99"], capture_output=True,
                          text=True, env=env)
    assert done.returncode == 2 and done.stderr.strip() == "companion: --session: no finished play has this number (got 99)"
