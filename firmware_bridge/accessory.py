"""The USB-serial timer accessory, host side: finding it, the link, mirroring the timers.

Two layers, as in pyserial's ``Protocol``/``ReaderThread`` split:

- :class:`HostProtocol` is pure: timer events and bytes in, bytes and device events
  out, every call given ``now_ms``. It runs the protocol of
  ``docs/accessory-protocol.md`` through the modules the firmware runs too
  (:mod:`firmware_bridge.firmware.accessory_proto` and ``accessory_link``).
- :class:`AccessoryBridge` is the shell: one I/O thread that finds and opens the
  port, feeds the protocol, writes its bytes, and reopens the port after the cable
  was pulled. It never touches the core: button presses and status changes go
  through the injected ``post``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import serial
from serial.tools import list_ports

from companion.events import (
    EventBus,
    Post,
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
from firmware_bridge.errors import BridgeError
from firmware_bridge.firmware import accessory_proto as proto
from firmware_bridge.firmware.accessory_link import Endpoint
from firmware_bridge.gpio import ButtonActions

log = logging.getLogger(__name__)

DEFAULT_USB_IDS = ("2e8a:0005", "2341:0043", "2341:0001", "2341:8036")
"""MicroPython's USB CDC on a Pico, and Arduino Uno, Mega and Leonardo boards."""

BAUDRATE = 115200
REOPEN_S = 0.25
READ_TIMEOUT_S = 0.02
HELLO_PATIENCE_MS = 3000.0
HELLO_AGAIN_MS = 1000.0  # an acknowledged HELLO whose answer never came is asked again
SYNC_EVERY_MS = 1000.0

SIMULATOR_FILE = "simulator.port"


class AccessoryError(BridgeError, OSError):
    """The accessory cannot be used as asked (a port that is not there, a bad setting)."""


def simulator_port_file() -> Path:
    """Where ``companion accessory simulate`` leaves its port for ``auto`` to find."""
    import warnings

    from platformdirs import user_runtime_dir

    with warnings.catch_warnings():  # no XDG_RUNTIME_DIR (a bare ssh or CI shell): its fallback is fine
        warnings.simplefilter("ignore")
        return Path(user_runtime_dir("companion")) / SIMULATOR_FILE


def parse_usb_id(text: str) -> tuple[int, int]:
    """``"2e8a:0005"`` as ``(0x2E8A, 0x0005)``. :raises ValueError: for anything else."""
    vid, sep, pid = text.strip().partition(":")
    if not sep or len(vid) != 4 or len(pid) != 4:
        raise ValueError(f"USB id {text!r} is not VID:PID in hex, like 2e8a:0005")
    return int(vid, 16), int(pid, 16)


def find_port(setting: str, usb_ids: Sequence[str] = DEFAULT_USB_IDS) -> str | None:
    """The port to open for *setting*: ``none`` gives None; ``auto`` the first serial
    port with one of *usb_ids* (then a running simulator's); anything else is a device
    path or a pyserial URL (``loop://``, ``socket://host:port``) and is returned as is."""
    if setting == "none":
        return None
    if setting != "auto":
        return setting
    wanted = {parse_usb_id(u) for u in usb_ids}
    for port in sorted(list_ports.comports(), key=lambda p: p.device):
        if (port.vid, port.pid) in wanted:
            return str(port.device)
    try:
        path = simulator_port_file().read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return path if path and os.path.exists(path) else None


RESETS_ON_DTR = (0x2341, 0x2A03, 0x1A86, 0x0403, 0x10C4)
"""USB vendors of boards whose reset line hangs on DTR: Arduino, and the USB-serial
chips (CH340, FTDI, CP210x) on their clones."""


def resets_on_dtr(name: str) -> bool:
    """Whether the board on *name* resets when DTR is raised (known by its USB vendor)."""
    try:
        real = os.path.realpath(name)
        return any(p.vid in RESETS_ON_DTR for p in list_ports.comports()
                   if os.path.realpath(p.device) == real)
    except Exception:  # list_ports fails in its own ways; then assume the common case
        return False


