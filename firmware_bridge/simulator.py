"""The accessory without the hardware: the firmware's own protocol code behind a real pty.

``companion accessory simulate`` runs :class:`Simulator`: a pseudo-terminal pair
from the kernel (pyserial opens its slave side like any serial port), the same
:class:`~firmware_bridge.firmware.accessory_device.Device` the Pico runs, and a
fault injector between them (dropped, corrupted, delayed bytes; a cable pulled and
put back). Its port is a symlink that stays put when a replug brings a new pty.
"""

from __future__ import annotations

import contextlib
import os
import random
import select
import tempfile
import threading
import time
import tty
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from firmware_bridge.firmware import accessory_proto as proto
from firmware_bridge.firmware.accessory_device import Device

LOOP_S = 0.005


@dataclass(frozen=True)
class Faults:
    """What goes wrong on the simulated line. Percentages are per byte, either way."""

    drop_pct: float = 0.0
    corrupt_pct: float = 0.0
    delay_ms: float = 0.0
    reply_late_ms: float = 0.0
    unplug_every_s: float = 0.0
    unplug_for_s: float = 1.0
    seed: int | None = None
    baud: int = 0
    """Pace the bytes as a UART at this rate would (10 bits a byte); 0: as fast as the pty."""


class FaultyLine:
    """Bytes through a bad cable: some lost, some flipped, all late. Deterministic per seed."""

    def __init__(self, faults: Faults, rng: random.Random) -> None:
        self.faults = faults
        self._rng = rng
        self.dropped = 0
        self.corrupted = 0

    def mangle(self, data: bytes) -> bytes:
        f = self.faults
        if not (f.drop_pct or f.corrupt_pct):
            return data
        out = bytearray()
        for byte in data:
            roll = self._rng.random() * 100
            if roll < f.drop_pct:
                self.dropped += 1
                continue
            if roll < f.drop_pct + f.corrupt_pct:
                self.corrupted += 1
                byte ^= 1 << self._rng.randrange(8)
            out.append(byte)
        return bytes(out)


class PtyPort:
    """One end of a kernel pseudo-terminal, raw, with a stable symlink to its other end."""

    def __init__(self, link: Path) -> None:
        self.link = link
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)  # no echo, no line discipline: bytes pass as they are
        tty.setraw(self.master)
        os.set_blocking(self.master, False)
        self.device = os.ttyname(self._slave)
        tmp = link.with_name(link.name + ".new")
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        os.symlink(self.device, tmp)
        os.replace(tmp, link)

    def read(self) -> bytes:
        try:
            return os.read(self.master, 4096)
        except BlockingIOError:
            return b""
        except OSError:  # EIO: nothing holds the other end open
            return b""

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.master, view)
            except BlockingIOError:
                select.select([], [self.master], [], 0.05)
                continue
            view = view[n:]

    def unplug(self) -> None:
        """Close both ends and remove the link, as a pulled USB cable removes the device."""
        with contextlib.suppress(FileNotFoundError):
            self.link.unlink()
        for fd in (self.master, self._slave):
            with contextlib.suppress(OSError):
                os.close(fd)


