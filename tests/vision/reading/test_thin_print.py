"""The staged reader on cards printed in thin lines, as a camera other than the one that took
their references sees them: the print framed a little larger or smaller than in the reference,
light falling off across the card, and the table showing at its rounded corners."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.reading.test_read import SCALE, cloth, put
from vision.library import Library
from vision.reading import ReadResult, read

CARD = (57.0, 88.0)
DRAWN = 6.0  # px/mm of a drawn face
INKS = {"red": (40, 30, 200), "green": (70, 150, 20), "purple": (140, 30, 110), "orange": (30, 110, 220)}  # BGR


def card_face(count: int, ink: str, fill: str, shape: str, grown: float = 1.0) -> np.ndarray:
    """A card's face: *count* ovals or diamonds in a column, outlined 0.8 mm wide in *ink* and
    filled not at all, with stripes 1 mm apart, or wholly; the print *grown* about the centre."""
    w, h = round(CARD[0] * DRAWN), round(CARD[1] * DRAWN)
    img = np.full((h, w, 3), 240, np.uint8)
    mask = np.zeros((h, w), np.uint8)
    half_w, half_h = 17 * DRAWN * grown, 6 * DRAWN * grown
    for k in range(count):
        cx, cy = w / 2, h / 2 + (k - (count - 1) / 2) * 16 * DRAWN * grown
        if shape == "oval":
            pts = cv2.ellipse2Poly((round(cx), round(cy)), (round(half_w), round(half_h)), 0, 0, 360, 5)
        else:
            pts = np.round([[cx - half_w, cy], [cx, cy - half_h], [cx + half_w, cy], [cx, cy + half_h]]).astype(np.int32)
        cv2.fillPoly(mask, [pts], 255)
    colour = INKS[ink]
    if fill == "solid":
        img[mask > 0] = colour
    elif fill == "striped":
        stripes = np.zeros_like(mask)
        for x in range(0, w, round(DRAWN)):
            cv2.line(stripes, (x, 0), (x, h), 255, 2)
        img[(mask > 0) & (stripes > 0)] = colour
    edge = cv2.morphologyEx(mask, cv2.MORPH_GRADIENT, np.ones((5, 5), np.uint8))
    img[edge > 0] = colour
    return img


FACES = {f"{n}-{ink}-{fill}-{shape}": (n, ink, fill, shape)
         for n in (1, 2) for fill in ("empty", "striped", "solid") for shape, ink in (("oval", "red"), ("diamond", "purple"))}
"""Twelve faces, each differing from another in its count, its fill or its shape alone."""


def _library(root: Path, left_out: str | None = None, solid_light: tuple[float, float, float] = (1.0, 1.0, 1.0)
             ) -> Library:
    """The :data:`FACES` but *left_out*, the solid ones photographed in *solid_light* (a gain per
    channel, BGR: another exposure or white balance than the others')."""
    library = Library.create(root)
    for name, spec in FACES.items():
        if name != left_out:
            face = card_face(*spec)
            if spec[2] == "solid":
                face = np.clip(face * np.float32(solid_light), 0, 255).astype(np.uint8)
            library.register("card", "rect", CARD, face, front=name)
    return library


def _photo(faces: list[tuple[str, tuple[float, float], float]], grown: float,
           specs: dict[str, tuple[int, str, str, str]] = FACES, slant: float = 0.0,
           lamp: float = 0.0, shade: str = "") -> np.ndarray:
    """The cards on a dark cloth, their print *grown*, their corners rounded to the cloth and
    the light falling off to half from the right of the table to its left; each card seen
    *slanted* (its top end that share narrower than its bottom, the cloth showing beside it);
    lamps low over the table, each *lamp* brighter than between them (every 170 mm: the light
    falls off steeply across a card); and a *shade* over the table's middle: ``"band"``, a
    shadow 20 mm wide and a quarter darker across the top of every card, its edges 3 mm soft, or
    ``"glare"``, a lamp's reflection on the cards' gloss, up to 30 % of the way to white along a
    wedge every 85 mm."""
    table = cloth(420, 220, seed=5)
    table[:] = table // 3
    cards = np.zeros_like(table)  # where the cards lie: glare shows on their gloss alone
    for name, centre, angle in faces:
        face = _slanted(card_face(*specs[name], grown=grown), slant, table.mean(axis=(0, 1)))
        corners = np.full(face.shape[:2], 255, np.uint8)
        r = round(3 * DRAWN)  # the card's corners are rounded 3 mm: the cloth shows there
        for x, y in ((r, r), (face.shape[1] - 1 - r, r), (r, face.shape[0] - 1 - r),
                     (face.shape[1] - 1 - r, face.shape[0] - 1 - r)):
            keep = np.zeros_like(corners)
            cv2.circle(keep, (x, y), r, 255, -1)
            corners[(keep == 0) & _beyond(face.shape[:2], x, y)] = 0
        shown = np.where(corners[:, :, None] > 0, face, table.mean(axis=(0, 1)).astype(np.uint8))
        put(table, shown, CARD, centre, angle)
        put(cards, np.full_like(face, 255), CARD, centre, angle)
    ramp = np.linspace(0.5, 1.0, table.shape[1], dtype=np.float32)[None, :, None]
    if lamp:
        xs = np.arange(table.shape[1], dtype=np.float32)[None, :, None]
        ramp = ramp * (1.0 - lamp * (0.5 + 0.5 * np.sin(2 * np.pi * xs / (170 * SCALE))))
    lit = table * ramp
    y_mm, x_mm = np.mgrid[0:table.shape[0], 0:table.shape[1]].astype(np.float32) / SCALE
    if shade == "band":  # the shadow of something between the lamp and the table, its edges soft
        band = np.where(np.abs(y_mm - 80 - 0.02 * x_mm) < 10, 0.75, 1.0).astype(np.float32)
        lit *= cv2.GaussianBlur(band, (0, 0), 1.5 * SCALE)[:, :, None]
    elif shade == "glare":  # a wedge, brightest along its middle, every 85 mm
        wedge = np.clip(1.0 - np.abs((x_mm - 0.5 * y_mm) % 85 - 42) / 8, 0.0, 1.0)[:, :, None]
        lit += 0.3 * wedge * (cards / 255.0) * np.maximum(255.0 - lit, 0.0)
    return np.clip(lit, 0, 255).astype(np.uint8)


def _slanted(face: np.ndarray, share: float, cloth_bgr: np.ndarray) -> np.ndarray:
    """*face* seen from a little off its top: its top edge *share* shorter, cloth beside it."""
    h, w = face.shape[:2]
    d = share * w / 2
    corners = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    m = cv2.getPerspectiveTransform(corners, np.float32([[d, 0], [w - d, 0], [w, h], [0, h]]))
    return np.asarray(cv2.warpPerspective(face, m, (w, h), flags=cv2.INTER_AREA,
                                          borderValue=tuple(float(v) for v in cloth_bgr)), np.uint8)


def _beyond(shape: tuple[int, int], x: int, y: int) -> np.ndarray:
    """Where a pixel lies further out than the corner circle's centre (*x*, *y*), both ways."""
    h, w = shape
    ys, xs = np.mgrid[0:h, 0:w]
    out_x = xs < x if x < w / 2 else xs > x
    out_y = ys < y if y < h / 2 else ys > y
    return np.asarray(out_x & out_y)


LAID = [("1-red-empty-oval", (80, 110), 0.0), ("2-purple-striped-diamond", (165, 110), 90.0),
        ("2-purple-empty-diamond", (250, 110), 180.0), ("1-red-striped-oval", (320, 110), 0.0)]


def _read_as_laid(library: Library, photo: np.ndarray) -> ReadResult:
    """*photo* of the :data:`LAID` cards read: each card as its own face (asserted)."""
    result = read(photo, library, px_per_mm=SCALE)
    got = sorted((round(p.center[0] / SCALE), p.front) for p in result.pieces)
    assert got == sorted((round(c[0]), name) for name, c, _a in LAID), (got, result.unknown)
    return result


@pytest.mark.slow
@pytest.mark.parametrize("grown", [0.94, 1.06])
def test_thin_print_framed_otherwise_than_its_reference_is_read_in_failing_light(tmp_path: Path,
                                                                                 grown: float) -> None:
    library = _library(tmp_path / "library")
    assert not _read_as_laid(library, _photo(LAID, grown)).unknown


@pytest.mark.slow
@pytest.mark.parametrize("grown", [0.94, 1.06])
def test_thin_print_framed_otherwise_is_read_under_lamps_low_over_the_table(tmp_path: Path,
                                                                              grown: float) -> None:
    """Light that falls off by a third across a card is no reason to lay its face badly."""
    library = _library(tmp_path / "library")
    assert not _read_as_laid(library, _photo(LAID, grown, lamp=0.3)).unknown


@pytest.mark.slow
@pytest.mark.parametrize("grown", [0.94, 1.06])
def test_thin_print_is_told_from_its_solid_twin_registered_in_another_exposure(tmp_path: Path,
                                                                                grown: float) -> None:
    """Where two faces were photographed in another light, the whole card differs as it is:
    their print alone says which fill the piece has."""
    _read_as_laid(_library(tmp_path / "library", solid_light=(0.7 * 0.85, 0.7, 0.7)), _photo(LAID, grown))


@pytest.mark.slow
@pytest.mark.parametrize("shade", ["band", "glare"])
def test_thin_print_is_read_under_a_shadows_band_or_a_glare(tmp_path: Path, shade: str) -> None:
    """A shadow's sharp edge or a lamp's reflection across a card darkens or lightens its paper
    and its print alike: no part of the card the face fails to explain."""
    _read_as_laid(_library(tmp_path / "library"), _photo(LAID, 1.0, shade=shade))


@pytest.mark.slow
@pytest.mark.parametrize("shade", ["band", "glare"])
def test_a_thin_print_the_library_lacks_is_unknown_under_a_shadow_or_a_glare(tmp_path: Path,
                                                                               shade: str) -> None:
    """Taking the light's shade off a card leaves the print the face lacks: an outline without
    its stripes is not its striped twin. (A striped print without its solid twin is: see
    :func:`test_a_striped_print_the_library_lacks_is_not_named_as_its_solid_twin`.)"""
    for left_out in ("1-red-empty-oval", "2-purple-empty-diamond"):
        result, where = _read_without(tmp_path, left_out, 1.0, shade)
        named = [p for p in result.pieces if math.isclose(p.center[0] / SCALE, where, abs_tol=3)]
        assert not named, named


@pytest.mark.slow
def test_thin_print_seen_a_little_slanted_is_read(tmp_path: Path) -> None:
    """The cloth along a slanted card's edges is no print the face fails to explain."""
    _read_as_laid(_library(tmp_path / "library"), _photo(LAID, 1.0, slant=0.04))


@pytest.mark.slow
@pytest.mark.parametrize("left_out", ["2-purple-striped-diamond", "1-red-empty-oval"])
def test_a_thin_print_the_library_lacks_is_unknown_though_a_twin_is_laid_over_it(tmp_path: Path,
                                                                                  left_out: str) -> None:
    result, where = _read_without(tmp_path, left_out, 1.06)
    assert not any(math.isclose(p.center[0] / SCALE, where, abs_tol=3) for p in result.pieces), result.pieces
    assert any(math.isclose(u.center[0] / SCALE, where, abs_tol=3) for u in result.unknown)


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="striped print finer than the comparison scale is a tint: one "
                                       "gain fits the solid twin nearly as well (issue 27)")
