"""Hostile documents through the real command: ``companion score`` for each game, and the config.

Hypothesis mutates a valid document (type swaps, deep nesting, huge numbers, NaN and Infinity,
duplicate keys, unicode and control characters, truncation, stray bytes, a document over the
1 MiB cap) and runs ``companion.cli.main`` in-process. Every run must end in exit 0 with the
answer an independent strict reading of the document gives, or in exit 2 with one printable
stderr line of at most 300 characters; anything else (a traceback, a MemoryError, a second
line) fails the test. The real entry point is run on the headline cases in
``test_hostile_input.py``.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion import cli
from companion.errors import InvalidInput
from companion.games import find_game

FUZZ = settings(max_examples=2000, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
MiB = 1 << 20

SEEDS: dict[str, Any] = {
    "dragons-gold": {"rules": "advanced", "players": {
        "A": {"silver": 6, "gold": 2, "red": 3, "black": 1, "blue": 3, "green": 2, "yellow": 1, "white": 1},
        "B": {"silver": 4, "gold": 3, "red": 1, "blue": 3, "green": 1, "purple": 2, "white": 2},
        "C": {"silver": 8, "gold": 1, "red": 2, "blue": 1, "green": 2, "purple": 2, "yellow": 3}}},
    "gold": {"players": {
        "X": {"scored": ["purple:8", "purple:7", "purple:5", "red:3", "red:donkey"], "display": ["blue:8", "green:4"]},
        "Y": {"scored": ["red:8", "red:6", "pink:8", "pink:3"], "display": ["green:6", "green:donkey"]}}},
    "drakon": {"variant": "escape", "players": {
        "A": {"coins": [1, 1, 2], "escaped": True}, "B": {"coins": [3, 3]}, "C": {"coins": [], "escaped": False}}},
}

CONFIG_SEED = """\
# a table's config
[timer]
warnings_s = [10, 3]
tick_hz = 10

[timer.presets]
auction = 45

[gpio]
mode = "off"
buzzer_pin = 18
bar_pins = [5, 6, 13]
button_hold_s = 2.0

[ui]
language = "hu"
size = "800x480"

[accessory]
port = "none"
usb_ids = ["2e8a:0005"]
"""


# -- a JSON tree that can hold what json.dumps cannot write --------------------------------


@dataclass
class Obj:
    """A JSON object as its pairs, so a key may be given twice."""

    pairs: list[list[Any]] = field(default_factory=list)


@dataclass
class Raw:
    """JSON text written as is: 1,000 brackets deep, 5,000 digits, NaN."""

    text: str


def to_tree(value: Any) -> Any:
    if isinstance(value, dict):
        return Obj([[k, to_tree(v)] for k, v in value.items()])
    if isinstance(value, list):
        return [to_tree(v) for v in value]
    return value


def dumps(tree: Any, ascii_only: bool) -> str:
    if isinstance(tree, Obj):
        return "{" + ", ".join(f"{dumps(k, ascii_only)}: {dumps(v, ascii_only)}" for k, v in tree.pairs) + "}"
    if isinstance(tree, list):
        return "[" + ", ".join(dumps(v, ascii_only) for v in tree) + "]"
    if isinstance(tree, Raw):
        return tree.text
    return json.dumps(tree, ensure_ascii=ascii_only)


def slots(tree: Any) -> Iterator[tuple[list[Any], int]]:
    """Every place a value (or an object's key) sits, as (holder, index), the root first."""
    root = [tree]
    stack: list[tuple[list[Any], int]] = [(root, 0)]
    while stack:
        holder, i = stack.pop()
        yield holder, i
        value = holder[i]
        if isinstance(value, Obj):
            for pair in value.pairs:
                yield pair, 0  # the key
                stack.append((pair, 1))
        elif isinstance(value, list):
            stack.extend((value, j) for j in range(len(value)))


SWAPS = [None, True, False, 0, -1, 7, 2.5, -0.0, 1e300, 10**29, "", " ", "x", "red:5", "black", [], {}, [1, 2],
         {"a": 1}, [[[]]], "donkey", 3.0]
ANY_TEXT = st.text(st.characters(codec=None), max_size=40) | st.text(
    st.characters(max_codepoint=0x3F) | st.sampled_from("\x1b\x7f\x85\u2028\u202e\ufeff\ud800\udfff"), max_size=20)


NAMES = st.text(st.characters(codec=None, categories=["L", "M", "N", "P", "S", "Zs"]), min_size=1, max_size=20)


def nested(draw: st.DrawFn, inner: str) -> str:
    depth = draw(st.sampled_from([2, 10, 63, 64, 65, 100, 1000, 3000]))
    if draw(st.booleans()):
        return "[" * depth + inner + "]" * depth
    return '{"a": ' * depth + inner + "}" * depth


def huge(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["int", "negative", "float", "exponent", "tiny"]))
    digits = "9" * draw(st.sampled_from([29, 30, 31, 40, 400, 4300, 4301, 6000]))
    return {"int": digits, "negative": "-" + digits, "float": digits + ".5",
            "exponent": draw(st.sampled_from(["1e999", "-1e999", "1e308", "1E400", "2e-400"])),
            "tiny": "0." + digits}[kind]


