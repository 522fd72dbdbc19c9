"""Buzzer patterns, and a player that sounds them off the core's thread.

A pattern is a sequence of ``(level, seconds)`` steps. For an active buzzer the
level is on/off; for a tonal buzzer it is a frequency in Hz, or None for silence.
The player applies the first step at once on the caller's thread (so the first
edge is as close to the event as the hardware allows) and the rest on a thread
of its own, scheduled from absolute times so the steps do not drift.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

Level = bool | float | None
_EPSILON_S = 1e-6  # step times are sums of floats: a cycle ending "exactly" at the alarm's end ends it
Pattern = tuple[tuple[Level, float], ...]

# Active buzzer: True = sounding.
START: Pattern = ((True, 0.08), (False, 0.0))
PAUSE: Pattern = ((True, 0.03), (False, 0.0))


def warning_pattern(index: int) -> Pattern:
    """Two beeps for the first warning, three for the second, and so on: each one distinct."""
    beeps = index + 2
    on, off = (0.15, 0.10) if index == 0 else (0.08, 0.08)
    steps: list[tuple[Level, float]] = []
    for _ in range(beeps):
        steps += [(True, on), (False, off)]
    return tuple(steps)


ALARM: Pattern = ((True, 0.25), (False, 0.15))  # repeated for the alarm's length

# Tonal buzzer (frequencies within gpiozero's default A4 +/- one octave).
TONE_START: Pattern = ((880.0, 0.08), (None, 0.0))
TONE_PAUSE: Pattern = ((440.0, 0.03), (None, 0.0))
TONE_ALARM: Pattern = ((880.0, 0.25), (587.33, 0.25))


def tone_warning_pattern(index: int) -> Pattern:
    return tuple((None if level is False else 659.25, s) for level, s in warning_pattern(index))


class PatternPlayer:
    """Plays one pattern at a time on one output; a new pattern cuts the old one short.

    *write* sets the output's level; *silent* is the level that means off.
    Any thread may call :meth:`play` and :meth:`stop`.
    """

    def __init__(self, write: Callable[[Level], None], silent: Level) -> None:
        self._write = write
        self._silent = silent
        self._lock = threading.Lock()
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def is_playing(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    def play(self, pattern: Sequence[tuple[Level, float]], *, repeat_for_s: float | None = None,
             on_done: Callable[[], None] | None = None) -> None:
        """Sound *pattern* once, or over and over for *repeat_for_s* seconds.

        *on_done* runs on the player's thread when the pattern ends by itself (not when cut).
        """
        with self._lock:
            self._halt()
            cancel = threading.Event()
            self._cancel = cancel
            begun = time.monotonic()
            self._write(pattern[0][0])
            thread = threading.Thread(target=self._run, name="buzzer-pattern", daemon=True,
                                      args=(tuple(pattern), begun, repeat_for_s, cancel, on_done))
            self._thread = thread
            thread.start()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the pattern playing now has ended; False if *timeout* ran out first."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def stop(self) -> None:
        """Cut the pattern short and leave the output silent."""
        with self._lock:
            self._halt()
            self._write(self._silent)

    def _halt(self) -> None:
        self._cancel.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        self._thread = None

    def _run(self, pattern: Pattern, begun: float, repeat_for_s: float | None,
             cancel: threading.Event, on_done: Callable[[], None] | None) -> None:
        at = begun
        first = True
        while True:
            for level, seconds in pattern:
                if not first:
                    if repeat_for_s is not None and at >= begun + repeat_for_s - _EPSILON_S:
                        return self._finish(cancel, on_done)
                    self._write(level)
                first = False
                at += seconds
                if cancel.wait(max(0.0, at - time.monotonic())):
                    return None
            if repeat_for_s is None or at >= begun + repeat_for_s - _EPSILON_S:
                return self._finish(cancel, on_done)

    def _finish(self, cancel: threading.Event, on_done: Callable[[], None] | None) -> None:
        # Whoever holds the lock is about to cut this pattern (play or stop): leave it to them.
        # Blocking here instead would deadlock against their join().
        if not self._lock.acquire(blocking=False):
            return
        try:
            if cancel.is_set():
                return
            self._write(self._silent)
            self._thread = None
        finally:
            self._lock.release()
        if on_done is not None:
            on_done()
