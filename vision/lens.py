"""One-time lens calibration from a printed ChArUco board, and the camera's pose over the table.

Print :func:`board_image` at 100 % (actual size) on A4, glue it flat to card, and take
15-30 photos of it from different places and angles, filling different parts of the
frame (corners included: that is where the distortion is). :func:`calibrate_lens` turns
them into a :class:`LensCalibration`, saved as JSON beside the layout. The board's
markers come from DICT_5X5_100, so they never clash with the table's DICT_4X4_50 ids.

The calibration holds only for the resolution and focus it was made at: lock the Camera
Module 3's autofocus (see :class:`vision.sources.Picamera2Source`).

Pure functions over arrays: any thread may call them.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, cast

import cv2
import numpy as np

from vision.errors import CalibrationError, LayoutError

BOARD_SQUARES = (7, 5)  # (columns, rows)
BOARD_SQUARE_MM = 30.0
BOARD_MARKER_MM = 22.0
BOARD_DICTIONARY = cv2.aruco.DICT_5X5_100
MIN_CORNERS = 8  # per view: fewer and the view says little about the lens
MIN_VIEWS = 10
A4_LANDSCAPE_MM = (297.0, 210.0)
_FIELDS = ("K", "dist", "size", "rms_px", "views")


@dataclass(frozen=True, eq=False)
class LensCalibration:
    """A camera's intrinsics: pinhole matrix *K* (px), distortion *dist* (k1, k2, p1, p2, k3).

    *size* is the (width, height) px the calibration was made at; *rms_px* the RMS
    reprojection error over the *views* that were used. The arrays are read-only; equality
    is identity (compare the fields with numpy to compare two calibrations).

    :raises ValueError: when K is not 3x3, dist does not have 5 coefficients, or size is not
        two positive whole numbers.
    """

    K: np.ndarray  # (3, 3) float64
    dist: np.ndarray  # (5,) float64
    size: tuple[int, int]
    rms_px: float
    views: int

    def __post_init__(self) -> None:
        k = np.array(self.K, dtype=np.float64)
        dist = np.array(self.dist, dtype=np.float64).reshape(-1)
        if k.shape != (3, 3):
            raise ValueError(f"K: must be a 3x3 matrix (got shape {k.shape})")
        if dist.shape != (5,):
            raise ValueError(f"dist: must be 5 coefficients k1 k2 p1 p2 k3 (got {dist.size})")
        if len(self.size) != 2 or not all(int(v) == v and v > 0 for v in self.size):
            raise ValueError(f"size: must be (width, height) in whole px (got {self.size!r})")
        k.setflags(write=False)
        dist.setflags(write=False)
        object.__setattr__(self, "K", k)
        object.__setattr__(self, "dist", dist)
        object.__setattr__(self, "size", (int(self.size[0]), int(self.size[1])))

    def to_json(self) -> dict[str, Any]:
        """The calibration as a JSON-ready document (the inverse of :meth:`from_json`)."""
        return {
            "K": self.K.tolist(),
            "dist": self.dist.tolist(),
            "size": list(self.size),
            "rms_px": float(self.rms_px),
            "views": int(self.views),
        }

    @classmethod
    def from_json(cls, doc: Any, source: str = "<lens calibration>") -> LensCalibration:
        """A calibration from a parsed JSON document.

        :raises LayoutError: naming *source* and the field, for anything unusable.
        """
        where = f"lens calibration {source}"
        if not isinstance(doc, dict):
            raise LayoutError(f"{where}: must be a JSON object")
        for key in doc:
            if key not in (*_FIELDS, "note"):
                raise LayoutError(f"{where}: {key}: unknown field (known: {', '.join(_FIELDS)}, note)")
        for key in _FIELDS:
            if key not in doc:
                raise LayoutError(f"{where}: {key}: missing")
        k = _numbers(doc["K"], f"{where}: K", rows=3, cols=3)
        if k[0, 0] <= 0 or k[1, 1] <= 0 or k[0, 1] != 0 or k[1, 0] != 0 or list(k[2]) != [0.0, 0.0, 1.0]:
            raise LayoutError(f"{where}: K: must be [[fx, 0, cx], [0, fy, cy], [0, 0, 1]] with fx, fy > 0 "
                              f"(got {doc['K']!r})")
        dist = _numbers([doc["dist"]], f"{where}: dist", rows=1, cols=5)[0]
        size = doc["size"]
        if not (isinstance(size, list) and len(size) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size)):
            raise LayoutError(f"{where}: size: must be [width, height] in whole px (got {size!r})")
        rms = doc["rms_px"]
        if isinstance(rms, bool) or not isinstance(rms, (int, float)) or not math.isfinite(rms) or rms < 0:
            raise LayoutError(f"{where}: rms_px: must be a number of px from 0 (got {rms!r})")
        views = doc["views"]
        if isinstance(views, bool) or not isinstance(views, int) or views < 0:
            raise LayoutError(f"{where}: views: must be a whole number from 0 (got {views!r})")
        return cls(k, dist, (size[0], size[1]), float(rms), views)

    def save(self, path: Path | str) -> None:
        """Write the calibration as JSON to *path*. :raises OSError: when it cannot be written."""
        Path(path).write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path | str) -> LensCalibration:
        """Read a calibration saved by :meth:`save`.

        :raises LayoutError: naming the file (and the field) when it is missing or unusable.
        """
        p = Path(path)
        try:
            doc = json.loads(p.read_text(encoding="utf-8"))
        except OSError as exc:
            raise LayoutError(f"lens calibration {p}: cannot read it ({exc.strerror})") from None
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise LayoutError(f"lens calibration {p}: not valid JSON ({exc})") from None
        return cls.from_json(doc, str(p))

    @cached_property
    def _maps(self) -> tuple[np.ndarray, np.ndarray]:
        # Built once: cv2.undistort would rebuild these maps on every frame.
        map1, map2 = cv2.initUndistortRectifyMap(self.K, self.dist, None, self.K, self.size, cv2.CV_16SC2)
        return np.asarray(map1), np.asarray(map2)

    def undistort(self, image: np.ndarray) -> np.ndarray:
        """*image* as a distortion-free pinhole camera with matrix K would have seen it.

        :raises LayoutError: when the image is not the size the calibration was made at.
        """
        h, w = image.shape[:2]
        if (w, h) != self.size:
            raise LayoutError(f"lens calibration: made for {self.size[0]}x{self.size[1]} px frames, "
                              f"this one is {w}x{h} px (calibrate again at this size)")
        map1, map2 = self._maps
        return np.asarray(cv2.remap(image, map1, map2, cv2.INTER_LINEAR))

    def undistort_points(self, points_px: np.ndarray) -> np.ndarray:
        """Pixel positions (N, 2) in the camera's image moved to where a pinhole camera with K
        (no distortion) would have put them, px, (N, 2) float64."""
        pts = np.asarray(points_px, dtype=np.float64).reshape(-1, 1, 2)
        if len(pts) == 0:
            return np.zeros((0, 2), dtype=np.float64)
        # More iterations than the default 5: near the frame's corners a wide lens needs them
        # to land within a hundredth of a pixel.
        criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 1e-10)
        out = cv2.undistortPoints(pts, self.K, self.dist, P=self.K, criteria=criteria)
        return np.asarray(out, dtype=np.float64).reshape(-1, 2)


def _numbers(value: Any, where: str, *, rows: int, cols: int) -> np.ndarray:
    ok = (isinstance(value, list) and len(value) == rows
          and all(isinstance(r, list) and len(r) == cols
                  and all(isinstance(c, (int, float)) and not isinstance(c, bool) and math.isfinite(c)
                          for c in r)
                  for r in value))
    if not ok:
        shape = f"{cols} numbers" if rows == 1 else f"{rows} rows of {cols} numbers"
        raise LayoutError(f"{where}: must be {shape} (got {value[0] if rows == 1 else value!r})")
    return np.asarray(value, dtype=np.float64)


def default_board() -> cv2.aruco.CharucoBoard:
    """The lens board: 7x5 squares of 30 mm with 22 mm DICT_5X5_100 markers (board mm)."""
    dictionary = cv2.aruco.getPredefinedDictionary(BOARD_DICTIONARY)
    return cv2.aruco.CharucoBoard(BOARD_SQUARES, BOARD_SQUARE_MM, BOARD_MARKER_MM, dictionary)


def board_image(dpi: int = 300) -> np.ndarray:
    """A landscape A4 page (297x210 mm at *dpi*) with :func:`default_board` at true size.

    Grayscale uint8, for ``cv2.imwrite`` and printing at 100 % (not "fit to page"). A
    100 mm bar under the board checks the print's scale. The lens's K and distortion do
    not depend on the print's scale, only on the board being flat; the scale matters for
    poses measured with the board.

    :raises ValueError: when *dpi* is below 72.
    """
    if dpi < 72:
        raise ValueError(f"dpi: must be at least 72 to print the markers legibly (got {dpi!r})")
    px_per_mm = dpi / 25.4
    page_w, page_h = (round(mm * px_per_mm) for mm in A4_LANDSCAPE_MM)
    square_px = round(BOARD_SQUARE_MM * px_per_mm)
    board_w, board_h = BOARD_SQUARES[0] * square_px, BOARD_SQUARES[1] * square_px
    board = np.asarray(default_board().generateImage((board_w, board_h), marginSize=0, borderBits=1))
    page = np.full((page_h, page_w), 255, dtype=np.uint8)
    x0, y0 = (page_w - board_w) // 2, (page_h - board_h) // 2 - round(8 * px_per_mm)
    page[y0:y0 + board_h, x0:x0 + board_w] = board
    # the scale bar and the caption, under the board
    bar_y = y0 + board_h + round(8 * px_per_mm)
    bar_h = max(2, round(1.5 * px_per_mm))
    page[bar_y:bar_y + bar_h, x0:x0 + round(100 * px_per_mm)] = 0
    caption = (f"ChArUco {BOARD_SQUARES[0]}x{BOARD_SQUARES[1]}, {BOARD_SQUARE_MM:g} mm squares, "
               f"{BOARD_MARKER_MM:g} mm markers, DICT_5X5_100. Print at 100%; the bar is 100 mm.")
    scale = 0.35 * dpi / 100
    thickness = max(1, round(dpi / 150))
    cv2.putText(page, caption, (x0, bar_y + bar_h + round(7 * px_per_mm)), cv2.FONT_HERSHEY_SIMPLEX,
                scale, 0, thickness, cv2.LINE_AA)
    return page


def _gray(image: np.ndarray) -> np.ndarray:
    if image.ndim == 3:
        return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    return image


def calibrate_lens(images: list[np.ndarray], board: cv2.aruco.CharucoBoard | None = None) -> LensCalibration:
    """Intrinsics from photos of a ChArUco *board* (default :func:`default_board`).

    The images (BGR or grayscale, all the same size) are the camera's own frames at the
    resolution it will run at. A view counts when at least 8 of the board's corners are
    found; at least 10 must count, and 15-30 are better. Slow: seconds for 20 full-HD views.

    :raises CalibrationError: with too few usable views (saying how many there were), or
        when the images differ in size.
    """
    board = board if board is not None else default_board()
    detector = cv2.aruco.CharucoDetector(board)
    object_points: list[np.ndarray] = []
    image_points: list[np.ndarray] = []
    size: tuple[int, int] | None = None
    for i, image in enumerate(images):
        h, w = image.shape[:2]
        if size is None:
            size = (w, h)
        elif (w, h) != size:
            raise CalibrationError(f"images[{i}]: is {w}x{h} px, the first image was {size[0]}x{size[1]} px "
                                   "(calibrate from frames of one size)")
        corners, ids, _, _ = detector.detectBoard(_gray(image))
        if ids is None or len(ids) < MIN_CORNERS:
            continue
        # cast: the stub wants a sequence of corner arrays (the markers' case); a ChArUco
        # board takes the one (N, 1, 2) array detectBoard gave.
        obj, img = board.matchImagePoints(cast(Any, corners), ids)
        object_points.append(np.asarray(obj, dtype=np.float32).reshape(-1, 1, 3))
        image_points.append(np.asarray(img, dtype=np.float32).reshape(-1, 1, 2))
    if size is None or len(object_points) < MIN_VIEWS:
        raise CalibrationError(f"only {len(object_points)} of {len(images)} images show the board well "
                               f"enough (at least {MIN_CORNERS} corners); calibrating needs {MIN_VIEWS} "
                               "such views, and 15-30 from different angles are recommended")
    rms, k, dist, _, _ = cv2.calibrateCamera(object_points, image_points, size, None, None)
    if not math.isfinite(rms):
        raise CalibrationError(f"calibration did not converge on {len(object_points)} views (rms {rms!r})")
    return LensCalibration(np.asarray(k), np.asarray(dist).reshape(-1)[:5], size, float(rms),
                           len(object_points))


def camera_pose(K: np.ndarray, dist: np.ndarray | None, object_points_mm: np.ndarray,
                image_points_px: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The camera's pose from at least 4 points on a plane (z = 0), e.g. the table markers.

    Returns (rvec, tvec), each (3,) float64: Rodrigues rotation and translation (mm) taking
    *object_points_mm* (N, 3) into the camera frame. IPPE for the planar start, then
    Levenberg-Marquardt refinement.

    :raises CalibrationError: with fewer than 4 points, mismatched counts, or no solution.
    """
    obj = np.asarray(object_points_mm, dtype=np.float64).reshape(-1, 3)
    img = np.asarray(image_points_px, dtype=np.float64).reshape(-1, 2)
    if len(obj) != len(img):
        raise CalibrationError(f"camera pose: {len(obj)} object points but {len(img)} image points")
    if len(obj) < 4:
        raise CalibrationError(f"camera pose: needs at least 4 points (got {len(obj)})")
    k = np.asarray(K, dtype=np.float64)
    d = None if dist is None else np.asarray(dist, dtype=np.float64)
    try:
        ok, rvec, tvec = cv2.solvePnP(obj, img, k, d, flags=cv2.SOLVEPNP_IPPE)
    except cv2.error as exc:  # IPPE rejects points that are not on one plane
        raise CalibrationError(f"camera pose: no solution ({exc.err})") from None
    if not ok:
        raise CalibrationError(f"camera pose: no solution from {len(obj)} points")
    rvec, tvec = cv2.solvePnPRefineLM(obj, img, k, d, rvec, tvec)
    return np.asarray(rvec, dtype=np.float64).reshape(3), np.asarray(tvec, dtype=np.float64).reshape(3)
