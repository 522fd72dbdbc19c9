"""The one duration grammar: S, M:SS, H:MM:SS or 1h2m3s, ASCII digits, 1 s to 24 h.

The grammar is written out again here as its own regular expression (:data:`SPEC`), so the
parser is checked against the README's words rather than against itself.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from companion.config import ConfigError, parse_config
from companion.durations import GRAMMAR, parse_duration
from companion.errors import InvalidInput
from companion.timers import MAX_TIMER_S, MIN_TIMER_S, check_duration

SPEC = re.compile(
    r"[0-9]+(\.[0-9]+)?"                                   # S
    r"|[0-9]+:[0-5][0-9](\.[0-9]+)?"                       # M:SS
    r"|[0-9]+:[0-5][0-9]:[0-5][0-9](\.[0-9]+)?"            # H:MM:SS
    r"|[0-9]+h(0*[0-5]?[0-9]m)?(0*[0-5]?[0-9](\.[0-9]+)?s)?"  # units led by hours
    r"|[0-9]+m(0*[0-5]?[0-9](\.[0-9]+)?s)?"                    # ... by minutes
    r"|[0-9]+(\.[0-9]+)?s",                                # ... by seconds
    re.ASCII)


def refused(text: str) -> str:
    """The message *text* is refused with; fails the test if it is taken."""
    with pytest.raises(InvalidInput) as info:
        parse_duration(text, "SECONDS")
    message = str(info.value)
    assert message.startswith("SECONDS: ") and GRAMMAR in message and repr(text) in message, message
    return message


# -- the cases that were taken wrongly, and their neighbours ---------------------------------------

@pytest.mark.parametrize("text", [
    "1e-9", "1E3", "2e1s",                   # exponents
    "1m90s", "1:60", "1:60:00", "1:00:60", "1h60m", "1h60s", "2m60s", "1h0m60s",  # over the carry
    "٣", "١:٣٠", "１０", "1m٣s", "৩s",        # other scripts' digits (Arabic-Indic, fullwidth, Bengali)
    "1_0", "1_000s", "1:3_0",                # underscores
    "+5", "-5", "+1:30", "-1m", "1m-3s",     # signs
    "0", "0.5", "0:00", "0s", "0h0m0s",      # under 1 s
    "86400.5", "86401", "24:00:01", "24h1s", "25h", "1441m",  # over 24 h
    "inf", "nan", "infinity", "", " ", "abc", "1 m", "1m 30s", "1.5m", "1.5h", ".5", "5.", "1:2:03",
    "1:5", "1:30:", ":30", "1s2m", "1m1m", "1hm", "0x10", "9" * 40,
])
def test_parse_duration_refuses_outside_the_grammar(text: str) -> None:
    refused(text)


@pytest.mark.parametrize(("text", "seconds"), [
    ("1", 1), ("86400", 86_400), ("24h", 86_400), ("24:00:00", 86_400), ("1440m", 86_400),
    ("1:59:59", 7199), ("90s", 90), ("90m", 5400), ("1h30s", 3630), ("1h59m59s", 7199),
    ("2.5", 2.5), ("1:30.5", 90.5), ("1m30.5s", 90.5), ("1M30S", 90), ("007", 7), ("61:30", 3690),
    ("1.0", 1.0),
])
def test_parse_duration_takes_the_grammar(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


def test_parse_duration_message_states_the_grammar() -> None:
    assert refused("1m90s") == (
        "SECONDS: must be seconds (90 or 2.5), M:SS (1:30), H:MM:SS (1:02:03) or 1h2m3s (minutes "
        "and seconds under 60 after a larger unit), from 1 s to 24 h (got '1m90s')")


# -- properties ----------------------------------------------------------------------------------

fractions = st.from_regex(r"(\.[0-9]{1,3})?", fullmatch=True)


@st.composite
def typed_durations(draw: st.DrawFn) -> tuple[str, float]:
    """A duration from 1 s to 24 h written in one of the grammar's forms, and its seconds."""
    whole = draw(st.integers(1, int(MAX_TIMER_S)))
    frac = "" if whole == MAX_TIMER_S else draw(fractions)
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    form = draw(st.sampled_from(["S", "M:SS", "H:MM:SS", "h", "m", "s"]))
    if form == "S":
        text = f"{whole}{frac}"
    elif form == "M:SS":
        text = f"{whole // 60}:{whole % 60:02d}{frac}"
    elif form == "H:MM:SS":
        text = f"{h}:{m:02d}:{s:02d}{frac}"
    else:  # units, led by hours, minutes or seconds; the leader takes what the others leave
        lead = {"h": [("h", h), ("m", m), ("s", s)], "m": [("m", whole // 60), ("s", s)],
                "s": [("s", whole)]}[form]
        keep_zeros = draw(st.booleans())
        parts = [lead[0]] + [(u, v) for u, v in lead[1:] if v or keep_zeros or (u == "s" and frac)]
        text = "".join(f"{v}{frac if u == 's' else ''}{u}" for u, v in parts)
    if draw(st.booleans()):
        text = text.upper()
    return f"{draw(st.sampled_from(['', ' ', '  ']))}{text}{draw(st.sampled_from(['', ' ']))}", \
        whole + (float(f"0{frac}") if frac else 0.0)


@pytest.mark.slow
@given(typed_durations())
def test_every_duration_in_the_grammar_parses_back(case: tuple[str, float]) -> None:
    text, seconds = case
    assert SPEC.fullmatch(text.strip().lower())
    assert parse_duration(text) == pytest.approx(seconds, abs=1e-9)


other_digits = st.characters(categories=["Nd"]).filter(lambda c: not c.isascii())


@pytest.mark.slow
@given(typed_durations(), other_digits, st.data())
def test_other_scripts_digits_are_refused(case: tuple[str, float], digit: str, data: st.DataObject) -> None:
    text = case[0]
    where = data.draw(st.sampled_from([i for i, c in enumerate(text) if c.isdigit()]))
    refused(text[:where] + digit + text[where + 1:])


@pytest.mark.slow
@given(typed_durations(), st.data())
def test_underscores_are_refused(case: tuple[str, float], data: st.DataObject) -> None:
    text = case[0].strip()
    where = data.draw(st.integers(0, len(text)))
    refused(text[:where] + "_" + text[where:])


@given(st.integers(0, 99_999), fractions, st.sampled_from(["e", "E"]), st.sampled_from(["", "+", "-"]),
       st.integers(0, 12), st.sampled_from(["", "s"]))
@pytest.mark.slow
def test_exponents_are_refused(mantissa: int, frac: str, e: str, sign: str, exp: int, unit: str) -> None:
    refused(f"{mantissa}{frac}{e}{sign}{exp}{unit}")


@pytest.mark.slow
@given(typed_durations(), st.sampled_from(["+", "-", "−"]))
def test_signs_are_refused(case: tuple[str, float], sign: str) -> None:
    refused(sign + case[0].strip())


@st.composite
def over_carry(draw: st.DrawFn) -> str:
    """A clock or units duration with a minutes or seconds field of 60 or more after a larger one."""
    big = draw(st.integers(60, 99))
    small = draw(st.integers(0, 59))
    lead = draw(st.integers(0, 23))
    return draw(st.sampled_from([
        f"{lead}:{big}", f"{lead}:{big}:{small:02d}", f"{lead}:{small:02d}:{big}",
        f"{lead}h{big}m", f"{lead}h{big}s", f"{lead}m{big}s", f"{lead}h{small}m{big}s", f"{lead}:{big}.5",
    ]))


@given(over_carry())
def test_fields_over_their_carry_are_refused(text: str) -> None:
    refused(text)


@given(st.one_of(st.floats(min_value=0, max_value=MIN_TIMER_S, exclude_max=True),
                 st.floats(min_value=MAX_TIMER_S, exclude_min=True, max_value=1e7)))
def test_durations_outside_1s_to_24h_are_refused(seconds: float) -> None:
    text = f"{seconds:.6f}".rstrip("0").rstrip(".")
    assume(not MIN_TIMER_S <= float(text) <= MAX_TIMER_S)
    refused(text)


@given(st.text(alphabet="0123456789:.hmsHMS+-e_ ٣", max_size=12))
def test_parse_duration_takes_exactly_the_grammar(text: str) -> None:
    """Any string over the grammar's own characters and a few others: taken exactly when it is
    in the grammar and from 1 s to 24 h."""
    try:
        seconds = parse_duration(text)
    except InvalidInput as exc:
        assert GRAMMAR in str(exc)
        seconds = None
    in_grammar = SPEC.fullmatch(text.strip().lower()) is not None
    if seconds is not None:
        assert in_grammar and MIN_TIMER_S <= seconds <= MAX_TIMER_S, text
    else:
        assert not in_grammar or not MIN_TIMER_S <= _spec_seconds(text) <= MAX_TIMER_S, text


def _spec_seconds(text: str) -> float:
    """The seconds a string :data:`SPEC` matches stands for, worked out apart from the parser."""
    t = text.strip().lower()
    if ":" in t:
        fields = [float(f) for f in t.split(":")]
        return sum(f * 60 ** i for i, f in enumerate(reversed(fields)))
    if t[-1] not in "hms":
        return float(t)
    total, number = 0.0, ""
    for c in t:
        if c in "hms":
            total += float(number) * {"h": 3600, "m": 60, "s": 1}[c]
            number = ""
        else:
            number += c
    return total


# -- the core's check, and the config's numbers -----------------------------------------------------

def test_check_duration_holds_typed_values_to_at_least() -> None:
    assert check_duration("t", 0.5) == 0.5  # the core itself takes a short timer
    with pytest.raises(InvalidInput, match="at least 1 s"):
        check_duration("t", 0.5, at_least=MIN_TIMER_S)
    assert check_duration("t", 0, allow_zero=True, at_least=MIN_TIMER_S) == 0
    with pytest.raises(InvalidInput, match="0 or at least 1 s"):
        check_duration("t", 1e-9, allow_zero=True, at_least=MIN_TIMER_S)


@pytest.mark.parametrize(("text", "message"), [
    ("[turn_clock]\nbudget_s = 0.5\n",
     "config f.toml, line 2: turn_clock.budget_s: must be from 1 s to 86400 s (24 h) (got 0.5)"),
    ("[turn_clock]\nbudget_s = 1e-9\n",
     "config f.toml, line 2: turn_clock.budget_s: must be from 1 s to 86400 s (24 h) (got 1e-09)"),
    ("[turn_clock]\nbudget_s = 86401\n",
     "config f.toml, line 2: turn_clock.budget_s: must be from 1 s to 86400 s (24 h) (got 86401)"),
    ("[turn_clock]\nincrement_s = 0.5\n",
     "config f.toml, line 2: turn_clock.increment_s: must be 0 or from 1 s to 86400 s (24 h) (got 0.5)"),
    ("[timer.presets]\nquick = 0.25\n",
     "config f.toml, line 2: timer.presets.quick: must be from 1 s to 86400 s (24 h) (got 0.25)"),
    ("[timer]\nwarnings_s = [10, 0.5]\n",
     "config f.toml, line 2: timer.warnings_s: must be from 1 s to 86400 s (24 h) (got [10, 0.5])"),
    ("[timer]\nwarnings_s = [1e5]\n",
     "config f.toml, line 2: timer.warnings_s: must be from 1 s to 86400 s (24 h) (got [100000.0])"),
])
def test_config_durations_are_1s_to_24h(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(text, "f.toml")
    assert str(info.value) == message


def test_config_durations_at_the_limits_and_the_hardware_timings() -> None:
    config = parse_config("[turn_clock]\nbudget_s = 86400\nincrement_s = 0\n[timer]\nwarnings_s = [1]\n"
                          "[timer.presets]\nquick = 1\n[gpio]\nalarm_s = 0.2\nbutton_bounce_s = 0\n")
    assert (config["turn_clock.budget_s"], config["turn_clock.increment_s"]) == (86_400, 0)
    assert config["timer.warnings_s"] == (1,) and config.presets["quick"] == 1
    assert (config["gpio.alarm_s"], config["gpio.button_bounce_s"]) == (0.2, 0)  # not timers' lengths
