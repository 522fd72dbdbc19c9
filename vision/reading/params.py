"""Every threshold of the piece reader in one place, each with its unit."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Params:
    """The reader's settings. Lengths are in mm on the table unless the name says px."""

    work_px_per_mm: float = 2.0
    """Scale of the top-down view that pieces are found and compared in (px/mm)."""
    free_long_side_px: int = 1000
    """Without a known scale, the frame is shrunk to at most this long a side (px)."""
    max_table_mm: float = 3000.0
    """The longest side of table that a top-down view may cover (mm)."""

    smooth_mm: float = 0.6
    """Blur before the table and the pieces are told apart (Gaussian sigma, mm)."""
    background_window: float = 4.0
    """The local table colour is the median over this many of the largest piece's sizes; so is
    the change of light since the empty frame was taken."""
    table_sigmas: float = 5.0
    """A pixel is no table when it is this many robust spreads from the local table colour."""
    rim_share: float = 0.03
    """Without an empty frame, the table's colour is first taken from the view's rim: a band
    this share of the view's shorter side wide."""
    rim_sigmas: float = 5.0
    """... and what is this many of the rim's robust spreads from it is left out of the local
    table colour."""
    rim_far_max: float = 0.7
    """... unless that is over this share of the view: then the rim is not the table."""
    table_spread_min: float = 2.5
    """The smallest spread taken for the table's colour (CIELAB units): a plain cloth's noise."""
    empty_delta_min: float = 12.0
    """With an empty frame: the smallest colour difference from it that is a piece (CIELAB)."""
    empty_sigmas: float = 5.0
    """With an empty frame: a difference this many robust spreads over the frame's noise."""
    empty_peak_share: float = 1.5
    """With an empty frame: a part over the bar is a piece only where it somewhere differs by
    this many times the bar (a part that nowhere does is the light misjudged, at a shadow's
    soft edge)."""
    table_regions: int = 3
    """Without an empty frame, the table is looked at as up to this many parts of different
    colours (a mat on a cloth), each its own local colour."""
    region_delta_min: float = 12.0
    """... parts whose colours are nearer than this are one (CIELAB)."""
    region_px_per_piece: float = 8.0
    """... found in a view shrunk to this many px across the largest piece."""
    hole_max: float = 1.5
    """A hole in what is not table is filled (a piece's own print) up to this many times the
    square of the largest piece's size; a larger one is table."""
    marker_quiet_zone: float = 0.45
    """Table markers are blanked out with their white border: this share of their size more."""
    marker_margin_mm: float = 3.0
    """... and this much further (mm)."""
    marker_sheet_share: float = 0.8
    """What stands out with this share of it or more within twice that of a marker is the
    sheet the marker is printed on."""

    size_tolerance: float = 0.12
    """An outline's size may differ from its kind's by this share and still be that kind."""
    free_size_spread: float = 0.4
    """Without a scale, a piece's size may differ from the median piece's by this much (natural
    log: 0.4 is half as large again, or a third smaller) and still be that piece (a view at a
    slant); what differs more is fitted again at the median's scale."""
    fill_min: float = 0.86
    """A single piece's outline covers at least this share of its fitted shape."""
    disc_inner_min: float = 0.55
    """With a scale, a round outline down to this share of a disc's diameter is that disc, its
    rim the table's colour ..."""
    disc_inner_fill_min: float = 0.75
    """... when it covers at least this share of its own enclosing circle."""
    heap_inside_min: float = 0.9
    """A piece placed in a heap lies at least this share inside the heap's outline."""
    heap_gain_min: float = 0.45
    """... and covers at least this share of its own area not yet taken by another piece."""
    heap_extent_max: float = 4.0
    """A heap spans at most this many of the largest piece's diagonals; a longer outline is
    the table's own (a mat's edge, a board)."""
    thin_share: float = 0.8
    """An outline longer than any heap loses its parts thinner than this share of the
    narrowest piece's width (a band along a mat's edge), and what is left is read; an outline
    longer than any piece and nowhere this thick is no piece, part or heap: it is not read."""
    tail_share: float = 0.3
    """An outline that fits no kind is fitted again without its parts thinner than this share
    of the narrowest piece (a streak of grain or a shadow that touches the piece)."""
    heap_px_per_mm: float = 0.85
    """The scale pieces are laid in a heap at (px/mm), before the comparison refines them."""
    heap_angle_step_deg: float = 3.0
    """The bins of the directions of a heap's sides, and the turns tried where it has none
    (degrees)."""
    heap_side_tolerance_px: float = 1.5
    """A heap's outline is taken as straight sides that stray at most this far from it (px)."""
    heap_side_share: float = 0.25
    """... and a rect is laid along each direction those sides run in that has at least this
    share of the commonest direction's length ..."""
    heap_sides_max: int = 4
    """... up to this many directions ..."""
    heap_sides_apart_deg: float = 6.0
    """... each at least this far (degrees) from a commoner one: nearer, it is the same side
    drawn as straight parts a little apart in direction."""
    on_top_share: float = 0.2
    """A heap piece that no face is named for is compared again as lying on a piece next to it
    that overlaps this share of its area or more."""
    heap_refine_deg: tuple[float, ...] = (-1.5, 0.0, 1.5)
    """The turns either side of its laying angle that a piece in a heap is compared at (degrees)."""
    leftover_min: float = 0.35
    """What is left of a heap counts as something unknown from this share of the smallest
    kind's area."""
    part_min: float = 0.2
    """Something smaller, from this share, is still compared as part of a piece (a coin's middle,
    its rim the table's colour, seen coarsely), but not reported where nothing is named."""

    compare_step_px_per_mm: float = 0.25
    """Pieces are compared no finer than the view shows them: at its scale rounded up to a
    multiple of this (px/mm)."""
    compare_px_max: int = 96
    """A kind's faces are compared at most this many px along their longer side (px)."""
    faces_compared: int = 3
    """How many fronts (those that look most like the piece where it was fitted) are slid over
    it and judged closely, besides the back."""
    faces_widened: int = 6
    """Where none of those is named though the best correlates at least :attr:`lay_score_min`,
    this many are (the next likeliest too: a thin print's colour hardly shows at first)."""
    turns_compared: int = 1
    """... each at this many of its turns (those that score best there)."""
    shift_mm: float = 1.5
    """How far a face is searched round the fitted centre when it is compared (mm); where the best
    face lies at the search's edge and correlates at least :attr:`lay_score_min`, it is searched
    as far again round there."""
    leftover_shift_share: float = 0.25
    """Something that fits no kind but is small enough to be part of a piece is compared as
    that piece, its face searched this share of the kind's shorter side round its centre ..."""
    leftover_shift_max_mm: float = 10.0
    """... but no further than this (mm)."""
    lay_score_min: float = 0.5
    """A piece whose best face correlates at least this well (as it is) but is not named is
    compared again, each face laid over it a little moved, turned, scaled and sheared (a print's
    or a crop's tolerance, a slight slant) where that correlates better (-1..1) ..."""
    lay_scale_max: float = 0.1
    """... a rect's by at most this share larger or smaller in any direction (a disc's print is
    as large as its outline: it is only moved and turned) ..."""
    lay_turn_max_deg: float = 5.0
    """... and turned by at most this (half a disc's step: further is another turn's to match) ..."""
    lay_blur_px: tuple[float, ...] = (2.0, 0.7)
    """... found on both blurred by each of these in turn, coarse to fine (Gaussian sigma, px) ..."""
    lay_iterations: int = 30
    """... in at most this many steps."""
    disc_step_deg: float = 10.0
    """The turns a disc's faces are compared at (degrees)."""
    edge_trim_mm: float = 0.8
    """The rim left out of a comparison: the outline's own blur (mm)."""

    twin_blur_mm: float = 0.5
    """Where two faces differ is judged on their difference blurred by this (Gaussian sigma, mm)."""
    twin_difference_min: float = 0.25
    """... and is where that difference is over this (summed over the channels, 0-3)."""
    twin_part_min: float = 0.02
    """... and counts only when it is at least this share of the piece ..."""
    twin_faint_min: float = 0.12
    """... else (faces that differ only in thin lines) where it is over this, if that part counts."""
    twin_context_mm: float = 2.0
    """Where the print's pattern over that part tells the two faces apart by less than
    :attr:`margin_min`, the part's level is judged against what lies this far round it (mm): a
    flat fill that one face has and the other lacks."""
    twin_light_min: float = 0.05
    """Where two faces' mean colours differ by more than this in a channel (natural log: another
    light, exposure or ink), where they differ is also judged with one brought to the other's
    mean colour."""

    blur_steps_mm: tuple[float, ...] = (0.0, 0.3, 0.6)
    """The blurs a face is tried at against a soft-looking piece (Gaussian sigma, mm)."""

    score_min: float = 0.75
    """A face is reported only when its correlation with the piece (as it is, or less its shade) is
    at least this (-1..1) ..."""
    margin_min: float = 0.08
    """... and beats every other face (and the back) by at least this, in correlation over the
    whole piece or where the best and the runner-up differ (in colour or in hue alone, and the
    runner-up not better by this much in the other) ..."""
    residual_max: float = 1.0
    """... and no patch of the aligned difference, per unit of the piece's own contrast, is
    over this (a missing or extra symbol, another colour, a fill)."""
    tint_max: float = 0.5
    """... and its mean colour over its face's differs from the light's there (as the pieces
    named show it) by at most this between two channels (natural log: 0.5 is one channel two
    thirds more than another); lighter or darker in every channel alike (a shadow) does not
    count. The same print in another colour is another face."""
    light_plane_min: int = 6
    """Where at least this many pieces named are within :attr:`tint_max` of their median colour,
    the light's colour is a plane across the view through theirs (a lamp on one side, a window
    on the other); else their median."""
    shade_blur_mm: float = 2.0
    """Before the best face is judged closely, the light's shade across the piece is taken off (a
    shadow's band, glare: what a plane does not follow): its ratio to the face, smoothed by this
    (Gaussian sigma, mm) ..."""
    shade_paper_share: float = 0.8
    """... found where the face is at least this share as light as its lightest (its paper) ..."""
    shade_hue_max: float = 0.1
    """... and that ratio is grey, no channel more than this from the others' mean (natural log:
    ink the face lacks is no shade) ..."""
    shade_max: float = 0.5
    """... and taken as at most this much lighter or darker (natural log). The bars on the score
    and the residual hold for the piece with its shade taken off or as it is."""
    residual_slack_mm: float = 0.3
    """A face laid this far off explains the difference along its edges (mm)."""
    residual_patch_mm: float = 2.5
    """The size of the patches the aligned difference is judged in (Gaussian sigma, mm)."""
    residual_rim_mm: float = 1.0
    """A band this wide along the judged part's outline is left out of the aligned difference
    (an outline fitted a little off, as a slant or a rounded corner makes it, shows the table
    or what covers the piece there), unless too little is left to judge (mm)."""


DEFAULT = Params()