@st.composite
def hostile_json(draw: st.DrawFn, seed: Any) -> bytes:
    tree = to_tree(seed)
    for _ in range(draw(st.integers(0, 3))):
        places = list(slots(tree))
        holder, i = places[draw(st.integers(0, len(places) - 1))]
        is_key = isinstance(holder[i], str) and len(holder) == 2 and holder is not places[0][0] and i == 0
        kind = draw(st.sampled_from(["swap", "nest", "huge", "constant", "duplicate", "text", "text", "name",
                                     "count"]))
        if kind == "name":  # a player renamed: still valid unless the name is blank or taken
            tables = [v for k, v in tree.pairs if k == "players" and isinstance(v, Obj) and v.pairs] \
                if isinstance(tree, Obj) else []
            if tables:
                tables[0].pairs[draw(st.integers(0, len(tables[0].pairs) - 1))][0] = draw(NAMES)
        elif kind == "count":  # a small number anywhere: valid where a count is
            ints = [(h, j) for h, j in places if type(h[j]) is int]
            if ints:
                h, j = ints[draw(st.integers(0, len(ints) - 1))]
                h[j] = draw(st.integers(0, 3))
        elif kind == "text" or (is_key and kind != "duplicate"):
            holder[i] = draw(ANY_TEXT)
        elif kind == "swap":
            holder[i] = to_tree(draw(st.sampled_from(SWAPS)))
        elif kind == "nest":
            holder[i] = Raw(nested(draw, dumps(holder[i], True)))
        elif kind == "huge":
            holder[i] = Raw(huge(draw))
        elif kind == "constant":
            holder[i] = Raw(draw(st.sampled_from(["NaN", "Infinity", "-Infinity"])))
        else:  # duplicate a key of the nearest object: the same value, or another
            objects = [h[j] for h, j in places if isinstance(h[j], Obj) and h[j].pairs]
            if objects:
                obj = objects[draw(st.integers(0, len(objects) - 1))]
                key, value = obj.pairs[draw(st.integers(0, len(obj.pairs) - 1))]
                again = value if draw(st.booleans()) else to_tree(draw(st.sampled_from(SWAPS)))
                obj.pairs.insert(draw(st.integers(0, len(obj.pairs))), [key, again])
        tree = places[0][0][0]
    data = dumps(tree, draw(st.booleans())).encode("utf-8", "surrogatepass")
    for _ in range(draw(st.sampled_from([0, 0, 1, 2]))):
        at = draw(st.integers(0, len(data)))
        edit = draw(st.sampled_from(["truncate", "bytes", "big"]))
        if edit == "truncate":
            data = data[:at]
        elif edit == "bytes":
            data = data[:at] + draw(st.binary(min_size=1, max_size=4)) + data[at:]
        else:
            data = data + b" " * (MiB + 1 - len(data)) + data[:10]
    return data


# -- running the command in-process --------------------------------------------------------


@dataclass
class Done:
    code: int
    stdout: str
    stderr: str


_PARSER = cli.build_parser()  # argparse takes most of a run to build; one parser serves every run


