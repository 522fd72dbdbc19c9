"""Vision's errors: one root, each concrete error also a builtin a caller would catch."""

from __future__ import annotations


class VisionError(Exception):
    """Root of every error the camera and image code raises on purpose."""


class LayoutError(VisionError, ValueError):
    """A layout, track or calibration file that cannot be used: names the file and the field."""


class CameraUnavailable(VisionError, OSError):
    """No frame can be had from the configured source."""


class CalibrationError(VisionError, RuntimeError):
    """Too little in a frame to calibrate from (markers missing, a board not seen)."""


class NoLibrary(CalibrationError):
    """The camera's folder holds no piece library yet: no piece can be named before one is
    registered."""


class TrackRefused(CalibrationError):
    """A learned track that does not check out: the message says why and where; ``at_mm`` is
    the place on the table (mm), or None when it is everywhere."""

    def __init__(self, message: str, at_mm: tuple[float, float] | None = None) -> None:
        super().__init__(message)
        self.at_mm = at_mm
