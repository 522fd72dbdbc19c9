"""Stage 1: what in the view is not table.

With an empty frame a piece is what differs from it in colour, once the two are brought to the
same light: the light's change over a window several pieces wide, as the table shows it, and at
each place the brighter of the two lights (a shadow would otherwise shrink every difference
under it). A part that differs is a piece where it somewhere differs well past the bar: the
light misjudged at a shadow's soft edge differs a little, all over a patch. Without an empty
frame, a piece is what stands out from the local table colour by more than the table's own
spread (wood grain, cloth weave). The local table colour is a median over a window several
pieces wide; where the scale is not known, over what the view's rim shows, less whatever of a
piece's size stands far out from the rim's colour (so pieces laid close together do not become
the table, and a mat or board laid on it stays table); with it, part by part where the table
has parts of different colours (a mat on a cloth), each part's colour taken from that part
alone, and where parts meet each place taken as the part whose colour is nearer its own. The
table markers' sheets lend the table no colour. Both work in CIELAB, so a difference in hue
counts as much as one in brightness.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.reading.params import Params

MEDIAN_PX = 24.0
"""A median over a window is worked out in a view shrunk to make the window this wide (px)."""
LIGHT_STEP = 0.01
"""The change of light is worked out in steps of this (natural log: 1 %), up to 128 steps
either way."""
_UNIT = (np.arange(256, dtype=np.float32) * np.float32(1 / 255)).reshape(1, 256)
"""Each 8-bit level as a float from 0 to 1."""


def lab(view: np.ndarray, sigma_px: float) -> np.ndarray:
    """*view* (BGR uint8) blurred by *sigma_px* and in CIELAB (float32: L 0-100, a and b ±127)."""
    if sigma_px > 0.3:
        view = cv2.GaussianBlur(view, (0, 0), sigma_px)
    return np.asarray(cv2.cvtColor(cv2.LUT(view, _UNIT), cv2.COLOR_BGR2Lab), np.float32)


def scaled(image: np.ndarray, shift: np.ndarray, scale: np.ndarray | None = None) -> np.ndarray:
    """*image* (float32, n channels) less *shift* and then times *scale*, per channel (one pass:
    numpy's broadcasting over a last axis of 3 is several times slower)."""
    n = image.shape[2]
    factor = np.ones(n, np.float32) if scale is None else np.asarray(scale, np.float32)
    matrix = np.hstack([np.diag(factor), -(factor * np.asarray(shift, np.float32))[:, None]])
    return np.asarray(cv2.transform(np.asarray(image, np.float32), matrix), np.float32)


def length(vectors: np.ndarray) -> np.ndarray:
    """The length of each pixel's vector of channels (float32, one channel)."""
    squares = np.asarray(vectors, np.float32) ** 2
    return np.sqrt(np.asarray(cv2.transform(squares, np.ones((1, squares.shape[2]), np.float32)), np.float32))


def _channel_medians(values: np.ndarray) -> np.ndarray:
    """The median of each column of *values* (a row per pixel), each from one contiguous row."""
    return np.asarray(np.median(np.ascontiguousarray(values.T), axis=1), np.float32)


def not_table(view: np.ndarray, valid: np.ndarray, empty: np.ndarray | None, piece_px: float,
              px_per_mm: float | None, params: Params, markers: np.ndarray | None = None) -> np.ndarray:
    """A 0/1 uint8 mask of what is not table in *view*: *valid* marks the pixels that show the
    frame; *empty* is the view without pieces, or None; *piece_px* the largest piece's size;
    *markers* (bool), where the table markers lie with their sheets' quiet zones
    (:func:`marker_areas`), which without an empty frame lend the table no colour."""
    sigma = params.smooth_mm * (px_per_mm or 1.5)
    inside = valid > 0
    if not inside.any():
        return np.zeros(valid.shape, np.uint8)
    # the table's statistics from every 4th pixel each way: plenty, and 16 times quicker
    picked = inside[::4, ::4]
    if empty is not None:
        now, before = lit_alike(view, empty, inside, piece_px, params)
        change = lab(now, sigma) - lab(before, sigma)
        drift = _channel_medians(change[::4, ::4][picked])  # the light's overall drift since
        change = scaled(change, drift)
        distance = length(change)
        sampled = distance[::4, ::4][picked]
        typical = float(np.median(sampled))
        spread = 1.4826 * float(np.median(np.abs(sampled - typical)))
        bar = max(params.empty_delta_min, typical + params.empty_sigmas * spread)
        mask = _reaching(distance, bar, params.empty_peak_share * bar)
    else:
        seen = lab(view, sigma)
        sample = np.zeros_like(inside)
        sample[::4, ::4] = picked
        # without a scale the window is a guess, and pieces laid close may fill it: what stands
        # far out from the rim's colour is then left out of the table's colour
        clear = None if px_per_mm is not None else _unlike_rim(seen, inside, sample, piece_px, params)
        if markers is not None:  # a marker's white sheet is no table's colour, nor part of a light floor
            clear = markers if clear is None else clear | markers
        window = max(3.0, params.background_window * piece_px)
        # a mat on a cloth: each part's colour from that part alone, not across its edge (only
        # with a scale: without one, a mat and a piece are not told apart by size)
        regions = None if px_per_mm is None else _table_regions(
            seen, inside if markers is None else inside & ~markers, piece_px, params)
        table = sample if clear is None or not (sample & ~clear).any() else sample & ~clear
        reach = max(1, round(2 * piece_px / params.region_px_per_piece))  # two of the regions' coarse pixels
        local = _table_colour(view, valid, seen, clear, regions, reach, window, sigma)
        mask = _standing_out(seen, local, table, params)
    mask &= inside
    return _clean(mask.astype(np.uint8), params.hole_max * piece_px * piece_px)


def _table_colour(view: np.ndarray, valid: np.ndarray, seen: np.ndarray, pieces: np.ndarray | None,
                  regions: np.ndarray | None, reach_px: int, window_px: float, sigma: float) -> np.ndarray:
    """The table's colour round each pixel (CIELAB, :func:`_local_table`), each of *regions*'
    parts from that part alone. Within *reach_px* of where parts meet (the parts are found
    coarsely: an edge a little out, a corner rounded), each pixel's is the colour of the part
    there that is nearest its own (*seen*)."""
    local = _local_table(view, valid, pieces, window_px, sigma)
    if regions is None:
        return local
    inside = valid > 0
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach_px + 1, 2 * reach_px + 1))
    parts = []
    for region in np.unique(regions[inside]):
        part = inside & (regions == region)
        colour = _local_table(view, part.astype(np.uint8), pieces, window_px, sigma)
        local[part] = colour[part]
        parts.append((colour, cv2.dilate(part.astype(np.uint8), kernel) > 0))
    if len(parts) < 2:
        return local
    edge = inside & (np.sum([near for _colour, near in parts], axis=0) > 1)  # near two parts or more
    off = np.stack([np.where(near[edge], np.linalg.norm(seen[edge] - colour[edge], axis=1), np.inf)
                    for colour, near in parts])
    nearest = np.argmin(off, axis=0)
    local[edge] = np.stack([colour[edge] for colour, _near in parts])[nearest, np.arange(len(nearest))]
    return local


