"""The sand-timer's GPIO parts through gpiozero: buzzer, LED bar, status LED and button.

Off a Raspberry Pi the panel runs on gpiozero's own ``MockFactory`` (with PWM pins),
so the same code drives pins whose history tests can read. gpiozero calls the
button's handlers on its own threads; they only hand closures to ``post``.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from gpiozero import LED, Button, Buzzer, Device, GPIOZeroError, LEDBarGraph, TonalBuzzer
from gpiozero.pins.mock import MockFactory, MockPWMPin
from gpiozero.tones import Tone

from companion.config import Config
from companion.events import (
    EventBus,
    Post,
    TimerAdjusted,
    TimerCancelled,
    TimerEvent,
    TimerExpired,
    TimerPaused,
    TimerReset,
    TimerResumed,
    TimerStarted,
    TimerTicked,
    WarningReached,
)
from firmware_bridge import patterns
from firmware_bridge.board import board_model, is_raspberry_pi
from firmware_bridge.errors import GPIOUnavailable, PinConflict

log = logging.getLogger(__name__)

GpioMode = Literal["auto", "real", "mock", "off"]
REAL_FACTORIES = ("lgpio", "rpigpio", "pigpio", "native")  # gpiozero's own order of preference


@dataclass(frozen=True)
class PinSetup:
    """Which pin factory the panel runs on: ``kind`` is ``real``, ``mock`` or ``off``."""

    kind: Literal["real", "mock", "off"]
    name: str
    factory: Any = None
    note: str = ""

    @property
    def is_real(self) -> bool:
        return self.kind == "real"


def choose_pin_factory(mode: GpioMode) -> PinSetup:
    """Pick the pin factory for *mode*.

    ``auto`` is the real one on a Raspberry Pi and gpiozero's ``MockFactory`` anywhere
    else; ``real`` insists on a real one (``GPIOZERO_PIN_FACTORY`` is tried first).

    :raises GPIOUnavailable: for ``real`` when no factory works here.
    """
    if mode == "off":
        return PinSetup("off", "none", None, "GPIO off: no buzzer, LEDs or button")
    if mode == "mock" or (mode == "auto" and not is_raspberry_pi()):
        factory = MockFactory(pin_class=MockPWMPin)
        why = "asked for" if mode == "mock" else "no Raspberry Pi here"
        return PinSetup("mock", "mock", factory,
                        f"GPIO on gpiozero's MockFactory ({why}): nothing is wired")
    names = list(REAL_FACTORIES)
    wanted = os.environ.get("GPIOZERO_PIN_FACTORY", "").strip().lower()
    if wanted and wanted != "mock":
        names.insert(0, wanted)
    failures: list[str] = []
    for name in dict.fromkeys(names):
        try:
            factory = _make_factory(name)
        except Exception as exc:  # each library fails in its own way (ImportError, OSError, ...)
            failures.append(f"{name}: {exc or type(exc).__name__}")
            continue
        return PinSetup("real", name, factory, f"GPIO on {board_model() or 'this board'} via {name}")
    raise GPIOUnavailable("no real GPIO here (" + "; ".join(failures) + "); use --gpio mock or off")


def _make_factory(name: str) -> Any:
    from importlib.metadata import entry_points

    for ep in entry_points(group="gpiozero_pin_factories"):
        if ep.name == name:
            return ep.load()()
    raise GPIOUnavailable(f"gpiozero knows no pin factory {name!r}")


@dataclass(frozen=True)
class PanelSettings:
    """Pins in BCM numbering (None = not wired) and how the parts behave."""

    buzzer_pin: int | None = 18
    buzzer_type: Literal["active", "tonal"] = "active"
    bar_pins: tuple[int, ...] = (5, 6, 13, 19, 26, 16, 20, 21)
    status_led_pin: int | None = 24
    button_pin: int | None = 17
    button_hold_s: float = 2.0
    button_bounce_s: float = 0.02
    alarm_s: float = 4.0

    @classmethod
    def from_config(cls, config: Config) -> PanelSettings:
        return cls(buzzer_pin=config["gpio.buzzer_pin"], buzzer_type=config["gpio.buzzer_type"],
                   bar_pins=config["gpio.bar_pins"], status_led_pin=config["gpio.status_led_pin"],
                   button_pin=config["gpio.button_pin"], button_hold_s=config["gpio.button_hold_s"],
                   button_bounce_s=config["gpio.button_bounce_s"], alarm_s=config["gpio.alarm_s"])

    def used_pins(self) -> dict[int, str]:
        """Pin -> the part on it. :raises PinConflict: when two parts share a pin."""
        parts: list[tuple[int | None, str]] = [(self.buzzer_pin, "buzzer"),
                                               (self.status_led_pin, "status LED"),
                                               (self.button_pin, "button")]
        parts += [(pin, f"LED bar #{i + 1}") for i, pin in enumerate(self.bar_pins)]
        used: dict[int, str] = {}
        for pin, part in parts:
            if pin is None:
                continue
            if pin in used:
                raise PinConflict(f"GPIO{pin} is given to both the {used[pin]} and the {part}")
            used[pin] = part
        return used


@dataclass
class ButtonActions:
    """What the button does; each runs on the core's thread (through ``post``)."""

    toggle: Callable[[], None]
    reset: Callable[[], None]
    silenced: Callable[[], None] = field(default=lambda: None)