@pytest.mark.parametrize("left_out", ["2-purple-striped-diamond", "1-red-striped-oval"])
def test_a_striped_print_the_library_lacks_is_not_named_as_its_solid_twin(tmp_path: Path,
                                                                          left_out: str) -> None:
    result, where = _read_without(tmp_path, left_out, 1.0)
    assert not any(math.isclose(p.center[0] / SCALE, where, abs_tol=3) for p in result.pieces), result.pieces


def _read_without(tmp_path: Path, left_out: str, grown: float, shade: str = "") -> tuple[ReadResult, float]:
    """The :data:`LAID` cards, their print *grown*, under *shade* (:func:`_photo`), read with a
    library that lacks *left_out*; and where that card lies (mm along the table)."""
    library = _library(tmp_path / left_out, left_out=left_out)
    where = next(c[0] for name, c, _a in LAID if name == left_out)
    return read(_photo(LAID, grown, shade=shade), library, px_per_mm=SCALE), where


@pytest.mark.slow
def test_thin_prints_that_differ_in_their_inks_colour_alone_are_told_apart(tmp_path: Path) -> None:
    twins = {f"2-{ink}-empty-diamond": (2, ink, "empty", "diamond") for ink in ("red", "green", "purple")}
    _assert_twins_read(tmp_path, twins, 1.04, first_mm=80)


