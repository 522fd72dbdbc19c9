"""A long template on one small marker, placed by its own outline: boards drawn here at a known
scale (the helpers of ``test_track_colour``) and photographed through the project's camera model."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.test_track_colour import (
    ORANGE,
    PX,
    SKY,
    WOOD,
    _fill,
    board,
    camera_and_calibration,
    circuit,
    photo,
)
from vision import geometry, markers, outline
from vision.flight import MAX_BAND_MM, OPEN_MARGIN_MM, read_piece
from vision.layout import PieceSpec
from vision.track import Track

MARKER_ID = 40
MAGENTA = (190, 70, 200)
LENGTH, WIDTH, MARKER = 220.0, 28.0, 18.0


def template() -> PieceSpec:
    """A 220 x 28 mm strip with one 18 mm marker near one end, in its own frame."""
    outline = np.array([[0, 0], [LENGTH, 0], [LENGTH, WIDTH], [0, WIDTH]], float)
    x0, y0 = LENGTH - 40.0, (WIDTH - MARKER) / 2
    corners = np.array([[x0, y0], [x0 + MARKER, y0], [x0 + MARKER, y0 + MARKER], [x0, y0 + MARKER]])
    return PieceSpec(MARKER_ID, "template", outline, {MARKER_ID: corners}, speed=300)


def draw_template(tex: np.ndarray, spec: PieceSpec, x: float, y: float, theta: float,
                  colour: tuple[int, int, int], strip_shift_mm: float = 0.0) -> np.ndarray:
    """The template on the board texture: its strip (moved *strip_shift_mm* across itself from where
    its marker says, for a strip that is not where its marker is), and its marker with a quiet zone."""
    normal = np.array([-np.sin(theta), np.cos(theta)])
    strip = geometry.place(spec.outline_mm, x, y, theta) + strip_shift_mm * normal
    _fill(tex, geometry.polygon(strip), colour)
    quad = geometry.place(spec.markers[MARKER_ID], x, y, theta)
    centre = quad.mean(axis=0)
    _fill(tex, geometry.polygon(centre + (quad - centre) * 1.3), (255, 255, 255))
    side = 120
    img = cv2.aruco.generateImageMarker(markers.dictionary("DICT_4X4_50"), MARKER_ID, side, borderBits=1)
    src = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32) - 0.5
    warp = cv2.getPerspectiveTransform(src, ((quad + 20.0) * PX - 0.5).astype(np.float32))
    drawn = cv2.warpPerspective(cv2.cvtColor(img, cv2.COLOR_GRAY2BGR), warp, tex.shape[1::-1], flags=cv2.INTER_AREA)
    where = cv2.warpPerspective(np.full((side, side), 255, np.uint8), warp, tex.shape[1::-1]) > 127
    tex[where] = drawn[where]
    return geometry.place(spec.outline_mm, x, y, theta)


def scene(colour: tuple[int, int, int], strip_shift_mm: float = 0.0,  # type: ignore[no-untyped-def]
          gap_mm: float = 2.5):
    """A circuit with the template lying along its top arm, *gap_mm* clear of the outer edge at its
    nearest; the frame, the piece, the markers seen, the track and the true clearance."""
    truth, _seeds = circuit()
    _camera, cal, (w, h) = camera_and_calibration()
    tex = board(truth, 3.0, ORANGE, SKY, WOOD)
    spec = template()
    theta = np.radians(3.0)
    x, y = w / 2 - 110.0, h / 2 - 0.4 * h + 40.0
    for _ in range(6):  # slide it up until its nearest point is gap_mm from the edge
        gap = geometry.clearance(geometry.polygon(geometry.place(spec.outline_mm, x, y, theta)), truth)
        y -= gap.clearance_mm - gap_mm
    outline = draw_template(tex, spec, x, y, theta, colour, strip_shift_mm)
    image = photo(tex)
    seen = markers.detect(image)
    assert MARKER_ID in seen
    true_clearance = geometry.clearance(geometry.polygon(outline), truth).clearance_mm
    return image, spec, seen, cal, Track(truth), true_clearance


@pytest.mark.slow
def test_a_long_template_on_one_marker_is_placed_by_its_outline() -> None:
    image, spec, seen, cal, track, true_clearance = scene(MAGENTA)
    loose = read_piece(spec, seen, cal, track)  # type: ignore[arg-type]
    placed = read_piece(spec, seen, cal, track, image=image)  # type: ignore[arg-type]
    assert true_clearance == pytest.approx(2.5, abs=0.01)  # clear of the edge: a decisive call is owed
    assert loose.band_mm > 1.5 * placed.band_mm  # the marker alone leaves the far end loose
    assert placed.verdict == "clear"
    assert abs(placed.clearance_mm - true_clearance) < min(0.3, placed.band_mm)


@pytest.mark.parametrize(("colour", "shift"), [(SKY, 0.0), (MAGENTA, 6.0)],
                         ids=["the colour of the track", "6 mm off its marker"])
@pytest.mark.slow
def test_an_outline_that_cannot_be_trusted_leaves_the_markers_pose(colour: tuple[int, int, int],
                                                                   shift: float) -> None:
    image, spec, seen, cal, track, _true = scene(colour, shift)
    loose = read_piece(spec, seen, cal, track)  # type: ignore[arg-type]
    placed = read_piece(spec, seen, cal, track, image=image)  # type: ignore[arg-type]
    assert placed.clearance_mm == pytest.approx(loose.clearance_mm)
    assert placed.band_mm == pytest.approx(loose.band_mm)


@pytest.mark.slow
def test_a_piece_its_markers_call_clearly_is_not_fitted_to_its_outline() -> None:
    image, spec, seen, cal, track, true_clearance = scene(MAGENTA, gap_mm=6.0)
    loose = read_piece(spec, seen, cal, track)  # type: ignore[arg-type]
    placed = read_piece(spec, seen, cal, track, image=image)  # type: ignore[arg-type]
    assert abs(loose.clearance_mm) > loose.band_mm + OPEN_MARGIN_MM  # the markers decide it
    assert placed.verdict == "clear" and placed.clearance_mm == loose.clearance_mm
    assert placed.band_mm == loose.band_mm
    assert abs(placed.clearance_mm - true_clearance) < placed.band_mm
    if placed.band_mm > MAX_BAND_MM:  # one sharp marker far from the far end: not blur
        assert "small for its length" in placed.note


def test_an_outline_is_worked_out_once_and_read_alike_each_time() -> None:
    spec = template()
    key = np.ascontiguousarray(spec.outline_mm, np.float64).tobytes()
    shape = outline._shape(key)
    assert outline._shape(key) is shape
    # points along the four sides, none within CORNER_MM of a corner; inside points' depths true
    assert set(shape.sides.tolist()) == {0, 1, 2, 3}
    corners = spec.outline_mm
    gaps = np.min(np.hypot(*(shape.points[:, None, :] - corners[None]).transpose(2, 0, 1)), axis=1)
    assert gaps.min() >= outline.CORNER_MM - 1e-9
    x, y = shape.grid.T
    depth = np.minimum.reduce([x, LENGTH - x, y, WIDTH - y])
    np.testing.assert_allclose(shape.depth, depth, atol=1e-9)
