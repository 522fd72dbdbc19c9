"""The loop that owns the core outside Kivy: runs posted closures, fires deadlines, ticks.

One thread (the one that calls :meth:`CoreLoop.run`) owns the board and the bus.
Other threads (gpiozero's handlers, a keyboard reader, signal handlers) hand it
closures through :meth:`CoreLoop.post`. The loop sleeps until the earliest of: a
posted closure, the board's next warning or expiry, the next display tick.

Ticks are the only thing it will drop: a tick whose handlers (as long as they took
last time) would still be running at the next warning or expiry is skipped, so a
slow display can delay another tick but never the buzzer.
"""

from __future__ import annotations

import queue
from collections.abc import Callable

from companion.clock import Clock
from companion.timers import TimerBoard


class CoreLoop:
    """Drives a :class:`TimerBoard` on the thread that calls :meth:`run`."""

    def __init__(self, board: TimerBoard, clock: Clock) -> None:
        self.board = board
        self.clock = clock
        self._inbox: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._running = False
        self.tick_cost_s = 0.0  # a decaying maximum of how long the tick handlers took
        self.ticks_skipped = 0

    def post(self, fn: Callable[[], None]) -> None:
        """Run *fn* on the loop's thread. Safe from any thread."""
        self._inbox.put(fn)

    def stop(self) -> None:
        """Make :meth:`run` return after the closure being run. Loop thread only (or post it)."""
        self._running = False

    def run(self) -> None:
        """Run until :meth:`stop` is called."""
        self._running = True
        board, clock = self.board, self.clock
        tick_at = board.next_tick()
        while self._running:
            wake = min((t for t in (board.next_due(), tick_at) if t is not None), default=None)
            timeout = None if wake is None else max(0.0, wake - clock.now())
            fn = self._wait(timeout)
            if fn is not None:
                fn()
                while self._running:
                    try:
                        self._inbox.get_nowait()()
                    except queue.Empty:
                        break
            board.poll()
            if tick_at is not None and clock.now() >= tick_at:
                self._tick()
            tick_at = board.next_tick()

    def _wait(self, timeout: float | None) -> Callable[[], None] | None:
        """The next posted closure, or None once *timeout* seconds have passed without one."""
        try:
            return self._inbox.get(timeout=timeout)
        except queue.Empty:
            return None

    def _tick(self) -> None:
        due = self.board.next_due()
        begun = self.clock.now()
        if due is not None and begun + self.tick_cost_s >= due:
            self.ticks_skipped += 1
            return
        self.board.tick()
        took = self.clock.now() - begun
        self.tick_cost_s = max(took, self.tick_cost_s * 0.9)
        self.board.poll()
