"""The accessory's logic with no hardware: the :class:`Device` and its button's debouncer.

What the timer accessory does with the host's messages (sections 4 to 7 of
``docs/accessory-protocol.md``): the timer it counts down and shows, the LEDs, the
buzzer's patterns, and acting alone as a sand-timer when the host is lost. The
firmware on the Pico and the host's simulator both run it, so it keeps to the rules of
:mod:`accessory_proto`: nothing MicroPython lacks at runtime, and pure (every call
takes ``now_ms``; nothing reads a clock or a port).
"""

try:  # the package on the host; the files beside this one on the Pico, where they lie flat
    from firmware_bridge.firmware import accessory_proto as proto
    from firmware_bridge.firmware.accessory_link import Endpoint
except ImportError:
    import accessory_proto as proto  # type: ignore[import-not-found, no-redef]
    from accessory_link import Endpoint  # type: ignore[import-not-found, no-redef]

MYPY = False
if MYPY:  # read by mypy only: MicroPython has no typing module, and CPython never runs this
    from collections.abc import Callable  # noqa: F401 (used in type comments)
    from typing import Any  # noqa: F401 (used in type comments)


def _steps_warning(index: int) -> "tuple[tuple[int, int], ...]":
    steps = []  # type: list[tuple[int, int]]
    for _ in range(min(index, 4) + 1):
        steps.append((1320, 90))
        steps.append((0, 90))
    return tuple(steps)


PATTERN_STEPS = {
    proto.PAT_START: ((1760, 70),),
    proto.PAT_PAUSE: ((880, 70), (0, 50), (660, 90)),
    proto.PAT_ALARM: ((1760, 150), (0, 90), (1760, 150), (0, 90), (1760, 150), (0, 400)),
    proto.PAT_TEST: ((523, 150), (659, 150), (784, 150), (1047, 300)),
}
"""Each pattern as ``(hz, ms)`` steps; 0 Hz is silence. An active buzzer sounds at any Hz."""


def pattern_steps(pattern: int, index: int) -> "tuple[tuple[int, int], ...]":
    if pattern == proto.PAT_WARNING:
        return _steps_warning(index)
    return PATTERN_STEPS.get(pattern, ())


def _ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


