"""Error messages stay one short, printable line whatever the user gave."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.errors import ConfigError, InvalidInput, escape, one_line, quote, shorten

PRINTABLE = st.text(st.characters(codec="ascii", min_codepoint=32, max_codepoint=126), max_size=40)


def test_quote_cuts_a_long_value_to_60_characters_with_an_ellipsis() -> None:
    assert quote("a" * 1_000_000) == "'" + "a" * 39 + "…" + "a" * 18 + "'"
    assert quote("/home/anna/" + "games/" * 20 + "end.json") == "'/home/anna/games/games/games/games/game…mes/games/end.json'"
    assert quote("short") == "'short'"


def test_quote_escapes_newlines_and_terminal_escapes() -> None:
    assert quote("A\nB\x1b[31m") == "'A\\nB\\x1b[31m'"
    assert quote(["\x9b2J"]) == "['\\x9b2J']"


def test_quote_describes_an_int_too_long_to_write_out() -> None:
    assert quote(10**5000) == "a number of about 5001 digits"
    assert quote(10**20) == "100000000000000000000"


def test_escape_writes_every_unprintable_character_as_an_escape() -> None:
    assert escape("a\tb\r\u2028\u202e\ud800\x00é😀") == "a\\tb\\r\\u2028\\u202e\\ud800\\x00é😀"


def test_shorten_in_the_middle_keeps_the_end_of_a_field() -> None:
    field = shorten("players." + "N" * 10_000 + ".silver", 80, middle=True)
    assert len(field) == 80 and field.startswith("players.NNN") and field.endswith("N.silver") and "…" in field


def test_invalid_input_with_a_megabyte_of_name_is_a_short_line() -> None:
    name = "\x1b[2J" + "x" * 1_000_000 + "\n"
    exc = InvalidInput(f"players.{name}.silver", name, f"there is only one black diamond and {name} has it")
    text = str(exc)
    assert len(text) <= 350 and text.isprintable() and text.endswith("xxx\\n')")
    assert text.startswith("players.\\x1b[2Jxxx") and ".silver: there is only one" in text
    assert exc.value == name  # the attributes keep what was given


def test_config_error_escapes_the_path_and_the_key() -> None:
    text = str(ConfigError("/tmp/a\nb.toml", "ui.\x1b[31m" + "k" * 500, "unknown section", line=3))
    assert text.isprintable() and "\n" not in text and len(text) < 200
    assert text.startswith("config /tmp/a\\nb.toml, line 3: ui.\\x1b[31mkkk") and text.endswith(": unknown section")


@given(field=PRINTABLE, value=st.integers() | PRINTABLE, why=PRINTABLE)
def test_invalid_input_leaves_a_short_printable_message_as_it_was(field: str, value: object, why: str) -> None:
    assert str(InvalidInput(field, value, why)) == f"{field}: {why} (got {value!r})"


@pytest.mark.slow
@given(field=st.text(), value=st.text() | st.binary() | st.lists(st.text()), why=st.text())
def test_invalid_input_is_always_one_printable_line_of_bounded_length(field: str, value: object,
                                                                      why: str) -> None:
    text = str(InvalidInput(field, value, why))
    assert text.isprintable() and len(text.splitlines()) == 1 and len(text) <= 80 + 200 + 60 + 9


@given(st.text(max_size=2000))
def test_one_line_is_one_printable_line_of_at_most_300_characters(message: str) -> None:
    line = one_line(message)
    assert line.isprintable() and len(line) <= 300
    assert (line == message) == (message.isprintable() and len(message) <= 300)
