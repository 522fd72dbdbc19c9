"""The piece library: what each kind of game piece looks like, face by face, as a folder.

A library is a folder a host can copy. ``library.json`` at its root lists the kinds::

    {"kinds": {"set-card": {"shape": "rect", "size_mm": [57, 88],
                            "back": null,
                            "fronts": {"1-red-solid-oval": ["fronts/set-card/1-red-solid-oval-1.png",
                                                            "fronts/set-card/1-red-solid-oval-2.png"]}}}}

Each image is a PNG of one face, *normalised*: the piece warped flat and upright at
:data:`PX_PER_MM` (fewer for a piece so large it would pass :data:`MAX_SIDE_PX`), cropped to
the piece. A rect piece is stored as its size says (``[57, 88]`` is portrait); a disc as the
square around it. A front may have several reference images (several photos, cameras,
lights): the reader compares with each. Paths are relative to the library's folder, and a
single path where a list is expected is read as a list of one.

The segmentation and fitting helpers at the end (:func:`segment`, :func:`fit_rect`,
:func:`fit_disc`, :func:`warp`) find and flatten a piece in a registration photo; the
registration square (:mod:`vision.register_square`) uses them too.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.errors import LayoutError
from vision.image_files import ImageFileError, decode_image
from vision.layout import read_json

LIBRARY_FILE = "library.json"
SHAPES = ("disc", "rect")
PX_PER_MM = 4.0
"""The scale of the stored images: 4 px/mm keeps a card's print (lines ~0.7 mm) a few
pixels wide, and a 57 x 88 mm card at 228 x 352 px, about 100 kB of PNG."""
MAX_SIDE_PX = 1024
"""A piece larger than 256 mm (a board) is stored at a lower scale, this many px along its
longer side."""
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
"""Kind and front names become file names: letters, digits, '.', '_' and '-'."""

RECT_FILL_MIN = 0.88
"""A rect piece's outline fills at least this share of the quad fitted to it. A card with
rounded corners fills 0.97-0.99 of it (measured on the Set photos), an ellipse 0.785, a
rhombus 0.5: anything between is two pieces touching, or a piece and its shadow."""
WARP_HOMOGRAPHY_PX = 0.2
WARP_MAP_STEP = 8
"""See :func:`warp`. Flattened at 0.4 px/mm, as the reader's search flattens a heap (a sample
under 1 mm apart), the samples between land within 0.002 px of where the lens puts them;
mapping every one took up to 25 ms of a 20-piece frame's read."""
BITTEN_FILL_MIN = 0.6
"""With millimetres, where each kind's size is checked too, the outline's convex hull must
fill the fitted shape as above, and the outline itself only this much: where a piece's
print matches the cloth under it, segmentation bites into its outline."""
ASPECT_TOLERANCE = 0.16
"""How far (as |ln(ratio)|, ~17 %) a quad's side ratio may be from its kind's: a card
viewed at up to ~30 deg from straight above, measured without a calibration (the Set
scenes' cards are within 0.08)."""
SIZE_TOLERANCE = 0.15
"""With millimetres (a calibration, or a known scale), each side or the diameter may be
this share off its kind's: the outline is found to ~1 mm, the rest is the piece's height."""
DISC_CIRCULARITY_MIN = 0.86
"""A disc's convex outline has 4 pi area / perimeter^2 at least this (a circle 1.0, seen
at 45 deg 0.93; a square 0.785, a card 0.75)."""
DISC_FILL = (0.92, 1.08)
"""A disc's outline area over its fitted ellipse's: a notch or a bump fails it."""
DISC_AXIS_MIN = 0.55
"""The fitted ellipse's minor over major axis, in pixels (a disc seen at up to ~55 deg);
in millimetres it must be a circle, within :data:`SIZE_TOLERANCE`."""
CONTRAST_MIN = 40.0
"""Registration: the piece stands out when its brightness (strongest channel, 0-255)
differs from the background's by at least this (white card on black: ~150; a crop of a
card: the print against the card, which is not the piece's outline)."""
SEGMENT_TOWARDS_TABLE = 0.5
"""Segmentation cuts at this fraction of the way from the table's median brightness to
Otsu's threshold (see :func:`segment`)."""
EMPTY_DIFF_MIN = 24.0
"""With an empty-table frame, a pixel changed by less than this (summed over channels,
0-765) is sensor noise and JPEG, not a piece (synthetic scenes: the bare cloth's change is
under 16 in 99.99 % of its pixels in the median scene, under 22 in the worst)."""
OWN_LEVEL_PERCENTILE = 70.0
OWN_EDGE_SHARE = 0.3
"""With an empty-table frame, each piece is also cut at this share of its own change (this
percentile of its pixels': its body, above its blurred rim, below its print's peaks), when
that is lower than the frame's cut: a blurred edge is halfway between its two sides. The
frame's cut is set by its most striking pieces (40-60); a copper or gold coin on wood
changes by only 30-50 besides its ring and figures, and fell apart under it (200 synthetic
scenes: of 102 face-up coins alone on wood, 22 missed and 12 unfitted; 2 and 7 with this).
Only a blob that has pixels over the frame's cut is cut lower, so the cut follows the
piece: one cut at 24 throughout grows every outline by its blur (2011 of 2791 pieces
read, against 2382), one at 0.4 of Otsu's 2311 and 3 more misread. Percentiles 70-90 (at
0.5) and shares 0.45-0.6 (at 70) read 2386-2416, none misread more; percentiles 50-60 or a
share of 0.4 read up to 2421 but misread one more coin. With the reader as it is now (discs
fitted at their own size, heap pieces compared without the others' overlap and looked at
again where they lie best aligned), the share was measured again: 0.5 read 2,694, 0.35
2,701, 0.25-0.3 2,707 and 0.2 2,706, none misread; left-out fronts taken as known 3 of
1,059 (0.2: 4). Most of the gain is in overlapping pieces (tiles face up 159 -> 163 of 167,
coins face up 162 -> 166 of 190): where a piece that changes little (a copper coin on wood)
touches one that changes much (a white card), the blob's cut is set by the card's change."""
PIECE_AREA_MIN = 0.03
"""Registration: a piece found in a photo covers at least this share of it."""
PIECE_AREA_ALONE = 0.10
"""... and below this share only when nothing else in the photo stands out from the surface
(:data:`STRAY_SHARE_MAX`): else it is print on a piece that fills the image (a scan)."""
STRAY_SHARE_MAX = 0.01
"""The share of a photo outside a small piece that may stand out from the surface (specks)."""