@pytest.mark.slow
@pytest.mark.parametrize("grown", [0.96, 1.04])
def test_thin_prints_in_two_near_inks_are_told_apart(tmp_path: Path, grown: float) -> None:
    """Red and orange outlines differ faintly once blurred to the comparison's scale."""
    twins = {f"{n}-{ink}-empty-{shape}": (n, ink, "empty", shape)
             for n, shape in ((2, "diamond"), (3, "oval")) for ink in ("red", "orange")}
    _assert_twins_read(tmp_path, twins, grown, first_mm=60)


def _assert_twins_read(tmp_path: Path, twins: dict[str, tuple[int, str, str, str]], grown: float,
                       first_mm: float) -> None:
    """A library of *twins* alone, each laid once in a row from *first_mm* (85 mm apart, each a
    quarter turn more), their print *grown*: every card is read as its own face."""
    library = Library.create(tmp_path / "library")
    for name, spec in twins.items():
        library.register("card", "rect", CARD, card_face(*spec), front=name)
    laid = [(name, (first_mm + 85 * i, 110), 90.0 * i) for i, name in enumerate(twins)]
    result = read(_photo(laid, grown, twins), library, px_per_mm=SCALE)
    got = sorted((round(p.center[0] / SCALE), p.front) for p in result.pieces)
    assert got == sorted((round(c[0]), name) for name, c, _a in laid), (got, result.unknown)


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="in a light that lacks green, purple and green ink differ less than "
                                       "a reference framed 0.75 mm off does: the correlation, and the lead "
                                       "where the two faces differ, weigh the framing more than the ink "
                                       "(issue 27)")
def test_thin_prints_in_two_inks_are_not_named_as_each_other_in_a_light_lacking_one(tmp_path: Path) -> None:
    library = Library.create(tmp_path / "library")
    green, purple = (card_face(1, ink, "empty", "diamond") for ink in ("green", "purple"))
    off = np.float32([[1, 0, 0.75 * DRAWN], [0, 1, 0.75 * DRAWN]])  # the purple one cropped 0.75 mm off
    purple = cv2.warpAffine(purple, off, purple.shape[1::-1], borderMode=cv2.BORDER_REPLICATE)
    library.register("card", "rect", CARD, green, front="1-green-empty-diamond")
    library.register("card", "rect", CARD, purple, front="1-purple-empty-diamond")
    laid = [("1-purple-empty-diamond", (80 + 85 * i, 110), 90.0 * i) for i in range(4)]
    specs = {"1-purple-empty-diamond": (1, "purple", "empty", "diamond")}
    pink = np.clip(_photo(laid, 1.0, specs) * np.float32((0.8, 0.55, 1.0)), 0, 255).astype(np.uint8)
    result = read(pink, library, px_per_mm=SCALE)
    assert not [p.front for p in result.pieces if p.front != "1-purple-empty-diamond"], result.pieces
