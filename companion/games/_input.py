"""Checking the JSON documents the games read: every error names the field it is about.

Field paths are dotted from the document's root: ``players.Anna.silver``. Each check
returns the value in the type the rules want, or raises :class:`InvalidInput`, whose message
shortens and escapes the names and values it quotes (a name may be a megabyte long, or hold
a newline or a terminal's escape sequence). Names and free text must be printable, so what a
game answers is safe to print too.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping
from typing import Any

from companion.errors import InvalidInput


def expect_object(value: Any, field: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidInput(field, value, "must be a JSON object")
    return value


def expect_list(value: Any, field: str) -> list[Any]:
    if not isinstance(value, list):
        raise InvalidInput(field, value, "must be a JSON list")
    return value


def expect_keys(obj: Mapping[str, Any], field: str, allowed: Collection[str],
                required: Collection[str] = ()) -> None:
    """Refuse unknown keys (suggesting the closest known one) and missing required ones."""
    for key in obj:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), sorted(allowed), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            known = ", ".join(sorted(allowed))
            raise InvalidInput(_join(field, key), obj[key], f"unknown field{hint}; known: {known}")
    for key in required:
        if key not in obj:
            raise InvalidInput(_join(field, key), None, "is required")


def expect_count(value: Any, field: str, at_most: int | None = None) -> int:
    """A whole number from 0 to *at_most* (JSON true/false are not numbers here)."""
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise InvalidInput(field, value, "must be a whole number")
    if value < 0:
        raise InvalidInput(field, value, "must not be negative")
    if at_most is not None and value > at_most:
        raise InvalidInput(field, value, f"must be at most {at_most}")
    return int(value)


def expect_str(value: Any, field: str, choices: Collection[str] | None = None) -> str:
    """A string: one of *choices*, or any printable text (no newline, tab or control character)."""
    if not isinstance(value, str):
        raise InvalidInput(field, value, "must be a string")
    if choices is not None and value not in choices:
        raise InvalidInput(field, value, "must be one of " + ", ".join(repr(c) for c in choices))
    if not value.isprintable():
        raise InvalidInput(field, value, _NOT_PRINTABLE)
    return value


def expect_bool(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInput(field, value, "must be true or false")
    return value


def expect_players(doc: Mapping[str, Any], field: str, min_players: int,
                   max_players: int) -> Mapping[str, Any]:
    """The ``players`` object: between *min_players* and *max_players* names, each printable
    text that is not blank."""
    players = expect_object(doc.get("players"), field)
    if not min_players <= len(players) <= max_players:
        raise InvalidInput(field, len(players),
                           f"this game is for {min_players} to {max_players} players")
    for name in players:
        if not name.strip():
            raise InvalidInput(field, name, "a player needs a name")
        if not name.isprintable():
            raise InvalidInput(field, name, "a player's name " + _NOT_PRINTABLE)
    return players


def winners_of(scores: Mapping[str, int | float]) -> list[str]:
    """Every name tied on the top score, sorted (so no input order changes the answer)."""
    if not scores:
        return []
    best = max(scores.values())
    return sorted(name for name, score in scores.items() if score == best)


_NOT_PRINTABLE = "must be printable text (no newline, tab or control character)"


def _join(field: str, key: str) -> str:
    return f"{field}.{key}" if field else str(key)