SURFACE_SIGMAS = 6.0
"""Registration: a pixel is the piece when its colour is this many of the surface's spreads
away from the surface's (what the photo's border shows)."""
SURFACE_SPREAD_MIN = 0.6
"""The least spread taken for a surface's colour (CIELAB): an 8-bit image's own rounding."""
SURFACE_SPREAD_STRICT = 2.0
"""... and the least taken where nothing of the kind's shape stands out by that: a plain
surface's noise."""
FULL_BLEED_SHARE = 0.8
"""A piece found spanning this share of a registration image both ways means the image is the
piece (a scan): a photo of a piece on a surface shows the surface round it."""

_UNIT_SQUARE = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]], np.float32)
_WARP_CHECK = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0],
                        [0.5, 0.0], [1.0, 0.5], [0.5, 1.0], [0.0, 0.5], [0.5, 0.5]], np.float64)
_WARP_CHECK_MIDDLES = [(u, v) for u, v in _WARP_CHECK[4:].tolist()]  # the edges' middles and the centre
_SPAN_UV = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)]
_FLT_EPSILON = float(np.finfo(np.float32).eps)


@dataclass(frozen=True)
class PieceKind:
    """One kind of piece: its outline's shape and its size in mm (width, height as stored;
    for a disc both are the diameter)."""

    name: str
    shape: str
    size_mm: tuple[float, float]

    @property
    def is_square(self) -> bool:
        """Whether a quarter turn leaves the outline unchanged (a disc, or a square tile)."""
        w, h = self.size_mm
        return self.shape == "disc" or abs(w - h) <= 0.02 * max(w, h)

    @property
    def area_mm2(self) -> float:
        """The piece's area in mm² (a disc's is its circle's)."""
        w, h = self.size_mm
        return w * h * (math.pi / 4 if self.shape == "disc" else 1.0)

    @property
    def aspect(self) -> float:
        """Shorter side over longer side (1.0 for a disc)."""
        w, h = self.size_mm
        return min(w, h) / max(w, h)

    @property
    def px_per_mm(self) -> float:
        """The scale of this kind's stored images, px/mm."""
        return min(PX_PER_MM, MAX_SIDE_PX / max(self.size_mm))

    @property
    def size_px(self) -> tuple[int, int]:
        """``(width, height)`` of this kind's stored images in px."""
        s = self.px_per_mm
        return max(8, round(self.size_mm[0] * s)), max(8, round(self.size_mm[1] * s))


@dataclass
class _Entry:
    kind: PieceKind
    fronts: dict[str, list[str]] = field(default_factory=dict)
    back: str | None = None


