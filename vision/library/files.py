"""The library's files: ``library.json`` (checked field by field when loaded, written whole) and
the images of the faces (their headers checked before they are decoded).

See :mod:`vision.library` for the format.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.errors import LayoutError
from vision.image_files import ImageFileError, decode_image
from vision.library.kind import NAME, SHAPES, PieceKind

LIBRARY_FILE = "library.json"


@dataclass
class KindEntry:
    """One kind as ``library.json`` lists it: the kind, each front's image paths and the back's
    (relative to the library's folder)."""

    kind: PieceKind
    fronts: dict[str, list[str]] = field(default_factory=dict)
    back: str | None = None


def parse_library(doc: Any, path: Path) -> dict[str, KindEntry]:
    """The kinds listed in *doc* (``library.json`` at *path*, parsed), by name.

    :raises LayoutError: naming the file and the field that is wrong.
    """
    where = f"library {path}"
    if not isinstance(doc, dict) or not isinstance(doc.get("kinds"), dict):
        raise LayoutError(f"{where}: kinds must be an object of kind name -> kind "
                          f"(got {type(doc.get('kinds') if isinstance(doc, dict) else doc).__name__})")
    entries: dict[str, KindEntry] = {}
    for name, spec in doc["kinds"].items():
        at = f"{where}: kinds.{name}"
        if not NAME.fullmatch(name):
            raise LayoutError(f"{where}: kinds: name must be letters, digits, '.', '_' or '-' (got {name!r})")
        if not isinstance(spec, dict):
            raise LayoutError(f"{at}: must be an object with shape, size_mm, back and fronts (got {spec!r})")
        shape = spec.get("shape")
        if shape not in SHAPES:
            raise LayoutError(f"{at}.shape: must be one of {list(SHAPES)} (got {shape!r})")
        size = parse_size(spec.get("size_mm"), f"{at}.size_mm")
        back = spec.get("back")
        if back is not None:
            back = parse_rel_path(back, f"{at}.back")
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
            fronts[front] = [parse_rel_path(p, f"{at}.fronts.{front}") for p in listed]
        entries[name] = KindEntry(PieceKind(name, shape, size), fronts, back)
    return entries


def parse_size(value: Any, where: str) -> tuple[float, float]:
    """*value* as ``(width, height)`` in mm, both positive.

    :raises LayoutError: naming *where*.
    """
    ok = (isinstance(value, list) and len(value) == 2
          and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0
                  for v in value))
    if not ok:
        raise LayoutError(f"{where}: must be [width, height] in mm, both positive (got {value!r})")
    return float(value[0]), float(value[1])


def parse_rel_path(value: Any, where: str) -> str:
    """*value*, a path inside the library's folder.

    :raises LayoutError: naming *where*.
    """
    if (not isinstance(value, str) or not value or value.startswith(("/", "\\")) or ":" in value
            or ".." in Path(value).parts):
        raise LayoutError(f"{where}: must be a path inside the library's folder (got {value!r})")
    return value


def write_library(path: Path, entries: dict[str, KindEntry]) -> None:
    """*entries* written as the library's ``library.json`` at *path*, through a temporary file
    beside it (a reader never sees half of it).

    :raises LayoutError: when it cannot be written.
    """
    doc = {"kinds": {name: {"shape": e.kind.shape, "size_mm": list(e.kind.size_mm), "back": e.back,
                            "fronts": {f: list(p) for f, p in sorted(e.fronts.items())}}
                     for name, e in sorted(entries.items())}}
    tmp = path.with_name(LIBRARY_FILE + ".tmp")
    try:
        tmp.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise LayoutError(f"library {path}: cannot write it ({exc.strerror})") from None


def read_image(file: Path) -> np.ndarray:
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


def as_bgr(image: np.ndarray | Path | str) -> np.ndarray:
    """*image* (an array, or an image file's path) as BGR uint8.

    :raises LayoutError: for a file that cannot be read as an image, or an array that is not
        an 8-bit grey, BGR or BGRA image of at least 8 x 8 px.
    """
    if isinstance(image, (str, Path)):
        try:
            return read_image(Path(image))
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
