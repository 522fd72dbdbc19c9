"""The kiosk's units as ``systemd-analyze security`` rates them: the app's at most 4.5 ("OK").

The units are staged by ``companion kiosk install --root`` into a tree like a fresh Raspberry Pi
OS Lite, then rated offline by systemd itself, for both displays.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from kiosk import units
from tests.kiosk.conftest import companion, systemd_analyze

MAX_EXPOSURE = 4.5
PROGRAM = "/home/pi/table-companion/.venv/bin/companion"  # where ./scripts/run makes the venv
_OVERALL = re.compile(r"Overall exposure level for (\S+): (\d+\.\d+) ")


def exposure(root: Path, unit: str) -> tuple[float, str]:
    """The unit's overall exposure level (0 safe .. 10 exposed) and the whole report."""
    done = subprocess.run([systemd_analyze(), "security", "--offline=true", f"--root={root}", "--no-pager",
                           unit], capture_output=True, text=True, timeout=60)
    report = done.stdout + done.stderr
    found = _OVERALL.search(report)
    assert found is not None and found.group(1) == unit, report
    return float(found.group(2)), report


def stage(root: Path, *extra: str) -> None:
    done = companion("kiosk", "install", "--root", str(root), "--user", "pi", "--companion", PROGRAM, *extra,
                     stdin="97531864\n")
    assert (done.returncode, done.stderr) == (0, ""), done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("display", ["kmsdrm", "cage"])
def test_unit_security_kiosk_service_is_at_most_4_5(pi_root: Path, display: str) -> None:
    if display == "cage":
        (pi_root / "usr/bin").mkdir(parents=True)
        (pi_root / "usr/bin/cage").write_text("#!/bin/sh\n")
        (pi_root / "usr/bin/cage").chmod(0o755)
    stage(pi_root, "--display", display)
    level, report = exposure(pi_root, units.SERVICE)
    assert level <= MAX_EXPOSURE, report


@pytest.mark.slow
def test_unit_security_fallback_page_is_at_most_4_5(pi_root: Path) -> None:
    stage(pi_root)
    level, report = exposure(pi_root, units.FALLBACK)
    assert level <= MAX_EXPOSURE, report


@pytest.mark.slow
def test_unit_security_kiosk_service_opens_only_its_devices(pi_root: Path) -> None:
    stage(pi_root)
    lines = (pi_root / "etc/systemd/system" / units.SERVICE).read_text().splitlines()
    assert "DevicePolicy=closed" in lines
    assert [line for line in lines if line.startswith("DeviceAllow=")] == [
        "DeviceAllow=/dev/tty1 rw", "DeviceAllow=char-drm rw", "DeviceAllow=char-input rw",
        "DeviceAllow=char-gpiochip rw", "DeviceAllow=char-ttyUSB rw", "DeviceAllow=char-ttyACM rw",
        "DeviceAllow=char-video4linux rw", "DeviceAllow=char-media rw", "DeviceAllow=char-dma_heap rw",
        "DeviceAllow=char-alsa rw"]
    assert {"ProtectSystem=strict", "ReadWritePaths=/var/lib/table-companion", "ProtectHome=read-only",
            "CapabilityBoundingSet=", "UMask=0077"} <= set(lines)


@pytest.mark.slow
def test_unit_security_cage_may_write_only_the_users_runtime_folder(pi_root: Path) -> None:
    (pi_root / "usr/bin").mkdir(parents=True)
    (pi_root / "usr/bin/cage").write_text("#!/bin/sh\n")
    (pi_root / "usr/bin/cage").chmod(0o755)
    stage(pi_root, "--display", "cage")
    lines = (pi_root / "etc/systemd/system" / units.SERVICE).read_text().splitlines()
    assert [line for line in lines if line.startswith("ReadWritePaths=")] == [
        "ReadWritePaths=/var/lib/table-companion", "ReadWritePaths=-/run/user/1000"]  # pi is 1000


def test_unit_security_cage_without_the_users_id_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "usr/bin").mkdir(parents=True)
    (root / "usr/bin/cage").write_text("#!/bin/sh\n")
    (root / "usr/bin/cage").chmod(0o755)
    done = companion("kiosk", "install", "--root", str(root), "--user", "pi", "--companion", PROGRAM,
                     "--display", "cage", stdin="97531864\n")
    assert done.returncode == 2 and done.stderr.startswith("companion: kiosk install: under cage"), done.stderr
    assert sorted(p.name for p in root.iterdir()) == ["usr"]
