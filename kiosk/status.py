"""``companion kiosk status``: what is installed under a root, and whether each file is as installed.

On the Pi itself it also asks systemd about the service, and says whether the read-only overlay
is on and where the games are kept.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from kiosk import units
from kiosk.display import check_sdl
from kiosk.target import CMDLINES, Target, read_manifest, root_is_overlay, sha256_of


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
            state = "ok" if sha256_of(here.read_bytes()) == entry["sha256"] else "changed"
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
    if target.is_live and root_is_overlay():
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
