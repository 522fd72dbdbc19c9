"""Learning a track whose edge line contrasts in colour only, with islands, print on the track and
glare: boards drawn here at a known scale and photographed through the project's camera model."""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path

import cv2
import numpy as np
import pytest
from shapely.geometry import Point, Polygon

from tests.support import synth
from vision import geometry
from vision.calibration import Lens, calibrate
from vision.errors import TrackRefused
from vision.flight import read_piece
from vision.layout import load_layout
from vision.track import Track, learn_track

PX = 4.0  # texture pixels per mm
ORANGE, SKY, WOOD, CREAM, NAVY = (30, 120, 235), (235, 200, 150), (60, 110, 160), (200, 225, 235), (90, 40, 30)


@cache
def camera_and_calibration() -> tuple[synth.CameraModel, object, tuple[float, float]]:
    empty = synth.random_scene(21, empty=True)
    lens = Lens(empty.camera.K, empty.camera.dist)
    return empty.camera, calibrate(empty.image, empty.layout, lens), synth.table_area(empty.layout)


def _mm_to_px(poly: Polygon) -> list[np.ndarray]:
    rings = [poly.exterior, *poly.interiors]
    return [np.round((np.asarray(r.coords) + 20.0) * PX * 16).astype(np.int32) for r in rings]


def _fill(tex: np.ndarray, poly: Polygon, bgr: tuple[int, int, int]) -> None:
    cv2.fillPoly(tex, _mm_to_px(poly), bgr, cv2.LINE_AA, 4)


def board(track: Polygon, line_mm: float, line_bgr: tuple[int, int, int], surface_bgr: tuple[int, int, int],
          outside_bgr: tuple[int, int, int], seed: int = 0) -> np.ndarray:
    """A printed board over the table area (from -20 mm): *outside*, the edge line round the track,
    the track's *surface* with soft light clouds on it."""
    _camera, _cal, (w, h) = camera_and_calibration()
    rng = np.random.default_rng(seed)
    tex = np.zeros((int((h + 40) * PX), int((w + 40) * PX), 3), np.uint8)
    tex[:] = outside_bgr
    _fill(tex, track.buffer(line_mm, quad_segs=32), line_bgr)
    surface = np.zeros_like(tex)
    surface[:] = surface_bgr
    clouds = np.zeros(tex.shape[:2], np.float32)
    for _ in range(12):
        centre = (int(rng.uniform(0, tex.shape[1])), int(rng.uniform(0, tex.shape[0])))
        cv2.circle(clouds, centre, int(rng.uniform(10, 25) * PX), 1.0, -1)
    clouds = cv2.GaussianBlur(clouds, (0, 0), 5 * PX)[..., None] * 0.8
    surface = (surface * (1 - clouds) + 250 * clouds).astype(np.uint8)
    inside = np.zeros(tex.shape[:2], np.uint8)
    cv2.fillPoly(inside, _mm_to_px(track), 255, cv2.LINE_AA, 4)
    alpha = inside[..., None].astype(np.float32) / 255
    out = (tex * (1 - alpha) + surface * alpha).astype(np.uint8)
    layout = load_layout()
    for marker in layout.table_markers:  # each with its white quiet zone, as printed
        quad = (marker.corners_mm + 20.0) * PX
        centre = quad.mean(axis=0)
        cv2.fillPoly(out, [np.round((centre + (quad - centre) * 1.4) * 16).astype(np.int32)], (255, 255, 255),
                     cv2.LINE_AA, 4)
        side = 120
        img = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, layout.dictionary)),
                                            marker.id, side, borderBits=1)
        src = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32) - 0.5
        warp = cv2.getPerspectiveTransform(src, (quad - 0.5).astype(np.float32))
        drawn = cv2.warpPerspective(cv2.cvtColor(img, cv2.COLOR_GRAY2BGR), warp, out.shape[1::-1], flags=cv2.INTER_AREA)
        where = cv2.warpPerspective(np.full((side, side), 255, np.uint8), warp, out.shape[1::-1]) > 127
        out[where] = drawn[where]
    return out


def photo(texture: np.ndarray) -> np.ndarray:
    camera, _cal, _area = camera_and_calibration()
    return synth.render_texture_on_table(texture, 1 / PX, (-20.0, -20.0), camera, synth.Effects.none(),
                                         np.random.default_rng(1))


def learn(image: np.ndarray, seeds: list[tuple[float, float]]) -> Track:
    _camera, cal, _area = camera_and_calibration()
    return learn_track(image, cal, load_layout(), seeds)  # type: ignore[arg-type]


def oval(cx: float, cy: float, rx: float, ry: float) -> Polygon:
    t = np.linspace(0, 2 * np.pi, 256, endpoint=False)
    return Polygon(np.column_stack([cx + rx * np.cos(t), cy + ry * np.sin(t)]))


