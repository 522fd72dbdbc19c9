"""Frame sources for the overhead camera: a V4L2 device, a Pi camera, an image, a video, frames.

Every source hands out BGR ``uint8`` frames of shape (h, w, 3) from :meth:`FrameSource.read`
and raises :class:`~vision.errors.CameraUnavailable`, with a one-line message, when it has
none to give. :func:`open_source` turns the configured camera string into a source, and
:class:`RetryingSource` keeps the app running without a camera and notices when one comes
back.

A source is not thread-safe: one thread (the one that reads frames) owns it, from opening
to :meth:`FrameSource.close`.
"""

from __future__ import annotations

import logging
import math
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import cv2
import numpy as np

from vision.devices import list_video_devices
from vision.errors import CameraUnavailable
from vision.image_files import ImageFileError, decode_image
from vision.picamera import Picamera2Missing, import_picamera2

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
# /dev/video* nodes that belong to a Pi's camera pipeline or codecs rather than to a camera
# V4L2 can stream from directly: libcamera (Picamera2Source) drives those, and opening them
# here at best fails and at worst blocks a read until V4L2's timeout.
_NOT_A_CAMERA = ("rp1-cfe", "pispbe", "bcm2835-codec", "bcm2835-isp", "unicam", "rpivid", "hevc")

Size = tuple[int, int]  # (width, height) in px


def _as_bgr(frame: Any, where: str) -> np.ndarray:
    """A frame as a contiguous BGR uint8 (h, w, 3) array. :raises CameraUnavailable: for anything else."""
    if not isinstance(frame, np.ndarray) or frame.size == 0:
        raise CameraUnavailable(f"{where}: gave no image")
    if frame.dtype != np.uint8:
        raise CameraUnavailable(f"{where}: gave {frame.dtype} pixels, expected uint8")
    if frame.ndim == 2:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    elif frame.ndim == 3 and frame.shape[2] == 4:
        frame = cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    if frame.ndim != 3 or frame.shape[2] != 3:
        raise CameraUnavailable(f"{where}: gave an image of shape {frame.shape}, expected (h, w, 3)")
    return np.ascontiguousarray(frame)


def _check_size(size: Sequence[int]) -> Size:
    if len(size) != 2 or not all(isinstance(v, int) and v > 0 for v in size):
        raise ValueError(f"size: must be (width, height) in whole px, both positive (got {size!r})")
    return (int(size[0]), int(size[1]))