class Library:
    """A folder of piece kinds and their faces' images (see the module's docstring).

    Not thread-safe: one thread registers and reads. Images are read from disk when first
    asked for, then kept.
    """

    def __init__(self, root: Path, entries: dict[str, _Entry]) -> None:
        """Use :meth:`load` or :meth:`create`."""
        self._root = root
        self._entries = entries
        self._images: dict[str, np.ndarray] = {}
        self._revision = 0

    # -- opening --------------------------------------------------------------------------------

    @classmethod
    def load(cls, root: Path | str) -> Library:
        """The library in folder *root*.

        :raises LayoutError: naming the file and the field, when ``library.json`` is missing,
            not JSON, or not a library (images are checked when first read).
        """
        root = Path(root)
        path = root / LIBRARY_FILE
        return cls(root, _parse(read_json(path, "library"), path))

    @classmethod
    def create(cls, root: Path | str) -> Library:
        """A new, empty library in folder *root* (made if needed).

        :raises LayoutError: when *root* already holds a library, or cannot be written.
        """
        root = Path(root)
        path = root / LIBRARY_FILE
        if path.exists():
            raise LayoutError(f"library {path}: already exists (open it with Library.load)")
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LayoutError(f"library {root}: cannot make the folder ({exc.strerror})") from None
        library = cls(root, {})
        library._save()
        return library

    # -- reading ----------------------------------------------------------------------------------

    @property
    def root(self) -> Path:
        """The library's folder."""
        return self._root

    @property
    def path(self) -> Path:
        """The library's ``library.json``."""
        return self._root / LIBRARY_FILE

    @property
    def revision(self) -> int:
        """Goes up by one with each registration: a reader's cached references are stale."""
        return self._revision

    def kinds(self) -> tuple[str, ...]:
        """The kinds' names, sorted."""
        return tuple(sorted(self._entries))

    def kind(self, name: str) -> PieceKind:
        """The kind called *name*.

        :raises LayoutError: when the library has no such kind.
        """
        return self._entry(name).kind

    def fronts(self, kind: str) -> dict[str, tuple[np.ndarray, ...]]:
        """Each front's name -> its reference images (normalised, BGR uint8), in the order
        registered.

        :raises LayoutError: for an unknown kind, or an image that cannot be read.
        """
        entry = self._entry(kind)
        return {name: tuple(self._image(p, f"kinds.{kind}.fronts.{name}[{i}]") for i, p in enumerate(paths))
                for name, paths in sorted(entry.fronts.items())}

    def back(self, kind: str) -> np.ndarray | None:
        """The back's image (normalised, BGR uint8), or None when none was registered.

        :raises LayoutError: for an unknown kind, or an image that cannot be read.
        """
        entry = self._entry(kind)
        return None if entry.back is None else self._image(entry.back, f"kinds.{kind}.back")

    def _entry(self, kind: str) -> _Entry:
        entry = self._entries.get(kind)
        if entry is None:
            raise LayoutError(f"library {self.path}: no kind {kind!r} (kinds: {list(self.kinds())})")
        return entry

    def _image(self, rel: str, where: str) -> np.ndarray:
        cached = self._images.get(rel)
        if cached is not None:
            return cached
        try:
            self._images[rel] = _read_image(self._root / rel)
        except LayoutError as exc:
            raise LayoutError(f"library {self.path}: {where}: cannot read the image {rel!r}: {exc}") from None
        return self._images[rel]

    # -- registering ------------------------------------------------------------------------------

    def register(self, kind: str, shape: str, size_mm: Sequence[float], image: np.ndarray | Path | str,
                 *, front: str | None = None, back: bool = False) -> Path:
        """Add one face of a piece: *image* is a photo of the piece alone on a contrasting
        background, or the piece already cropped (then the whole image is taken). The piece
        is found, warped flat and upright to the kind's normalised size, and saved as a PNG;
        a front gains one more reference image each time, a back is replaced.

        *size_mm* is ``(width, height)`` as the piece should be stored (``(57, 88)``: portrait)
        or ``(d, d)`` for a disc. Returns the saved image's path.

        :raises TypeError: unless exactly one of *front* and *back* is given.
        :raises LayoutError: for a bad name, shape or size, a kind already registered with a
            different shape or size, an unreadable image, or a library that cannot be written.
        """
        if (front is None) == (not back):
            raise TypeError("register: give front=NAME or back=True (exactly one)")
        piece = self._kind_for(kind, shape, size_mm)
        if front is not None and not NAME.fullmatch(front):
            raise LayoutError(f"library {self.path}: front name must be letters, digits, '.', '_' "
                              f"or '-' (got {front!r})")
        flat = normalise(_as_bgr(image), piece)
        known = self._entries.get(kind)
        if front is not None:
            paths = known.fronts.get(front, []) if known is not None else []
            n = len(paths) + 1
            while (rel := f"fronts/{kind}/{front}-{n}.png") in paths or (self._root / rel).exists():
                n += 1
        else:
            rel = f"backs/{kind}.png"
        target = self._root / rel
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            ok, data = cv2.imencode(".png", flat)
            if not ok:
                raise OSError(0, "PNG encoding failed")
            target.write_bytes(np.asarray(data).tobytes())
        except OSError as exc:
            raise LayoutError(f"library {self.path}: cannot write {rel!r} ({exc.strerror})") from None
        # only now, with the image on disk, does the library change
        entry = self._entries.setdefault(kind, _Entry(piece))
        if front is not None:
            entry.fronts.setdefault(front, []).append(rel)
        else:
            entry.back = rel
        self._images[rel] = flat
        self._save()
        self._revision += 1
        return target

    def _kind_for(self, kind: str, shape: str, size_mm: Sequence[float]) -> PieceKind:
        if not NAME.fullmatch(kind):
            raise LayoutError(f"library {self.path}: kind name must be letters, digits, '.', '_' or '-' "
                              f"(got {kind!r})")
        if shape not in SHAPES:
            raise LayoutError(f"library {self.path}: kinds.{kind}.shape must be one of {list(SHAPES)} "
                              f"(got {shape!r})")
        size = _size(list(size_mm), f"library {self.path}: kinds.{kind}.size_mm")
        if shape == "disc" and abs(size[0] - size[1]) > 1e-9:
            raise LayoutError(f"library {self.path}: kinds.{kind}.size_mm of a disc must be "
                              f"[diameter, diameter] (got {list(size_mm)!r})")
        piece = PieceKind(kind, shape, size)
        known = self._entries.get(kind)
        if known is not None and (known.kind.shape, known.kind.size_mm) != (shape, size):
            raise LayoutError(f"library {self.path}: kinds.{kind} is already a {known.kind.shape} of "
                              f"{list(known.kind.size_mm)} mm (got a {shape} of {list(size)} mm)")
        return piece

    def _save(self) -> None:
        doc = {"kinds": {name: {"shape": e.kind.shape, "size_mm": list(e.kind.size_mm), "back": e.back,
                                "fronts": {f: list(p) for f, p in sorted(e.fronts.items())}}
                         for name, e in sorted(self._entries.items())}}
        tmp = self.path.with_name(LIBRARY_FILE + ".tmp")
        try:
            tmp.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError as exc:
            raise LayoutError(f"library {self.path}: cannot write it ({exc.strerror})") from None


# -- library.json ---------------------------------------------------------------------------------


def _parse(doc: Any, path: Path) -> dict[str, _Entry]:
    where = f"library {path}"
    if not isinstance(doc, dict) or not isinstance(doc.get("kinds"), dict):
        raise LayoutError(f"{where}: kinds must be an object of kind name -> kind "
                          f"(got {type(doc.get('kinds') if isinstance(doc, dict) else doc).__name__})")
    entries: dict[str, _Entry] = {}
    for name, spec in doc["kinds"].items():
        at = f"{where}: kinds.{name}"
        if not NAME.fullmatch(name):
            raise LayoutError(f"{where}: kinds: name must be letters, digits, '.', '_' or '-' (got {name!r})")
        if not isinstance(spec, dict):
            raise LayoutError(f"{at}: must be an object with shape, size_mm, back and fronts (got {spec!r})")
        shape = spec.get("shape")
        if shape not in SHAPES:
            raise LayoutError(f"{at}.shape: must be one of {list(SHAPES)} (got {shape!r})")
        size = _size(spec.get("size_mm"), f"{at}.size_mm")
        back = spec.get("back")
        if back is not None:
            back = _rel_path(back, f"{at}.back")
        fronts_doc = spec.get("fronts", {})
        if not isinstance(fronts_doc, dict):
            raise LayoutError(f"{at}.fronts: must be an object of front name -> image path(s) "
                              f"(got {fronts_doc!r})")
        fronts: dict[str, list[str]] = {}
        for front, paths in fronts_doc.items():
            if not NAME.fullmatch(front):
                raise LayoutError(f"{at}.fronts: name must be letters, digits, '.', '_' or '-' "
                                  f"(got {front!r})")
            listed = [paths] if isinstance(paths, str) else paths
            if not isinstance(listed, list) or not listed:
                raise LayoutError(f"{at}.fronts.{front}: must be an image path or a list of them "
                                  f"(got {paths!r})")
            fronts[front] = [_rel_path(p, f"{at}.fronts.{front}") for p in listed]
        entries[name] = _Entry(PieceKind(name, shape, size), fronts, back)
    return entries


