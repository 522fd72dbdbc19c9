"""The host bridge against real ptys: a scripted device, and the simulator running the firmware's code.

These tests wait on conditions, never for a fixed time; each wait's bound is in desktop seconds,
scaled by the slowdown (tests/slowdown.py): only how long to wait before saying it never came.
"""

from __future__ import annotations

import contextlib
import os
import queue
import random
import select
import threading
import time
import tty
from collections.abc import Callable, Iterator

import pytest

from companion.clock import MonotonicClock
from companion.events import EventBus, TimerPaused, TimerStarted
from companion.timers import Phase, TimerBoard
from firmware_bridge.accessory import AccessoryBridge, AccessoryStatus
from firmware_bridge.accessory_host import StatusReported
from firmware_bridge.accessory_ports import find_port
from firmware_bridge.firmware import accessory_proto as proto
from firmware_bridge.gpio import ButtonActions
from firmware_bridge.simulator import Faults, Simulator
from tests.slowdown import scaled

from .scripted import ScriptedDevice

HELLO_REPLY = proto.pack_device_hello(1, proto.FLAG_REPLY, 31, 8, "scripted-1", "script-1.0")


def wait_for(predicate: Callable[[], bool], timeout_s: float = 5.0) -> bool:
    """True once *predicate* holds; False if *timeout_s* desktop seconds (scaled) pass first."""
    deadline = time.monotonic() + scaled(timeout_s)
    while not predicate():
        if time.monotonic() > deadline:
            return False
        threading.Event().wait(0.002)
    return True


class Core:
    """The core's thread stand-in: posted closures wait in a queue until :meth:`drain`."""

    def __init__(self) -> None:
        self.inbox: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self.calls: list[str] = []
        self.statuses: list[AccessoryStatus] = []
        self.actions = ButtonActions(toggle=lambda: self.calls.append("toggle"),
                                     reset=lambda: self.calls.append("reset"),
                                     silenced=lambda: self.calls.append("silenced"))

    def post(self, fn: Callable[[], None]) -> None:
        self.inbox.put(fn)

    def drain(self) -> None:
        while True:
            try:
                self.inbox.get_nowait()()
            except queue.Empty:
                return


@pytest.fixture
def core() -> Core:
    return Core()


@contextlib.contextmanager
def running(sim: Simulator) -> Iterator[Simulator]:
    thread = threading.Thread(target=sim.run, daemon=True)
    thread.start()
    assert sim.ready.wait(scaled(5))
    try:
        yield sim
    finally:
        sim.stop()
        thread.join(scaled(5))


@contextlib.contextmanager
def bridged(port: str, core: Core, **kwargs: object) -> Iterator[AccessoryBridge]:
    bridge = AccessoryBridge(port, core.post, core.actions, on_status=core.statuses.append, **kwargs)  # type: ignore[arg-type]
    bridge.start()
    try:
        yield bridge
    finally:
        bridge.close(flush_s=0)


@contextlib.contextmanager
def mirrored(sim: Simulator, core: Core) -> Iterator[tuple[AccessoryBridge, TimerBoard, MonotonicClock]]:
    """The simulator running, a bridge connected to it, and a timer board it mirrors."""
    clock = MonotonicClock()
    bus = EventBus()
    board = TimerBoard(clock, bus)
    with running(sim), bridged(str(sim.link), core) as bridge:
        bridge.attach(bus)
        assert wait_for(lambda: bridge.status.is_connected)
        yield bridge, board, clock


# -- a scripted device -----------------------------------------------------------------------


def test_handshake_every_command_and_every_event_over_a_pty(core: Core) -> None:
    device = ScriptedDevice()
    device.expect(proto.HELLO, proto.pack_hello(1, 0), (proto.D_HELLO, HELLO_REPLY))
    device.expect(proto.BRIGHTNESS, bytes((60,)))
    try:
        with bridged(device.path, core, brightness=60) as bridge:
            device.assert_done()
            assert wait_for(lambda: bridge.status.is_connected)
            assert bridge.status.device is not None and bridge.status.device.device_id == "scripted-1"

            device.expect(proto.SHOW_TIMER, lambda p: proto.parse_show_timer(p)[0] == proto.STATE_RUNNING
                          and proto.parse_show_timer(p)[3:] == (30000, "negotiation"))
            device.expect(proto.PATTERN, proto.pack_pattern(proto.PAT_START))
            t = time.monotonic()
            bridge.show(TimerStarted("negotiation", 30.0, 30.0, t))
            device.assert_done()
            device.expect(proto.SHOW_TIMER, lambda p: proto.parse_show_timer(p)[:1] == (proto.STATE_PAUSED,)
                          and proto.parse_show_timer(p)[2] == 20000)
            device.expect(proto.PATTERN, proto.pack_pattern(proto.PAT_PAUSE))
            device.expect(proto.SILENCE, b"")
            device.expect(proto.GET_STATUS, b"", (proto.D_STATUS, proto.pack_status(3, 2, 20000, 60, 0, 0, 5)))
            bridge.show(TimerPaused("negotiation", 20.0, 30.0, t))
            bridge.command(proto.SILENCE)
            reports: list[StatusReported] = []
            bridge._on_report = reports.append
            bridge.command(proto.GET_STATUS)
            device.assert_done()

            for kind, flags in ((proto.BTN_PRESS, 0), (proto.BTN_HOLD, 0), (proto.BTN_RELEASE, 0),
                                (proto.BTN_PRESS, proto.FLAG_SILENCED)):
                device.send(proto.D_BUTTON, proto.pack_button(kind, flags))
            assert wait_for(lambda: (core.drain(), len(core.calls) == 3)[1])
            assert core.calls == ["toggle", "reset", "silenced"]
            assert reports == [StatusReported("paused", 2, 20000, 60, "none", 0, 5)]
    finally:
        device.close()


