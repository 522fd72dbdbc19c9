"""Placing the track's edge along a ring's normals: rectified colour images with an edge at a
known place, blurred as a camera blurs."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import track_edge

S = 4.0  # px per mm, as learn-track rectifies
EDGE_X_MM = 40.3


def straight_edge(track_bgr: tuple[int, int, int], line_bgr: tuple[int, int, int],
                  blur_px: float) -> tuple[np.ndarray, np.ndarray]:
    """A rectified board 80 x 60 mm: the track left of x = EDGE_X_MM, a 3 mm line right of it, the
    table past the line; blurred, in BGR and (smoothed as learn-track smooths) CIELAB."""
    w, h = int(80 * S), int(60 * S)
    xs = (np.arange(w * 8) + 0.5) / (8 * S)  # eight sub-samples a pixel, then averaged
    row = np.where(xs < EDGE_X_MM, 0, np.where(xs < EDGE_X_MM + 3.0, 1, 2))
    colours = np.array([track_bgr, line_bgr, (60, 110, 160)], np.float32)
    fine = colours[row].reshape(w, 8, 3).mean(axis=1)
    img = np.repeat(fine[None], h, axis=0).astype(np.float32)
    if blur_px:
        img = cv2.GaussianBlur(img, (0, 0), blur_px)
    bgr = np.asarray(cv2.GaussianBlur(img, (0, 0), track_edge.SMOOTH_MM * S), np.float32)
    lab = cv2.GaussianBlur(track_edge.to_lab(img), (0, 0), track_edge.SMOOTH_MM * S)
    return bgr, lab


def refined_x(bgr: np.ndarray | None, lab: np.ndarray, start_mm: float) -> np.ndarray:
    """The edge found from a vertical ring at *start_mm* (its normal pointing right, off the track)."""
    ys = np.arange(10.0, 50.0, 2.0)
    ring = np.column_stack([np.full(len(ys), start_mm), ys])
    edge = track_edge.refine(ring, lab, S, (0.0, 0.0), bgr)
    assert edge.found.all()
    return edge.points[:, 0]


@pytest.mark.parametrize(("track_bgr", "line_bgr"), [
    ((250, 250, 250), (90, 40, 30)),  # a white cloud against a navy line
    ((235, 200, 150), (90, 40, 30)),  # sky against navy
    ((235, 200, 150), (150, 20, 200)),  # sky against magenta
    ((200, 225, 235), (30, 120, 235)),  # parchment against orange
])
@pytest.mark.parametrize("blur_px", [0.0, 1.0, 2.0])
def test_the_edge_is_where_the_colour_is_half_way_between_track_and_line(
        track_bgr: tuple[int, int, int], line_bgr: tuple[int, int, int], blur_px: float) -> None:
    bgr, lab = straight_edge(track_bgr, line_bgr, blur_px)
    for start in (EDGE_X_MM - 1.5, EDGE_X_MM + 0.7):  # the flood's outline, in or out a little
        x = refined_x(bgr, lab, start)
        assert np.abs(x - EDGE_X_MM).max() < 0.03


def test_without_the_image_the_edge_is_the_steepest_change_of_colour() -> None:
    """CIELAB's steepest change leans towards the darker side: the half-way colour corrects it."""
    bgr, lab = straight_edge((250, 250, 250), (90, 40, 30), 2.0)
    steepest = refined_x(None, lab, EDGE_X_MM)
    assert float(np.median(steepest)) > EDGE_X_MM + 0.04
    assert np.abs(refined_x(bgr, lab, EDGE_X_MM) - EDGE_X_MM).max() < 0.03


def test_half_way_is_zero_where_the_colour_does_not_cross() -> None:
    flat = np.full((40, 40, 3), 128.0, np.float32)
    points = np.array([[5.0, 5.0]])
    assert track_edge.half_way(flat, points, np.array([[1.0, 0.0]]), S, (0.0, 0.0))[0] == 0.0
