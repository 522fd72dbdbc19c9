"""A staging tree that looks like a fresh Raspberry Pi OS Lite, a full listing of a tree, and a
copy of a staged tree that ``systemd-analyze verify --root`` can load."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.processes import run
from tests.ui.conftest import display  # noqa: F401 - the X display the kiosk's app tests need

ROOT = Path(__file__).resolve().parents[2]
CMDLINE = ("console=serial0,115200 console=tty1 root=PARTUUID=4e639091-02 rootfstype=ext4 "
           "fsck.repair=yes rootwait consoleblank=600 cfg80211.ieee80211_regdom=HU\n")
GROUP = "root:x:0:\nadm:x:4:pi\nvideo:x:44:\ninput:x:101:other\nrender:x:106:\ngpio:x:997:pi\npi:x:1000:\n"
PASSWD = "root:x:0:0:root:/root:/bin/bash\npi:x:1000:1000:,,,:/home/pi:/bin/bash\n"


@pytest.fixture
def pi_root(tmp_path: Path) -> Path:
    """What install finds on a fresh Pi: the boot partition's command line, users and groups."""
    root = tmp_path / "root"
    (root / "boot" / "firmware").mkdir(parents=True)
    (root / "boot" / "firmware" / "cmdline.txt").write_text(CMDLINE)
    (root / "boot" / "firmware" / "config.txt").write_text("dtoverlay=vc4-kms-v3d\n")
    (root / "etc" / "systemd" / "system").mkdir(parents=True)
    (root / "etc" / "passwd").write_text(PASSWD)
    (root / "etc" / "group").write_text(GROUP)
    (root / "etc" / "gshadow").write_text("".join(f"{line.split(':')[0]}:!::{line.split(':')[3]}\n"
                                                  for line in GROUP.splitlines()))
    os.chmod(root / "etc" / "gshadow", 0o640)
    return root


def listing(root: Path, *, times: bool = False) -> dict[str, tuple[object, ...]]:
    """Every path under *root* with its type, permissions and content (or link target); with
    *times*, file modification times too (a run that rewrites a file unchanged shows up)."""
    out: dict[str, tuple[object, ...]] = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        rel = "/" + str(path.relative_to(root))
        if stat.S_ISLNK(st.st_mode):
            out[rel] = ("link", os.readlink(path))
        elif stat.S_ISDIR(st.st_mode):
            out[rel] = ("dir", stat.S_IMODE(st.st_mode))
        else:
            out[rel] = ("file", stat.S_IMODE(st.st_mode), path.read_bytes()) + ((st.st_mtime_ns,) if times else ())
    return out


def companion(*args: str, stdin: str | None = None, env: dict[str, str] | None = None,
              timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``companion ARGS``, given *timeout* desktop seconds (scaled); a hang fails with its stderr."""
    return run([sys.executable, "-m", "companion", *args], input=stdin, timeout_s=timeout,
               env={**os.environ, **(env or {})}, cwd=ROOT)


def verify_root(staged: Path, into: Path, programs: list[str]) -> Path:
    """A copy of *staged* with the system's own units and the programs the units run (empty
    stand-ins), so that ``systemd-analyze verify --root`` checks the kiosk's units in it."""
    shutil.copytree(staged, into, symlinks=True)
    for unit_dir in ("/usr/lib/systemd/system", "/lib/systemd/system"):
        if Path(unit_dir).is_dir() and not (into / unit_dir.lstrip("/")).exists():
            shutil.copytree(unit_dir, into / unit_dir.lstrip("/"), symlinks=True)
            break
    for program in programs:
        here = into / program.lstrip("/")
        here.parent.mkdir(parents=True, exist_ok=True)
        here.write_text("#!/bin/sh\n")
        here.chmod(0o755)
    return into


def systemd_analyze() -> str:
    found = shutil.which("systemd-analyze")
    if found is None:
        pytest.fail("systemd-analyze is missing: ./scripts/test installs it (Debian package systemd)")
    return found
