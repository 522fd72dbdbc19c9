"""The PIN pad's lock-out on disk: a restart (or a pulled plug) neither clears the count of wrong
PINs nor shortens a lock-out; the file is written atomically and only its owner may read it."""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kiosk.pin import MIN_COST_N, TRIES_FILE, PinGuard, PinTries, PinTriesFile, PinVerdict, hash_pin
from tests.conftest import FakeClock

RIGHT = "2468"
STORED = hash_pin(RIGHT, cost_n=MIN_COST_N)


def guard_at(folder: Path, start: float = 1_000.0) -> tuple[PinGuard, FakeClock]:
    """A guard as the app makes one at a start: its clock starts anywhere (a new boot's)."""
    clock = FakeClock(start)
    return PinGuard(STORED, clock, tries=PinTriesFile(folder / TRIES_FILE)), clock


def test_pin_store_lockout_continues_after_a_restart(tmp_path: Path) -> None:
    guard, _ = guard_at(tmp_path)
    assert [guard.check("0000") for _ in range(3)][-1] == PinVerdict(False, 30.0)
    after, clock = guard_at(tmp_path, start=5.0)  # a reboot: monotonic time starts again
    assert after.wait_s() == 30.0
    assert after.check(RIGHT) == PinVerdict(False, 30.0)  # the right PIN, but not yet
    clock.advance(30)
    assert after.check(RIGHT) == PinVerdict(True)


def test_pin_store_restart_never_shortens_a_lockout(tmp_path: Path) -> None:
    guard, clock = guard_at(tmp_path)
    [guard.check("0000") for _ in range(3)]
    clock.advance(20)
    assert guard.wait_s() == 10.0
    after, _ = guard_at(tmp_path, start=0.0)
    assert after.wait_s() == 30.0  # what was left when it was written, counted from the start


def test_pin_store_count_of_wrong_tries_survives_a_restart(tmp_path: Path) -> None:
    guard, _ = guard_at(tmp_path)
    assert [guard.check("0000") for _ in range(2)] == [PinVerdict(False), PinVerdict(False)]
    after, _ = guard_at(tmp_path)
    assert after.check("1111") == PinVerdict(False, 30.0)  # the third wrong one, across the restart


def test_pin_store_growing_lockout_survives_a_restart(tmp_path: Path) -> None:
    guard, clock = guard_at(tmp_path)
    [guard.check("0000") for _ in range(3)]
    clock.advance(30)
    assert guard.check("0000") == PinVerdict(False, 60.0)
    after, clock = guard_at(tmp_path, start=0.0)
    clock.advance(60)
    assert after.check("0000") == PinVerdict(False, 120.0)  # twice the last, not back to 30


def test_pin_store_right_pin_clears_it_on_disk(tmp_path: Path) -> None:
    guard, _ = guard_at(tmp_path)
    guard.check("0000")
    guard.check(RIGHT)
    assert PinTriesFile(tmp_path / TRIES_FILE).load() == PinTries(0, 0.0)
    after, _ = guard_at(tmp_path)
    assert [after.check("0000") for _ in range(3)][-1] == PinVerdict(False, 30.0)


def test_pin_store_served_lockout_is_not_served_again_after_a_restart(tmp_path: Path) -> None:
    guard, clock = guard_at(tmp_path)
    [guard.check("0000") for _ in range(3)]
    clock.advance(30)
    assert guard.wait_s() == 0.0  # the pad looked at after the lock-out ran out
    after, _ = guard_at(tmp_path)
    assert after.wait_s() == 0.0
    assert after.check("0000") == PinVerdict(False, 60.0)  # the count itself stays


def test_pin_store_file_is_0600_and_holds_only_the_count(tmp_path: Path) -> None:
    guard, _ = guard_at(tmp_path / "data")  # the data folder need not exist yet
    [guard.check("0000") for _ in range(3)]
    path = tmp_path / "data" / TRIES_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == {"wrong": 3, "locked_for_s": 30.0}
    assert os.listdir(tmp_path / "data") == [TRIES_FILE]  # no temporary file left


def test_pin_store_write_goes_through_the_atomic_rename(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    guard, _ = guard_at(tmp_path)
    guard.check("0000")
    before = (tmp_path / TRIES_FILE).read_bytes()
    replaced: list[str] = []
    real_replace = os.replace

    def replace(src: str | Path, dst: str | Path) -> None:
        replaced.append(Path(dst).name)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", replace)
    guard.check("1111")
    monkeypatch.setattr(os, "replace", real_replace)
    assert replaced == [TRIES_FILE]
    assert (tmp_path / TRIES_FILE).read_bytes() == before and os.listdir(tmp_path) == [TRIES_FILE]


def test_pin_store_unwritable_goes_on_in_memory_and_says_so_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    def read_only(*_: object) -> None:
        raise OSError(30, "Read-only file system")

    guard, _ = guard_at(tmp_path)
    monkeypatch.setattr(os, "replace", read_only)
    with caplog.at_level(logging.WARNING, logger="kiosk.pin"):
        verdicts = [guard.check("0000") for _ in range(3)]
    assert verdicts[-1] == PinVerdict(False, 30.0)
    assert [r.levelname for r in caplog.records] == ["WARNING"]
    assert "cannot be written" in caplog.records[0].getMessage()


@pytest.mark.parametrize("text", ["{", "[]", '{"wrong": -1, "locked_for_s": 0}', '{"wrong": 1}',
                                  '{"wrong": 1, "locked_for_s": "30"}', '{"wrong": true, "locked_for_s": 0}',
                                  '{"wrong": 0, "locked_for_s": NaN}'])
def test_pin_store_unreadable_file_counts_as_a_lockout(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                                       text: str) -> None:
    (tmp_path / TRIES_FILE).write_text(text)
    with caplog.at_level(logging.WARNING, logger="kiosk.pin"):
        guard, _ = guard_at(tmp_path)
    assert guard.wait_s() == 30.0 and guard.check(RIGHT) == PinVerdict(False, 30.0)
    assert [r.levelname for r in caplog.records] == ["WARNING"]


def test_pin_store_resumed_lockout_is_at_most_the_longest(tmp_path: Path) -> None:
    (tmp_path / TRIES_FILE).write_text('{"wrong": 9, "locked_for_s": 1e9}')
    guard, _ = guard_at(tmp_path)
    assert guard.wait_s() == 300.0


steps = st.lists(st.one_of(
    st.tuples(st.just("try"), st.sampled_from(["0000", "1357", RIGHT]), st.floats(0, 400)),
    st.tuples(st.just("restart"), st.just(""), st.floats(0, 400)),
), max_size=25)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(script=steps)
def test_pin_store_restarts_never_shorten_and_never_let_a_locked_pad_through(
        tmp_path_factory: pytest.TempPathFactory, script: list[tuple[str, str, float]]) -> None:
    folder = tmp_path_factory.mktemp("tries")
    guard, clock = guard_at(folder)
    for kind, pin, gap in script:
        if kind == "restart":
            left = guard.wait_s()
            guard, clock = guard_at(folder, start=gap)  # any clock at all after a reboot
            assert guard.wait_s() >= left - 1e-6  # never shorter (but for float rounding: 60 vs 60.000000000000014)
            continue
        locked = guard.wait_s() > 0
        verdict = guard.check(pin)
        assert not (locked and verdict.accepted)
        assert verdict.accepted == (pin == RIGHT and not locked)
        clock.advance(gap)
