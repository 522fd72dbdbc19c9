"""What ``companion timer`` shows in a terminal: a draining bar, or one JSON event per line."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from collections.abc import Callable, Iterator
from typing import IO, Any

from tqdm import tqdm

from companion.durations import to_duration_text
from companion.events import (
    TimerAdjusted,
    TimerCancelled,
    TimerEvent,
    TimerExpired,
    TimerPaused,
    TimerReset,
    TimerResumed,
    TimerStarted,
    TimerTicked,
    WarningReached,
)

JSON_NAMES: dict[type, str] = {
    TimerStarted: "start",
    WarningReached: "warning",
    TimerExpired: "expired",
    TimerPaused: "paused",
    TimerResumed: "resumed",
    TimerCancelled: "cancelled",
    TimerReset: "reset",
    TimerAdjusted: "adjusted",
}


def to_json_record(event: TimerEvent) -> dict[str, Any] | None:
    """The ``--json`` line for *event* (None for display ticks, which are not printed)."""
    kind = JSON_NAMES.get(type(event))
    if kind is None:
        return None
    record: dict[str, Any] = {"event": kind, "name": event.timer,
                              "remaining_s": round(event.remaining_s, 3),
                              "t_monotonic": round(event.t_mono, 6)}
    if isinstance(event, WarningReached):
        record["threshold_s"] = event.threshold_s
    elif isinstance(event, TimerAdjusted):
        record["delta_s"] = event.delta_s
    elif isinstance(event, TimerExpired):
        record["deadline_monotonic"] = round(event.deadline_mono, 6)
    return record


class JsonLines:
    """One JSON object per line on *stream*, flushed at once so a pipe sees it live."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stdout

    def show(self, event: TimerEvent) -> None:
        record = to_json_record(event)
        if record is not None:
            self.stream.write(json.dumps(record) + "\n")
            self.stream.flush()

    def note(self, text: str) -> None:
        """Human notes go to stderr in JSON mode: stdout stays machine-readable."""
        print(text, file=sys.stderr, flush=True)

    def close(self) -> None:
        pass


class DrainingBar:
    """A tqdm bar that empties like an hourglass, with the time left and the state beside it."""

    STATES = {TimerStarted: "running", TimerResumed: "running", TimerPaused: "paused",
              TimerReset: "ready", TimerExpired: "TIME'S UP", TimerCancelled: "cancelled"}

    def __init__(self, name: str, total_s: float, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stderr
        self.state = "ready"
        # A list postfix is shown as-is through {postfix[0]} (tqdm's own idiom); a string
        # postfix would be prefixed with ", ".
        self.bar = tqdm(total=total_s, initial=total_s, desc=name, file=self.stream, leave=True,
                        dynamic_ncols=True, bar_format="{desc} |{bar}| {postfix[0]}", postfix=[""])
        self._show(total_s)

    def show(self, event: TimerEvent) -> None:
        state = self.STATES.get(type(event))
        if state is not None:
            self.state = state
        if isinstance(event, WarningReached):
            self.state = f"running, {event.threshold_s:g} s warning"
        if isinstance(event, TimerExpired):
            self.stream.write("\a")
        if not isinstance(event, TimerTicked) or event.remaining_s <= self.bar.total:
            self._show(event.remaining_s)

    def _show(self, remaining_s: float) -> None:
        self.bar.total = max(self.bar.total, remaining_s)
        self.bar.n = remaining_s
        self.bar.postfix = [f"{to_duration_text(remaining_s)}  {self.state}"]
        self.bar.refresh()

    def note(self, text: str) -> None:
        self.bar.write(text, file=self.stream)

    def close(self) -> None:
        self.bar.close()


KEY_HELP = "keys: space start/pause · r reset · + / - ten seconds · q quit"


@contextlib.contextmanager
def keyboard(on_key: Callable[[str], None]) -> Iterator[bool]:
    """Read single keys from a terminal on stdin (cbreak mode) on a daemon thread.

    Yields whether a terminal is there; restores the terminal on the way out.
    *on_key* runs on the reader thread; it must only post.
    """
    if not sys.stdin.isatty():
        yield False
        return
    import termios
    import tty

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd)

    def read() -> None:
        while True:
            try:
                data = os.read(fd, 1)
            except OSError:
                return
            if not data:
                return
            on_key(data.decode("ascii", "ignore"))

    threading.Thread(target=read, name="keyboard", daemon=True).start()
    try:
        yield True
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
