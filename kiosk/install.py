"""``companion kiosk install``, ``uninstall`` and ``status``: the kiosk's files on a Pi, or in a staging tree.

Install works out the state it wants (files, links, directories, edits of the kernel's
command line and, in a staging tree, of ``/etc/group``), compares it with what is there, and
changes only what differs; a second run changes nothing. Everything it adds or changes is
listed in a manifest (``/etc/table-companion/kiosk-manifest.json``) with a copy of every file
it replaced or edited (under ``/etc/table-companion/kiosk-backup/``), so uninstall removes
exactly what install added and puts back what it changed. A file the host changed since the
install is left alone by uninstall, which says so (its backup stays).

``root`` is the tree to work on: ``/`` for the Pi itself (root only; commands such as
``systemctl daemon-reload`` are run), or a staging directory for an image or a test (no
commands run; group membership is edited in the tree's ``/etc/group``). ``dry_run`` prints
every file, edit and command, and touches nothing.
"""

from __future__ import annotations

import grp
import hashlib
import json
import os
import pwd
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from companion.atomic import write_atomic
from companion.config import defaults, load_config
from companion.errors import CompanionError, InvalidInput
from kiosk import units
from kiosk.display import SdlCheck, check_sdl
from kiosk.units import KioskOptions

MANIFEST = f"{units.ETC_DIR}/kiosk-manifest.json"
BACKUP_DIR = f"{units.ETC_DIR}/kiosk-backup"
CMDLINES = ("/boot/firmware/cmdline.txt", "/boot/cmdline.txt")
MASKED = ("/etc/systemd/system/getty@tty1.service", "/etc/systemd/system/ctrl-alt-del.target")
"""No login prompt on tty1 (the app's console), and Ctrl+Alt+Del does not reboot the table."""
ENABLED = f"{units.UNIT_DIR}/multi-user.target.wants/{units.SERVICE}"

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


def _sha(data: bytes) -> str:
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


def _need_root(target: Target, dry_run: bool, command: str) -> None:
    if target.is_live and not dry_run and os.geteuid() != 0:
        raise KioskError(f"kiosk {command}: needs root: run it with sudo (sudo {sys.argv[0]} kiosk {command} "
                         "...), or stage it with --root DIR, or see what it would do with --dry-run")


def _root_is_overlay() -> bool:
    try:
        for line in Path("/proc/mounts").read_text().splitlines():
            parts = line.split()
            if len(parts) > 2 and parts[1] == "/":
                return parts[2] == "overlay"
    except OSError:
        pass
    return False


def _run(report: Report, argv: list[str], why: str) -> None:
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


# -- the pieces of the wanted state ---------------------------------------------------------


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
                    _chown(self.target.at(d), owner)
            self._made.add(d)
            if d not in self.dirs:
                self.dirs.append(d)

    def _backup(self, path: str) -> str:
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
        entry: dict[str, Any] = {"kind": "file", "path": path, "sha256": _sha(content), "mode": mode,
                                 "backup": old.get("backup") if old else None}
        if old and "backup_link" in old:
            entry["backup_link"] = old["backup_link"]
        if here.is_file() and not here.is_symlink():
            current = here.read_bytes()
            if old is None:  # the host's file, even if it is already what we want: uninstall puts it back
                entry["backup"] = self._backup(path)
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
            _write(here, content, mode)
            if owner is not None:
                _chown(here, owner)
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
                entry["backup"] = self._backup(path)
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
                                 "sha256": _sha(result.encode()),
                                 "backup": old.get("backup") if old else None}
        if result == current_text:
            self.report.say(f"unchanged: {self.target.show(path)}")
            if added or removed or old is not None:
                self.entries.append(entry)
            return
        if entry["backup"] is None:
            entry["backup"] = self._backup(path)
        what = "add " + " ".join(added) + (f"; replace {' '.join(removed)}" if removed else "")
        self.report.change(f"edited {self.target.show(path)}: {what}",
                           f"edit {self.target.show(path)}: {what}")
        if not self.report.dry_run:
            _write(here, result.encode(), here.stat().st_mode & 0o7777)
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
                                 "removed": [], "sha256": _sha(result.encode()),
                                 "backup": old.get("backup") if old else None}
        if result == current_text:
            self.report.say(f"unchanged: {self.target.show(path)}")
            if added or old is not None:
                self.entries.append(entry)
            return
        if entry["backup"] is None:
            entry["backup"] = self._backup(path)
        joins = ", ".join(a.split(":")[0] for a in added)
        self.report.change(f"edited {self.target.show(path)}: {user} joins {joins}",
                           f"edit {self.target.show(path)}: {user} joins {joins}")
        if not self.report.dry_run:
            _write(here, result.encode(), here.stat().st_mode & 0o7777)
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
            _run(self.report, ["usermod", "-a", "-G", ",".join(missing), user],
                 f"{user} may use the screen, the GPU, the touch panel and the GPIO header")
            self.groups_added += [g for g in missing if g not in self.groups_added]


