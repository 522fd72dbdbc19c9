"""The table's layout: where the table markers are, and the pieces' shapes, in millimetres.

A layout file is JSON (x right, y down, millimetres). Marker corners are in the printed
marker's own order: top-left, top-right, bottom-right, bottom-left. See the README's
"Overhead camera" section for the format; ``vision/data/volatio-layout.json`` is the
default for the Volatio set, its piece sizes approximations to be measured by the owner
(``companion vision learn-template``).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from shapely.geometry import Polygon

from vision.errors import LayoutError

DEFAULT_LAYOUT = Path(__file__).with_name("data") / "volatio-layout.json"
DICTIONARIES = ("DICT_4X4_50", "DICT_4X4_100", "DICT_5X5_50", "DICT_5X5_100", "DICT_6X6_50", "DICT_6X6_100")
KINDS = ("template", "dragon")


@dataclass(frozen=True)
class TableMarker:
    """A marker stuck to the table: its id and corners in table mm."""

    id: int
    corners_mm: np.ndarray  # (4, 2) float64


@dataclass(frozen=True)
class PieceSpec:
    """A piece that carries markers: its outline and its markers' corners in its own mm frame."""

    marker_id: int
    kind: str
    outline_mm: np.ndarray  # (N, 2)
    markers: dict[int, np.ndarray]  # id -> (4, 2); the primary marker_id is among them
    height_mm: float = 0.0
    speed: int | None = None
    name: str | None = None

    @property
    def label(self) -> str:
        if self.kind == "template":
            return f"template {self.speed}"
        return f"dragon {self.name}" if self.name else "dragon"


@dataclass(frozen=True)
class Layout:
    dictionary: str
    table_markers: tuple[TableMarker, ...]
    pieces: tuple[PieceSpec, ...] = ()
    play_area_mm: tuple[float, float] | None = None
    source: str = "<layout>"
    _by_marker: dict[int, PieceSpec] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        for piece in self.pieces:
            for mid in piece.markers:
                self._by_marker[mid] = piece

    def table_marker(self, marker_id: int) -> TableMarker | None:
        return next((m for m in self.table_markers if m.id == marker_id), None)

    def piece_for(self, marker_id: int) -> PieceSpec | None:
        """The piece that carries marker *marker_id*, or None."""
        return self._by_marker.get(marker_id)


def load_layout(path: Path | str | None = None) -> Layout:
    """Read a layout file (the Volatio default when *path* is None).

    :raises LayoutError: naming the file and the field, for anything unusable.
    """
    p = Path(path) if path is not None else DEFAULT_LAYOUT
    return parse_layout(read_json(p, "layout"), str(p))


def read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LayoutError(f"{what} {path}: cannot read it ({exc.strerror})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LayoutError(f"{what} {path}: not valid JSON ({exc})") from None


def _points(value: Any, where: str, *, count: int | None = None, minimum: int = 3) -> np.ndarray:
    ok = isinstance(value, list) and all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(c, (int, float)) and not isinstance(c, bool)
                                                    and math.isfinite(c) for c in p) for p in value)
    if not ok:
        raise LayoutError(f"{where}: must be a list of [x, y] points in mm")
    if count is not None and len(value) != count:
        raise LayoutError(f"{where}: must have exactly {count} points (got {len(value)})")
    if len(value) < minimum:
        raise LayoutError(f"{where}: needs at least {minimum} points (got {len(value)})")
    return np.asarray(value, dtype=np.float64)


def _marker_id(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1000:
        raise LayoutError(f"{where}: must be a marker id, a whole number from 0 (got {value!r})")
    return int(value)


def _square(corners: np.ndarray, where: str) -> None:
    sides = np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1)
    if sides.min() <= 0 or sides.max() / sides.min() > 1.05:
        raise LayoutError(f"{where}: the four corners must make a square "
                          f"(sides {np.round(sides, 2).tolist()} mm)")
    # clockwise on screen (y down): TL, TR, BR, BL
    x, y = corners[:, 0], corners[:, 1]
    if float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y)) <= 0:
        raise LayoutError(f"{where}: corners must go top-left, top-right, bottom-right, bottom-left")


