from __future__ import annotations

import threading

import pytest

from firmware_bridge.patterns import ALARM, PatternPlayer, warning_pattern
from tests.slowdown import scaled


def recorder() -> tuple[list[object], PatternPlayer]:
    levels: list[object] = []
    return levels, PatternPlayer(levels.append, False)


@pytest.mark.slow
def test_player_plays_a_pattern_once_and_ends_silent() -> None:
    levels, player = recorder()
    done = threading.Event()
    player.play(warning_pattern(0), on_done=done.set)
    assert levels[0] is True  # the first step is applied before play() returns
    assert done.wait(scaled(2))
    assert levels == [True, False, True, False, False]


def test_player_new_pattern_cuts_the_old_and_on_done_is_not_called() -> None:
    levels, player = recorder()
    first_done = threading.Event()
    player.play(ALARM, repeat_for_s=30, on_done=first_done.set)
    player.play(((True, 0.01), (False, 0.0)))
    assert player.wait(scaled(2))
    assert not first_done.is_set()
    assert levels[-1] is False


def test_player_stop_leaves_it_silent() -> None:
    levels, player = recorder()
    player.play(ALARM, repeat_for_s=30)
    player.stop()
    assert levels[-1] is False and not player.is_playing


def test_warning_patterns_differ() -> None:
    assert len({warning_pattern(i) for i in range(4)}) == 4
