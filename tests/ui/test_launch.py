"""The touch app's camera wiring (companion/ui/launch.py): one camera for the edge check and the
piece reader, one question at a time, its errors as one line. No window needed."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from companion.config import Config, load_config
from companion.errors import CompanionError, NotRegistered
from companion.ui.launch import CameraCalls, make_piece_reader
from tests.slowdown import scaled
from vision.errors import CalibrationError


def config_with(tmp_path: Path, camera: str) -> Config:
    path = tmp_path / "config.toml"
    path.write_text(f'[camera]\nsource = "{camera}"\n[paths]\ndatabase = "{tmp_path / "db.sqlite3"}"\n')
    return load_config(path)


def test_camera_calls_turn_a_vision_error_into_one_line() -> None:
    class Camera:
        def read_pieces(self) -> dict[str, Any]:
            raise CalibrationError("no piece library yet: register the pieces\nsecond line")

    with pytest.raises(CompanionError) as caught:
        CameraCalls(Camera()).read_pieces()
    assert str(caught.value) == "no piece library yet: register the pieces"


def test_camera_calls_ask_the_camera_one_question_at_a_time() -> None:
    inside, release, asking = threading.Event(), threading.Event(), threading.Event()
    order: list[str] = []

    class Camera:
        def check(self) -> dict[str, Any]:
            order.append("check in")
            inside.set()
            assert release.wait(scaled(10))
            order.append("check out")
            return {}

        def read_pieces(self) -> dict[str, Any]:
            order.append("read")
            return {}

    calls = CameraCalls(Camera())
    first = threading.Thread(target=calls.check)
    first.start()
    assert inside.wait(scaled(10))

    def read() -> None:
        asking.set()
        calls.read_pieces()  # waits for the check: the camera gives one frame at a time

    second = threading.Thread(target=read)
    second.start()
    assert asking.wait(scaled(10))
    release.set()
    first.join(scaled(10))
    second.join(scaled(10))
    assert order == ["check in", "check out", "read"]


def test_no_piece_reader_without_a_camera(tmp_path: Path) -> None:
    assert make_piece_reader(config_with(tmp_path, "none"), []) is None


def test_the_piece_reader_says_in_one_line_that_the_library_is_missing(tmp_path: Path) -> None:
    import cv2
    import numpy as np

    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), np.zeros((48, 64, 3), np.uint8))
    reader = make_piece_reader(config_with(tmp_path, str(photo)), [])
    assert reader is not None
    with pytest.raises(NotRegistered, match=r"^no piece library yet: register the pieces with") as caught:
        reader()
    assert "\n" not in str(caught.value) and str(tmp_path / "vision" / "library") in str(caught.value)


def test_the_piece_reader_says_first_that_the_camera_is_missing(tmp_path: Path) -> None:
    reader = make_piece_reader(config_with(tmp_path, "/dev/video97"), [])  # no such camera, no library
    assert reader is not None
    with pytest.raises(CompanionError) as caught:
        reader()
    assert not isinstance(caught.value, NotRegistered)
    assert "/dev/video97" in str(caught.value) and "\n" not in str(caught.value), caught.value