class Simulator:
    """The accessory as a process: a :class:`Device` behind a :class:`PtyPort`.

    :meth:`run` loops until :meth:`stop`; :meth:`press`, :meth:`hold` and
    :meth:`release` may be called from any thread. *on_change(view)* gets the display
    each time it changes (a dict: ``display``, ``colon``, ``leds``, ``tone_hz``,
    ``state``, ``remaining_ms``, ``link``).
    """

    def __init__(self, link: Path | None = None, *, faults: Faults | None = None,
                 version: int = proto.VERSION, device_id: str = "sim-0001", leds: int = 8,
                 on_change: Callable[[dict[str, object]], None] | None = None,
                 on_applied: Callable[[int, bytes, float], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._tmpdir: tempfile.TemporaryDirectory[str] | None = None
        if link is None:
            self._tmpdir = tempfile.TemporaryDirectory(prefix="companion-accessory-")
            link = Path(self._tmpdir.name) / "ttyACCESSORY"
        self.link = link
        self.faults = faults or Faults()
        self.version = version
        self.device_id = device_id
        self.leds = leds
        self._on_change = on_change
        self._on_applied = on_applied
        self._clock = clock
        rng = random.Random(self.faults.seed)
        self.incoming = FaultyLine(self.faults, rng)
        self.outgoing = FaultyLine(self.faults, rng)
        self._inbox: deque[tuple[float, bytes]] = deque()
        self._outbox: deque[tuple[float, bytes]] = deque()
        self._buttons: deque[int] = deque()
        self._line_free = {"in": 0.0, "out": 0.0}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.ready = threading.Event()
        self.quit_asked = threading.Event()
        self.cleanups: list[Callable[[], None]] = []
        self.port: PtyPort | None = None
        self.device = self._new_device()
        self.boots = 0
        self._last_view: dict[str, object] | None = None

    def _new_device(self) -> Device:
        device = Device(self.device_id, "simulator-1.0", capabilities=31, leds=self.leds,
                        version=self.version)
        device.on_applied = self._on_applied
        return device

    def now_ms(self) -> float:
        return self._clock() * 1000.0

    # -- any thread

    def press(self) -> None:
        self._button(proto.BTN_PRESS)
        self._button(proto.BTN_RELEASE)

    def hold(self) -> None:
        self._button(proto.BTN_PRESS)
        self._button(proto.BTN_HOLD)
        self._button(proto.BTN_RELEASE)

    def _button(self, kind: int) -> None:
        with self._lock:
            self._buttons.append(kind)

    def stop(self) -> None:
        self._stop.set()

    # -- the loop

    def plug_in(self) -> None:
        """A new pty and a freshly booted device, as when the cable goes back in."""
        self.port = PtyPort(self.link)
        self.device = self._new_device()
        self.device.boot(self.now_ms())
        self.boots += 1
        self._inbox.clear()
        self._outbox.clear()

    def unplug(self) -> None:
        if self.port is not None:
            self.port.unplug()
            self.port = None

    def run(self) -> None:
        """Serve until :meth:`stop`. Cleans up the pty and its link on the way out."""
        f = self.faults
        try:
            self.plug_in()
            self.ready.set()
            plugged_at = self._clock()
            while not self._stop.is_set():
                port = self.port
                if f.unplug_every_s > 0:
                    if port is not None and self._clock() - plugged_at >= f.unplug_every_s:
                        self.unplug()
                        unplugged_at = self._clock()
                        self._emit_view(force=True)
                        continue
                    if port is None:
                        if self._clock() - unplugged_at >= f.unplug_for_s:
                            self.plug_in()
                            plugged_at = self._clock()
                        else:
                            self._stop.wait(LOOP_S)
                        continue
                assert port is not None
                self._step(port)
        finally:
            self.unplug()
            for cleanup in self.cleanups:
                cleanup()
            if self._tmpdir is not None:
                self._tmpdir.cleanup()

    def _step(self, port: PtyPort) -> None:
        f = self.faults
        now = self.now_ms()
        timeout = LOOP_S
        if self._outbox:
            timeout = min(timeout, max(0.0, (self._outbox[0][0] - now) / 1000))
        if self._inbox:
            timeout = min(timeout, max(0.0, (self._inbox[0][0] - now) / 1000))
        select.select([port.master], [], [], timeout)
        data = port.read()
        now = self.now_ms()
        if data:
            data = self.incoming.mangle(data)
            due = self._paced("in", len(data), now) + f.delay_ms
            if due > now:
                self._inbox.append((due, data))
            else:
                self.device.feed(data, now)
        while self._inbox and self._inbox[0][0] <= now:
            self.device.feed(self._inbox.popleft()[1], now)
        with self._lock:
            buttons = list(self._buttons)
            self._buttons.clear()
        for kind in buttons:
            self.device.button(kind, now)
        out = self.device.poll(now)
        if out:
            out = self.outgoing.mangle(out)
            due = self._paced("out", len(out), now) + f.delay_ms + f.reply_late_ms
            if due > now:
                self._outbox.append((due, out))
            else:
                port.write(out)
        while self._outbox and self._outbox[0][0] <= now:
            port.write(self._outbox.popleft()[1])
        self._emit_view()

    def _paced(self, way: str, n: int, now: float) -> float:
        """When *n* bytes sent now have gone through a UART at ``faults.baud``."""
        baud = self.faults.baud
        if not baud:
            return now
        done = max(now, self._line_free[way]) + n * 10_000 / baud
        self._line_free[way] = done
        return done

    def view(self) -> dict[str, object]:
        now = self.now_ms()
        d = self.device
        text, colon = d.display(now)
        return {"display": text, "colon": colon, "leds": d.lit_leds(now), "tone_hz": d.tone_hz(now),
                "state": proto.STATE_NAMES[d.state], "remaining_ms": d.remaining_ms(now),
                "brightness": d.brightness, "link": "unplugged" if self.port is None
                else "lost" if d.is_host_lost(now) else "up"}

    def _emit_view(self, force: bool = False) -> None:
        if self._on_change is None:
            return
        view = self.view()
        shown = {k: v for k, v in view.items() if k != "remaining_ms"}
        last = self._last_view
        if force or last is None or {k: v for k, v in last.items() if k != "remaining_ms"} != shown:
            self._last_view = view
            self._on_change(view)


def render(view: dict[str, object], leds: int) -> str:
    """The simulated panel as one terminal line: display, LEDs, buzzer, link."""
    text = str(view["display"])
    digits = f"{text[:2]}{':' if view['colon'] else ' '}{text[2:]}"
    lit = int(view["leds"])  # type: ignore[call-overload]
    bar = "●" * lit + "○" * (leds - lit)
    hz = int(view["tone_hz"])  # type: ignore[call-overload]
    sound = f"♪ {hz} Hz" if hz else "       "
    return f"[ {digits} ]  {bar}  {sound:<9}  {view['state']:<8} link {view['link']}"


def serve(args: Any) -> int:
    """``companion accessory simulate``: print the port, run until quit. Main thread."""
    import json
    import sys

    from firmware_bridge.accessory_ports import simulator_port_file

    faults = Faults(drop_pct=args.drop, corrupt_pct=args.corrupt, delay_ms=args.delay,
                    reply_late_ms=args.reply_late, unplug_every_s=args.unplug_every,
                    unplug_for_s=args.unplug_for, seed=args.seed, baud=args.baud)
    out = sys.stdout
    leds = 8
    announced = threading.Event()  # the port's line comes first: a reader takes it from line one

    def show(view: dict[str, object]) -> None:
        announced.wait(5)
        if args.json:
            out.write(json.dumps(view) + "\n")
        else:
            out.write("\r" + render(view, leds) + "\033[K")
        out.flush()

    version = args.protocol_version if args.protocol_version is not None else proto.VERSION
    sim = Simulator(args.link, faults=faults, version=version, leds=leds, on_change=show)
    thread = threading.Thread(target=sim.run, name="simulator", daemon=True)
    thread.start()
    sim.ready.wait(5)
    marker = simulator_port_file()
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(str(sim.link), encoding="utf-8")
    except OSError:
        marker = None  # type: ignore[assignment]
    out.write((json.dumps({"port": str(sim.link)}) if args.json else str(sim.link)) + "\n")
    if not args.json:
        out.write("keys: space press · h hold (reset) · q quit\n")
    out.flush()
    announced.set()
    actions = {" ": sim.press, "\n": sim.press, "\r": sim.press, "p": sim.press, "press": sim.press,
               "h": sim.hold, "hold": sim.hold}
    try:
        _read_commands(actions, sim)
        while thread.is_alive() and not sim.quit_asked.is_set():
            thread.join(0.2)
    finally:
        sim.stop()
        thread.join(2)
        if marker is not None:
            with contextlib.suppress(OSError):
                if marker.read_text(encoding="utf-8") == str(sim.link):
                    marker.unlink()
        if not args.json:
            out.write("\n")
    return 0


def _read_commands(actions: dict[str, Callable[[], None]], sim: Simulator) -> None:
    """Keys from a terminal, or lines (press, hold, quit) from a pipe, on a daemon thread."""
    import sys

    from companion.terminal import keyboard

    def on(command: str) -> None:
        if command in ("q", "quit"):
            sim.quit_asked.set()
        elif command in actions:
            actions[command]()

    if sys.stdin.isatty():
        keys = keyboard(on)
        keys.__enter__()
        def restore() -> None:
            keys.__exit__(None, None, None)

        sim.cleanups.append(restore)
        return

    def lines() -> None:
        for line in sys.stdin:
            on(line.strip().lower())
        # end of input is not a quit: a test harness may close stdin and keep us running

    threading.Thread(target=lines, name="simulator-input", daemon=True).start()