def apply_tokens(base: list[str], tokens: list[str]) -> tuple[list[str], list[str], list[str]]:
    """*base* with each of *tokens*: in the place of an earlier token of its key (the others of
    that key dropped), else at the end. Returns the new line, what was added, what was replaced."""
    new = list(base)
    added: list[str] = []
    removed: list[str] = []
    for token in tokens:
        if token in new:
            continue
        key = units.token_key(token)
        places = [i for i, t in enumerate(new) if units.token_key(t) == key]
        removed += [new[i] for i in places]
        if places:
            new[places[0]] = token
            for i in reversed(places[1:]):
                del new[i]
        else:
            new.append(token)
        added.append(token)
    return new, added, removed


def undo_tokens(tokens: list[str], added: list[str], removed: list[str]) -> list[str]:
    """A command line with an install's tokens taken out and the ones they replaced put back in
    their place; the host's own tokens, old and new, stay where they are."""
    out = list(tokens)
    pending = list(removed)
    for token in added:
        if token not in out:
            continue
        i = out.index(token)
        match = next((r for r in pending if units.token_key(r) == units.token_key(token)), None)
        if match is None:
            del out[i]
        else:
            out[i] = match
            pending.remove(match)
    return out + [t for t in pending if t not in out]


def remove_members(lines: list[str], added: list[str], members_field: int) -> list[str]:
    """Group lines with each ``group:user`` in *added* taken out of that group's members."""
    drop = {tuple(a.split(":", 1)) for a in added}
    out = []
    for line in lines:
        parts = line.split(":")
        if len(parts) > members_field:
            members = [m for m in parts[members_field].split(",") if m and (parts[0], m) not in drop]
            parts[members_field] = ",".join(members)
            line = ":".join(parts)
        out.append(line)
    return out


def _write(path: Path, content: bytes, mode: int) -> None:
    """Atomically (:func:`companion.atomic.write_atomic`): a pulled plug leaves the old file or
    the new one, never half of one."""
    write_atomic(path, content, mode)


def _chown(path: Path, user: str) -> None:
    entry = pwd.getpwnam(user)
    os.chown(path, entry.pw_uid, entry.pw_gid, follow_symlinks=False)


# -- install ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class InstallRequest:
    """The command line of ``companion kiosk install``."""

    root: Path
    user: str | None
    companion: str | None
    display: str = "auto"
    rotate: int = 0
    panel: str | None = None
    touch: str = "hidinput"
    overlay: bool = False
    dry_run: bool = False


def default_user() -> str | None:
    """Who runs the kiosk when ``--user`` is not given: the one who called sudo."""
    name = os.environ.get("SUDO_USER")
    return name if name and name != "root" else None


def default_companion() -> str | None:
    """The ``companion`` program of the Python running now (the project's ``.venv``), else the
    one on the PATH, else None."""
    script = Path(sys.executable).parent / "companion"
    return str(script) if script.exists() else shutil.which("companion")


def choose_display(requested: str, sdl: SdlCheck, target: Target, report: Report) -> str:
    """kmsdrm when Kivy's SDL2 has the driver, else cage (said, never silent).

    :raises KioskError: when cage is needed and not installed in *target*.
    """
    display = requested
    if requested == "kmsdrm" and sdl.has_kmsdrm is False:
        report.note(f"{sdl.to_text()}: with --display kmsdrm the screen will stay black; "
                    "--display cage works")
    if requested == "auto":
        if sdl.has_kmsdrm is False:
            report.note(f"Kivy's SDL2 ({sdl.to_text()}) cannot draw on the console: the kiosk runs under "
                        "cage, a Wayland kiosk compositor (see the README, Setting up a table)")
            display = "cage"
        else:
            display = "kmsdrm"
            if sdl.has_kmsdrm is None:
                report.note(f"{sdl.to_text()}: kmsdrm assumed; if the screen stays black, "
                            "install again with --display cage")
    if display == "cage" and not target.at("/usr/bin/cage").exists():
        raise KioskError("kiosk install: the kiosk needs cage here, and it is not installed: "
                         "sudo apt-get install cage xwayland, then install again (or see the README for "
                         "building Kivy against the system's SDL2)")
    return display


