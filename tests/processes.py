"""The processes tests start: waited for by what they do (a line printed, an exit), with
deadlines scaled by the slowdown (tests/slowdown.py), and their stderr in every failure.

A deadline here is never a time the test waits *for*: it is how long to wait for the event
before saying it never came, and it is generous (a desktop's seconds times the slowdown).
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import pytest

from tests.slowdown import scaled

TAIL_CHARS = 3000
"""How much of a process's stderr a failure shows (its end: where it went wrong)."""


def tail(text: str | bytes | None, chars: int = TAIL_CHARS) -> str:
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    text = text or ""
    return text if len(text) <= chars else "…" + text[-chars:]


def runtime_dir(path: Path) -> str:
    """*path* made a private runtime directory (mode 0700) for ``XDG_RUNTIME_DIR``.

    platformdirs takes ``XDG_RUNTIME_DIR`` only at mode 0700; at any other it falls back to the
    machine's shared one (``/tmp/runtime-UID``), where a simulator's port would be found by every
    ``auto`` on the machine: another test's app, another run's simulator.
    """
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.chmod(0o700)  # whatever the umask made of it
    return str(path)


def run(args: Sequence[str], *, timeout_s: float = 60, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """``subprocess.run(args, capture_output=True, text=True)`` given *timeout_s* desktop seconds
    (scaled). One that does not finish in time is killed and fails the test with its stderr."""
    limit_s = scaled(timeout_s)
    try:
        return subprocess.run(list(args), capture_output=True, text=True, timeout=limit_s, **kwargs)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{' '.join(map(str, args))[:200]}: not done in {limit_s:g} s; its stderr:\n{tail(exc.stderr)}"
                    f"\nits stdout:\n{tail(exc.stdout, 1000)}", pytrace=False)


def finish(proc: subprocess.Popen[str], what: str, timeout_s: float = 60,
           stdin: str | None = None) -> tuple[str, str]:
    """*proc*'s whole stdout and stderr once it ends, given *timeout_s* desktop seconds (scaled).
    One that does not end in time is killed and fails the test with its stderr."""
    limit_s = scaled(timeout_s)
    try:
        return proc.communicate(stdin, timeout=limit_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"{what}: not done in {limit_s:g} s; its stderr:\n{tail(err)}\nits stdout:\n{tail(out, 1000)}",
                    pytrace=False)
    except BaseException as exc:  # pytest-timeout's limit, say: still show what the process said
        proc.kill()
        out, err = proc.communicate()
        if isinstance(exc, KeyboardInterrupt):
            raise
        pytest.fail(f"{what}: {type(exc).__name__}: {exc}; its stderr:\n{tail(err)}", pytrace=False)


class Lines:
    """A started process's stdout, line by line, and its stderr, each read on its own thread.

    Waits are for a line (or the exit), failing after a deadline scaled by the slowdown with the
    process's stderr in the message. The process's pipes are this object's: read them through it.
    """

    def __init__(self, proc: subprocess.Popen[str], what: str = "the process") -> None:
        self.proc = proc
        self.what = what
        self.seen: list[str] = []
        self._q: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._stderr: list[str] = []
        self._threads = [threading.Thread(target=self._read, daemon=True)]
        if proc.stderr is not None:
            self._threads.append(threading.Thread(target=self._read_stderr, daemon=True))
        for thread in self._threads:
            thread.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._q.put(line)
        self._q.put(None)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self._stderr.append(line)

    @property
    def stderr(self) -> str:
        """The process's stderr so far (all of it once the process has ended and been waited for)."""
        if self.proc.poll() is not None and len(self._threads) > 1:
            self._threads[1].join(scaled(5))
        return "".join(self._stderr)

    def fail(self, message: str) -> NoReturn:
        """Fail the test with *message*, the process's exit status, and its stderr."""
        code = self.proc.poll()
        status = "still running" if code is None else f"ended with {code}"
        pytest.fail(f"{self.what}: {message} ({status}); its stderr:\n{tail(self.stderr)}", pytrace=False)

    def next(self, timeout_s: float = 10) -> str:
        """The next line, waited for up to *timeout_s* desktop seconds (scaled)."""
        limit_s = scaled(timeout_s)
        try:
            line = self._q.get(timeout=limit_s)
        except queue.Empty:
            self.fail(f"no line in {limit_s:g} s after {self.seen[-1:]!r}")
        if line is None:
            self._q.put(None)  # it stays ended for the next reader
            self.fail(f"the process ended after {self.seen[-1:]!r}")
        self.seen.append(line)
        return line

    def next_matching(self, pred: Callable[[str], bool], timeout_s: float = 10) -> str:
        """The next line *pred* accepts (the others are kept in :attr:`seen`), within *timeout_s*
        desktop seconds (scaled) in all."""
        deadline = time.monotonic() + scaled(timeout_s)
        while True:
            left_s = max(0.0, deadline - time.monotonic()) / scaled(1)
            line = self.next(left_s)
            if pred(line):
                return line

    def drain(self) -> list[str]:
        """Every line so far (waits for none)."""
        while True:
            try:
                line = self._q.get_nowait()
            except queue.Empty:
                return self.seen
            if line is None:
                self._q.put(None)
                return self.seen
            self.seen.append(line)

    def until(self, pred: Callable[[dict[str, Any]], Any], timeout_s: float = 10) -> dict[str, Any]:
        """The next JSON line *pred* accepts, within *timeout_s* desktop seconds (scaled) in all."""
        found: list[dict[str, Any]] = []

        def accept(line: str) -> bool:
            record = json.loads(line)
            if pred(record):
                found.append(record)
                return True
            return False

        self.next_matching(accept, timeout_s)
        return found[0]

    def wait(self, timeout_s: float = 10) -> int:
        """The exit status, waited for up to *timeout_s* desktop seconds (scaled)."""
        limit_s = scaled(timeout_s)
        try:
            return self.proc.wait(limit_s)
        except subprocess.TimeoutExpired:
            self.fail(f"did not end within {limit_s:g} s")

    def write(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text)
        self.proc.stdin.flush()

    def stop(self) -> None:
        """Kill it if it still runs (and reap it)."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(scaled(10))
