"""The overhead camera as the app uses it: a frame on demand, checked against the table.

The setup files live in one folder (``<data dir>/vision`` by default): ``lens.json``
(``calibrate-lens``, optional), ``calibration.json`` (kept up to date by itself) and
``track.json`` (``learn-track``); the layout is the config's or the Volatio default. Each
check calibrates from the frame's own table markers; when a hand hides them, the saved
calibration is used; when they moved (a bumped camera), the new calibration replaces the
saved one. A lost camera is retried (:class:`~vision.sources.RetryingSource`); the app
works on without it.

Reading pieces (:meth:`TableCamera.read_pieces`) uses the piece library in ``library/`` of
the same folder (``companion vision register --library <folder>/library``), and the photo
of the empty table in ``empty.png`` when there is one (:meth:`TableCamera.remember_empty`).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision import markers
from vision.calibration import Lens, TableCalibration, calibrate
from vision.errors import CalibrationError, NoLibrary
from vision.flight import check_flight
from vision.image_files import ImageFileError, decode_image
from vision.layout import Layout, load_layout
from vision.library import LIBRARY_FILE, Library
from vision.overlay import draw_flight
from vision.reading import read
from vision.sources import FrameSource, RetryingSource, open_source
from vision.track import load_track

log = logging.getLogger(__name__)

PICTURE_WIDTH = 960
"""The edge check's picture (the photo with the track and every verdict drawn) is at most this wide."""
PICTURE_LARGER = 1.8
"""Its lines and labels this much larger than in a picture for a file: it is shown small, beside the list."""


class TableCamera:
    """One camera over one table. Not thread-safe: one thread at a time calls :meth:`check`."""

    def __init__(self, source: str, folder: Path, layout_path: Path | None = None,
                 open_fn: Callable[[], FrameSource] | None = None) -> None:
        self.folder = folder
        self.layout_path = layout_path
        self._open = open_fn or (lambda: open_source(source))
        self._source: RetryingSource | None = None  # opened on the first check, off the UI thread
        self._library: tuple[int, Library] | None = None  # library.json's mtime, and the library

    @property
    def is_available(self) -> bool:
        return self._source is not None and self._source.is_available

    def _layout(self) -> Layout:
        return load_layout(self.layout_path)

    def _lens(self) -> Lens | None:
        path = self.folder / "lens.json"
        if not path.exists():
            return None
        return Lens.load(path)

    def check(self) -> dict[str, Any]:
        """Take a frame and judge every piece in it: :meth:`FlightCheck.to_json` plus
        ``recalibrated`` (the camera had moved) and the picture of it (:func:`draw_flight`) as
        ``width``, ``height`` and ``rgb`` (bytes, rows top to bottom). Runs on a worker thread.

        :raises VisionError: one line saying what is missing (no camera, no track learned...).
        """
        track_path = self.folder / "track.json"
        if not track_path.exists():
            raise CalibrationError(f"no track learned yet: run `companion vision learn-track` and save it "
                                   f"to {track_path}")
        layout = self._layout()
        track = load_track(track_path)
        frame = self._frame()
        seen = markers.detect(frame, layout.dictionary)
        saved_path = self.folder / "calibration.json"
        saved = TableCalibration.load(saved_path) if saved_path.exists() else None
        recalibrated = False
        try:
            cal = calibrate(frame, layout, self._lens(), seen)
            if saved is None or saved.is_bumped(seen):
                recalibrated = saved is not None
                if recalibrated:
                    log.warning("the camera moved since it was calibrated: calibrated again")
                self.folder.mkdir(parents=True, exist_ok=True)
                cal.save(saved_path)
        except CalibrationError:
            if saved is None:
                raise
            cal = saved  # a hand over the markers: the camera has not moved since
        checked = check_flight(frame, layout, cal, track, seen)
        result = checked.to_json()
        result["recalibrated"] = recalibrated
        picture = draw_flight(frame, cal, track, checked, larger=PICTURE_LARGER)
        if picture.shape[1] > PICTURE_WIDTH:  # for a popup on a small screen: lighter to hand over
            height = round(picture.shape[0] * PICTURE_WIDTH / picture.shape[1])
            picture = cv2.resize(picture, (PICTURE_WIDTH, height), interpolation=cv2.INTER_AREA)
        result["width"], result["height"] = int(picture.shape[1]), int(picture.shape[0])
        result["rgb"] = np.ascontiguousarray(picture[:, :, ::-1]).tobytes()
        return result

    def _frame(self) -> np.ndarray:
        if self._source is None:
            self._source = RetryingSource(self._open)
        return self._source.read()

    def read_pieces(self) -> dict[str, Any]:
        """Take a frame and read every library piece in it. Runs on a worker thread.

        Returns :meth:`ReadResult.to_json` with each piece's and unknown's ``outline_px``
        added, and the frame itself for drawing them on: ``width``, ``height`` and ``rgb``
        (bytes, rows top to bottom). With the table markers in view, positions are in table
        mm and sizes are checked; without, the frame is read as a top-down view.

        :raises VisionError: one line: no library, no camera...
        """
        frame = self._frame()  # no camera is the first thing to say: without one nothing is registered
        library = self._current_library()
        layout = self._layout()
        seen = markers.detect(frame, layout.dictionary)
        try:
            cal: TableCalibration | None = calibrate(frame, layout, self._lens(), seen)
        except CalibrationError:
            cal = None  # no markers in view: read the frame as it is
        empty = self._empty(frame.shape)
        result = read(frame, library, calibration=cal, empty=empty, seen_markers=seen)
        doc = result.to_json()
        for item, found in zip(doc["pieces"] + doc["unknown"], result.pieces + result.unknown, strict=True):
            item["outline_px"] = [[round(x, 1), round(y, 1)] for x, y in found.outline_px]
        doc["width"], doc["height"] = int(frame.shape[1]), int(frame.shape[0])
        doc["rgb"] = np.ascontiguousarray(frame[:, :, ::-1]).tobytes()
        return doc

    def _current_library(self) -> Library:
        """The piece library, loaded again only when ``library.json`` changed (a registration):
        the reader prepares a library's references once, on its first frame."""
        library_dir = self.folder / "library"
        try:
            stamp = (library_dir / LIBRARY_FILE).stat().st_mtime_ns
        except OSError:
            raise NoLibrary(f"no piece library yet: register the pieces with `companion vision "
                                   f"register --library {library_dir}`") from None
        if self._library is None or self._library[0] != stamp:
            self._library = (stamp, Library.load(library_dir))
        return self._library[1]

    def _empty(self, shape: tuple[int, ...]) -> np.ndarray | None:
        path = self.folder / "empty.png"
        if not path.exists():
            return None
        try:
            image = decode_image(path.read_bytes())
        except (OSError, ImageFileError) as exc:
            log.warning("%s is unreadable (%s): not used", path, exc)
            return None
        if image.shape != shape:
            log.warning("%s is of another size than the camera's frames: not used", path)
            return None
        return image

    def remember_empty(self, frame: np.ndarray | None = None) -> Path:
        """Save a frame of the empty table (*frame*, or the camera's next): pieces are then
        read as what differs from it."""
        frame = self._frame() if frame is None else frame
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / "empty.png"
        tmp = path.with_suffix(".tmp.png")
        if not cv2.imwrite(str(tmp), frame):
            raise CalibrationError(f"cannot write {tmp}")
        os.replace(tmp, path)
        return path

    def close(self) -> None:
        if self._source is not None:
            self._source.close()
