"""The real Set photographs (``data/set-game``, see its PROVENANCE.md), as the reader's tests
and ``benchmarks/piece_reading.py`` load them: the crops mirrored back, the scenes read in
their raw pixels' orientation, the labels in reading order (see ``test_reader.py``'s
docstring for why)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TypeVar

import cv2
import numpy as np

SET_GAME = Path(os.environ.get("COMPANION_SET_GAME_DATA", Path(__file__).with_name("data") / "set-game"))

T = TypeVar("T")


def crop(path: Path) -> np.ndarray:
    """A Set crop, mirrored back (the source project's cropper transposed them)."""
    image = cv2.imread(str(path))
    if image is None:
        raise FileNotFoundError(f"cannot read {path}")
    return np.asarray(cv2.flip(image, 1), np.uint8)


def scene(path: Path) -> np.ndarray:
    """A scene photo in its raw pixels' orientation: the labels follow those, not EXIF's."""
    image = cv2.imread(str(path), cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)
    if image is None:
        raise FileNotFoundError(f"cannot read {path}")
    return np.asarray(image, np.uint8)


def label(line: str) -> str:
    """``"2 red solid ovals"`` -> ``"2-red-solid-ovals"``, the folder names' format."""
    return "-".join(line.split())


def reading_order(items: list[tuple[tuple[float, float], T]]) -> list[T]:
    """The payloads of *items* (each at a centre) in reading order: rows top to bottom (a new
    row where the step down is over half the largest step: rows are a card apart, a row's own
    tilt much less), each left to right."""
    by_y = sorted(items, key=lambda it: it[0][1])
    steps = [b[0][1] - a[0][1] for a, b in zip(by_y, by_y[1:], strict=False)]
    rows: list[list[tuple[tuple[float, float], T]]] = [[by_y[0]]] if by_y else []
    for step, item in zip(steps, by_y[1:], strict=True):
        if step > 0.5 * max(steps):
            rows.append([])
        rows[-1].append(item)
    return [payload for row in rows for _, payload in sorted(row, key=lambda it: it[0][0])]
