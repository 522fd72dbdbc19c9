"""The timer accessory's wire protocol: framing, the reliable link, and the device's logic.

``docs/accessory-protocol.md`` is the specification; this module is its code, shared
by three programs: the host bridge (CPython), the simulator (CPython) and the
reference firmware on a Raspberry Pi Pico (MicroPython). So it keeps to what
MicroPython runs: no ``dataclasses``, no ``typing`` or ``enum`` at runtime, no
``__future__`` imports, only ``struct`` from the library. Annotations are syntax
MicroPython parses and ignores; forward references are strings.

Everything here is pure: bytes in, bytes out, and every call takes ``now_ms``, a
monotonic time in milliseconds that never wraps (the firmware accumulates
``ticks_diff`` into one). Nothing reads a clock or a port.
"""

import struct

MYPY = False
if MYPY:  # read by mypy only: MicroPython has no typing module, and CPython never runs this
    from collections.abc import Callable
    from typing import Any  # noqa: F401 (used in type comments)

    Frame = tuple[int, int, bytes]
    Handler = Callable[[int, bytes, float], int]

VERSION = 1

# -- message types (section 3) -------------------------------------------------------------

HELLO = 0x01
SHOW_TIMER = 0x02
PATTERN = 0x03
BRIGHTNESS = 0x04
SILENCE = 0x05
GET_STATUS = 0x06
PING = 0x07

D_HELLO = 0x41
D_BUTTON = 0x42
D_STATUS = 0x43
D_PING = 0x44

ACK = 0x7E
NAK = 0x7F

HOST_TYPES = (HELLO, SHOW_TIMER, PATTERN, BRIGHTNESS, SILENCE, GET_STATUS, PING)
DEVICE_TYPES = (D_HELLO, D_BUTTON, D_STATUS, D_PING)
TYPE_NAMES = {
    HELLO: "HELLO", SHOW_TIMER: "SHOW_TIMER", PATTERN: "PATTERN", BRIGHTNESS: "BRIGHTNESS",
    SILENCE: "SILENCE", GET_STATUS: "GET_STATUS", PING: "PING", D_HELLO: "HELLO",
    D_BUTTON: "BUTTON", D_STATUS: "STATUS", D_PING: "PING", ACK: "ACK", NAK: "NAK",
}

# NAK reasons
NAK_GARBLED = 1
NAK_UNKNOWN_TYPE = 2
NAK_BAD_PAYLOAD = 3
NAK_NOT_HANDSHAKEN = 4
NAK_REASONS = {0: "ok", NAK_GARBLED: "garbled frame", NAK_UNKNOWN_TYPE: "unknown type",
               NAK_BAD_PAYLOAD: "bad payload", NAK_NOT_HANDSHAKEN: "not handshaken or wrong version"}

# timer states
STATE_NONE = 0
STATE_IDLE = 1
STATE_RUNNING = 2
STATE_PAUSED = 3
STATE_EXPIRED = 4
STATE_NAMES = ("none", "idle", "running", "paused", "expired")

# patterns
PAT_START = 1
PAT_PAUSE = 2
PAT_WARNING = 3
PAT_ALARM = 4
PAT_TEST = 5
PATTERN_NAMES = {0: "none", PAT_START: "start", PAT_PAUSE: "pause", PAT_WARNING: "warning",
                 PAT_ALARM: "alarm", PAT_TEST: "test"}

# buttons
BTN_PRESS = 1
BTN_HOLD = 2
BTN_RELEASE = 3
BUTTON_NAMES = {BTN_PRESS: "press", BTN_HOLD: "hold", BTN_RELEASE: "release"}

# capabilities
CAP_DISPLAY = 1
CAP_LEDS = 2
CAP_BUZZER = 4
CAP_TONES = 8
CAP_BUTTON = 16

FLAG_REPLY = 1
FLAG_SILENCED = 1

# -- timing (sections 2 and 4) ---------------------------------------------------------------

RTO_MS = 40
MAX_SENDS = 20
HOST_PING_MS = 500
DEVICE_PING_MS = 1000
HOST_LOST_MS = 3000
DEFAULT_ALARM_MS = 4000