def _standing_out(seen: np.ndarray, local: np.ndarray, table: np.ndarray, params: Params) -> np.ndarray:
    """Where *seen* (CIELAB) is further from the table's *local* colour than
    :attr:`Params.table_sigmas` of the table's own spread (over the pixels *table*)."""
    offset = seen - local
    mad = _channel_medians(np.abs(offset[table]))
    spreads = np.maximum(1.4826 * mad, params.table_spread_min)
    return np.asarray(length(scaled(offset, np.zeros(3), 1.0 / spreads)) > params.table_sigmas)


def _reaching(values: np.ndarray, bar: float, high: float) -> np.ndarray:
    """Where *values* is over *bar*, in each part over it that somewhere reaches *high*."""
    over = (values > bar).astype(np.uint8)
    count, labels = cv2.connectedComponents(over, connectivity=8)
    reached = np.zeros(count, bool)
    reached[labels[values > high]] = True
    reached[0] = False  # under the bar
    return np.asarray(reached[labels], bool)


def lit_alike(view: np.ndarray, empty: np.ndarray, inside: np.ndarray, piece_px: float,
              params: Params) -> tuple[np.ndarray, np.ndarray]:
    """*view* and *empty* (BGR uint8) brought to the same light: where the light has faded since
    *empty* was taken (a cloud, a shadow, a lamp to one side, the camera's exposure or white
    balance), *view* brightened to *empty*'s; where it has grown, *empty* to *view*'s. The
    light's change is each channel's median change over a window several pieces wide
    (:attr:`Params.background_window`): the table, which is most of any such window, changes by
    it; the pieces on it, which change otherwise, do not count."""
    rows, cols = empty.shape[:2]
    window = max(3.0, params.background_window * piece_px)
    factor, size = _shrunk((rows, cols), window)
    # every 4th pixel each way is plenty for a mean over a small pixel, and 16 times quicker
    before, now = (np.asarray(cv2.resize(v[::4, ::4], size, interpolation=cv2.INTER_AREA), np.float32) + 1.0
                   for v in (empty, view))
    change = np.log(now / before)
    shown = cv2.resize(inside.astype(np.uint8), size, interpolation=cv2.INTER_NEAREST) > 0
    if not shown.any():
        return view, empty
    change[~shown] = _channel_medians(change[shown])  # outside the frame: no news
    # the median filter takes 8-bit images beyond the smallest windows: the change in steps
    levels = np.clip(np.round(change / LIGHT_STEP) + 128, 0, 255).astype(np.uint8)
    steps = _median(levels, window * factor).astype(np.float32) - 128
    faded, grown = np.minimum(steps, 0), np.maximum(steps, 0)  # where the light is as it was: neither
    if faded.any():
        view = _times(view, np.exp(-faded * LIGHT_STEP), (cols, rows))
    if grown.any():
        empty = _times(empty, np.exp(grown * LIGHT_STEP), (cols, rows))
    return view, empty


