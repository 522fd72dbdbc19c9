"""``companion kiosk uninstall``: remove what the install added and put back what it changed.

It reads the install's manifest and takes its entries back, newest first. A file the host
changed since the install is left alone, which it says (its backup stays); an edit of the
kernel's command line or of ``/etc/group`` loses only the install's tokens or members.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from kiosk.edits import remove_members, undo_tokens
from kiosk.target import (
    MANIFEST,
    KioskError,
    Report,
    Say,
    Target,
    need_root,
    read_manifest,
    root_is_overlay,
    run_command,
    sha256_of,
    write_file,
)


def uninstall(root: Path, dry_run: bool, say: Say) -> Report:
    """Remove what the install added and put back what it changed.

    :raises KioskError: when it cannot be done here.
    """
    target = Target(root)
    report = Report(say, dry_run)
    need_root(target, dry_run, "uninstall")
    if target.is_live and not dry_run and root_is_overlay():
        raise KioskError("kiosk uninstall: the root file system is the read-only overlay: turn it off first "
                         "(sudo raspi-config nonint disable_overlayfs, then reboot), then uninstall")
    manifest = read_manifest(target)
    if manifest is None:
        say(f"nothing to remove: no kiosk is installed under {target.root}")
        return report
    undo = Undo(target, report)
    for entry in reversed(manifest["entries"]):
        undo.entry(entry)
    if target.is_live:
        for group in manifest.get("groups_added", []):
            run_command(report, ["gpasswd", "-d", manifest["options"]["user"], group], "the install added it")
        if manifest.get("overlay"):
            run_command(report, ["raspi-config", "nonint", "disable_overlayfs"], "the install switched it on")
    for backup in sorted(undo.used_backups - undo.kept_backups):
        undo.remove(backup)
    undo.remove(MANIFEST)
    for d in sorted(manifest.get("dirs", []), key=lambda d: (-d.count("/"), d)):
        undo.remove_dir(d)
    if target.is_live:
        run_command(report, ["systemctl", "daemon-reload"], "systemd forgets the kiosk's units")
        run_command(report, ["udevadm", "control", "--reload-rules"], "udev forgets the accessory's rule")
    if not dry_run:
        say("uninstalled" + (": reboot to get the console back" if target.is_live else ""))
    return report


class Undo:
    """Takes one install's entries back, newest first. In a dry run it only says what it would do,
    and remembers what would be gone, so that a directory it would empty is not called kept."""

    def __init__(self, target: Target, report: Report) -> None:
        self.target = target
        self.report = report
        self.gone: set[str] = set()
        self.used_backups: set[str] = set()
        self.kept_backups: set[str] = set()

    def entry(self, entry: dict[str, Any]) -> None:
        kind, path = entry["kind"], entry["path"]
        here = self.target.at(path)
        shown = self.target.show(path)
        backup = entry.get("backup")
        if kind in ("file", "link"):
            if kind == "file":
                is_ours = (here.is_file() and not here.is_symlink()
                           and sha256_of(here.read_bytes()) == entry["sha256"])
            else:
                is_ours = here.is_symlink() and os.readlink(here) == entry["target"]
            if not is_ours:
                if here.exists() or here.is_symlink():
                    where = f" (what it replaced is in {self.target.show(backup)})" if backup else ""
                    self.report.note(f"kept {shown}: changed since the install{where}")
                    if backup:
                        self.kept_backups.add(backup)
                return
            if backup:
                self._restore(path, backup)
            elif entry.get("backup_link"):
                self.report.change(f"restored {shown} -> {entry['backup_link']}",
                                   f"restore {shown} -> {entry['backup_link']}")
                if not self.report.dry_run:
                    here.unlink()
                    here.symlink_to(entry["backup_link"])
            else:
                self.remove(path)
            return
        if not here.is_file():  # an edit: tokens of the command line, members of a group
            return
        text = here.read_text(encoding="utf-8")
        if backup and sha256_of(text.encode()) == entry["sha256"]:
            self._restore(path, backup)
            return
        if kind == "tokens":
            new_text = " ".join(undo_tokens(text.split(), entry["added"], entry["removed"])) + "\n"
        else:
            new_text = "\n".join(remove_members(text.splitlines(), entry["added"], entry["field"])) \
                + ("\n" if text.endswith("\n") else "")
        if new_text != text:
            self.report.change(f"edited {shown}: took the install's changes out, kept the host's",
                               f"edit {shown}: take the install's changes out, keep the host's")
            if not self.report.dry_run:
                write_file(here, new_text.encode(), here.stat().st_mode & 0o7777)
        if backup:
            self.used_backups.add(backup)

    def _restore(self, path: str, backup: str) -> None:
        here = self.target.at(path)
        self.report.change(f"restored {self.target.show(path)}",
                           f"restore {self.target.show(path)} from {self.target.show(backup)}")
        if not self.report.dry_run:
            here.unlink()
            shutil.copy2(self.target.at(backup), here, follow_symlinks=False)
        self.used_backups.add(backup)

    def remove(self, path: str) -> None:
        here = self.target.at(path)
        if not (here.exists() or here.is_symlink()) or path in self.gone:
            return
        self.report.change(f"removed {self.target.show(path)}", f"remove {self.target.show(path)}")
        if not self.report.dry_run:
            here.unlink()
        self.gone.add(path)

    def remove_dir(self, path: str) -> None:
        here = self.target.at(path)
        if not here.is_dir() or here.is_symlink():
            return
        left = sorted(p.name for p in here.iterdir() if f"{path}/{p.name}" not in self.gone)
        if left:
            self.report.note(f"kept {self.target.show(path)}: not empty ({', '.join(left[:4])})")
            return
        self.report.change(f"removed directory {self.target.show(path)}",
                           f"remove directory {self.target.show(path)}")
        if not self.report.dry_run:
            here.rmdir()
        self.gone.add(path)
