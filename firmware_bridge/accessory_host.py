"""The host's side of the accessory protocol: the handshake, and the timers mirrored on it.

:class:`HostProtocol` is pure: timer events and bytes in, bytes and device events out,
every call given ``now_ms``. It runs the protocol of ``docs/accessory-protocol.md``
through the modules the firmware runs too (:mod:`firmware_bridge.firmware.accessory_proto`
and :mod:`~firmware_bridge.firmware.accessory_link`). What the device reports comes back
as :class:`ButtonReported` and :class:`StatusReported`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from companion.events import (
    TimerAdjusted,
    TimerCancelled,
    TimerEvent,
    TimerExpired,
    TimerFlipped,
    TimerPaused,
    TimerReset,
    TimerRestored,
    TimerResumed,
    TimerStarted,
    TimerTicked,
    WarningReached,
)
from firmware_bridge.firmware import accessory_proto as proto
from firmware_bridge.firmware.accessory_link import Endpoint

HELLO_PATIENCE_MS = 3000.0
HELLO_AGAIN_MS = 1000.0  # an acknowledged HELLO whose answer never came is asked again
SYNC_EVERY_MS = 1000.0


# -- what the host hears ----------------------------------------------------------------------


@dataclass(frozen=True)
class DeviceInfo:
    """What a device said in its HELLO."""

    protocol_version: int
    device_id: str
    firmware: str
    capabilities: int
    leds: int


@dataclass(frozen=True)
class ButtonReported:
    """The accessory's button: ``kind`` is press, hold or release; ``silenced`` when the
    press silenced the accessory's own alarm."""

    kind: str
    silenced: bool = False


@dataclass(frozen=True)
class StatusReported:
    """The device's answer to GET_STATUS."""

    state: str
    run: int
    remaining_ms: int
    brightness: int
    sounding: str
    bad_frames: int
    applied: int


_PHASE_STATES = {"idle": proto.STATE_IDLE, "running": proto.STATE_RUNNING,
                 "paused": proto.STATE_PAUSED, "expired": proto.STATE_EXPIRED}


@dataclass(frozen=True)
class _Shown:
    """The timer on the accessory: its state and its remaining time at ``t_ms``."""

    name: str
    state: int
    run: int
    remaining_ms: float
    total_ms: float
    t_ms: float

    def remaining_at(self, now_ms: float) -> int:
        if self.state != proto.STATE_RUNNING:
            return round(self.remaining_ms)
        return max(0, round(self.remaining_ms - (now_ms - self.t_ms)))


