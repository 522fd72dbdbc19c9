from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.durations import parse_duration, to_duration_text
from companion.errors import InvalidInput


@pytest.mark.parametrize(("text", "seconds"), [
    ("90", 90), ("2.5", 2.5), ("1:30", 90), ("01:02:03", 3723), ("1m30s", 90), ("45s", 45),
    ("2m", 120), ("1h", 3600), (" 60 ", 60),
])
def test_parse_duration_accepts_what_people_type(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["-5", "0", "", "abc", "1:75", "nan", "inf", "1m-3s", "25h"])
def test_parse_duration_refuses_with_the_field_and_the_text(text: str) -> None:
    with pytest.raises(InvalidInput) as info:
        parse_duration(text, "SECONDS")
    assert str(info.value).startswith("SECONDS: ")
    assert repr(text) in str(info.value)


@given(st.integers(min_value=1, max_value=86_400))
def test_duration_text_round_trips(seconds: int) -> None:
    assert parse_duration(to_duration_text(seconds)) == seconds


@given(st.floats(min_value=0.001, max_value=86_400))
def test_duration_text_never_shows_zero_before_the_end(seconds: float) -> None:
    assert to_duration_text(seconds) not in ("0:00", "0:00:00")
