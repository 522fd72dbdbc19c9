"""Frame sources: real image and video files written by OpenCV, open_source's rules, retrying."""

from __future__ import annotations

import importlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.conftest import FakeClock
from vision import sources
from vision.errors import CameraUnavailable, VisionError
from vision.sources import (
    FrameSource,
    ImageSource,
    RetryingSource,
    StaticSource,
    VideoDeviceSource,
    VideoFileSource,
    open_source,
)


def _frame(value: int, size: tuple[int, int] = (64, 48)) -> np.ndarray:
    """A BGR frame whose blue channel is *value* (kept apart from green and red)."""
    w, h = size
    frame = np.zeros((h, w, 3), dtype=np.uint8)
    frame[:, :, 0] = value
    frame[:, :, 2] = 255 - value
    return frame


def _write_video(path: Path, values: list[int], size: tuple[int, int] = (64, 48)) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, size)
    assert writer.isOpened(), "this OpenCV cannot write MJPG .avi"
    for v in values:
        writer.write(_frame(v, size))
    writer.release()
    return path


def _blue(frame: np.ndarray) -> float:
    return float(frame[:, :, 0].mean())


def _one_line(exc: pytest.ExceptionInfo[CameraUnavailable]) -> str:
    message = str(exc.value)
    assert message and "\n" not in message
    return message


# --- ImageSource -------------------------------------------------------------------------

