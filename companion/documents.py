"""Reading the small documents a user hands the companion: score documents (JSON), the config (TOML).

Everything here assumes the input may be hostile and keeps the cost of reading it bounded:

- at most :data:`MAX_BYTES` are read, from a file or standard input, as bytes;
- the bytes must be UTF-8 (strictly, whatever the locale says);
- nesting is at most :data:`MAX_DEPTH` levels (a score document needs 4, the config 3);
- a JSON document's whole numbers have at most :data:`MAX_INT_DIGITS` digits, its numbers are
  finite (no ``NaN``, ``Infinity``, ``1e999``), its text has no unpaired surrogate
  (``"\\ud800"``), and no object names a key twice (:mod:`json` would keep the last);
- a TOML document's whole numbers fit TOML's 64 bits (tomllib itself refuses a key given twice).

Each refusal is a :class:`DocumentError`; the caller names the file (``InvalidInput`` for a
score document, ``ConfigError`` for the config).
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from companion.errors import FIELD_MAX, CompanionError, quote, shorten

MAX_BYTES = 1 << 20  # 1 MiB: a score document or a config is a few kilobytes
MAX_DEPTH = 64  # levels of nested objects, arrays and tables
MAX_INT_DIGITS = 30  # digits of a whole number in a JSON document: no score comes near
TOML_INT_BITS = 64  # TOML's own limit: "arbitrary 64-bit signed integers"


class DocumentError(CompanionError, ValueError):
    """A document that cannot be used: why, and the line and the key where they are known."""

    def __init__(self, why: str, line: int | None = None, key: str | None = None) -> None:
        where = ", ".join(([f"line {line}"] if line is not None else []) + ([_short(key)] if key else []))
        super().__init__(f"{where}: {why}" if where else why)
        self.why, self.line, self.key = why, line, key


def read_capped(path: Path | None, what: str = "a document") -> bytes:
    """The bytes of the file at *path* (``None``: standard input), at most :data:`MAX_BYTES`.

    *what* names the document in the message (``"a score document"``).

    :raises DocumentError: for more than :data:`MAX_BYTES`.
    :raises OSError: for a file that cannot be read (the caller says which).
    """
    if path is None:
        stream: BinaryIO | None = getattr(sys.stdin, "buffer", None)
        if stream is None:
            raise DocumentError("there is no standard input to read")
        data = _read_up_to(stream, MAX_BYTES + 1)
    else:
        with open(path, "rb") as f:
            data = _read_up_to(f, MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise DocumentError(f"more than {MAX_BYTES >> 20} MiB: {what} is a few kilobytes")
    return data


def _read_up_to(stream: BinaryIO, size: int) -> bytes:
    """Up to *size* bytes, to the end of *stream* (a pipe or a raw stream may give fewer a read)."""
    chunks: list[bytes] = []
    while size > 0 and (chunk := stream.read(size)):
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def decode_utf8(data: bytes) -> str:
    """*data* as text, strictly UTF-8 (as a file is read, whatever the locale).

    :raises DocumentError: naming the line of the first byte that is not UTF-8.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise DocumentError(f"not UTF-8 text (byte {exc.start + 1}, line {line})") from None


# -- JSON -----------------------------------------------------------------------------------