def run_main(args: list[str], stdin: bytes = b"") -> Done:
    """``companion ARGS`` in this process, standard input holding *stdin* as a C locale gives it."""
    out, err = io.StringIO(), io.StringIO()
    fake_stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8", errors="surrogateescape")
    with mock.patch.object(cli, "build_parser", lambda: _PARSER), mock.patch.object(sys, "stdin", fake_stdin), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(args)
    return Done(code, out.getvalue(), err.getvalue())


def assert_one_short_line(done: Done) -> str:
    assert done.code == 2, done
    assert done.stdout == ""
    assert done.stderr.endswith("\n") and done.stderr.count("\n") == 1, repr(done.stderr[:400])
    line = done.stderr[:-1]
    assert len(line) <= 300 and line.isprintable() and line.startswith("companion: "), repr(line)
    assert len(line.splitlines()) == 1 and "Traceback" not in line
    return line


def strict_reading(data: bytes) -> Any:
    """The document as a careful reader takes it, written apart from the code under test:
    at most 1 MiB of UTF-8, JSON with finite numbers of at most 30 digits, no key twice,
    64 levels at most, text that is all Unicode. Raises ValueError for anything else."""
    if len(data) > MiB:
        raise ValueError("too large")
    text = data.decode("utf-8")

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        if len({k for k, _ in items}) < len(items):
            raise ValueError("a key twice")
        return dict(items)

    def number(text: str) -> int:
        if len(text.lstrip("-")) > 30:
            raise ValueError("too many digits")
        return int(text)

    def refuse(text: str) -> Any:
        raise ValueError(text)

    try:
        doc = json.loads(text, object_pairs_hook=pairs, parse_int=number, parse_constant=refuse)
    except RecursionError:
        raise ValueError("too deep") from None
    stack = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)) and depth > 64:
            raise ValueError("too deep")
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError("not finite")
        if isinstance(value, str):
            value.encode("utf-8")  # an unpaired surrogate raises UnicodeEncodeError, a ValueError
        if isinstance(value, dict):
            stack.extend((k, depth) for k in value)
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
    return doc


def check_score(game: str, data: bytes, done: Done) -> None:
    """Exit 0 with the strict reading's answer, or exit 2 and one short line, and exit 2 only
    for a document the strict reading or the game's rules refuse."""
    if done.code == 0:
        doc = strict_reading(data)  # raises if the command took a document it should have refused
        assert done.stderr == ""
        assert json.loads(done.stdout) == find_game(game).score_document(doc)
        return
    line = assert_one_short_line(done)
    try:
        doc = strict_reading(data)
    except ValueError:
        return
    with pytest.raises(InvalidInput):  # the rules refuse it, or the command should have taken it
        find_game(game).score_document(doc)
    assert not line.startswith("companion: FILE: "), line


@pytest.fixture(scope="module")
def doc_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz") / "doc"


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("game", sorted(SEEDS))
def test_fuzz_score_document_exit_0_or_one_short_line(game: str, doc_path: Path) -> None:
    seen = {"ok": 0, "refused": 0}

    @FUZZ
    @given(data=hostile_json(SEEDS[game]), from_stdin=st.booleans())
    def one(data: bytes, from_stdin: bool) -> None:
        if from_stdin:
            done = run_main(["score", game, "-", "--json"], stdin=data)
        else:
            doc_path.write_bytes(data)
            done = run_main(["score", game, str(doc_path), "--json"])
        check_score(game, data, done)
        seen["ok" if done.code == 0 else "refused"] += 1

    one()
    assert seen["ok"] + seen["refused"] >= 2000
    print(game, seen)
    assert seen["ok"] > 0 and seen["refused"] > 0  # both sides of the contract were exercised


def test_fuzz_seeds_are_valid() -> None:
    for game, seed in SEEDS.items():
        done = run_main(["score", game, "-", "--json"], stdin=json.dumps(seed).encode())
        assert done.code == 0, done.stderr


# -- the config ------------------------------------------------------------------------------


TOML_VALUES = ['"text"', "1", "-7", "1.5", "true", "false", "[1, 2]", "[]", '{a = 1}', "1979-05-27", "07:32:00",
               "nan", "inf", "-inf", "0x1f", "0o17", "0b101", "1_000", '"""multi\nline"""', "'literal'", '""',
               "[[1], [2]]", '"\\u001b[31m"', '"\\ud800"']