def _times(image: np.ndarray, small_gain: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """*image* (BGR uint8) times *small_gain* (per channel, on a shrunk grid) grown to *size*."""
    gain = cv2.resize(small_gain, size, interpolation=cv2.INTER_LINEAR)
    return np.asarray(cv2.multiply(image, gain, dtype=cv2.CV_8U), np.uint8)


def _table_regions(seen: np.ndarray, inside: np.ndarray, piece_px: float,
                   params: Params) -> np.ndarray | None:
    """The parts of a table of different colours (a mat on a cloth), as a label per pixel of
    *seen* (CIELAB), or None for a table of one colour: the view's colours in up to
    :attr:`Params.table_regions` clusters, each cluster's parts larger than any heap of pieces
    kept, and every other pixel given the part nearest it."""
    f = min(1.0, params.region_px_per_piece / max(piece_px, 1e-6))
    h, w = inside.shape
    size = (max(1, round(w * f)), max(1, round(h * f)))
    # a small pixel is shown only where all it covers is (not past the frame, nor a marker's
    # sheet), and the others take the nearest shown one's colour before the median
    shown = _covered(inside, size) > 0.999
    if shown.sum() < 10 * params.table_regions:
        return None
    small = np.asarray(cv2.resize(seen, size, interpolation=cv2.INTER_AREA), np.float32)
    small = np.asarray(cv2.medianBlur(_nearest_shown(small, shown), 5), np.float32)
    colours = small[shown]
    cv2.setRNGSeed(0)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    _, clusters, centres = cv2.kmeans(colours, params.table_regions, np.zeros((len(colours), 1), np.int32),
                                      criteria, 3, cv2.KMEANS_PP_CENTERS)
    found = np.asarray(clusters, np.int64)
    # clusters of nearly one colour are one (a plain cloth's shades)
    group = list(range(len(centres)))
    for i in range(len(centres)):
        for j in range(i):
            if float(np.linalg.norm(centres[i] - centres[j])) < params.region_delta_min:
                old, new = group[i], group[j]
                group = [new if g == old else g for g in group]
    labels = np.full(shown.shape, -1, np.int32)
    labels[shown] = np.asarray(group)[found.ravel()]
    reach = params.heap_extent_max * piece_px * math.sqrt(2.0) * f
    kept = np.zeros(shown.shape, bool)
    for g in set(group):
        _, parts, stats, _ = cv2.connectedComponentsWithStats((labels == g).astype(np.uint8), connectivity=8)
        large = np.hypot(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]) > reach
        large[0] = False
        kept |= large[parts]
    if len(set(labels[kept].tolist())) < 2:
        return None
    parts = _nearest_shown(labels, kept)  # every other pixel the part nearest it
    return np.asarray(cv2.resize(parts, (w, h), interpolation=cv2.INTER_NEAREST), np.int32)


