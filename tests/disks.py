"""Real disks that fill up and turn read-only: a small tmpfs, mounted for one test.

Mounting needs root (or CAP_SYS_ADMIN); without it :func:`mounted_small_disk` skips the test,
saying so.
Tests that need no mount get a real ``SQLITE_FULL`` from SQLite's own page limit instead
(``PRAGMA max_page_count``).
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

DISK_SIZE = "1m"


class SmallDisk:
    """A tmpfs mounted at :attr:`path`: :meth:`fill` it, :meth:`make_room` again, remount it
    read-only and back."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.filler = path / "filler.bin"

    def fill(self) -> None:
        """Write to the disk until it has no byte left."""
        fd = os.open(self.filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            while True:
                try:
                    os.write(fd, b"\0" * 4096)
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC, exc
                    break
            while True:  # the last few bytes of a block
                try:
                    os.write(fd, b"\0")
                except OSError:
                    break
        finally:
            os.close(fd)
        st = os.statvfs(self.path)
        assert st.f_bfree == 0, "the disk did not fill"

    def make_room(self) -> None:
        self.filler.unlink(missing_ok=True)

    def read_only(self) -> None:
        _mount("-o", "remount,ro", str(self.path))

    def read_write(self) -> None:
        _mount("-o", "remount,rw", str(self.path))


def _mount(*args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def mounted_small_disk() -> Iterator[SmallDisk]:
    """A fresh 1 MiB tmpfs, unmounted afterwards (skips the test where mounting is not allowed).
    A test module makes it a fixture: ``yield from mounted_small_disk()``."""
    if shutil.which("mount") is None:
        pytest.skip("no mount command here to make a small disk with")
    where = Path(tempfile.mkdtemp(prefix="companion-disk-"))
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK_SIZE}", "tmpfs", str(where)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        where.rmdir()
        pytest.skip(f"cannot mount a tmpfs to fill up (needs root): {done.stderr.strip() or done.returncode}")
    try:
        yield SmallDisk(where)
    finally:
        subprocess.run(["umount", str(where)], capture_output=True)
        if os.path.ismount(where):
            subprocess.run(["umount", "-l", str(where)], capture_output=True)
        where.rmdir()
