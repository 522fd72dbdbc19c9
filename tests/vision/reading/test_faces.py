"""The registered faces as the comparison sees them: light that falls off across a piece taken
out, a part of a face's spread worked out as it is for the whole, and a face laid over a piece
that shows it a little larger, smaller or moved."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.vision.reading.test_thin_print import CARD, card_face
from vision.library import Library
from vision.reading.faces import KindRefs, centred, laid, power_over, references
from vision.reading.params import DEFAULT


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


def _shown(ref_image: np.ndarray, grown: float, move_px: tuple[float, float]) -> np.ndarray:
    """*ref_image* as a piece shows it: its print *grown* about the centre and moved."""
    h, w = ref_image.shape[:2]
    m = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), 0.0, grown)
    m[:, 2] += move_px
    return np.asarray(cv2.warpAffine(ref_image, m, (w, h), borderMode=cv2.BORDER_REPLICATE), np.float32)


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


def test_a_face_is_not_laid_over_what_it_would_have_to_be_stretched_by_a_fifth_to_fit(card_refs: KindRefs) -> None:
    ref = card_refs.refs[0]
    assert laid(_shown(ref.image, 1.2, (0.0, 0.0)), ref, card_refs.weight, card_refs, DEFAULT) is None


def test_a_reference_laid_over_a_piece_keeps_its_face_and_turn(card_refs: KindRefs) -> None:
    ref = card_refs.refs[-1]
    lain = laid(_shown(ref.image, 1.05, (0.0, 0.0)), ref, card_refs.weight, card_refs, DEFAULT)
    assert lain is not None
    assert (lain.face, lain.turn_deg) == (ref.face, ref.turn_deg)
    assert lain.soft.shape == ref.soft.shape and np.allclose(lain.colour, ref.colour)
