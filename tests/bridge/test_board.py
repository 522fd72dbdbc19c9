"""firmware_bridge.board: which board this is, from the device-tree model files."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_bridge import board


@pytest.fixture
def model_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """The two model files board.py reads, as temporary paths that do not exist yet."""
    files = (tmp_path / "proc-device-tree-model", tmp_path / "sys-firmware-devicetree-base-model")
    monkeypatch.setattr(board, "MODEL_FILES", files)
    return files


def test_board_model_at_the_second_path_alone_is_found(model_files: tuple[Path, Path]) -> None:
    model_files[1].write_bytes(b"Raspberry Pi 4 Model B Rev 1.5\0")
    assert board.board_model() == "Raspberry Pi 4 Model B Rev 1.5"
    assert board.is_raspberry_pi()


def test_board_model_reads_the_first_path_first(model_files: tuple[Path, Path]) -> None:
    model_files[0].write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\0")
    model_files[1].write_bytes(b"Raspberry Pi 4 Model B Rev 1.5\0")
    assert board.board_model() == "Raspberry Pi 5 Model B Rev 1.0"


def test_board_without_model_files_is_not_a_pi(model_files: tuple[Path, Path]) -> None:
    assert board.board_model() is None
    assert not board.is_raspberry_pi()


def test_board_other_device_tree_board_is_not_a_pi(model_files: tuple[Path, Path]) -> None:
    model_files[0].write_bytes(b"Radxa ROCK 5B\0")
    assert board.board_model() == "Radxa ROCK 5B"
    assert not board.is_raspberry_pi()
