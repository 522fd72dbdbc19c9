"""The overhead camera as the app uses it: a frame on demand, checked against the table.

The setup files live in one folder (``<data dir>/vision`` by default): ``lens.json``
(``calibrate-lens``, optional), ``calibration.json`` (kept up to date by itself) and
``track.json`` (``learn-track``); the layout is the config's or the Volatio default. Each
check calibrates from the frame's own table markers; when a hand hides them, the saved
calibration is used; when they moved (a bumped camera), the new calibration replaces the
saved one. A lost camera is retried (:class:`~vision.sources.RetryingSource`); the app
works on without it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vision import markers
from vision.calibration import Lens, TableCalibration, calibrate
from vision.errors import CalibrationError
from vision.flight import check_flight
from vision.layout import Layout, load_layout
from vision.sources import FrameSource, RetryingSource, open_source
from vision.track import load_track

log = logging.getLogger(__name__)


class TableCamera:
    """One camera over one table. Not thread-safe: one thread at a time calls :meth:`check`."""

    def __init__(self, source: str, folder: Path, layout_path: Path | None = None,
                 open_fn: Callable[[], FrameSource] | None = None) -> None:
        self.folder = folder
        self.layout_path = layout_path
        self._open = open_fn or (lambda: open_source(source))
        self._source: RetryingSource | None = None  # opened on the first check, off the UI thread

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
        ``recalibrated`` (the camera had moved). Runs on a worker thread.

        :raises VisionError: one line saying what is missing (no camera, no track learned...).
        """
        track_path = self.folder / "track.json"
        if not track_path.exists():
            raise CalibrationError(f"no track learned yet: run `companion vision learn-track` and save it "
                                   f"to {track_path}")
        layout = self._layout()
        track = load_track(track_path)
        if self._source is None:
            self._source = RetryingSource(self._open)
        frame = self._source.read()
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
        result = check_flight(frame, layout, cal, track, seen).to_json()
        result["recalibrated"] = recalibrated
        return result

    def close(self) -> None:
        if self._source is not None:
            self._source.close()