def open_port(name: str, baudrate: int = BAUDRATE) -> Any:
    """Open *name* (a path or a pyserial URL) exclusively.

    A board that resets on DTR (an Arduino) gets DTR and RTS cleared before the open,
    which keeps it from resetting where the driver allows; where the kernel raises DTR
    on open anyway, the handshake waits for the board's HELLO (section 4 of the
    protocol). Every other board gets DTR raised as usual: a Pico's USB serial only
    sends once the host has raised DTR, on older MicroPython builds.

    :raises serial.SerialException: when the port cannot be opened.
    """
    port = serial.serial_for_url(name, baudrate=baudrate, timeout=READ_TIMEOUT_S, write_timeout=1.0,
                                 exclusive=True, do_not_open=True)
    if "://" not in name and resets_on_dtr(name):
        port.dtr = False
        port.rts = False
    port.open()
    return port


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


@dataclass(frozen=True)
class AccessoryStatus:
    """The link as a person would want to know it. ``state`` is one of ``off``,
    ``searching``, ``connecting``, ``connected``, ``no answer``, ``version mismatch``
    or ``disconnected``; ``detail`` says more in words."""

    state: str
    port: str | None = None
    device: DeviceInfo | None = None
    detail: str = ""

    @property
    def is_connected(self) -> bool:
        return self.state == "connected"

    def to_json(self) -> dict[str, Any]:
        d = self.device
        return {"connected": self.is_connected, "port": self.port,
                "protocol_version": d.protocol_version if d else None,
                "device_id": d.device_id if d else None, "firmware": d.firmware if d else None,
                "state": self.state, "detail": self.detail}

    def to_text(self) -> str:
        if self.is_connected and self.device is not None:
            d = self.device
            return (f"accessory connected on {self.port}: {d.device_id}, firmware {d.firmware}, "
                    f"protocol v{d.protocol_version}")
        where = f" ({self.port})" if self.port else ""
        return f"accessory {self.state}{where}" + (f": {self.detail}" if self.detail else "")


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
            self.start(now_ms)  # the device forgot us (it dropped the link): handshake again
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


# -- the shell: a port and a thread -----------------------------------------------------------


