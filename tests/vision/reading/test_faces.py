"""The registered faces as the comparison sees them: light that falls off across a piece taken
out, a part of a face's spread worked out as it is for the whole, and a face laid over a piece
that shows it a little larger, smaller or moved."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.vision.reading.test_thin_print import CARD, DRAWN, card_face
from vision.library import Library
from vision.reading.decide import decide
from vision.reading.faces import KindRefs, centred, laid, lay, power_over, references
from vision.reading.identify import Cut, Match, _next_turns, _window_sums, compare
from vision.reading.params import DEFAULT
from vision.reading.twins import _explained, lead_on


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), a=st.floats(-2, 2), b=st.floats(-2, 2), c=st.floats(-2, 2))
def test_a_plane_laid_over_an_image_is_taken_out_with_its_mean(seed: int, a: float, b: float, c: float) -> None:
    rng = np.random.default_rng(seed)
    image = rng.random((17, 11, 3)).astype(np.float32)
    weight = (rng.random((17, 11)) > 0.3).astype(np.float32)
    ys, xs = np.mgrid[0:17, 0:11].astype(np.float32)
    lit = image + (a + b * xs / 11 + c * ys / 17)[:, :, None]
    assert np.allclose(centred(lit, weight), centred(image, weight), atol=1e-4)
    assert np.allclose(centred(image, weight)[weight == 0], 0.0)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_a_window_less_its_mean_alone_is_its_values_less_their_mean_over_the_weight(seed: int) -> None:
    rng = np.random.default_rng(seed)
    image = rng.random((13, 9, 3)).astype(np.float32)
    weight = (rng.random((13, 9)) > 0.4).astype(np.float32)
    mean = (image * weight[:, :, None]).sum(axis=(0, 1)) / max(float(weight.sum()), 1e-6)
    assert np.allclose(centred(image, weight, plane=False), (image - mean) * weight[:, :, None], atol=1e-5)


def _cosine(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.vdot(x, y) / np.sqrt(np.vdot(x, x) * np.vdot(y, y)))


@pytest.fixture(scope="module")
def card_refs(tmp_path_factory: pytest.TempPathFactory) -> KindRefs:
    library = Library.create(tmp_path_factory.mktemp("faces") / "library")
    library.register("card", "rect", CARD, card_face(2, "purple", "empty", "diamond"), front="diamonds")
    return references(library, DEFAULT)["card"]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), share=st.floats(0.2, 1.0))
def test_a_faces_spread_over_part_of_it_is_that_of_the_part_less_its_plane(card_refs: KindRefs, seed: int,
                                                                          share: float) -> None:
    rng = np.random.default_rng(seed)
    seen = card_refs.weight * (rng.random(card_refs.weight.shape) < share).astype(np.float32)
    ref = card_refs.refs[0]
    expected = [float((centred(layer, seen) ** 2).sum()) for layer in ref.soft]
    assert np.allclose(power_over(ref, seen), expected, rtol=1e-3, atol=1e-4)


def _shown(ref_image: np.ndarray, grown: float, move_px: tuple[float, float], turn_deg: float = 0.0) -> np.ndarray:
    """*ref_image* as a piece shows it: its print *grown* about the centre, turned and moved."""
    h, w = ref_image.shape[:2]
    m = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), turn_deg, grown)
    m[:, 2] += move_px
    return np.asarray(cv2.warpAffine(ref_image, m, (w, h), borderMode=cv2.BORDER_REPLICATE), np.float32)


def _cut(piece: np.ndarray, refs: KindRefs) -> Cut:
    """*piece* (an image of the kind's size at the comparison scale) upright, with the search's
    margin round it (its edges drawn out), all of it seen."""
    margin = round(DEFAULT.shift_mm * refs.scale)
    patch = cv2.copyMakeBorder(piece, margin, margin, margin, margin, cv2.BORDER_REPLICATE)
    return Cut(0.0, patch, np.ones(patch.shape[:2], np.float32))


def _correlation(window: np.ndarray, image: np.ndarray, seen: np.ndarray) -> float:
    p, f = centred(window, seen), centred(image, seen)
    return float((p * f).sum() / np.sqrt((p * p).sum() * (f * f).sum()))


@pytest.mark.parametrize("grown", [0.94, 1.06])
def test_a_face_is_laid_over_a_piece_that_shows_it_framed_otherwise(card_refs: KindRefs, grown: float) -> None:
    ref = card_refs.refs[0]
    window = _shown(ref.image, grown, (0.7, -0.5))
    seen = card_refs.weight
    lain = laid(window, ref, seen, card_refs, DEFAULT)
    assert lain is not None
    assert _correlation(window, lain.image, seen) > 0.97 > _correlation(window, ref.image, seen) + 0.1


@pytest.mark.parametrize("grown", [0.94, 1.06])
def test_a_face_is_laid_over_a_piece_whose_light_falls_off_steeply_across_it(card_refs: KindRefs,
                                                                             grown: float) -> None:
    ref = card_refs.refs[0]
    h, w = ref.image.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    light = 1.0 - 0.6 * (xs / w) * (ys / h)  # to 0.4 at one corner: more than a plane
    window = _shown(ref.image, grown, (0.7, -0.5)) * light[:, :, None]
    lain = laid(window, ref, card_refs.weight, card_refs, DEFAULT)
    assert lain is not None
    assert _correlation(window, lain.image, card_refs.weight) > _correlation(window, ref.image, card_refs.weight) + 0.1


@pytest.mark.parametrize("turn_deg", [-3.0, 3.0])
def test_a_face_is_laid_over_a_piece_turned_a_little_from_its_outline(card_refs: KindRefs, turn_deg: float) -> None:
    ref = card_refs.refs[0]
    assert laid(_shown(ref.image, 1.0, (0.0, 0.0), turn_deg), ref, card_refs.weight, card_refs, DEFAULT) is not None


@pytest.mark.parametrize("turn_deg", [-8.0, 8.0])
def test_a_face_is_not_laid_over_what_it_would_have_to_be_turned_by_more_than_half_a_discs_step(
        card_refs: KindRefs, turn_deg: float) -> None:
    """A face turned further is another turn's to match (a disc's faces are compared every 10 degrees)."""
    ref = card_refs.refs[0]
    assert laid(_shown(ref.image, 1.0, (0.0, 0.0), turn_deg), ref, card_refs.weight, card_refs, DEFAULT) is None


@pytest.fixture(scope="module")
def coin_refs(tmp_path_factory: pytest.TempPathFactory) -> KindRefs:
    face = np.full((300, 300, 3), 40, np.uint8)
    cv2.circle(face, (150, 150), 149, (60, 160, 200), -1, cv2.LINE_AA)
    cv2.circle(face, (150, 150), 120, (30, 90, 150), 6, cv2.LINE_AA)
    cv2.putText(face, "7", (95, 215), cv2.FONT_HERSHEY_SIMPLEX, 6, (30, 30, 30), 25, cv2.LINE_AA)
    library = Library.create(tmp_path_factory.mktemp("coin") / "library")
    library.register("coin", "disc", (30.0, 30.0), face, front="seven")
    return references(library, DEFAULT)["coin"]


@pytest.mark.parametrize("turn_deg", [-4.0, 4.0])
def test_a_discs_face_is_laid_over_a_piece_that_shows_it_moved_and_turned(coin_refs: KindRefs,
                                                                          turn_deg: float) -> None:
    ref = coin_refs.refs[0]
    window = _shown(ref.image, 1.0, (0.6, -0.4), turn_deg)
    lain = laid(window, ref, coin_refs.weight, coin_refs, DEFAULT)
    assert lain is not None
    assert _correlation(window, lain.image, coin_refs.weight) > _correlation(window, ref.image, coin_refs.weight) + 0.05


def test_a_discs_face_that_would_have_to_be_turned_further_is_laid_from_its_next_turns(
        coin_refs: KindRefs, card_refs: KindRefs) -> None:
    for index, ref in enumerate(coin_refs.refs):
        turns = sorted(coin_refs.refs[i].turn_deg for i in _next_turns(coin_refs, index))
        assert turns == sorted([(ref.turn_deg + 10.0) % 360.0, (ref.turn_deg - 10.0) % 360.0]), ref.turn_deg
    assert _next_turns(card_refs, 0) == []  # a rect's turns are quarter or half turns apart


def test_a_discs_face_is_never_scaled_or_sheared_to_fit(coin_refs: KindRefs) -> None:
    """A disc's print is as large as its outline: a piece's smaller print is no reason to shrink it."""
    ref = coin_refs.refs[0]
    warp = lay(_shown(ref.image, 0.93, (0.0, 0.0), 2.0), ref, coin_refs.weight, coin_refs, DEFAULT)
    assert warp is None or np.allclose(np.linalg.svd(warp[:, :2], compute_uv=False), 1.0, atol=1e-3)


def test_a_face_is_not_laid_over_what_it_would_have_to_be_stretched_by_a_fifth_to_fit(card_refs: KindRefs) -> None:
    ref = card_refs.refs[0]
    assert laid(_shown(ref.image, 1.2, (0.0, 0.0)), ref, card_refs.weight, card_refs, DEFAULT) is None


def test_a_reference_laid_over_a_piece_keeps_its_face_and_turn(card_refs: KindRefs) -> None:
    ref = card_refs.refs[-1]
    lain = laid(_shown(ref.image, 1.05, (0.0, 0.0)), ref, card_refs.weight, card_refs, DEFAULT)
    assert lain is not None
    assert (lain.face, lain.turn_deg) == (ref.face, ref.turn_deg)
    assert lain.soft.shape == ref.soft.shape and np.allclose(lain.colour, ref.colour)


def test_a_face_that_cannot_be_laid_over_the_piece_itself_is_weighed_laid_as_the_best_was(tmp_path: Path) -> None:
    """A twin registered 8 degrees askew cannot be laid over the piece alone; the best face's
    laying (the piece's print framed 6 % larger) is its too, so it is not weighed unlaid."""
    face = card_face(2, "purple", "empty", "diamond")
    h, w = face.shape[:2]
    turn = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), 8.0, 1.0)
    library = Library.create(tmp_path / "library")
    library.register("card", "rect", CARD, face, front="square")
    library.register("card", "rect", CARD, cv2.warpAffine(face, turn, (w, h), borderMode=cv2.BORDER_REPLICATE),
                     front="askew")
    refs = references(library, DEFAULT)["card"]
    shown = next(r for r in refs.refs if r.face == "square" and r.turn_deg == 0.0)
    cut = _cut(_shown(shown.image, 1.06, (0.0, 0.0)), refs)
    plain = {m.face: m.score for m in compare([cut], refs, DEFAULT)}
    lain = {m.face: m.score for m in compare([cut], refs, DEFAULT, named=lambda _matches: False)}
    assert lain["square"] > 0.97 > plain["square"]
    assert lain["askew"] > plain["askew"] + 0.05