def _covered(mask: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The share of each pixel of *mask* shrunk to *size* (width, height) that it covers."""
    return np.asarray(cv2.resize(mask.astype(np.float32), size, interpolation=cv2.INTER_AREA), np.float32)


def _nearest_shown(image: np.ndarray, shown: np.ndarray) -> np.ndarray:
    """*image* with each pixel that is not *shown* given the nearest shown pixel's value."""
    if shown.all():
        return image
    _, nearest = cv2.distanceTransformWithLabels((~shown).astype(np.uint8), cv2.DIST_L2, 5,
                                                 labelType=cv2.DIST_LABEL_PIXEL)
    values = np.concatenate([image[:1, :1].reshape(1, -1), image[shown].reshape(int(shown.sum()), -1)])
    return np.asarray(values[nearest].reshape(image.shape), image.dtype)


def _unlike_rim(seen: np.ndarray, inside: np.ndarray, sample: np.ndarray, piece_px: float,
                params: Params) -> np.ndarray | None:
    """Where *seen* (CIELAB) is far from the colour of the rim of *inside* (the pixels that show
    the frame), by the rim's robust spread per channel, in parts no longer than a heap of
    pieces *piece_px* large; None when that is most of the view (the rim is not the table)."""
    h, w = inside.shape
    band = max(1, round(params.rim_share * min(h, w)))
    core = cv2.erode(inside.astype(np.uint8), np.ones((2 * band + 1, 2 * band + 1), np.uint8),
                     borderType=cv2.BORDER_CONSTANT, borderValue=0)
    rim = sample & (core == 0)
    if not rim.any():
        return None
    colours = seen[rim]
    centre = _channel_medians(colours)
    spread = np.maximum(1.4826 * _channel_medians(np.abs(colours - centre)), params.table_spread_min)
    far = length(scaled(seen, centre, 1.0 / spread)) > params.rim_sigmas
    far &= inside
    if far.sum() > params.rim_far_max * inside.sum():
        return None
    parts = far.astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(parts, connectivity=8)
    reach = params.heap_extent_max * piece_px * math.sqrt(2.0)
    large = np.hypot(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]) > reach
    large[0] = True  # the background
    return np.asarray(~large[labels])


def _local_table(view: np.ndarray, valid: np.ndarray, pieces: np.ndarray | None, window_px: float,
                 sigma: float) -> np.ndarray:
    """The table's colour round each pixel: a median over *window_px* of the *valid* pixels
    (the frame's) that are not in *pieces*, worked out small."""
    h, w = valid.shape
    factor, small_size = _shrunk((h, w), window_px)
    small = cv2.resize(view, small_size, interpolation=cv2.INTER_AREA)
    # a small pixel that covers any of what is not *valid* (past the frame's or a part's edge)
    # mixes that in: it is no table, unless no small pixel is wholly valid (a thin part)
    shown = _covered(valid, small_size)
    small_valid = (shown > 0.999).astype(np.uint8)
    if not small_valid.any():
        small_valid = (shown >= 0.5).astype(np.uint8)
    if pieces is not None:
        # a small pixel that any piece covers a part of is no table
        small_valid = small_valid * (_covered(pieces, small_size) < 0.01)
    if not small_valid.all() and small_valid.any():
        # outside the frame: the nearest frame pixel's colour, so the median sees table only
        small = cv2.inpaint(small, (1 - small_valid).astype(np.uint8), 3, cv2.INPAINT_TELEA)
    median = _median(small, window_px * factor)
    return lab(cv2.resize(median, (w, h), interpolation=cv2.INTER_LINEAR), 0.0)


