"""Durations as people type them at a table, and back: ``90``, ``1:30``, ``1m30s``, ``45s``."""

from __future__ import annotations

import math
import re

from companion.errors import InvalidInput
from companion.timers import check_duration

_UNITS = re.compile(r"^(?:(?P<h>\d+(?:\.\d+)?)h)?(?:(?P<m>\d+(?:\.\d+)?)m)?(?:(?P<s>\d+(?:\.\d+)?)s)?$")
_CLOCK = re.compile(r"^(?:(?P<h>\d+):)?(?P<m>\d+):(?P<s>[0-5]\d(?:\.\d+)?)$")


def parse_duration(text: str, field: str = "duration") -> float:
    """Seconds from ``"90"``, ``"-5"`` (refused), ``"1:30"``, ``"1:02:03"``, ``"1m30s"`` or ``"2.5"``.

    :raises InvalidInput: naming *field* and quoting *text*, for anything else, for zero,
        a negative value or more than a day.
    """
    cleaned = text.strip().lower()
    try:
        value = float(cleaned)
    except ValueError:
        value = None
    if value is not None:
        if math.isnan(value) or math.isinf(value):
            raise InvalidInput(field, text, "must be a finite number of seconds")
        if value < 0:
            raise InvalidInput(field, text, "must be positive: a timer cannot run backwards")
        return _checked(field, text, value)
    m = _CLOCK.match(cleaned) or (_UNITS.match(cleaned) if cleaned else None)
    if m is None or not any(m.groupdict().values()):
        raise InvalidInput(field, text, "must be seconds (90), minutes:seconds (1:30) or 1m30s")
    parts = {k: float(v) if v else 0.0 for k, v in m.groupdict().items()}
    return _checked(field, text, parts["h"] * 3600 + parts["m"] * 60 + parts["s"])


def _checked(field: str, text: str, seconds: float) -> float:
    """:func:`check_duration`, but the error quotes what was typed, not the number made of it."""
    try:
        return check_duration(field, seconds)
    except InvalidInput as exc:
        raise InvalidInput(field, text, exc.why) from None


def to_duration_text(seconds: float) -> str:
    """``"m:ss"`` (or ``"h:mm:ss"``), rounding up so a display reads 0:00 only at the end."""
    whole = max(0, math.ceil(seconds - 1e-9))
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"