class FrameSource(ABC):
    """Where frames come from. A context manager that closes the source on exit.

    One thread owns a source (the one that reads frames).
    """

    @abstractmethod
    def read(self) -> np.ndarray:
        """The next frame: BGR uint8, shape (h, w, 3).

        :raises CameraUnavailable: when no frame can be had, with a one-line message.
        """

    @abstractmethod
    def close(self) -> None:
        """Let go of the camera or file. Safe to call twice; reading afterwards raises."""

    @abstractmethod
    def describe(self) -> str:
        """A short human description, for logs and the status strip."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.describe()}>"


class VideoDeviceSource(FrameSource):
    """A V4L2 camera (a USB webcam, or anything else at ``/dev/videoN``) through OpenCV.

    *device* is an index (``0`` for ``/dev/video0``) or a device path; *size* asks the
    driver for (width, height) px, which it may round to a mode it has (see :meth:`describe`).

    :raises CameraUnavailable: when the device does not exist or will not open.
    """

    def __init__(self, device: int | str, size: Size | None = None) -> None:
        self.device = device
        self.size = None if size is None else _check_size(size)
        self._cap: cv2.VideoCapture | None = None
        self._name = f"/dev/video{device}" if isinstance(device, int) else device
        if isinstance(device, int) and device < 0:
            raise CameraUnavailable(f"video device {device!r}: must be a number from 0")
        if isinstance(device, str) and not Path(device).exists():
            raise CameraUnavailable(f"video device {device!r}: no such device (is the camera plugged in?)")
        # V4L2 directly on Linux: OpenCV's default order may try GStreamer or FFmpeg first,
        # which open slower and ignore the requested size.
        api = cv2.CAP_V4L2 if sys.platform.startswith("linux") else cv2.CAP_ANY
        cap = cv2.VideoCapture(device, api)
        if not cap.isOpened():
            cap.release()
            raise CameraUnavailable(f"video device {self._name!r}: cannot open it (not a camera, in use by "
                                    "another program, or no permission: is the user in the 'video' group?)")
        if self.size is not None:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        self._cap = cap

    def read(self) -> np.ndarray:
        """The next frame from the camera (blocks until the driver has one). :raises CameraUnavailable:"""
        if self._cap is None:
            raise CameraUnavailable(f"video device {self._name!r}: closed")
        ok, frame = self._cap.read()
        if not ok or frame is None:
            raise CameraUnavailable(f"video device {self._name!r}: gave no frame (unplugged?)")
        return _as_bgr(frame, f"video device {self._name!r}")

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None

    def describe(self) -> str:
        if self._cap is None:
            return f"camera {self._name} (closed)"
        w = int(self._cap.get(cv2.CAP_PROP_FRAME_WIDTH))
        h = int(self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
        return f"camera {self._name} at {w}x{h} px"


def _import_picamera2() -> tuple[Any, Any]:
    """``(Picamera2, libcamera.controls)``.

    :raises CameraUnavailable: one line saying why picamera2 does not load: not installed, built
        for another numpy than this Python's, or otherwise broken (see :mod:`vision.picamera`).
    """
    return import_picamera2()


_warned_picamera: set[str] = set()


def has_picamera() -> bool:
    """True when picamera2 imports and libcamera sees at least one camera attached.

    picamera2 installed but not loading (another numpy's build, a missing libcamera) is logged
    once at WARNING, with its fix; picamera2 not installed at all is the usual case off a Pi.
    """
    try:
        picamera2_cls, _ = _import_picamera2()
    except Picamera2Missing:
        return False
    except CameraUnavailable as exc:
        if str(exc) not in _warned_picamera:
            _warned_picamera.add(str(exc))
            log.warning("Raspberry Pi camera: %s", exc)
        return False
    try:
        return bool(picamera2_cls.global_camera_info())
    except Exception:  # libcamera fails in its own ways (RuntimeError, OSError...)
        return False


class Picamera2Source(FrameSource):
    """A Raspberry Pi camera (CSI) through Picamera2 and libcamera.

    Frames are asked for in ``RGB888``, which libcamera lays out in memory as B, G, R: the
    arrays are already in OpenCV's BGR order.

    The Camera Module 3 focuses by itself. A lens calibration holds only for the focus it
    was made at, so for the overhead camera pass *lens_position* (dioptres: 1 / distance in
    metres, e.g. ``1.0`` for a table 1 m below) to lock focus in manual mode; the default
    None leaves the camera's focus alone. Cameras without autofocus ignore it.

    Only on a Pi with Debian's python3-picamera2; this module imports fine without it.

    :raises CameraUnavailable: without python3-picamera2, with no camera attached, or when
        libcamera will not start the camera.
    """

    def __init__(self, size: Size = (1920, 1080), *, lens_position: float | None = None,
                 camera_num: int = 0) -> None:
        if lens_position is not None and not (math.isfinite(lens_position) and lens_position >= 0):
            raise ValueError(f"lens_position: must be a dioptre value from 0 (got {lens_position!r})")
        self.size = _check_size(size)
        self.lens_position = lens_position
        self.camera_num = camera_num
        picamera2_cls, controls = _import_picamera2()
        self._cam: Any = None
        try:
            if camera_num >= len(picamera2_cls.global_camera_info()):
                raise CameraUnavailable(f"Raspberry Pi camera {camera_num}: not attached "
                                        "(check the ribbon cable)")
            self._cam = picamera2_cls(camera_num)
            config = self._cam.create_video_configuration(main={"size": self.size, "format": "RGB888"})
            self._cam.configure(config)
            if "AfMode" in self._cam.camera_controls:
                if lens_position is not None:
                    self._cam.set_controls({"AfMode": controls.AfModeEnum.Manual,
                                            "LensPosition": lens_position})
                else:
                    log.warning("Raspberry Pi camera %d: autofocus left on; a lens calibration holds only "
                                "with focus locked (set lens_position)", camera_num)
            self._cam.start()
        except CameraUnavailable:
            self.close()
            raise
        except Exception as exc:  # libcamera fails in its own ways (RuntimeError, IndexError, OSError...)
            self.close()
            raise CameraUnavailable(f"Raspberry Pi camera {camera_num}: cannot start it ({exc})") from None

    def read(self) -> np.ndarray:
        """The next frame from the camera (blocks until one is ready). :raises CameraUnavailable:"""
        if self._cam is None:
            raise CameraUnavailable(f"Raspberry Pi camera {self.camera_num}: closed")
        try:
            frame = self._cam.capture_array("main")
        except Exception as exc:  # libcamera fails in its own ways; any of them means no frame
            raise CameraUnavailable(f"Raspberry Pi camera {self.camera_num}: gave no frame ({exc})") from None
        return _as_bgr(frame, f"Raspberry Pi camera {self.camera_num}")

    def close(self) -> None:
        cam, self._cam = self._cam, None
        if cam is None:
            return
        try:
            cam.stop()
            cam.close()
        except Exception:  # closing a camera that already failed can fail too; nothing to do
            log.debug("closing Raspberry Pi camera %d failed", self.camera_num, exc_info=True)

    def describe(self) -> str:
        w, h = self.size
        focus = ("autofocus" if self.lens_position is None
                 else f"focus locked at {self.lens_position} dioptres")
        state = "" if self._cam is not None else " (closed)"
        return f"Raspberry Pi camera {self.camera_num} at {w}x{h} px, {focus}{state}"


class ImageSource(FrameSource):
    """One image file, handed out again on every read (a copy, so callers may draw on it).

    :raises CameraUnavailable: naming the file when it is missing, not an image, cut short, or
        over :data:`~vision.image_files.MAX_IMAGE_PX` (checked from its header, undecoded).
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        try:
            data = self.path.read_bytes()
        except OSError as exc:
            raise CameraUnavailable(f"image {str(self.path)!r}: cannot read it ({exc.strerror})") from None
        try:  # the header checked first: a huge or cut-short image is refused undecoded
            frame = decode_image(data)
        except ImageFileError as exc:
            raise CameraUnavailable(f"image {str(self.path)!r}: {exc}") from None
        self._frame: np.ndarray | None = _as_bgr(frame, f"image {str(self.path)!r}")

    def read(self) -> np.ndarray:
        """The image, BGR uint8. :raises CameraUnavailable: once closed."""
        if self._frame is None:
            raise CameraUnavailable(f"image {str(self.path)!r}: closed")
        return self._frame.copy()

    def close(self) -> None:
        self._frame = None

    def describe(self) -> str:
        return f"image {self.path}"


class VideoFileSource(FrameSource):
    """A video file read frame by frame; with *loop* it starts again at the end.

    :raises CameraUnavailable: naming the file when it is missing or cannot be decoded.
    """

    def __init__(self, path: Path | str, loop: bool = True) -> None:
        self.path = Path(path)
        self.loop = loop
        self.frames_read = 0  # since the last rewind
        self._name = repr(str(self.path))
        self._cap: cv2.VideoCapture | None = None
        if not self.path.is_file():
            raise CameraUnavailable(f"video {self._name}: no such file")
        self._cap = self._open()

    def _open(self) -> cv2.VideoCapture:
        cap = cv2.VideoCapture(str(self.path))
        if not cap.isOpened():
            cap.release()
            raise CameraUnavailable(f"video {self._name}: not a video OpenCV can read")
        return cap

    def read(self) -> np.ndarray:
        """The next frame, rewinding at the end when looping. :raises CameraUnavailable:"""
        if self._cap is None:
            raise CameraUnavailable(f"video {self._name}: closed")
        ok, frame = self._cap.read()
        if (not ok or frame is None) and self.loop and self.frames_read > 0:
            # Reopen rather than seek to frame 0: seeking is unreliable in some containers.
            self._cap.release()
            self._cap = None
            self._cap = self._open()
            self.frames_read = 0
            ok, frame = self._cap.read()
        if not ok or frame is None:
            if self.frames_read > 0:
                raise CameraUnavailable(f"video {self._name}: ended after {self.frames_read} frames")
            raise CameraUnavailable(f"video {self._name}: has no frames OpenCV can decode")
        self.frames_read += 1
        return _as_bgr(frame, f"video {self._name}")

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None

    def describe(self) -> str:
        return f"video {self.path}" + (" (looping)" if self.loop else "")


class StaticSource(FrameSource):
    """Given frames, handed out in turn and then again from the first (copies).

    For tests and the synthetic renderer. An empty list is a source with nothing to give.

    :raises ValueError: when a frame is not a BGR uint8 (h, w, 3) array.
    """

    def __init__(self, frames: Sequence[np.ndarray]) -> None:
        for i, frame in enumerate(frames):
            if not (isinstance(frame, np.ndarray) and frame.dtype == np.uint8 and frame.ndim == 3
                    and frame.shape[2] == 3):
                shape = getattr(frame, "shape", None)
                raise ValueError(f"frames[{i}]: must be a BGR uint8 (h, w, 3) array (got shape {shape!r})")
        self._frames: list[np.ndarray] | None = list(frames)
        self._next = 0

    def read(self) -> np.ndarray:
        """The next frame in turn. :raises CameraUnavailable: with no frames, or once closed."""
        if self._frames is None:
            raise CameraUnavailable("static frames: closed")
        if not self._frames:
            raise CameraUnavailable("static frames: none were given")
        frame = self._frames[self._next]
        self._next = (self._next + 1) % len(self._frames)
        return frame.copy()

    def close(self) -> None:
        self._frames = None

    def describe(self) -> str:
        n = 0 if self._frames is None else len(self._frames)
        return f"{n} static frame{'s' if n != 1 else ''}"


def _open_auto(size: Size | None) -> FrameSource:
    """The Pi camera if there is one, else the first /dev/video* that gives a frame."""
    tried: list[str] = []
    if has_picamera():
        try:
            return Picamera2Source(size or (1920, 1080))
        except CameraUnavailable as exc:
            tried.append(str(exc))
    for dev in list_video_devices():
        name = dev.get("name") or ""
        if name.startswith(_NOT_A_CAMERA):
            continue
        source: FrameSource | None = None
        try:
            source = VideoDeviceSource(dev["device"], size)
            source.read()  # a metadata node opens fine and then gives nothing
            return source
        except CameraUnavailable as exc:
            if source is not None:
                source.close()
            tried.append(str(exc))
    if not tried:
        raise CameraUnavailable("no camera found (no Raspberry Pi camera, no /dev/video* device)")
    raise CameraUnavailable("no camera found: " + "; ".join(tried))


def open_source(spec: str, *, size: Size | None = None) -> FrameSource:
    """The frame source the configured camera string names.

    *spec* is ``"none"`` (no camera), ``"auto"`` (the Pi camera, else the first V4L2 camera
    that gives a frame), a device number (``"0"``), a device path (``"/dev/video0"``), an
    image file (by suffix: .png .jpg .jpeg .bmp .tif .tiff .webp) or a video file. *size*
    (width, height) px goes to cameras only.

    Call it on the thread that will read frames.

    :raises CameraUnavailable: naming *spec* when it names nothing that gives frames.
    """
    text = spec.strip()
    if text.lower() == "none":
        raise CameraUnavailable("no camera configured")
    if text.lower() == "auto":
        return _open_auto(size)
    if text.isdigit():
        return VideoDeviceSource(int(text), size)
    if text.startswith("/dev/"):
        return VideoDeviceSource(text, size)
    path = Path(text).expanduser() if text else None
    if path is not None and path.is_file():
        if path.suffix.lower() in IMAGE_SUFFIXES:
            return ImageSource(path)
        return VideoFileSource(path)
    raise CameraUnavailable(f"camera {spec!r}: not 'auto', 'none', a device number, a /dev/video* path "
                            "or an existing image or video file")


class RetryingSource(FrameSource):
    """A source that survives its camera going away, and reopens it when it comes back.

    *open_fn* opens the real source (e.g. ``lambda: open_source("auto")``). It is tried once
    at construction; whenever it or a read raises :class:`CameraUnavailable`, the source is
    closed, the error kept in :attr:`last_error`, and :meth:`read` tries *open_fn* again at
    most every *retry_s* seconds of *clock* (monotonic s). Nothing here sleeps: a read while
    unavailable raises at once, so the app keeps running without a camera.

    Losing the camera is logged once at WARNING, getting it back at INFO. One thread only.
    """

    def __init__(self, open_fn: Callable[[], FrameSource], retry_s: float = 2.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not (math.isfinite(retry_s) and retry_s >= 0):
            raise ValueError(f"retry_s: must be seconds from 0 (got {retry_s!r})")
        self._open_fn = open_fn
        self.retry_s = retry_s
        self._clock = clock
        self._source: FrameSource | None = None
        self._closed = False
        self._next_try_mono = -math.inf
        self.last_error: CameraUnavailable | None = None
        self._try_open()

    @property
    def is_available(self) -> bool:
        """True while a source is open (its last read, if any, gave a frame)."""
        return self._source is not None

    def _lost(self, exc: CameraUnavailable) -> None:
        if self.last_error is None:
            log.warning("camera unavailable, retrying every %g s: %s", self.retry_s, exc)
        self.last_error = exc
        self._next_try_mono = self._clock() + self.retry_s

    def _try_open(self) -> None:
        try:
            source = self._open_fn()
        except CameraUnavailable as exc:
            self._lost(exc)
            return
        if self.last_error is not None:
            log.info("camera back: %s", source.describe())
        self._source, self.last_error = source, None

    def read(self) -> np.ndarray:
        """The wrapped source's next frame. :raises CameraUnavailable: while there is none."""
        if self._closed:
            raise CameraUnavailable("camera closed")
        if self._source is None and self._clock() >= self._next_try_mono:
            self._try_open()
        if self._source is None:
            # A fresh exception each time: re-raising the kept one would grow its traceback.
            raise CameraUnavailable(str(self.last_error))
        try:
            return self._source.read()
        except CameraUnavailable as exc:
            source, self._source = self._source, None
            source.close()
            self._lost(exc)
            raise

    def close(self) -> None:
        self._closed = True
        if self._source is not None:
            self._source.close()
            self._source = None

    def describe(self) -> str:
        if self._closed:
            return "camera closed"
        if self._source is not None:
            return self._source.describe()
        return f"no camera ({self.last_error}); retrying every {self.retry_s:g} s"
