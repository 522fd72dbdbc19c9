"""Durations as people type them at a table, and back: ``90``, ``1:30``, ``1:02:03``, ``1m30s``.

The one grammar for every duration a person types (``companion timer SECONDS``), in ASCII
digits only, any case, surrounding spaces ignored:

- ``S``: seconds, ``90``;
- ``M:SS``: minutes and two-digit seconds under 60, ``1:30``;
- ``H:MM:SS``: hours, two-digit minutes and seconds, each under 60, ``1:02:03``;
- units in the order h, m, s, each at most once, ``1h2m3s``, ``45s``, ``2m``, ``1h30s``: the
  minutes and seconds are under 60 when a larger unit is written before them (``90s`` and
  ``90m`` are fine, ``1m90s`` is not).

A fraction of a second (``2.5``, ``1:30.5``, ``1m30.5s``) is allowed on the seconds only, the
last field; the display counts whole seconds. The value must be from :data:`MIN_TIMER_S` (1 s)
to :data:`MAX_TIMER_S` (24 h). Signs, exponents, underscores, other scripts' digits, ``inf``
and ``nan`` are not durations.
"""

from __future__ import annotations

import math
import re

from companion.errors import InvalidInput
from companion.timers import MAX_TIMER_S, MIN_TIMER_S, check_duration

GRAMMAR = ("seconds (90 or 2.5), M:SS (1:30), H:MM:SS (1:02:03) or 1h2m3s (minutes and seconds "
           "under 60 after a larger unit), from 1 s to 24 h")
"""What :func:`parse_duration` accepts, in the words of its error message."""

MAX_TEXT_CHARS = 32
"""Longer input is refused before it is matched: no duration in the grammar needs more."""

_DIGITS = "[0-9]+"
_FRACTION = r"(?:\.[0-9]+)?"
_UNDER_60 = "[0-5][0-9]"
_PLAIN = re.compile(rf"(?P<s>{_DIGITS}{_FRACTION})", re.ASCII)
_CLOCK = re.compile(rf"(?:(?P<h>{_DIGITS}):(?P<hm>{_UNDER_60})|(?P<m>{_DIGITS}))"
                    rf":(?P<s>{_UNDER_60}{_FRACTION})", re.ASCII)
_UNITS = re.compile(rf"(?:(?P<h>{_DIGITS})h)?(?:(?P<m>{_DIGITS})m)?(?:(?P<s>{_DIGITS}{_FRACTION})s)?",
                    re.ASCII)


def parse_duration(text: str, field: str = "duration") -> float:
    """Seconds from a duration in the module's grammar: ``"90"``, ``"1:30"``, ``"1m30s"``...

    :raises InvalidInput: naming *field*, quoting *text* and stating the grammar, for anything
        outside it or outside 1 s to 24 h.
    """
    seconds = _seconds_of(text.strip().lower()) if len(text.strip()) <= MAX_TEXT_CHARS else None
    if seconds is None or not MIN_TIMER_S <= seconds <= MAX_TIMER_S:
        raise InvalidInput(field, text, f"must be {GRAMMAR}")
    return check_duration(field, seconds, at_least=MIN_TIMER_S)


def _seconds_of(cleaned: str) -> float | None:
    """The seconds *cleaned* (stripped, lower case) stands for, or None outside the grammar."""
    if m := _PLAIN.fullmatch(cleaned):
        return float(m["s"])
    if m := _CLOCK.fullmatch(cleaned):
        if m["h"] is not None:
            return int(m["h"]) * 3600 + int(m["hm"]) * 60 + float(m["s"])
        return int(m["m"]) * 60 + float(m["s"])
    m = _UNITS.fullmatch(cleaned)
    if m is None or not cleaned:
        return None
    h, mins, s = (int(m["h"] or 0), int(m["m"] or 0), float(m["s"] or 0))
    if (m["h"] is not None and mins >= 60) or ((m["h"] is not None or m["m"] is not None) and s >= 60):
        return None  # over its carry: 1m90s is 2m30s, written so
    return h * 3600 + mins * 60 + s


def to_duration_text(seconds: float) -> str:
    """``"m:ss"`` (or ``"h:mm:ss"``), rounding up so a display reads 0:00 only at the end."""
    whole = max(0, math.ceil(seconds - 1e-9))
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"