MAX_PAYLOAD = 64
MAX_TEXT = 24
MAX_BODY = 3 + MAX_PAYLOAD + 2
MAX_WIRE = MAX_BODY + (MAX_BODY + 253) // 254  # COBS adds one byte per 254, at least one


class FrameError(ValueError):
    """Bytes that are not a frame: bad COBS, a length that does not match, a bad CRC."""


# -- CRC-16/CCITT-FALSE and COBS -----------------------------------------------------------


def _crc_table() -> "list[int]":
    table = []  # type: list[int]
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_CRC_TABLE = _crc_table()


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF; ``crc16(b"123456789") == 0x29B1``."""
    crc = 0xFFFF
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _CRC_TABLE[((crc >> 8) ^ byte) & 0xFF]
    return crc


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: *data* without zero bytes (no delimiter added)."""
    out = bytearray()
    block = bytearray()
    for byte in data:
        if byte == 0:
            out.append(len(block) + 1)
            out.extend(block)
            block = bytearray()
        else:
            block.append(byte)
            if len(block) == 254:
                out.append(255)
                out.extend(block)
                block = bytearray()
    out.append(len(block) + 1)
    out.extend(block)
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """The inverse of :func:`cobs_encode`. :raises FrameError: for bytes no encoding gives."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise FrameError("zero byte inside a COBS frame")
        end = i + code
        if end > n:
            raise FrameError("COBS block runs past the end of the frame")
        out.extend(data[i + 1:end])
        i = end
        if code < 255 and i < n:
            out.append(0)
    return bytes(out)


def encode_frame(seq: int, mtype: int, payload: bytes = b"") -> bytes:
    """One frame as it goes on the wire, between two zero bytes: the leading one ends any
    garbage before it, so a receiver gets this frame whatever came first."""
    if len(payload) > MAX_PAYLOAD:
        raise FrameError("payload of " + str(len(payload)) + " bytes; at most 64")
    body = bytes((seq & 0xFF, mtype & 0xFF, len(payload))) + bytes(payload)
    crc = crc16(body)
    return b"\x00" + cobs_encode(body + bytes((crc >> 8, crc & 0xFF))) + b"\x00"


def decode_frame(encoded: bytes) -> "Frame":
    """``(seq, type, payload)`` from one frame's bytes without its closing zero.

    :raises FrameError: for anything that is not exactly one valid frame.
    """
    if not encoded:
        raise FrameError("empty frame")
    if len(encoded) > MAX_WIRE:
        raise FrameError("frame longer than any valid one")
    body = cobs_decode(encoded)
    if len(body) < 5:
        raise FrameError("frame shorter than its header and CRC")
    if body[2] != len(body) - 5:
        raise FrameError("length field says " + str(body[2]) + ", frame holds " + str(len(body) - 5))
    crc = (body[-2] << 8) | body[-1]
    if crc16(body[:-2]) != crc:
        raise FrameError("CRC mismatch")
    return body[0], body[1], bytes(body[3:-2])


class FrameDecoder:
    """Splits a byte stream into frames. Never raises: bad frames are counted and dropped.

    :meth:`feed` returns the frames completed by *data*, in order: ``(seq, type,
    payload)`` for a good one and ``None`` where a bad one was dropped. Empty frames
    (two zero bytes in a row) are idle fill and ignored.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overflow = False
        self.bad_frames = 0

    def feed(self, data: bytes) -> "list[Frame | None]":
        found = []  # type: list[Frame | None]
        i = 0
        n = len(data)
        while i < n:
            j = data.find(b"\x00", i)
            if j < 0:
                self._take(data[i:])
                break
            self._take(data[i:j])
            i = j + 1
            if self._overflow:
                self._overflow = False
                self._buf = bytearray()
                self.bad_frames += 1
                found.append(None)
                continue
            if not self._buf:
                continue
            chunk = bytes(self._buf)
            self._buf = bytearray()
            try:
                found.append(decode_frame(chunk))
            except FrameError:
                self.bad_frames += 1
                found.append(None)
        return found

    def _take(self, part: bytes) -> None:
        if self._overflow:
            return
        if len(self._buf) + len(part) > MAX_WIRE:
            self._overflow = True
            self._buf = bytearray()
        else:
            self._buf.extend(part)