def test_device_hello_after_a_reboot_resynchronises(core: Core) -> None:
    device = ScriptedDevice()
    device.expect(proto.HELLO, None, (proto.D_HELLO, HELLO_REPLY))
    device.expect(proto.BRIGHTNESS)
    try:
        with bridged(device.path, core) as bridge:
            device.assert_done()
            device.expect(proto.SHOW_TIMER)
            device.expect(proto.PATTERN)
            bridge.show(TimerStarted("t", 10.0, 10.0, time.monotonic()))
            device.assert_done()
            boot = proto.pack_device_hello(1, 0, 31, 8, "scripted-1", "script-1.0")
            device.expect(proto.HELLO, proto.pack_hello(1, proto.FLAG_REPLY))  # the host answers the boot HELLO
            device.expect(proto.BRIGHTNESS)
            device.expect(proto.SHOW_TIMER, lambda p: proto.parse_show_timer(p)[0] == proto.STATE_RUNNING)
            device.send(proto.D_HELLO, boot)
            device.assert_done()
    finally:
        device.close()


# -- the simulator: the firmware's own protocol code --------------------------------------------


@pytest.mark.slow
def test_soak_10000_commands_through_a_noisy_line(core: Core) -> None:
    applied: list[tuple[int, bytes]] = []
    faults = Faults(drop_pct=1.0, corrupt_pct=1.0, seed=20261130)
    sim = Simulator(faults=faults, on_applied=lambda t, p, now: applied.append((t, p)))
    with mirrored(sim, core) as (bridge, board, clock):
        board.add("soak", 3600)
        board.start("soak")
        sent: list[bytes] = []
        for i in range(10_000):
            if i % 500 == 250:
                board.pause("soak")
            elif i % 500 == 0:
                board.resume("soak") if board["soak"].phase is Phase.PAUSED else None
            payload = proto.pack_pattern(proto.PAT_TEST, i % 256, i)
            sent.append(payload)
            bridge.command(proto.PATTERN, payload)
            if i % 50 == 49:  # keep at most 50 in the queue, like a busy table would
                assert wait_for(bridge.is_idle, 30), f"stuck after {i + 1}"
        assert wait_for(bridge.is_idle, 30)
        board.resume("soak") if board["soak"].phase is Phase.PAUSED else None
        assert wait_for(bridge.is_idle, 10)
        got = [p for t, p in applied if t == proto.PATTERN and p[0] == proto.PAT_TEST]
        assert got == sent  # none lost, none twice, in order
        now_ms = clock.now() * 1000
        device = sim.device
        assert device.state == proto.STATE_RUNNING and device.name == "soak"
        assert device.run == bridge.protocol.shown.run  # type: ignore[union-attr]
        assert abs(device.remaining_ms(now_ms) - board["soak"].remaining_s(clock.now()) * 1000) < scaled(0.1) * 1000
        assert bridge.status.is_connected and bridge.connections == 1
        assert sim.incoming.corrupted > 0 and sim.outgoing.dropped > 0 and device.link.bad_frames > 0


PLUGGED_S = scaled(4.0)
"""How long the simulator stays plugged in between pulls: longer than the resync may take, so
no second pull comes before the check is done, on any machine."""


