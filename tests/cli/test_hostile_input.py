"""Hostile score documents and configs: each is one short line on stderr and exit 2.

Most cases run ``companion.cli.main`` in this process; the headline ones also run the real
entry point (``python -m companion``) in a subprocess, under a C locale where it matters.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion import cli
from companion.cli import doctor as doctor_cli
from companion.config import parse_config
from companion.errors import quote
from firmware_bridge.errors import BridgeError
from vision.errors import VisionError

DEEP_JSON = "[" * 1000 + "]" * 1000
HUGE_INT = "1" * 5000
DUPLICATE = '{"players":{"A":{"coins":[3,3,3]},"A":{"coins":[1]},"B":{"coins":[2]}}}'


def one_line(err: str) -> str:
    """The single stderr line, checked: printable, at most 300 characters, no traceback."""
    lines = err.splitlines()
    assert len(lines) == 1 and err.endswith("\n"), err[:2000]
    line = lines[0]
    assert line.isprintable() and len(line) <= 300 and "Traceback" not in line, line
    return line


def run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """``companion ARGS`` in this process: asserts exit 2 and nothing on stdout; the stderr line."""
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    assert (code, out) == (2, ""), err[:2000]
    return one_line(err)


def stdin_of(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    """Standard input holding *data*, decoded as Python does under a C locale (surrogateescape)."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8",
                                                       errors="surrogateescape"))


@pytest.fixture
def doc(tmp_path: Path) -> Path:
    return tmp_path / "doc.json"


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return tmp_path / "config.toml"


# -- 1. deep nesting --------------------------------------------------------------------------


def test_score_deep_json_is_one_line(capsys: pytest.CaptureFixture[str], doc: Path) -> None:
    doc.write_text(DEEP_JSON)
    assert run(capsys, "score", "gold", str(doc)) == \
        f"companion: FILE: nested more than 64 levels deep (got {quote(str(doc))})"


@pytest.mark.parametrize("text", [
    "[timer]\nwarnings_s = " + "[" * 1000 + "]" * 1000 + "\n",
    "[timer]\ntick_hz = " + "{a = " * 1000 + "1" + "}" * 1000 + "\n",
    "[timer]\npresets" + ".a" * 1000 + " = 1\n",
])
def test_config_deep_toml_is_one_line(capsys: pytest.CaptureFixture[str], config: Path, text: str) -> None:
    config.write_text(text)
    assert run(capsys, "--config", str(config), "timer", "1") == \
        f"companion: config {config}: nested more than 64 levels deep"


# -- 2. huge integers -------------------------------------------------------------------------


def test_score_huge_integer_is_one_line(capsys: pytest.CaptureFixture[str], doc: Path) -> None:
    doc.write_text('{"players": {"A": {"coins": [' + HUGE_INT + ']}, "B": {"coins": []}}}')
    line = run(capsys, "score", "drakon", str(doc))
    assert line.startswith("companion: FILE: a whole number of 5000 digits (at most 30), starting 1111")


def test_config_huge_integer_is_one_line_naming_the_line(capsys: pytest.CaptureFixture[str], config: Path) -> None:
    config.write_text(f"[timer]\ntick_hz = {HUGE_INT}\n")
    assert run(capsys, "--config", str(config), "timer", "1") == \
        f"companion: config {config}, line 2: a whole number beyond TOML's 64 bits"


def test_config_integer_beyond_64_bits_names_the_key(capsys: pytest.CaptureFixture[str], config: Path) -> None:
    config.write_text("[gpio]\nmode = 'off'\n\n[timer]\ntick_hz = 99999999999999999999\n")
    assert run(capsys, "--config", str(config), "timer", "1") == \
        f"companion: config {config}, line 5: timer.tick_hz: a whole number beyond TOML's 64 bits"


# -- 3. unbounded input -----------------------------------------------------------------------


def test_score_dev_zero_is_refused_after_1_mib(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "score", "gold", "/dev/zero") == \
        "companion: FILE: more than 1 MiB: a score document is a few kilobytes (got '/dev/zero')"


def test_config_dev_zero_is_refused_after_1_mib(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "--config", "/dev/zero", "timer", "1") == \
        "companion: config /dev/zero: more than 1 MiB: a config file is a few kilobytes"