def test_each_image_of_a_face_is_laid_over_the_piece_not_only_the_one_that_correlated_best(
        tmp_path: Path) -> None:
    """A soft reference (another camera's) correlates best with a piece whose print is framed
    8 % larger, but once laid the sharp one fits it."""
    face = card_face(2, "purple", "empty", "diamond")
    library = Library.create(tmp_path / "library")
    library.register("card", "rect", CARD, cv2.GaussianBlur(face, (0, 0), 1.0 * DRAWN), front="diamonds")
    library.register("card", "rect", CARD, face, front="diamonds")
    refs = references(library, DEFAULT)["card"]
    sharp = next(r for r in refs.refs if r.source == 1 and r.turn_deg == 0.0)
    cut = _cut(_shown(sharp.image, 1.08, (0.0, 0.0)), refs)
    plain = compare([cut], refs, DEFAULT)[0]
    lain = compare([cut], refs, DEFAULT, named=lambda _matches: False)[0]
    assert refs.refs[plain.ref].source == 0  # the soft image correlated best before laying
    assert lain.score > 0.97 and refs.refs[lain.ref].source == 1


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), likeness=st.floats(0.0, 1.0), hidden=st.floats(0.0, 0.4))
def test_the_lead_is_how_much_better_one_face_correlates_with_the_part_where_two_differ(
        card_refs: KindRefs, seed: int, likeness: float, hidden: float) -> None:
    rng = np.random.default_rng(seed)
    shape = (*card_refs.weight.shape, 3)
    window = rng.random(shape).astype(np.float32)
    a = (likeness * window + (1 - likeness) * rng.random(shape)).astype(np.float32)
    b = rng.random(shape).astype(np.float32)
    rows = shape[0]
    seen = card_refs.weight.copy()
    seen[: round(hidden * rows)] = 0.0  # the top rows covered by another piece
    apart = np.zeros(card_refs.weight.shape, np.float32)
    apart[rows // 3: 2 * rows // 3] = 1.0  # the faces differ in a band across the piece
    apart *= seen
    part = apart > DEFAULT.twin_difference_min
    # levelled over the band and the rows round it, as far as they are seen
    reach = round(DEFAULT.twin_context_mm * card_refs.scale)
    around = np.zeros(rows, bool)
    around[rows // 3 - reach: 2 * rows // 3 + reach] = True
    context = around[:, None] & (seen > 0)

    def leads(levels: list[np.ndarray]) -> tuple[float, float]:
        x, y, z = (v[part] - level for v, level in zip((window, a, b), levels, strict=True))
        hx, hy, hz = (v - v.mean(axis=1, keepdims=True) for v in (x, y, z))
        return _cosine(x, y) - _cosine(x, z), _cosine(hx, hy) - _cosine(hx, hz)

    def explained() -> tuple[float, float]:
        # how much less of the piece's level over the part each face leaves, scaled as best fits
        # the piece round it, each less its mean there
        inner = part[context]
        out = []
        for hue in (False, True):
            x, y, z = (v[context] - v[context].mean(axis=0) for v in (window, a, b))
            if hue:
                x, y, z = (v - v.mean(axis=1, keepdims=True) for v in (x, y, z))
            left = [np.sum((x[inner] - np.sum(x * f) / np.sum(f * f) * f[inner]) ** 2) / np.sum(x[inner] ** 2)
                    for f in (y, z)]
            out.append(float(left[1] - left[0]))
        return out[0], out[1]

    # the print's pattern over the part where it says something either way; else the part's
    # level against what is round it
    pattern = leads([v[part].mean(axis=0) for v in (window, a, b)])
    if max(abs(v) for v in pattern) < DEFAULT.margin_min:
        pattern = explained()
    found = lead_on(apart, seen, window, a, b, card_refs, DEFAULT)
    assert found is not None
    assert found == pytest.approx(pattern, abs=1e-4)


@pytest.mark.parametrize("shown", ["empty", "tinted"])
@pytest.mark.parametrize(("count", "ink", "shape", "light"), [(2, "red", "oval", (1.0, 1.0, 1.0)),
                                                              (3, "purple", "diamond", (1.0, 0.85, 1.1)),
                                                              (1, "green", "squiggle", (0.8, 0.9, 1.1))])
def test_a_faint_fill_that_one_face_has_and_the_other_lacks_gives_a_clear_lead(
        card_refs: KindRefs, shown: str, count: int, ink: str, shape: str, light: tuple[float, float, float]) -> None:
    # a flat fill has no pattern to tell it by: it is told by how it stands out from round it,
    # in a light of another colour too
    weight = card_refs.weight
    h, w = weight.shape
    empty, solid = (cv2.resize(card_face(count, ink, fill, shape), (w, h), interpolation=cv2.INTER_AREA)
                    .astype(np.float32) / 255 for fill in ("empty", "solid"))
    tinted = 0.75 * empty + 0.25 * solid  # fine stripes seen from afar
    faces = {"empty": empty, "tinted": tinted}
    best, other = faces[shown], faces["tinted" if shown == "empty" else "empty"]
    noise = np.random.default_rng(1).normal(0.0, 0.02, best.shape)
    window = np.asarray(0.8 * best * np.array(light) + noise, np.float32)
    apart = cv2.GaussianBlur(np.abs(best - other).sum(axis=2), (0, 0), DEFAULT.twin_blur_mm * card_refs.scale)
    found = lead_on(apart * weight, weight, window, best, other, card_refs, DEFAULT)
    assert found is not None and found[0] >= 2 * DEFAULT.margin_min


def test_a_grey_fill_seen_as_it_is_is_told_by_its_level_though_it_has_no_hue() -> None:
    # a grey fill inside a grey outline on white paper, the piece the filled face exactly: the
    # piece has no hue at all, which must not cost the lead in colour
    filled = np.ones((20, 30, 3), np.float32)
    filled[5:15, 5:25] = 0.3  # the outline
    filled[7:13, 7:23] = 0.8  # the fill
    empty = filled.copy()
    empty[7:13, 7:23] = 1.0
    part = np.zeros((20, 30), bool)
    part[7:13, 7:23] = True
    around = np.zeros((20, 30), bool)
    around[3:17, 3:27] = True
    flat = np.concatenate([v.reshape(-1, 3) for v in (0.9 * filled, filled, empty)], axis=1)
    colour, hue = _explained(flat, part, around)
    assert colour >= 2 * DEFAULT.margin_min and hue == 0.0
    assert _explained(np.concatenate([v.reshape(-1, 3) for v in (0.9 * filled, empty, filled)], axis=1),
                      part, around)[0] <= -2 * DEFAULT.margin_min


def test_the_lead_in_hue_is_nought_where_the_part_is_grey(card_refs: KindRefs) -> None:
    rng = np.random.default_rng(3)
    grey = [np.repeat(rng.random((*card_refs.weight.shape, 1)), 3, axis=2).astype(np.float32) for _ in range(3)]
    found = lead_on(np.ones(card_refs.weight.shape, np.float32), card_refs.weight, *grey, card_refs, DEFAULT)
    assert found is not None and found[1] == 0.0


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), margin=st.integers(1, 4), stride=st.integers(1, 3),
       kind=st.sampled_from(["card", "coin"]))
