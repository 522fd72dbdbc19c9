"""The one setting for a slower machine (tests/slowdown.py): read once, checked, and applied."""

from __future__ import annotations

import pytest

from tests import slowdown


def test_slowdown_is_one_unless_the_environment_says() -> None:
    assert slowdown._read({}) == 1.0
    assert slowdown._read({slowdown.ENV: " "}) == 1.0
    assert slowdown._read({slowdown.ENV: "8"}) == 8.0
    assert slowdown._read({slowdown.ENV: "2.5"}) == 2.5


@pytest.mark.parametrize("text", ["fast", "0.5", "0", "-3", "1000"])
def test_slowdown_refuses_what_is_no_factor_in_one_line(text: str) -> None:
    with pytest.raises(SystemExit, match=f"COMPANION_TEST_SLOWDOWN={text!r}: give a number"):
        slowdown._read({slowdown.ENV: text})


def test_slowdown_scales_limits_and_divides_example_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(slowdown, "SLOWDOWN", 8.0)
    assert slowdown.scaled(120) == 960
    assert slowdown.examples(2000) == 250
    assert slowdown.examples(300) == slowdown.MIN_EXAMPLES  # never too few to say much
    assert slowdown.examples(50) == 50  # nor more than asked for
    monkeypatch.setattr(slowdown, "SLOWDOWN", 1.0)
    assert slowdown.scaled(120) == 120 and slowdown.examples(2000) == 2000


def test_slowdown_every_test_limit_is_scaled(request: pytest.FixtureRequest) -> None:
    """pytest-timeout's limit of this very test: pyproject's, times the factor (tests/conftest.py)."""
    mark = request.node.get_closest_marker("timeout")
    assert mark is not None and mark.args == (slowdown.scaled(float(request.config.getini("timeout"))),)
