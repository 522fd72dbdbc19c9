"""The kiosk's PIN pad across a restart of the app: a lock-out goes on where it was."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from kiosk.pin import TRIES_FILE
from tests.kiosk.conftest import ROOT
from tests.kiosk.test_kiosk_app import kiosk_files, no_errors, results

DRIVER = Path(__file__).with_name("pin_driver.py")


@pytest.mark.slow
def test_kiosk_app_lockout_goes_on_after_a_restart(tmp_path: Path, display: str) -> None:
    config, ini, env = kiosk_files(tmp_path)
    for journey in ("lock_out", "after_restart"):  # two starts of the app, one data folder
        done = subprocess.run([sys.executable, str(DRIVER), journey, str(config), str(ini)], capture_output=True,
                              text=True, timeout=120, cwd=ROOT, env={**os.environ, **env, "DISPLAY": display})
        assert done.returncode == 0, done.stderr[-3000:]
        no_errors(done.stderr)
        assert results(done.stdout) == [{"ok": True}], done.stderr[-3000:]
    assert stat.S_IMODE((config.parent / TRIES_FILE).stat().st_mode) == 0o600  # beside the database