class AccessoryBridge:
    """The accessory on its own I/O thread: finds the port, keeps the link, reconnects.

    The app and the CLI build one, :meth:`attach` it to the bus (core thread), and
    :meth:`start` it. Button presses come back as the *actions* through *post*; status
    changes go to *on_status* through *post* too. :meth:`close` stops the thread and
    closes the port; it may be called from any thread, twice.
    """

    def __init__(self, setting: str, post: Post, actions: ButtonActions | None = None, *,
                 usb_ids: Sequence[str] = DEFAULT_USB_IDS, baudrate: int = BAUDRATE, brightness: int = 80,
                 alarm_s: float = 4.0, on_status: Callable[[AccessoryStatus], None] | None = None,
                 tap: Callable[[str, int, bytes], None] | None = None,
                 on_report: Callable[[StatusReported], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        for usb_id in usb_ids:
            try:
                parse_usb_id(usb_id)
            except ValueError as exc:
                raise AccessoryError(str(exc)) from None
        self.setting = setting
        self.usb_ids = tuple(usb_ids)
        self.baudrate = baudrate
        self._post = post
        self._actions = actions
        self._on_status = on_status
        self._on_report = on_report
        self._clock = clock
        self.protocol = HostProtocol(brightness=brightness, alarm_ms=round(alarm_s * 1000))
        self.protocol.link.tap = tap
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._port: Any = None
        self._status = AccessoryStatus("off" if setting == "none" else "searching")
        self.connections = 0  # how many times a handshake succeeded

    # -- core thread

    def attach(self, bus: EventBus) -> Callable[[], None]:
        """Mirror every timer event on *bus* (core thread). Returns the unsubscriber."""
        return bus.subscribe(TimerEvent, self.show)

    def show(self, event: TimerEvent) -> None:
        """Mirror one timer event (core thread; never blocks on the port)."""
        with self._lock:
            self.protocol.mirror(event, self._now_ms())
        if not isinstance(event, TimerTicked):  # a tick sends nothing: no need to wake the I/O
            self._wake()

    def command(self, mtype: int, payload: bytes = b"", *, replace: bool = False) -> None:
        """Send a host command (any thread)."""
        with self._lock:
            self.protocol.command(mtype, payload, replace=replace)
        self._wake()

    @property
    def status(self) -> AccessoryStatus:
        return self._status

    def is_idle(self) -> bool:
        """Every command sent has been answered."""
        with self._lock:
            return self.protocol.link.is_idle

    def wait_until(self, predicate: Callable[[], bool], timeout_s: float) -> bool:
        """Block until *predicate* holds or *timeout_s* passed (CLI tools, tests)."""
        deadline = self._clock() + timeout_s
        while not predicate():
            if self._clock() >= deadline or self._stop.is_set():
                return predicate()
            self._stop.wait(0.005)
        return True

    def start(self) -> AccessoryBridge:
        if self.setting != "none" and self._thread is None:
            self._thread = threading.Thread(target=self._run, name="accessory", daemon=True)
            self._thread.start()
        return self

    def close(self, flush_s: float = 0.5) -> None:
        """Send what is still queued (up to *flush_s*), then stop and close the port."""
        if self._thread is not None and self._status.is_connected and flush_s > 0:
            self.wait_until(self.is_idle, flush_s)
        self._stop.set()
        self._wake()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
        self._close_port()

    def __enter__(self) -> AccessoryBridge:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the I/O thread

    def _now_ms(self) -> float:
        return self._clock() * 1000.0

    def _wake(self) -> None:
        port = self._port
        cancel = getattr(port, "cancel_read", None)
        if cancel is not None:
            # The port may be closing on the I/O thread right now: then there is nothing to wake.
            with contextlib.suppress(OSError, serial.SerialException, TypeError, ValueError):
                cancel()

    def _set_status(self, status: AccessoryStatus) -> None:
        if status == self._status:
            return
        was = self._status
        self._status = status
        if status.is_connected:
            self.connections += 1
        if status.state != was.state:  # a degraded link is a WARNING once, each time it degrades
            degraded = status.state in ("disconnected", "no answer", "version mismatch")
            log.log(logging.WARNING if degraded else logging.INFO, "%s", status.to_text())
        if self._on_status is not None:
            callback = self._on_status
            self._post(lambda: callback(status))

    def _run(self) -> None:
        while not self._stop.is_set():
            if self._port is None and not self._open():
                self._stop.wait(REOPEN_S)
                continue
            try:
                if self._serve():
                    self._stop.wait(REOPEN_S)
            except (serial.SerialException, OSError) as exc:
                self._close_port()
                why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "unplugged or reset"
                self._set_status(AccessoryStatus("disconnected", self._status.port, None,
                                                 f"the port went away ({why})"))
                self._stop.wait(REOPEN_S)
            except Exception:  # our bug: say so, and keep the accessory (and the app) going
                log.exception("the accessory's I/O thread failed; reopening the port")
                self._close_port()
                self._set_status(AccessoryStatus("disconnected", self._status.port, None, "internal error"))
                self._stop.wait(REOPEN_S)

    def _open(self) -> bool:
        try:
            name = find_port(self.setting, self.usb_ids)
        except Exception as exc:  # list_ports fails in its own ways (sysfs, udev)
            self._set_status(AccessoryStatus("searching", None, None, f"cannot list serial ports: {exc}"))
            return False
        if name is None:
            state = "disconnected" if self._status.state in ("connected", "disconnected") else "searching"
            self._set_status(AccessoryStatus(state, None, None, "no accessory found"))
            return False
        try:
            port = open_port(name, self.baudrate)
        except (serial.SerialException, OSError, ValueError) as exc:
            state = "disconnected" if self._status.state in ("connected", "disconnected") else "searching"
            self._set_status(AccessoryStatus(state, name, None, f"cannot open it: {_reason(exc)}"))
            return False
        with contextlib.suppress(serial.SerialException, OSError):
            port.reset_input_buffer()
        self._port = port
        with self._lock:
            self.protocol.start(self._now_ms())
        self._set_status(AccessoryStatus("connecting", name))
        return True

    def _serve(self) -> bool:
        """Move bytes until the link goes down (True: reopen later) or the bridge stops."""
        port = self._port
        while not self._stop.is_set():
            with self._lock:
                out = self.protocol.poll(self._now_ms())
            if out:
                port.write(out)
            data = port.read(1)
            if data:
                waiting = port.in_waiting
                if waiting:
                    data += port.read(waiting)
                with self._lock:
                    events = self.protocol.feed(data, self._now_ms())
                    out = self.protocol.poll(self._now_ms())
                if out:
                    port.write(out)
                for event in events:
                    self._deliver(event)
            if self._check_state(port.name if hasattr(port, "name") else str(self.setting)):
                return True
        return False

    def _check_state(self, name: str) -> bool:
        """Report the protocol's state; True when the port should be closed and reopened."""
        proto_state = self.protocol.state
        if proto_state == "connected":
            self._set_status(AccessoryStatus("connected", name, self.protocol.device))
        elif proto_state == "mismatch":
            d = self.protocol.mismatch
            theirs = d.protocol_version if d else "?"
            self._set_status(AccessoryStatus(
                "version mismatch", name, None,
                f"the accessory speaks protocol v{theirs}, the companion v{self.protocol.version}: "
                "update the one that is older"))
        elif proto_state == "down":
            self._close_port()
            self._set_status(AccessoryStatus("disconnected", name, None, "the accessory stopped answering"))
            return True
        elif self.protocol.is_waiting_too_long(self._now_ms()):
            self._set_status(AccessoryStatus("no answer", name, None,
                                             "nothing answers the handshake on this port"))
        elif self._status.state != "no answer":  # (re)handshaking
            self._set_status(AccessoryStatus("connecting", name))
        return False

    def _deliver(self, event: ButtonReported | StatusReported) -> None:
        if isinstance(event, StatusReported):
            if self._on_report is not None:
                report = self._on_report
                self._post(lambda: report(event))
            return
        actions = self._actions
        if actions is None:
            return
        if event.kind == "press":
            self._post(actions.silenced if event.silenced else actions.toggle)
        elif event.kind == "hold":
            self._post(actions.reset)

    def _close_port(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            with contextlib.suppress(serial.SerialException, OSError):
                port.close()


def _reason(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def self_test(bridge: AccessoryBridge, say: Callable[[str], None], *, step_s: float = 0.4) -> bool:
    """Run the display, the LEDs and the buzzer through their patterns; True when the
    accessory took every command. Blocks for about 10 s (CLI only)."""
    link = bridge.protocol.link
    rejected = link.rejected

    def send(what: str, mtype: int, payload: bytes = b"", hold_s: float = step_s) -> bool:
        bridge.command(mtype, payload)
        answered = bridge.wait_until(bridge.is_idle, 2.0)
        ok = answered and link.rejected == rejected and bridge.status.is_connected
        say(f"{what:<34} {'ok' if ok else 'NOT TAKEN'}")
        if ok and hold_s:
            bridge.wait_until(lambda: False, hold_s)
        return ok

    def timer(state: int, remaining_ms: int, total_ms: int) -> bytes:
        return proto.pack_show_timer(state, 60000 + remaining_ms // 100, remaining_ms, total_ms, "test")

    steps: list[tuple[str, int, bytes, float]] = [
        ("display: 59:59, every LED", proto.SHOW_TIMER, timer(proto.STATE_IDLE, 3599000, 3599000), step_s),
    ]
    for percent in (10, 40, 70, 100):
        steps.append((f"brightness {percent} %", proto.BRIGHTNESS, bytes((percent,)), step_s / 2))
    for lit in range(8, -1, -2):
        steps.append((f"LEDs: {lit} of 8 lit", proto.SHOW_TIMER, timer(proto.STATE_PAUSED, lit * 1000, 8000),
                      step_s / 2))
    steps.append(("display: a 3 s countdown", proto.SHOW_TIMER, timer(proto.STATE_RUNNING, 3000, 3000), 3.2))
    steps += [
        ("buzzer: start", proto.PATTERN, proto.pack_pattern(proto.PAT_START), step_s),
        ("buzzer: pause", proto.PATTERN, proto.pack_pattern(proto.PAT_PAUSE), step_s),
        ("buzzer: first warning", proto.PATTERN, proto.pack_pattern(proto.PAT_WARNING, 0), step_s),
        ("buzzer: second warning", proto.PATTERN, proto.pack_pattern(proto.PAT_WARNING, 1), 2 * step_s),
        ("buzzer: scale", proto.PATTERN, proto.pack_pattern(proto.PAT_TEST), 2 * step_s),
        ("buzzer: alarm for 1.5 s", proto.PATTERN, proto.pack_pattern(proto.PAT_ALARM, 0, 1500), 1.6),
        ("silence", proto.SILENCE, b"", 0),
        ("display: no timer", proto.SHOW_TIMER, timer(proto.STATE_NONE, 0, 0), 0),
        ("brightness back", proto.BRIGHTNESS, bytes((bridge.protocol.brightness,)), 0),
    ]
    return all([send(what, mtype, payload, hold) for what, mtype, payload, hold in steps])
