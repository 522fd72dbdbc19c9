"""The disk under the database: the writer's lock file, and what a failed write says about the disk.

One app writes a database at a time. :class:`WriterLock` holds ``fcntl.flock`` on a lock file
beside the database (``companion.sqlite3.lock``) for as long as the writer lives; the kernel
releases it when the process ends, however it ends (``kill -9`` included), so a lock is never
left stale. The holder's pid is written into the file after the lock is taken, for the message
a second app gives.

:func:`disk_trouble` and :func:`os_trouble` tell a full disk, a read-only one and a refused
permission apart, from SQLite's error code or the OS's errno and, where those are vague
(``SQLITE_IOERR``), from ``statvfs`` of the folder.

Main thread only, like the store.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import sqlite3
import time
from pathlib import Path

from companion.errors import CompanionError

FULL = "full"
READ_ONLY = "read-only"
NO_PERMISSION = "no permission"
FAILING = "failing"
"""What is wrong with the disk, as :attr:`companion.store.Store.trouble` names it."""

FULL_BELOW_B = 64 * 1024
"""A vague I/O error on a disk with less free space than this counts as a full disk."""
PID_READS = 50
PID_READ_GAP_S = 0.01
"""A second app reads the holder's pid this many times, this far apart, while the file is still
empty (the holder writes it a moment after it takes the lock)."""

# SQLite's primary result codes (an extended code's low byte).
SQLITE_PERM, SQLITE_BUSY, SQLITE_LOCKED, SQLITE_READONLY, SQLITE_IOERR = 3, 5, 6, 8, 10
SQLITE_CORRUPT, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_NOTADB = 11, 13, 14, 26
DAMAGED_CODES = (SQLITE_CORRUPT, SQLITE_NOTADB)
_DISK_CODES = (SQLITE_PERM, SQLITE_BUSY, SQLITE_LOCKED, SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL,
               SQLITE_CANTOPEN, *DAMAGED_CODES)


class StoreError(CompanionError, OSError):
    """The database cannot be used: names the file and what is wrong, and touches nothing."""


class StoreLocked(StoreError):
    """Another app is writing this database; :attr:`pid` is its process id (None if unknown)."""

    def __init__(self, message: str, pid: int | None) -> None:
        super().__init__(message)
        self.pid = pid

    def __str__(self) -> str:  # OSError would print its args as a tuple
        return str(self.args[0])


def sqlite_code(exc: BaseException) -> int:
    """SQLite's primary result code for *exc* (0 when it has none)."""
    return int(getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF


def disk_state(folder: Path) -> str | None:
    """:data:`READ_ONLY` for a read-only file system, :data:`FULL` for one with less than
    :data:`FULL_BELOW_B` free, else None (also when *folder* cannot be looked at)."""
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        st = os.statvfs(probe)
    except OSError:
        return None
    if st.f_flag & os.ST_RDONLY:
        return READ_ONLY
    free = (st.f_bfree if os.geteuid() == 0 else st.f_bavail) * st.f_frsize
    return FULL if free < FULL_BELOW_B else None


def free_bytes(folder: Path) -> int | None:
    """Bytes free on the disk that holds *folder*, or None if it cannot be looked at."""
    try:
        st = os.statvfs(folder)
    except OSError:
        return None
    return int((st.f_bfree if os.geteuid() == 0 else st.f_bavail) * st.f_frsize)


def disk_trouble(exc: sqlite3.Error, folder: Path) -> str | None:
    """What a failed SQLite write says about the disk: :data:`FULL`, :data:`READ_ONLY`,
    :data:`NO_PERMISSION` or :data:`FAILING`; None for an error that is not the disk's (a
    constraint, a bad statement: our bug)."""
    code = sqlite_code(exc)
    if code not in _DISK_CODES:
        return None
    if code == SQLITE_FULL:
        return FULL
    state = disk_state(folder)
    if state is not None:
        return state
    if code in (SQLITE_READONLY, SQLITE_PERM):  # on a disk that takes writes: the file's or folder's mode
        return NO_PERMISSION
    return FAILING


def os_trouble(exc: OSError, folder: Path) -> str:
    """What a failed file operation says about the disk (see :func:`disk_trouble`)."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return FULL
    if exc.errno == errno.EROFS:
        return READ_ONLY
    if exc.errno in (errno.EACCES, errno.EPERM):
        return disk_state(folder) or NO_PERMISSION
    return disk_state(folder) or FAILING


def startup_message(where: str, trouble: str, detail: str, folder: Path) -> str:
    """The one line the app gives when the disk stops it from opening its database."""
    if trouble == FULL:
        free = free_bytes(folder)
        room = f", {free // 1024} KiB free" if free is not None else ""
        return (f"database {where}: the disk is full ({detail}{room}); free some space on it, "
                "then start again")
    if trouble == READ_ONLY:
        return (f"database {where}: the disk is read-only ({detail}); remount it read-write, or set "
                "paths.database to a writable place")
    if trouble == NO_PERMISSION:
        return (f"database {where}: no permission to write there ({detail}); give this user write "
                "access to the folder, or set paths.database to a writable place")
    return f"database {where}: cannot open it ({detail})"


class WriterLock:
    """``flock`` on the lock file beside a database, held until :meth:`release` or the process
    ends. Take with :meth:`take`."""

    def __init__(self, fd: int, path: Path) -> None:
        self._fd: int | None = fd
        self.path = path

    @classmethod
    def take(cls, path: Path, database: str) -> WriterLock:
        """Lock *path* (created if need be) and write this process's pid into it.

        :raises StoreLocked: when another process holds it (naming its pid).
        :raises OSError: when the file cannot be made or opened (the caller says why).
        """
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _holder_pid(fd)
            os.close(fd)
            shown = "unknown" if pid is None else str(pid)
            raise StoreLocked(f"database {database}: the app is already running (pid {shown}); one app "
                              "at a time writes a database (`companion export` and `companion doctor` "
                              "work beside it)", pid) from None
        except BaseException:
            os.close(fd)
            raise
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        except OSError:  # a full disk: the lock holds all the same, only the pid goes unsaid
            pass
        return cls(fd, path)

    def release(self) -> None:
        """Empty the file (no pid: nobody holds it) and let the lock go; safe to call twice."""
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, 0)
        os.close(self._fd)  # closing the last descriptor releases the flock
        self._fd = None


def _holder_pid(fd: int) -> int | None:
    """The pid the holder wrote, waiting briefly while the file is still empty."""
    for _ in range(PID_READS):
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        if text:
            return int(text) if text.isdigit() else None
        time.sleep(PID_READ_GAP_S)
    return None


def running_pid(lock_path: Path) -> int | None:
    """The pid in a database's lock file when that process is alive (the app writing it), else
    None. Reads only; takes no lock."""
    try:
        text = lock_path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not text.isdigit():
        return None
    pid = int(text)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:  # alive, another user's
        return pid
    return pid