def install(request: InstallRequest, say: Say, ask_pin: Callable[[], str]) -> Report:
    """Install the kiosk into ``request.root``; *ask_pin* gives the admin PIN when one is needed.

    :raises InvalidInput: for a bad option (one line).
    :raises KioskError: when it cannot be done here (not root, no such user, no cage...).
    """
    from kiosk.pin import hash_pin

    target = Target(request.root)
    report = Report(say, request.dry_run)
    _need_root(target, request.dry_run, "install")
    if not request.root.is_dir():
        raise InvalidInput("--root", str(request.root), "must be an existing directory")
    if target.is_live and not request.dry_run and _root_is_overlay():
        raise KioskError("kiosk install: the root file system is the read-only overlay, so this install "
                         "would be gone at the next power-off: turn it off first (sudo raspi-config nonint "
                         "disable_overlayfs, then reboot)")
    user = request.user or default_user()
    if user is None:
        raise InvalidInput("--user", None, "name the user who runs the kiosk (the Pi's own user, not root)")
    units.check_user(user)
    uid = _user_id(target, user)
    if request.overlay:
        _check_overlay_possible(target)
    previous = read_manifest(target)
    config_file = target.at(units.CONFIG_PATH)
    config = load_config(config_file) if config_file.exists() else defaults()
    sdl = check_sdl()
    display = choose_display(request.display, sdl, target, report)
    companion = request.companion or default_companion()
    if companion is None:
        raise InvalidInput("--companion", None, "cannot find the companion program: give its path")
    if display == "cage" and uid is None:
        raise KioskError(f"kiosk install: under cage the unit names {user}'s runtime folder /run/user/UID, "
                         f"and there is no /etc/passwd under {target.root} to find the id in: add the user "
                         "to the image first")
    opts = KioskOptions(user=user, companion=companion, display=display,
                        rotate=request.rotate, panel=request.panel, touch=request.touch,
                        usb_ids=tuple(config["accessory.usb_ids"]), overlay=request.overlay,
                        uid=uid if display == "cage" else None).checked()
    pin_hash: str | None = None
    needs_pin = not config_file.exists() or not config["ui.admin_pin_hash"]
    if needs_pin:
        if request.dry_run:
            report.say("would ask for the admin PIN (4 to 8 digits) and keep only its scrypt hash")
        else:
            pin_hash = hash_pin(ask_pin())

    work = Installer(target, report, previous)
    for name, text in units.unit_files(opts).items():
        work.file(f"{units.UNIT_DIR}/{name}", text.encode())
    work.link(ENABLED, f"{units.UNIT_DIR}/{units.SERVICE}")
    for masked in MASKED:
        work.link(masked, "/dev/null")
    work.file(units.LOGIND_DROPIN, units.logind_dropin().encode())
    work.file(units.JOURNALD_DROPIN, units.journald_dropin().encode())
    work.file(units.SYSCTL_FILE, units.sysctl_file().encode())
    work.file(units.UDEV_RULE, units.udev_rule(opts).encode())
    work.file(units.KIVY_SETTINGS, units.kivy_settings(opts).encode())
    owner = user if target.is_live else None  # in a staging tree, systemd's StateDirectory= chowns it
    work.ensure_dir(units.DATA_DIR, 0o750, owner)
    if not config_file.exists():
        work.file(units.CONFIG_PATH, units.kiosk_config(pin_hash or "").encode(), 0o600, owner=owner,
                  shown=units.kiosk_config("<the PIN's scrypt hash>").encode())
    elif needs_pin:
        _set_pin_hash(work, config_file, pin_hash or "", owner)
    elif units.CONFIG_PATH in work.previous:
        work.entries.append(work.previous[units.CONFIG_PATH])  # the app's now: uninstall checks it
    work.cmdline(units.cmdline_tokens(opts))
    if target.is_live:
        work.live_groups(user, units.GROUPS)
    else:
        work.group_file("/etc/group", user, units.GROUPS, 3)
        work.group_file("/etc/gshadow", user, units.GROUPS, 3)
        if not target.at("/etc/group").is_file():
            report.note(f"no /etc/group under {target.root}: add {user} to the groups "
                        f"{', '.join(units.GROUPS)} in the image yourself")
    overlay = bool(previous and previous.get("overlay"))
    if target.is_live:
        unit_paths = {f"{units.UNIT_DIR}/{n}" for n in units.UNITS} | {ENABLED, *MASKED}
        if work.changed_paths & unit_paths:
            _run(report, ["systemctl", "daemon-reload"], "systemd reads the new units")
        if units.UDEV_RULE in work.changed_paths:
            _run(report, ["udevadm", "control", "--reload-rules"], "udev reads the accessory's rule")
            _run(report, ["udevadm", "trigger", "--action=add", "--subsystem-match=tty"],
                 "a plugged-in accessory gets its name now")
        if request.overlay and not overlay:
            _run(report, ["raspi-config", "nonint", "enable_overlayfs"],
                 "the root file system becomes read-only, its changes kept in memory")
            overlay = True
    manifest = {"version": 1, "options": asdict(opts), "entries": work.entries,
                "dirs": sorted(set(work.dirs), key=lambda d: (d.count("/"), d)),
                "groups_added": work.groups_added, "overlay": overlay}
    _write_manifest(work, manifest)
    if report.changes == 0:
        say("nothing to change: the kiosk is installed as asked")
    elif not request.dry_run:
        say("installed: the kiosk starts at the next boot (sudo reboot)" if target.is_live
            else f"staged in {target.root}")
    return report


