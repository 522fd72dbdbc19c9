"""The core's errors: one root, each concrete error also a builtin a caller would catch.

Messages quote what the user gave, and what the user gave may be hostile: a megabyte
of name, a newline, a terminal's escape sequence. Every message is therefore built
with :func:`quote` and :func:`shorten`: control characters escaped, long text cut.
"""

from __future__ import annotations

QUOTE_MAX = 60  # characters of a quoted value (its repr), with the '…'
FIELD_MAX = 80  # characters of a field, a key or a file name
WHY_MAX = 200  # characters of the reason (it may name a player)
LINE_MAX = 300  # characters of a whole error line, as main() prints it
ELLIPSIS = "…"


def escape(text: str) -> str:
    """*text* with every character that is not printable (newline, ESC, U+2028, a lone
    surrogate, ...) written as a Python escape: ``\\n``, ``\\x1b``, ``\\u2028``."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _escaped(c) for c in text)


_SIMPLE = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(char: str) -> str:
    code = ord(char)
    if char in _SIMPLE:
        return _SIMPLE[char]
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def shorten(text: str, limit: int = WHY_MAX, *, middle: bool = False) -> str:
    """*text* escaped (:func:`escape`) and at most *limit* characters, the cut marked '…'.

    With *middle* the cut is in the middle, so the end stays readable: a field path
    such as ``players.<a very long name>.silver`` keeps its ``.silver``.
    """
    window = limit * 10  # an escape is at most 10 characters: a megabyte need not be escaped whole
    if len(text) <= window:
        head = tail = escape(text)
        if len(head) <= limit:
            return head
    else:
        head, tail = escape(text[:window]), escape(text[-window:])
    if middle:
        n_tail = (limit - 1) // 3
        return head[: limit - 1 - n_tail] + ELLIPSIS + tail[len(tail) - n_tail:]
    return head[: limit - 1] + ELLIPSIS


def quote(value: object, limit: int = QUOTE_MAX) -> str:
    """``repr(value)`` for a message: escaped and shortened in the middle to *limit* characters
    (so a file's name and a string's closing quote stay in view).

    An int too long to write out (Python refuses past 4,300 digits) is described instead.
    """
    if isinstance(value, int) and value.bit_length() > 4 * limit:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        text = f"<{type(value).__name__}>"
    return shorten(text, limit, middle=True)


class CompanionError(Exception):
    """Root of every error the core raises on purpose; the CLI turns it into one line."""


class InvalidInput(CompanionError, ValueError):
    """Bad input from a user or a file; the message names the field and quotes the value.

    The message is short and on one line whatever the input: the field is cut in the
    middle, the value and the reason at the end (:func:`shorten`, :func:`quote`).
    The attributes keep what was given, whole.
    """

    def __init__(self, field: str, value: object, why: str) -> None:
        super().__init__(f"{shorten(field, FIELD_MAX, middle=True)}: {shorten(why)} (got {quote(value)})")
        self.field = field
        self.value = value
        self.why = why


class ConfigError(CompanionError, ValueError):
    """A config file that cannot be used: names the file, the line where known, and the key.

    The file name and the key are shortened in the middle and escaped, the reason at the end.
    """

    def __init__(self, path: str, key: str | None, why: str, line: int | None = None) -> None:
        short = shorten(path, FIELD_MAX, middle=True)
        where = short if line is None else f"{short}, line {line}"
        reason = shorten(why)
        super().__init__(f"config {where}: {shorten(key, FIELD_MAX, middle=True)}: {reason}" if key
                         else f"config {where}: {reason}")
        self.path, self.key, self.line, self.why = path, key, line, why


class NotRegistered(CompanionError):
    """The camera has no piece library yet: a photo cannot name a piece until the host registers
    them (``companion vision register``)."""


class NoCamera(CompanionError):
    """The overhead camera gives no picture (unplugged, in use, not a camera): the message says
    which and why, in one line."""


class TimerStateError(CompanionError, RuntimeError):
    """A command that makes no sense in the timer's current state."""


class UnknownTimer(CompanionError, KeyError):
    """A command names a timer that does not exist."""

    def __str__(self) -> str:  # KeyError would quote the whole message again
        return str(self.args[0])


def one_line(message: str, limit: int = LINE_MAX) -> str:
    """*message* as one line of at most *limit* characters, control characters escaped:
    the last guard before anything reaches a terminal."""
    return shorten(message, limit)