# -- payloads ---------------------------------------------------------------------------------


def _text(value: str) -> bytes:
    raw = value.encode("utf-8")
    if len(raw) > MAX_TEXT:
        raw = raw[:MAX_TEXT]
        while raw:  # never cut a character in two
            try:
                raw.decode("utf-8")
                break
            except UnicodeError:
                raw = raw[:-1]
    return bytes((len(raw),)) + raw


def _read_text(payload: bytes, at: int) -> "tuple[str, int]":
    if at >= len(payload):
        raise FrameError("text field missing")
    n = payload[at]
    if n > MAX_TEXT or at + 1 + n > len(payload):
        raise FrameError("text field runs past the payload")
    try:
        text = bytes(payload[at + 1:at + 1 + n]).decode("utf-8")
    except UnicodeError:
        raise FrameError("text field is not UTF-8") from None
    return text, at + 1 + n


def pack_hello(version: int, flags: int) -> bytes:
    return bytes((version & 0xFF, flags & 0xFF))


def parse_hello(payload: bytes) -> "tuple[int, int]":
    """``(version, flags)`` of a host HELLO."""
    if len(payload) != 2:
        raise FrameError("HELLO payload must be 2 bytes")
    return payload[0], payload[1]


def pack_device_hello(version: int, flags: int, capabilities: int, leds: int, device_id: str,
                      firmware: str) -> bytes:
    return struct.pack(">BBHB", version, flags, capabilities, leds) + _text(device_id) + _text(firmware)


def parse_device_hello(payload: bytes) -> "tuple[int, int, int, int, str, str]":
    """``(version, flags, capabilities, leds, device_id, firmware)``."""
    if len(payload) < 7:
        raise FrameError("device HELLO payload too short")
    version, flags, caps, leds = struct.unpack(">BBHB", payload[:5])
    device_id, at = _read_text(payload, 5)
    firmware, at = _read_text(payload, at)
    if at != len(payload):
        raise FrameError("device HELLO payload too long")
    return version, flags, caps, leds, device_id, firmware


def pack_show_timer(state: int, run: int, remaining_ms: int, total_ms: int, name: str) -> bytes:
    remaining_ms = min(max(int(remaining_ms), 0), 0xFFFFFFFF)
    total_ms = min(max(int(total_ms), 0), 0xFFFFFFFF)
    return struct.pack(">BHII", state, run & 0xFFFF, remaining_ms, total_ms) + _text(name)


def parse_show_timer(payload: bytes) -> "tuple[int, int, int, int, str]":
    """``(state, run, remaining_ms, total_ms, name)``."""
    if len(payload) < 12:
        raise FrameError("SHOW_TIMER payload too short")
    state, run, remaining_ms, total_ms = struct.unpack(">BHII", payload[:11])
    if state > STATE_EXPIRED:
        raise FrameError("no timer state " + str(state))
    name, at = _read_text(payload, 11)
    if at != len(payload):
        raise FrameError("SHOW_TIMER payload too long")
    return state, run, remaining_ms, total_ms, name


def pack_pattern(pattern: int, index: int = 0, duration_ms: int = 0) -> bytes:
    return struct.pack(">BBI", pattern, min(max(index, 0), 255), min(max(int(duration_ms), 0), 0xFFFFFFFF))


def parse_pattern(payload: bytes) -> "tuple[int, int, int]":
    """``(pattern, index, duration_ms)``."""
    if len(payload) != 6:
        raise FrameError("PATTERN payload must be 4 bytes")
    pattern, index, duration_ms = struct.unpack(">BBI", payload)
    if pattern not in PATTERN_NAMES or pattern == 0:
        raise FrameError("no pattern " + str(pattern))
    return pattern, index, duration_ms


def parse_brightness(payload: bytes) -> int:
    if len(payload) != 1 or payload[0] > 100:
        raise FrameError("BRIGHTNESS is one byte, 0-100")
    return payload[0]


def pack_button(kind: int, flags: int = 0) -> bytes:
    return bytes((kind, flags))


def parse_button(payload: bytes) -> "tuple[int, int]":
    """``(kind, flags)``."""
    if len(payload) != 2 or payload[0] not in BUTTON_NAMES:
        raise FrameError("BUTTON payload must be a known kind and flags")
    return payload[0], payload[1]