def test_each_windows_sums_over_the_weight_are_those_of_its_pixels(card_refs: KindRefs, coin_refs: KindRefs,
                                                                    seed: int, margin: int, stride: int,
                                                                    kind: str) -> None:
    refs = card_refs if kind == "card" else coin_refs
    assert (refs.box is None) == (kind == "coin")  # a card's weight is a box; a coin's is a disc
    h, w = refs.weight.shape
    patch = np.random.default_rng(seed).random((h + 2 * margin, w + 2 * margin, 3)).astype(np.float32)
    sums, squares = _window_sums(patch, refs, stride)
    places = [(y, x) for y in range(0, 2 * margin + 1, stride) for x in range(0, 2 * margin + 1, stride)]
    windows = [patch[y:y + h, x:x + w].astype(np.float64) * refs.weight[:, :, None] for y, x in places]
    assert np.allclose(sums, [window.sum(axis=(0, 1)) for window in windows], rtol=1e-5, atol=1e-2)
    squared = [(window * patch[y:y + h, x:x + w]).sum() for window, (y, x) in zip(windows, places, strict=True)]
    assert np.allclose(squares, squared, rtol=1e-5, atol=1e-2)


def test_a_piece_no_face_is_named_for_is_compared_with_the_next_likeliest_fronts_too(tmp_path: Path) -> None:
    library = Library.create(tmp_path / "library")
    for colour in ("purple", "green", "red"):
        for fill in ("empty", "striped"):
            library.register("card", "rect", CARD, card_face(2, colour, fill, "diamond"), front=f"{colour}-{fill}")
    refs = references(library, DEFAULT)["card"]
    shown = next(r for r in refs.refs if r.face == "green-empty" and r.turn_deg == 0.0)
    cut = _cut(shown.image, refs)
    params = replace(DEFAULT, faces_compared=2, faces_widened=5)
    judged: list[list[str]] = []

    def verdict(named: bool) -> Callable[[list[Match]], bool]:
        def named_or_not(matches: list[Match]) -> bool:
            judged.append(sorted(m.face for m in matches))
            return named
        return named_or_not

    # named from the likeliest two: no more are compared
    first = compare([cut], refs, params, named=verdict(True))
    assert first[0].face == "green-empty" and len(judged) == 1 and len(judged[0]) == 2
    # named from none of them: the likeliest five are, the same two among them
    judged.clear()
    compare([cut], refs, params, named=verdict(False))
    assert [len(faces) for faces in judged] == [2, 5]
    assert set(judged[0]) < set(judged[1])


