"""The database under the running app (tests/ui/journeys/storage.py): a disk that fills mid-game
and gets room again, and two apps started on one database."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.store import Store
from tests.disks import SmallDisk, mounted_small_disk
from tests.ui.test_journeys import ROOT, drive, scratch

LONG = '[timer.presets]\nnegotiation = 600\n'


pytestmark = pytest.mark.slow


@pytest.fixture
def small_disk() -> Iterator[SmallDisk]:
    yield from mounted_small_disk()


def _on(database: Path) -> str:
    return f'{LONG}[paths]\ndatabase = "{database}"\n'


def _saved(database: Path, session: int) -> list[str]:
    store = Store.open_read_only(database)
    try:
        return [e.kind for e in store.events(session)]
    finally:
        store.close()


def test_ui_full_disk_shows_a_banner_and_saves_once_there_is_room(tmp_path: Path, display: str,
                                                                   small_disk: SmallDisk) -> None:
    database = small_disk.path / "companion.sqlite3"
    [out] = drive("full_disk_banner_until_room", scratch(tmp_path, _on(database)), display)
    assert out["ok"] and out["saved"][-1] == "timer.toggle"
    assert _saved(database, out["session"]) == out["saved"]  # and it is all there after the app closed


def test_ui_page_limit_full_shows_a_banner_and_saves_once_there_is_room(tmp_path: Path, display: str) -> None:
    database = tmp_path / "data" / "companion.sqlite3"
    [out] = drive("page_limit_banner_until_room", scratch(tmp_path, _on(database)), display)
    assert out["ok"] and _saved(database, out["session"]) == out["saved"]


def test_ui_second_app_on_one_database_exits_2_naming_the_first(tmp_path: Path, display: str) -> None:
    """Two real `companion app` processes on one database: the second stops with the first's pid
    (before it opens a window); after `kill -9` of the first, a new start works."""
    database = tmp_path / "data" / "companion.sqlite3"
    folders = scratch(tmp_path, _on(database))
    env = {**os.environ, **folders, "DISPLAY": display, "SDL_AUDIODRIVER": "dummy"}
    app = [sys.executable, "-m", "companion", "app", "--gpio", "off", "--size", "800x480"]
    first_err = tmp_path / "first.stderr"
    with first_err.open("w") as err:
        first = subprocess.Popen(app, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err)
    try:
        lock = Path(f"{database}.lock")
        deadline = time.monotonic() + 90
        while not (lock.exists() and lock.read_text().strip() == str(first.pid)):
            assert first.poll() is None, f"the first app ended: {first_err.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"the first app did not start: {first_err.read_text()[-3000:]}"
            time.sleep(0.1)
        second = subprocess.run(app, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        assert second.returncode == 2, second.stderr[-3000:]
        assert second.stderr.strip().splitlines() == [
            f"companion: database {database}: the app is already running (pid {first.pid}); one app at a "
            "time writes a database (`companion export` and `companion doctor` work beside it)"]
        assert first.poll() is None  # the first plays on
        first.send_signal(signal.SIGKILL)
        first.wait(30)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait(30)
    [out] = drive("starts_and_saves", folders, display)  # the same config, so the same database
    assert out["ok"] and _saved(database, out["session"])[-1] == "timer.toggle"
