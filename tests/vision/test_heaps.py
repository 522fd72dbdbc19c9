"""Splitting a heap's outline into whole pieces (``vision.heaps``), on exact outlines in mm."""

from __future__ import annotations

import math

import cv2
import numpy as np
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from shapely.affinity import rotate, translate
from shapely.geometry import Point, Polygon, box
from shapely.ops import unary_union

from vision.heaps import divide_heap, side_turns, split_heap
from vision.library import PieceKind, frame_point

CARD = PieceKind("card", "rect", (57.0, 88.0))
TILE = PieceKind("tile", "rect", (50.0, 50.0))
COIN = PieceKind("coin", "disc", (25.0, 25.0))
KINDS = (CARD, TILE, COIN)


def _piece(kind: PieceKind, x: float, y: float, angle: float) -> Polygon:
    w, h = kind.size_mm
    shape = Point(0, 0).buffer(w / 2, 64) if kind.shape == "disc" else box(-w / 2, -h / 2, w / 2, h / 2)
    return translate(rotate(shape, angle, origin=(0, 0)), x, y)


def _outline(*polys: Polygon) -> np.ndarray:
    union = unary_union(polys)
    assert union.geom_type == "Polygon"
    return np.asarray(union.exterior.coords[:-1], np.float64)


def _centres(parts: list[tuple[PieceKind, np.ndarray]]) -> list[tuple[str, float, float]]:
    return sorted((k.name, *frame_point(f, 0.5, 0.5)) for k, f in parts)


def test_two_overlapping_cards_are_two_cards_where_they_lie() -> None:
    a, b = _piece(CARD, 100, 100, 10), _piece(CARD, 140, 150, -25)
    parts = split_heap(_outline(a, b), KINDS)
    assert [k.name for k, _ in parts] == ["card", "card"]
    for (_, x, y), truth in zip(_centres(parts), sorted([(100, 100), (140, 150)]), strict=True):
        assert math.hypot(x - truth[0], y - truth[1]) < 1.0


