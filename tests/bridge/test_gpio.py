"""The GPIO panel on gpiozero's own MockFactory, checked through the pins' recorded histories."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory

from companion.events import EventBus
from companion.timers import Phase, TimerBoard
from firmware_bridge.board import is_raspberry_pi
from firmware_bridge.errors import GPIOUnavailable, PinConflict
from firmware_bridge.gpio import ButtonActions, PanelSettings, PinSetup, SandTimerPanel, choose_pin_factory
from tests.conftest import FakeClock
from tests.slowdown import scaled

BAR = (5, 6, 13, 19, 26, 16, 20, 21)
BUZZER, STATUS, BUTTON = 18, 24, 17


def states(factory: MockFactory, pin: int) -> list[float]:
    return [float(s.state) for s in factory.pin(pin).states]


def lit(factory: MockFactory) -> list[bool]:
    return [bool(factory.pin(p).state) for p in BAR]


EARLY_S = 0.02
"""How much earlier than its schedule a pattern's change may be recorded: the moment between
the pattern's start time being read and its first level written."""
LATE_S = 0.1
"""How much later (desktop seconds, scaled): the player's thread wakes when the machine lets it."""


def assert_pattern_times(factory: MockFactory, pin: int, expected: list[tuple[float, int]]) -> None:
    """The pin went through *expected* (seconds after the previous change, state), in order, each
    change on time: never early (the player keeps one schedule from the start, so a late step
    does not push the next), late by at most LATE_S scaled (gpiozero's own check allows 50 ms
    either way, which a busy machine's thread overshoots)."""
    got = factory.pin(pin).states
    assert [float(s.state) for s in got] == [float(e[1]) for e in expected]
    at = planned = 0.0
    first = None
    for i, (state, (gap, _level)) in enumerate(zip(got, expected, strict=True)):
        at += state.timestamp
        planned += gap
        if i and first is None and float(state.state) != float(got[0].state):
            first = (at, planned)  # the pattern's first level: its schedule starts here
        if first is not None:
            late = (at - first[0]) - (planned - first[1])
            assert -EARLY_S <= late <= scaled(LATE_S), (i, late, [(s.timestamp, s.state) for s in got])


class Table:
    """A board, a bus and a panel on mock pins, with the button's actions recorded."""

    def __init__(self, factory: MockFactory, clock: FakeClock, **settings: object) -> None:
        self.clock = clock
        self.bus = EventBus()
        self.board = TimerBoard(clock, self.bus)
        self.actions: list[str] = []
        self.acted = threading.Event()
        self.alarm_done = threading.Event()

        def act(name: str) -> None:
            self.actions.append(name)
            self.acted.set()

        self.panel = SandTimerPanel(
            PanelSettings(**settings),  # type: ignore[arg-type]
            PinSetup("mock", "mock", factory), post=lambda fn: fn(),
            actions=ButtonActions(toggle=lambda: act("toggle"), reset=lambda: act("reset"),
                                  silenced=lambda: act("silenced")))
        self.panel.attach(self.bus, on_alarm_done=self.alarm_done.set)


@pytest.fixture
def table(mock_pins: MockFactory, clock: FakeClock) -> Iterator[Table]:
    t = Table(mock_pins, clock, alarm_s=0.8, button_hold_s=0.15)
    yield t
    t.panel.close()


def test_panel_bar_drains_like_sand(table: Table, mock_pins: MockFactory) -> None:
    table.board.add("t", 60)
    table.board.start("t")
    assert lit(mock_pins) == [True] * 8
    table.clock.advance(30)
    table.board.tick()
    assert lit(mock_pins) == [True] * 4 + [False] * 4
    table.clock.advance(22.6)  # 7.4 s left: below one LED's worth of sand
    table.board.tick()
    assert lit(mock_pins) == [False] * 8  # 7.4 / 60 of the bar is less than its first eighth
    table.clock.advance(8)
    table.board.poll()
    assert lit(mock_pins) == [False] * 8
    assert states(mock_pins, BAR[0]) == [0, 1, 0]
    assert states(mock_pins, BAR[4]) == [0, 1, 0]


@pytest.mark.slow
def test_panel_alarm_pattern_at_expiry(table: Table, mock_pins: MockFactory) -> None:
    table.board.add("t", 1)
    table.board.start("t")
    assert table.panel.wait_for_buzzer(scaled(2))
    mock_pins.pin(BUZZER).clear_states()
    table.clock.advance(1)
    table.board.poll()
    assert table.alarm_done.wait(scaled(3))
    # 0.8 s of (0.25 s on, 0.15 s off): two full cycles, then silent.
    assert states(mock_pins, BUZZER) == [0, 1, 0, 1, 0]
    assert_pattern_times(mock_pins, BUZZER, [(0, 0), (0, 1), (0.25, 0), (0.15, 1), (0.25, 0)])
    assert mock_pins.pin(STATUS).state == 0