@pytest.mark.slow
def test_unplug_and_replug_resynchronises_the_running_timer_within_2_s(core: Core) -> None:
    sim = Simulator(faults=Faults(unplug_every_s=PLUGGED_S, unplug_for_s=0.5))
    with mirrored(sim, core) as (bridge, board, clock):
        board.add("t", 120)
        board.start("t")
        assert wait_for(lambda: sim.port is None, PLUGGED_S + 5)  # pulled
        assert wait_for(lambda: not bridge.status.is_connected, 5)
        # the core hears of it through its queue, a moment after the status changed: wait for that
        assert wait_for(lambda: (core.drain(), any(s.state == "disconnected" for s in core.statuses))[1], 5)
        assert wait_for(lambda: sim.port is not None, 5)  # back, a fresh device
        back = time.monotonic()
        assert wait_for(lambda: sim.device.state == proto.STATE_RUNNING, 2.0)
        resync_s = time.monotonic() - back
        assert resync_s <= scaled(2.0)
        assert sim.boots == 2  # the same replug: no second pull came in between
        assert abs(sim.device.remaining_ms(clock.now() * 1000) - board["t"].remaining_s(clock.now()) * 1000) \
            < scaled(0.1) * 1000
        assert board["t"].phase is Phase.RUNNING  # the app's timer never noticed


def test_version_mismatch_is_a_status_not_a_crash(core: Core) -> None:
    sim = Simulator(version=2)
    with running(sim), bridged(str(sim.link), core) as bridge:
        assert wait_for(lambda: bridge.status.state == "version mismatch")
        assert "v2" in bridge.status.detail and "v1" in bridge.status.detail
        bridge.show(TimerStarted("t", 10.0, 10.0, time.monotonic()))  # dropped, not sent
        assert sim.device.state == proto.STATE_NONE


def test_the_simulators_button_reaches_the_core(core: Core) -> None:
    sim = Simulator()
    with running(sim), bridged(str(sim.link), core) as bridge:
        assert wait_for(lambda: bridge.status.is_connected)
        sim.press()
        sim.hold()  # like the GPIO button: the press toggles, holding on resets
        assert wait_for(lambda: (core.drain(), len(core.calls) == 3)[1])
        assert core.calls == ["toggle", "toggle", "reset"]


@contextlib.contextmanager
def bare_pty(writer: Callable[[int], None] | None = None) -> Iterator[str]:
    master, slave = os.openpty()
    tty.setraw(slave)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            if writer is not None:
                writer(master)
            ready, _, _ = select.select([master], [], [], 0.005)
            if ready:
                with contextlib.suppress(OSError):
                    os.read(master, 4096)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield os.ttyname(slave)
    finally:
        stop.set()
        thread.join(1)
        os.close(master)
        os.close(slave)


@pytest.mark.slow
def test_garbage_on_the_line_is_no_answer_not_a_crash(core: Core) -> None:
    rng = random.Random(7)
    with bare_pty(lambda fd: os.write(fd, rng.randbytes(64))) as path, bridged(path, core) as bridge:
        assert wait_for(lambda: bridge.status.state == "no answer", 6)
        assert bridge.protocol.link.bad_frames > 10
        assert bridge._thread is not None and bridge._thread.is_alive()


@pytest.mark.slow
def test_a_device_that_never_answers(core: Core) -> None:
    with bare_pty() as path, bridged(path, core) as bridge:
        assert wait_for(lambda: bridge.status.state == "no answer", 6)
        assert "handshake" in bridge.status.detail


def test_a_missing_port_is_searched_for_quietly(core: Core, tmp_path: object) -> None:
    with bridged("/dev/ttyACM-not-here", core) as bridge:
        assert wait_for(lambda: "cannot open it" in bridge.status.detail)
        assert bridge.status.state == "searching"


def test_find_port_takes_settings_and_urls_as_they_are() -> None:
    assert find_port("none") is None
    assert find_port("loop://") == "loop://"
    assert find_port("/dev/ttyACM3") == "/dev/ttyACM3"


@pytest.mark.slow
def test_a_loop_url_hears_only_itself(core: Core) -> None:
    with bridged("loop://", core) as bridge:
        assert wait_for(lambda: bridge.status.state == "no answer", 6)


def test_a_bug_on_the_io_thread_is_logged_and_the_link_comes_back(core: Core, caplog: pytest.LogCaptureFixture) -> None:
    failures = [RuntimeError("a broken tap")]

    def tap(direction: str, mtype: int, payload: bytes) -> None:
        if failures and direction == "rx":
            raise failures.pop()

    sim = Simulator()
    with running(sim), bridged(str(sim.link), core, tap=tap) as bridge:
        assert wait_for(lambda: bridge.status.is_connected and not failures, 5)
        assert bridge.connections == 1 and bridge._thread is not None and bridge._thread.is_alive()
    errors = [r for r in caplog.records if r.levelname == "ERROR"]
    assert [r.getMessage() for r in errors] == ["the accessory's I/O thread failed; reopening the port"]
    caplog.clear()  # expected here; the autouse check fails any other ERROR
