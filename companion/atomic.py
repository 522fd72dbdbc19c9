"""Replacing a file so that a power cut leaves the old file or the new one, never half of one.

:func:`write_atomic` writes the new content into a temporary file in the same folder (created
0600, so a secret is never readable by others even for a moment), sets its mode and owner,
``fsync``\\ s it, renames it over the old file, then ``fsync``\\ s the folder so that the rename
itself is on the disk. If anything fails before the rename, the temporary file is removed and
the old file is as it was.

Standard library only. Any thread, though two writers of one file race (the last rename wins).
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from pathlib import Path

TEMP_SUFFIX = ".tmp"
"""Temporary files are ``.<name>.<random>.tmp`` beside the file they replace."""


def fsync_dir(folder: Path) -> None:
    """Flush *folder*'s entries (a rename, a new file) to the disk.

    File systems that cannot sync a folder (``EINVAL``, ``ENOTSUP``) are taken as done.

    :raises OSError: when the folder cannot be opened or the disk reports an error.
    """
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes, mode: int = 0o600, *, owner: tuple[int, int] | None = None) -> None:
    """Replace *path* with *data*, with permission bits *mode* and, when given, *owner*
    (``(uid, gid)``, which only root may give away).

    :raises OSError: when the file cannot be written; the old file is then untouched and no
        temporary file is left behind (unless the folder cannot be synced after the rename: the
        new file is then in place).
    """
    folder = path.parent
    fd, tmp_name = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=TEMP_SUFFIX)
    tmp = Path(tmp_name)
    try:
        try:
            os.fchmod(fd, mode)
            if owner is not None:
                os.fchown(fd, *owner)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)  # the data is on the disk before the name points at it
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_dir(folder)
