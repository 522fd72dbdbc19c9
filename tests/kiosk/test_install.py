"""``companion kiosk install / uninstall / status`` into a staging tree, end to end as real processes.

The tree looks like a fresh Raspberry Pi OS Lite (``conftest.pi_root``). The units are checked
by systemd itself (``systemd-analyze verify --root``), install is run twice and must change
nothing, and uninstall must leave the tree exactly as it was, byte for byte.
"""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path

import pytest

from companion.config import parse_config
from companion.errors import quote
from firmware_bridge.accessory_ports import DEFAULT_USB_IDS
from kiosk import units
from kiosk.pin import verify_pin
from tests.kiosk.conftest import CMDLINE, companion, listing, systemd_analyze, verify_root

PIN = "97531864"
PROGRAM = "/opt/table companion/bin/companion"  # a space: the units must quote it
INSTALL = ("kiosk", "install", "--user", "pi", "--companion", PROGRAM)

UNIT_FILES = [f"/etc/systemd/system/{u}" for u in units.UNITS]
WRITTEN = {*UNIT_FILES, units.LOGIND_DROPIN, units.JOURNALD_DROPIN, units.SYSCTL_FILE, units.UDEV_RULE,
           units.KIVY_SETTINGS, units.CONFIG_PATH, "/etc/table-companion/kiosk-manifest.json",
           "/etc/table-companion/kiosk-backup/boot/firmware/cmdline.txt",
           "/etc/table-companion/kiosk-backup/etc/group", "/etc/table-companion/kiosk-backup/etc/gshadow"}
LINKS = {"/etc/systemd/system/multi-user.target.wants/companion-kiosk.service":
         "/etc/systemd/system/companion-kiosk.service",
         "/etc/systemd/system/getty@tty1.service": "/dev/null",
         "/etc/systemd/system/ctrl-alt-del.target": "/dev/null"}
EDITED = {"/boot/firmware/cmdline.txt", "/etc/group", "/etc/gshadow"}


def install(root: Path, *extra: str, pin: str = PIN) -> subprocess.CompletedProcess[str]:
    done = companion(*INSTALL, "--root", str(root), *extra, stdin=pin + "\n")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done


@pytest.mark.slow
def test_kiosk_install_writes_every_file_and_nothing_else(pi_root: Path) -> None:
    before = listing(pi_root)
    install(pi_root)
    after = listing(pi_root)
    added = {p for p in after if p not in before}
    files = {p for p in added if after[p][0] == "file"}
    links = {p: after[p][1] for p in added if after[p][0] == "link"}
    assert files == WRITTEN
    assert links == LINKS
    assert {p for p in before if before[p] != after[p] and before[p][0] == "file"} == EDITED
    assert {p for p in added if after[p][0] == "dir"} == {
        "/etc/systemd/system/multi-user.target.wants", "/etc/systemd/logind.conf.d",
        "/etc/systemd/journald.conf.d", "/etc/sysctl.d", "/etc/udev", "/etc/udev/rules.d", "/etc/table-companion",
        "/etc/table-companion/kiosk-backup", "/etc/table-companion/kiosk-backup/boot",
        "/etc/table-companion/kiosk-backup/boot/firmware", "/etc/table-companion/kiosk-backup/etc",
        "/var", "/var/lib", "/var/lib/table-companion"}
    assert after["/var/lib/table-companion"][1] == 0o750 and after[units.CONFIG_PATH][1] == 0o600