def pack_status(state: int, run: int, remaining_ms: int, brightness: int, sounding: int,
                bad_frames: int, applied: int) -> bytes:
    return struct.pack(">BHIBBHI", state, run & 0xFFFF, min(max(int(remaining_ms), 0), 0xFFFFFFFF),
                       brightness, sounding, min(bad_frames, 0xFFFF), applied & 0xFFFFFFFF)


def parse_status(payload: bytes) -> "tuple[int, int, int, int, int, int, int]":
    """``(state, run, remaining_ms, brightness, sounding, bad_frames, applied)``."""
    if len(payload) != 15:
        raise FrameError("STATUS payload must be 15 bytes")
    fields = struct.unpack(">BHIBBHI", payload)
    if fields[0] > STATE_EXPIRED:
        raise FrameError("no timer state " + str(fields[0]))
    return fields


def describe(mtype: int, payload: bytes) -> str:
    """One frame's message in words, for ``companion accessory monitor``."""
    name = TYPE_NAMES.get(mtype, "type 0x%02X" % mtype)
    try:
        if mtype == HELLO:
            v, f = parse_hello(payload)
            return "HELLO v%d%s" % (v, " (reply)" if f & FLAG_REPLY else "")
        if mtype == D_HELLO:
            v, f, caps, leds, dev, fw = parse_device_hello(payload)
            return "HELLO v%d%s id=%s firmware=%s caps=0x%02X leds=%d" % (
                v, " (reply)" if f & FLAG_REPLY else "", dev, fw, caps, leds)
        if mtype == SHOW_TIMER:
            st, run, rem, tot, nm = parse_show_timer(payload)
            return "SHOW_TIMER %s run=%d remaining=%dms total=%dms name=%r" % (
                STATE_NAMES[st], run, rem, tot, nm)
        if mtype == PATTERN:
            p, i, d = parse_pattern(payload)
            return "PATTERN %s index=%d duration=%dms" % (PATTERN_NAMES[p], i, d)
        if mtype == BRIGHTNESS:
            return "BRIGHTNESS %d%%" % parse_brightness(payload)
        if mtype == D_BUTTON:
            k, f = parse_button(payload)
            return "BUTTON %s%s" % (BUTTON_NAMES[k], " (silenced the alarm)" if f & FLAG_SILENCED else "")
        if mtype == D_STATUS:
            st, run, rem, br, snd, bad, applied = parse_status(payload)
            return "STATUS %s run=%d remaining=%dms brightness=%d%% sounding=%s bad_frames=%d applied=%d" % (
                STATE_NAMES[st], run, rem, br, PATTERN_NAMES.get(snd, str(snd)), bad, applied)
        if mtype in (ACK, NAK):
            if mtype == ACK and len(payload) == 1:
                return "ACK %d" % payload[0]
            if mtype == NAK and len(payload) == 2:
                return "NAK %d: %s" % (payload[0], NAK_REASONS.get(payload[1], str(payload[1])))
    except FrameError as exc:
        return "%s (bad payload: %s)" % (name, exc)
    return name + (" " + str(len(payload)) + " bytes" if payload else "")


# -- the reliable link (section 2) -----------------------------------------------------------