def mean_edge_error(learned: Polygon, truth: Polygon) -> float:
    edge = learned.boundary
    pts = [truth.exterior.interpolate(d) for d in np.arange(0, truth.exterior.length, 1.0)]
    for hole in truth.interiors:
        pts += [hole.interpolate(d) for d in np.arange(0, hole.length, 1.0)]
    return float(np.mean([edge.distance(p) for p in pts]))


def circuit() -> tuple[Polygon, list[tuple[float, float]]]:
    _camera, _cal, (w, h) = camera_and_calibration()
    outer = oval(w / 2, h / 2, 0.4 * w, 0.4 * h)
    infield = oval(w / 2, h / 2, 0.4 * w - 60, 0.4 * h - 60)
    return Polygon(outer.exterior, [infield.exterior]), [(w / 2, h / 2 - 0.4 * h + 30)]


@pytest.mark.slow
def test_an_orange_line_on_a_light_track_is_followed_to_a_fraction_of_a_mm() -> None:
    """No darkness barrier: the orange line is nearly as bright as the sky-blue track."""
    truth, seeds = circuit()
    track = learn(photo(board(truth, 3.0, ORANGE, SKY, WOOD)), seeds)
    assert len(track.region.interiors) == 1  # the infield, showing the table's wood
    assert mean_edge_error(track.region, truth) < 0.3
    assert abs(track.region.area - truth.area) / truth.area < 0.01


@pytest.mark.slow
def test_islands_framed_by_the_line_are_holes_and_print_on_the_track_is_track() -> None:
    truth, seeds = circuit()
    _camera, _cal, (w, h) = camera_and_calibration()
    island = oval(w / 2 - 0.4 * w + 30, h / 2, 6, 6)  # in the track's left arm, framed by the line
    tex = board(Polygon(truth.exterior, [*truth.interiors, island.exterior]), 2.5, NAVY, CREAM, WOOD)
    _fill(tex, oval(w / 2 + 0.4 * w - 30, h / 2, 7, 7), (40, 40, 200))  # a red symbol on the right arm
    ring = oval(w / 2, h / 2 + 0.4 * h - 30, 9, 9).difference(oval(w / 2, h / 2 + 0.4 * h - 30, 7, 7))
    _fill(tex, ring, (40, 160, 40))  # a green ring printed on the bottom arm
    track = learn(photo(tex), seeds)
    holes = [Polygon(h) for h in track.region.interiors]
    assert len(holes) == 2
    assert any(h.contains(island.centroid) for h in holes)
    assert track.region.contains(Point(w / 2 + 0.4 * w - 30, h / 2))  # the symbol is driven over
    assert track.region.contains(Point(w / 2, h / 2 + 0.4 * h - 30))  # and the ring's middle


@pytest.mark.slow
def test_a_track_washed_out_by_glare_is_refused_where_it_happens() -> None:
    truth, seeds = circuit()
    _camera, _cal, (w, h) = camera_and_calibration()
    tex = board(truth, 3.0, ORANGE, SKY, WOOD).astype(np.float32)
    glare_at = (w / 2 + 0.4 * w, h / 2)  # on the outer edge's right side
    blob = np.zeros(tex.shape[:2], np.float32)
    cv2.circle(blob, (int((glare_at[0] + 20) * PX), int((glare_at[1] + 20) * PX)), int(30 * PX), 1.0, -1)
    blob = cv2.GaussianBlur(blob, (0, 0), 8 * PX)[..., None]
    tex = (tex * (1 - blob) + 255 * blob).astype(np.uint8)
    with pytest.raises(TrackRefused, match=r"the track runs out of the play area near \d+,\d+ mm: the edge "
                                           r"line is not seen all round it") as refused:
        learn(photo(tex), seeds)
    assert refused.value.at_mm is not None


def test_the_band_widens_where_the_learned_edge_is_faint() -> None:
    layout = load_layout()
    spec = next(p for p in layout.pieces if p.kind == "template")
    mid = spec.marker_id
    _camera, cal, _area = camera_and_calibration()
    placed = {m: c + [300.0, 200.0] for m, c in spec.markers.items()}
    seen = {m: np.asarray(cal.to_image(c, spec.height_mm)) for m, c in placed.items()}  # type: ignore[attr-defined]
    outline = spec.outline_mm + [300.0, 200.0]
    top = float(outline[:, 1].min())
    region = Polygon([(0, top - 4.0), (900, top - 4.0), (900, 900), (0, 900)])  # the edge 4 mm above it
    clear = read_piece(spec, {mid: seen[mid]}, cal, Track(region))  # type: ignore[arg-type]
    near = np.asarray([[clear.contact_mm[0] + 1.0, clear.contact_mm[1]]])
    faint = read_piece(spec, {mid: seen[mid]}, cal, Track(region, near))  # type: ignore[arg-type]
    assert clear.clearance_mm == pytest.approx(faint.clearance_mm)
    assert faint.band_mm == pytest.approx(clear.band_mm + 1.0)


