"""The accessory link's reliable delivery: one :class:`Endpoint` on each side of the cable.

Section 2 of ``docs/accessory-protocol.md``: stop-and-wait frames with acks and
retransmissions, duplicate detection, and heartbeats. The host bridge, the simulator and
the firmware on the Pico all run it, so it keeps to the rules of
:mod:`accessory_proto`: nothing MicroPython lacks at runtime, and pure (every call
takes ``now_ms``; nothing reads a clock or a port).
"""

try:  # the package on the host; the file beside this one on the Pico, where they lie flat
    from firmware_bridge.firmware import accessory_proto as proto
except ImportError:
    import accessory_proto as proto  # type: ignore[import-not-found, no-redef]

MYPY = False
if MYPY:  # read by mypy only: MicroPython has no typing module, and CPython never runs this
    from collections.abc import Callable
    from typing import Any  # noqa: F401 (used in type comments)

    Handler = Callable[[int, bytes, float], int]


class Endpoint:
    """One side of the link: stop-and-wait delivery, acks, duplicate detection, heartbeats.

    *handler(type, payload, now_ms)* gets each new reliable message once and answers
    0 (applied: ACK) or a NAK reason. *on_down()* runs when a frame went unanswered
    *max_sends* (:data:`accessory_proto.MAX_SENDS`) times. *tap(direction, type, payload)*
    (``"tx"``/``"rx"``) sees every valid frame, for monitors.
    """

    def __init__(self, ping_type: int, ping_ms: int, rto_ms: int = proto.RTO_MS,
                 max_sends: int = proto.MAX_SENDS) -> None:
        self.ping_type = ping_type
        self.ping_ms = ping_ms
        self.rto_ms = rto_ms
        self.max_sends = max_sends
        self.decoder = proto.FrameDecoder()
        self.handler = None  # type: Handler | None
        self.on_down = None  # type: Callable[[], None] | None
        self.tap = None  # type: Callable[[str, int, bytes], None] | None
        self.up = False  # heartbeats only while the link is up
        self._tx_seq = 0
        self._queue = []  # type: list[list[Any]]  # [type, payload]
        self._flight = None  # type: list[Any] | None  # [seq, type, payload, sends, last_send_ms]
        self.last_rejected = None  # type: list[Any] | None  # [type, payload] the peer refused last
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

        :raises FrameError: for a payload longer than :data:`accessory_proto.MAX_PAYLOAD`
            (the caller's bug).
        """
        if not callable(payload) and len(payload) > proto.MAX_PAYLOAD:  # type: ignore[arg-type]
            raise proto.FrameError(
                "payload of " + str(len(payload)) + " bytes; at most 64")  # type: ignore[arg-type]
        if replace:
            for item in self._queue:
                if item[0] == mtype:
                    item[1] = payload
                    return
        self._queue.append([mtype, payload])

    def drop_queued(self) -> None:
        """Forget what waits to be sent (not the frame in flight)."""
        self._queue = []

    def take_queued(self) -> list:  # type: ignore[type-arg]
        """What waits to be sent (not the frame in flight), taken out: [type, payload] each."""
        queued = self._queue
        self._queue = []
        return queued

    def reset(self) -> None:
        """Forget everything in flight and queued, and the peer's sequence numbers."""
        self._queue = []
        self._flight = None
        self._rx_last = -1
        self._out = bytearray()
        self.decoder = proto.FrameDecoder()

    @property
    def is_idle(self) -> bool:
        """Nothing in flight and nothing queued."""
        return self._flight is None and not self._queue

    @property
    def bad_frames(self) -> int:
        return self.decoder.bad_frames

    def _emit(self, seq: int, mtype: int, payload: bytes) -> None:
        self._out.extend(proto.encode_frame(seq, mtype, payload))
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
            if mtype == proto.ACK:
                flight = self._flight
                if flight is not None and len(payload) == 1 and payload[0] == flight[0]:
                    self._flight = None
                    self.delivered += 1
            elif mtype == proto.NAK:
                self._nak(payload, now_ms)
            else:
                self._reliable(seq, mtype, payload, now_ms)

    def _hurry(self, now_ms: float) -> None:
        """A garbled frame came, most likely the answer we wait for: send the frame in
        flight again now, or, with none, ask the peer to. Once per batch of bytes read,
        and a retransmission counts against *max_sends*, so noise cannot make a storm."""
        if self._hurried:
            return
        self._hurried = True
        flight = self._flight
        if flight is None:
            self._emit(0, proto.NAK, bytes((0, proto.NAK_GARBLED)))
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
        if reason == proto.NAK_GARBLED:
            self._hurry(now_ms)
        elif seq == flight[0]:
            self._flight = None
            self.rejected += 1
            self.last_rejection = reason
            self.last_rejected = [flight[1], flight[2]]

    def _reliable(self, seq: int, mtype: int, payload: bytes, now_ms: float) -> None:
        is_hello = mtype == proto.HELLO or mtype == proto.D_HELLO  # always applied (section 4)
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
            self._emit(0, proto.NAK, bytes((seq, verdict)))
        else:
            self._emit(0, proto.ACK, bytes((seq,)))