@st.composite
def hostile_toml(draw: st.DrawFn) -> bytes:
    lines = CONFIG_SEED.splitlines()
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        line = lines[i]
        key, eq, value = line.partition(" = ")
        kind = draw(st.sampled_from(["swap", "nest", "table", "dotted", "huge", "constant", "duplicate", "text",
                                     "text"]))
        if kind == "swap" and eq:
            lines[i] = f"{key} = {draw(st.sampled_from(TOML_VALUES))}"
        elif kind == "nest" and eq:
            depth = draw(st.sampled_from([2, 63, 64, 65, 100, 1000, 3000]))
            lines[i] = (f"{key} = " + "[" * depth + "1" + "]" * depth if draw(st.booleans())
                        else f"{key} = " + "{a = " * depth + "1" + "}" * depth)
        elif kind == "table":
            depth = draw(st.sampled_from([2, 64, 65, 1000]))
            lines[i] = "[timer.presets" + ".a" * depth + "]"
        elif kind == "dotted" and eq:
            depth = draw(st.sampled_from([2, 64, 65, 1000]))
            lines[i] = key + ".a" * depth + " = 1"
        elif kind == "huge" and eq:
            digits = "9" * draw(st.sampled_from([18, 19, 20, 40, 4300, 4301, 6000]))
            lines[i] = f"{key} = " + draw(st.sampled_from([digits, "-" + digits, digits + ".5", "1e999"]))
        elif kind == "constant" and eq:
            lines[i] = f"{key} = " + draw(st.sampled_from(["nan", "+inf", "-inf", "NaN", "Infinity"]))
        elif kind == "duplicate":
            lines.insert(draw(st.integers(0, len(lines))), line)
        else:
            text = draw(ANY_TEXT)
            at = draw(st.integers(0, len(line)))
            lines[i] = line[:at] + text + line[at:]
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    for _ in range(draw(st.sampled_from([0, 0, 1, 2]))):
        at = draw(st.integers(0, len(data)))
        edit = draw(st.sampled_from(["truncate", "bytes", "big"]))
        if edit == "truncate":
            data = data[:at]
        elif edit == "bytes":
            data = data[:at] + draw(st.binary(min_size=1, max_size=4)) + data[at:]
        else:
            data = data + b"\n#" + b" " * (MiB - len(data))
    return data


def strict_toml(data: bytes) -> None:
    """Raises ValueError unless *data* is a config a careful reader would take: at most 1 MiB
    of UTF-8, TOML, 64 levels at most, integers within TOML's 64 bits."""
    if len(data) > MiB:
        raise ValueError("too large")
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except RecursionError:
        raise ValueError("too deep") from None
    stack: list[tuple[Any, int]] = [(doc, 1)]  # the root table is a level
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)) and depth > 64:
            raise ValueError("too deep")
        if isinstance(value, int) and not -(2**63) <= value < 2**63:
            raise ValueError("beyond 64 bits")
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_fuzz_config_is_taken_or_refused_in_one_short_line(tmp_path_factory: pytest.TempPathFactory) -> None:
    # The timer asks for a preset no config defines: a config that is taken gets as far as that
    # (exit 2, the --preset line); one that is refused ends at the config (exit 2, a config line).
    path = tmp_path_factory.mktemp("fuzz") / "config.toml"
    seen = {"taken": 0, "refused": 0}

    @FUZZ
    @given(data=hostile_toml())
    def one(data: bytes) -> None:
        path.write_bytes(data)
        done = run_main(["--config", str(path), "timer", "--preset", "no-such-preset"])
        line = assert_one_short_line(done)
        if line.startswith("companion: --preset: no such preset"):
            strict_toml(data)  # raises if the config was taken and should not have been
            seen["taken"] += 1
        else:
            assert line.startswith(f"companion: config {path}"), line
            seen["refused"] += 1

    one()
    assert seen["taken"] + seen["refused"] >= 2000
    print("config", seen)
    assert seen["taken"] > 0 and seen["refused"] > 0