def display_text(remaining_ms: int) -> str:
    """Four digits for a time: ``" 129"`` is 1:29 (the colon is separate); from 100
    minutes on, hours and minutes."""
    secs = _ceil_div(max(0, int(remaining_ms)), 1000)
    if secs < 6000:
        a, b = secs // 60, secs % 60
    else:
        a, b = min(secs // 3600, 99), (secs // 60) % 60
    return ("%2d%02d" % (a, b))


class Device:
    """The accessory's logic, with no hardware: the firmware and the simulator both run it.

    Call :meth:`boot` once, then in a loop :meth:`feed` what the port gave, write what
    :meth:`poll` returns, report the button with :meth:`button`, and show
    :meth:`display`, :meth:`lit_leds` and :meth:`tone_hz`.
    """

    def __init__(self, device_id: str, firmware: str, capabilities: int = 31, leds: int = 8,
                 version: int = proto.VERSION) -> None:
        self.device_id = device_id
        self.firmware = firmware
        self.capabilities = capabilities
        self.leds = leds
        self.version = version
        self.link = Endpoint(proto.D_PING, proto.DEVICE_PING_MS)
        self.link.handler = self._on_message
        self.link.on_down = self._on_down
        self.handshaken = False
        self.state = proto.STATE_NONE
        self.run = 0
        self.name = ""
        self.total_ms = 0
        self._base_ms = 0
        self._base_t = 0.0
        self._floor_run = -1
        self._floor_s = -1
        self.brightness = 80
        self._pattern = None  # type: list[Any] | None  # [pattern, steps, start_ms, end_ms, cycle_ms]
        self.applied = 0
        self.on_applied = None  # type: Callable[[int, bytes, float], None] | None

    def boot(self, now_ms: float) -> None:
        """Say HELLO by ourselves, as after power-up (section 4)."""
        self._hello(0)

    def _hello(self, flags: int) -> None:
        self.link.send(proto.D_HELLO, proto.pack_device_hello(self.version, flags, self.capabilities,
                                                              self.leds, self.device_id, self.firmware))

    def feed(self, data: bytes, now_ms: float) -> None:
        self.link.feed(data, now_ms)

    def poll(self, now_ms: float) -> bytes:
        if self.state == proto.STATE_RUNNING and self.remaining_ms(now_ms) == 0 and self.is_host_lost(now_ms):
            self._set_timer(proto.STATE_EXPIRED, self.run, 0, now_ms)  # no host: be the sand-timer
            self._play(proto.PAT_ALARM, 0, proto.DEFAULT_ALARM_MS, now_ms)
        return self.link.poll(now_ms)

    def is_host_lost(self, now_ms: float) -> bool:
        last = self.link.last_rx_ms
        return not self.handshaken or last is None or now_ms - last > proto.HOST_LOST_MS

    def _on_down(self) -> None:
        self.handshaken = False  # the queue is gone; a new HELLO starts again

    # -- the button

    def button(self, kind: int, now_ms: float) -> None:
        """The button was pressed, held or released. A press during the alarm silences it."""
        flags = 0
        if kind == proto.BTN_PRESS and self._pattern is not None and self._pattern[0] == proto.PAT_ALARM \
                and self.tone_active(now_ms):
            self._pattern = None
            flags = proto.FLAG_SILENCED
        if not self.is_host_lost(now_ms):
            self.link.send(proto.D_BUTTON, proto.pack_button(kind, flags))

    # -- commands

    def _on_message(self, mtype: int, payload: bytes, now_ms: float) -> int:
        try:
            if mtype == proto.HELLO:
                version, flags = proto.parse_hello(payload)
                self.handshaken = version == self.version
                self.link.up = self.handshaken
                if not flags & proto.FLAG_REPLY:
                    self._hello(proto.FLAG_REPLY)
                return 0
            if mtype == proto.PING:  # a host that pings us unshaken must say HELLO again
                return 0 if self.handshaken else proto.NAK_NOT_HANDSHAKEN
            if mtype not in proto.HOST_TYPES:
                return proto.NAK_UNKNOWN_TYPE
            if not self.handshaken:
                return proto.NAK_NOT_HANDSHAKEN
            if mtype == proto.SHOW_TIMER:
                state, run, remaining_ms, total_ms, name = proto.parse_show_timer(payload)
                self.total_ms = total_ms
                self.name = name
                self._set_timer(state, run, remaining_ms, now_ms)
            elif mtype == proto.PATTERN:
                pattern, index, duration_ms = proto.parse_pattern(payload)
                self._play(pattern, index, duration_ms, now_ms)
            elif mtype == proto.BRIGHTNESS:
                self.brightness = proto.parse_brightness(payload)
            elif mtype == proto.SILENCE:
                if payload:
                    raise proto.FrameError("SILENCE has no payload")
                self._pattern = None
            elif mtype == proto.GET_STATUS:
                if payload:
                    raise proto.FrameError("GET_STATUS has no payload")
                self.link.send(proto.D_STATUS, proto.pack_status(
                    self.state, self.run, self.remaining_ms(now_ms), self.brightness,
                    self.sounding if self.tone_active(now_ms) else 0,
                    self.link.bad_frames, self.applied + 1))
        except proto.FrameError:
            return proto.NAK_BAD_PAYLOAD
        self.applied += 1
        if self.on_applied is not None:
            self.on_applied(mtype, payload, now_ms)
        return 0

    def _set_timer(self, state: int, run: int, remaining_ms: int, now_ms: float) -> None:
        if run != self.run or state != self.state:
            self._floor_run = -1  # a new run: show whatever it says
        self.state = state
        self.run = run
        self._base_ms = remaining_ms
        self._base_t = now_ms

    def _play(self, pattern: int, index: int, duration_ms: int, now_ms: float) -> None:
        steps = pattern_steps(pattern, index)
        if not steps:
            self._pattern = None
            return
        length = 0
        for step in steps:
            length += step[1]
        end = now_ms + ((duration_ms or proto.DEFAULT_ALARM_MS) if pattern == proto.PAT_ALARM else length)
        self._pattern = [pattern, steps, now_ms, end, length]

    # -- what the hardware shows

    def remaining_ms(self, now_ms: float) -> int:
        """The timer as the device counts it: from the host's last word, running down."""
        if self.state != proto.STATE_RUNNING:
            return self._base_ms
        return max(0, int(self._base_ms - (now_ms - self._base_t)))

    def display(self, now_ms: float) -> "tuple[str, bool]":
        """``(four characters, colon)`` for the 4-digit display. Within a run the shown
        seconds never go up (section 7); the colon stays lit while the host is lost."""
        lost = self.is_host_lost(now_ms)
        if self.state == proto.STATE_NONE:
            return "----", lost
        secs = _ceil_div(self.remaining_ms(now_ms), 1000)
        if self.state == proto.STATE_RUNNING:
            if self._floor_run == self.run and secs > self._floor_s:
                secs = self._floor_s
            self._floor_run = self.run
            self._floor_s = secs
        text = display_text(secs * 1000)
        if self.state == proto.STATE_EXPIRED and int(now_ms) % 1000 >= 500:
            return "    ", lost  # a finished timer blinks
        colon = lost or self.state != proto.STATE_RUNNING or int(now_ms) % 1000 < 500
        return text, colon

    def lit_leds(self, now_ms: float) -> int:
        """How many of the LEDs are lit: the share of time left, rounded up. Like the
        digits, they never come back on within a run (section 7)."""
        if self.state == proto.STATE_NONE or self.total_ms <= 0:
            return 0
        remaining = self.remaining_ms(now_ms)
        if self.state == proto.STATE_RUNNING and self._floor_run == self.run:
            remaining = min(remaining, self._floor_s * 1000)
        return min(self.leds, _ceil_div(remaining * self.leds, self.total_ms))

    def tone_active(self, now_ms: float) -> bool:
        pattern = self._pattern
        return pattern is not None and now_ms < pattern[3]

    def tone_hz(self, now_ms: float) -> int:
        """The buzzer's frequency now (0: silent)."""
        pattern = self._pattern
        if pattern is None:
            return 0
        if now_ms >= pattern[3]:
            self._pattern = None
            return 0
        t = (now_ms - pattern[2]) % pattern[4]
        for step in pattern[1]:
            if t < step[1]:
                return int(step[0])
            t -= step[1]
        return 0

    @property
    def sounding(self) -> int:
        """The pattern playing (or last started and not yet over), 0 for none."""
        return int(self._pattern[0]) if self._pattern is not None else 0


class ButtonTracker:
    """A button's level into press, hold and release, debounced; for the firmware's loop."""

    def __init__(self, hold_ms: int = 2000, bounce_ms: int = 20) -> None:
        self.hold_ms = hold_ms
        self.bounce_ms = bounce_ms
        self._stable = False
        self._changed_ms = -1000000  # type: float
        self._pressed_ms = 0.0
        self._held = False

    def update(self, pressed: bool, now_ms: float) -> "list[int]":
        """The button's events since the last call: a list of ``BTN_*``."""
        events = []  # type: list[int]
        if pressed != self._stable and now_ms - self._changed_ms >= self.bounce_ms:
            self._stable = pressed
            self._changed_ms = now_ms
            if pressed:
                self._pressed_ms = now_ms
                self._held = False
                events.append(proto.BTN_PRESS)
            else:
                events.append(proto.BTN_RELEASE)
        if self._stable and not self._held and now_ms - self._pressed_ms >= self.hold_ms:
            self._held = True
            events.append(proto.BTN_HOLD)
        return events
