"""Reading score documents and the config within bounds: size, UTF-8, nesting, numbers, keys."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.documents import (
    MAX_BYTES,
    MAX_DEPTH,
    DocumentError,
    decode_utf8,
    json_depth_exceeds,
    parse_json,
    parse_toml,
    read_capped,
)


def nest(depth: int, inner: str = "1") -> str:
    return "[" * depth + inner + "]" * depth


# -- reading ----------------------------------------------------------------------------------


def test_read_capped_takes_exactly_1_mib(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(b" " * MAX_BYTES)
    assert len(read_capped(path)) == MAX_BYTES


def test_read_capped_refuses_a_byte_more(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(b" " * (MAX_BYTES + 1))
    with pytest.raises(DocumentError, match=r"^more than 1 MiB: a score document is a few kilobytes$"):
        read_capped(path, "a score document")


def test_read_capped_stops_reading_an_endless_file() -> None:
    with pytest.raises(DocumentError, match="more than 1 MiB"):
        read_capped(Path("/dev/zero"))


def test_read_capped_reads_standard_input_as_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(b'{"a": "\xff"}'), encoding="utf-8", errors="surrogateescape")
    monkeypatch.setattr(sys, "stdin", stdin)
    assert read_capped(None) == b'{"a": "\xff"}'


def test_read_capped_refuses_more_than_1_mib_on_standard_input(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"[" + b" " * MAX_BYTES + b"]")))
    with pytest.raises(DocumentError, match="more than 1 MiB"):
        read_capped(None)


def test_decode_utf8_names_the_first_bad_byte_and_its_line() -> None:
    with pytest.raises(DocumentError, match=r"^not UTF-8 text \(byte 9, line 2\)$"):
        decode_utf8(b'{"a":\n "\xff"}')


# -- JSON -------------------------------------------------------------------------------------


def test_parse_json_takes_64_levels_and_refuses_65() -> None:
    assert parse_json(nest(MAX_DEPTH)) is not None
    with pytest.raises(DocumentError, match=r"^nested more than 64 levels deep$"):
        parse_json(nest(MAX_DEPTH + 1))


def test_parse_json_refuses_deep_nesting_before_the_parser_recurses() -> None:
    for text in (nest(100_000), '{"a": ' * 100_000 + "1" + "}" * 100_000, "[{" * 50_000):
        with pytest.raises(DocumentError, match="nested more than 64 levels deep"):
            parse_json(text)


def test_parse_json_brackets_in_strings_do_not_count() -> None:
    text = json.dumps({"name": "[" * 1000 + '\\"{' * 500})
    assert json_depth_exceeds(text) is False
    assert parse_json(text) == json.loads(text)


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab'),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(alphabet='[]{}"\\a'), inner,
                                                                               max_size=3),
                    max_leaves=80)


def depth_of(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((depth_of(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth_of(v) for v in value.values()), default=0)
    return 0


@pytest.mark.slow
@given(doc=JSON, limit=st.integers(0, 12))
def test_json_depth_exceeds_agrees_with_the_parsed_depth(doc: Any, limit: int) -> None:
    assert json_depth_exceeds(json.dumps(doc), limit) == (depth_of(doc) > limit)


@pytest.mark.parametrize("number", ["9" * 30, "-" + "9" * 30, "0", "-0"])
def test_parse_json_takes_whole_numbers_of_up_to_30_digits(number: str) -> None:
    assert parse_json(f"[{number}]") == [int(number)]


@pytest.mark.parametrize("digits", [31, 4300, 5000, 100_000])
def test_parse_json_refuses_longer_whole_numbers(digits: int) -> None:
    with pytest.raises(DocumentError, match=rf"^a whole number of {digits} digits \(at most 30\)"):
        parse_json('{"players": ' + "1" * digits + "}")


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity"])
def test_parse_json_refuses_nan_and_infinity(text: str) -> None:
    with pytest.raises(DocumentError, match=f"^{text} is not a JSON number$"):
        parse_json(f'{{"silver": {text}}}')


@pytest.mark.parametrize("text", ["1e999", "-1e400", "1" * 400 + ".0"])
def test_parse_json_refuses_numbers_beyond_a_float(text: str) -> None:
    with pytest.raises(DocumentError, match="is too large"):
        parse_json(f"[{text}]")


def test_parse_json_takes_small_and_tiny_floats() -> None:
    assert parse_json("[2.5, 1e308, 2e-400]") == [2.5, 1e308, 0.0]


@pytest.mark.parametrize(("text", "key"), [
    ('{"players":{"A":{"coins":[3,3,3]},"A":{"coins":[1]},"B":{"coins":[2]}}}', "players.A"),
    ('{"a": 1, "a": 1}', "a"),
    ('{"players": {"A": {"coins": [1], "escaped": true, "coins": [2]}}}', "players.A.coins"),
    ('{"x": [{"ok": 1}, {"c": 1, "d": 2, "c": 3}]}', "x[1].c"),
])
def test_parse_json_refuses_a_key_given_twice_naming_it(text: str, key: str) -> None:
    with pytest.raises(DocumentError, match=rf"^the key {re.escape(key)} is given twice"):
        parse_json(text)


def test_parse_json_refuses_an_unpaired_surrogate_and_takes_a_pair() -> None:
    with pytest.raises(DocumentError, match=r"^players\[1\]: a string with an unpaired surrogate"):
        parse_json('{"players": ["A", "\\udc00"]}')
    assert parse_json('{"players": ["\\ud83d\\ude00"]}') == {"players": ["😀"]}


def test_parse_json_keeps_the_parser_message_and_place() -> None:
    with pytest.raises(DocumentError, match=r"^not valid JSON: Expecting property name enclosed in double "
                                            r"quotes at line 1 column 2$"):
        parse_json("{nope")


# -- TOML -------------------------------------------------------------------------------------


def test_parse_toml_takes_64_levels_and_refuses_65() -> None:
    assert parse_toml("a = " + nest(MAX_DEPTH - 1)) is not None  # the root table is a level
    with pytest.raises(DocumentError, match="^nested more than 64 levels deep$"):
        parse_toml("a = " + nest(MAX_DEPTH))


@pytest.mark.parametrize("text", [
    "a = " + nest(1000),
    "a = " + "{a = " * 1000 + "1" + "}" * 1000,
    "a" + ".a" * 1000 + " = 1",
    "[a" + ".a" * 1000 + "]",
])
def test_parse_toml_refuses_deep_nesting(text: str) -> None:
    with pytest.raises(DocumentError, match="nested more than 64 levels deep"):
        parse_toml(text)


def test_parse_toml_takes_64_bit_integers() -> None:
    assert parse_toml(f"a = {2**63 - 1}\nb = {-(2**63)}") == {"a": 2**63 - 1, "b": -(2**63)}


def test_parse_toml_refuses_an_integer_beyond_64_bits_naming_the_key() -> None:
    with pytest.raises(DocumentError) as info:
        parse_toml(f"[timer]\ntick_hz = {2**63}\n")
    assert (info.value.key, info.value.why) == ("timer.tick_hz", "a whole number beyond TOML's 64 bits")


def test_parse_toml_refuses_thousands_of_digits_naming_the_line() -> None:
    with pytest.raises(DocumentError) as info:
        parse_toml("[timer]\n# a comment\ntick_hz = " + "1" * 5000 + "\n")
    assert (info.value.line, info.value.why) == (3, "a whole number beyond TOML's 64 bits")


@pytest.mark.parametrize(("text", "line", "why"), [
    ("[gpio]\nbuzzer_pin = 5\nbuzzer_pin = 6\n", 3, "not valid TOML: Cannot overwrite a value"),
    ("[gpio]\nmode = 'mock'\n[gpio]\n", 3, "not valid TOML: Cannot declare ('gpio',) twice"),
    ('[ui]\nsize = "800x480"\n"size" = "1x1"\n', 3, "not valid TOML: Cannot overwrite a value"),
])
def test_parse_toml_refuses_a_key_given_twice(text: str, line: int, why: str) -> None:
    # tomllib refuses these itself; the test keeps it so.
    with pytest.raises(DocumentError) as info:
        parse_toml(text)
    assert (info.value.line, info.value.why) == (line, why)
