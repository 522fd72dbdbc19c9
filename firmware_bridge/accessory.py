"""The USB-serial timer accessory, host side: the bridge that keeps it mirroring the timers.

Two layers, as in pyserial's ``Protocol``/``ReaderThread`` split:

- :class:`~firmware_bridge.accessory_host.HostProtocol` is pure: timer events and
  bytes in, bytes and device events out (:mod:`firmware_bridge.accessory_host`).
- :class:`AccessoryBridge` is the shell: one I/O thread that finds and opens the
  port (:mod:`firmware_bridge.accessory_ports`), feeds the protocol, writes its bytes,
  and reopens the port after the cable was pulled. It never touches the core: button
  presses and status changes go through the injected ``post``. :class:`AccessoryStatus`
  is what it says of the link.

:func:`self_test` runs the accessory's display, LEDs and buzzer through their paces.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import serial

from companion.events import EventBus, Post, TimerEvent, TimerTicked
from firmware_bridge.accessory_host import ButtonReported, DeviceInfo, HostProtocol, StatusReported
from firmware_bridge.accessory_ports import BAUDRATE, DEFAULT_USB_IDS, find_port, open_port, parse_usb_id
from firmware_bridge.errors import BridgeError
from firmware_bridge.firmware import accessory_proto as proto
from firmware_bridge.gpio import ButtonActions

log = logging.getLogger(__name__)

REOPEN_S = 0.25


class AccessoryError(BridgeError, OSError):
    """The accessory cannot be used as asked (a port that is not there, a bad setting)."""


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