@pytest.mark.slow
def test_kiosk_install_service_runs_the_app_on_tty1_restarted_and_watched(pi_root: Path) -> None:
    install(pi_root)
    text = (pi_root / "etc/systemd/system/companion-kiosk.service").read_text()
    lines = set(text.splitlines())
    assert {"Type=notify", "NotifyAccess=main", "User=pi", "PAMName=login", "TTYPath=/dev/tty1",
            "StandardInput=tty", "Restart=always", "RestartSec=5", "WatchdogSec=20", "StartLimitBurst=5",
            "StartLimitIntervalSec=600", "OnFailure=companion-kiosk-fallback.service",
            "RestartPreventExitStatus=2", "Conflicts=getty@tty1.service companion-kiosk-fallback.service",
            'Environment="SDL_VIDEODRIVER=kmsdrm"', 'Environment="KIVY_NO_CONFIG=1"',
            "StateDirectory=table-companion", "RuntimeDirectory=table-companion",
            "RestrictAddressFamilies=AF_UNIX AF_NETLINK", "WantedBy=multi-user.target"} <= lines
    assert (f'ExecStart="{PROGRAM}" kiosk run --config /var/lib/table-companion/config.toml '
            "--kivy-config /etc/table-companion/kivy.ini") in lines
    fallback = (pi_root / "etc/systemd/system/companion-kiosk-fallback.service").read_text().splitlines()
    assert f'ExecStart="{PROGRAM}" kiosk fallback --config /var/lib/table-companion/config.toml' in fallback
    assert {"StandardOutput=tty", "TTYPath=/dev/tty1", "User=pi"} <= set(fallback)
    path = (pi_root / "etc/systemd/system/companion-kiosk-poweroff.path").read_text().splitlines()
    assert "PathExists=/run/table-companion/poweroff" in path


@pytest.mark.slow
def test_kiosk_install_the_other_files(pi_root: Path) -> None:
    install(pi_root, "--rotate", "90", "--panel", "touch-display-2")
    kivy = (pi_root / "etc/table-companion/kivy.ini").read_text()
    from companion.ui.kiosk_mode import KioskSettings

    settings = KioskSettings(pi_root / "etc/table-companion/kivy.ini")
    assert (settings.rotation, settings.inputs) == (90, {"touch": "probesysfs,provider=hidinput"})
    assert "show_cursor" not in kivy.replace("Window.show_cursor", "").replace("show_cursor option", "")
    rules = [line for line in (pi_root / units.UDEV_RULE.lstrip("/")).read_text().splitlines()
             if not line.startswith("#")]
    assert rules == [f'SUBSYSTEM=="tty", ATTRS{{idVendor}}=="{v}", ATTRS{{idProduct}}=="{p}", '
                     'SYMLINK+="table-accessory", OWNER="pi", MODE="0660"'
                     for v, p in (usb_id.split(":") for usb_id in DEFAULT_USB_IDS)]
    assert (pi_root / "boot/firmware/cmdline.txt").read_text() == CMDLINE.replace("=600", "=0").rstrip() \
        + " vt.global_cursor_default=0 video=DSI-1:720x1280@60,rotate=90\n"  # 600 replaced in its place
    assert (pi_root / "etc/group").read_text().splitlines()[2:6] == [
        "video:x:44:pi", "input:x:101:other,pi", "render:x:106:pi", "gpio:x:997:pi"]
    assert "video:!::pi" in (pi_root / "etc/gshadow").read_text().splitlines()
    config_text = (pi_root / "var/lib/table-companion/config.toml").read_text()
    config = parse_config(config_text)
    assert config["ui.kiosk"] and config["ui.fullscreen"]
    assert str(config.database_path) == "/var/lib/table-companion/companion.sqlite3"
    assert verify_pin(PIN, config["ui.admin_pin_hash"]) and not verify_pin("97531865", config["ui.admin_pin_hash"])
    for dropin, needle in ((units.LOGIND_DROPIN, "NAutoVTs=0"), (units.JOURNALD_DROPIN, "SystemMaxUse=64M"),
                           (units.SYSCTL_FILE, "kernel.sysrq = 0")):
        assert needle in (pi_root / dropin.lstrip("/")).read_text().splitlines()


@pytest.mark.slow
def test_kiosk_install_no_pin_in_any_file(pi_root: Path) -> None:
    install(pi_root)
    holders = [p for p in pi_root.rglob("*") if p.is_file() and PIN.encode() in p.read_bytes()]
    assert holders == []