def test_a_kind_with_no_more_fronts_than_are_judged_first_is_not_judged_again(tmp_path: Path) -> None:
    library = Library.create(tmp_path / "library")
    for colour in ("purple", "green"):
        library.register("card", "rect", CARD, card_face(2, colour, "empty", "diamond"), front=colour)
    refs = references(library, DEFAULT)["card"]
    shown = next(r for r in refs.refs if r.face == "green" and r.turn_deg == 0.0)
    judged: list[int] = []

    def never(matches: list[Match]) -> bool:
        judged.append(len(matches))
        return False

    compare([_cut(shown.image, refs)], refs, replace(DEFAULT, faces_compared=2, faces_widened=5), named=never)
    assert judged == [2]  # laid over at once: there are no more fronts to judge


def _coin(text: str) -> np.ndarray:
    """A coin's face: *text* in white on a green middle within a copper rim (BGR, 208 px)."""
    image = np.full((208, 208, 3), 255, np.uint8)
    for radius, colour in ((103, (40, 70, 120)), (83, (60, 110, 180)), (67, (70, 150, 40))):
        cv2.circle(image, (104, 104), radius, colour, cv2.FILLED, cv2.LINE_AA)
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, 2.2, 9)
    cv2.putText(image, text, (104 - w // 2, 104 + h // 2), cv2.FONT_HERSHEY_DUPLEX, 2.2, (245, 245, 245), 9,
                cv2.LINE_AA)
    return image


@pytest.mark.xfail(strict=True, reason="the camera shows red and blue a pixel apart (lateral chromatic "
                   "aberration): where two coins differ in a digit's shape, hue counts against the right one "
                   "by a little more than margin_min and colour clearly for it; evidence against in either "
                   "is no lead, and on the Set crops evidence against in hue that small is what keeps a "
                   "purple card from being named as its green twin (issue 27)")
def test_a_coin_whose_colours_are_fringed_is_named_by_its_clear_lead_in_colour(tmp_path: Path) -> None:
    library = Library.create(tmp_path / "library")
    fifty = _coin("50")
    library.register("coin", "disc", (20.8, 20.8), fifty, front="fifty")
    library.register("coin", "disc", (20.8, 20.8), _coin("20"), front="twenty")
    refs = references(library, DEFAULT)["coin"]
    h, w = refs.weight.shape
    fine = cv2.resize(fifty, (4 * w, 4 * h), interpolation=cv2.INTER_AREA)
    for channel, px in ((2, 4.0), (0, -4.0)):  # a pixel at the comparison's scale, either way
        fine[:, :, channel] = cv2.warpAffine(fine[:, :, channel], np.float32([[1, 0, px], [0, 1, px / 2]]),
                                             (4 * w, 4 * h), borderMode=cv2.BORDER_REPLICATE)
    piece = cv2.resize(fine, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    matches = compare([_cut(piece, refs)], refs, DEFAULT)
    assert [m.face for m in matches[:2]] == ["fifty", "twenty"]
    assert matches[0].lead is not None and matches[0].lead >= DEFAULT.margin_min
    assert decide(matches, DEFAULT).face == "fifty"