class Endpoint:
    """One side of the link: stop-and-wait delivery, acks, duplicate detection, heartbeats.

    *handler(type, payload, now_ms)* gets each new reliable message once and answers
    0 (applied: ACK) or a NAK reason. *on_down()* runs when a frame went unanswered
    :data:`MAX_SENDS` times. *tap(direction, type, payload)* (``"tx"``/``"rx"``) sees
    every valid frame, for monitors.
    """

    def __init__(self, ping_type: int, ping_ms: int, rto_ms: int = RTO_MS,
                 max_sends: int = MAX_SENDS) -> None:
        self.ping_type = ping_type
        self.ping_ms = ping_ms
        self.rto_ms = rto_ms
        self.max_sends = max_sends
        self.decoder = FrameDecoder()
        self.handler = None  # type: Handler | None
        self.on_down = None  # type: Callable[[], None] | None
        self.tap = None  # type: Callable[[str, int, bytes], None] | None
        self.up = False  # heartbeats only while the link is up
        self._tx_seq = 0
        self._queue = []  # type: list[list[Any]]  # [type, payload]
        self._flight = None  # type: list[Any] | None  # [seq, type, payload, sends, last_send_ms]
        self._rx_last = -1
        self._rx_verdict = 0
        self._out = bytearray()
        self._last_reliable_ms = 0  # type: float
        self._hurried = False  # one fast retransmission per batch of bytes read
        self.last_rx_ms = None  # type: float | None
        self.duplicates = 0
        self.out_of_order = 0
        self.retransmits = 0
        self.rejected = 0
        self.last_rejection = 0
        self.delivered = 0

    # -- sending

    def send(self, mtype: int, payload: object = b"", replace: bool = False) -> None:
        """Queue a reliable message. *payload* is bytes, or ``make(now_ms) -> bytes`` for a
        message whose content is computed at each send. With *replace*, a queued (not yet
        sent) message of the same type is replaced in its place.

        :raises FrameError: for a payload longer than :data:`MAX_PAYLOAD` (the caller's bug).
        """
        if not callable(payload) and len(payload) > MAX_PAYLOAD:  # type: ignore[arg-type]
            raise FrameError("payload of " + str(len(payload)) + " bytes; at most 64")  # type: ignore[arg-type]
        if replace:
            for item in self._queue:
                if item[0] == mtype:
                    item[1] = payload
                    return
        self._queue.append([mtype, payload])

    def drop_queued(self) -> None:
        """Forget what waits to be sent (not the frame in flight)."""
        self._queue = []

    def reset(self) -> None:
        """Forget everything in flight and queued, and the peer's sequence numbers."""
        self._queue = []
        self._flight = None
        self._rx_last = -1
        self._out = bytearray()
        self.decoder = FrameDecoder()

    @property
    def is_idle(self) -> bool:
        """Nothing in flight and nothing queued."""
        return self._flight is None and not self._queue

    @property
    def bad_frames(self) -> int:
        return self.decoder.bad_frames

    def _emit(self, seq: int, mtype: int, payload: bytes) -> None:
        self._out.extend(encode_frame(seq, mtype, payload))
        if self.tap is not None:
            self.tap("tx", mtype, payload)

    def _transmit(self, now_ms: float) -> None:
        flight = self._flight
        assert flight is not None
        payload = flight[2]
        data = payload(now_ms) if callable(payload) else payload
        self._emit(flight[0], flight[1], data)
        flight[3] += 1
        flight[4] = now_ms
        self._last_reliable_ms = now_ms

    def poll(self, now_ms: float) -> bytes:
        """Retransmit, send what is queued, ping; the bytes to write now."""
        flight = self._flight
        if flight is not None and now_ms - flight[4] >= self.rto_ms:
            if flight[3] >= self.max_sends:
                self._went_down()
            else:
                self.retransmits += 1
                self._transmit(now_ms)
        if self._flight is None and not self._queue and self.up \
                and now_ms - self._last_reliable_ms >= self.ping_ms:
            self._queue.append([self.ping_type, b""])
        if self._flight is None and self._queue:
            mtype, payload = self._queue.pop(0)
            self._flight = [self._tx_seq, mtype, payload, 0, now_ms]
            self._tx_seq = (self._tx_seq + 1) & 0xFF
            self._transmit(now_ms)
        out = bytes(self._out)
        self._out = bytearray()
        return out

    def _went_down(self) -> None:
        self._flight = None
        self._queue = []
        self.up = False
        if self.on_down is not None:
            self.on_down()

    # -- receiving

    def feed(self, data: bytes, now_ms: float) -> None:
        """Take bytes from the peer: answers acks, applies new messages through the handler."""
        self._hurried = False
        for frame in self.decoder.feed(data):
            if frame is None:
                self._hurry(now_ms)
                continue
            seq, mtype, payload = frame
            self.last_rx_ms = now_ms
            if self.tap is not None:
                self.tap("rx", mtype, payload)
            if mtype == ACK:
                flight = self._flight
                if flight is not None and len(payload) == 1 and payload[0] == flight[0]:
                    self._flight = None
                    self.delivered += 1
            elif mtype == NAK:
                self._nak(payload, now_ms)
            else:
                self._reliable(seq, mtype, payload, now_ms)

    def _hurry(self, now_ms: float) -> None:
        """A garbled frame came, most likely the answer we wait for: send the frame in
        flight again now, or, with none, ask the peer to. Once per batch of bytes read,
        and a retransmission counts against :data:`MAX_SENDS`, so noise cannot make a storm."""
        if self._hurried:
            return
        self._hurried = True
        flight = self._flight
        if flight is None:
            self._emit(0, NAK, bytes((0, NAK_GARBLED)))
        elif flight[3] < self.max_sends and flight[4] < now_ms:
            self.retransmits += 1
            self._transmit(now_ms)

    def _nak(self, payload: bytes, now_ms: float) -> None:
        if len(payload) != 2:
            return
        seq, reason = payload[0], payload[1]
        flight = self._flight
        if flight is None:
            return
        if reason == NAK_GARBLED:
            self._hurry(now_ms)
        elif seq == flight[0]:
            self._flight = None
            self.rejected += 1
            self.last_rejection = reason

    def _reliable(self, seq: int, mtype: int, payload: bytes, now_ms: float) -> None:
        is_hello = mtype == HELLO or mtype == D_HELLO  # always applied (section 4)
        if not is_hello and seq == self._rx_last:
            self.duplicates += 1
            verdict = self._rx_verdict
        else:
            if not is_hello and self._rx_last >= 0 and seq != (self._rx_last + 1) & 0xFF:
                self.out_of_order += 1
            verdict = self.handler(mtype, payload, now_ms) if self.handler is not None else 0
            self._rx_last = seq
            self._rx_verdict = verdict
        if verdict:
            self._emit(0, NAK, bytes((seq, verdict)))
        else:
            self._emit(0, ACK, bytes((seq,)))


