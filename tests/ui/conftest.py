"""The UI tests need an X display: the test command runs them under xvfb-run; run alone, this
starts an Xvfb itself (or skips, saying how to get one). The app's journeys on a venue's broker
use the venue tests' broker fixtures (tests/venue/conftest.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.processes import tail
from tests.slowdown import scaled
from tests.venue.conftest import broker, connect, listen  # noqa: F401 - fixtures for tests/ui too


@pytest.fixture(scope="session")
def display() -> Iterator[str]:
    if os.environ.get("DISPLAY"):
        yield os.environ["DISPLAY"]
        return
    if shutil.which("Xvfb") is None:
        pytest.skip("no display and no Xvfb: run ./scripts/test, which installs and starts one")
    number = 90 + os.getpid() % 100
    log = tempfile.TemporaryFile()  # noqa: SIM115 - Xvfb's stderr, read if it fails to start
    proc = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "1280x1280x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + scaled(20)
    while not Path(f"/tmp/.X11-unix/X{number}").exists():  # its socket: the server is up
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            proc.wait()
            log.seek(0)
            pytest.fail(f"Xvfb :{number} did not come up; its stderr:\n{tail(log.read())}")
        time.sleep(0.05)
    try:
        yield f":{number}"
    finally:
        proc.terminate()
        proc.wait(scaled(5))
        log.close()
