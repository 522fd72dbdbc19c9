"""Layout files, the plane geometry of the edge check, and the rigid fit: no camera needed."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Point, box

from vision import geometry
from vision.errors import LayoutError
from vision.flight import rigid_fit
from vision.layout import DEFAULT_LAYOUT, layout_to_json, load_layout, parse_layout
from vision.markers import arrange, sheet_items


def test_default_layout_is_the_volatio_set() -> None:
    layout = load_layout()
    assert [m.id for m in layout.table_markers] == [0, 1, 2, 3]
    templates = [p for p in layout.pieces if p.kind == "template"]
    assert [t.speed for t in templates] == [100, 200, 300, 400, 500, 600, 700, 800]
    assert all(len(t.markers) == 2 for t in templates)  # a marker at each end: rotation from a long baseline
    assert len([p for p in layout.pieces if p.kind == "dragon"]) == 6
    assert layout.piece_for(33) is layout.piece_for(13)
    assert json.loads(DEFAULT_LAYOUT.read_text())["approximate"] is True


def test_layout_round_trips_through_json() -> None:
    layout = load_layout()
    again = parse_layout(layout_to_json(layout))
    assert [p.marker_id for p in again.pieces] == [p.marker_id for p in layout.pieces]
    assert np.allclose(again.pieces[3].outline_mm, layout.pieces[3].outline_mm)


SQUARE = [[0, 0], [50, 0], [50, 50], [0, 50]]


@pytest.mark.parametrize(("doc", "message"), [
    ([], "must be a JSON object"),
    ({"table_markers": [], "colour": 1}, "colour: unknown field"),
    ({"dictionary": "DICT_9X9", "table_markers": []}, "dictionary: must be one of"),
    ({"table_markers": [{"id": 0, "corners_mm": SQUARE}]}, "needs at least 2 markers"),
    ({"table_markers": [{"id": 0, "corners_mm": SQUARE}, {"id": 0, "corners_mm": SQUARE}]}, "used twice"),
    ({"table_markers": [{"id": 0, "corners_mm": SQUARE}, {"id": 1, "corners_mm": [[0, 0], [50, 0], [50, 20], [0, 20]]}]},
     "must make a square"),
    ({"table_markers": [{"id": 0, "corners_mm": SQUARE}, {"id": 1, "corners_mm": SQUARE[::-1]}]},
     "top-left, top-right"),
    ({"table_markers": [{"id": 0, "corners_mm": SQUARE}, {"id": 1, "corners_mm": [[0, 0], [1, "x"]]}]},
     r"list of \[x, y\] points"),
    ({"table_markers": [{"id": 0, "corners_mm": SQUARE}, {"id": 1, "corners_mm": SQUARE}],
      "pieces": [{"marker_id": 5, "kind": "boat", "marker_corners_mm": SQUARE, "outline_mm": SQUARE}]}, "kind"),
    ({"table_markers": [{"id": 0, "corners_mm": SQUARE}, {"id": 1, "corners_mm": SQUARE}],
      "pieces": [{"marker_id": 5, "kind": "template", "marker_corners_mm": SQUARE, "outline_mm": SQUARE}]},
     "speed"),
    ({"table_markers": [{"id": 0, "corners_mm": SQUARE}, {"id": 1, "corners_mm": SQUARE}],
      "pieces": [{"marker_id": 5, "kind": "dragon", "marker_corners_mm": SQUARE,
                  "outline_mm": [[0, 0], [100, 0], [200, 0]]}]},
     r"outline_mm: must enclose an area"),
])
def test_bad_layouts_name_the_field(doc: object, message: str) -> None:
    with pytest.raises(LayoutError, match=message):
        parse_layout(doc, "t.json")


def test_unreadable_layout_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "l.json"
    bad.write_text("{nope")
    with pytest.raises(LayoutError, match="not valid JSON"):
        load_layout(bad)
    with pytest.raises(LayoutError, match="cannot read it"):
        load_layout(tmp_path / "missing.json")


# -- clearance ------------------------------------------------------------------------------------

TRACK = box(0, 0, 400, 200)


@given(st.floats(10, 390), st.floats(10, 190), st.floats(0, 2 * math.pi), st.floats(-8, 8))
def test_clearance_is_the_distance_inside_and_the_reach_outside(x: float, y: float, theta: float,
                                                                 shift: float) -> None:
    piece = geometry.polygon(geometry.place(np.array([[-5.0, -5.0], [5.0, -5.0], [5.0, 5.0], [-5.0, 5.0]]),
                                            x, y, theta))
    c = geometry.clearance(piece, TRACK)
    if piece.within(TRACK) and not piece.intersects(TRACK.boundary):
        assert c.clearance_mm == pytest.approx(piece.distance(TRACK.boundary))
        assert c.clearance_mm > 0 and not c.touches
    else:
        outside = piece.difference(TRACK)
        reach = max((TRACK.distance(Point(p)) for p in np.asarray(outside.exterior.coords)), default=0.0) \
            if not outside.is_empty else 0.0
        assert c.clearance_mm == pytest.approx(-reach)
        assert c.touches
    assert TRACK.boundary.distance(Point(c.contact_mm)) < 1e-6  # the contact is on the edge


def test_clearance_across_the_edge_and_on_it() -> None:
    assert geometry.clearance(box(395, 50, 405, 60), TRACK).clearance_mm == pytest.approx(-5)
    assert geometry.clearance(box(390, 50, 400, 60), TRACK).clearance_mm == 0
    inside = geometry.clearance(box(380, 50, 390, 60), TRACK)
    assert inside.clearance_mm == pytest.approx(10) and inside.contact_mm[0] == pytest.approx(400)


def test_a_piece_wholly_off_the_track_reaches_as_far_as_its_farthest_corner() -> None:
    assert geometry.clearance(box(500, 250, 520, 260), TRACK).clearance_mm == pytest.approx(-math.hypot(120, 60))


def test_clearance_sees_a_hole_as_an_edge() -> None:
    ring = box(0, 0, 400, 400).difference(box(150, 150, 250, 250))
    assert geometry.clearance(box(140, 190, 148, 200), ring).clearance_mm == pytest.approx(2)
    assert geometry.clearance(box(145, 190, 155, 200), ring).clearance_mm == pytest.approx(-5)


@settings(max_examples=200)
@given(st.floats(-500, 500), st.floats(-500, 500), st.floats(-math.pi, math.pi),
       st.lists(st.tuples(st.floats(-50, 50), st.floats(-50, 50)), min_size=3, max_size=12, unique=True))
@pytest.mark.slow
def test_rigid_fit_recovers_a_rigid_motion(tx: float, ty: float, theta: float, pts: list[tuple[float, float]]) -> None:
    src = np.asarray(pts)
    if np.linalg.matrix_rank(src - src.mean(axis=0)) < 2:
        return  # points on a line fix no rotation
    dst = geometry.place(src, tx, ty, theta)
    rot, t, rms = rigid_fit(src, dst)
    assert rms < 1e-6
    assert np.allclose(src @ rot.T + t, dst, atol=1e-6)


def test_sheet_holds_every_marker_once_at_true_size() -> None:
    layout = load_layout()
    items = sheet_items(layout)
    assert sorted(i.marker_id for i in items) == sorted([m.id for m in layout.table_markers]
                                                        + [mid for p in layout.pieces for mid in p.markers])
    placed = arrange(items)
    boxes = [(p.page, box(p.x_mm - 4, p.y_mm - 4, p.x_mm + p.item.side_mm + 4, p.y_mm + p.item.side_mm + 4))
             for p in placed]
    for i, (page_a, a) in enumerate(boxes):
        assert box(0, 0, 210, 297).contains(a)
        assert not any(page_a == page_b and a.intersects(b) for page_b, b in boxes[i + 1:])
