"""A face judged on a piece: the light's shade across the piece taken off before the best face
is judged closely, and what that leaves of print the face lacks."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.vision.reading.test_thin_print import CARD, INKS, card_face
from vision.library import Library
from vision.reading.decide import decide
from vision.reading.faces import KindRefs, references
from vision.reading.identify import Match
from vision.reading.judge import aligned, unexplained, unshaded
from vision.reading.params import DEFAULT


@pytest.fixture(scope="module")
def card_refs(tmp_path_factory: pytest.TempPathFactory) -> KindRefs:
    library = Library.create(tmp_path_factory.mktemp("judge") / "library")
    library.register("card", "rect", CARD, card_face(1, "red", "empty", "oval"), front="oval")
    return references(library, DEFAULT)["card"]


def _band(shape: tuple[int, int], top: float, height: float, dark: float, soft_px: float) -> np.ndarray:
    """A shade: 1 but for a band across *shape* from *top* (share of its height), *height* tall,
    *dark* as light there, its edges blurred by *soft_px*."""
    h, w = shape
    band = np.ones((h, w), np.float32)
    band[round(top * h):round((top + height) * h)] = dark
    return np.asarray(cv2.GaussianBlur(band, (0, 0), soft_px) if soft_px > 0 else band, np.float32)


def _judged(card_refs: KindRefs, window: np.ndarray) -> tuple[float, float]:
    """The oval face's correlation with *window* and its residual: as it is, and unshaded."""
    ref = card_refs.refs[0]
    fit = aligned(window, ref, card_refs.weight, True, DEFAULT)
    assert fit is not None
    lit = aligned(unshaded(window, ref, fit, card_refs.scale, DEFAULT), ref, card_refs.weight, True, DEFAULT)
    assert lit is not None
    return lit.score, unexplained(lit, card_refs.scale, DEFAULT)[0]


@settings(max_examples=30, deadline=None)
@given(top=st.floats(0.05, 0.7), height=st.floats(0.1, 0.3), dark=st.floats(0.8, 0.9),
       light=st.tuples(st.floats(0.6, 1.0), st.floats(0.6, 1.0), st.floats(0.6, 1.0)))
def test_a_shadows_band_across_a_card_is_taken_off(card_refs: KindRefs, top: float, height: float,
                                                   dark: float, light: tuple[float, float, float]) -> None:
    """A band of shade 10 to 20 % darker (its edges 1.5 mm soft) over the paper and the print
    alike, in a light of any colour: once it is taken off, the face explains the whole card."""
    ref = card_refs.refs[0]
    shade = _band(ref.image.shape[:2], top, height, dark, 1.5 * card_refs.scale)
    window = ref.image * shade[:, :, None] * np.float32(light)
    plain = aligned(window, ref, card_refs.weight, True, DEFAULT)
    assert plain is not None
    score, residual = _judged(card_refs, window)
    assert score > max(0.9, plain.score)
    assert residual <= DEFAULT.residual_max


def test_a_symbol_the_face_lacks_is_left_on_the_unshaded_card(card_refs: KindRefs) -> None:
    """The shade is found where the face is paper and the piece is as grey as the light: a
    symbol in ink where the face has paper is no shade, and stays."""
    ref = card_refs.refs[0]
    h, w = ref.image.shape[:2]
    window = ref.image.copy()
    ink = np.float32(INKS["purple"]) / 255.0
    cv2.rectangle(window, (w // 3, h // 8), (2 * w // 3, h // 4), tuple(float(v) for v in ink), -1)
    shade = _band((h, w), 0.55, 0.2, 0.75, 1.5 * card_refs.scale)
    out = unshaded(window * shade[:, :, None], ref, aligned(window, ref, card_refs.weight, True, DEFAULT),
                   card_refs.scale, DEFAULT)
    symbol = out[h // 8 + 2:h // 4 - 2, w // 3 + 2:2 * w // 3 - 2]
    assert np.allclose(symbol.mean(axis=(0, 1)), ink, atol=0.04)
    _score, residual = _judged(card_refs, window * shade[:, :, None])
    assert residual > DEFAULT.residual_max


def test_a_shade_is_taken_as_at_most_its_bound_either_way(card_refs: KindRefs) -> None:
    """A piece much darker over a part than the face (a dark object on it, not a shadow) is
    lightened by at most :attr:`Params.shade_max` there."""
    ref = card_refs.refs[0]
    shade = _band(ref.image.shape[:2], 0.1, 0.3, 0.2, 0.0)
    window = ref.image * shade[:, :, None]
    fit = aligned(window, ref, card_refs.weight, True, DEFAULT)
    gain = unshaded(window, ref, fit, card_refs.scale, DEFAULT) / np.maximum(window, 1e-6)
    assert float(gain.max()) <= np.exp(DEFAULT.shade_max) * (1 + 1e-4)


def test_a_plain_piece_is_not_shaded_into_a_face_whose_print_is_wider_than_the_blur(tmp_path: Path) -> None:
    """Where the print is wider than the shade's blur reaches, the shade there is the paper's:
    a plain patch stays plain, and does not take on the print's outline."""
    # grey print over more than half the card: the ratio's median is the print's
    wide = cv2.cvtColor(card_face(2, "red", "solid", "oval", grown=3.2), cv2.COLOR_BGR2GRAY)
    library = Library.create(tmp_path / "library")
    library.register("card", "rect", CARD, cv2.cvtColor(wide, cv2.COLOR_GRAY2BGR), front="bands")
    refs = references(library, DEFAULT)["card"]
    ref = refs.refs[0]
    window = (0.6 + np.random.default_rng(2).normal(0.0, 0.005, ref.image.shape)).astype(np.float32)
    fit = aligned(window, ref, refs.weight, True, DEFAULT)
    assert fit is not None
    out = unshaded(window, ref, fit, refs.scale, DEFAULT).mean(axis=2)[refs.weight > 0]
    assert float(np.ptp(out)) < 0.1


@settings(max_examples=200, deadline=None)
@given(score=st.floats(0.0, 1.0), gap=st.floats(2 * DEFAULT.margin_min, 2.0), residual=st.floats(0.0, 3.0),
       lit=st.one_of(st.none(), st.floats(-1.0, 1.0)), lead=st.floats(-1.0, 1.0))
def test_where_the_best_score_clears_twice_the_margin_no_lead_changes_the_verdict(
        score: float, gap: float, residual: float, lit: float | None, lead: float) -> None:
    # the comparison weighs the two likeliest faces' lead only where their scores are closer
    best = Match("a", score, 0.0, residual, (0, 0), 0, 0.0, lit_score=lit)
    runner_up = Match("b", score - gap, 0.0, math.inf, (0, 0), 1, 0.0)
    without, weighed = decide([best, runner_up], DEFAULT), decide([replace(best, lead=lead), runner_up], DEFAULT)
    assert (without.face, without.confidence) == (weighed.face, weighed.confidence)
