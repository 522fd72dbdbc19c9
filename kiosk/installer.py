"""Bringing each of the kiosk's files, links and edits to what an install wants, idempotently.

An :class:`Installer` compares what it is asked for with what is in the tree and changes only
what differs, so a second install changes nothing. A file that was the host's before is
backed up first; every file, link, edit and directory it handles becomes an entry of the new
manifest, which is what uninstall takes back.
"""

from __future__ import annotations

import grp
import os
import pwd
import shutil
from typing import Any

from kiosk.edits import apply_tokens, remove_members, undo_tokens
from kiosk.target import (
    BACKUP_DIR,
    CMDLINES,
    KioskError,
    Report,
    Target,
    chown_to,
    run_command,
    sha256_of,
    write_file,
)


class Installer:
    """One install run over *target*: each method brings one file, link or edit to what is wanted
    and records it for the new manifest, keeping what the previous manifest knew (backups, the
    directories the first install made)."""

    def __init__(self, target: Target, report: Report, previous: dict[str, Any] | None) -> None:
        self.target = target
        self.report = report
        previous = previous or {}
        self.previous: dict[str, dict[str, Any]] = {e["path"]: e for e in previous.get("entries", [])
                                                     if "path" in e}
        self.previous_dirs: list[str] = list(previous.get("dirs", []))
        self.previous_groups: list[str] = list(previous.get("groups_added", []))
        self.entries: list[dict[str, Any]] = []
        self.dirs: list[str] = [d for d in self.previous_dirs if target.at(d).is_dir()]
        self.groups_added: list[str] = []
        self.changed_paths: set[str] = set()
        self._made: set[str] = set()  # made in this run (in a dry run: would have been)

    # directories ----------------------------------------------------------------------------

    def ensure_dir(self, path: str, mode: int = 0o755, owner: str | None = None) -> None:
        """Make *path* and its missing parents, each recorded as made by the install."""
        missing: list[str] = []
        p = path
        while p not in ("/", "") and not self.target.at(p).is_dir() and p not in self._made:
            missing.append(p)
            p = os.path.dirname(p)
        for d in reversed(missing):
            if self.target.at(d).exists() or self.target.at(d).is_symlink():
                raise KioskError(f"kiosk: {self.target.show(d)} is in the way: it should be a directory")
            mode_here = mode if d == path else 0o755
            self.report.change(f"made directory {self.target.show(d)}",
                               f"make directory {self.target.show(d)} ({mode_here:o})")
            if not self.report.dry_run:
                self.target.at(d).mkdir(mode=mode_here)
                os.chmod(self.target.at(d), mode_here)
                if owner is not None and d == path:
                    chown_to(self.target.at(d), owner)
            self._made.add(d)
            if d not in self.dirs:
                self.dirs.append(d)

    def backup(self, path: str) -> str:
        """Copy the file at *path* into the backup tree; returns the backup's path."""
        backup = f"{BACKUP_DIR}{path}"
        self.ensure_dir(os.path.dirname(backup), 0o700)
        self.report.change(f"backed up {self.target.show(path)} to {self.target.show(backup)}",
                           f"back up {self.target.show(path)} to {self.target.show(backup)}")
        if not self.report.dry_run:
            shutil.copy2(self.target.at(path), self.target.at(backup), follow_symlinks=False)
        return backup

    # files and links -------------------------------------------------------------------------

    def file(self, path: str, content: bytes, mode: int = 0o644, *, owner: str | None = None,
             shown: bytes | None = None) -> None:
        """*path* holds *content* with *mode*; an existing file not ours is backed up first.

        *shown* is what a dry run prints instead of *content* (a placeholder for a secret).
        """
        here = self.target.at(path)
        old = self.previous.get(path)
        entry: dict[str, Any] = {"kind": "file", "path": path, "sha256": sha256_of(content), "mode": mode,
                                 "backup": old.get("backup") if old else None}
        if old and "backup_link" in old:
            entry["backup_link"] = old["backup_link"]
        if here.is_file() and not here.is_symlink():
            current = here.read_bytes()
            if old is None:  # the host's file, even if it is already what we want: uninstall puts it back
                entry["backup"] = self.backup(path)
            if current == content and (here.stat().st_mode & 0o7777) == mode:
                self.report.say(f"unchanged: {self.target.show(path)}")
                same = old is not None and old.get("sha256") == entry["sha256"]
                self.entries.append(old if same and old is not None else entry)
                return
        elif here.exists() or here.is_symlink():
            if here.is_dir():
                raise KioskError(f"kiosk: {self.target.show(path)} is a directory; a file belongs there")
            if old is None:
                entry["backup_link"] = os.readlink(here)
        self.ensure_dir(os.path.dirname(path))
        body = (shown if shown is not None else content).decode("utf-8", "replace")
        self.report.change(f"wrote {self.target.show(path)}",
                           f"write {self.target.show(path)} ({mode:o}):\n"
                           + "".join(f"    | {line}\n" for line in body.splitlines()).rstrip("\n"))
        if not self.report.dry_run:
            write_file(here, content, mode)
            if owner is not None:
                chown_to(here, owner)
        self.changed_paths.add(path)
        self.entries.append(entry)

    def link(self, path: str, target: str) -> None:
        """*path* is a symbolic link to *target* (a mask: ``/dev/null``; an enablement)."""
        here = self.target.at(path)
        old = self.previous.get(path)
        entry: dict[str, Any] = {"kind": "link", "path": path, "target": target,
                                 "backup": old.get("backup") if old else None}
        if old and "backup_link" in old:
            entry["backup_link"] = old["backup_link"]
        if here.is_symlink() and os.readlink(here) == target:
            self.report.say(f"unchanged: {self.target.show(path)} -> {target}")
            if old is None:  # the host's own link (a mask they made): uninstall leaves it
                entry["backup_link"] = target
            self.entries.append(old if old is not None else entry)
            return
        if here.is_symlink():
            if old is None:
                entry["backup_link"] = os.readlink(here)
        elif here.is_file():
            if old is None:
                entry["backup"] = self.backup(path)
        elif here.exists():
            raise KioskError(f"kiosk: {self.target.show(path)} is in the way of a link to {target}")
        self.ensure_dir(os.path.dirname(path))
        self.report.change(f"linked {self.target.show(path)} -> {target}",
                           f"link {self.target.show(path)} -> {target}")
        if not self.report.dry_run:
            if here.is_symlink() or here.exists():
                here.unlink()
            here.symlink_to(target)
        self.changed_paths.add(path)
        self.entries.append(entry)

    # edits of files the system owns --------------------------------------------------------

    def cmdline(self, tokens: list[str]) -> None:
        """The kernel's command line gets *tokens*, each replacing an earlier one of its key."""
        path = next((c for c in CMDLINES if self.target.at(c).is_file()), None)
        if path is None:
            self.report.note(f"no {' or '.join(CMDLINES)} under {self.target.root}: the boot options "
                             "(console blanking, the console's rotation) are not set")
            return
        here = self.target.at(path)
        current_text = here.read_text(encoding="utf-8")
        old = self.previous.get(path)
        base = current_text.split()
        if old is not None:  # start from the line as it was before us, keeping the host's later edits
            base = undo_tokens(base, old["added"], old["removed"])
        new, added, removed = apply_tokens(base, tokens)
        result = " ".join(new) + "\n"
        entry: dict[str, Any] = {"kind": "tokens", "path": path, "added": added, "removed": removed,
                                 "sha256": sha256_of(result.encode()),
                                 "backup": old.get("backup") if old else None}
        if result == current_text:
            self.report.say(f"unchanged: {self.target.show(path)}")
            if added or removed or old is not None:
                self.entries.append(entry)
            return
        if entry["backup"] is None:
            entry["backup"] = self.backup(path)
        what = "add " + " ".join(added) + (f"; replace {' '.join(removed)}" if removed else "")
        self.report.change(f"edited {self.target.show(path)}: {what}",
                           f"edit {self.target.show(path)}: {what}")
        if not self.report.dry_run:
            write_file(here, result.encode(), here.stat().st_mode & 0o7777)
        self.entries.append(entry)

    def group_file(self, path: str, user: str, groups: tuple[str, ...], members_field: int) -> None:
        """In a staging tree: *user* joins *groups* in ``/etc/group`` (or ``/etc/gshadow``)."""
        here = self.target.at(path)
        if not here.is_file():
            return
        current_text = here.read_text(encoding="utf-8")
        old = self.previous.get(path)
        lines = current_text.splitlines()
        if old is not None:
            lines = remove_members(lines, old["added"], members_field)
        added = []
        for i, line in enumerate(lines):
            parts = line.split(":")
            if len(parts) > members_field and parts[0] in groups:
                members = [m for m in parts[members_field].split(",") if m]
                if user not in members:
                    parts[members_field] = ",".join([*members, user])
                    lines[i] = ":".join(parts)
                    added.append(f"{parts[0]}:{user}")
        result = "\n".join(lines) + ("\n" if current_text.endswith("\n") or not current_text else "")
        entry: dict[str, Any] = {"kind": "members", "path": path, "field": members_field, "added": added,
                                 "removed": [], "sha256": sha256_of(result.encode()),
                                 "backup": old.get("backup") if old else None}
        if result == current_text:
            self.report.say(f"unchanged: {self.target.show(path)}")
            if added or old is not None:
                self.entries.append(entry)
            return
        if entry["backup"] is None:
            entry["backup"] = self.backup(path)
        joins = ", ".join(a.split(":")[0] for a in added)
        self.report.change(f"edited {self.target.show(path)}: {user} joins {joins}",
                           f"edit {self.target.show(path)}: {user} joins {joins}")
        if not self.report.dry_run:
            write_file(here, result.encode(), here.stat().st_mode & 0o7777)
        self.entries.append(entry)

    def live_groups(self, user: str, groups: tuple[str, ...]) -> None:
        """On the Pi: ``usermod -a -G`` for the groups that exist and do not have *user* yet."""
        self.groups_added = list(self.previous_groups)
        missing = []
        for name in groups:
            try:
                group = grp.getgrnam(name)
            except KeyError:
                self.report.note(f"no group {name!r} here: skipped (on a Pi it exists)")
                continue
            if user not in group.gr_mem and pwd.getpwnam(user).pw_gid != group.gr_gid:
                missing.append(name)
        if missing:
            run_command(self.report, ["usermod", "-a", "-G", ",".join(missing), user],
                 f"{user} may use the screen, the GPU, the touch panel and the GPIO header")
            self.groups_added += [g for g in missing if g not in self.groups_added]
