"""Synthetic tables of game pieces (``tests.support.synth_pieces``): deterministic, their truth
consistent, and what ``vision.reading`` makes of them.

Measured on seeds 0-5 (1280 x 720, calibration from the table markers with the lens
known; ``benchmarks/piece_reading.py`` has the figures over more scenes):

- cards and tiles lying alone: 45/48 read right with the empty-table frame, 41/48 without;
- nothing is ever reported as a piece it is not: no distractor, no misread;
- coins (25 mm discs, ~30 px across in a full-table view) lying alone: 23/24;
- overlapping cards and tiles: 13/14;
- all pieces: 87/92 with the empty-table frame.

The thresholds sit a little under these figures: a regression fails them, noise does not.
"""

from __future__ import annotations

import itertools
import math
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pytest
from shapely.geometry import Point, Polygon

from tests.support import synth_pieces as sp
from vision.calibration import calibrate
from vision.errors import CalibrationError
from vision.lens import LensCalibration
from vision.library import Library
from vision.reading import ReadResult, read
from vision.sources import StaticSource
from vision.table_camera import TableCamera

READ_SEEDS = range(6)


def _ncc(a: np.ndarray, b: np.ndarray) -> float:
    x, y = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    return float(np.corrcoef(x, y)[0, 1])


# -- the art and the library -----------------------------------------------------------------------


@pytest.mark.slow
def test_art_is_deterministic_per_seed_and_varies_with_it() -> None:
    a, b, c = sp.piece_art.__wrapped__(0), sp.piece_art.__wrapped__(0), sp.piece_art.__wrapped__(1)
    assert set(a) == {"coin", "chamber", "card"}
    for name in a:
        assert a[name].fronts.keys() == c[name].fronts.keys()
        assert 4 <= len(a[name].fronts) <= 8
        for front in a[name].fronts:
            assert np.array_equal(a[name].fronts[front], b[name].fronts[front])
        assert np.array_equal(a[name].back, b[name].back)
        assert any(not np.array_equal(a[name].fronts[f], c[name].fronts[f]) for f in a[name].fronts)


def test_art_faces_differ_by_more_than_their_colour() -> None:
    for art in sp.piece_art(0).values():
        h, w = art.mask.shape
        assert (w, h) == (round(art.size_mm[0] * sp.TEXTURE_PX_PER_MM), round(art.size_mm[1] * sp.TEXTURE_PX_PER_MM))
        inside = art.mask > 0.5
        faces = {**art.fronts, "back": art.back}
        means = {n: f[inside].mean(axis=0) for n, f in faces.items()}
        for x, y in itertools.combinations(faces, 2):  # every two faces differ, pixel by pixel
            assert np.abs(faces[x].astype(np.float64) - faces[y]).mean() > 10, (art.name, x, y)
        # ...while some two fronts have nearly the same colour overall: colour alone cannot tell them
        closest = min(float(np.linalg.norm(means[x] - means[y])) for x, y in itertools.combinations(art.fronts, 2))
        assert closest < 20, art.name


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Library:
    return sp.make_library(tmp_path_factory.mktemp("pieces") / "library")


@pytest.mark.slow
def test_library_holds_every_face_as_drawn(library: Library) -> None:
    art = sp.piece_art(0)
    assert library.kinds() == tuple(sorted(art))
    again = Library.load(library.root)
    for name, kind_art in art.items():
        kind = again.kind(name)
        assert (kind.shape, kind.size_mm) == (kind_art.shape, kind_art.size_mm)
        fronts = again.fronts(name)
        assert fronts.keys() == kind_art.fronts.keys()
        # compared at 1 px/mm, and only as "nearest its own art": vision.library.fit_rect puts
        # the quad of a card's rounded (3 mm) corners ~1.5 mm off, so a card is not stored pixel-exact
        inside = _small(kind_art.mask) > 0.98  # a disc is stored as the square around it
        faces = {**kind_art.fronts, "": kind_art.back}
        stored = {**{f: images[0] for f, images in fronts.items()}, "": again.back(name)}
        for face, image in stored.items():
            assert image is not None and image.shape == faces[face].shape
            ncc = {other: _ncc(_small(image)[inside], _small(art_image)[inside]) for other, art_image in faces.items()}
            assert max(ncc, key=lambda f: ncc[f]) == face and ncc[face] > 0.75, (name, face, ncc)