def parse_layout(doc: Any, source: str = "<layout>") -> Layout:
    """A :class:`Layout` from a parsed JSON document. :raises LayoutError:"""
    if not isinstance(doc, dict):
        raise LayoutError(f"layout {source}: must be a JSON object")
    known = {"dictionary", "table_markers", "pieces", "play_area_mm", "note", "approximate"}
    for key in doc:
        if key not in known:
            raise LayoutError(f"layout {source}: {key}: unknown field (known: {', '.join(sorted(known))})")
    dictionary = doc.get("dictionary", "DICT_4X4_50")
    if dictionary not in DICTIONARIES:
        raise LayoutError(f"layout {source}: dictionary: must be one of {', '.join(DICTIONARIES)} "
                          f"(got {dictionary!r})")
    raw_markers = doc.get("table_markers")
    if not isinstance(raw_markers, list) or len(raw_markers) < 2:
        raise LayoutError(f"layout {source}: table_markers: needs at least 2 markers (4 are best)")
    seen: set[int] = set()
    markers = []
    for i, m in enumerate(raw_markers):
        where = f"layout {source}: table_markers[{i}]"
        if not isinstance(m, dict):
            raise LayoutError(f"{where}: must be an object with id and corners_mm")
        mid = _marker_id(m.get("id"), where + ".id")
        corners = _points(m.get("corners_mm"), where + ".corners_mm", count=4)
        _square(corners, where + ".corners_mm")
        if mid in seen:
            raise LayoutError(f"{where}.id: marker {mid} is used twice")
        seen.add(mid)
        markers.append(TableMarker(mid, corners))
    pieces = []
    for i, p in enumerate(doc.get("pieces", [])):
        where = f"layout {source}: pieces[{i}]"
        if not isinstance(p, dict):
            raise LayoutError(f"{where}: must be an object")
        kind = p.get("kind")
        if kind not in KINDS:
            raise LayoutError(f"{where}.kind: must be 'template' or 'dragon' (got {kind!r})")
        mid = _marker_id(p.get("marker_id"), where + ".marker_id")
        corners = _points(p.get("marker_corners_mm"), where + ".marker_corners_mm", count=4)
        _square(corners, where + ".marker_corners_mm")
        outline = _points(p.get("outline_mm"), where + ".outline_mm")
        if Polygon(outline).area < 1.0:
            raise LayoutError(f"{where}.outline_mm: must enclose an area (its points lie on a line)")
        piece_markers = {mid: corners}
        for j, extra in enumerate(p.get("markers", [])):
            w = f"{where}.markers[{j}]"
            eid = _marker_id(extra.get("id") if isinstance(extra, dict) else None, w + ".id")
            ec = _points(extra.get("corners_mm"), w + ".corners_mm", count=4)
            _square(ec, w + ".corners_mm")
            piece_markers[eid] = ec
        for pid in piece_markers:
            if pid in seen:
                raise LayoutError(f"{where}: marker {pid} is used twice")
            seen.add(pid)
        height = p.get("height_mm", 0.0)
        if isinstance(height, bool) or not isinstance(height, (int, float)) or not 0 <= height <= 200:
            raise LayoutError(f"{where}.height_mm: must be from 0 to 200 mm (got {height!r})")
        speed = p.get("speed")
        if kind == "template" and (isinstance(speed, bool) or not isinstance(speed, int)):
            raise LayoutError(f"{where}.speed: a template needs its speed, like 300 (got {speed!r})")
        pieces.append(PieceSpec(mid, kind, outline, piece_markers, float(height), speed, p.get("name")))
    area = doc.get("play_area_mm")
    play_area = None
    if area is not None:
        if not (isinstance(area, list) and len(area) == 2
                and all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in area)):
            raise LayoutError(f"layout {source}: play_area_mm: must be [width, height] in mm")
        play_area = (float(area[0]), float(area[1]))
    return Layout(dictionary, tuple(markers), tuple(pieces), play_area, source)


def layout_to_json(layout: Layout) -> dict[str, Any]:
    """The document :func:`parse_layout` reads back."""
    def pts(a: np.ndarray) -> list[list[float]]:
        return [[round(float(x), 3), round(float(y), 3)] for x, y in a]

    doc: dict[str, Any] = {"dictionary": layout.dictionary,
                           "table_markers": [{"id": m.id, "corners_mm": pts(m.corners_mm)}
                                             for m in layout.table_markers],
                           "pieces": []}
    if layout.play_area_mm is not None:
        doc["play_area_mm"] = list(layout.play_area_mm)
    for p in layout.pieces:
        entry: dict[str, Any] = {"marker_id": p.marker_id, "kind": p.kind}
        if p.speed is not None:
            entry["speed"] = p.speed
        if p.name is not None:
            entry["name"] = p.name
        entry["marker_corners_mm"] = pts(p.markers[p.marker_id])
        entry["outline_mm"] = pts(p.outline_mm)
        extra = [{"id": mid, "corners_mm": pts(c)} for mid, c in p.markers.items() if mid != p.marker_id]
        if extra:
            entry["markers"] = extra
        if p.height_mm:
            entry["height_mm"] = p.height_mm
        doc["pieces"].append(entry)
    return doc