def _size(value: Any, where: str) -> tuple[float, float]:
    ok = (isinstance(value, list) and len(value) == 2
          and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0
                  for v in value))
    if not ok:
        raise LayoutError(f"{where}: must be [width, height] in mm, both positive (got {value!r})")
    return float(value[0]), float(value[1])


def _rel_path(value: Any, where: str) -> str:
    if (not isinstance(value, str) or not value or value.startswith(("/", "\\")) or ":" in value
            or ".." in Path(value).parts):
        raise LayoutError(f"{where}: must be a path inside the library's folder (got {value!r})")
    return value


def _read_image(file: Path) -> np.ndarray:
    """The image file as BGR uint8, its header checked before it is decoded.

    :raises LayoutError: with the reason alone (the caller names the file): missing,
        unreadable, not an image, cut short, or over :data:`~vision.image_files.MAX_IMAGE_PX`.
    """
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise LayoutError(exc.strerror or "cannot read it") from None
    try:
        return decode_image(data)
    except ImageFileError as exc:
        raise LayoutError(str(exc)) from None


def _as_bgr(image: np.ndarray | Path | str) -> np.ndarray:
    if isinstance(image, (str, Path)):
        try:
            return _read_image(Path(image))
        except LayoutError as exc:
            raise LayoutError(f"image {image}: cannot read it as an image: {exc}") from None
    arr = np.asarray(image)
    if arr.dtype != np.uint8 or arr.ndim not in (2, 3) or min(arr.shape[:2]) < 8:
        raise LayoutError(f"image: must be an 8-bit grey, BGR or BGRA image of at least 8 x 8 px "
                          f"(got {arr.dtype} {arr.shape})")
    if arr.ndim == 2:
        return np.asarray(cv2.cvtColor(arr, cv2.COLOR_GRAY2BGR), np.uint8)
    if arr.shape[2] == 4:
        return np.ascontiguousarray(arr[:, :, :3])
    if arr.shape[2] != 3:
        raise LayoutError(f"image: must have 1, 3 or 4 channels (got {arr.shape[2]})")
    return arr


# -- finding and flattening a piece (shared with the reader) ---------------------------------------


def normalise(image: np.ndarray, kind: PieceKind) -> np.ndarray:
    """*image* holding one piece of *kind* -> the piece flat and upright at the kind's
    :attr:`PieceKind.size_px` (BGR uint8). The piece is the largest region that stands out
    from the background (by :data:`CONTRAST_MIN`), covers :data:`PIECE_AREA_MIN` of the
    image and fits the kind's shape; failing that, the image is taken to be the piece."""
    frame = find_piece(image, kind)
    if frame is None or _fills_image(frame, image.shape):
        # a full-bleed scan: what stood out was a line printed on the face, not its edge
        frame = whole_image_frame(image.shape[1], image.shape[0], kind)
    w, h = kind.size_px
    return warp(image, frame, (w, h))


def find_piece(image: np.ndarray, kind: PieceKind) -> np.ndarray | None:
    """The frame (see :func:`warp`) of the one piece of *kind* in *image*, in pixels, or None
    when nothing fitting stands out from the surface round it.

    The surface is what the image's border shows: a pixel is the piece where its colour
    (CIELAB) is :data:`SURFACE_SIGMAS` of the border's own spread away from the border's. The
    spread is first taken down to :data:`SURFACE_SPREAD_MIN` (a faint rim is the piece's);
    where nothing of the kind's shape stands out so, down to :data:`SURFACE_SPREAD_STRICT`
    only (the faint difference was something round the piece, such as its shadow)."""
    scale = min(1.0, 800.0 / max(image.shape[:2]))
    small = image if scale == 1.0 else np.asarray(
        cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), np.uint8)
    lab = np.asarray(cv2.cvtColor(cv2.GaussianBlur(small.astype(np.float32) / 255.0, (0, 0), 1.0),
                                  cv2.COLOR_BGR2Lab), np.float32)
    h, w = lab.shape[:2]
    band = max(2, round(0.03 * min(h, w)))
    ring = np.concatenate([lab[:band].reshape(-1, 3), lab[-band:].reshape(-1, 3),
                           lab[:, :band].reshape(-1, 3), lab[:, -band:].reshape(-1, 3)])
    surface = np.median(ring, axis=0)
    for least in (SURFACE_SPREAD_MIN, SURFACE_SPREAD_STRICT):
        spread = np.maximum(1.4826 * np.median(np.abs(ring - surface), axis=0), least)
        mask = (np.sqrt((((lab - surface) / spread) ** 2).sum(axis=2)) > SURFACE_SIGMAS).astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        # the outline's own pixels are part piece, part surface: one pixel in is the piece
        mask = np.asarray(cv2.erode(mask, np.ones((3, 3), np.uint8)), np.uint8)
        frame = _piece_in(mask, kind, scale)
        if frame is not None:
            return frame
    return None


def _piece_in(mask: np.ndarray, kind: PieceKind, scale: float) -> np.ndarray | None:
    """The frame of the largest part of *mask* (of an image shrunk by *scale*) that has the
    shape of *kind*, or None."""
    h, w = mask.shape
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    area_min = PIECE_AREA_MIN * h * w
    for c in sorted(contours, key=cv2.contourArea, reverse=True):
        if cv2.contourArea(c) < area_min:
            break
        if cv2.contourArea(c) < PIECE_AREA_ALONE * h * w and _stray(mask, c) > STRAY_SHARE_MAX:
            continue
        pts = (np.asarray(c, np.float32).reshape(-1, 2) + 0.5) / scale - 0.5
        if kind.shape == "rect":
            # the smallest rectangle round it: a tile's rounded corners are inside it
            box = np.asarray(cv2.boxPoints(cv2.minAreaRect(pts)), np.float32)
            fill = cv2.contourArea(pts) / max(cv2.contourArea(box), 1e-6)
            frame = fit_rect(box, kind) if fill >= RECT_FILL_MIN else None
        else:
            frame = fit_disc(pts, kind)
        if frame is not None:
            return frame
    return None