@pytest.mark.parametrize("suffix", [".png", ".jpg", ".bmp", ".tiff", ".webp"])
def test_image_source_reads_bgr_uint8_frame(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"table{suffix}"
    assert cv2.imwrite(str(path), _frame(200))
    with ImageSource(path) as source:
        frame = source.read()
    assert frame.shape == (48, 64, 3) and frame.dtype == np.uint8
    assert abs(_blue(frame) - 200) < 4 and abs(float(frame[:, :, 2].mean()) - 55) < 4


def test_image_source_gray_file_becomes_three_channels(tmp_path: Path) -> None:
    path = tmp_path / "gray.png"
    cv2.imwrite(str(path), np.full((10, 20), 90, dtype=np.uint8))
    assert ImageSource(path).read().shape == (10, 20, 3)


def test_image_source_read_returns_a_copy(tmp_path: Path) -> None:
    path = tmp_path / "a.png"
    cv2.imwrite(str(path), _frame(10))
    source = ImageSource(path)
    source.read()[:] = 0
    assert _blue(source.read()) == 10


def test_image_source_missing_file_raises_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "nope.png"
    with pytest.raises(CameraUnavailable) as exc:
        ImageSource(path)
    assert repr(str(path)) in _one_line(exc)


def test_image_source_corrupt_file_raises_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "broken.png"
    path.write_bytes(b"not a png at all")
    with pytest.raises(CameraUnavailable, match="broken.png.*not an image") as exc:
        ImageSource(path)
    _one_line(exc)


def test_image_source_read_after_close_raises(tmp_path: Path) -> None:
    path = tmp_path / "a.png"
    cv2.imwrite(str(path), _frame(10))
    with ImageSource(path) as source:
        pass
    with pytest.raises(CameraUnavailable, match="closed"):
        source.read()


# --- VideoFileSource ---------------------------------------------------------------------

def test_video_file_source_loops_back_to_first_frame(tmp_path: Path) -> None:
    path = _write_video(tmp_path / "clip.avi", [0, 100, 200])
    with VideoFileSource(path) as source:
        blues = [_blue(source.read()) for _ in range(7)]
    assert [round(b / 100) for b in blues] == [0, 1, 2, 0, 1, 2, 0]


def test_video_file_source_without_loop_raises_at_end(tmp_path: Path) -> None:
    path = _write_video(tmp_path / "clip.avi", [0, 100])
    source = VideoFileSource(path, loop=False)
    source.read()
    source.read()
    with pytest.raises(CameraUnavailable, match="ended after 2 frames") as exc:
        source.read()
    assert "clip.avi" in _one_line(exc)
    source.close()


def test_video_file_source_missing_file_raises_naming_it(tmp_path: Path) -> None:
    with pytest.raises(CameraUnavailable, match="missing.avi.*no such file"):
        VideoFileSource(tmp_path / "missing.avi")


def test_video_file_source_garbage_file_raises(tmp_path: Path) -> None:
    path = tmp_path / "garbage.avi"
    path.write_bytes(b"\x00" * 1000)
    with pytest.raises(CameraUnavailable, match="garbage.avi") as exc:
        VideoFileSource(path).read()
    _one_line(exc)


# --- StaticSource ------------------------------------------------------------------------

def test_static_source_cycles_through_frames() -> None:
    source = StaticSource([_frame(1), _frame(2), _frame(3)])
    assert [_blue(source.read()) for _ in range(5)] == [1, 2, 3, 1, 2]
    assert source.describe() == "3 static frames"


def test_static_source_empty_raises_camera_unavailable() -> None:
    with pytest.raises(CameraUnavailable, match="none were given"):
        StaticSource([]).read()


def test_static_source_rejects_frame_that_is_not_bgr_uint8() -> None:
    with pytest.raises(ValueError, match=r"frames\[1\]"):
        StaticSource([_frame(1), np.zeros((4, 4), dtype=np.uint8)])


# --- VideoDeviceSource -------------------------------------------------------------------

def test_video_device_source_missing_path_raises(tmp_path: Path) -> None:
    with pytest.raises(CameraUnavailable, match="/dev/video97.*no such device") as exc:
        VideoDeviceSource("/dev/video97")
    _one_line(exc)


def test_video_device_source_not_a_device_raises(tmp_path: Path) -> None:
    not_a_camera = tmp_path / "video0"
    not_a_camera.write_bytes(b"")
    with pytest.raises(CameraUnavailable, match="cannot open it") as exc:
        VideoDeviceSource(str(not_a_camera))
    _one_line(exc)


def test_camera_unavailable_is_vision_error_and_oserror() -> None:
    with pytest.raises(CameraUnavailable) as exc:
        VideoDeviceSource("/dev/video97")
    assert isinstance(exc.value, VisionError) and isinstance(exc.value, OSError)


# --- open_source ---------------------------------------------------------------------------

def test_open_source_none_raises_no_camera_configured() -> None:
    with pytest.raises(CameraUnavailable) as exc:
        open_source("none")
    assert _one_line(exc) == "no camera configured"


@pytest.mark.parametrize("name", ["table.png", "table.JPG", "table.jpeg", "t.bmp", "t.tif", "t.webp"])
def test_open_source_image_suffix_gives_image_source(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    ext = ".jpg" if path.suffix.lower() in (".jpg", ".jpeg") else path.suffix.lower()
    ok, data = cv2.imencode(ext, _frame(50))
    assert ok
    path.write_bytes(data.tobytes())
    with open_source(str(path)) as source:
        assert isinstance(source, ImageSource)
        assert source.read().shape == (48, 64, 3)


def test_open_source_other_file_gives_video_file_source(tmp_path: Path) -> None:
    path = _write_video(tmp_path / "clip.avi", [0, 100])
    with open_source(str(path)) as source:
        assert isinstance(source, VideoFileSource) and source.loop
        assert source.read().shape == (48, 64, 3)


def test_open_source_dev_path_goes_to_video_device() -> None:
    with pytest.raises(CameraUnavailable, match="video device '/dev/video97': no such device"):
        open_source("/dev/video97")


def test_open_source_digits_go_to_video_device_index(monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[object] = []

    class FakeDevice(StaticSource):
        def __init__(self, device: int | str, size: tuple[int, int] | None = None) -> None:
            opened.append((device, size))
            super().__init__([_frame(0)])

    monkeypatch.setattr(sources, "VideoDeviceSource", FakeDevice)
    open_source("2", size=(640, 480))
    open_source("/dev/video3")
    assert opened == [(2, (640, 480)), ("/dev/video3", None)]


@pytest.mark.parametrize("spec", ["", "webcam", "/no/such/file.png", "nope.mp4"])
def test_open_source_bad_spec_raises_naming_it(spec: str) -> None:
    with pytest.raises(CameraUnavailable) as exc:
        open_source(spec)
    assert repr(spec) in _one_line(exc)


def test_open_source_auto_without_any_camera_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sources, "has_picamera", lambda: False)
    monkeypatch.setattr(sources, "list_video_devices", lambda: [])
    with pytest.raises(CameraUnavailable, match="no camera found") as exc:
        open_source("auto")
    _one_line(exc)


def test_open_source_auto_skips_pi_pipeline_nodes_and_broken_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    tried: list[object] = []

    class FakeDevice(StaticSource):
        def __init__(self, device: int | str, size: tuple[int, int] | None = None) -> None:
            tried.append(device)
            super().__init__([] if device == "/dev/video1" else [_frame(7)])   # video1: metadata node

    monkeypatch.setattr(sources, "has_picamera", lambda: False)
    monkeypatch.setattr(sources, "VideoDeviceSource", FakeDevice)
    monkeypatch.setattr(sources, "list_video_devices", lambda: [
        {"device": "/dev/video0", "name": "pispbe"},
        {"device": "/dev/video1", "name": "USB Camera: metadata"},
        {"device": "/dev/video2", "name": "USB Camera"},
    ])
    source = open_source("auto")
    assert tried == ["/dev/video1", "/dev/video2"]
    assert _blue(source.read()) == 7


def test_picamera2_source_without_picamera2_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = importlib.import_module

    def no_picamera(name: str) -> object:
        if name in ("picamera2", "libcamera"):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return real_import(name)

    monkeypatch.setattr(importlib, "import_module", no_picamera)
    with pytest.raises(CameraUnavailable, match="python3-picamera2") as exc:
        sources.Picamera2Source()
    _one_line(exc)
    assert not sources.has_picamera()


# --- RetryingSource ------------------------------------------------------------------------

class _Opener:
    """An open_fn that fails while ``.fail`` is true and otherwise opens frames valued 1, 2, ..."""

    def __init__(self, fail: bool) -> None:
        self.fail = fail
        self.calls = 0
        self.opened: list[_FlakySource] = []

    def __call__(self) -> FrameSource:
        self.calls += 1
        if self.fail:
            raise CameraUnavailable("no camera found (unplugged)")
        source = _FlakySource(len(self.opened) + 1)
        self.opened.append(source)
        return source


class _FlakySource(StaticSource):
    def __init__(self, value: int) -> None:
        super().__init__([_frame(value)])
        self.broken = False
        self.closed = False

    def read(self) -> np.ndarray:
        if self.broken:
            raise CameraUnavailable("video device '/dev/video0': gave no frame (unplugged?)")
        return super().read()

    def close(self) -> None:
        self.closed = True
        super().close()


def test_retrying_source_retries_at_most_every_retry_s(clock: FakeClock) -> None:
    opener = _Opener(fail=True)
    source = RetryingSource(opener, retry_s=2.0, clock=clock.now)
    assert not source.is_available and "unplugged" in str(source.last_error)
    for _ in range(3):                                  # no time passed: no new attempt
        with pytest.raises(CameraUnavailable, match="unplugged"):
            source.read()
    assert opener.calls == 1
    clock.advance(1.9)
    with pytest.raises(CameraUnavailable):
        source.read()
    assert opener.calls == 1
    clock.advance(0.1)
    with pytest.raises(CameraUnavailable):
        source.read()
    assert opener.calls == 2


def test_retrying_source_notices_camera_coming_back(clock: FakeClock) -> None:
    opener = _Opener(fail=True)
    source = RetryingSource(opener, retry_s=2.0, clock=clock.now)
    opener.fail = False
    clock.advance(2.0)
    assert _blue(source.read()) == 1
    assert source.is_available and source.last_error is None


def test_retrying_source_closes_lost_source_and_reopens_later(clock: FakeClock) -> None:
    opener = _Opener(fail=False)
    source = RetryingSource(opener, retry_s=2.0, clock=clock.now)
    assert source.is_available and _blue(source.read()) == 1
    opener.opened[0].broken = True
    with pytest.raises(CameraUnavailable, match="gave no frame"):
        source.read()
    assert opener.opened[0].closed and not source.is_available
    assert "gave no frame" in str(source.last_error)
    clock.advance(2.0)
    assert _blue(source.read()) == 2
    assert opener.calls == 2


def test_retrying_source_logs_loss_once(clock: FakeClock, caplog: pytest.LogCaptureFixture) -> None:
    source = RetryingSource(_Opener(fail=True), retry_s=1.0, clock=clock.now)
    for _ in range(3):
        clock.advance(1.0)
        with pytest.raises(CameraUnavailable):
            source.read()
    warnings = [r for r in caplog.records if r.name == "vision.sources" and r.levelname == "WARNING"]
    assert len(warnings) == 1


def test_retrying_source_close_closes_inner_and_stops_reading(clock: FakeClock) -> None:
    opener = _Opener(fail=False)
    with RetryingSource(opener, clock=clock.now) as source:
        source.read()
    assert opener.opened[0].closed
    clock.advance(100.0)
    with pytest.raises(CameraUnavailable, match="closed"):
        source.read()
    assert opener.calls == 1


def test_retrying_source_describe_says_why_and_when(clock: FakeClock) -> None:
    source = RetryingSource(_Opener(fail=True), retry_s=2.0, clock=clock.now)
    assert source.describe() == "no camera (no camera found (unplugged)); retrying every 2 s"