class SandTimerPanel:
    """The physical sand-timer: buzzer, draining LED bar, status LED and one button.

    Build it with a :class:`PinSetup` from :func:`choose_pin_factory`; with kind
    ``off`` it builds nothing and every call is a no-op. Core-thread methods:
    :meth:`attach` and the event handlers. :meth:`close` switches every output off
    and releases the pins; it is safe to call twice and from any thread.
    """

    def __init__(self, settings: PanelSettings, setup: PinSetup, post: Post,
                 actions: ButtonActions) -> None:
        settings.used_pins()  # refuse a shared pin before anything is switched on
        self.settings = settings
        self.setup = setup
        self._post = post
        self._actions = actions
        self._devices: list[Device] = []
        self.buzzer: Buzzer | TonalBuzzer | None = None
        self.bar: LEDBarGraph | None = None
        self.status_led: LED | None = None
        self.button: Button | None = None
        self._player: patterns.PatternPlayer | None = None
        self._alarm_sounding = threading.Event()
        self._on_alarm_done: Callable[[], None] | None = None
        self._alarm_done_hook: Callable[[], None] | None = None
        self._last_edge = 0.0
        self._held = False
        self._closed = False
        if setup.kind == "off":
            return
        try:
            self._build(settings, setup.factory)
        except (GPIOZeroError, ValueError) as exc:
            self.close()
            raise PinConflict(f"cannot set up the GPIO parts: {exc}") from exc

    def _build(self, s: PanelSettings, factory: Any) -> None:
        if s.buzzer_pin is not None:
            if s.buzzer_type == "tonal":
                tonal = TonalBuzzer(s.buzzer_pin, pin_factory=factory)
                self._devices.append(tonal)
                self.buzzer = tonal
                self._player = patterns.PatternPlayer(
                    lambda f: tonal.stop() if f is None else tonal.play(Tone.from_frequency(float(f))),
                    None)
            else:
                active = Buzzer(s.buzzer_pin, pin_factory=factory)
                self._devices.append(active)
                self.buzzer = active
                self._player = patterns.PatternPlayer(lambda on: active.on() if on else active.off(),
                                                      False)
        if s.bar_pins:
            self.bar = LEDBarGraph(*s.bar_pins, pin_factory=factory)
            self._devices.append(self.bar)
            self.bar.value = 1  # a full sand-timer before the first start
        if s.status_led_pin is not None:
            self.status_led = LED(s.status_led_pin, pin_factory=factory)
            self._devices.append(self.status_led)
        if s.button_pin is not None:
            self.button = Button(s.button_pin, pull_up=True, hold_time=s.button_hold_s,
                                 pin_factory=factory)
            self._devices.append(self.button)
            self.button.when_pressed = self._pressed
            self.button.when_released = self._released
            self.button.when_held = self._on_held

    # -- the button (gpiozero's threads) --------------------------------------------------
    # Debounced in software, the same on every pin factory (MockFactory ignores bounce_time):
    # an edge within button_bounce_s of the last accepted one is contact bounce.

    def _debounced(self) -> bool:
        now = time.monotonic()
        if now - self._last_edge < self.settings.button_bounce_s:
            return False
        self._last_edge = now
        return True

    def _pressed(self) -> None:
        if not self._debounced():
            return
        self._held = False
        if self._alarm_sounding.is_set():
            self._post(self._silence_by_button)
        else:
            self._post(self._actions.toggle)

    def _released(self) -> None:
        self._debounced()

    def _on_held(self) -> None:
        if not self._held:
            self._held = True
            self._post(self._actions.reset)

    def _silence_by_button(self) -> None:
        self.silence()
        self._actions.silenced()

    # -- outputs (core thread) ------------------------------------------------------------

    @property
    def is_alarm_sounding(self) -> bool:
        return self._alarm_sounding.is_set()

    def wait_for_buzzer(self, timeout: float | None = None) -> bool:
        """Block until the buzzer's current pattern has ended (for hardware checks and tests)."""
        return self._player is None or self._player.wait(timeout)

    def silence(self) -> None:
        """Stop the buzzer (the alarm included) now."""
        self._alarm_sounding.clear()
        if self._player is not None:
            self._player.stop()
        done, self._on_alarm_done = self._on_alarm_done, None
        if done is not None:
            done()

    def attach(self, bus: EventBus, *, on_alarm_done: Callable[[], None] | None = None) -> Callable[[], None]:
        """Follow every timer on *bus*; *on_alarm_done* runs (on the core thread) when an alarm
        ends, by itself or silenced. Returns the unsubscriber."""
        self._alarm_done_hook = on_alarm_done
        return bus.subscribe(TimerEvent, self.show)

    def show(self, event: TimerEvent) -> None:
        """Reflect one timer event on the outputs. Core thread only."""
        if self._closed:
            return
        if isinstance(event, TimerExpired):
            self._sound_alarm()  # first: the buzzer is what people wait for
            self._set_bar(0.0)
            self._status("alarm")
            return
        if isinstance(event, WarningReached):
            self._set_bar(event.remaining_s / event.total_s)
            self._play(patterns.warning_pattern(event.index), patterns.tone_warning_pattern(event.index))
            return
        if isinstance(event, (TimerStarted, TimerResumed)):
            self.silence()
            self._status("running")
            self._play(patterns.START, patterns.TONE_START)
        elif isinstance(event, TimerPaused):
            self._status("paused")
            self._play(patterns.PAUSE, patterns.TONE_PAUSE)
        elif isinstance(event, (TimerReset, TimerCancelled)):
            self.silence()
            self._status("idle")
        if isinstance(event, TimerCancelled):
            self._set_bar(0.0)
        elif isinstance(event, (TimerStarted, TimerResumed, TimerPaused, TimerReset,
                                TimerTicked, TimerAdjusted)):
            self._set_bar(event.remaining_s / event.total_s)

    def _set_bar(self, fraction: float) -> None:
        if self.bar is not None:
            self.bar.value = min(1.0, max(0.0, fraction))

    def _status(self, state: str) -> None:
        led = self.status_led
        if led is None:
            return
        if state == "running":
            led.on()
        elif state == "paused":
            led.blink(on_time=0.5, off_time=0.5)
        elif state == "alarm":
            led.blink(on_time=0.1, off_time=0.1)
        else:
            led.off()

    def _play(self, active: patterns.Pattern, tonal: patterns.Pattern) -> None:
        if self._player is not None and not self._alarm_sounding.is_set():
            self._player.play(tonal if isinstance(self.buzzer, TonalBuzzer) else active)

    def _sound_alarm(self) -> None:
        hook = self._alarm_done_hook
        if self._player is None:  # nothing to sound: the alarm is over at once
            if hook is not None:
                self._post(hook)  # after this event has reached every subscriber
            return
        self._alarm_sounding.set()
        self._on_alarm_done = hook
        pattern = patterns.TONE_ALARM if isinstance(self.buzzer, TonalBuzzer) else patterns.ALARM
        self._player.play(pattern, repeat_for_s=self.settings.alarm_s,
                          on_done=lambda: self._post(self._alarm_ended))

    def _alarm_ended(self) -> None:
        if self._alarm_sounding.is_set():
            self._alarm_sounding.clear()
            self._status("idle")
            done, self._on_alarm_done = self._on_alarm_done, None
            if done is not None:
                done()

    # -- shutdown ---------------------------------------------------------------------------

    def close(self) -> None:
        """Every output off, every pin released. Any thread; idempotent."""
        if self._closed:
            return
        self._closed = True
        self._alarm_sounding.clear()
        if self._player is not None:
            self._player.stop()
        for device in reversed(self._devices):
            try:
                if isinstance(device, (LED, Buzzer, LEDBarGraph)):
                    device.off()
                elif isinstance(device, TonalBuzzer):
                    device.stop()
                device.close()
            except Exception:  # keep switching the others off
                log.exception("could not switch %r off", device)
        self._devices.clear()

    def __enter__(self) -> SandTimerPanel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
