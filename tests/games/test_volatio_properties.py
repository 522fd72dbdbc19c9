"""Volatio's rules: invariants, as Hypothesis properties."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.games import volatio as v
from companion.games.volatio import (
    DebilitatusDrawn,
    Eliminated,
    Flight,
    TrackPosition,
)
from tests.games.volatio_helpers import dragon

# -- invariants ---------------------------------------------------------------------------------------

dials = st.sampled_from(v.DIAL_SPEEDS)
spells = st.sampled_from([None, "vis-draconis", "ventus-magicus"])


@pytest.mark.slow
@given(start=dials, data=st.data())
def test_legal_speeds_sequence_stays_on_dial_within_limit(start: int, data: st.DataObject) -> None:
    previous = start
    for _ in range(12):
        fatigued = data.draw(st.booleans())
        if fatigued and previous > v.FATIGUED_MAX_SPEED:
            previous = v.FATIGUE_SPEED  # a dragon becomes fatigued with both pointers at 300
        new = data.draw(st.sampled_from(v.legal_speeds(previous, fatigued=fatigued)))
        assert new in v.DIAL_SPEEDS and abs(new - previous) <= v.MAX_SPEED_CHANGE
        assert not fatigued or new <= v.FATIGUED_MAX_SPEED
        previous = new


@given(previous=dials, new=dials, fatigued=st.booleans(), spell=spells)
def test_speed_check_legal_exactly_when_in_legal_speeds(previous: int, new: int, fatigued: bool,
                                                        spell: str | None) -> None:
    check = v.speed_check(previous, new, fatigued=fatigued, spell=spell)
    assert check.legal == (new in v.legal_speeds(previous, fatigued=fatigued))
    assert (check.reason is None) == check.legal


@given(previous=dials, new=dials, fatigued=st.booleans(), spell=spells)
def test_speed_check_templates_near_dial_and_under_fatigue_cap(previous: int, new: int, fatigued: bool,
                                                               spell: str | None) -> None:
    check = v.speed_check(previous, new, fatigued=fatigued, spell=spell)
    if check.legal:
        assert new in check.templates and list(check.templates) == sorted(check.templates)
        assert all(t in v.DIAL_SPEEDS and abs(t - new) <= v.SPELL_TEMPLATE_SHIFT for t in check.templates)
        assert not fatigued or max(check.templates) <= v.FATIGUED_MAX_SPEED
        assert spell is not None or check.templates == (new,)


@given(energy=st.integers(0, 4), extra=st.integers(1, 6), laid=st.booleans())
def test_lose_energy_second_debilitatus_always_eliminates(energy: int, extra: int, laid: bool) -> None:
    mage, events = v.lose_energy(dragon(energy=energy, hand=0, speed=300, debilitatus=1, laid=laid),
                                 energy + extra)
    assert mage.eliminated and events[-2:] == (DebilitatusDrawn(2), Eliminated())


flights = st.builds(Flight, base_crash=st.booleans(), path_crash=st.booleans(), collision=st.booleans(),
                    energy_field=st.booleans(), symbols=st.integers(0, 3),
                    traps=st.lists(st.sampled_from(v.TRAP_VALUES), max_size=3).map(tuple))


@given(energy=st.integers(0, 4), hand=st.integers(0, 4), flights=st.lists(flights, max_size=15),
       heads=st.lists(st.integers(0, 2), max_size=15))
@pytest.mark.slow
def test_resolve_flight_state_stays_in_range(energy: int, hand: int, flights: list[Flight],
                                             heads: list[int]) -> None:
    mage = dragon(energy=energy, hand=hand)
    for flight, hit in zip(flights, heads + [0] * len(flights), strict=False):
        if mage.eliminated:
            break
        mage, _ = v.resolve_flight(mage, flight)  # Dragon's own checks reject any out-of-range state
        if not mage.eliminated:
            mage, _ = v.fireball(mage, hit)
        if mage.is_fatigued:
            assert mage.hand == 0 and set(v.legal_dials(mage)) <= {100, 200, 300, 400, 500}


positions = st.dictionaries(st.text(min_size=1, max_size=5),
                            st.builds(TrackPosition, st.integers(0, 2000), st.integers(0, 300)),
                            max_size=6)


@given(positions=positions, seed=st.integers(0, 2**16))
def test_fly_order_permutation_independent_of_input_order(positions: dict[str, TrackPosition],
                                                          seed: int) -> None:
    names = list(positions)
    random.Random(seed).shuffle(names)
    shuffled = {name: positions[name] for name in names}
    order = v.fly_order(positions)
    assert sorted(order) == sorted(positions) and v.fly_order(shuffled) == order


@given(positions=positions, finish=st.integers(0, 2000))
def test_race_result_winner_is_furthest_crosser(positions: dict[str, TrackPosition], finish: int) -> None:
    result = v.race_result(positions, finish)
    assert result.is_over == any(p.progress_mm >= finish for p in positions.values())
    if result.is_over:
        best = max(result.past_line_mm.values())
        assert all(result.past_line_mm[w] == best for w in result.winners)
