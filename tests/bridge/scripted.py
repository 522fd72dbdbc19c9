"""A scripted accessory on a real pty: ``expect(type, payload, *replies)`` and ``assert_done()``.

Like python-chess's ``MockTransport``: the host bridge talks to a kernel pty whose other
end follows a script, in order. Every reliable frame is ACKed; PINGs are answered and
otherwise ignored; anything out of script is recorded and fails :meth:`assert_done`.
A retransmission (the same sequence number and type as the frame before, sent again
because its ACK came late on a busy machine) is ACKed again and not taken a second time.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
import tty
from collections.abc import Callable
from dataclasses import dataclass, field

from firmware_bridge.firmware import accessory_proto as proto
from tests.slowdown import scaled

Check = Callable[[bytes], bool]


@dataclass
class Step:
    mtype: int
    payload: bytes | Check | None
    replies: tuple[tuple[int, bytes], ...] = ()
    seen: bytes | None = field(default=None)


class ScriptedDevice:
    def __init__(self) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)
        self.path = os.ttyname(self._slave)
        self._script: list[Step] = []
        self._lock = threading.Lock()
        self._decoder = proto.FrameDecoder()
        self._seq = 0
        self._last: tuple[int, int] | None = None
        self.errors: list[str] = []
        self.received: list[tuple[int, bytes]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def expect(self, mtype: int, payload: bytes | Check | None = None, *replies: tuple[int, bytes]) -> None:
        """The next non-PING frame must be *mtype* (with *payload*, or passing it as a check);
        then send *replies*, each a ``(type, payload)``."""
        with self._lock:
            self._script.append(Step(mtype, payload, tuple(replies)))

    def send(self, mtype: int, payload: bytes = b"") -> None:
        """Say something unprompted, as the device's button would."""
        with self._lock:
            self._write(mtype, payload)

    def _write(self, mtype: int, payload: bytes) -> None:
        os.write(self.master, proto.encode_frame(self._seq, mtype, payload))
        self._seq = (self._seq + 1) & 0xFF

    def _run(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.01)
            if not ready:
                continue
            try:
                data = os.read(self.master, 4096)
            except OSError:
                return
            for frame in self._decoder.feed(data):
                if frame is None:
                    self.errors.append("a garbled frame from the host")
                    continue
                self._take(*frame)

    def _take(self, seq: int, mtype: int, payload: bytes) -> None:
        if mtype in (proto.ACK, proto.NAK):
            return
        with self._lock:
            os.write(self.master, proto.encode_frame(0, proto.ACK, bytes((seq,))))
            if mtype == proto.PING:
                return
            if self._last == (seq, mtype):
                return
            self._last = (seq, mtype)
            self.received.append((mtype, payload))
            pending = [s for s in self._script if s.seen is None]
            if not pending:
                self.errors.append(f"unexpected {proto.describe(mtype, payload)}")
                return
            step = pending[0]
            ok = step.mtype == mtype and (
                step.payload is None or (step.payload(payload) if callable(step.payload) else step.payload == payload))
            if not ok:
                self.errors.append(f"expected {proto.TYPE_NAMES.get(step.mtype)}, got {proto.describe(mtype, payload)}")
                return
            step.seen = payload
            for reply_type, reply_payload in step.replies:
                self._write(reply_type, reply_payload)

    def assert_done(self, timeout_s: float = 3.0) -> None:
        """Every expected frame came, in order, and nothing else did (waited for up to
        *timeout_s* desktop seconds, scaled by the slowdown)."""
        deadline = time.monotonic() + scaled(timeout_s)
        while time.monotonic() < deadline and any(s.seen is None for s in self._script) and not self.errors:
            self._stop.wait(0.005)
        missing = [proto.TYPE_NAMES.get(s.mtype) for s in self._script if s.seen is None]
        assert not self.errors, self.errors
        assert not missing, f"never came: {missing}"

    def close(self) -> None:
        self._stop.set()
        self._thread.join(1)
        for fd in (self.master, self._slave):
            with contextlib.suppress(OSError):
                os.close(fd)