class HostProtocol:
    """The host's side of the protocol. Pure; not thread-safe (the bridge holds a lock).

    :meth:`mirror` takes the core's timer events; :meth:`feed` the port's bytes and
    returns what the device reported; :meth:`poll` the bytes to write now.
    """

    def __init__(self, *, brightness: int = 80, alarm_ms: int = proto.DEFAULT_ALARM_MS,
                 version: int = proto.VERSION) -> None:
        self.version = version
        self.brightness = brightness
        self.alarm_ms = alarm_ms
        self.link = Endpoint(proto.PING, proto.HOST_PING_MS)
        self.link.handler = self._on_message
        self.link.on_down = self._on_down
        self.state = "connecting"
        self.device: DeviceInfo | None = None
        self.mismatch: DeviceInfo | None = None
        self._shown: _Shown | None = None
        self._run = 0
        self._started_ms = 0.0
        self._synced_ms = 0.0
        self._asked_ms = 0.0
        self._events: list[ButtonReported | StatusReported] = []

    # -- the link

    def start(self, now_ms: float) -> None:
        """A port was (re)opened: forget the old link and say HELLO."""
        self.link.reset()
        self.link.up = False
        self.state = "connecting"
        self.device = None
        self._started_ms = self._asked_ms = now_ms
        self._hello(0)

    def _hello(self, flags: int) -> None:
        self.link.send(proto.HELLO, proto.pack_hello(self.version, flags))

    def is_waiting_too_long(self, now_ms: float) -> bool:
        return self.state == "connecting" and now_ms - self._started_ms > HELLO_PATIENCE_MS

    def feed(self, data: bytes, now_ms: float) -> list[ButtonReported | StatusReported]:
        """Take the port's bytes; the button presses and status reports they carried."""
        rejected = self.link.rejected
        self.link.feed(data, now_ms)
        if (self.link.rejected != rejected and self.link.last_rejection == proto.NAK_NOT_HANDSHAKEN
                and self.state == "connected"):
            # the device forgot us (it dropped the link): handshake again, and then send what it
            # refused and what waited behind it, in order: nothing is lost
            refused = self.link.last_rejected
            waiting = ([refused] if refused is not None else []) + self.link.take_queued()
            self.start(now_ms)
            for mtype, payload in waiting:
                if mtype != proto.PING:
                    self.link.send(mtype, payload)
        events, self._events = self._events, []
        return events

    def poll(self, now_ms: float) -> bytes:
        if self.state == "connecting" and self.link.is_idle and now_ms - self._asked_ms >= HELLO_AGAIN_MS:
            self._asked_ms = now_ms
            self._hello(0)  # ask again: a board may still be booting after a DTR reset
        if (self.state == "connected" and self._shown is not None
                and self._shown.state == proto.STATE_RUNNING and now_ms - self._synced_ms >= SYNC_EVERY_MS):
            self._send_timer(now_ms)
        return self.link.poll(now_ms)

    def _on_down(self) -> None:
        if self.state == "connected":
            self.state = "down"

    def _on_message(self, mtype: int, payload: bytes, now_ms: float) -> int:
        try:
            if mtype == proto.D_HELLO:
                self._on_hello(proto.parse_device_hello(payload), now_ms)
            elif mtype not in proto.DEVICE_TYPES:
                return proto.NAK_UNKNOWN_TYPE
            elif self.state != "connected":
                return proto.NAK_NOT_HANDSHAKEN  # a press from before a reopen must not act now
            elif mtype == proto.D_PING:
                pass
            elif mtype == proto.D_BUTTON:
                kind, flags = proto.parse_button(payload)
                self._events.append(ButtonReported(proto.BUTTON_NAMES[kind],
                                                   bool(flags & proto.FLAG_SILENCED)))
            elif mtype == proto.D_STATUS:
                st, run, rem, br, snd, bad, applied = proto.parse_status(payload)
                self._events.append(StatusReported(
                    proto.STATE_NAMES[st] if st < len(proto.STATE_NAMES) else str(st), run, rem, br,
                    proto.PATTERN_NAMES.get(snd, str(snd)), bad, applied))
            else:
                return proto.NAK_UNKNOWN_TYPE
        except proto.FrameError:
            return proto.NAK_BAD_PAYLOAD
        return 0

    def _on_hello(self, hello: tuple[int, int, int, int, str, str], now_ms: float) -> None:
        version, flags, caps, leds, device_id, firmware = hello
        info = DeviceInfo(version, device_id, firmware, caps, leds)
        mismatched = version != self.version
        if mismatched:
            self.state = "mismatch"
            self.mismatch = info
            self.device = None
            self.link.up = False
            self.link.drop_queued()  # send nothing more (section 5) but the answer to its HELLO
        if not flags & proto.FLAG_REPLY:
            self._hello(proto.FLAG_REPLY)
        if mismatched:
            return
        self.state = "connected"
        self.device = info
        self.mismatch = None
        self.link.up = True
        self.link.send(proto.BRIGHTNESS, bytes((self.brightness,)), replace=True)
        self._send_timer(now_ms)  # resynchronise: the same after a replug or a reboot

    # -- what the core tells it (through the bridge)

    def mirror(self, event: TimerEvent, now_ms: float) -> None:
        """Follow one timer event. *now_ms* is ``event.t_mono`` in ms, or later."""
        shown = self._shown
        if isinstance(event, TimerTicked):
            if shown is not None and shown.name == event.timer and shown.state == proto.STATE_RUNNING:
                self._shown = replace(shown, remaining_ms=event.remaining_s * 1000, t_ms=event.t_mono * 1000)
            return
        if isinstance(event, TimerCancelled):
            if shown is not None and shown.name == event.timer:
                self._show(event, proto.STATE_NONE, new_run=True, now_ms=now_ms)
                self._send(proto.SILENCE, b"")
            return
        if isinstance(event, TimerRestored):
            state = _PHASE_STATES.get(event.phase, proto.STATE_IDLE)
            if shown is not None and shown.name != event.timer and shown.state == proto.STATE_RUNNING \
                    and state != proto.STATE_RUNNING:
                return  # a running timer keeps the accessory
            self._show(event, state, new_run=True, now_ms=now_ms)
            self._send(proto.SILENCE, b"")
            return
        if isinstance(event, WarningReached):
            self._show(event, proto.STATE_RUNNING, new_run=shown is None or shown.name != event.timer,
                       now_ms=now_ms)
            self._send(proto.PATTERN, proto.pack_pattern(proto.PAT_WARNING, event.index))
            return
        if isinstance(event, TimerExpired):
            self._show(event, proto.STATE_EXPIRED, new_run=True, now_ms=now_ms)
            self._send(proto.PATTERN, proto.pack_pattern(proto.PAT_ALARM, 0, self.alarm_ms))
            return
        if isinstance(event, (TimerStarted, TimerResumed)):
            self._show(event, proto.STATE_RUNNING, new_run=True, now_ms=now_ms)
            self._send(proto.PATTERN, proto.pack_pattern(proto.PAT_START))
        elif isinstance(event, TimerPaused):
            self._show(event, proto.STATE_PAUSED, new_run=True, now_ms=now_ms)
            self._send(proto.PATTERN, proto.pack_pattern(proto.PAT_PAUSE))
        elif isinstance(event, TimerReset):
            self._show(event, proto.STATE_IDLE, new_run=True, now_ms=now_ms)
            self._send(proto.SILENCE, b"")
        elif isinstance(event, (TimerAdjusted, TimerFlipped)):
            state = shown.state if shown is not None and shown.name == event.timer else proto.STATE_PAUSED
            self._show(event, state, new_run=True, now_ms=now_ms)

    def _show(self, event: TimerEvent, state: int, *, new_run: bool, now_ms: float) -> None:
        if new_run:
            self._run = (self._run + 1) & 0xFFFF
        self._shown = _Shown(event.timer, state, self._run, event.remaining_s * 1000, event.total_s * 1000,
                             event.t_mono * 1000)
        self._send_timer(now_ms)

    def _send_timer(self, now_ms: float) -> None:
        self._synced_ms = now_ms
        if self.state != "connected":
            return
        shown = self._shown
        if shown is None:
            return

        def make(at_ms: float) -> bytes:  # the time left when the frame goes out, each time
            return proto.pack_show_timer(shown.state, shown.run, shown.remaining_at(at_ms),
                                         round(shown.total_ms), shown.name)

        self.link.send(proto.SHOW_TIMER, make, replace=True)

    def _send(self, mtype: int, payload: bytes) -> None:
        if self.state == "connected":
            self.link.send(mtype, payload)

    def command(self, mtype: int, payload: bytes = b"", *, replace: bool = False) -> None:
        """Send any host command (``accessory test``, brightness, silence); dropped when
        not connected."""
        if self.state == "connected":
            self.link.send(mtype, payload, replace=replace)

    @property
    def shown(self) -> _Shown | None:
        return self._shown
