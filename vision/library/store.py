"""The piece library as an object: a folder of piece kinds and their faces' images, opened or
made, read kind by kind, and added to face by face (see :mod:`vision.library` for the format).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.errors import LayoutError
from vision.layout import read_json
from vision.library.files import (
    LIBRARY_FILE,
    KindEntry,
    as_bgr,
    parse_library,
    parse_size,
    read_image,
    write_library,
)
from vision.library.kind import NAME, SHAPES, PieceKind
from vision.library.registration import normalise


class Library:
    """A folder of piece kinds and their faces' images (see :mod:`vision.library`).

    Not thread-safe: one thread registers and reads. Images are read from disk when first
    asked for, then kept.
    """

    def __init__(self, root: Path, entries: dict[str, KindEntry]) -> None:
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
        return cls(root, parse_library(read_json(path, "library"), path))

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

    def _entry(self, kind: str) -> KindEntry:
        entry = self._entries.get(kind)
        if entry is None:
            raise LayoutError(f"library {self.path}: no kind {kind!r} (kinds: {list(self.kinds())})")
        return entry

    def _image(self, rel: str, where: str) -> np.ndarray:
        cached = self._images.get(rel)
        if cached is not None:
            return cached
        try:
            self._images[rel] = read_image(self._root / rel)
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
        flat = normalise(as_bgr(image), piece)
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
        entry = self._entries.setdefault(kind, KindEntry(piece))
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
        size = parse_size(list(size_mm), f"library {self.path}: kinds.{kind}.size_mm")
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
        write_library(self.path, self._entries)