_JSON_SPECIAL = re.compile(r'\\.|"|[\[{]+|[\]}]+', re.DOTALL)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def json_depth_exceeds(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether *text* nests objects and arrays more than *limit* deep, counted before parsing
    (so a parser that recurses never sees it). Brackets inside strings do not count.

    Linear in the text: one step per quote, backslash and run of brackets, none when there
    are too few brackets to reach *limit*.
    """
    if text.count("[") + text.count("{") <= limit:
        return False
    depth, in_string = 0, False
    for m in _JSON_SPECIAL.finditer(text):
        token = m.group()
        if token == '"':
            in_string = not in_string
        elif in_string or token[0] == "\\":
            continue
        elif token[0] in "[{":
            depth += len(token)
            if depth > limit:
                return True
        else:
            depth -= len(token)
    return False


class _Twice(dict[str, Any]):
    """A JSON object that named a key twice: which one, until :func:`parse_json` says where."""

    key: str = ""


def _first_twice(pairs: list[tuple[str, Any]]) -> str:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            return key
        seen.add(key)
    raise AssertionError("no key is given twice")


def _int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise DocumentError(f"a whole number of {digits} digits (at most {MAX_INT_DIGITS}), "
                            f"starting {text[:12]}…")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise DocumentError(f"the number {quote(text, 30)} is too large")
    return value


def _constant(text: str) -> Any:
    raise DocumentError(f"{text} is not a JSON number")


def parse_json(text: str) -> Any:
    """*text* as JSON, within this module's limits.

    :raises DocumentError: for text that is not JSON, nests more than :data:`MAX_DEPTH` deep,
        holds a number beyond the limits or an unpaired surrogate, or names a key twice.
    """
    if json_depth_exceeds(text):
        raise DocumentError(f"nested more than {MAX_DEPTH} levels deep")
    twice: list[_Twice] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(items)
        if len(obj) == len(items):
            return obj
        twice.append(_Twice(obj))
        twice[-1].key = _first_twice(items)
        return twice[-1]

    try:
        doc = json.loads(text, object_pairs_hook=pairs, parse_int=_int, parse_float=_float,
                         parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise DocumentError(f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:  # not reached after the count above; kept as the parser's own guard
        raise DocumentError(f"nested more than {MAX_DEPTH} levels deep") from None
    # Only a document with one of these problems is walked, to say where it is.
    if twice or (_SURROGATE_ESCAPE.search(text) or not _is_text(text)):
        for path, value in _walk(doc):
            if isinstance(value, _Twice):
                raise DocumentError(f"the key {_short(_join(path, value.key))} is given twice "
                                    "(JSON would keep only the last)")
            if isinstance(value, str) and not _is_text(value):
                raise DocumentError(f"{_short(path) or 'the document'}: a string with an unpaired "
                                    f"surrogate ({quote(value, 30)})")
    return doc


def _walk(doc: Any) -> Iterator[tuple[str, Any]]:
    """Every value in *doc* with its path (``players.A.coins[0]``), keys as strings too."""
    stack: list[tuple[str, Any]] = [("", doc)]
    while stack:
        path, value = stack.pop()
        yield path, value
        if isinstance(value, dict):
            children = [(_join(path, key), key, item) for key, item in value.items()]
            for child, key, _ in children:
                yield child, key
            stack.extend((child, item) for child, _, item in reversed(children))
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]", item) for i, item in reversed(list(enumerate(value))))


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _short(path: str) -> str:
    return shorten(path, FIELD_MAX, middle=True)


def _is_text(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# -- TOML -----------------------------------------------------------------------------------

_TOML_LINE = re.compile(r"\(at line (\d+), column (\d+)\)")
_LONG_DECIMAL = re.compile(r"[0-9](?:_?[0-9]){600,}")  # int() refuses from 640 digits at the least


def parse_toml(text: str) -> dict[str, Any]:
    """*text* as TOML, within this module's limits.

    :raises DocumentError: for text that is not TOML (with its line where tomllib gives
        one), nests more than :data:`MAX_DEPTH` deep, or holds a whole number beyond 64 bits;
        the message names the key where it can.
    """
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = _TOML_LINE.search(msg)
        raise DocumentError(f"not valid TOML: {_TOML_LINE.sub('', msg).strip()}",
                            int(m.group(1)) if m else None) from None
    except RecursionError:  # tomllib recurses once per level of arrays and inline tables
        raise DocumentError(f"nested more than {MAX_DEPTH} levels deep") from None
    except ValueError:  # int() refused a decimal of thousands of digits before any check of ours
        m = _LONG_DECIMAL.search(text)
        raise DocumentError(f"a whole number beyond TOML's {TOML_INT_BITS} bits",
                            text.count("\n", 0, m.start()) + 1 if m else None) from None
    stack: list[tuple[str, Any, int]] = [("", doc, 1)]  # the root table is the first level
    while stack:
        path, value, depth = stack.pop()
        if depth > MAX_DEPTH and isinstance(value, (dict, list)):
            raise DocumentError(f"nested more than {MAX_DEPTH} levels deep")
        if isinstance(value, dict):
            stack.extend((_join(path, k), v, depth + 1) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]", v, depth + 1) for i, v in enumerate(value))
        elif isinstance(value, int) and not -(1 << 63) <= value < (1 << 63):
            raise DocumentError(f"a whole number beyond TOML's {TOML_INT_BITS} bits", key=path)
    return doc