@pytest.mark.slow
@pytest.mark.parametrize("display", ["kmsdrm", "cage"])
def test_kiosk_units_pass_systemd_analyze_verify(pi_root: Path, tmp_path: Path, display: str) -> None:
    analyze = systemd_analyze()
    if display == "cage":
        (pi_root / "usr/bin").mkdir(parents=True)
        (pi_root / "usr/bin/cage").write_text("#!/bin/sh\n")
        (pi_root / "usr/bin/cage").chmod(0o755)
    install(pi_root, "--display", display)
    root = verify_root(pi_root, tmp_path / "verify", [PROGRAM, "/usr/bin/systemctl", "/usr/bin/chvt"])
    for unit in units.UNITS:
        done = subprocess.run([analyze, "verify", f"--root={root}", "--man=no", "--generators=no", unit],
                              capture_output=True, text=True, timeout=60, cwd=root / "etc/systemd/system")
        assert (unit, done.returncode, done.stdout + done.stderr) == (unit, 0, "")
    if display == "cage":
        text = (pi_root / "etc/systemd/system/companion-kiosk.service").read_text().splitlines()
        assert f'ExecStart=/usr/bin/cage -s -- "{PROGRAM}" kiosk run --config ' \
               "/var/lib/table-companion/config.toml --kivy-config /etc/table-companion/kivy.ini" in text
        assert {"NotifyAccess=all", 'Environment="SDL_VIDEODRIVER=x11"'} <= set(text)


