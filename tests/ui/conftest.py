"""The UI tests need an X display: the test command runs them under xvfb-run; run alone, this
starts an Xvfb itself (or skips, saying how to get one)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def display() -> Iterator[str]:
    if os.environ.get("DISPLAY"):
        yield os.environ["DISPLAY"]
        return
    if shutil.which("Xvfb") is None:
        pytest.skip("no display and no Xvfb: run ./scripts/test, which installs and starts one")
    number = 90 + os.getpid() % 100
    proc = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "1280x1280x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(50):
        if Path(f"/tmp/.X11-unix/X{number}").exists():
            break
        time.sleep(0.1)
    try:
        yield f":{number}"
    finally:
        proc.terminate()
        proc.wait(5)