@pytest.mark.slow
def test_panel_each_warning_has_its_own_pattern(table: Table, mock_pins: MockFactory) -> None:
    table.board.add("t", 20)
    table.board.start("t")
    assert table.panel.wait_for_buzzer(scaled(2))
    beeps = []
    for advance in (10, 7):
        mock_pins.pin(BUZZER).clear_states()
        table.clock.advance(advance)
        table.board.poll()
        assert table.panel.wait_for_buzzer(scaled(3))
        beeps.append(states(mock_pins, BUZZER).count(1))
    assert beeps == [2, 3]


def test_panel_button_press_toggles_and_hold_resets(table: Table, mock_pins: MockFactory) -> None:
    button = mock_pins.pin(BUTTON)
    button.drive_low()  # wired to ground with the pull-up: pressed is low
    assert table.actions == ["toggle"]
    table.acted.clear()
    assert table.acted.wait(scaled(2))  # the hold timer runs on gpiozero's thread
    assert table.actions == ["toggle", "reset"]
    button.drive_high()
    assert table.actions == ["toggle", "reset"]


def test_panel_button_bounce_is_one_press(table: Table, mock_pins: MockFactory) -> None:
    button = mock_pins.pin(BUTTON)
    for _ in range(3):  # contact bounce: edges microseconds apart
        button.drive_low()
        button.drive_high()
    assert table.actions == ["toggle"]


def test_panel_button_silences_the_alarm(table: Table, mock_pins: MockFactory) -> None:
    table.board.add("t", 1)
    table.board.start("t")
    table.clock.advance(2)
    table.board.poll()
    assert table.panel.is_alarm_sounding
    mock_pins.pin(BUTTON).drive_low()
    assert table.actions == ["silenced"]
    assert table.alarm_done.is_set()
    assert mock_pins.pin(BUZZER).state == 0
    assert not table.panel.is_alarm_sounding


def test_panel_status_led_follows_the_timer(table: Table, mock_pins: MockFactory) -> None:
    table.board.add("t", 30)
    table.board.start("t")
    assert mock_pins.pin(STATUS).state == 1
    table.board.pause("t")
    table.board.reset("t")
    assert mock_pins.pin(STATUS).state == 0
    assert table.board["t"].phase is Phase.IDLE
    assert lit(mock_pins) == [True] * 8  # reset: a full sand-timer again


def test_panel_close_switches_every_output_off(table: Table, mock_pins: MockFactory) -> None:
    table.board.add("t", 1)
    table.board.start("t")
    table.clock.advance(2)
    table.board.poll()  # mid-alarm: buzzer on, status LED blinking
    table.panel.close()
    for pin in (BUZZER, STATUS, *BAR):
        assert mock_pins.pin(pin).states[-1].state == 0, f"GPIO{pin} left on"
    table.panel.close()  # twice is fine


def test_panel_refuses_a_shared_pin_before_touching_any(mock_pins: MockFactory) -> None:
    with pytest.raises(PinConflict, match="GPIO5 is given to both the buzzer and the LED bar #1"):
        SandTimerPanel(PanelSettings(buzzer_pin=5), PinSetup("mock", "mock", mock_pins),
                       post=lambda fn: fn(), actions=ButtonActions(lambda: None, lambda: None))
    assert mock_pins.pins == {}


def test_panel_tonal_buzzer_plays_tones(mock_pins: MockFactory, clock: FakeClock) -> None:
    t = Table(mock_pins, clock, buzzer_type="tonal")
    try:
        t.board.add("t", 30)
        t.board.start("t")
        assert mock_pins.pin(BUZZER).frequency == pytest.approx(880, rel=0.01)
        assert t.panel.wait_for_buzzer(scaled(2))
        assert mock_pins.pin(BUZZER).frequency is None
    finally:
        t.panel.close()


def test_panel_off_builds_nothing(mock_pins: MockFactory) -> None:
    panel = SandTimerPanel(PanelSettings(), PinSetup("off", "none"), post=lambda fn: fn(),
                           actions=ButtonActions(lambda: None, lambda: None))
    bus = EventBus()
    panel.attach(bus)
    board = TimerBoard(FakeClock(), bus)
    board.add("t", 5)
    board.start("t")
    assert panel.buzzer is None and panel.bar is None
    panel.close()


def test_choose_pin_factory_mock_and_auto_off_a_pi() -> None:
    setup = choose_pin_factory("mock")
    assert setup.kind == "mock" and isinstance(setup.factory, MockFactory)
    setup.factory.close()
    if not is_raspberry_pi():
        auto = choose_pin_factory("auto")
        assert auto.kind == "mock" and "no Raspberry Pi here" in auto.note
        auto.factory.close()
    assert choose_pin_factory("off").factory is None


@pytest.mark.skipif(is_raspberry_pi(), reason="a Pi has real GPIO")
def test_choose_pin_factory_real_off_a_pi_says_why() -> None:
    with pytest.raises(GPIOUnavailable, match="no real GPIO here .*lgpio"):
        choose_pin_factory("real")