def _set_pin_hash(work: Installer, config_file: Path, pin_hash: str, owner: str | None) -> None:
    """An existing kiosk config without a PIN gets one (a config not the install's is backed up)."""
    from companion.config import save_settings

    path = units.CONFIG_PATH
    old = work.previous.get(path)
    backup = old.get("backup") if old else work._backup(path)
    work.report.change(f"set the admin PIN's hash in {work.target.show(path)}",
                       f"set the admin PIN's hash in {work.target.show(path)}")
    if work.report.dry_run:
        return
    save_settings(config_file, {"ui.admin_pin_hash": pin_hash})
    if owner is not None:
        _chown(config_file, owner)
    work.entries.append({"kind": "file", "path": path, "sha256": _sha(config_file.read_bytes()),
                         "mode": config_file.stat().st_mode & 0o7777, "backup": backup})


def _write_manifest(work: Installer, manifest: dict[str, Any]) -> None:
    text = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
    here = work.target.at(MANIFEST)
    if here.exists() and here.read_text(encoding="utf-8") == text:
        return
    work.ensure_dir(os.path.dirname(MANIFEST))
    if not work.report.dry_run:
        _write(here, text.encode(), 0o644)
    elif not here.exists():
        work.report.say(f"would write {work.target.show(MANIFEST)}: the list of everything above, "
                        "for uninstall")


def _user_id(target: Target, user: str) -> int | None:
    """*user*'s numeric id on the target; None in a staging tree without ``/etc/passwd``.

    :raises KioskError: when the target has no such user.
    """
    if target.is_live:
        try:
            return pwd.getpwnam(user).pw_uid
        except KeyError:
            raise KioskError(f"kiosk install: there is no user {user!r} here: create it (sudo adduser "
                             f"{user}) or name another with --user") from None
    passwd = target.at("/etc/passwd")
    if not passwd.is_file():
        return None
    for line in passwd.read_text().splitlines():
        parts = line.split(":")
        if parts[0] == user and len(parts) > 2 and parts[2].isdigit():
            return int(parts[2])
    raise KioskError(f"kiosk install: there is no user {user!r} in {passwd}: create it in the image "
                     "first or name another with --user")


def _check_overlay_possible(target: Target) -> None:
    if not target.is_live:
        raise InvalidInput("--overlay", True, "switches the read-only overlay on the running Pi only: run it "
                           "there, without --root")
    if not os.path.ismount(units.DATA_DIR):
        raise KioskError(f"kiosk install --overlay: {units.DATA_DIR} is not a file system of its own, so "
                         "with the overlay on every game would be forgotten at power-off: mount a data "
                         "partition there first (README: Setting up a table), or install without --overlay")
    if shutil.which("raspi-config") is None:
        raise KioskError("kiosk install --overlay: raspi-config is not installed (it comes with Raspberry "
                         "Pi OS)")


# -- uninstall ----------------------------------------------------------------------------------


