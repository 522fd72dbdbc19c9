"""The registration square: a printed page on which a piece is photographed for the library.

Four ArUco markers (:data:`MARKER_IDS` of ``DICT_4X4_50``, ids the table layouts leave
free) stand just outside the corners of a :data:`SQUARE_MM` square. Any camera, at any
angle, that sees them sees the square at a known scale: :func:`flatten` warps the square
to a top-down image at :data:`vision.library.PX_PER_MM`, where the piece lies on plain
grey and its size can be checked. That is how ``companion vision register
--camera`` registers a piece from the table's own camera.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision import markers
from vision.errors import CalibrationError
from vision.library import PX_PER_MM, PieceKind, segment
from vision.library.frames import SIZE_TOLERANCE
from vision.library.segmentation import CONTRAST_MIN

DICTIONARY = "DICT_4X4_50"
MARKER_IDS = (46, 47, 48, 49)
"""Top-left, top-right, bottom-right, bottom-left of the square."""
SQUARE_MM = 140.0
"""The square's side: room for a 57 x 88 mm card at any turn, or a handful of coins."""
MARKER_MM = 24.0
GAP_MM = 3.0
"""Each marker's side, and its distance from the square's corner (diagonally outside)."""
SQUARE_GREY = 128
"""The square is printed mid-grey: a white-bordered card and a black coin both stand out."""
MIN_MARKERS = 3
"""Markers that must be seen: one may be under a hand."""


def _corners_mm() -> dict[int, np.ndarray]:
    """Each marker's printed corners (TL, TR, BR, BL) in square mm (the square's TL is 0, 0)."""
    out = {}
    s, m, g = SQUARE_MM, MARKER_MM, GAP_MM
    origins = ((-g - m, -g - m), (s + g, -g - m), (s + g, s + g), (-g - m, s + g))
    for mid, (x, y) in zip(MARKER_IDS, origins, strict=True):
        out[mid] = np.array([[x, y], [x + m, y], [x + m, y + m], [x, y + m]], np.float64)
    return out


def render(dpi: int = 300) -> np.ndarray:
    """The page (grayscale, A4 at *dpi*): the square's outline, its four markers, a title."""
    px = dpi / 25.4
    page_w, page_h = markers.A4_MM
    img = np.full((round(page_h * px), round(page_w * px)), 255, np.uint8)
    origin = np.array([(page_w - SQUARE_MM) / 2, 60.0])
    d = markers.dictionary(DICTIONARY)
    for mid, corners in _corners_mm().items():
        x, y = np.round((corners[0] + origin) * px).astype(int)
        side = round(MARKER_MM * px)
        img[y:y + side, x:x + side] = cv2.aruco.generateImageMarker(d, mid, side, borderBits=1)
    tl = np.round(origin * px).astype(int)
    br = np.round((origin + SQUARE_MM) * px).astype(int)
    cv2.rectangle(img, (int(tl[0]), int(tl[1])), (int(br[0]), int(br[1])), SQUARE_GREY, -1)
    font = cv2.FONT_HERSHEY_SIMPLEX
    for n, line in enumerate(("Table companion: registration square - print at 100 %",
                              "Lay one piece on the grey square, face up (or its back), under the camera.")):
        cv2.putText(img, line, (round(15 * px), round((20 + 8 * n) * px)), font, 0.8 * dpi / 300, 0,
                    max(1, dpi // 150), cv2.LINE_AA)
    return img


def write(out: Path, dpi: int = 300) -> list[Path]:
    """The page as PNG and PDF at true size.

    :raises LayoutError: when a file cannot be written.
    """
    return markers.write_pages([render(dpi)], out, dpi)


def flatten(image: np.ndarray) -> np.ndarray | None:
    """The square in *image* (BGR), warped flat at :data:`vision.library.PX_PER_MM`; None
    when fewer than :data:`MIN_MARKERS` of its markers are in view."""
    seen = markers.detect(image, DICTIONARY)
    printed = _corners_mm()
    src = [seen[m] for m in MARKER_IDS if m in seen]
    if len(src) < MIN_MARKERS:
        return None
    dst = [printed[m] for m in MARKER_IDS if m in seen]
    h, _ = cv2.findHomography(np.concatenate(dst) * PX_PER_MM, np.concatenate(src), 0)
    if h is None:
        return None
    side = round(SQUARE_MM * PX_PER_MM)
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP  # h maps the square's pixels to the photo's
    flat = cv2.warpPerspective(image, h, (side, side), flags=flags, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(flat, np.uint8)


def check_piece(flat: np.ndarray, kind: PieceKind) -> np.ndarray:
    """*flat* (from :func:`flatten`) when the piece on the square measures *kind*'s size
    (within :data:`vision.library.frames.SIZE_TOLERANCE`): the largest thing on the grey, its
    rotated bounding box (a rect) or its enclosing circle (a disc).

    :raises CalibrationError: one line: nothing on the square, or the piece measures another
        size than *kind*'s (a wrong ``--size-mm``, or the wrong piece).
    """
    mask, contrast = segment(flat)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if contrast < CONTRAST_MIN or not contours \
            or cv2.contourArea(max(contours, key=cv2.contourArea)) < (10 * PX_PER_MM) ** 2:
        raise CalibrationError("nothing stands out on the registration square: lay the piece on its grey")
    biggest = max(contours, key=cv2.contourArea)
    if kind.shape == "disc":
        _centre, radius = cv2.minEnclosingCircle(biggest)
        measured = [2 * radius / PX_PER_MM] * 2
    else:
        _centre, (w, h), _angle = cv2.minAreaRect(biggest)
        measured = sorted((w / PX_PER_MM, h / PX_PER_MM))
    expected = sorted(kind.size_mm)
    if any(abs(m / e - 1) > SIZE_TOLERANCE for m, e in zip(measured, expected, strict=True)):
        said = "x".join(f"{v:g}" for v in kind.size_mm) if kind.shape == "rect" else f"{kind.size_mm[0]:g}"
        seen = "x".join(f"{v:.0f}" for v in measured) if kind.shape == "rect" else f"{measured[0]:.0f}"
        raise CalibrationError(f"the piece on the registration square measures {seen} mm, not {said} mm: "
                               "check --size-mm")
    return flat