def _small(image: np.ndarray) -> np.ndarray:
    return np.asarray(cv2.resize(image, (image.shape[1] // 4, image.shape[0] // 4), interpolation=cv2.INTER_AREA))


# -- the scenes ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_scene_is_deterministic_per_seed() -> None:
    a = sp.random_piece_scene(3)
    b = sp.random_piece_scene(3, with_empty=False)
    c = sp.random_piece_scene(4, with_empty=False)
    assert a.image.shape == (720, 1280, 3) and a.image.dtype == np.uint8
    assert np.array_equal(a.image, b.image) and b.empty is None  # the empty frame changes nothing else
    assert [(p.label, p.center_mm, p.angle_deg) for p in a.pieces] == [(p.label, p.center_mm, p.angle_deg)
                                                                       for p in b.pieces]
    assert [d.center_mm for d in a.distractors] == [d.center_mm for d in b.distractors]
    assert not np.array_equal(a.image, c.image)
    assert a.empty is not None and a.empty.shape == a.image.shape
    # the empty table: the same view without the pieces, its sensor noise its own
    far = np.ones(a.image.shape[:2], bool)
    for p in [*a.pieces, *a.distractors]:
        px = a.camera.project(np.column_stack([p.outline_mm, np.zeros(len(p.outline_mm))]))
        x0, y0 = np.floor(px.min(axis=0)).astype(int) - 6
        x1, y1 = np.ceil(px.max(axis=0)).astype(int) + 6
        far[max(0, y0):y1, max(0, x0):x1] = False
    diff = np.abs(a.image.astype(np.int16) - a.empty.astype(np.int16))
    assert diff[far].mean() < 8 and diff[far].mean() > 0.1  # noise, not the pieces
    assert diff[~far].mean() > 2 * diff[far].mean()


@pytest.mark.slow
def test_scene_truth_is_consistent() -> None:
    overlapping = down = 0
    kinds: set[str] = set()
    for seed in range(8, 14):
        scene = sp.random_piece_scene(seed, with_empty=False)
        aw, ah = scene.layout.play_area_mm or (800.0, 500.0)
        assert 8 <= len(scene.pieces) <= 20, seed  # rarely fewer than asked fit, never more
        assert {d.kind for d in scene.distractors} >= {"pen", "cup-ring", "blob"}
        polys = [Polygon(p.outline_mm) for p in scene.pieces]
        for p, poly in zip(scene.pieces, polys, strict=True):
            kinds.add(p.kind)
            x0, y0, x1, y1 = poly.bounds
            assert x0 >= 0 and y0 >= 0 and x1 <= aw and y1 <= ah, (seed, p.label)
            assert poly.contains(Point(p.center_mm))
            assert (p.face == "down") == (p.front is None) and p.face in ("up", "down")
            assert 0 <= p.angle_deg < 360
            assert 0 <= p.covered <= p.overlap <= sp.OVERLAP_RANGE[1] + 1e-9, (seed, p.label, p.overlap)
            shared = sum(poly.intersection(q).area for q in polys if q is not poly)
            assert math.isclose(shared / poly.area, p.overlap, abs_tol=0.01)
            others = [q for q in polys if q is not poly]
            if p.overlap == 0:  # a piece alone is clear of every other by the gap
                assert min(poly.distance(q) for q in others) >= sp.GAP_MM - 1e-6
            else:
                assert p.overlap >= sp.OVERLAP_RANGE[0] - 1e-9
                overlapping += 1
            down += p.face == "down"
            for d in scene.distractors:  # distractors lie clear of every piece
                assert poly.distance(Polygon(d.outline_mm)) >= sp.GAP_MM - 1e-6
        # the table markers are where the layout says: a calibration from them is exact
        cal = calibrate(scene.image, scene.layout, scene.lens)
        assert cal.markers_found == (0, 1, 2, 3) and cal.reprojection_error_mm < 0.5
        centres = np.array([p.center_mm for p in scene.pieces])
        px = scene.camera.project(np.column_stack([centres, np.zeros(len(centres))]))
        assert np.abs(cal.to_table(px) - centres).max() < 1.0
    assert kinds == {"coin", "chamber", "card"}
    assert overlapping >= 3 and down >= 3


# -- what the reader makes of them -----------------------------------------------------------------


@dataclass(frozen=True)
class Reads:
    scenes: list[sp.PieceScene]
    plain: list[sp.ReadingScore]  # with the calibration only
    empty: list[sp.ReadingScore]  # with the empty-table frame too


@pytest.fixture(scope="module")
def reads(library: Library) -> Reads:
    scenes, plain, empty = [], [], []
    for seed in READ_SEEDS:
        scene = sp.random_piece_scene(seed)
        cal = calibrate(scene.image, scene.layout, scene.lens)
        results: list[ReadResult] = [
            read(scene.image, library, calibration=cal, layout_dictionary=scene.layout.dictionary, empty=e)
            for e in (None, scene.empty)]
        scenes.append(scene)
        plain.append(sp.score_reading(scene, results[0]))
        empty.append(sp.score_reading(scene, results[1]))
    return Reads(scenes, plain, empty)


def _outcomes(scores: list[sp.ReadingScore], kinds: set[str], alone: bool | None = None) -> list[str]:
    return [o.outcome for s in scores for o in s.pieces
            if o.truth.kind in kinds and (alone is None or (o.truth.overlap == 0) == alone)]


def _report(name: str, outcomes: list[str]) -> float:
    share = outcomes.count("right") / len(outcomes)
    print(f"{name}: {outcomes.count('right')}/{len(outcomes)} right ({share:.0%}); "
          f"unknown {outcomes.count('unknown')}, missed {outcomes.count('missed')}, "
          f"misread {outcomes.count('misread')}")
    return share


@pytest.mark.slow
def test_read_cards_and_tiles_lying_alone_mostly_right(reads: Reads) -> None:
    big = {"card", "chamber"}
    with_empty = _report("cards and tiles alone, with the empty frame", _outcomes(reads.empty, big, alone=True))
    plain = _report("cards and tiles alone, calibration only", _outcomes(reads.plain, big, alone=True))
    _report("everything, with the empty frame", _outcomes(reads.empty, {"card", "chamber", "coin"}))
    assert with_empty >= 0.9  # measured 0.94 (45/48)
    assert plain >= 0.75  # measured 0.85 (41/48)


@pytest.mark.slow
def test_read_reports_no_distractor_or_wrong_piece_as_known(reads: Reads) -> None:
    for scores in (reads.plain, reads.empty):
        for scene, score in zip(reads.scenes, scores, strict=True):
            assert score.extra == [], (scene.seed, score.extra)
            assert score.count("misread") == 0, scene.seed


def test_read_right_pieces_are_where_and_as_turned_as_laid(reads: Reads) -> None:
    right = [o for s in reads.empty for o in s.pieces if o.outcome == "right"]
    assert right
    assert max(o.position_error_mm or 0.0 for o in right) < 4.0
    angles = [o.angle_error_deg for o in right if o.angle_error_deg is not None]
    assert angles and float(np.median(angles)) < 3.0
    assert max(o.angle_error_deg or 0.0 for o in right if o.truth.kind != "coin") < 12.0
    # a coin is compared every 10 deg: the 5's zigzag (28 teeth, 12.9 deg apart) can match
    # best two teeth off, where its digit is a few pixels
    assert max(o.angle_error_deg or 0.0 for o in right if o.truth.kind == "coin") < 30.0


def test_read_finds_coins(reads: Reads) -> None:
    outcomes = _outcomes(reads.empty, {"coin"}, alone=True)
    assert _report("coins alone", outcomes) >= 0.85  # measured 0.96 (23/24)


def test_read_overlapping_pieces(reads: Reads) -> None:
    outcomes = _outcomes(reads.empty, {"card", "chamber"}, alone=False)
    assert _report("cards and tiles overlapping", outcomes) >= 0.75  # measured 0.93 (13/14)


def test_read_most_of_all_pieces(reads: Reads) -> None:
    outcomes = _outcomes(reads.empty, {"card", "chamber", "coin"})
    assert _report("all pieces", outcomes) >= 0.88  # measured 0.95 (87/92)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["coin", "chamber", "card"])
def test_every_face_reads_back_from_a_sharp_top_down_view(library: Library, kind: str) -> None:
    """Every face laid in a row on a dark cloth, a piece's size apart, and read at the
    library's own scale: the art and the reader agree when the view is sharp and the pieces
    large."""
    art = sp.piece_art(0)[kind]
    h, w = art.mask.shape
    gap = max(h, w)
    faces = [*art.fronts, None]
    table = np.full((h + 2 * gap, len(faces) * (w + gap) + gap, 3), 40.0, np.float32)
    centres = []
    for i, front in enumerate(faces):
        x0 = gap + i * (w + gap)
        m = art.mask[..., None]
        roi = table[gap:gap + h, x0:x0 + w]
        roi[:] = art.face(front) * m + roi * (1 - m)
        centres.append((x0 + (w - 1) / 2, gap + (h - 1) / 2))
    result = read(np.round(table).astype(np.uint8), library, px_per_mm=sp.TEXTURE_PX_PER_MM)
    assert result.unknown == ()
    for front, (cx, cy) in zip(faces, centres, strict=True):
        piece = min(result.pieces, key=lambda p: math.hypot(p.center[0] - cx, p.center[1] - cy))
        assert math.hypot(piece.center[0] - cx, piece.center[1] - cy) < 4
        assert (piece.kind, piece.front) == (kind, front)
        outline = np.array(piece.outline_px)  # where the app draws it: on the piece's edge
        assert np.allclose(outline.mean(axis=0), (cx, cy), atol=4)
        assert np.allclose(outline.max(axis=0) - outline.min(axis=0), (w, h), rtol=0.06)
        if front is not None:
            assert min(piece.angle_deg, 360 - piece.angle_deg) < 6


@pytest.mark.slow
def test_table_camera_reads_pieces_for_the_app(library: Library, tmp_path: Path) -> None:
    """The app's reading: the same pieces as :func:`read`, each with its outline in the
    frame's pixels, and the frame itself to draw them on; the empty table once remembered."""
    scene = sp.random_piece_scene(READ_SEEDS[0])
    folder = tmp_path / "vision"
    frames = [scene.image, scene.empty, scene.image, scene.image]  # the first taken before the library is missed
    camera = TableCamera("unused", folder, open_fn=lambda: StaticSource(frames))
    with pytest.raises(CalibrationError, match="no piece library yet"):
        camera.read_pieces()
    shutil.copytree(library.root, folder / "library")
    LensCalibration(scene.camera.K, scene.camera.dist, scene.camera.size, 0.1, 20).save(folder / "lens.json")
    assert camera.remember_empty() == folder / "empty.png"  # the first frame: the empty table
    doc = camera.read_pieces()
    cal = calibrate(scene.image, scene.layout, scene.lens)
    direct = read(scene.image, library, calibration=cal, layout_dictionary=scene.layout.dictionary,
                  empty=cv2.imread(str(folder / "empty.png")))
    assert [(p["kind"], p["front"], p["center_mm"]) for p in doc["pieces"]] == \
        [(p.kind, p.front, [round(c, 2) for c in p.center]) for p in direct.pieces]
    assert len(doc["unknown"]) == len(direct.unknown)
    assert doc["pieces"], "the scene's pieces are read"
    for item in doc["pieces"] + doc["unknown"]:
        pts = np.array(item["outline_px"])
        assert len(pts) >= 3 and (pts >= -1).all() and (pts[:, 0] <= 1280).all() and (pts[:, 1] <= 720).all()
    assert (doc["width"], doc["height"]) == (1280, 720)
    loaded = camera._current_library()
    assert camera.read_pieces()["pieces"] == doc["pieces"] and camera._current_library() is loaded  # kept
    os.utime(folder / "library" / "library.json", ns=(1, 1))  # a registration rewrites the file
    assert camera._current_library() is not loaded
    rgb = np.frombuffer(doc["rgb"], np.uint8).reshape(720, 1280, 3)
    assert np.array_equal(rgb[:, :, ::-1], scene.image)


