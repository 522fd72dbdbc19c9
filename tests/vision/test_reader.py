"""The piece library and the reader: on real photographs of SET cards, and on drawn pieces.

The real photos are ``research/realdata/set-game`` (see its PROVENANCE.md): 162 reference
crops (2 per card, from two other cameras), 15 test crops and 6 scenes of 9-15 cards
(webcam, phone). Two facts about that data, both checked here by hand:

- The crops (reference and test) are *mirror images*: the source project's cropper
  transposed them. Their squiggles curl the other way from every scene's, including the
  scene the test crops were cut from (a crop correlates 0.97 with its card mirrored, 0.81
  as is). The tests flip each crop left-right before using it.
- ``nine-cards-mixed-20161230_192740.jpg`` carries EXIF orientation 3 (turned 180 deg);
  its labels are in the raw pixels' reading order, so every scene is read with
  ``IMREAD_IGNORE_ORIENTATION`` (the other JPEG's orientation is 1, the PNGs have none).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.set_game import SET_GAME, crop, label, reading_order, scene
from vision import reader, synth_pieces
from vision.calibration import TableCalibration
from vision.errors import LayoutError, VisionError
from vision.library import LIBRARY_FILE, Library, PieceKind, fit_disc, frame_point
from vision.reader import FoundPiece, ReadResult, UnknownPiece, read

needs_photos = pytest.mark.skipif(not (SET_GAME / "labels.csv").is_file(),
                                  reason=f"the Set photographs are not at {SET_GAME}")
CARD_MM = (57.0, 88.0)


# -- helpers ------------------------------------------------------------------------------------------


def _place(canvas: np.ndarray, piece: np.ndarray, center: tuple[float, float], angle_deg: float,
           width_px: float) -> None:
    """Paste *piece* onto *canvas*, *width_px* wide, centred at *center*, turned clockwise
    (on screen) by *angle_deg*."""
    h, w = piece.shape[:2]
    s = width_px / w
    t = math.radians(angle_deg)
    lin = s * np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    shift = np.asarray(center) - lin @ np.array([(w - 1) / 2, (h - 1) / 2])
    m = np.column_stack([lin, shift])
    size = (canvas.shape[1], canvas.shape[0])
    warped = cv2.warpAffine(piece, m, size, flags=cv2.INTER_AREA)
    mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, size, flags=cv2.INTER_LINEAR)
    canvas[mask > 127] = warped[mask > 127]


def _angle_error(a: float, b: float, period: float = 360.0) -> float:
    d = (a - b) % period
    return min(d, period - d)


# -- fixtures -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def set_library(tmp_path_factory: pytest.TempPathFactory) -> Library:
    """All 81 Set cards, two reference crops each, as fronts of one kind."""
    if not (SET_GAME / "labels.csv").is_file():
        pytest.skip(f"the Set photographs are not at {SET_GAME}")
    library = Library.create(tmp_path_factory.mktemp("set") / "library")
    for path in sorted((SET_GAME / "crops_train_sample").glob("*/*.jpg")):
        library.register("set-card", "rect", CARD_MM, crop(path), front=path.parent.name)
    return library


@dataclass(frozen=True)
class Reading:
    """One card of the real photos: its label, what was read, and how surely."""

    where: str
    truth: str
    read_as: str  # the front, or "unknown (nearest X)"
    score: float | None
    margin: float | None


def _as_reading(where: str, truth: str, item: FoundPiece | UnknownPiece) -> Reading:
    if isinstance(item, FoundPiece):
        return Reading(where, truth, str(item.front), item.score, item.margin)
    return Reading(where, truth, f"unknown (nearest {item.best})", item.score, item.margin)


@pytest.fixture(scope="module")
def scene_reads(set_library: Library) -> dict[str, tuple[list[str], ReadResult]]:
    """Each scene's labels (reading order) and what was read in it."""
    out = {}
    for txt in sorted((SET_GAME / "scenes").glob("*.txt")):
        photo = next(p for p in txt.parent.glob(txt.stem + ".*") if p.suffix in (".jpg", ".png"))
        labels = [label(line) for line in txt.read_text().splitlines() if line.strip()]
        out[txt.stem] = (labels, read(scene(photo), set_library))
    return out


