"""Writing the config file: atomic (synced, renamed, the folder synced), and never readable by
others once it holds the admin PIN's hash."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from companion import atomic
from companion.config import save_settings
from companion.errors import ConfigError
from kiosk.pin import CONFIG_MIN_COST_N, hash_pin

ROOT = Path(__file__).resolve().parents[2]
OLD = "# the host's table\n[timer]\ntick_hz = 5\n"


def set_pin(config: Path, pin: str) -> None:
    """``companion kiosk set-pin --config CONFIG`` with *pin* on standard input; its stderr shows if it fails."""
    done = subprocess.run([sys.executable, "-m", "companion", "kiosk", "set-pin", "--config", str(config)],
                          input=pin + "\n", capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert (done.returncode, done.stderr) == (0, "")


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(scope="module")
def stored_hash() -> str:
    return hash_pin("2468", cost_n=CONFIG_MIN_COST_N)


def test_config_write_syncs_the_data_before_the_rename_and_the_folder_after(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "config.toml"
    path.write_text(OLD)
    calls: list[tuple[str, str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            calls.append(("fsync folder", str(tmp_path) if os.path.samestat(st, tmp_path.stat()) else "?"))
        else:  # what the file holds when it is synced
            calls.append(("fsync file", os.pread(fd, st.st_size, 0).decode()))
        real_fsync(fd)

    def replace(src: str | Path, dst: str | Path) -> None:
        calls.append(("replace", f"{Path(src).parent == tmp_path} -> {dst}"))
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    save_settings(path, {"timer.tick_hz": 8})
    new_text = path.read_text()
    assert "tick_hz = 8" in new_text and "# the host's table" in new_text
    assert calls == [("fsync file", new_text), ("replace", f"True -> {path}"), ("fsync folder", str(tmp_path))]


@pytest.mark.parametrize("failing", ["write", "fsync", "replace"])
def test_config_write_that_fails_leaves_the_old_file_and_no_temp_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(OLD)
    path.chmod(0o640)
    before = (path.read_bytes(), mode_of(path))

    def full(*_: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, failing, full)
    with pytest.raises(ConfigError) as info:
        save_settings(path, {"timer.tick_hz": 8})
    monkeypatch.undo()
    assert str(info.value) == f"config {path}: cannot write it (No space left on device)"
    assert (path.read_bytes(), mode_of(path)) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml"]


def test_config_write_new_file_is_0600(tmp_path: Path) -> None:
    path = tmp_path / "new" / "config.toml"
    save_settings(path, {"ui.language": "hu"})
    assert mode_of(path) == 0o600


def test_config_write_with_the_hash_shuts_others_out_of_a_readable_file(tmp_path: Path, stored_hash: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(OLD)
    path.chmod(0o644)
    save_settings(path, {"ui.language": "hu"})  # no hash: the host's mode stays
    assert mode_of(path) == 0o644
    save_settings(path, {"ui.admin_pin_hash": stored_hash})
    assert mode_of(path) == 0o600
    save_settings(path, {"ui.language": "ru"})
    assert mode_of(path) == 0o600


def test_config_write_with_the_hash_shuts_the_group_out_too(tmp_path: Path, stored_hash: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(OLD)
    path.chmod(0o640)  # an older kiosk install's: its user and that user's group
    save_settings(path, {"ui.language": "hu"})  # no hash: the host's mode stays
    assert mode_of(path) == 0o640
    save_settings(path, {"ui.admin_pin_hash": stored_hash})
    assert mode_of(path) == 0o600


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_config_write_by_root_keeps_the_owner(tmp_path: Path, stored_hash: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(OLD)
    path.chmod(0o644)
    os.chown(path, 4321, 4322)
    save_settings(path, {"ui.admin_pin_hash": stored_hash})
    st = path.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (4321, 4322, 0o600)


@pytest.mark.slow
def test_config_set_pin_creates_a_0600_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    set_pin(path, "86420")
    assert mode_of(path) == 0o600


@pytest.mark.slow
def test_config_set_pin_tightens_a_world_readable_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(OLD)
    path.chmod(0o644)
    set_pin(path, "86420")
    assert mode_of(path) == 0o600 and "tick_hz = 5" in path.read_text()


def test_atomic_write_leaves_no_temp_file_when_the_folder_is_gone(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        atomic.write_atomic(tmp_path / "gone" / "f.json", b"{}")
    assert list(tmp_path.iterdir()) == []