def _stray(mask: np.ndarray, contour: np.ndarray) -> float:
    """The share of *mask*'s pixels outside *contour* (grown by a few pixels) that are set."""
    inside = np.zeros_like(mask)
    cv2.drawContours(inside, [contour], -1, 1, cv2.FILLED)
    inside = cv2.dilate(inside, np.ones((7, 7), np.uint8))
    outside = inside == 0
    return float(mask[outside].mean()) if outside.any() else 0.0


def _fills_image(frame: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Whether the piece at *frame* spans :data:`FULL_BLEED_SHARE` of the image both ways."""
    corners = frame_points(frame, _UNIT_SQUARE.astype(np.float64))
    span = corners.max(axis=0) - corners.min(axis=0)
    return bool(span[0] >= FULL_BLEED_SHARE * shape[1] and span[1] >= FULL_BLEED_SHARE * shape[0])


def whole_image_frame(width_px: int, height_px: int, kind: PieceKind) -> np.ndarray:
    """The frame of a piece that is the whole image (a rect turned a quarter if the image's
    orientation is not the kind's; a disc: the centred square)."""
    w, h = float(width_px), float(height_px)
    if kind.shape == "disc":
        side = min(w, h)
        x0, y0 = (w - side) / 2, (h - side) / 2
        quad = np.array([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]], np.float32)
    else:
        quad = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) - 0.5
        if (w > h) != (kind.size_mm[0] > kind.size_mm[1]) and not kind.is_square:
            quad = np.roll(quad, -1, axis=0)  # a quarter turn: the piece's top edge is the image's right
    return np.asarray(cv2.getPerspectiveTransform(_UNIT_SQUARE, quad), np.float64)


