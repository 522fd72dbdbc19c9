"""ArUco markers: finding them in a frame, and the printable sheet of them.

Detection is OpenCV 5's class-based ``cv2.aruco.ArucoDetector``; each marker's corners
are then measured from its four whole edges (:func:`refine_corners`), and come back in the
printed order (top-left, top-right, bottom-right, bottom-left) as float64 pixels.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.errors import LayoutError
from vision.layout import Layout

A4_MM = (210.0, 297.0)
SHEET_MARGIN_MM = 12.0
GAP_MM = 9.0


def dictionary(name: str) -> cv2.aruco.Dictionary:
    """The predefined ArUco dictionary called *name* (``"DICT_4X4_50"``)."""
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


def make_detector(name: str) -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    # no corner refinement here: refine_corners does better from the marker's whole edges
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
    # two thresholding passes (windows of 5 and 19 px) instead of three: the markers here are
    # 20-80 px across, and each pass costs as much as the rest of the check
    params.adaptiveThreshWinSizeMin = 5
    params.adaptiveThreshWinSizeMax = 19
    params.adaptiveThreshWinSizeStep = 14
    return cv2.aruco.ArucoDetector(dictionary(name), params)


_DETECTORS: dict[str, cv2.aruco.ArucoDetector] = {}


_STEPS = np.arange(-3.0, 3.01, 0.25)
SAMPLE_SPACING_PX = 1.5
"""Edge points are taken about this far apart along each side (at least 6 a side)."""
MAX_MOVE_PX = 2.5
"""A refined corner further than this from the detector's is not taken (the fit went astray)."""