def _shrunk(shape: tuple[int, int], window_px: float) -> tuple[float, tuple[int, int]]:
    """How much a view of *shape* (rows, columns) is shrunk for a median over *window_px*
    (the window is then :data:`MEDIAN_PX` wide; a view is never enlarged), and its size then
    (width, height)."""
    rows, cols = shape
    factor = min(1.0, MEDIAN_PX / window_px)
    return factor, (max(1, round(cols * factor)), max(1, round(rows * factor)))


def _median(small: np.ndarray, window_px: float) -> np.ndarray:
    """The median of the uint8 image *small* over a window *window_px* wide (odd, at most its
    shorter side; *small* as it is where that is under 3 px)."""
    k = min(max(3, int(window_px) | 1), (min(small.shape[:2]) - 1) | 1)
    return np.asarray(cv2.medianBlur(small, k), np.uint8) if k >= 3 else small


def _clean(mask: np.ndarray, hole_max_px: float) -> np.ndarray:
    """*mask* without specks, with small gaps closed and holes up to *hole_max_px* filled (a
    piece's own print; a larger hole is table that something runs round, such as a band along
    a mat's edge). A hole that a thin outline closes is filled, outline and all, before the
    specks go: a piece of nearly the table's colour may differ from it only along its edge."""
    kernel = np.ones((3, 3), np.uint8)
    holes = _filled(mask, hole_max_px) & (1 - mask)
    # the outline round each hole: what a 3 px opening would take off is at most 2 px wide
    outline = cv2.dilate(holes, kernel, iterations=2) & mask
    cleaned = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
    cleaned = cv2.morphologyEx(cleaned, cv2.MORPH_CLOSE, kernel)
    return _filled(np.asarray(cleaned | holes | outline, np.uint8), hole_max_px)


def _filled(mask: np.ndarray, hole_max_px: float) -> np.ndarray:
    """*mask* (0/1 uint8) with its holes up to *hole_max_px* filled."""
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    filled = mask.copy()
    if hierarchy is not None:
        holes = [c for c, h in zip(contours, hierarchy[0], strict=True)
                 if h[3] >= 0 and cv2.contourArea(c) <= hole_max_px]
        cv2.drawContours(filled, holes, -1, 1, thickness=cv2.FILLED)
    return filled


def marker_areas(shape: tuple[int, ...], quads_px: list[np.ndarray], grow: float, margin_px: float,
                 times: float = 1.0) -> np.ndarray:
    """Where the quads (view px) lie (bool, *shape*'s rows and columns), each grown by the share
    *grow* of its size round its centre and then by *margin_px*, and then *times* as large."""
    areas = np.zeros(shape[:2], np.uint8)
    for quad in quads_px:
        centre = quad.mean(axis=0)
        reach = float(np.linalg.norm(quad - centre, axis=1).mean())
        factor = (1.0 + grow + margin_px / max(reach, 1e-6)) * times
        cv2.fillConvexPoly(areas, np.round(centre + (quad - centre) * factor).astype(np.int32), 1)
    return areas > 0


def blank(mask: np.ndarray, quads_px: list[np.ndarray], grow: float, margin_px: float,
          sheet_share: float) -> None:
    """Clear each quad in *mask* (view px), grown by the share *grow* of its size round its
    centre, and then by *margin_px*; and every part of *mask* of which *sheet_share* or more
    lies within twice that of a quad (what is left of the sheet a marker is printed on)."""
    if not quads_px:
        return
    cleared = marker_areas(mask.shape, quads_px, grow, margin_px).astype(np.uint8)
    near = marker_areas(mask.shape, quads_px, grow, margin_px, 2.0).astype(np.uint8)
    mask[cleared > 0] = 0
    count, labels = cv2.connectedComponents(mask, connectivity=8)
    area = np.bincount(labels.ravel(), minlength=count)
    by_sheet = np.bincount(labels.ravel(), weights=near.ravel().astype(np.float64), minlength=count)
    # only what is left round a marker: the parts that touch where it was cleared
    rim = cv2.dilate(cleared, np.ones((3, 3), np.uint8)) > 0
    touching = np.bincount(labels[rim], minlength=count) > 0
    sheet = touching & (by_sheet >= sheet_share * np.maximum(area, 1))
    sheet[0] = False
    mask[sheet[labels]] = 0