def segment(image: np.ndarray, empty: np.ndarray | None = None,
            difference: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """Pieces against the table: a 0/1 uint8 mask of what is not table, and the contrast
    (brightness difference, 0-255) between the two.

    Without *empty*, the brightness (strongest channel: white cards, coloured tiles and a
    dark cloth all separate on it) is split by Otsu's threshold, and whichever side holds
    most of the image's border is the table. The table's brightness is then modelled place
    by place (its pixels, averaged over ~1/10 of the frame), and a piece is what differs
    from it by :data:`SEGMENT_TOWARDS_TABLE` of Otsu's step or more. With *empty* (the
    same view without pieces, same size), a pixel is a piece where it differs from it by
    half Otsu's threshold on the difference, and at least :data:`EMPTY_DIFF_MIN`; a blob
    that does is then grown to half its own difference (:func:`_cut_each`). Either way,
    specks under 3 px are opened away. *difference*: :func:`empty_difference` of the two,
    where it was worked out already.
    """
    if empty is not None:
        d8 = empty_difference(image, empty) if difference is None else difference
        t, _ = cv2.threshold(d8, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
        # as below, the cut sits nearer the unchanged side: where a piece happens to match
        # the cloth under it, the difference is small but the piece's outline must not break
        cut = max(SEGMENT_TOWARDS_TABLE * float(t), EMPTY_DIFF_MIN)
        mask, total, count = _cut_each(d8, cut)
        contrast = total / count if count else 0.0  # the mean change under the mask
    else:
        v = np.asarray(cv2.GaussianBlur(_strongest(image), (0, 0), 1.0), np.uint8)
        t, _ = cv2.threshold(v, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
        bright = v > t
        if not bright.any() or bright.all():
            return np.zeros(v.shape, np.uint8), 0.0
        contrast = abs(float(v[bright].mean()) - float(v[~bright].mean()))
        border = np.concatenate([bright[0], bright[-1], bright[:, 0], bright[:, -1]])
        table_is_bright = border.mean() > 0.5
        table_px = bright if table_is_bright else ~bright
        hist = cv2.calcHist([v], [0], table_px.astype(np.uint8), [256], [0, 256]).ravel()
        table = float(np.searchsorted(np.cumsum(hist), hist.sum() / 2))  # the median, from a histogram
        # The table's own brightness, place by place: the table pixels of Otsu's split,
        # averaged over ~1/10 of the frame (normalised convolution, at 1/8 size for speed),
        # so light falling across the table does not make it a piece.
        h, w = v.shape
        sh, sw = max(1, h // 8), max(1, w // 8)
        tab = np.asarray(cv2.resize(table_px.astype(np.float32), (sw, sh), interpolation=cv2.INTER_AREA))
        val = np.asarray(cv2.resize(np.where(table_px, v, 0).astype(np.float32), (sw, sh),
                                    interpolation=cv2.INTER_AREA))
        sigma = max(sh, sw) / 12
        num = np.asarray(cv2.GaussianBlur(val, (0, 0), sigma)) + 0.01 * table
        den = np.asarray(cv2.GaussianBlur(tab, (0, 0), sigma)) + 0.01
        local = np.asarray(cv2.resize(num / den, (w, h), interpolation=cv2.INTER_LINEAR), np.float32)
        # A piece differs from the table there by half Otsu's step or more: the table is
        # the even side, while a piece varies (its shadowed half, its print), so the cut sits
        # nearer the table (Set webcam scene: table 3-35, a shadowed card 87-134, Otsu 91).
        step = SEGMENT_TOWARDS_TABLE * abs(float(t) - table)
        diff = local - v if table_is_bright else v - local
        mask = (diff > step).astype(np.uint8)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel, dst=mask)
    return mask, contrast


def empty_difference(image: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """How much each pixel of *image* changed from the empty-table frame *empty* (BGR uint8,
    same size): the channels' absolute differences, both frames a little blurred, summed and
    saturated at 255 (uint8)."""
    # a 5 x 5 kernel: sigma 1's own is 7 x 7, 1.6x slower, for at most 3 levels' difference
    # (200 synthetic scenes read the same)
    # (in place where it can: each frame-sized array made anew costs ~0.2 ms of page faults
    # after a large allocation elsewhere, as the app's camera and screen make)
    blurred = cv2.GaussianBlur(image, (5, 5), 1.0)
    spare = np.asarray(cv2.GaussianBlur(empty, (5, 5), 1.0), np.uint8)
    diff = cv2.absdiff(blurred, spare, dst=blurred)
    # any channel's change counts: their sum, saturated at 255 (cv2.add saturates uint8;
    # ~15x faster than numpy's sum over the channel axis, 2x than cv2.transform); the green
    # and red planes are split into the blurred empty frame's memory, no longer needed
    h, w = diff.shape[:2]
    planes = [np.empty((h, w), np.uint8), *spare.reshape(-1)[:2 * h * w].reshape(2, h, w)]
    d8, g, r = cv2.split(np.asarray(diff, np.uint8), planes)  # into *planes* (as given back)
    cv2.add(d8, g, dst=d8)
    cv2.add(d8, r, dst=d8)
    return np.asarray(d8, np.uint8)


def _cut_each(d8: np.ndarray, cut: float) -> tuple[np.ndarray, float, int]:
    """The pixels of *d8* (uint8 change from the empty table) over *cut*, with each blob
    that has any grown to where it falls to :data:`OWN_EDGE_SHARE` of its own change (at
    least :data:`EMPTY_DIFF_MIN`, never above *cut*). A blob is what changed by more than
    :data:`EMPTY_DIFF_MIN`, connected; its change is its pixels' :data:`OWN_LEVEL_PERCENTILE`.

    With that mask, the sum of *d8* under it and its count of pixels (both exact: their
    quotient is numpy's mean of the masked pixels, to the bit). When blobs are grown, they
    are worked out from the blobs' histograms, which hold every masked pixel: no second pass
    over the frame (0.02 against 0.26 ms a frame)."""
    # thresholds by cv2: 10x numpy's comparisons
    mask = np.asarray(cv2.threshold(d8, math.floor(cut), 1, cv2.THRESH_BINARY)[1], np.uint8)
    if cut <= EMPTY_DIFF_MIN:
        count = cv2.countNonZero(mask)
        return mask, (cv2.sumElems(cv2.bitwise_and(d8, d8, mask=mask))[0] if count else 0.0), count
    changed = np.asarray(cv2.threshold(d8, math.floor(EMPTY_DIFF_MIN), 1, cv2.THRESH_BINARY)[1], np.uint8)
    n, labels = cv2.connectedComponents(changed, connectivity=8)
    # only the changed pixels (a twentieth of a frame or so), by flat index: one histogram per blob
    at = np.flatnonzero(changed.view(bool))  # 6x faster than on uint8
    # blob * 256 + change: the pixel's bin in its blob's histogram
    key = np.asarray(labels, np.int32).ravel()[at]
    key <<= 8
    key |= d8.ravel()[at]
    counts = np.bincount(key, minlength=n * 256).reshape(n, 256)
    cum = np.cumsum(counts, axis=1)
    level = (cum < cum[:, -1:] * (OWN_LEVEL_PERCENTILE / 100.0)).sum(axis=1)
    cuts = np.clip(OWN_EDGE_SHARE * level, EMPTY_DIFF_MIN, cut)
    # nothing over the frame's cut (an integer change over it is over its floor): not a piece
    seeded = cum[:, -1] > cum[:, min(math.floor(cut), 255)]
    # which bin of which blob is kept, then looked up pixel by pixel: one gather of the
    # changed pixels instead of four (the whole cut 1.8 -> 1.5 ms a frame)
    kept = seeded[:, None] & (np.arange(256) > cuts[:, None])
    mask.ravel()[at[kept.ravel()[key]]] = 1
    # every pixel over the frame's cut is in a seeded blob and over its cut: the mask is the
    # kept bins' pixels, all of them
    per_level = (counts * kept).sum(axis=0)
    return mask, float(per_level @ np.arange(256)), int(per_level.sum())


def _strongest(image: np.ndarray) -> np.ndarray:
    """Each pixel's strongest channel (HSV's value); ~20x faster than ``max(axis=2)``."""
    return np.asarray(np.maximum(np.maximum(image[:, :, 0], image[:, :, 1]), image[:, :, 2]), np.uint8)


def fit_rect(points: np.ndarray, kind: PieceKind, *, in_mm: bool = False) -> np.ndarray | None:
    """The frame of a rect piece whose outline is *points* (N x 2, in px or, with *in_mm*,
    table mm), or None when it is not the kind's shape (or, in mm, size).

    The quad is the convex hull simplified to four corners; its corners are ordered so that
    the frame's top edge is a short side for a portrait kind (a long one for a landscape
    kind) and points as near to +x as it can.
    """
    pts = np.asarray(points, np.float32).reshape(-1, 1, 2)
    if len(pts) < 4:
        return None
    hull = cv2.convexHull(pts)
    perimeter = cv2.arcLength(hull, True)
    quad32 = None  # float32, as cv2 gives it
    for eps in (0.02, 0.03, 0.04, 0.05, 0.06, 0.08):
        approx = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(approx) == 4:
            quad32 = np.asarray(approx, np.float32).reshape(4, 2)
            break
        if len(approx) < 4:
            break
    if quad32 is None:
        quad32 = np.asarray(cv2.boxPoints(cv2.minAreaRect(pts)), np.float32)
    quad = quad32.astype(np.float64)
    quad_area = abs(float(cv2.contourArea(quad32)))
    if quad_area <= 0:
        return None
    area = abs(float(cv2.contourArea(pts)))
    if in_mm:  # the size is checked below: a bitten outline's hull may stand in for it
        hull_fill = abs(float(cv2.contourArea(hull))) / quad_area
        if hull_fill < RECT_FILL_MIN or area / quad_area < BITTEN_FILL_MIN:
            return None
    elif area / quad_area < RECT_FILL_MIN:
        return None
    # the sides' lengths in plain floats, as numpy's norm along an axis works them out
    # (the root of dx * dx + dy * dy, to the bit): 0.6 against 9 us with np.roll
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = quad.tolist()
    a = (math.sqrt((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0))
         + math.sqrt((x3 - x2) * (x3 - x2) + (y3 - y2) * (y3 - y2))) / 2
    b = (math.sqrt((x2 - x1) * (x2 - x1) + (y2 - y1) * (y2 - y1))
         + math.sqrt((x0 - x3) * (x0 - x3) + (y0 - y3) * (y0 - y3))) / 2
    short, long_ = min(a, b), max(a, b)
    if abs(math.log(short / long_ / kind.aspect)) > ASPECT_TOLERANCE:
        return None
    if in_mm:
        k_short, k_long = min(kind.size_mm), max(kind.size_mm)
        if abs(short / k_short - 1) > SIZE_TOLERANCE or abs(long_ / k_long - 1) > SIZE_TOLERANCE:
            return None
    return frame_from_quad(quad, kind)


def disc_frame(centre: Sequence[float] | np.ndarray, kind: PieceKind) -> np.ndarray:
    """The frame of a disc of *kind* centred at *centre*, upright: the unit square to the
    square around it."""
    d = kind.size_mm[0]
    return np.array([[d, 0.0, centre[0] - d / 2], [0.0, d, centre[1] - d / 2], [0.0, 0.0, 1.0]])


def frame_from_quad(quad: np.ndarray, kind: PieceKind) -> np.ndarray:
    """The frame (unit square -> *quad*'s plane) of a rect piece of *kind* whose corners are
    *quad* (4 x 2, any order): its top edge is a short side for a portrait kind (a long one
    for a landscape kind), pointing as near to +x as it can."""
    corners = [(float(x), float(y)) for x, y in quad.tolist()]
    if quad.dtype == np.float64 and len(corners) == 4:  # the mean in plain floats, numpy's to the bit
        cx = (((corners[0][0] + corners[1][0]) + corners[2][0]) + corners[3][0]) / 4
        cy = (((corners[0][1] + corners[1][1]) + corners[2][1]) + corners[3][1]) / 4
    else:
        cx, cy = quad.mean(axis=0).tolist()
    # numpy's arctan2, not math.atan2: they differ in the last bit, which may order two
    # corners at the same angle differently
    angles = np.arctan2(quad[:, 1] - cy, quad[:, 0] - cx)
    pts = [corners[i] for i in np.argsort(angles).tolist()]  # clockwise on screen (y down)
    portrait = kind.size_mm[0] < kind.size_mm[1]
    best: tuple[float, int] | None = None
    for start in range(4):  # plain floats: this runs for every outline fitted
        (x0, y0), (x1, y1), (x3, y3) = pts[start], pts[(start + 1) % 4], pts[(start + 3) % 4]
        top, left = math.hypot(x1 - x0, y1 - y0), math.hypot(x3 - x0, y3 - y0)
        if not kind.is_square and (top < left) != portrait:
            continue
        turn = abs(math.atan2(y1 - y0, x1 - x0))
        if best is None or turn < best[0]:
            best = (turn, start)
    assert best is not None
    q = np.array([pts[(best[1] + i) % 4] for i in range(4)], np.float32)
    return np.asarray(cv2.getPerspectiveTransform(_UNIT_SQUARE, q), np.float64)


def fit_disc(points: np.ndarray, kind: PieceKind, *, in_mm: bool = False) -> np.ndarray | None:
    """The frame of a disc whose outline is *points* (N x 2, px or table mm with *in_mm*),
    or None when it is not round enough (or, in mm, the kind's size). The frame keeps the
    image's orientation: its x axis is the image's, as near as the ellipse allows.

    In mm the disc is the kind's own size at the ellipse's centre (:func:`disc_frame`): an
    outline grown by blur or a shadow would otherwise shrink the face in the warp (200
    synthetic scenes: face-up coins lying alone read 91 % -> 96 %)."""
    pts = np.asarray(points, np.float32).reshape(-1, 1, 2)
    if len(pts) < 6:
        return None
    hull = cv2.convexHull(pts)
    area = abs(float(cv2.contourArea(hull)))
    perimeter = float(cv2.arcLength(hull, True))
    if perimeter <= 0 or 4 * math.pi * area / perimeter**2 < DISC_CIRCULARITY_MIN:
        return None
    (cx, cy), (ax_w, ax_h), angle = cv2.fitEllipse(hull)
    if min(ax_w, ax_h) <= 0:
        return None
    ellipse_area = math.pi * ax_w * ax_h / 4
    fill = (area if in_mm else abs(float(cv2.contourArea(pts)))) / ellipse_area
    if not DISC_FILL[0] <= fill <= DISC_FILL[1]:
        return None
    if in_mm and abs(float(cv2.contourArea(pts))) / ellipse_area < BITTEN_FILL_MIN:
        return None
    ratio = min(ax_w, ax_h) / max(ax_w, ax_h)
    if in_mm:
        d = kind.size_mm[0]
        if ratio < 1 - SIZE_TOLERANCE or abs((ax_w + ax_h) / 2 / d - 1) > SIZE_TOLERANCE:
            return None
        return disc_frame((cx, cy), kind)
    if ratio < DISC_AXIS_MIN:
        return None
    t = math.radians(angle)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    m = rot @ np.diag([ax_w / 2, ax_h / 2]) @ rot.T  # unit disc -> ellipse, no extra turn
    # unit square (u, v) in [0, 1]^2 -> disc coordinates 2 (u, v) - 1 -> the ellipse
    to_disc = np.array([[2.0, 0.0, -1.0], [0.0, 2.0, -1.0], [0.0, 0.0, 1.0]])
    affine = np.array([[m[0, 0], m[0, 1], cx], [m[1, 0], m[1, 1], cy], [0.0, 0.0, 1.0]])
    return np.asarray(affine @ to_disc, np.float64)


def warp(image: np.ndarray, frame: np.ndarray, size_px: tuple[int, int],
         to_image: Callable[[np.ndarray], np.ndarray] | None = None) -> np.ndarray:
    """The piece whose *frame* is given, resampled to ``size_px = (width, height)``.

    A frame is a 3 x 3 homography from the unit square (u right, v down, both 0-1, the
    piece's own upright frame) to the plane the piece was fitted in: *image*'s pixels, or
    any plane (table mm) that *to_image* (a function of an (N, 2) array of plane points)
    maps to *image*'s pixels. The piece is sampled at up to 4 x 4 points per output pixel
    and averaged, so fine print (stripes) does not alias. Through *to_image*, a piece is
    small enough that the map is a homography to within :data:`WARP_HOMOGRAPHY_PX` (a
    lens's distortion bends it little over a card): then the one through the corners is
    used (checked at the edges' middles and the centre); else every :data:`WARP_MAP_STEP`-th
    sample each way is mapped, and the samples between are placed on straight lines between
    them (a lens bends smoothly).
    """
    w, h = size_px
    if to_image is not None:  # the corners' homography, checked at the edges' middles and the centre
        seen = np.asarray(to_image(_apply(frame, _WARP_CHECK)), np.float64)
        corners = seen[:4].astype(np.float32)
        fitted = np.asarray(cv2.getPerspectiveTransform(_UNIT_SQUARE, corners), np.float64)
        # all within the tolerance (a NaN is not, as it fails the max of the differences)
        if all(abs(x - sx) <= WARP_HOMOGRAPHY_PX and abs(y - sy) <= WARP_HOMOGRAPHY_PX
               for (x, y), (sx, sy) in zip(_unit_points(fitted, _WARP_CHECK_MIDDLES), seen[4:].tolist(),
                                           strict=True)):
            frame, to_image = fitted, None
    if to_image is None:
        (x0, y0), (x1, y1), (x3, y3) = _unit_points(frame, _SPAN_UV)
    else:
        (x0, y0), (x1, y1), _, (x3, y3) = seen[:4].tolist()
    # the longer side's pixels per output pixel, in plain floats; where that lies within
    # 1e-9 of a whole number, numpy's norm (as the over-sampling's ceiling is worked out
    # from it) says which side it is on
    dx1, dy1, dx3, dy3 = x1 - x0, y1 - y0, x3 - x0, y3 - y0
    span_px = max(math.sqrt(dx1 * dx1 + dy1 * dy1) / w, math.sqrt(dx3 * dx3 + dy3 * dy3) / h)
    if abs(span_px - round(span_px)) < 1e-9:
        span_px = float(max(np.linalg.norm(np.array([dx1, dy1])) / w,
                            np.linalg.norm(np.array([dx3, dy3])) / h))
    over = int(min(4, max(1, math.ceil(span_px))))
    ow, oh = w * over, h * over
    # output pixel (x, y) -> unit square ((x + 0.5) / ow, (y + 0.5) / oh)
    to_unit = np.array([[1.0 / ow, 0.0, 0.5 / ow], [0.0, 1.0 / oh, 0.5 / oh], [0.0, 0.0, 1.0]])
    if to_image is None:
        out = np.asarray(cv2.warpPerspective(image, frame @ to_unit, (ow, oh),
                                             flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                             borderMode=cv2.BORDER_REPLICATE), np.uint8)
    else:
        src = _sample_map(frame @ to_unit, to_image, ow, oh)
        out = np.asarray(cv2.remap(image, src[..., 0], src[..., 1], cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE), np.uint8)
    if over > 1:
        out = np.asarray(cv2.resize(out, (w, h), interpolation=cv2.INTER_AREA), np.uint8)
    return out


def _sample_map(to_plane: np.ndarray, to_image: Callable[[np.ndarray], np.ndarray],
                w: int, h: int) -> np.ndarray:
    """Where each of *w* x *h* samples (x, y: the plane at ``to_plane @ (x, y, 1)``) lies in
    the image (h x w x 2, float32): every :data:`WARP_MAP_STEP`-th mapped by *to_image*, and
    the rest linearly between them."""
    step = WARP_MAP_STEP
    gw, gh = (w - 1) // step + 2, (h - 1) // step + 2  # reaching past the last sample
    xs, ys = np.meshgrid(np.arange(gw, dtype=np.float64) * step, np.arange(gh, dtype=np.float64) * step)
    grid = np.asarray(to_image(_apply(to_plane, np.column_stack([xs.ravel(), ys.ravel()]))),
                      np.float64).reshape(gh, gw, 2)

    def between(n: int) -> tuple[np.ndarray, np.ndarray]:
        at = np.arange(n)
        return at // step, (at % step / step)[:, None]

    kx, tx = between(w)
    across = grid[:, kx] * (1 - tx) + grid[:, kx + 1] * tx  # gh x w x 2
    ky, ty = between(h)
    return np.asarray(across[ky] * (1 - ty)[:, None] + across[ky + 1] * ty[:, None], np.float32)


def _unit_points(frame: np.ndarray, uv: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """:func:`_apply` to a few points of the unit square whose coordinates are 0, 0.5 or 1,
    in plain floats (three points: 1.6 against 3.3 us, and no arrays to take apart after):
    their products are exact, so the sums and the reciprocal are cv2's to the bit."""
    (a, b, c), (d, e, f), (g, h, i) = np.asarray(frame, np.float64).tolist()
    out = []
    for u, v in uv:
        w = u * g + v * h + i
        if abs(w) > _FLT_EPSILON:
            w = 1.0 / w
            out.append(((u * a + v * b + c) * w, (u * d + v * e + f) * w))
        else:  # as cv2.perspectiveTransform
            out.append((0.0, 0.0))
    return out


def _apply(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(pts, np.asarray(h, np.float64)), np.float64).reshape(-1, 2)


def frame_points(frame: np.ndarray, uv: np.ndarray) -> np.ndarray:
    """The plane points (N x 2) at *uv* (N x 2) of the piece's own unit square."""
    return _apply(frame, uv)


def frame_point(frame: np.ndarray, u: float, v: float) -> tuple[float, float]:
    """The plane point at (u, v) of the piece's own unit square (0.5, 0.5: its centre), worked
    out in plain floats: a few times faster than an array through cv2 for one point."""
    (a, b, c), (d, e, f), (g, h, i) = np.asarray(frame, np.float64).tolist()
    w = g * u + h * v + i
    return (a * u + b * v + c) / w, (d * u + e * v + f) / w
