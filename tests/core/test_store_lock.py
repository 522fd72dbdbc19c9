"""One writer per database: the lock file beside it, held by a real other process, released by
the kernel on ``kill -9``; and the read-only opens (``export``, ``doctor``) beside a writer, on a
read-only disk, and on a path that holds nothing (they create nothing)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.store import Store, StoreLocked, StoreMissing
from tests.disks import SmallDisk, mounted_small_disk

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def small_disk() -> Iterator[SmallDisk]:
    yield from mounted_small_disk()

HOLDER = """
import sys
from companion.events import EventBus
from companion.games import dragons_gold
from companion.session import Player, TableSession
from companion.store import Store
from tests.conftest import FakeClock

store = Store.open(sys.argv[1])
s = TableSession.start(store, "dragons-gold", [Player("Anna", "red"), Player("Béla", "blue"), Player("Vika", "green")],
                       FakeClock(), EventBus(), boot="b")
s.set_score("Béla", "gold", 2)
s.finish_game(dragons_gold.score_document(s.score_document()))
print("ready", flush=True)
sys.stdin.read()  # holds the store (and its lock) until its stdin closes or it is killed
store.close()
"""


class Holder:
    """A real other process that opened the database as its writer and keeps it open."""

    def __init__(self, path: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], cwd=ROOT, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if line.strip() != "ready":
            self.proc.kill()
            _out, err = self.proc.communicate(timeout=30)
            raise AssertionError(f"the holder did not start: {err[-3000:]}")

    @property
    def pid(self) -> int:
        return self.proc.pid

    def kill_9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(30)

    def finish(self) -> None:
        """Let it close the store cleanly; it must exit 0."""
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        code = self.proc.wait(30)
        assert code == 0, self.proc.stderr.read()[-3000:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(30)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[Holder]:
    held = Holder(tmp_path / "data" / "c.sqlite3")
    try:
        yield held
    finally:
        held.stop()


def companion(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, timeout=60,
                          cwd=ROOT, env={**os.environ, **(env or {})})


def config_for(tmp_path: Path, database: Path) -> Path:
    config = tmp_path / "config.toml"
    config.write_text(f'[paths]\ndatabase = "{database}"\n')
    return config


@pytest.mark.slow
def test_store_second_writer_is_refused_naming_the_first_ones_pid(tmp_path: Path, holder: Holder) -> None:
    path = tmp_path / "data" / "c.sqlite3"
    with pytest.raises(StoreLocked) as info:
        Store.open(path)
    assert info.value.pid == holder.pid
    assert f"already running (pid {holder.pid})" in str(info.value)
    assert str(path) in str(info.value) and "\n" not in str(info.value)
    assert (tmp_path / "data" / "c.sqlite3.lock").read_text() == f"{holder.pid}\n"


@pytest.mark.slow
def test_store_after_kill_9_of_the_writer_a_new_one_opens(tmp_path: Path, holder: Holder) -> None:
    path = tmp_path / "data" / "c.sqlite3"
    holder.kill_9()  # no clean-up ran: the kernel let the lock go
    store = Store.open(path)
    try:
        assert (tmp_path / "data" / "c.sqlite3.lock").read_text() == f"{os.getpid()}\n"
        assert [r.game for r in store.sessions()] == ["dragons-gold"]  # what it saved is there
    finally:
        store.close()


def test_store_lock_is_per_open_even_in_one_process(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    first = Store.open(path)
    with pytest.raises(StoreLocked, match=rf"already running \(pid {os.getpid()}\)"):
        Store.open(path)
    first.close()
    assert (tmp_path / "c.sqlite3.lock").read_text() == ""  # closed: nobody's pid
    Store.open(path).close()


@pytest.mark.slow
def test_store_read_only_open_works_beside_the_writer(tmp_path: Path, holder: Holder) -> None:
    reader = Store.open_read_only(tmp_path / "data" / "c.sqlite3")
    try:
        assert [r.game for r in reader.sessions()] == ["dragons-gold"]
    finally:
        reader.close()


@pytest.mark.slow
def test_cli_export_and_doctor_work_beside_a_running_writer(tmp_path: Path, holder: Holder) -> None:
    database = tmp_path / "data" / "c.sqlite3"
    config = config_for(tmp_path, database)
    done = companion("export", "--config", str(config))
    assert done.returncode == 0, done.stderr
    assert [p["name"] for p in json.loads(done.stdout)["players"]] == ["Anna", "Béla", "Vika"]
    done = companion("doctor", "--json", "--config", str(config))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["database"] == {"path": str(database), "exists": True, "readable": True,
                                                   "sessions": 1, "error": None, "app_pid": holder.pid}
    holder.finish()  # the writer never noticed


@pytest.mark.slow
def test_cli_export_with_a_mistyped_path_creates_nothing(tmp_path: Path) -> None:
    typo = tmp_path / "dta" / "table-companion" / "companion.sqlite3"
    done = companion("export", "--config", str(config_for(tmp_path, typo)))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"companion: database {typo}: no such file, so it holds no finished play yet "
        "(is paths.database in the config right?)"]
    assert not (tmp_path / "dta").exists()


@pytest.mark.slow
def test_cli_doctor_on_a_missing_database_creates_nothing(tmp_path: Path) -> None:
    typo = tmp_path / "dta" / "companion.sqlite3"
    done = companion("doctor", "--json", "--config", str(config_for(tmp_path, typo)))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["database"]["exists"] is False
    assert not (tmp_path / "dta").exists()


def test_store_read_only_open_of_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StoreMissing, match=r"database .*nothing\.sqlite3: no such file$"):
        Store.open_read_only(tmp_path / "no" / "nothing.sqlite3")
    assert not (tmp_path / "no").exists()


@pytest.mark.slow
def test_cli_export_from_a_read_only_disk(tmp_path: Path, small_disk: SmallDisk, holder: Holder) -> None:
    """A copy of the database on a disk mounted read-only (a backup stick): export reads it."""
    holder.finish()
    copy = small_disk.path / "companion.sqlite3"
    copy.write_bytes((tmp_path / "data" / "c.sqlite3").read_bytes())
    small_disk.read_only()
    try:
        done = companion("export", "--format", "csv", "--config", str(config_for(tmp_path, copy)))
    finally:
        small_disk.read_write()
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith("date,") and len(done.stdout.splitlines()) == 4  # a row a player
    assert sorted(p.name for p in small_disk.path.iterdir()) == ["companion.sqlite3"]