def _seen(*polys: Polygon, px_per_mm: float = 1.0, blur_px: float = 1.5) -> np.ndarray:
    """The outline of *polys* as a camera's segmentation gives it: drawn at *px_per_mm*,
    blurred (lens and JPEG) and cut at half, traced along its pixels, back in mm."""
    union = unary_union(polys)
    x0, y0, x1, y1 = union.bounds
    mask = np.zeros((int((y1 - y0 + 20) * px_per_mm), int((x1 - x0 + 20) * px_per_mm)), np.float32)
    for poly in getattr(union, "geoms", [union]):
        pts = (np.asarray(poly.exterior.coords) - (x0 - 10, y0 - 10)) * px_per_mm
        cv2.fillPoly(mask, [np.round(pts * 16).astype(np.int32)], 1.0, cv2.LINE_AA, shift=4)
    cut = (cv2.GaussianBlur(mask, (0, 0), blur_px) > 0.5).astype(np.uint8)
    contours, _ = cv2.findContours(cut, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    outline = max(contours, key=cv2.contourArea).reshape(-1, 2).astype(np.float64)
    return (outline + 0.5) / px_per_mm + (x0 - 10, y0 - 10)


def test_cards_seen_overlapping_are_split_at_their_rounded_corners() -> None:
    """Seen at 1 px/mm, a card's rounded corner (3 mm, as printed) is cut off by a side of its
    own when the outline is simplified: its corner lies between its two sides all the same."""
    rng = np.random.default_rng(1)
    tried = split = 0
    while tried < 200:
        first = _piece(CARD, 0, 0, rng.uniform(0, 90)).buffer(-3.0).buffer(3.0, 16)
        d, reach, turn = rng.uniform(0, 2 * math.pi), rng.uniform(60, 110), rng.uniform(0, 90)
        second = _piece(CARD, reach * math.cos(d), reach * math.sin(d), turn).buffer(-3.0).buffer(3.0, 16)
        union = unary_union([first, second])
        if not 0.02 < first.intersection(second).area / first.area < 0.2 or union.interiors:
            continue
        tried += 1
        parts = split_heap(_seen(first, second, blur_px=rng.uniform(1.0, 2.0)), KINDS)
        split += [k.name for k, _ in parts] == ["card", "card"]
    assert split >= 0.98 * tried, f"{split}/{tried}"


def test_a_tile_under_a_card_and_two_touching_coins() -> None:
    parts = split_heap(_outline(_piece(CARD, 100, 100, 0), _piece(TILE, 140, 60, 30)), KINDS)
    assert sorted(k.name for k, _ in parts) == ["card", "tile"]
    coins = split_heap(_outline(_piece(COIN, 50, 50, 0), _piece(COIN, 73, 55, 0)), KINDS)
    assert [k.name for k, _ in coins] == ["coin", "coin"]
    for (_, x, y), truth in zip(_centres(coins), [(50, 50), (73, 55)], strict=True):
        assert math.hypot(x - truth[0], y - truth[1]) < 1.5


def test_three_coins_in_a_row_are_three_though_the_middle_one_shows_little_edge() -> None:
    coins = [_piece(COIN, 50 + 18 * i, 50, 0) for i in range(3)]  # each a sixth under the next
    assert 0.12 < coins[0].intersection(coins[1]).area / coins[0].area < 0.2
    parts = split_heap(_seen(*coins), KINDS)
    assert [k.name for k, _ in parts] == ["coin"] * 3
    for (_, x, y), truth in zip(_centres(parts), [(50, 50), (68, 50), (86, 50)], strict=True):
        assert math.hypot(x - truth[0], y - truth[1]) < 1.5


def test_what_whole_pieces_do_not_explain_is_not_split() -> None:
    blob = Point(0, 0).buffer(40).union(box(0, -10, 90, 10))  # a round blob with a tail: no piece
    assert split_heap(np.asarray(blob.exterior.coords[:-1]), KINDS) == []
    big = box(0, 0, 120, 160)  # one rect, larger than any kind: not a heap of them either
    assert split_heap(np.asarray(big.exterior.coords[:-1]), KINDS) == []


def test_a_heap_not_explained_still_gives_the_pieces_its_outline_shows_whole() -> None:
    # a coin beside a scrap no piece explains (a piece that matches the cloth, one not in the
    # library): not split, but the coin is found where it lies, and nothing for the scrap
    coin = _piece(COIN, 50, 50, 0)
    scrap = Polygon([(55, 42), (110, 30), (115, 60), (58, 56)])
    outline = _outline(coin, scrap)
    assert split_heap(outline, KINDS) == []
    split = divide_heap(outline, KINDS)
    assert not split.explained
    assert [(name, round(x), round(y)) for name, x, y in _centres(split.pieces)] == [("coin", 50, 50)]
    # explained, the pieces are the split's
    pair = _outline(coin, _piece(COIN, 70, 55, 0))
    both = divide_heap(pair, KINDS)
    assert both.explained and _centres(both.pieces) == _centres(split_heap(pair, KINDS))
    assert len(both.pieces) == 2


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([CARD, TILE]), st.sampled_from([CARD, TILE]), st.floats(0, 360), st.floats(0, 360),
       st.floats(0, 2 * math.pi), st.floats(0.45, 0.95))
# side by side, their tops all but in line: one side in the outline, from the far corner of
# one to the near corner of the other, with only the step between them near it at one end
@example(CARD, CARD, 0.0, 357.75, 0.0, 0.5974424895287453)
def test_two_rects_overlapping_up_to_a_fifth_split_into_both(
        k1: PieceKind, k2: PieceKind, a1: float, a2: float, direction: float, reach: float) -> None:
    first = _piece(k1, 0, 0, a1)
    span = (max(k1.size_mm) + max(k2.size_mm)) / 2
    second = _piece(k2, reach * span * math.cos(direction), reach * span * math.sin(direction), a2)
    shared = first.intersection(second).area
    assume(0 < shared <= 0.2 * min(first.area, second.area))
    union = unary_union([first, second])
    assume(union.geom_type == "Polygon" and not union.interiors)
    parts = split_heap(_outline(first, second), KINDS)
    # never a wrong piece: either both, where they lie, or nothing (an unknown)
    if parts:
        assert sorted(k.name for k, _ in parts) == sorted([k1.name, k2.name])
        truths = [first.centroid, second.centroid]
        for _, x, y in _centres(parts):
            assert min(math.hypot(x - t.x, y - t.y) for t in truths) < 2.0