# -- the device (the firmware's brain) ---------------------------------------------------------


def _steps_warning(index: int) -> "tuple[tuple[int, int], ...]":
    steps = []  # type: list[tuple[int, int]]
    for _ in range(min(index, 4) + 1):
        steps.append((1320, 90))
        steps.append((0, 90))
    return tuple(steps)


PATTERN_STEPS = {
    PAT_START: ((1760, 70),),
    PAT_PAUSE: ((880, 70), (0, 50), (660, 90)),
    PAT_ALARM: ((1760, 150), (0, 90), (1760, 150), (0, 90), (1760, 150), (0, 400)),
    PAT_TEST: ((523, 150), (659, 150), (784, 150), (1047, 300)),
}
"""Each pattern as ``(hz, ms)`` steps; 0 Hz is silence. An active buzzer sounds at any Hz."""


def pattern_steps(pattern: int, index: int) -> "tuple[tuple[int, int], ...]":
    if pattern == PAT_WARNING:
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
                 version: int = VERSION) -> None:
        self.device_id = device_id
        self.firmware = firmware
        self.capabilities = capabilities
        self.leds = leds
        self.version = version
        self.link = Endpoint(D_PING, DEVICE_PING_MS)
        self.link.handler = self._on_message
        self.link.on_down = self._on_down
        self.handshaken = False
        self.state = STATE_NONE
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
        self.link.send(D_HELLO, pack_device_hello(self.version, flags, self.capabilities, self.leds,
                                                  self.device_id, self.firmware))

    def feed(self, data: bytes, now_ms: float) -> None:
        self.link.feed(data, now_ms)

    def poll(self, now_ms: float) -> bytes:
        if self.state == STATE_RUNNING and self.remaining_ms(now_ms) == 0 and self.is_host_lost(now_ms):
            self._set_timer(STATE_EXPIRED, self.run, 0, now_ms)  # no host: be the sand-timer
            self._play(PAT_ALARM, 0, DEFAULT_ALARM_MS, now_ms)
        return self.link.poll(now_ms)

    def is_host_lost(self, now_ms: float) -> bool:
        last = self.link.last_rx_ms
        return not self.handshaken or last is None or now_ms - last > HOST_LOST_MS

    def _on_down(self) -> None:
        self.handshaken = False  # the queue is gone; a new HELLO starts again

    # -- the button

    def button(self, kind: int, now_ms: float) -> None:
        """The button was pressed, held or released. A press during the alarm silences it."""
        flags = 0
        if kind == BTN_PRESS and self._pattern is not None and self._pattern[0] == PAT_ALARM \
                and self.tone_active(now_ms):
            self._pattern = None
            flags = FLAG_SILENCED
        if not self.is_host_lost(now_ms):
            self.link.send(D_BUTTON, pack_button(kind, flags))

    # -- commands

    def _on_message(self, mtype: int, payload: bytes, now_ms: float) -> int:
        try:
            if mtype == HELLO:
                version, flags = parse_hello(payload)
                self.handshaken = version == self.version
                self.link.up = self.handshaken
                if not flags & FLAG_REPLY:
                    self._hello(FLAG_REPLY)
                return 0
            if mtype == PING:  # a host that pings us unshaken must say HELLO again
                return 0 if self.handshaken else NAK_NOT_HANDSHAKEN
            if mtype not in HOST_TYPES:
                return NAK_UNKNOWN_TYPE
            if not self.handshaken:
                return NAK_NOT_HANDSHAKEN
            if mtype == SHOW_TIMER:
                state, run, remaining_ms, total_ms, name = parse_show_timer(payload)
                self.total_ms = total_ms
                self.name = name
                self._set_timer(state, run, remaining_ms, now_ms)
            elif mtype == PATTERN:
                pattern, index, duration_ms = parse_pattern(payload)
                self._play(pattern, index, duration_ms, now_ms)
            elif mtype == BRIGHTNESS:
                self.brightness = parse_brightness(payload)
            elif mtype == SILENCE:
                if payload:
                    raise FrameError("SILENCE has no payload")
                self._pattern = None
            elif mtype == GET_STATUS:
                if payload:
                    raise FrameError("GET_STATUS has no payload")
                self.link.send(D_STATUS, pack_status(
                    self.state, self.run, self.remaining_ms(now_ms), self.brightness,
                    self.sounding if self.tone_active(now_ms) else 0,
                    self.link.bad_frames, self.applied + 1))
        except FrameError:
            return NAK_BAD_PAYLOAD
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
        end = now_ms + ((duration_ms or DEFAULT_ALARM_MS) if pattern == PAT_ALARM else length)
        self._pattern = [pattern, steps, now_ms, end, length]

    # -- what the hardware shows

    def remaining_ms(self, now_ms: float) -> int:
        """The timer as the device counts it: from the host's last word, running down."""
        if self.state != STATE_RUNNING:
            return self._base_ms
        return max(0, int(self._base_ms - (now_ms - self._base_t)))

    def display(self, now_ms: float) -> "tuple[str, bool]":
        """``(four characters, colon)`` for the 4-digit display. Within a run the shown
        seconds never go up (section 7); the colon stays lit while the host is lost."""
        lost = self.is_host_lost(now_ms)
        if self.state == STATE_NONE:
            return "----", lost
        secs = _ceil_div(self.remaining_ms(now_ms), 1000)
        if self.state == STATE_RUNNING:
            if self._floor_run == self.run and secs > self._floor_s:
                secs = self._floor_s
            self._floor_run = self.run
            self._floor_s = secs
        text = display_text(secs * 1000)
        if self.state == STATE_EXPIRED and int(now_ms) % 1000 >= 500:
            return "    ", lost  # a finished timer blinks
        colon = lost or self.state != STATE_RUNNING or int(now_ms) % 1000 < 500
        return text, colon

    def lit_leds(self, now_ms: float) -> int:
        """How many of the LEDs are lit: the share of time left, rounded up. Like the
        digits, they never come back on within a run (section 7)."""
        if self.state == STATE_NONE or self.total_ms <= 0:
            return 0
        remaining = self.remaining_ms(now_ms)
        if self.state == STATE_RUNNING and self._floor_run == self.run:
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
                events.append(BTN_PRESS)
            else:
                events.append(BTN_RELEASE)
        if self._stable and not self._held and now_ms - self._pressed_ms >= self.hold_ms:
            self._held = True
            events.append(BTN_HOLD)
        return events