def uninstall(root: Path, dry_run: bool, say: Say) -> Report:
    """Remove what the install added and put back what it changed.

    :raises KioskError: when it cannot be done here.
    """
    target = Target(root)
    report = Report(say, dry_run)
    _need_root(target, dry_run, "uninstall")
    if target.is_live and not dry_run and _root_is_overlay():
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
            _run(report, ["gpasswd", "-d", manifest["options"]["user"], group], "the install added it")
        if manifest.get("overlay"):
            _run(report, ["raspi-config", "nonint", "disable_overlayfs"], "the install switched it on")
    for backup in sorted(undo.used_backups - undo.kept_backups):
        undo.remove(backup)
    undo.remove(MANIFEST)
    for d in sorted(manifest.get("dirs", []), key=lambda d: (-d.count("/"), d)):
        undo.remove_dir(d)
    if target.is_live:
        _run(report, ["systemctl", "daemon-reload"], "systemd forgets the kiosk's units")
        _run(report, ["udevadm", "control", "--reload-rules"], "udev forgets the accessory's rule")
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
                           and _sha(here.read_bytes()) == entry["sha256"])
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
        if backup and _sha(text.encode()) == entry["sha256"]:
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
                _write(here, new_text.encode(), here.stat().st_mode & 0o7777)
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


# -- status -------------------------------------------------------------------------------------


def status(root: Path) -> dict[str, Any]:
    """What is installed under *root*, whether each file is as installed, and (on the Pi) the service."""
    target = Target(root)
    manifest = read_manifest(target)
    doc: dict[str, Any] = {"installed": manifest is not None, "root": str(target.root), "options": None,
                           "files": {}, "service": None, "enabled": None, "overlay": _overlay_state(target),
                           "data": _data_state(target), "sdl": check_sdl().to_text()}
    if manifest is None:
        return doc
    doc["options"] = manifest.get("options")
    for entry in manifest["entries"]:
        here = target.at(entry["path"])
        if entry["kind"] == "link":
            state = "ok" if here.is_symlink() and os.readlink(here) == entry["target"] else \
                "missing" if not here.is_symlink() else "changed"
        elif not here.is_file():
            state = "missing"
        else:
            state = "ok" if _sha(here.read_bytes()) == entry["sha256"] else "changed"
        doc["files"][entry["path"]] = state
    if target.is_live:
        doc["service"] = _systemctl("is-active", units.SERVICE)
        doc["enabled"] = _systemctl("is-enabled", units.SERVICE)
    return doc


def _systemctl(verb: str, unit: str) -> str:
    if not Path("/run/systemd/system").is_dir() or shutil.which("systemctl") is None:
        return "unknown: systemd is not running here"
    try:
        done = subprocess.run(["systemctl", verb, unit], capture_output=True, text=True, timeout=10)
    except OSError as exc:
        return f"unknown: {exc.strerror}"
    return done.stdout.strip() or done.stderr.strip() or f"exit code {done.returncode}"


def _overlay_state(target: Target) -> str:
    configured = False
    for c in CMDLINES:
        if target.at(c).is_file() and "overlayroot=tmpfs" in target.at(c).read_text(errors="replace"):
            configured = True
    if target.is_live and _root_is_overlay():
        return "on"
    return "on from the next boot" if configured else "off"


def _data_state(target: Target) -> str:
    here = target.at(units.DATA_DIR)
    if not here.is_dir():
        return f"{units.DATA_DIR}: not there"
    if target.is_live and os.path.ismount(here):
        return f"{units.DATA_DIR}: a file system of its own (kept with the overlay on)"
    return f"{units.DATA_DIR}: on the root file system (forgotten at power-off once the overlay is on)"


def status_text(doc: dict[str, Any]) -> str:
    if not doc["installed"]:
        return "\n".join([f"kiosk:    not installed under {doc['root']}", f"SDL2:     {doc['sdl']}"])
    o = doc["options"] or {}
    files = doc["files"]
    bad = {p: s for p, s in files.items() if s != "ok"}
    lines = [
        f"kiosk:    installed under {doc['root']} (user {o.get('user')}, display {o.get('display')}, "
        f"rotation {o.get('rotate')}, touch {o.get('touch')})",
        f"files:    {len(files) - len(bad)} of {len(files)} as installed"
        + "".join(f"\n          {p}: {s}" for p, s in sorted(bad.items())),
        f"service:  {doc['service'] or 'not looked at (a staging tree)'}"
        + (f", enabled: {doc['enabled']}" if doc["enabled"] else ""),
        f"overlay:  {doc['overlay']}",
        f"data:     {doc['data']}",
        f"SDL2:     {doc['sdl']}",
    ]
    return "\n".join(lines)