def test_most_pairs_overlapping_up_to_a_fifth_are_split() -> None:
    """Over a grid of turns and offsets, both pieces come out in nearly every case (the
    property above only says a split is never wrong)."""
    rng = np.random.default_rng(3)
    tried = split = 0
    while tried < 200:
        k1, k2 = (CARD, TILE)[rng.integers(2)], (CARD, TILE)[rng.integers(2)]
        first = _piece(k1, 0, 0, rng.uniform(0, 360))
        span = (max(k1.size_mm) + max(k2.size_mm)) / 2
        d, reach = rng.uniform(0, 2 * math.pi), rng.uniform(0.45, 0.95)
        second = _piece(k2, reach * span * math.cos(d), reach * span * math.sin(d), rng.uniform(0, 360))
        shared = first.intersection(second).area
        union = unary_union([first, second])
        if not (0 < shared <= 0.2 * min(first.area, second.area)) or union.geom_type != "Polygon" \
                or union.interiors:
            continue
        tried += 1
        split += len(split_heap(_outline(first, second), KINDS)) == 2
    assert split >= 0.9 * tried, f"{split}/{tried}"


@settings(max_examples=60, deadline=None)
@given(st.floats(0, 2 * math.pi), st.floats(19.0, 24.5), st.floats(0, 1), st.floats(0, 1), st.booleans())
def test_two_coins_whose_outline_came_out_a_pixel_short_or_wide_are_still_split(
        direction: float, distance: float, dx: float, dy: float, short: bool) -> None:
    # a 25 mm coin seen at ~1 px/mm, its edge blending into the cloth or blurred onto it: the
    # segmented outline lies a pixel inside the truth all round (a whole coin of the kind's
    # size pokes out of it) or outside (a rim of a tenth of the heap that no coin explains)
    first = _piece(COIN, 50 + dx, 50 + dy, 0)
    second = _piece(COIN, 50 + dx + distance * math.cos(direction), 50 + dy + distance * math.sin(direction), 0)
    union = unary_union([first, second]).buffer(-1.0 if short else 1.0)
    mask = np.zeros((130, 130), np.uint8)  # rasterised at 1 px/mm
    cv2.fillPoly(mask, [np.round(np.asarray(union.exterior.coords) * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    outline = max(contours, key=cv2.contourArea).reshape(-1, 2).astype(np.float64)
    parts = split_heap(outline, KINDS)
    assert [k.name for k, _ in parts] == ["coin", "coin"]
    for truth in (first.centroid, second.centroid):
        assert min(math.hypot(x - truth.x, y - truth.y) for _, x, y in _centres(parts)) < 1.5


def _turn_gap(a: float, b: float) -> float:
    """How far apart two directions of a rect's sides are, in degrees (0-45)."""
    return abs((a - b + 45.0) % 90.0 - 45.0)


@settings(max_examples=40, deadline=None)
@given(st.floats(0, 360), st.floats(-60, 60), st.floats(0, 360))
@example(34.5, -14.0, 285.5)  # the tile's sides 3.2 deg off
def test_side_turns_give_how_the_heaps_rects_lie(card_turn: float, offset: float, tile_turn: float) -> None:
    # a card's sides as a camera's outline shows them: the longest side, so the first turn,
    # runs the card's way; a tile overlapping it adds its own way among the next
    card, tile = _piece(CARD, 100, 100, card_turn), _piece(TILE, 100 + offset, 160, tile_turn)
    assert _turn_gap(side_turns(_seen(card), 4, 4.0)[0], card_turn) < 2.0
    assume(_turn_gap(card_turn, tile_turn) > 10.0 and unary_union([card, tile]).geom_type == "Polygon")
    turns = side_turns(_seen(card, tile), 4, 4.0)
    assert len(turns) <= 4 and all(_turn_gap(a, b) >= 4.0 for i, a in enumerate(turns) for b in turns[:i])
    assert min(_turn_gap(t, card_turn) for t in turns) < 2.0
    # a tile half hidden: shorter sides, a few degrees off (at the search's 0.4 px/mm, 4 deg
    # moves a tile's corner by 0.7 px)
    assert min(_turn_gap(t, tile_turn) for t in turns) < 4.0
