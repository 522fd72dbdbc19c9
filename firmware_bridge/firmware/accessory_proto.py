"""The timer accessory's wire protocol: message types, framing (COBS, CRC-16) and payloads.

``docs/accessory-protocol.md`` is the specification; this module and the two beside it
are its code: this one says what goes on the wire, :mod:`accessory_link` delivers it
reliably, and :mod:`accessory_device` is the accessory's logic. They are shared by three
programs: the host bridge (CPython), the simulator (CPython) and the reference firmware
on a Raspberry Pi Pico (MicroPython). So they keep to what MicroPython runs: no
``dataclasses``, no ``typing`` or ``enum`` at runtime, no ``__future__`` imports, only
``struct`` from the library. Annotations are syntax MicroPython parses and ignores;
forward references are strings. On the Pico the files lie flat, so each imports its
siblings from the package first and, failing that, by their bare names.

Everything here is pure: bytes in, bytes out, and every call takes ``now_ms``, a
monotonic time in milliseconds that never wraps (the firmware accumulates
``ticks_diff`` into one). Nothing reads a clock or a port.
"""

import struct

MYPY = False
if MYPY:  # read by mypy only: MicroPython has no typing module, and CPython never runs this
    Frame = tuple[int, int, bytes]

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
