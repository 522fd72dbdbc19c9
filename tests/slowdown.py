"""How much slower than a desktop the machine running the tests is: one setting for every deadline.

``COMPANION_TEST_SLOWDOWN`` (default 1) is read here and nowhere else. Every time limit in the
tests (pytest-timeout's per-test limit, a subprocess's ``timeout=``, a wait for a line, a file
or a widget) is multiplied by it through :func:`scaled`, so the suite holds on a Raspberry Pi
(``COMPANION_TEST_SLOWDOWN=8``) or a machine busy with other work. The long Hypothesis oracle
runs divide their example counts by it instead (:func:`examples`), so a Pi run stays within
minutes; their properties keep ``deadline=None`` (no example is ever timed).

No test waits *for* time to pass by these numbers: they are only how long to wait for an event
before saying it never came.
"""

from __future__ import annotations

import os

ENV = "COMPANION_TEST_SLOWDOWN"


def _read(environ: os._Environ[str] | dict[str, str]) -> float:
    text = environ.get(ENV, "").strip()
    if not text:
        return 1.0
    try:
        value = float(text)
    except ValueError:
        raise SystemExit(f"{ENV}={text!r}: give a number, e.g. 8 on a Raspberry Pi") from None
    if not 1 <= value <= 100:
        raise SystemExit(f"{ENV}={text!r}: give a number from 1 (a desktop) to 100")
    return value


SLOWDOWN = _read(os.environ)
"""The factor, 1 to 100 (1 unless the environment says otherwise)."""

MIN_EXAMPLES = 100
"""The fewest examples a divided Hypothesis run keeps (a property tried on fewer says little)."""


def scaled(seconds: float) -> float:
    """*seconds* of patience on a desktop, made room for on this machine (seconds)."""
    return seconds * SLOWDOWN


def examples(count: int) -> int:
    """A Hypothesis example count for a long run: *count* on a desktop, divided by the slowdown,
    never below :data:`MIN_EXAMPLES` (nor above *count*)."""
    return min(count, max(MIN_EXAMPLES, round(count / SLOWDOWN)))