def test_score_stdin_over_1_mib_is_refused(capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    stdin_of(monkeypatch, b'{"players": {}}' + b" " * (1 << 20))
    assert run(capsys, "score", "gold") == \
        "companion: FILE: more than 1 MiB: a score document is a few kilobytes (got 'standard input')"


def test_score_document_of_just_under_1_mib_is_read(capsys: pytest.CaptureFixture[str], doc: Path) -> None:
    body = '{"variant": "standard", "players": {"A": {"coins": [1]}, "B": {"coins": [2]}}}'
    doc.write_text(body + " " * ((1 << 20) - len(body)))
    assert cli.main(["score", "drakon", str(doc), "--json"]) == 0
    assert '"leaders": ["B"]' in capsys.readouterr().out


# -- 4. duplicate keys ------------------------------------------------------------------------


def test_score_duplicate_player_is_refused_naming_it(capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    stdin_of(monkeypatch, DUPLICATE.encode())
    assert run(capsys, "score", "drakon") == ("companion: FILE: the key players.A is given twice (JSON would "
                                              "keep only the last) (got 'standard input')")


def test_score_duplicate_field_is_refused_naming_it(capsys: pytest.CaptureFixture[str], doc: Path) -> None:
    doc.write_text('{"players": {"A": {"silver": 9, "silver": 0}, "B": {}, "C": {}}}')
    assert "the key players.A.silver is given twice" in run(capsys, "score", "dragons-gold", str(doc))


def test_config_duplicate_key_is_refused_by_tomllib(capsys: pytest.CaptureFixture[str], config: Path) -> None:
    config.write_text("[gpio]\nbuzzer_pin = 5\nbuzzer_pin = 6\n")
    assert run(capsys, "--config", str(config), "timer", "1") == \
        f"companion: config {config}, line 3: not valid TOML: Cannot overwrite a value"


# -- 5. what an error line quotes -------------------------------------------------------------


def test_score_megabyte_name_gives_a_short_line(capsys: pytest.CaptureFixture[str], doc: Path) -> None:
    name = "N" * 1_000_000
    doc.write_text(json.dumps({"players": {name: {"coins": [], "cat": 1}, "B": {"coins": []}}}))
    line = run(capsys, "score", "drakon", str(doc))
    assert line.startswith("companion: players.NNNN") and "NNN….NNNN" not in line
    assert "NNNN…NNNN" in line and "N.cat: unknown field" in line and line.endswith("(got 1)")


@pytest.mark.parametrize("name", ["A\nB", "\x1b[2J\x1b[31mred", "A\u2028B", "A\x85B", "\u202eevil", "\ud800"])
def test_score_control_characters_in_a_name_are_escaped(capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    stdin_of(monkeypatch, json.dumps({"players": {name: {"coins": [4]}, "B": {"coins": []}}}).encode())
    line = run(capsys, "score", "drakon")
    assert "\x1b" not in line and "\\" in line


@pytest.mark.parametrize(("game", "players"), [
    ("drakon", {"A\x1b[31m": {"coins": [1]}, "B": {"coins": [2]}}),
    ("gold", {"A\nB": {"scored": [], "display": []}, "C": {"scored": [], "display": []}}),
    ("dragons-gold", {"A\t": {}, "B": {}, "C": {}}),
])
def test_score_refuses_a_name_that_is_not_printable(capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch, game: str,
                                                    players: dict[str, object]) -> None:
    stdin_of(monkeypatch, json.dumps({"players": players}).encode())
    assert "a player's name must be printable text" in run(capsys, "score", game)


def test_score_refuses_a_team_that_is_not_printable(capsys: pytest.CaptureFixture[str], doc: Path) -> None:
    doc.write_text('{"variant": "team", "players": {"A": {"coins": [1], "team": "x\\u001b[2J"}, '
                   '"B": {"coins": [1], "team": "y"}, "C": {"coins": [1], "team": "x"}, '
                   '"D": {"coins": [1], "team": "y"}}}')
    assert "players.A.team: must be printable text" in run(capsys, "score", "drakon", str(doc))


def test_config_long_value_and_control_characters_are_shortened(capsys: pytest.CaptureFixture[str],
                                                                config: Path) -> None:
    config.write_text('[ui]\nsize = "' + "9" * 1_000_000 + '"\n')
    line = run(capsys, "--config", str(config), "timer", "1")
    assert line.startswith(f"companion: config {config}, line 2: ui.size: must be WIDTHxHEIGHT")
    assert line.endswith("(got '" + "9" * 39 + "…" + "9" * 18 + "')")
    config.write_text('["a\\nb\\u001b[31m"]\nx = 1\n')
    line = run(capsys, "--config", str(config), "timer", "1")
    assert line == f"companion: config {config}: a\\nb\\x1b[31m: unknown section"


def test_config_key_lines_are_linear_on_a_header_like_line() -> None:
    # Inside a multi-line string, so valid TOML: the line finder once took minutes on it.
    text = '[camera]\nsource = """\n[' + " " * 100_000 + 'x\n"""\n[timer]\ntick_hz = -1\n'
    with pytest.raises(Exception, match="line 6: timer.tick_hz"):
        parse_config(text, "c.toml")


@pytest.mark.parametrize("error", [BridgeError, VisionError])
def test_main_prints_any_error_as_one_short_line(capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch, error: type[Exception]) -> None:
    def broken(args: object) -> int:
        raise error("first line\nsecond line \x1b[31m" + "x" * 10_000)

    monkeypatch.setattr(doctor_cli, "run_doctor", broken)
    line = run(capsys, "doctor")
    assert line.startswith("companion: first line\\nsecond line \\x1b[31mxxx") and len(line) == 300
    assert line.endswith("…")


def test_main_prints_a_usage_error_as_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    line = run(capsys, "doctor", "a\nb\x1b[31m")
    assert line == "companion: unrecognized arguments: a\\nb\\x1b[31m"


# -- 6. standard input is bytes ---------------------------------------------------------------


def test_score_invalid_utf8_on_stdin_is_refused_as_a_file_is(capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch, doc: Path) -> None:
    data = b'{"players": {"\xff": {"scored": [], "display": []}, "B": {"scored": [], "display": []}}}'
    stdin_of(monkeypatch, data)
    assert run(capsys, "score", "gold", "--json") == \
        "companion: FILE: not UTF-8 text (byte 15, line 1) (got 'standard input')"
    doc.write_bytes(data)
    assert run(capsys, "score", "gold", str(doc)) == \
        f"companion: FILE: not UTF-8 text (byte 15, line 1) (got {quote(str(doc))})"


# -- the real entry point ---------------------------------------------------------------------


def companion(*args: str, stdin: bytes = b"", c_locale: bool = False) -> str:
    """``python -m companion ARGS``: asserts exit 2, nothing on stdout; the stderr line."""
    env = dict(os.environ, LC_ALL="C", LANG="C") if c_locale else None
    done = subprocess.run([sys.executable, "-m", "companion", *args], input=stdin, capture_output=True,
                          timeout=60, env=env)
    err = done.stderr.decode("utf-8", "backslashreplace")
    assert (done.returncode, done.stdout) == (2, b""), err[-3000:]
    return one_line(err)


@pytest.mark.slow
def test_process_deep_json(doc: Path) -> None:
    doc.write_text(DEEP_JSON)
    assert "nested more than 64 levels deep" in companion("score", "gold", str(doc))


@pytest.mark.slow
def test_process_deep_toml(config: Path) -> None:
    config.write_text("a = " + "[" * 1000 + "]" * 1000 + "\n")
    assert companion("--config", str(config), "timer", "1") == \
        f"companion: config {config}: nested more than 64 levels deep"


@pytest.mark.slow
def test_process_huge_int(doc: Path, config: Path) -> None:
    doc.write_text('{"players": ' + HUGE_INT + "}")
    assert "a whole number of 5000 digits" in companion("score", "gold", str(doc))
    config.write_text(f"[timer]\ntick_hz = {HUGE_INT}\n")
    assert "line 2: a whole number beyond TOML's 64 bits" in companion("--config", str(config), "timer", "1")


@pytest.mark.slow
def test_process_dev_zero() -> None:
    assert "more than 1 MiB" in companion("score", "gold", "/dev/zero")
    assert "more than 1 MiB" in companion("--config", "/dev/zero", "timer", "1")


@pytest.mark.slow
def test_process_invalid_utf8_on_stdin_under_c_locale() -> None:
    data = b'{"players": {"\xff": {"scored": [], "display": []}, "B": {"scored": [], "display": []}}}'
    assert companion("score", "gold", stdin=data, c_locale=True) == \
        "companion: FILE: not UTF-8 text (byte 15, line 1) (got 'standard input')"


@pytest.mark.slow
def test_process_duplicate_key_and_escape_sequence() -> None:
    assert "players.A is given twice" in companion("score", "drakon", stdin=DUPLICATE.encode())
    line = companion("score", "drakon", stdin=b'{"players": {"A": {"coins": [9]}, "\\u001b[2J": {"coins": []}}}',
                     c_locale=True)
    assert "\x1b" not in line
