"""The tree the kiosk's commands work on, what a run says, and the manifest an install leaves.

``root`` is the tree to work on: ``/`` for the Pi itself (root only; commands such as
``systemctl daemon-reload`` are run), or a staging directory for an image or a test (no
commands run; group membership is edited in the tree's ``/etc/group``). ``dry_run`` prints
every file, edit and command, and touches nothing. Everything an install adds or changes is
listed in its manifest (``/etc/table-companion/kiosk-manifest.json``), with a copy of every
file it replaced or edited under ``/etc/table-companion/kiosk-backup/``.
"""

from __future__ import annotations

import hashlib
import json
import os
import pwd
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.atomic import write_atomic
from companion.errors import CompanionError
from kiosk import units

MANIFEST = f"{units.ETC_DIR}/kiosk-manifest.json"
BACKUP_DIR = f"{units.ETC_DIR}/kiosk-backup"
CMDLINES = ("/boot/firmware/cmdline.txt", "/boot/cmdline.txt")

Say = Callable[[str], None]


class KioskError(CompanionError, OSError):
    """The kiosk cannot be installed, removed or read here; the message says why and what to do."""


@dataclass(frozen=True)
class Target:
    """The tree being worked on: ``/`` (the live system) or a staging directory."""

    root: Path

    @property
    def is_live(self) -> bool:
        return self.root.resolve() == Path("/")

    def at(self, path: str) -> Path:
        return self.root / path.lstrip("/")

    def show(self, path: str) -> str:
        return path if self.is_live else str(self.at(path))


@dataclass
class Report:
    """What a run did (or would do), line by line, and how many things changed."""

    say: Say
    dry_run: bool
    changes: int = 0
    notes: list[str] = field(default_factory=list)

    def change(self, done: str, would: str) -> None:
        self.changes += 1
        self.say(("would " + would) if self.dry_run else done)

    def note(self, text: str) -> None:
        self.notes.append(text)
        self.say("note: " + text)


def sha256_of(data: bytes) -> str:
    """*data*'s SHA-256 as hex: how the manifest tells a file as installed from a changed one."""
    return hashlib.sha256(data).hexdigest()


def read_manifest(target: Target) -> dict[str, Any] | None:
    """The manifest of an earlier install, or None.

    :raises KioskError: for a manifest that cannot be read.
    """
    path = target.at(MANIFEST)
    if not path.exists():
        return None
    try:
        manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise KioskError(f"kiosk manifest {path}: cannot read it ({exc}); move it away to install afresh") \
            from None
    return manifest


def need_root(target: Target, dry_run: bool, command: str) -> None:
    """Refuses *command* on the live system without root (a dry run or a staging tree needs none).

    :raises KioskError: saying to use sudo, ``--root`` or ``--dry-run``.
    """
    if target.is_live and not dry_run and os.geteuid() != 0:
        raise KioskError(f"kiosk {command}: needs root: run it with sudo (sudo {sys.argv[0]} kiosk {command} "
                         "...), or stage it with --root DIR, or see what it would do with --dry-run")


def root_is_overlay() -> bool:
    """Is the running system's root the read-only overlay (``/proc/mounts``)."""
    try:
        for line in Path("/proc/mounts").read_text().splitlines():
            parts = line.split()
            if len(parts) > 2 and parts[1] == "/":
                return parts[2] == "overlay"
    except OSError:
        pass
    return False


def run_command(report: Report, argv: list[str], why: str) -> None:
    """Run *argv* on the live system (only say it in a dry run), with *why* in the report.

    :raises KioskError: when it cannot be run or fails; the message has its last error line.
    """
    report.change(f"ran: {' '.join(argv)}  ({why})", f"run: {' '.join(argv)}  ({why})")
    if report.dry_run:
        return
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    except OSError as exc:
        raise KioskError(f"kiosk: cannot run {argv[0]} ({exc.strerror})") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        raise KioskError(f"kiosk: {' '.join(argv)} failed: {last}")


def write_file(path: Path, content: bytes, mode: int) -> None:
    """Atomically (:func:`companion.atomic.write_atomic`): a pulled plug leaves the old file or
    the new one, never half of one."""
    write_atomic(path, content, mode)


def chown_to(path: Path, user: str) -> None:
    """*path* (not a link's target) belongs to *user* and their primary group."""
    entry = pwd.getpwnam(user)
    os.chown(path, entry.pw_uid, entry.pw_gid, follow_symlinks=False)