def test_a_piece_edge_crossing_an_infield_between_its_corners_reaches_past_it() -> None:
    """Clearance of a piece whose straight edge cuts across a round infield's bulge: the farthest
    point past the edge lies mid-edge, not at a corner."""
    track = Polygon([(-200, -200), (200, -200), (200, 200), (-200, 200)], [oval(0, 0, 50, 50).exterior.coords])
    piece = geometry.polygon(np.array([[-100.0, 40.0], [100.0, 40.0], [100.0, 60.0], [-100.0, 60.0]]))
    assert geometry.clearance(piece, track).clearance_mm == pytest.approx(-10.0, abs=0.01)


@pytest.mark.slow
def test_learn_track_writes_only_a_track_that_checks_out_and_draws_either_way(tmp_path: Path) -> None:
    """Through the CLI: a refused track leaves no track file, one line on stderr, exit 2, and a
    picture of where; a learned one is saved, drawn, and checked against by check-flight."""
    truth, seeds = circuit()
    _camera, _cal, (w, h) = camera_and_calibration()
    good = board(truth, 3.0, ORANGE, SKY, WOOD)
    blob = np.zeros(good.shape[:2], np.float32)
    cv2.circle(blob, (int((w / 2 + 0.4 * w + 20) * PX), int((h / 2 + 20) * PX)), int(30 * PX), 1.0, -1)
    blob = cv2.GaussianBlur(blob, (0, 0), 8 * PX)[..., None]
    glare = (good * (1 - blob) + 255 * blob).astype(np.uint8)
    seed_args = [a for x, y in seeds for a in ("--seed", f"{x:.1f},{y:.1f}")]
    for name, texture in (("good", good), ("glare", glare)):
        cv2.imwrite(str(tmp_path / f"{name}.png"), photo(texture))

    def companion(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "companion", "vision", *args], capture_output=True,
                              text=True, timeout=300)

    refused = companion("learn-track", str(tmp_path / "glare.png"), *seed_args, "--out", str(tmp_path / "g.json"),
                        "--overlay", str(tmp_path / "g.png"))
    assert refused.returncode == 2, refused.stderr
    assert "the track runs out" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "g.json").exists()
    assert cv2.imread(str(tmp_path / "g.png")) is not None

    learned = companion("learn-track", str(tmp_path / "good.png"), *seed_args, "--out", str(tmp_path / "t.json"),
                        "--overlay", str(tmp_path / "t.png"), "--json")
    assert learned.returncode == 0, learned.stderr
    assert json.loads(learned.stdout)["polygons_mm"] == json.loads((tmp_path / "t.json").read_text())["polygons_mm"]
    picture = cv2.imread(str(tmp_path / "t.png"))
    assert picture is not None and picture.shape == cv2.imread(str(tmp_path / "good.png")).shape
    assert np.abs(picture.astype(int) - cv2.imread(str(tmp_path / "good.png")).astype(int)).max() > 100  # drawn on
    checked = companion("check-flight", str(tmp_path / "good.png"), "--track", str(tmp_path / "t.json"),
                        "--overlay", str(tmp_path / "f.png"), "--json")
    assert checked.returncode == 0, checked.stderr
    assert json.loads(checked.stdout)["pieces"] == [] and cv2.imread(str(tmp_path / "f.png")) is not None


@pytest.mark.slow
def test_a_wide_band_of_print_along_the_edge_gives_the_true_track_or_a_refusal() -> None:
    """Print too wide to bridge that runs along the edge line: the learned edge must not follow it
    (a piece on the print would be called past the edge): the track comes back right, or is refused
    with the place."""
    truth, seeds = circuit()
    _camera, _cal, (w, h) = camera_and_calibration()
    tex = board(truth, 3.0, NAVY, CREAM, WOOD)
    band = truth.exterior.buffer(0.5).intersection(oval(w / 2, h / 2 + 0.4 * h, 60, 30)).buffer(14, quad_segs=16)
    _fill(tex, band.intersection(truth), (40, 200, 230))  # a yellow band 14 mm wide on the track's bottom edge
    try:
        track = learn(photo(tex), seeds)
    except TrackRefused as refused:
        assert refused.at_mm is not None and np.hypot(refused.at_mm[0] - w / 2, refused.at_mm[1] - (h / 2 + 0.4 * h)) < 60
        return
    assert mean_edge_error(track.region, truth) < 0.3


@pytest.mark.slow
@pytest.mark.parametrize("seed", [29, 124])
def test_guide_lines_running_close_together_into_the_line_are_track(seed: int) -> None:
    """The tests' renderer's boards where two guide lines cross the track close together into the
    edge line: too wide together to bridge, they are print on the track, not a notch in it."""
    empty = synth.random_scene(seed, empty=True)
    cal = calibrate(empty.image, empty.layout, Lens(empty.camera.K, empty.camera.dist))
    track = learn_track(empty.image, cal, empty.layout, empty.seeds_mm)
    assert mean_edge_error(track.region, empty.track) < 0.3