def refine_all(gray: np.ndarray, found: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """:func:`refine_corners` for many markers at once: one image lookup and one fit for all."""
    out = {mid: np.asarray(c, np.float64).reshape(4, 2) for mid, c in found.items()}
    if not out:
        return out
    ids = list(out)
    c = np.stack([out[mid] for mid in ids])  # (M, 4, 2)
    d = np.roll(c, -1, axis=1) - c  # side i runs from corner i to corner i + 1
    length = np.linalg.norm(d, axis=2)
    usable = (length >= 8).all(axis=1)  # too small to have edges worth fitting
    d /= np.maximum(length, 1e-9)[..., None]
    n = np.stack([d[..., 1], -d[..., 0]], axis=2)
    mid_side = c + np.roll(c, -1, axis=1)
    outward = np.sum(n * (mid_side / 2 - c.mean(axis=1, keepdims=True)), axis=2) >= 0
    n = np.where(outward[..., None], n, -n)  # from the black border into the white quiet zone
    count = np.maximum(6, (length / SAMPLE_SPACING_PX).astype(int))  # (M, 4)
    k = np.arange(int(count.max()))
    valid = k[None, None, :] < count[..., None]  # (M, 4, K)
    ts = 0.18 + 0.64 * k[None, None, :] / np.maximum(count[..., None] - 1, 1)
    base = c[:, :, None, :] + (ts * length[..., None])[..., None] * d[:, :, None, :]  # (M, 4, K, 2)
    pts = base[..., None, :] + _STEPS[:, None] * n[:, :, None, None, :]  # (M, 4, K, S, 2)
    prof = np.asarray(cv2.remap(gray, pts[..., 0].reshape(-1, len(_STEPS)).astype(np.float32),
                                pts[..., 1].reshape(-1, len(_STEPS)).astype(np.float32),
                                cv2.INTER_LINEAR), np.float64).reshape(pts.shape[:-1])
    dark = prof[..., :5].min(axis=-1)
    light = prof[..., -5:].max(axis=-1)
    level = (dark + light) / 2
    above = prof >= level[..., None]
    rising = ~above[..., :-1] & above[..., 1:]
    ok = valid & (rising.sum(axis=-1) == 1) & (light - dark > 20)  # one clean dark-to-light step
    j = np.argmax(rising, axis=-1)
    lo = np.take_along_axis(prof, j[..., None], axis=-1)[..., 0]
    hi = np.take_along_axis(prof, j[..., None] + 1, axis=-1)[..., 0]
    f = (level - lo) / np.where(hi != lo, hi - lo, 1.0)
    edge = base + (_STEPS[j] + f * 0.25)[..., None] * n[:, :, None, :]
    fitted, fits = _corners_from_edges(edge, ok)
    moved = np.linalg.norm(fitted - c, axis=2).max(axis=1)
    take = usable & fits & (moved <= MAX_MOVE_PX)  # elsewhere the detector's corners stay
    for m, mid in enumerate(ids):
        if take[m]:
            out[mid] = fitted[m]
    return out


def _corners_from_edges(edge: np.ndarray, ok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Corners where the straight lines through each side's edge points meet: (M, 4, 2), and
    which markers had at least 4 points a side and sides that are not parallel."""
    w = ok.astype(np.float64)
    count = w.sum(axis=2)  # (M, 4)
    mean = (edge * w[..., None]).sum(axis=2) / np.maximum(count, 1)[..., None]
    e = (edge - mean[:, :, None, :]) * w[..., None]
    sxx, syy, sxy = (e[..., 0] ** 2).sum(2), (e[..., 1] ** 2).sum(2), (e[..., 0] * e[..., 1]).sum(2)
    angle = 0.5 * np.arctan2(2 * sxy, sxx - syy)  # the direction of most spread: along the edge
    direction = np.stack([np.cos(angle), np.sin(angle)], axis=2)
    p1, d1 = np.roll(mean, 1, axis=1), np.roll(direction, 1, axis=1)  # the side into corner i
    p2, d2 = mean, direction  # the side out of it
    det = d1[..., 1] * d2[..., 0] - d1[..., 0] * d2[..., 1]  # of [d1, -d2]
    r = p2 - p1
    t = (r[..., 1] * d2[..., 0] - r[..., 0] * d2[..., 1]) / np.where(np.abs(det) < 1e-6, 1.0, det)
    corners = p1 + t[..., None] * d1
    fits = (count >= 4).all(axis=1) & (np.abs(det) >= 1e-6).all(axis=1)
    return corners, fits


def refine_corners(gray: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Corners from the marker's four outer edges: each edge is found to a fraction of a pixel
    at many points along it (where the brightness is half way between the black border and
    the white quiet zone), a straight line is fitted through them, and neighbouring lines
    meet at the corner. Far steadier than refining the corner pixel alone, which the
    marker's own cells next to it pull about. Returns *corners* unchanged where the edges
    cannot be found cleanly. *gray* is float32."""
    return refine_all(gray, {0: corners})[0]


def detect(image: np.ndarray, dictionary_name: str = "DICT_4X4_50") -> dict[int, np.ndarray]:
    """Every marker in *image*: id -> (4, 2) corners in pixels, refined from the marker's
    edges (:func:`refine_corners`). A marker seen twice is dropped (it cannot say where it is)."""
    detector = _DETECTORS.get(dictionary_name)
    if detector is None:
        detector = _DETECTORS[dictionary_name] = make_detector(dictionary_name)
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _rejected = detector.detectMarkers(gray)
    found: dict[int, np.ndarray] = {}
    twice: set[int] = set()
    if ids is None:
        return found
    for c, i in zip(corners, np.asarray(ids).reshape(-1), strict=True):
        mid = int(i)
        if mid in found:
            twice.add(mid)
        found[mid] = np.asarray(c, dtype=np.float64).reshape(4, 2)
    for mid in twice:
        del found[mid]
    return refine_all(gray.astype(np.float32), found)


# -- the printable sheet -------------------------------------------------------------------------


@dataclass(frozen=True)
class SheetItem:
    marker_id: int
    side_mm: float
    label: str


def sheet_items(layout: Layout) -> list[SheetItem]:
    """Every marker the layout uses, at its true size, with what it is for."""
    items = []
    for m in layout.table_markers:
        side = float(np.linalg.norm(m.corners_mm[1] - m.corners_mm[0]))
        items.append(SheetItem(m.id, side, f"table {m.id}"))
    for p in layout.pieces:
        for mid, corners in p.markers.items():
            side = float(np.linalg.norm(corners[1] - corners[0]))
            items.append(SheetItem(mid, side, p.label))
    return items


@dataclass(frozen=True)
class PlacedMarker:
    """Where a marker sits on a sheet: page, and its top-left corner and side in mm."""

    item: SheetItem
    page: int
    x_mm: float
    y_mm: float


def arrange(items: list[SheetItem], page_mm: tuple[float, float] = A4_MM) -> list[PlacedMarker]:
    """Rows of markers, biggest first, onto as many pages as they need."""
    width, height = page_mm
    placed: list[PlacedMarker] = []
    page, x, y, row_h = 0, SHEET_MARGIN_MM, SHEET_MARGIN_MM + 10.0, 0.0  # 10 mm for the title
    for item in sorted(items, key=lambda i: (-i.side_mm, i.marker_id)):
        need_w, need_h = item.side_mm + 2 * 4, item.side_mm + 2 * 4 + 6  # quiet zone, label
        if need_w > width - 2 * SHEET_MARGIN_MM or need_h > height - 2 * SHEET_MARGIN_MM - 20:
            raise LayoutError(f"marker {item.marker_id} ({item.side_mm:g} mm) does not fit on the page")
        if x + need_w > width - SHEET_MARGIN_MM:
            x, y, row_h = SHEET_MARGIN_MM, y + row_h + GAP_MM, 0.0
        if y + need_h > height - SHEET_MARGIN_MM - 10:  # 10 mm for the scale bar
            page, x, y, row_h = page + 1, SHEET_MARGIN_MM, SHEET_MARGIN_MM + 10.0, 0.0
        placed.append(PlacedMarker(item, page, x + 4, y + 4))
        x += need_w + GAP_MM
        row_h = max(row_h, need_h)
    return placed


def render_sheet(layout: Layout, dpi: int = 300,
                 page_mm: tuple[float, float] = A4_MM) -> tuple[list[np.ndarray], list[PlacedMarker]]:
    """The marker sheet's pages as grayscale images at *dpi* (true size when printed at
    100 %), and where each marker is on them."""
    px_per_mm = dpi / 25.4
    placed = arrange(sheet_items(layout), page_mm)
    pages = max((p.page for p in placed), default=0) + 1
    w_px, h_px = round(page_mm[0] * px_per_mm), round(page_mm[1] * px_per_mm)
    images = [np.full((h_px, w_px), 255, np.uint8) for _ in range(pages)]
    d = dictionary(layout.dictionary)
    font = cv2.FONT_HERSHEY_SIMPLEX
    for n, img in enumerate(images):
        title = f"Table companion markers ({layout.dictionary}) - print at 100 %, page {n + 1} of {pages}"
        at = (round(SHEET_MARGIN_MM * px_per_mm), round((SHEET_MARGIN_MM + 5) * px_per_mm))
        cv2.putText(img, title, at,
                    font, 0.9 * dpi / 300, 0, max(1, dpi // 150), cv2.LINE_AA)
        # a 100 mm scale bar to check the printer with a ruler
        x0, y0 = round(SHEET_MARGIN_MM * px_per_mm), round((page_mm[1] - SHEET_MARGIN_MM - 4) * px_per_mm)
        cv2.rectangle(img, (x0, y0), (x0 + round(100 * px_per_mm), y0 + round(2 * px_per_mm)), 0, -1)
        cv2.putText(img, "100 mm", (x0 + round(103 * px_per_mm), y0 + round(2 * px_per_mm)), font,
                    0.7 * dpi / 300, 0, max(1, dpi // 150), cv2.LINE_AA)
    for p in placed:
        side_px = round(p.item.side_mm * px_per_mm)
        marker = cv2.aruco.generateImageMarker(d, p.item.marker_id, side_px, borderBits=1)
        x, y = round(p.x_mm * px_per_mm), round(p.y_mm * px_per_mm)
        img = images[p.page]
        img[y:y + side_px, x:x + side_px] = marker
        # thin cut marks 4 mm out: the quiet zone stays white
        q = round(4 * px_per_mm)
        cv2.rectangle(img, (x - q, y - q), (x + side_px + q, y + side_px + q), 170, 1)
        label = f"#{p.item.marker_id} {p.item.label}, {p.item.side_mm:g} mm"
        cv2.putText(img, label, (x - q, y + side_px + q + round(4.5 * px_per_mm)), font, 0.55 * dpi / 300, 0,
                    max(1, dpi // 200), cv2.LINE_AA)
    return images, placed


def write_sheet(layout: Layout, out: Path, dpi: int = 300) -> list[Path]:
    """Write the marker sheet as ``out`` with a ``.png`` (one per page) and a ``.pdf`` beside
    it, both at true size. Returns the files written.

    :raises LayoutError: when a file cannot be written.
    """
    images, _placed = render_sheet(layout, dpi)
    return write_pages(images, out, dpi)


def write_pages(images: list[np.ndarray], out: Path, dpi: int) -> list[Path]:
    """Pages (grayscale or BGR) as PNG files and one PDF, at *dpi*: true size when printed at 100 %.

    :raises LayoutError: when a file cannot be written.
    """
    from PIL import Image  # Pillow writes a PDF page at a given resolution: true size

    base = out.with_suffix("") if out.suffix.lower() in (".png", ".pdf") else out
    written: list[Path] = []
    try:
        base.parent.mkdir(parents=True, exist_ok=True)
        pils = [Image.fromarray(img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2RGB))
                for img in images]
        for n, pil in enumerate(pils):
            png = base.with_name(base.name + ("" if len(pils) == 1 else f"-{n + 1}") + ".png")
            pil.save(png, dpi=(dpi, dpi))
            written.append(png)
        pdf = base.with_suffix(".pdf")
        pils[0].save(pdf, save_all=True, append_images=pils[1:], resolution=float(dpi))
        written.append(pdf)
    except OSError as exc:
        raise LayoutError(f"--out {out}: cannot write it ({exc.strerror or exc})") from None
    return written


def write_lens_board(out: Path, dpi: int = 300) -> list[Path]:
    """The ChArUco board for ``calibrate-lens``, as PNG and PDF at true size (A4)."""
    from vision.lens import board_image

    return write_pages([board_image(dpi)], out, dpi)