@pytest.fixture(scope="module")
def photo_readings(set_library: Library, scene_reads: dict[str, tuple[list[str], ReadResult]]) -> list[Reading]:
    """Every card of the scenes (matched in reading order) and every test crop."""
    readings: list[Reading] = []
    for name, (labels, result) in scene_reads.items():
        items: list[FoundPiece | UnknownPiece] = [*result.pieces, *result.unknown]
        ordered = reading_order([(it.center, str(i)) for i, it in enumerate(items)])
        readings += [_as_reading(name, truth, items[int(i)]) for truth, i in zip(labels, ordered, strict=False)]
    for path in sorted((SET_GAME / "crops_test").glob("*/*.jpg")):
        result = read(crop(path), set_library)
        item = (result.pieces or result.unknown or (UnknownPiece((0.0, 0.0), False),))[0]
        readings.append(_as_reading(f"crop {path.name}", path.parent.name, item))
    return readings


# -- the library --------------------------------------------------------------------------------------


def _token(letter: str, colour: tuple[int, int, int], size_px: int = 240) -> np.ndarray:
    """A drawn token: a coloured disc on black with a letter and a bar (which way is up)."""
    image = np.zeros((size_px, size_px, 3), np.uint8)
    c = size_px // 2
    cv2.circle(image, (c, c), c - 4, colour, -1, cv2.LINE_AA)
    cv2.putText(image, letter, (c - size_px // 5, c + size_px // 6), cv2.FONT_HERSHEY_SIMPLEX,
                size_px / 80, (20, 20, 20), max(2, size_px // 25), cv2.LINE_AA)
    cv2.rectangle(image, (c - size_px // 6, size_px // 10), (c + size_px // 6, size_px // 10 + size_px // 20),
                  (250, 250, 250), -1)
    return image


def test_library_round_trips_fronts_backs_and_several_references(tmp_path: Path) -> None:
    library = Library.create(tmp_path / "lib")
    first = library.register("coin", "disc", (30, 30), _token("A", (0, 140, 255)), front="A")
    library.register("coin", "disc", [30, 30], _token("A", (0, 150, 240)), front="A")
    library.register("coin", "disc", (30, 30), _token("B", (0, 140, 255)), front="B")
    library.register("coin", "disc", (30, 30), _token("", (200, 90, 20)), back=True)
    assert first == tmp_path / "lib" / "fronts" / "coin" / "A-1.png"

    again = Library.load(tmp_path / "lib")
    assert again.kinds() == ("coin",)
    assert (again.kind("coin").shape, again.kind("coin").size_mm) == ("disc", (30.0, 30.0))
    fronts = again.fronts("coin")
    assert {name: len(images) for name, images in fronts.items()} == {"A": 2, "B": 1}
    assert fronts["A"][0].shape == (120, 120, 3)  # 30 mm at 4 px/mm
    back = again.back("coin")
    assert back is not None and back.shape == (120, 120, 3)
    doc = json.loads((tmp_path / "lib" / LIBRARY_FILE).read_text())
    assert doc["kinds"]["coin"]["fronts"]["A"] == ["fronts/coin/A-1.png", "fronts/coin/A-2.png"]
    assert doc["kinds"]["coin"]["back"] == "backs/coin.png"


def test_library_reads_a_single_path_as_one_reference(tmp_path: Path) -> None:
    library = Library.create(tmp_path)
    library.register("coin", "disc", (30, 30), _token("A", (0, 140, 255)), front="A")
    doc = json.loads((tmp_path / LIBRARY_FILE).read_text())
    doc["kinds"]["coin"]["fronts"]["A"] = "fronts/coin/A-1.png"
    (tmp_path / LIBRARY_FILE).write_text(json.dumps(doc))
    assert len(Library.load(tmp_path).fronts("coin")["A"]) == 1


@pytest.mark.parametrize(("text", "message"), [
    ("{not json", "not valid JSON"),
    ('{"pieces": {}}', "kinds must be an object"),
    ('{"kinds": {"coin": {"shape": "hex", "size_mm": [30, 30], "fronts": {}}}}', "kinds.coin.shape"),
    ('{"kinds": {"coin": {"shape": "disc", "size_mm": [30, -1], "fronts": {}}}}', "kinds.coin.size_mm"),
    ('{"kinds": {"coin": {"shape": "disc", "size_mm": [30, 30], "fronts": {"A": 7}}}}', "kinds.coin.fronts.A"),
    ('{"kinds": {"coin": {"shape": "disc", "size_mm": [30, 30], "fronts": {"A": "../../etc/passwd"}}}}',
     "kinds.coin.fronts.A"),
    ('{"kinds": {"coin": {"shape": "disc", "size_mm": [30, 30], "back": 3, "fronts": {}}}}', "kinds.coin.back"),
])
def test_library_corrupt_json_names_the_file_and_field(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / LIBRARY_FILE).write_text(text)
    with pytest.raises(LayoutError) as caught:
        Library.load(tmp_path)
    assert message in str(caught.value) and str(tmp_path / LIBRARY_FILE) in str(caught.value)


def test_library_missing_or_broken_image_raises_layout_error(tmp_path: Path) -> None:
    library = Library.create(tmp_path)
    saved = library.register("coin", "disc", (30, 30), _token("A", (0, 140, 255)), front="A")
    saved.write_bytes(b"\x89PNG broken")
    with pytest.raises(LayoutError, match=r"kinds\.coin\.fronts\.A\[0\]"):
        Library.load(tmp_path).fronts("coin")
    with pytest.raises(LayoutError, match="no kind 'tile'"):
        Library.load(tmp_path).kind("tile")


def test_library_kind_registered_again_with_another_shape_or_size_is_refused(tmp_path: Path) -> None:
    library = Library.create(tmp_path)
    library.register("coin", "disc", (30, 30), _token("A", (0, 140, 255)), front="A")
    with pytest.raises(LayoutError, match=r"kinds\.coin is already a disc of \[30\.0, 30\.0\] mm"):
        library.register("coin", "disc", (25, 25), _token("B", (0, 140, 255)), front="B")
    with pytest.raises(LayoutError, match="already a disc"):
        library.register("coin", "rect", (30, 30), _token("B", (0, 140, 255)), front="B")
    assert Library.load(tmp_path).fronts("coin").keys() == {"A"}


def test_library_refuses_bad_names_and_a_second_library(tmp_path: Path) -> None:
    library = Library.create(tmp_path)
    with pytest.raises(LayoutError, match="got 'a/b'"):
        library.register("coin", "disc", (30, 30), _token("A", (0, 140, 255)), front="a/b")
    with pytest.raises(TypeError):
        library.register("coin", "disc", (30, 30), _token("A", (0, 140, 255)), front="A", back=True)
    with pytest.raises(LayoutError, match="already exists"):
        Library.create(tmp_path)
    assert issubclass(LayoutError, VisionError)


@needs_photos
def test_library_register_finds_a_card_in_a_photo_and_flattens_it(tmp_path: Path) -> None:
    card = crop(next((SET_GAME / "crops_test" / "3-red-solid-ovals").glob("*.jpg")))
    photo = np.full((600, 800, 3), 25, np.uint8)
    _place(photo, card, (420, 280), 100.0, 200)  # turned past a quarter, as a card may lie
    library = Library.create(tmp_path)
    library.register("set-card", "rect", CARD_MM, photo, front="from-photo")
    library.register("set-card", "rect", CARD_MM, card, front="from-crop")
    flat = library.fronts("set-card")
    a = flat["from-photo"][0].astype(np.float32)
    b = flat["from-crop"][0].astype(np.float32)
    assert a.shape == b.shape == (352, 228, 3)  # portrait, 4 px/mm
    ncc = max(float(np.corrcoef(a.ravel(), x.ravel())[0, 1]) for x in (b, b[::-1, ::-1]))
    assert ncc > 0.9


# -- reading: the real photographs --------------------------------------------------------------------


@needs_photos
def test_read_set_scenes_finds_every_card_and_invents_none(
        scene_reads: dict[str, tuple[list[str], ReadResult]]) -> None:
    counts = {name: (len(labels), len(result.pieces) + len(result.unknown))
              for name, (labels, result) in scene_reads.items()}
    assert all(found == cards for cards, found in counts.values()), counts
    for labels, result in scene_reads.values():
        # what was named is on the table: no front read that the scene does not hold
        assert {p.front for p in result.pieces} <= set(labels)


@needs_photos
def test_read_set_photos_identifies_nine_in_ten(photo_readings: list[Reading]) -> None:
    right = [r for r in photo_readings if r.read_as == r.truth]
    wrong = [r for r in photo_readings if r.read_as != r.truth]
    for r in wrong:  # the confusion, for whoever tunes this next
        print(f"MISS {r.where}: {r.truth} read as {r.read_as} (score {r.score}, margin {r.margin})")
    scenes = [r for r in photo_readings if not r.where.startswith("crop")]
    crops = [r for r in photo_readings if r.where.startswith("crop")]
    print(f"scenes: {sum(r.read_as == r.truth for r in scenes)}/{len(scenes)} identified; "
          f"crops: {sum(r.read_as == r.truth for r in crops)}/{len(crops)}")
    assert len(scenes) == 72 and len(crops) == 15
    assert len(right) >= 0.9 * len(photo_readings)
    # never guess: a card read as another card is worse than one left unknown
    guessed_wrong = [r for r in wrong if not r.read_as.startswith("unknown")]
    assert len(guessed_wrong) <= 0.02 * len(photo_readings), guessed_wrong


@needs_photos
def test_read_set_scene_reports_pixels_angles_and_json(
        scene_reads: dict[str, tuple[list[str], ReadResult]]) -> None:
    _labels, result = scene_reads["20170529_184024"]  # 12 portrait cards, a webcam, 960 x 720
    doc = result.to_json()
    assert set(doc) == {"pieces", "unknown"} and len(doc["pieces"]) == 12
    piece = doc["pieces"][0]
    assert set(piece) == {"kind", "face", "front", "center_px", "angle_deg", "confidence"}
    assert piece["kind"] == "set-card" and piece["face"] == "up"
    for p in result.pieces:
        assert 0 <= p.center[0] < 960 and 0 <= p.center[1] < 720
        assert _angle_error(p.angle_deg, 0.0, 180.0) < 15  # portrait, upright or upside down
        assert 0.0 <= p.confidence <= 1.0
    assert json.loads(json.dumps(doc)) == doc


# -- reading: drawn scenes ----------------------------------------------------------------------------


def test_read_blank_image_finds_nothing(set_library: Library) -> None:
    for frame in (np.zeros((480, 640, 3), np.uint8), np.full((720, 1280, 3), 180, np.uint8)):
        assert read(frame, set_library).to_json() == {"pieces": [], "unknown": []}


def test_read_coloured_disc_is_unknown_not_guessed(set_library: Library) -> None:
    frame = np.zeros((480, 640, 3), np.uint8)
    cv2.circle(frame, (300, 260), 90, (40, 40, 220), -1, cv2.LINE_AA)  # a red counter, no card
    result = read(frame, set_library)
    assert result.pieces == ()
    assert [u.to_json() for u in result.unknown] == [{"center_px": [300.0, 260.0]}]


def test_read_blank_card_is_unknown_not_guessed(set_library: Library) -> None:
    frame = np.zeros((480, 640, 3), np.uint8)
    _place(frame, np.full((267, 171, 3), 235, np.uint8), (320, 240), 8.0, 114)  # a card's shape, no print
    result = read(frame, set_library)
    assert result.pieces == () and len(result.unknown) == 1
    assert result.unknown[0].best is not None and result.unknown[0].score is not None
    assert result.unknown[0].score < reader.MIN_SCORE


def test_grey_face_seen_with_a_cameras_colour_noise_still_matches_and_a_coloured_one_does_not() -> None:
    kind = PieceKind("coin", "disc", (25.0, 25.0))
    size = reader._compare_size(kind)
    grey = np.asarray(cv2.resize(_token("G", (190, 190, 190)), size, interpolation=cv2.INTER_AREA), np.uint8)
    ringed = grey.copy()
    cv2.circle(ringed, (size[0] // 2, size[1] // 2), size[0] // 3, (200, 90, 20), 3, cv2.LINE_AA)
    refs = reader._kind_refs(kind, size, [("grey", grey), ("ringed", ringed)])
    assert refs.chroma_strength[0] < reader.CHROMA_MIN  # a grey face: its colour map is empty
    # the grey face as a small, noisy camera sees it: some colour from the noise alone
    noise = cv2.GaussianBlur(np.random.default_rng(0).normal(0, 50, grey.shape).astype(np.float32), (0, 0), 1.5)
    seen = np.asarray(np.clip(grey + noise, 0, 255), np.uint8)
    f = reader._features(seen, kind)
    assert reader.CHROMA_MIN < f.chroma_strength < reader.SEEN_GREY_MAX
    best: reader._Best = {}
    reader._score_all(f, refs, np.eye(3), best)
    assert best[("coin", "grey")][0] > 0.9 > best[("coin", "ringed")][0]
    # a face with a coloured ring is no grey face, however alike their darkness
    f = reader._features(ringed, kind)
    assert f.chroma_strength > reader.SEEN_GREY_MAX
    best.clear()
    reader._score_all(f, refs, np.eye(3), best)
    assert best[("coin", "ringed")][0] > 0.9 and best[("coin", "grey")][0] < reader.MIN_SCORE


def test_a_grey_face_partly_under_a_coloured_piece_shows_the_colour_of_what_is_left() -> None:
    kind = PieceKind("coin", "disc", (25.0, 25.0))
    w, h = reader._compare_size(kind)
    grey = np.asarray(cv2.resize(_token("G", (190, 190, 190)), (w, h), interpolation=cv2.INTER_AREA), np.uint8)
    # a gold coin over its left third
    covered = grey.copy()
    cv2.circle(covered, (-w // 3, h // 2), w // 2 + 4, (40, 170, 225), -1, cv2.LINE_AA)
    keep = np.ones((h, w), bool)
    keep[:, : w // 3] = False
    assert reader._Seen(covered, kind).at(1.0).inner_strength > reader.SEEN_GREY_MAX
    left = reader._Seen(covered, kind, keep).at(1.0)
    assert left.inner_strength < reader.SEEN_GREY_MAX
    assert left.inner_strength == pytest.approx(reader._Seen(grey, kind, keep).at(1.0).inner_strength, abs=0.02)


def test_a_face_of_faint_colour_set_apart_by_its_darkness_is_compared_without_colour() -> None:
    art = synth_pieces.piece_art(0)["chamber"]  # the back: brown hatching, its disc 2 % bluer
    kind = PieceKind("chamber", "rect", art.size_mm)
    size = reader._compare_size(kind)

    def small(image: np.ndarray) -> np.ndarray:
        return np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), np.uint8)

    back = small(art.face(None))
    refs = reader._kind_refs(kind, size, [(f, small(art.face(f))) for f in art.fronts] + [("", back)])
    faint = {refs.identities[i] or "back": bool(refs.faint[i]) for i in refs.starts}
    assert faint["back"] and not faint["hall"] and not faint["dragon"]
    # seen through a camera: false colour from its aliased hatching, which swamps its own
    noise = cv2.GaussianBlur(np.random.default_rng(1).normal(0, 60, back.shape).astype(np.float32), (0, 0), 2.0)
    f = reader._features(np.asarray(np.clip(back + noise, 0, 255), np.uint8), kind)
    best: reader._Best = {}
    rows = np.array([identity == "" for identity in refs.identities])
    assert (refs.chroma[rows] @ f.chroma).max() < reader.COLOUR_GATE  # its colour would cost it
    reader._score_all(f, refs, np.eye(3), best)
    assert max(best.items(), key=lambda kv: kv[1][0])[0] == ("chamber", "")
    assert best[("chamber", "")][0] == pytest.approx(float((refs.luma[rows] @ f.luma).max()))
    assert best[("chamber", "")][0] > reader.MIN_SCORE
    # a faint face with a twin in another faint hue keeps its colour: only colour tells them apart
    twin = back.astype(np.int16)
    twin[..., 2] += 6
    twins = reader._kind_refs(kind, size, [("a", back), ("b", np.asarray(np.clip(twin, 0, 255), np.uint8))])
    assert not twins.faint.any()


def test_a_face_the_library_lacks_is_unknown_though_it_shares_the_kinds_layout(tmp_path: Path) -> None:
    art = synth_pieces.piece_art(0)["card"]  # six fronts in one frame, with text lines alike
    library = Library.create(tmp_path)
    for front in art.fronts:
        if front != "giant":
            library.register("card", "rect", art.size_mm, synth_pieces.face_photo(art, front), front=front)
    library.register("card", "rect", art.size_mm, synth_pieces.face_photo(art, None), back=True)
    for front in ("giant", "archer"):  # seen at 1.2 px/mm, as a camera over the whole table
        photo = synth_pieces.face_photo(art, front)
        small = np.asarray(cv2.resize(photo, None, fx=0.3, fy=0.3, interpolation=cv2.INTER_AREA), np.uint8)
        result = read(small, library, px_per_mm=synth_pieces.TEXTURE_PX_PER_MM * 0.3)
        if front == "archer":
            assert [p.front for p in result.pieces] == ["archer"]
        else:  # it scores as well as a right answer against the archer: only its distinct part tells
            assert result.pieces == () and [u.best for u in result.unknown] == ["card/archer"]
            assert result.unknown[0].score is not None and result.unknown[0].score >= reader.MIN_SCORE


def test_a_face_of_fine_print_is_held_to_a_lower_distinct_bar_but_not_below_the_floor(tmp_path: Path) -> None:
    library = synth_pieces.make_library(tmp_path / "library")
    read(np.zeros((720, 1280, 3), np.uint8), library)  # prepares the references
    refs = reader._references(library).at("coin", 0.35)  # a coin seen ~25 px across
    bar = {refs.identities[i] or "back": float(refs.distinct_bar[i]) for i in refs.starts}
    floor = reader.DISTINCT_MIN * reader.DISTINCT_FLOOR
    assert bar["5"] == pytest.approx(floor)  # a zigzag: under the floor's worth
    assert bar["5"] < bar["3"] < reader.DISTINCT_MIN  # a dashed ring: green dashes keep more of their own part
    assert floor < bar["1"] < reader.DISTINCT_MIN  # a solid ring, much like what all coins share: lower
    assert bar["2"] == bar["6"] == reader.DISTINCT_MIN  # bold prints of their own: the full bar


@pytest.mark.parametrize("cover", ["giant", "back"])
def test_a_heaps_piece_is_compared_without_where_the_others_overlap_it(tmp_path: Path, cover: str) -> None:
    library = synth_pieces.make_library(tmp_path / "library")
    refs = reader._references(library)
    kind = library.kind("card")
    px_per_mm = 2.0  # a card 114 x 176 px, as a camera over a small table sees it
    size = (round(kind.size_mm[0] * px_per_mm), round(kind.size_mm[1] * px_per_mm))
    card = cv2.resize(library.fronts("card")["archer"][0], size, interpolation=cv2.INTER_AREA)
    other = library.back("card") if cover == "back" else library.fronts("card")[cover][0]
    work = np.full((300, 300, 3), 40, np.uint8)
    work[50:50 + size[1], 60:60 + size[0]] = card
    # another card over the archer's right half and beyond
    x_mm, y_mm, w_mm, h_mm = 30.0, 25.0, *kind.size_mm
    cut = size[0] // 2
    work[50:50 + size[1], 60 + cut:60 + size[0]] = cv2.resize(other, size)[:, :size[0] - cut]
    hidden = np.array([[x_mm + cut / px_per_mm, y_mm - 10], [x_mm + w_mm + 40, y_mm - 10],
                       [x_mm + w_mm + 40, y_mm + h_mm + 10], [x_mm + cut / px_per_mm, y_mm + h_mm + 10]])
    frame = np.array([[w_mm, 0.0, x_mm], [0.0, h_mm, y_mm], [0.0, 0.0, 1.0]])
    plane = reader._Plane(None, px_per_mm, 1.0, (300, 300))
    seen_whole = reader._verdict(reader._identify(work, [(kind, frame)], refs, plane))
    seen_rest = reader._verdict(reader._identify(work, [(kind, frame)], refs, plane, [hidden]))
    assert seen_whole is not None and seen_rest is not None
    assert seen_rest.label == "card/archer" and seen_rest.is_accepted
    assert not (seen_whole.label == "card/archer" and seen_whole.is_accepted)
    # an outline that misses the piece changes nothing
    away = reader._identify(work, [(kind, frame)], refs, plane, [hidden + (200.0, 0.0)])
    whole = reader._identify(work, [(kind, frame)], refs, plane)
    assert {k: s.score for k, s in away.items()} == {k: s.score for k, s in whole.items()}


def test_read_discs_faces_up_and_down_and_their_turn(tmp_path: Path) -> None:
    library = Library.create(tmp_path)
    for name in "AB":  # each registered from a "photo": the token alone on a dark cloth
        photo = np.full((300, 400, 3), 30, np.uint8)
        photo[30:270, 80:320] = _token(name, (0, 140, 255))
        library.register("coin", "disc", (30, 30), photo, front=name)
    library.register("coin", "disc", (30, 30), _token("", (200, 90, 20)), back=True)
    frame = np.full((600, 900, 3), 30, np.uint8)
    placed: list[tuple[str | None, tuple[int, int], float]] = [
        ("A", (150, 150), 0.0), ("B", (450, 150), 50.0), ("A", (750, 150), 130.0),
        ("B", (150, 430), 205.0), ("A", (450, 430), 300.0), (None, (750, 430), 77.0)]
    for letter, center, angle in placed:
        token = _token(letter or "", (200, 90, 20) if letter is None else (0, 140, 255))
        _place(frame, token, center, angle, 130)
    result = read(frame, library)
    assert result.unknown == ()
    assert len(result.pieces) == len(placed)
    for letter, (x, y), angle in placed:
        piece = min(result.pieces, key=lambda p: math.hypot(p.center[0] - x, p.center[1] - y))
        assert math.hypot(piece.center[0] - x, piece.center[1] - y) < 2
        assert (piece.face, piece.front) == (("down", None) if letter is None else ("up", letter))
        if letter is not None:  # the back is plain: any turn fits it
            assert _angle_error(piece.angle_deg, angle) <= reader.DISC_STEP_DEG


@pytest.mark.parametrize("grown", [0.9, 1.0, 1.1])
def test_a_disc_outline_in_mm_is_fitted_at_the_kinds_own_size_and_in_pixels_at_its_own(grown: float) -> None:
    # blur and shadows grow a coin's outline: in mm its size is known, and a frame as large
    # as the outline would shrink the face in the warp
    coin = PieceKind("coin", "disc", (25.0, 25.0))
    t = np.linspace(0.0, 2 * math.pi, 40, endpoint=False)
    outline = np.column_stack([300.0 + 12.5 * grown * np.cos(t), 200.0 + 12.5 * grown * np.sin(t)])
    for in_mm, diameter in ((True, 25.0), (False, 25.0 * grown)):
        frame = fit_disc(outline, coin, in_mm=in_mm)
        assert frame is not None
        centre, east, south = (np.array(frame_point(frame, u, v)) for u, v in ((0.5, 0.5), (1, 0.5), (0.5, 1)))
        assert np.allclose(centre, (300.0, 200.0), atol=0.01)
        assert math.dist(east, centre) * 2 == pytest.approx(diameter, rel=0.01)
        assert math.dist(south, centre) * 2 == pytest.approx(diameter, rel=0.01)
    # beyond the size tolerance it is no coin
    assert fit_disc(outline * 1.3, coin, in_mm=True) is None


def _minted(letter: str, metal: tuple[int, int, int], size_px: int = 240) -> np.ndarray:
    """A coin of *metal* struck with *letter* and a bar (which way is up), both its metal
    darkened: divided by its own paper, as the reader does, the same on every metal."""
    image = np.zeros((size_px, size_px, 3), np.uint8)
    c = size_px // 2
    cv2.circle(image, (c, c), c - 4, metal, -1, cv2.LINE_AA)
    dark = tuple(int(v * 0.3) for v in metal)
    cv2.putText(image, letter, (c - size_px // 5, c + size_px // 6), cv2.FONT_HERSHEY_SIMPLEX,
                size_px / 80, dark, max(2, size_px // 25), cv2.LINE_AA)
    cv2.rectangle(image, (c - size_px // 6, size_px // 8), (c + size_px // 6, size_px // 8 + size_px // 20), dark, -1)
    return image


def test_a_face_of_another_metal_is_unknown_though_its_print_is_a_library_faces(tmp_path: Path) -> None:
    gold, silver = (40, 170, 225), (190, 195, 188)
    library = Library.create(tmp_path)
    library.register("coin", "disc", (30, 30), _minted("A", gold), front="A")
    library.register("coin", "disc", (30, 30), _minted("B", silver), front="B")
    library.register("coin", "disc", (30, 30), _token("", (200, 90, 20)), back=True)
    frame = np.full((400, 900, 3), 30, np.uint8)
    placed = [("A", gold, (150, 130)), ("B", silver, (450, 130)), ("A", silver, (750, 130)),
              ("B", silver, (300, 300)), ("A", gold, (600, 300))]
    for letter, metal, center in placed:
        _place(frame, _minted(letter, metal), center, 20.0, 130)
    # under a warm lamp: the tint is undone as the coins read surely show it
    frame = np.asarray(np.clip(frame * np.array([0.85, 1.0, 1.12]), 0, 255), np.uint8)
    result = read(frame, library)
    found = sorted((round(p.center[0]), p.front) for p in result.pieces)
    assert found == [(150, "A"), (300, "B"), (450, "B"), (600, "A")]
    # the silver A matches the gold A's print and colour map, but not its metal
    assert [(round(u.center[0]), u.best) for u in result.unknown] == [(750, "coin/A")]
    assert result.unknown[0].score is not None and result.unknown[0].score > 0.9


@needs_photos
def test_read_with_calibration_reports_mm_and_checks_size(set_library: Library) -> None:
    # table mm -> px: 3 px/mm, the table's origin at (40, 30) px
    h = np.array([[3.0, 0.0, 40.0], [0.0, 3.0, 30.0], [0.0, 0.0, 1.0]])
    calibration = TableCalibration(h, 0.0, (), {}, (900, 600))
    frame = np.full((600, 900, 3), 20, np.uint8)
    card = crop(next((SET_GAME / "crops_test" / "2-red-solid-ovals").glob("*.jpg")))
    _place(frame, card, (40 + 3 * 60, 30 + 3 * 80), 90.0, 3 * 57)  # a card at (60, 80) mm
    _place(frame, card, (40 + 3 * 180, 30 + 3 * 90), 0.0, 3 * 57 * 1.4)  # a card 40 % too large
    result = read(frame, calibration=calibration, library=set_library)
    assert [p.front for p in result.pieces] == ["2-red-solid-ovals"]
    x, y = result.pieces[0].center
    assert abs(x - 60) < 2 and abs(y - 80) < 2
    assert "center_mm" in result.pieces[0].to_json()
    assert len(result.unknown) == 1 and abs(result.unknown[0].center[0] - 180) < 3
    assert result.unknown[0].best is None  # not even a card's size: never compared


@needs_photos
def test_read_empty_table_frame_separates_pieces_from_a_busy_table(set_library: Library) -> None:
    rng = np.random.default_rng(7)
    blobs = cv2.resize(rng.integers(0, 255, (9, 16, 3), dtype=np.uint8), (1280, 720),
                       interpolation=cv2.INTER_CUBIC)
    empty = np.asarray(blobs, np.uint8)  # a patterned cloth, bright and dark in patches
    frame = empty.copy()
    names = ["1-green-solid-squiggle", "3-red-striped-diamonds", "2-purple-empty-diamonds"]
    for i, name in enumerate(names):
        card = crop(next((SET_GAME / "crops_test" / name).glob("*.jpg")))
        _place(frame, card, (300 + 340 * i, 360), 15.0 * i, 150)
    result = read(frame, set_library, empty=empty)
    assert sorted(str(p.front) for p in result.pieces) == sorted(names)
    assert result.unknown == ()


def test_read_blanks_out_table_markers(set_library: Library) -> None:
    marker = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), 3, 120)
    frame = np.full((480, 640, 3), 20, np.uint8)
    frame[150:330, 200:380] = 255  # the printed sheet, white around the marker
    frame[180:300, 230:350] = marker[:, :, None]
    assert len(read(frame, set_library).unknown) == 1
    assert read(frame, set_library, layout_dictionary="DICT_4X4_50").to_json() == {"pieces": [], "unknown": []}


@needs_photos
def test_read_with_the_empty_table_keeps_a_card_beside_a_marker_whole(set_library: Library) -> None:
    marker = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), 3, 120)
    empty = np.full((480, 640, 3), 20, np.uint8)
    empty[150:330, 100:280] = 255  # the printed sheet, white around the marker
    empty[180:300, 130:250] = marker[:, :, None]
    frame = empty.copy()
    name = "3-red-striped-diamonds"
    _place(frame, crop(next((SET_GAME / "crops_test" / name).glob("*.jpg"))), (400, 240), 10.0, 150)
    # the card lies within the marker's blanked margin: blanking would cut a strip off it
    result = read(frame, set_library, layout_dictionary="DICT_4X4_50", empty=empty)
    assert [p.front for p in result.pieces] == [name] and result.unknown == ()


def test_read_refuses_bad_input(set_library: Library) -> None:
    with pytest.raises(ValueError, match="8-bit BGR"):
        read(np.zeros((10, 10), np.uint8), set_library)
    with pytest.raises(ValueError, match="px_per_mm"):
        read(np.zeros((10, 10, 3), np.uint8), set_library, px_per_mm=0.0)
    with pytest.raises(ValueError, match="empty"):
        read(np.zeros((10, 10, 3), np.uint8), set_library, empty=np.zeros((5, 5, 3), np.uint8))


@pytest.fixture(scope="module")
def twenty_cards() -> Iterator[tuple[np.ndarray, list[tuple[str, float]]]]:
    """A 1280 x 720 frame of 20 test cards (cycling the 15) on a dark cloth, each turned."""
    if not (SET_GAME / "labels.csv").is_file():
        pytest.skip(f"the Set photographs are not at {SET_GAME}")
    crops = sorted((SET_GAME / "crops_test").glob("*/*.jpg"))
    frame = np.full((720, 1280, 3), 28, np.uint8)
    placed = []
    for i in range(20):
        path = crops[i % len(crops)]
        angle = 90.0 + (-12, -5, 0, 7, 14)[i % 5] + (180 if i % 3 == 0 else 0)
        _place(frame, crop(path), (128 + 256 * (i % 5), 90 + 180 * (i // 5)), angle, 98)
        placed.append((path.parent.name, angle))
    yield frame, placed


def test_read_twenty_cards_in_a_1280x720_frame(
        set_library: Library, twenty_cards: tuple[np.ndarray, list[tuple[str, float]]]) -> None:
    frame, placed = twenty_cards
    result = read(frame, set_library)  # its speed: benchmarks/piece_reading.py
    assert len(result.pieces) + len(result.unknown) == 20
    read_as = {(round(p.center[0]), round(p.center[1])): p for p in result.pieces}
    right = 0
    for i, (name, angle) in enumerate(placed):
        x, y = 128 + 256 * (i % 5), 90 + 180 * (i // 5)
        piece = next((p for (px, py), p in read_as.items() if abs(px - x) < 10 and abs(py - y) < 10), None)
        if piece is not None and piece.front == name:
            right += 1
            assert _angle_error(piece.angle_deg, angle, 180.0) < 4
    assert right >= 18
