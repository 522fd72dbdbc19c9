"""``companion kiosk install``: the kiosk's files on a Pi, or in a staging tree.

Install works out the state it wants (the units, drop-ins, udev rule and Kivy settings of
:mod:`kiosk.units`, the links that enable the service and mask the console's login, the
kiosk's config with the admin PIN's hash, edits of the kernel's command line and, in a staging
tree, of ``/etc/group``), and an :class:`~kiosk.installer.Installer` changes only what differs
from it; a second run changes nothing. The manifest it writes lists everything added or
changed, for ``companion kiosk uninstall`` (:mod:`kiosk.uninstall`).
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from companion.config import defaults, load_config
from companion.errors import InvalidInput
from kiosk import units
from kiosk.display import SdlCheck, check_sdl
from kiosk.installer import Installer
from kiosk.target import (
    MANIFEST,
    KioskError,
    Report,
    Say,
    Target,
    chown_to,
    need_root,
    read_manifest,
    root_is_overlay,
    run_command,
    sha256_of,
    write_file,
)
from kiosk.units import KioskOptions

MASKED = ("/etc/systemd/system/getty@tty1.service", "/etc/systemd/system/ctrl-alt-del.target")
"""No login prompt on tty1 (the app's console), and Ctrl+Alt+Del does not reboot the table."""
ENABLED = f"{units.UNIT_DIR}/multi-user.target.wants/{units.SERVICE}"


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
    need_root(target, request.dry_run, "install")
    if not request.root.is_dir():
        raise InvalidInput("--root", str(request.root), "must be an existing directory")
    if target.is_live and not request.dry_run and root_is_overlay():
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
            run_command(report, ["systemctl", "daemon-reload"], "systemd reads the new units")
        if units.UDEV_RULE in work.changed_paths:
            run_command(report, ["udevadm", "control", "--reload-rules"], "udev reads the accessory's rule")
            run_command(report, ["udevadm", "trigger", "--action=add", "--subsystem-match=tty"],
                 "a plugged-in accessory gets its name now")
        if request.overlay and not overlay:
            run_command(report, ["raspi-config", "nonint", "enable_overlayfs"],
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
    backup = old.get("backup") if old else work.backup(path)
    work.report.change(f"set the admin PIN's hash in {work.target.show(path)}",
                       f"set the admin PIN's hash in {work.target.show(path)}")
    if work.report.dry_run:
        return
    save_settings(config_file, {"ui.admin_pin_hash": pin_hash})
    if owner is not None:
        chown_to(config_file, owner)
    work.entries.append({"kind": "file", "path": path, "sha256": sha256_of(config_file.read_bytes()),
                         "mode": config_file.stat().st_mode & 0o7777, "backup": backup})


def _write_manifest(work: Installer, manifest: dict[str, Any]) -> None:
    text = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
    here = work.target.at(MANIFEST)
    if here.exists() and here.read_text(encoding="utf-8") == text:
        return
    work.ensure_dir(os.path.dirname(MANIFEST))
    if not work.report.dry_run:
        write_file(here, text.encode(), 0o644)
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