@pytest.mark.slow
def test_kiosk_verify_finds_a_broken_unit(pi_root: Path, tmp_path: Path) -> None:
    """The check above can fail: a unit naming a program that is not there is refused."""
    analyze = systemd_analyze()
    install(pi_root)
    root = verify_root(pi_root, tmp_path / "verify", ["/usr/bin/systemctl", "/usr/bin/chvt"])
    done = subprocess.run([analyze, "verify", f"--root={root}", "--man=no", "--generators=no", units.SERVICE],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and f"{PROGRAM} is not executable" in done.stderr


@pytest.mark.slow
def test_kiosk_install_twice_changes_nothing(pi_root: Path) -> None:
    install(pi_root, "--rotate", "180", "--panel", "7inch")
    first = listing(pi_root, times=True)
    again = install(pi_root, "--rotate", "180", "--panel", "7inch", pin="")  # no PIN asked the second time
    assert listing(pi_root, times=True) == first
    assert again.stdout.splitlines()[-1] == "nothing to change: the kiosk is installed as asked"
    assert not any(line.startswith(("wrote", "linked", "edited", "made", "backed")) for line in again.stdout.splitlines())


@pytest.mark.slow
def test_kiosk_uninstall_leaves_the_tree_exactly_as_before(pi_root: Path) -> None:
    before = listing(pi_root)
    install(pi_root, "--rotate", "90", "--panel", "touch-display-2")
    install(pi_root, "--rotate", "270", "--panel", "touch-display-2", "--touch", "sdl", pin="")
    done = companion("kiosk", "uninstall", "--root", str(pi_root))
    assert done.returncode == 0, done.stderr
    assert listing(pi_root) == before
    assert done.stdout.splitlines()[-1] == "uninstalled"
    again = companion("kiosk", "uninstall", "--root", str(pi_root))
    assert (again.returncode, again.stdout) == (0, f"nothing to remove: no kiosk is installed under {pi_root}\n")


@pytest.mark.slow
def test_kiosk_install_option_change_replaces_its_own_edits(pi_root: Path) -> None:
    install(pi_root, "--rotate", "90", "--panel", "touch-display-2")
    install(pi_root, "--rotate", "180", "--panel", "7inch", pin="")
    line = (pi_root / "boot/firmware/cmdline.txt").read_text()
    assert [t for t in line.split() if t.startswith(("video=", "consoleblank="))] == [
        "consoleblank=0", "video=DSI-1:800x480@60,rotate=180"]
    assert "rotation = 180" in (pi_root / "etc/table-companion/kivy.ini").read_text().splitlines()


@pytest.mark.slow
def test_kiosk_uninstall_keeps_what_changed_since(pi_root: Path) -> None:
    """The app rewrote its config and the host added a boot option: both survive the uninstall."""
    before = listing(pi_root)
    install(pi_root)
    config = pi_root / "var/lib/table-companion/config.toml"
    config.write_text(config.read_text().replace('language = "en"', "") + '\n[timer]\ntick_hz = 5\n')
    cmdline = pi_root / "boot/firmware/cmdline.txt"
    cmdline.write_text(cmdline.read_text().rstrip("\n") + " quiet\n")
    done = companion("kiosk", "uninstall", "--root", str(pi_root))
    assert done.returncode == 0, done.stderr
    assert f"note: kept {config}: changed since the install" in done.stdout.splitlines()
    assert cmdline.read_text() == CMDLINE.rstrip("\n") + " quiet\n"  # ours out, the host's in, 600 back
    after = listing(pi_root)
    assert {p for p in after if p not in before} == {"/var", "/var/lib", "/var/lib/table-companion",
                                                     units.CONFIG_PATH}
    assert {p for p in before if before[p] != after.get(p)} == {"/boot/firmware/cmdline.txt"}


@pytest.mark.slow
def test_kiosk_install_backs_up_a_file_it_replaces(pi_root: Path) -> None:
    getty = pi_root / "etc/systemd/system/getty@tty1.service"
    getty.write_text("[Service]\nExecStart=-/sbin/agetty --autologin pi tty1\n")
    before = listing(pi_root)
    done = install(pi_root)
    assert f"backed up {getty}" in done.stdout
    assert getty.is_symlink()
    assert companion("kiosk", "uninstall", "--root", str(pi_root)).returncode == 0
    assert listing(pi_root) == before


@pytest.mark.slow
def test_kiosk_install_dry_run_prints_everything_and_changes_nothing(pi_root: Path) -> None:
    before = listing(pi_root, times=True)
    done = companion(*INSTALL, "--root", str(pi_root), "--dry-run")
    assert done.returncode == 0, done.stderr
    assert listing(pi_root, times=True) == before
    out = done.stdout
    for path in sorted(WRITTEN - {"/etc/table-companion/kiosk-manifest.json"}):
        if "kiosk-backup" in path:
            assert f"would back up {pi_root / path.lstrip('/').replace('etc/table-companion/kiosk-backup/', '')}" \
                in out
        else:
            assert f"would write {pi_root / path.lstrip('/')} (" in out, path
    for link, target in LINKS.items():
        assert f"would link {pi_root / link.lstrip('/')} -> {target}" in out
    assert "would ask for the admin PIN (4 to 8 digits) and keep only its scrypt hash" in out
    assert f"would edit {pi_root / 'boot/firmware/cmdline.txt'}: add consoleblank=0" in out
    assert "    | User=pi" in out and "<the PIN's scrypt hash>" in out
    assert "would write" in out and "would make directory" in out


@pytest.mark.slow
def test_kiosk_install_bad_pin_writes_nothing(pi_root: Path) -> None:
    before = listing(pi_root)
    done = companion(*INSTALL, "--root", str(pi_root), stdin="12ab\n")
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", "companion: PIN: must be 4 to 8 digits (the PIN itself is not shown)\n")
    assert listing(pi_root) == before


@pytest.mark.parametrize("args, message", [
    (["--user", "Pi User"], "companion: --user: must be a Linux user name: a-z, 0-9, '_' or '-', at most 31, not starting with a digit or '-' (got 'Pi User')"),
    (["--user", "root"], "companion: --user: the kiosk must not run as root: name the Pi's user (got 'root')"),
    (["--user", "nobody"], "companion: kiosk install: there is no user 'nobody' in {root}/etc/passwd: create it in the image first or name another with --user"),
    (["--user", "pi", "--rotate", "90"], "companion: --rotate: say which panel it is with --panel 7inch|touch-display-2 (the console's rotation needs its mode) (got 90)"),
    (["--user", "pi", "--rotate", "45"], "companion kiosk install: argument --rotate: invalid choice: 45 (choose from 0, 90, 180, 270)"),
    (["--user", "pi", "--overlay"], "companion: --overlay: switches the read-only overlay on the running Pi only: run it there, without --root (got True)"),
    (["--user", "pi", "--companion", "bin/companion"], "companion: --companion: must be an absolute path to a program (got 'bin/companion')"),
    (["--user", "pi", "--companion", '/opt/a"b/companion'], "companion: --companion: systemd cannot run a program whose path holds quotes, backslashes or control characters: move it (got '/opt/a\"b/companion')"),
    (["--user", "pi", "--display", "cage"], "companion: kiosk install: the kiosk needs cage here, and it is not installed: sudo apt-get install cage xwayland, then install again (or see the README for building Kivy against the system's SDL2)"),
])
@pytest.mark.slow
def test_kiosk_install_bad_input_is_one_line_and_exit_2(pi_root: Path, args: list[str], message: str) -> None:
    before = listing(pi_root)
    done = companion("kiosk", "install", "--root", str(pi_root), *args, stdin=PIN + "\n")
    assert (done.returncode, done.stderr) == (2, message.format(root=pi_root) + "\n")
    assert listing(pi_root) == before


@pytest.mark.slow
def test_kiosk_install_root_must_exist(tmp_path: Path) -> None:
    done = companion(*INSTALL, "--root", str(tmp_path / "nope"), stdin=PIN + "\n")
    assert (done.returncode, done.stderr) == (
        2, f"companion: --root: must be an existing directory (got {quote(str(tmp_path / 'nope'))})\n")


def test_kiosk_commands_need_root_on_the_live_system(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from companion import cli
    from kiosk import install as kiosk_install

    monkeypatch.setattr(kiosk_install.os, "geteuid", lambda: 1000)
    for args in (["kiosk", "install", "--user", "pi"], ["kiosk", "uninstall"]):
        assert cli.main(args) == 2
        out, err = capsys.readouterr()
        command = args[1]
        assert out == ""
        assert err.startswith(f"companion: kiosk {command}: needs root: run it with sudo (sudo ")
        assert err.endswith("or stage it with --root DIR, or see what it would do with --dry-run\n")
        assert err.count("\n") == 1


@pytest.mark.slow
def test_kiosk_status_says_what_is_installed(pi_root: Path) -> None:
    done = companion("kiosk", "status", "--root", str(pi_root), "--json")
    assert done.returncode == 1 and json.loads(done.stdout)["installed"] is False
    install(pi_root)
    doc = json.loads(companion("kiosk", "status", "--root", str(pi_root), "--json").stdout)
    assert doc["installed"] and doc["options"]["user"] == "pi" and doc["service"] is None
    assert set(doc["files"].values()) == {"ok"} and len(doc["files"]) == len(WRITTEN) - 4 + len(LINKS) + len(EDITED)
    (pi_root / "etc/sysctl.d/90-table-companion.conf").write_text("kernel.sysrq = 1\n")
    done = companion("kiosk", "status", "--root", str(pi_root))
    assert done.returncode == 0
    assert f"files:    {len(doc['files']) - 1} of {len(doc['files'])} as installed" in done.stdout
    assert "          /etc/sysctl.d/90-table-companion.conf: changed" in done.stdout


@pytest.mark.slow
def test_kiosk_manifest_lists_every_change_and_no_secret(pi_root: Path) -> None:
    install(pi_root)
    manifest = json.loads((pi_root / "etc/table-companion/kiosk-manifest.json").read_text())
    assert {e["path"] for e in manifest["entries"]} == (WRITTEN - {
        "/etc/table-companion/kiosk-manifest.json", "/etc/table-companion/kiosk-backup/boot/firmware/cmdline.txt",
        "/etc/table-companion/kiosk-backup/etc/group", "/etc/table-companion/kiosk-backup/etc/gshadow"}) \
        | set(LINKS) | EDITED
    assert manifest["options"]["companion"] == PROGRAM and manifest["overlay"] is False


def test_kiosk_config_defaults_match_the_accessory() -> None:
    """The udev rule takes the config's USB ids; their default is the accessory's own list."""
    from companion.config import defaults

    assert tuple(defaults()["accessory.usb_ids"]) == DEFAULT_USB_IDS


def test_kiosk_config_written_is_valid_toml_every_key_known() -> None:
    doc = tomllib.loads(units.kiosk_config("x"))
    assert doc == {"ui": {"kiosk": True, "fullscreen": True, "admin_pin_hash": "x"},
                   "paths": {"database": units.DATABASE_PATH}}


@pytest.mark.slow
def test_kiosk_uninstall_leaves_what_the_host_had_already(pi_root: Path) -> None:
    """A mask the host made, and a file already as install would write it, are theirs: they stay."""
    (pi_root / "etc/systemd/system/getty@tty1.service").symlink_to("/dev/null")
    (pi_root / "etc/sysctl.d").mkdir()
    (pi_root / "etc/sysctl.d/90-table-companion.conf").write_text(units.sysctl_file())
    before = listing(pi_root)
    install(pi_root)
    assert companion("kiosk", "install", "--root", str(pi_root), "--user", "pi", "--companion", PROGRAM,
                     stdin="").stdout.splitlines()[-1] == "nothing to change: the kiosk is installed as asked"
    assert companion("kiosk", "uninstall", "--root", str(pi_root)).returncode == 0
    assert listing(pi_root) == before
