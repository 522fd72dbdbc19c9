"""Reading the table: which pieces of a :class:`~vision.library.Library` lie where, and
which face each shows.

The method is plain image comparison, small enough to explain and to run on a Pi:

1. **Segment.** The frame is shrunk to :data:`SEGMENT_LONG_SIDE_PX` (with sizes known,
   to :data:`WORK_LONG_SIDE_PX` only, so that a coin keeps its outline); pieces are what is
   not table (:func:`vision.library.segment`: brightness against the table's own, place
   by place; or the difference from an empty-table frame). Without an empty-table frame,
   table markers (*layout_dictionary*) are blanked out; the empty table has them too, and
   blanking would cut a strip off a piece beside one (200 synthetic scenes: 112 more of
   2,791 pieces read without it). Each outer outline is a candidate.
2. **Fit.** Each candidate is fitted to each kind by shape: a rect as a 4-corner quad that
   its outline fills, with its kind's side ratio; a disc as a round ellipse. With a
   calibration (or *px_per_mm* for a top-down view) the fit is in millimetres and the
   size must match too; without, only the shape counts, and positions are in pixels.
   An outline cut by the frame's edge is read if it still fits a kind, else ignored.
   In millimetres, an outline that fits no kind may be pieces touching or overlapping:
   :func:`vision.heaps.divide_heap` finds the whole pieces its edges show, each read on
   its own; where they do not explain it all, those it shows almost whole are read and the
   rest stays unknown. An outline that fits a kind but is no face of it may be pieces too
   (two tiles side by side with a card's outline): it is split when each piece it splits
   into is read (200 synthetic scenes: 2,616 -> 2,626 of 2,791 pieces read right, no more
   misread or left-out fronts taken as known). Where outlines leave pieces unread (a heap
   not explained, a part not read, an outline that fits a kind but reads as no face, specks
   that fit nothing), the pieces are also looked for by how they look: every face matched
   over the place, flattened (:func:`_search`); each place found is read as above. So are
   the rect pieces round an unknown where the table changed though its outline does not
   show it (a tile's back on wood of its brown: :func:`_look_around`).
3. **Compare.** The candidate is warped flat and upright to a small image
   (:data:`COMPARE_LONG_SIDE_PX`) and compared with every reference image of its kind's
   fronts and back, each at every turn the outline allows (a rect 0/180 deg, a square
   also 90/270, a disc every :data:`DISC_STEP_DEG`), with the references softened to the
   detail the camera saw (:data:`DETAIL_LEVELS`). Both sides are first divided by
   their own paper colour, so the light's colour and strength divide out and glare clips
   to paper. They are then compared twice by normalised cross-correlation: the darkness
   map (what is printed where, with shading across the piece taken out) and the colour map
   (which of red, green and blue the print takes away, where). The score is the first,
   less a penalty when the colours disagree (:data:`COLOUR_GATE`; none for a face whose
   colour is too faint for a camera to keep, :data:`FAINT_CHROMA_RMS`). A heap's piece
   is compared without the places its heap's other pieces overlap (:data:`HIDDEN_GROW_MM`),
   and a face that wins clearly but scores low is looked at again where it lies best
   aligned (:data:`REALIGN_MARGIN`).
4. **Decide.** The best face must score at least :data:`MIN_SCORE` (less for a face of
   fine print, which scores lower even when right: :data:`SELF_SCORE_TYPICAL`) and beat
   the best *other* face by :data:`MIN_MARGIN`, and its distinct part (what the kind's
   fronts do not share) must match too (:data:`DISTINCT_MIN`, less for fine print again:
   :data:`DISTINCT_SELF_TYPICAL`), so that a face the library lacks is not taken for a
   look-alike. It must be made of the colour seen, too (a coin's metal: :data:`BODY_TOL`);
   where the best face is not but barely beats the best face that is, that one must pass
   all of this in its place. Otherwise the candidate is reported as unknown, never guessed.

When nothing in the frame fits a kind (or nothing stands out from anything), and the
frame's own shape fits a rect kind, the whole frame is tried as one piece: a crop of a
single card.

The constants were set on the real photographs in ``research/realdata/set-game`` (162
reference crops of the 81 Set cards, 6 scenes with 72 cards, 15 test crops), by sweeping
each one alone and checking it also held leave-one-out over the references (each one
read against the other 161); the values here are in the middle of the plateau, not at a
peak for one image. Accuracy there: see ``tests/vision/test_reader.py``. The detail
levels, the colour map's brightness weighting and the heap splitting were then measured on
synthetic scenes (``vision.synth_pieces``, ``benchmarks/piece_reading.py``) and kept only
where the Set photos read as well as before.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import cv2
import numpy as np
from threadpoolctl import ThreadpoolController

from vision import markers
from vision.calibration import TableCalibration
from vision.heaps import divide_heap, side_turns, split_heap
from vision.library import (
    ASPECT_TOLERANCE,
    CONTRAST_MIN,
    SIZE_TOLERANCE,
    Library,
    PieceKind,
    disc_frame,
    empty_difference,
    fit_disc,
    fit_rect,
    frame_from_quad,
    frame_point,
    frame_points,
    segment,
    warp,
    whole_image_frame,
)
from vision.reading.result import FoundPiece as FoundPiece  # re-exported: the results are one type
from vision.reading.result import ReadResult as ReadResult
from vision.reading.result import UnknownPiece as UnknownPiece

WORK_LONG_SIDE_PX = 1280
"""Larger frames are shrunk to this first (a card in a phone photo is then still ~3 px/mm,
four times what is compared)."""
SEGMENT_LONG_SIDE_PX = 640
"""Segmentation runs at this size: a card is 60+ px across, its outline good to ~1 px."""
PIECE_AREA_MIN = 0.002
"""Without sizes (no calibration, no *px_per_mm*), a candidate covers at least this share
of the frame (0.2 %: 25 x 25 px at 640 x 480); smaller blobs are crumbs, dust and noise."""
SMALLEST_PIECE_SHARE = 0.4
"""With sizes, a candidate covers at least this share of the smallest kind's area."""
FIT_AREA_SPAN = 0.45
"""...and is fitted to a kind only when its hull's area is within this share of the kind's:
each side may be :data:`vision.library.SIZE_TOLERANCE` off (1.15^2 = 1.32, 0.85^2 = 0.72),
with room for a rounded corner and an outline good to a pixel."""
HEAP_EXCESS_MIN = 0.1
"""With sizes, an outline that fits a kind but is this much larger than it is tried as a heap
too, and split when whole pieces explain it (a coin over a tile's edge adds 10-20 % to the
tile; a piece's outline a pixel wide of it 4-8 %). 200 synthetic scenes: 23 more of 2,791
pieces read, all coins and tiles lying so, none lost; 0.06-0.15 read within 3 of that."""
RESCUE_MM = 3.0
RESCUE_DISC_SHARE = 0.5
"""With sizes, the blobs and specks no piece's shape fits are read again, each group of them
within this of each other as one (:func:`_rescue`): a hatched back on a wood grain of its
own brown falls apart into stripes, a coin on a cloth of its metal's colour is bitten. A
group whose hull fits no kind but lies within a disc kind's circle, from this share of its
radius, is tried as that disc at the circle's centre. Over 200 synthetic scenes: 2,533 ->
2,562 of 2,791 pieces read right with groups (1 mm: 2,556, 2 mm: 2,559, 4 mm: 2,562), 2,571
with the discs too (from 0.4 of the radius the same); tiles face down alone 137 -> 155 of
157. None read where no piece lies, and no more left-out fronts taken as known. A group is
too little for any piece under this share squared of the smallest kind's area: a copper coin
alone on wood showed only its middle, out to its green ring, a third of its area (0.6 left
it unseen; over 500 synthetic scenes 0.4-0.55 read 6,858 -> 6,861 of 6,911 right, coins
half under another piece or alone on wood, none misread, the same left-out fronts taken as
known; art seed 1 the same). Two outlines
are neighbours where their boxes, grown by this, overlap: 3 fewer pieces read than grouping
their pixels grown so (2,606 against 2,609, with the heaps as they are now), and no mask to
label: 0.8 ms a frame in all, against 1.5. A group whose hull fits no kind, nor a disc, is
tried as the rect kind its smallest box is the size of (:func:`_boxed`): a tile a card
covers at a corner, or whose edge matches the cloth, still shows its other corners. Over 200
synthetic scenes 2,739 -> 2,748 of 2,791 pieces read right (tiles face down overlapping 55
-> 60 of 64, all of the rest tiles too), none misread, none where no piece lies, the same
left-out fronts taken as known; art seed 1, 100 scenes: 1,353 -> 1,356 of 1,386. Only
against the empty table, whose blobs are what changed: from brightness alone, a blob may be
a piece's bright part (a third of a card was read as a tile so, one in 6,911 pieces)."""
REMAINDER_GAP_MM = 1.0
"""Where whole pieces do not explain a heap and its surest pieces are read, what they leave
of it (each grown by this, for its outline's blur) is read again with the specks around it
(:func:`_rescue`), not the whole heap: a copper coin half under a silver one on wood shows
only the half that differs from the wood. Over 200 synthetic scenes: 2,720 -> 2,725 of
2,791 pieces read right (tiles face down overlapping 52 -> 55 of 64, coins face up
overlapping 171 -> 173 of 190), none misread, none where no piece lies, the same left-out
fronts taken as known; art seed 1, 100 scenes: 1,343 -> 1,345 of 1,386. 0.75 mm read 2,724,
1.25 mm the same as 1."""
OFF_TABLE_MM = 100.0
"""With a calibration, an outline whose centre lies farther than this outside what the table
markers span is not on the table, and is not read (a camera sees past the table's edge:
synthetic scenes at 1920x1080, calibration only, once read a tile 300 mm off the table)."""
MARKER_MARGIN = 0.8
"""A table marker is blanked out to this much of its side beyond each edge: its printed
white quiet zone and the sheet around it."""

COMPARE_LONG_SIDE_PX = 64
"""The compared images' longer side (a card at 0.73 px/mm). 48 reads the Set photos as
well, 96 worse (fine print differs between cameras more than it identifies)."""
INSET = 0.08
"""The outer 8 % of each side is not compared: the fitted outline is good to a pixel or
two, and a card's rounded corners show the table (5-8 % read the same)."""
PAPER_PERCENTILE = 60.0
"""The paper colour is this percentile of each channel: print covers up to ~45 % of a
Set card (three solid shapes). 50-75 read within 2 cards of 60."""
DARKNESS_WEIGHTS = (0.224, 0.46, 0.316)
"""The darkness map weighs blue, green and red so: halfway between their mean and BT.601
luma (0.114, 0.587, 0.299), which JPEG keeps at full resolution where it keeps colour at
half. Fine print of a strong colour (a gold coin 4's purple dots, 1.5 px across at 25 px)
keeps its luma through JPEG but not the mean of its channels, which the reference, drawn
without JPEG, keeps; but thin green print on white (a Set card's outlined squiggles) has
little luma. Against the channels' mean, over 500 synthetic scenes: 6,851 -> 6,858 of 6,911
read right, none misread, nothing read where no piece lies, no left-out front taken as known;
art seed 1 (200 scenes) 2,773 -> 2,775 of 2,791; the Set photos 70 of 72 and crops 15 of 15
either way, left-out Set faces read as another 15 -> 14 of 32. Luma itself read 6,860 and
2,777, but a Set crop of three green outlined squiggles no more, and let the search find a
healer card by a red pen and clay on linen (a share of 0.2 for :data:`SEARCH_BAR` held it)."""
LUMA_SIGMA_PX = 1.0
"""The darkness map is blurred by this (compared pixels), so a pixel's misfit costs little."""
SHADING_SIGMA_PX = 8.0
"""...and has its own blur at this scale taken away: light falling unevenly across a
piece (a shadow's edge, a lamp's gradient) is not print. Without it 3 more Set cards go
unread; 5-12 read the same."""
CHROMA_SIGMA_PX = 2.0
"""The colour map is blurred more (JPEG and Bayer colour is coarser than brightness), and
compared at every other pixel."""
DETAIL_LEVELS = (1.0, 0.7, 0.5, 0.35, 0.25)
"""A piece seen with fewer pixels than it is compared at (a 25 mm coin is ~30 px across in
a full-table 720p view, compared at 64) is compared with references softened to the
nearest of these shares of the compare size's resolution: the same detail on both sides."""
SOFTER = (1.0, 0.5)
"""...and also at these shares of that: a camera's blur and JPEG take more detail than the
pixel count says. Each face keeps its best score over the levels, and the softer level is
skipped when the nearer one's answer is sure already. (Synthetic scenes: 3 more of 281
pieces read than with the pixel count alone; over 200 scenes, shares 1, 0.7 and 0.5 read
3 more of 2,791 pieces than 1 and 0.5, at a third more comparing. The Set photos read the
same.)"""
FINE_PRINT_SOFTER = 0.3
"""...and, when those leave the answer unsure, a face of fine print (its bar lowered for it:
:data:`SELF_SCORE_TYPICAL`) is compared at this share of the detail too: a camera's blur
and JPEG take more of a lattice or hatching than of bold print. A card's lattice back seen
at 1.3 times the compare size's detail (JPEG quality 71) matched itself 0.35 at the nearest
level, 0.34 at the softer one and 0.64 at 0.35. Only such faces take their score from it:
every face compared at a third level (shares 1, 0.5 and 0.3) read 6,795 pieces right, but
took 2 more left-out fronts for look-alikes. Over 500 synthetic scenes: 6,792 -> 6,796 of
6,911 pieces read right (card backs lying alone), none misread, left-out fronts taken as
known 3 of 2,598 either way; art seed 1, 200 scenes: 2,752 -> 2,755 of 2,791. Shares
0.25-0.4 read 6,793-6,795. With the darkness map of :data:`DARKNESS_WEIGHTS` those
card backs match themselves at the nearest levels, and this changes no reading in the 500
scenes nor with art seed 1: it stays for lattices a camera blurs more than these."""
CHROMA_LEVEL_MIN = 0.7
"""The colour map's blur grows as the detail level falls (JPEG keeps colour at half the
resolution of brightness), down to this level; below it the rings and print that tell
coins apart blur away (6 misread coins in 20 scenes with no floor, 1 with it)."""
SPARSE_LEVEL = 0.5
"""At this detail level or less, a face is compared at half the compare size (see
:class:`_Seen`): a quarter of the work, and nothing lost, as it holds no detail finer than
4 pixels (200 synthetic scenes: 2,411 of 2,791 pieces read, against 2,395 at full size)."""
DISC_STEP_DEG = 10
"""A disc is compared at every this many degrees of turn."""
DISC_OUTLINE_POINTS = 24
"""A found disc's outline is drawn through this many points."""

COLOUR_GATE = 0.6
COLOUR_WEIGHT = 2.0
"""Score = darkness NCC - COLOUR_WEIGHT * max(0, COLOUR_GATE - colour NCC). The same
colour correlates at 0.6-0.95 in the colour map, another colour below 0.4 (Set
references, leave-one-out): the same colour costs (almost) nothing, another costs 0.4 or
more, more than shapes differ by. Gates 0.5 and 0.7 and weights 1-4 read within 3 cards."""
CHROMA_MIN = 0.04
"""A face whose colour map is this weak next to its darkness map has no colour to compare
(grey print, a black-and-white piece; the faintest Set card, thin purple lines under warm
light, is 0.06)..."""
SEEN_GREY_MAX = 0.08
SEEN_GREY_INSET = 0.16
"""...and the colour term is skipped when a reference is that grey and the face seen shows
no more colour than SEEN_GREY_MAX inside SEEN_GREY_INSET of each side (a share of its
size): a camera's noise and JPEG give a grey face some, and near its outline the table's
colour bleeds in through the lens's blur and JPEG's coarse colour. Synthetic scenes, pieces
lying alone: the grey coin seen at 25 px shows 0.035 at the median there, 0.064 at the
90th percentile and 0.094 at most (0.053, 0.10 and 0.20 over the whole compared region); the
least coloured face that has a grey look-alike, a grey tile with a small blue well, 0.136
at the 10th percentile. Over 200 synthetic scenes 2,707 -> 2,720 of 2,791 pieces read right
(coins face up alone 517 -> 525 of 540), left-out fronts taken as known 3 of 1,059 either
way; art seed 1, 100 scenes: 1,339 -> 1,343 of 1,386, the same left-out fronts. An inset of
0.12 read 2,717; the old bar of 0.1 with this inset 2,721, but took a left-out tile as the
grey one. A piece compared without what others cover of it shows the colour of what is left
(:class:`_Seen`): a silver coin overlapping a gold one showed the gold there. Over 500
synthetic scenes 6,862 -> 6,863 of 6,911 right, art seed 1 2,776 -> 2,777 of 2,791 (coins 5
overlapping another piece), none misread, the same left-out fronts taken as known."""
FAINT_CHROMA_RMS = 0.025
APART_LUMA_MAX = 0.6
"""A face whose colour map (not grey by :data:`CHROMA_MIN`) is this faint, per pixel (a share
of paper), and whose darkness map correlates less than :data:`APART_LUMA_MAX` with every
other face of its kind (at any turn), is compared without the colour term, whatever colour
the face seen shows: its print is a hue a few per cent off the paper's, which a camera's
colour response and the false colour of aliased fine print do not keep, and its darkness
alone tells it from the rest. The hatched tile back (colour 0.017-0.022: its dark disc is
2 % bluer than the brown; darkness 0.34 at most with a front) correlated 0.2 in colour when
seen (median of 47 it failed; 0.4-0.6 when read), and 0.9 in darkness either way. Other
coloured faces are 0.028 or more, but for a grey tile front with a faint tint (0.013-0.024,
darkness 0.46); a faint Set card (one thin outline, from 0.004) has a twin in another
colour (darkness 0.84 or more), so it keeps its colour term. Over 200 synthetic scenes:
2,460 of 2,791 pieces read against 2,411 (tiles face down alone 109 -> 138 of 157), no new
misread, and no more left-out fronts taken as known; colour 0.02-0.025 and darkness 0.5-0.8
read the same."""
MIN_SCORE = 0.55
"""The best face must score at least this. Right answers on the Set photos score 0.66 or
more (median 0.97); a card in a shadow it cannot see through, or a blank, under 0.5."""
MIN_MARGIN = 0.02
"""...and beat the best other face by this. Right answers on the Set photos beat the
runner-up by 0.029 or more (median 0.15); the one wrong best face there by 0.009;
leave-one-out, two of the eleven wrong ones fall under it. Margins of wrong answers
otherwise reach 0.2 (striped against empty, from a camera that blurs the stripes): the
margin cannot catch those, only more references can."""
REALIGN_MARGIN = 0.15
REALIGN_MAX_MM = 4.0
"""A face that beats every other by REALIGN_MARGIN or more but scores under its bar may be
fitted off: a heap's split places a piece to a mm or two, and a lattice or fine print then
barely matches itself. It is looked at again where phase correlation with that face puts
it, when that is within REALIGN_MAX_MM, and the better of the two looks stands. Over 200
synthetic scenes 2,684 -> 2,694 of 2,791 pieces read right (cards face down overlapping 56
-> 61 of 65), none misread, left-out fronts taken as known 3 of 1,059 either way; a margin
of 0.1-0.25 read 2,692-2,697. Within 2 mm 2,689, 3 mm 2,692, 4-5 mm 2,694-2,695; from 6 mm
one misread: a tile a heap's split laid over a card's top, moved onto the card's picture."""
REALIGN_TURNS_DEG = (0.0, -2.5, 2.5, -5.0, 5.0)
"""...and a rect is looked at again as its kind's own size, too, turned by each of these from
the fit (each moved where phase correlation puts it, within REALIGN_MAX_MM): a ragged
outline, a hatched back on a wood grain of its brown, fits a quad turned and shrunk a few
degrees and mm off. Over 500 synthetic scenes: 6,788 -> 6,792 of 6,911 pieces read right
(tile backs and card backs lying alone), none misread, left-out fronts taken as known 3 of
2,598 either way; art seed 1, 200 scenes: 2,751 -> 2,752 of 2,791. Turns every 3 deg to 6:
6,790; every 2 deg to 6: 6,791; the own size unturned only: 6,789."""
DISC_NUDGE_MM = 0.4
DISC_NUDGE_UNDER = 0.1
"""A disc left unread whose best face scores no more than DISC_NUDGE_UNDER under its bar (or
clears it, but another face is as near, or its distinct part does not match) is looked at
again moved DISC_NUDGE_MM each way and diagonally: a blurred edge, a shadow or a piece
beside it moves the outline's fitted centre by a fraction of a mm, and at 25 px a coin's
dashed ring then barely matches itself. The place scoring best stands. Over 500 synthetic
scenes, with the darkness map the channels' mean: 6,843 -> 6,850 of 6,911 pieces read right
(coins face up, all coin 3's dashed ring), none misread, no left-out front taken as known
(2,598); art seed 1 the same; 1 ms a 20-piece frame. Steps of 0.3 mm read 4 more, of 0.5 and
0.8 mm 5; two steps each way, and discs scoring up to 0.1 under their bar too, 8 more for 5
ms a frame. With the darkness map of :data:`DARKNESS_WEIGHTS`: 6,852 -> 6,858. Looking again
at discs up to 0.1 under their bar too: 6,868 -> 6,871 (coins overlapping another piece, and
a coin 6 alone), art seed 1 2,777 -> 2,778, none misread, no left-out front taken as known;
0.2 read the same. The place scoring best was once held to a bar raised by 0.1, as the best
of many places matches a look-alike by chance more often (:data:`SEARCH_BAR`); it took no
left-out front as known without, and with it (or 0.05) these read 3 (1) fewer."""
HIDDEN_GROW_MM = 1.0
HIDDEN_SHARE_MAX = 0.6
"""A heap's piece is compared without where the heap's other pieces overlap it (over it or
under it: which, the outline does not tell), grown by HIDDEN_GROW_MM for their edges' blur
(:func:`_unhidden`), unless that leaves less than 1 - HIDDEN_SHARE_MAX of it: both sides'
maps restricted to the rest and made unit vectors again, the distinct parts worked out
again there (:func:`_masked_scores`). Over 200 synthetic scenes 2,670 -> 2,684 of 2,791 pieces
read right (overlapping coins face up 155 -> 161 of 190, cards face up 174 -> 177 of 184),
left-out fronts taken as known 2 -> 3 of 1,059. It replaces a lower bar for overlapped
pieces (half the overlapped share: 2,670 with it, 2,683 with both). 0.5-1.0 mm read the
same, 1.5-2 mm took 1-2 more left-out fronts as known; a share of 0.4-0.8 read the same.
A piece read surely as a whole is not compared again: the same pieces read, 2 ms a frame
less. Its paper and mean colour come from what is left too (:class:`_Seen`): a white card
over a fifth of a navy back made the white the paper and the back's lattice print (200
synthetic scenes: 2,735 -> 2,739 of 2,791 read right, cards face down overlapping 60 -> 63
of 65; art seed 1, 100 scenes: 1,349 -> 1,353 of 1,386; none misread, the same left-out
fronts taken as known). So does the mean colour of a piece read surely as a whole: a silver
coin 5 over or under a fifth of a gold coin 1 made it a mixed metal (500 synthetic scenes:
6,793 -> 6,797 of 6,911 read right, coins face up overlapping; the same left-out fronts
taken as known; art seed 1 the same)."""
HIDDEN_BAR = 0.3
"""...and its bar is raised by this times the share of it left out so: a part of a face
correlates with a look-alike by chance more than the whole does. A coin 4 the library lacked,
a fifth under a tile, scored 0.559 as coin 1 on the rest against a bar of 0.55. Over 500
synthetic scenes: left-out fronts taken as known 1 -> 0 of 2,598, pieces read right 6,797
either way; art seed 1 the same; 0.1-0.5 read the same."""
SELF_SHIFT_PX = 0.7
SELF_BLUR_PX = 0.8
SELF_SCORE_TYPICAL = 0.9
"""A face that matches itself seen a little off (:func:`_self_score`) less well than this
gets a lower bar in proportion: MIN_SCORE x self score / 0.9. Set cards and most fronts
score 0.9 or more; a coin's spoked back (at full detail) or a card's lattice back 0.5-0.7
(the hatched tile back scores 0.9: its light lines clip to paper)."""
DISTINCT_MIN = 0.2
"""...and its distinct part must match: with what the kind's fronts share taken out (the
card's frame and text lines, a coin's rim, ring and figure: their mean at each turn), the
face seen and the best face must still correlate this much. A face the library lacks then
scores low however much of the layout it shares (synthetic scenes with half the fronts left
out of the library: 110 of 1,086 left-out pieces read as a look-alike without this check, 1
with it). The back is left out of that mean where the kind has fronts: it shares little of
their layout, and in the mean it blurs what they share, so that a coin 4 the library lacked
kept enough of the ring it shares with coin 1 to pass as it. Over 500 synthetic scenes:
left-out fronts taken as known 11 -> 3 of 2,598, pieces read right 6,790 -> 6,788 of 6,911
(6,782 with the bar at 0.25, where it was set with the back in the mean; 6,789 with 0.18 but
4 taken as known); art seed 1, 200 scenes: 2,752 -> 2,751 of 2,791, taken as known 1 -> 0
of 1,060. Kinds of fewer than :data:`DISTINCT_FACES_MIN` faces are not checked so; a face of
fine print is held to less (:data:`DISTINCT_SELF_TYPICAL`)."""
DISTINCT_FACES_MIN = 3
DISTINCT_SELF_SHIFT_PX = 1.5
DISTINCT_SELF_BLUR_PX = 1.2
DISTINCT_SELF_TYPICAL = 0.5
"""A face whose distinct part matches itself seen off as a camera sees a piece (moved by 1.5
px, blurred by 1.2 px at the compare size, at the level compared) less well than this gets a
lower distinct bar in proportion: DISTINCT_MIN x its self match / 0.5 (but see
:data:`DISTINCT_FLOOR`). At 25 px a coin's zigzag keeps 0.06 of it, its dashed ring 0.22 and
its solid ring (much like the ring all coins share) 0.32, the other coins 0.57-0.64
(0.16-0.34 and 0.56-0.69 when the back was in the common part); read right in synthetic
scenes, such coins matched their distinct part 0.46-0.57 at the median and 0.11-0.25 at the
10th percentile, the others 0.67-0.82 and 0.52-0.62 (then too). Over 200 synthetic scenes:
2,605 -> 2,616 of 2,791 pieces read right (coins face up alone 485 -> 496 of 540), left-out
fronts taken as known 2 of 1,059 either way, the Set photos 70 of 72 either way; with 0.6
the same, with 0.8 cards lose their bar too (20 left-out fronts taken as known)."""
DISTINCT_FLOOR = 0.5
"""...but never below this share of DISTINCT_MIN: coin 5, whose zigzag keeps little of its
distinct part, would be held to next to nothing (0.08 when the back was in the common part
and the bar 0.25), which let a coin 2 the library lacks through as coin 5 (2 of 1,060
left-out pieces with art seed 1). With 0.5: none, for 5 fewer of 2,791 read right there (4
fewer with art seed 0); with 0.4 both as without a floor."""
SPARSE_COLOUR_WEIGHT = 1.0
"""At :data:`SPARSE_LEVEL` or less, the colour term weighs this, not :data:`COLOUR_WEIGHT`:
a face seen with so few pixels keeps little of its colour map (JPEG keeps colour at half
the resolution of brightness). A 25 mm coin seen at 25 px correlates 0.8-0.94 with its
own face in darkness, and only 0.2-0.45 in colour. Over 200 synthetic scenes: weight 2
read 2,492 of 2,791 pieces right, 1.5 2,503, 1 2,533, 0.75 2,551 (but with 8 of 1,059
left-out pieces taken as known, against 2). It needs the mean colour check below: without
it, weight 1 took 16 left-out pieces as known and misread 3."""
BODY_TOL = 0.02
BODY_SPREAD = 10.0
"""The face read must be made of its colour: its mean colour (a share of each channel, a
:class:`_Seen`'s ``body``) may be no more than this farther from the face seen's than
another face's is. The frame's light and camera tint colours; :func:`_cast` undoes that,
as the pieces read surely in the frame show it, and widens the tolerance to
:data:`BODY_SPREAD` times the median of how far those pieces still are from their faces
(the median: a sure piece the library lacks must not widen it). A coin's metal is what is
checked so: the reader's maps divide it out as the face's paper, and at 25 px its ring's
colour and pattern barely tell a gold coin from a silver one. Over 200 synthetic scenes
(left-out fronts as above) 16 -> 2 pieces were taken as known, 3 -> 1 misread. The Set
photos' reference crops come from other photos and lights than the scenes: there sure
cards stay 0.015-0.03 from their own faces at the median, up to 0.14, and 57 of 72 cards
were read with the bare tolerance, 67 with 5 x the median, 70 with 10 x. In synthetic
scenes sure pieces stay within 0.012, and the bare tolerance holds. At 0.03 it took a healer
card the library lacked for the knight (red frames both, a cross on each; its mean colour
0.025 off) twice in 500 scenes; at 0.025 once, at 0.02 never, for 3 fewer of 6,911 pieces
read right (coins half under another piece, whose colour joins theirs); art seed 1 the
same either way. Where the best face is of another colour and beats the best face of the
colour seen by less than :data:`CONFIDENT_MARGIN`, that one is read instead if it clears its
bars itself, its margin taken over the faces scoring under it (:func:`_of_its_colour`): at
25 px a silver coin's rings can score over a copper coin's own face. A print that a face of
another colour matches clearly better is that face's, in a colour the library lacks. Over
500 synthetic scenes 6,861 -> 6,862 of 6,911 right, none misread, the same left-out fronts
taken as known; art seed 1 2,775 -> 2,776 of 2,791 (a silver coin 5 over which a copper
face scored)."""
SEARCH_PX_PER_MM = 0.4
"""Where outlines leave pieces unread, they are looked for by how they look (:func:`_search`):
the place is flattened at this resolution (a card 23 x 35 px, a coin 10 px) and every face
matched over it. Over 500 synthetic scenes (6,911 pieces) this read 6,797 -> 6,843 right, no
more misread, no left-out front taken as known (2,598), nothing read where no piece lies;
art seed 1 (200 scenes) 2,755 -> 2,773 of 2,791. Most are heaps that outlines cannot split:
cards on linen, whose cream border is the cloth's colour, so the outline runs along their
inner frames; tile backs on wood of their own brown, which fall apart into specks. 0.4-0.6
px/mm read within 2 pieces of each other; 0.3 read 7 fewer and took 3 left-out fronts as known."""
SEARCH_MARGIN_MM = 8.0
"""The place is the outline's box grown by this much: a card on linen lies out to its border."""
SEARCH_TURNS = 4
SEARCH_TURNS_APART_DEG = 4.0
"""Rect kinds are matched laid along the outline's longest straight sides (at most
:data:`SEARCH_TURNS` directions this far apart: :func:`vision.heaps.side_turns`), each way
round; a disc upright, as the mean of its faces' turns."""
SEARCH_MIN = 0.6
"""A place is read when a kind's face matches it this well (normalised correlation of the
grey images, each one's mean taken out). Read right of 6,911 in 500 scenes, and the time
searching takes in a 20-piece frame: 0.35: 6,850, 15 ms (coins match loosely at 10 px, and
most places read so are no piece); 0.5: 6,846, 10 ms; 0.6: 6,843; 0.7: 6,841, 7.5 ms.
Colour read 2 more at 0.35, for 2.5 x the matching time."""
SEARCH_COVER_MIN = 0.35
SEARCH_UNDER_MAX = 0.3
SEARCH_THICK_MIN = 0.4
"""A kind is matched only where its piece could lie: the outline covers at least
:data:`SEARCH_COVER_MIN` of it (a pen, a coffee ring does not), pieces read already at most
:data:`SEARCH_UNDER_MAX` (two pieces overlap by a fifth at most), and the outline is
:data:`SEARCH_THICK_MIN` of its half short side thick somewhere."""
SEARCH_TRIES = 2
"""Places are read best match first; a kind is given up after this many are not read
(in colour at :data:`SEARCH_MIN` 0.35: 1: 6,845 of 6,911 right; 2 and 8: 6,849)."""
SEARCH_BAR = 0.15
"""A face found by how it looks must clear its bar by this share of it more: it is the best
of many places, so a look-alike matches one by chance more often. Without it, a healer card
the library lacked was read as a pit tile in its middle 11 times in 500 scenes. Measured with
the darkness map the channels' mean: a share, not a fixed 0.1 (6,850 read right), as a
card's lattice back, whose bar fine print lowers to 0.47, found half under another card
scored 0.56 (6,851; a share of 0.1 read 6,852 and 0.2 6,850, none taking a left-out front as
known; art seed 1 the same). With the darkness map of :data:`DARKNESS_WEIGHTS`, shares of
0.1-0.2 read the same (6,858), and without any extra 8 left-out healer cards were read as pit
tiles."""
AROUND_TURNS = 4
AROUND_MARGIN_MM = 2.0
AROUND_NOISE_PERCENTILE = 75.0
AROUND_CHANGE_TIMES = 2.0
AROUND_CHANGED_MIN = 0.5
"""A rect piece is looked for round an unknown (:func:`_look_around`) where the table round its
middle changed, though the segmentation leaves it: AROUND_CHANGED_MIN of it or more, by
AROUND_CHANGE_TIMES the table's own change (its AROUND_NOISE_PERCENTILE-th percentile, noise
and JPEG) or more. The piece is looked for in a square AROUND_MARGIN_MM wider than itself,
laid at AROUND_TURNS turns 90 / AROUND_TURNS deg apart, and one found must have changed the
table over AROUND_CHANGED_MIN of itself too. Over 500 synthetic scenes 6,863 -> 6,868 of
6,911 right: tile backs on wood of their brown beside other pieces, of which only the dark
middle segments (round it 0.57-0.99 changed; 0.53 at most round the other unknowns of those
scenes; in 30 timing frames, two passed at 0.52 and 0.61 and no piece was found there); none
misread, no left-out front taken as known, art seed 1 the same (2,777 of 2,791). Without the
second check, two pens on the cloth were read as tiles (0.37 and 0.40 of the tile changed;
the tiles found 0.64-1.0). It took 1.1 ms of a 20-piece frame's 55 at the median on a busy
machine, 1.5 ms on average (the same frames read with and without it, in turn)."""
UNREAD_GROW_MM = 1.0
UNREAD_OPEN = 0.4
UNREAD_SHRINK = 2
UNREAD_AREA = (0.25, 2.0)
UNREAD_PEAK = 0.6
UNREAD_PLATEAU = 0.01
UNREAD_CHANGED = 0.9
UNREAD_BAR = 0.0
"""A disc is looked for where the table changed but no piece read explains it
(:func:`_look_where_changed`): the change off the read pieces, each at its own size grown by
UNREAD_GROW_MM, opened by a disc of UNREAD_OPEN of the smallest disc kind's radius and cut into
patches at 1 / UNREAD_SHRINK of the working scale; a patch of UNREAD_AREA of that disc's area
(measured inside the outline through its rim pixels' middles, so a small one measures less than
its pixels) has the disc laid at the middle of the places within UNREAD_PLATEAU of the best,
where that is UNREAD_PEAK or more of it (change less unchanged table, a share of the disc) and
UNREAD_CHANGED of it or more changed. A face read there clears its bar by UNREAD_BAR: it was
laid by where the table changed, not found by how it looks (:data:`SEARCH_BAR`). Over 500
synthetic scenes 6,871 -> 6,884 of 6,911 right (2 of them as the read pieces are taken at
their own size), art seed 1 2,778 -> 2,782 of 2,791: copper coins on wood partly under a card
or tile, whose print alone segments, joined to the other piece's outline; coins fitted off
their middles. None misread, no left-out front taken as known. With the search's bar, 3 (1)
fewer; the 17 coins then found over both seeds' scenes (with the library whole and half its
fronts left out) were laid at 0.69-1.0 and had changed all over, in patches of 0.43-1.63 of a
coin, of 9,825 patches; a patch bound of 5 coins, or 0.5 and 0.8 for the laying and the
change, read no more."""
RESCUE_THICK_MIN = 0.6
"""Specks are looked for pieces by how they look (:func:`_rescue`) only when one of them is
this share of the smallest kind's half short side thick: noise, glare and rings are thin.
Searching every group read 6,854 right (in colour at :data:`SEARCH_MIN` 0.35), but 2
distractors as pieces and 2 pieces where none lies; with it, 6,852 and none."""
CONFIDENT_MARGIN = 0.15
SURE_SCORE = 0.9
"""Confidence = min(1, margin / CONFIDENT_MARGIN) x min(1, (score - MIN_SCORE) /
(SURE_SCORE - MIN_SCORE)): 1.0 for the median right answer on the Set photos, near 0 at
the thresholds. It ranks answers; it is not a probability."""


def _rounded(point: tuple[float, float]) -> list[float]:
    return [round(point[0], 2), round(point[1], 2)]


def _points(points: np.ndarray) -> tuple[tuple[float, float], ...]:
    # by tolist: the same floats, 6x faster than each point's own (40 outlines a frame)
    return tuple((x, y) for x, y in np.asarray(points, np.float64).reshape(-1, 2).tolist())


def read(image: np.ndarray, library: Library, *, calibration: TableCalibration | None = None,
         layout_dictionary: str | None = None, px_per_mm: float | None = None,
         empty: np.ndarray | None = None, seen_markers: dict[int, np.ndarray] | None = None) -> ReadResult:
    """The library's pieces in *image* (BGR uint8), each with its face, position and turn.

    *calibration* puts positions in table mm and lets sizes be checked (pieces are taken
    to lie flat on the table). Without it, *px_per_mm* says the frame is a top-down view
    at that scale (e.g. from :func:`vision.track.rectify`): sizes are checked, positions
    stay in pixels. *layout_dictionary* (``"DICT_4X4_50"``) blanks out the table markers
    of that dictionary; *seen_markers* are those markers when they were found already
    (:func:`vision.markers.detect`, as for the calibration), not to find them twice.
    *empty* is the same view without pieces: pieces are then what differs from it (and
    the markers need no blanking).

    Speed (x86, one core): see ``benchmarks/RESULTS.md``; a 6 Mpx phone photo costs ~50 ms
    more, mostly shrinking it. The first call on a library (or after a registration) also
    prepares its references at every detail level: ~0.3 ms per reference image, turn and
    level (about 0.5 s for 19 faces of coins, tiles and cards).

    :raises LayoutError: when a library image cannot be read.
    :raises ValueError: for an image that is not 8-bit BGR, *empty* of another size, or a
        *px_per_mm* that is not positive.
    """
    # one BLAS thread: each comparison is a small matrix-vector product, for which OpenBLAS
    # would start threads whose spinning costs milliseconds whenever another process holds
    # a core (measured: 0.05 ms on one thread against 0.02-8 ms threaded, on a busy 2-core box)
    with _blas_controller().limit(limits=1, user_api="blas"):
        return _read(image, library, calibration, layout_dictionary, px_per_mm, empty, seen_markers)


@functools.cache
def _blas_controller() -> ThreadpoolController:
    return ThreadpoolController()


def _read(image: np.ndarray, library: Library, calibration: TableCalibration | None,
          layout_dictionary: str | None, px_per_mm: float | None, empty: np.ndarray | None,
          seen_markers: dict[int, np.ndarray] | None) -> ReadResult:
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"image: must be 8-bit BGR (got {image.dtype} {image.shape})")
    if empty is not None and empty.shape != image.shape:
        raise ValueError(f"empty: must be the image's size {image.shape} (got {empty.shape})")
    if px_per_mm is not None and not (math.isfinite(px_per_mm) and px_per_mm > 0):
        raise ValueError(f"px_per_mm: must be positive (got {px_per_mm!r})")
    refs = _references(library)
    height, width = image.shape[:2]
    plane = _Plane(calibration, px_per_mm, min(1.0, WORK_LONG_SIDE_PX / max(height, width)), (width, height))
    work = _shrink(image, plane.work_scale)
    # with sizes known, segment at the working scale: a 25 mm coin in a full-table view is
    # then ~30 px across, not 15
    seg_scale = plane.work_scale if plane.in_mm else min(1.0, SEGMENT_LONG_SIDE_PX / max(height, width))
    seen = _shrink(image, seg_scale)
    table_alone = None if empty is None else _shrink(empty, seg_scale)
    # how much each pixel changed from the empty table: segmenting and looking round unknowns
    # (_look_around) both ask
    change = None if table_alone is None else empty_difference(seen, table_alone)
    mask, contrast = segment(seen, table_alone, change)
    # with an empty-table frame the markers are no pieces already: blanking would only cut
    # a strip off the pieces beside them
    if empty is None and seen_markers is not None:
        _blank_markers(mask, seen_markers, seg_scale)
    elif empty is None and layout_dictionary is not None:
        _blank_markers(mask, markers.detect(image, layout_dictionary), seg_scale)

    # each candidate's faces as scored, with where to report it if it stays unknown: decided
    # once the frame's colour cast is known (_cast)
    scored: list[_Scoring] = []
    fitted_any = False
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    mh, mw = mask.shape
    area_min = PIECE_AREA_MIN * mh * mw
    if plane.in_mm and refs.kinds:
        smallest = min(k.area_mm2 for k in refs.kinds)
        area_min = SMALLEST_PIECE_SHARE * smallest * (plane.work_per_unit / plane.work_scale * seg_scale) ** 2
    table = _table_box(calibration)
    # pieces are looked for by how they look where outlines leave them unread (_search): in
    # mm, and where the outlines are the empty table's difference (from brightness alone, a
    # card's bright part can be an outline of a tile's size, and a tile found in its print)
    searching = plane.in_mm and empty is not None
    # the blobs no piece's shape fits, and the specks: where a piece's print matches the cloth
    # under it, its outline falls apart (_rescue)
    unfit: list[tuple[np.ndarray, int | None]] = []  # (the outline, its scored entry, if any)
    for c in contours:
        moments = cv2.moments(c)
        if moments["m00"] < area_min:
            unfit.append((c, None))
            continue
        x, y, bw, bh = cv2.boundingRect(c)
        is_cut = x <= 0 or y <= 0 or x + bw >= mw or y + bh >= mh
        pts = plane.from_image(_from_mask(c, seg_scale))
        if not _on_table(table, pts.mean(axis=0)):
            continue  # off the table: the floor, a chair, a lap
        fits = _fits(pts, refs.kinds, plane.in_mm)
        if is_cut and not fits:
            continue  # cut by the frame's edge and no piece's shape: the table's edge, glare, a hand
        # in mm, an outline larger than the kind it fits may be that piece with a smaller one
        # over or under its edge: split if whole pieces explain it
        larger = plane.in_mm and bool(fits) and abs(float(cv2.contourArea(pts.astype(np.float32)))) > \
            (1 + HEAP_EXCESS_MIN) * max(kind.area_mm2 for kind, _ in fits)
        if (larger or not fits) and plane.in_mm:
            split = divide_heap(pts, refs.kinds)
            if split.explained and (len(split.pieces) >= 2 or not larger):
                # pieces touching or overlapping: each read on its own
                each = [(part, _identify(work, [part], refs, plane, _others(split.pieces, i)))
                        for i, part in enumerate(split.pieces)]
                _add_parts(scored, _searched(work, pts, each, refs, plane) if searching else each, plane)
                continue
            if not fits:  # not explained: its surest pieces that are read, and the rest unknown
                read_parts = [(part, best) for i, part in enumerate(split.pieces)
                              if _is_read(best := _identify(work, [part], refs, plane,
                                                            _others(split.pieces, i)))]
                if read_parts and searching:  # and the others found by how they look (with
                    # none read, the heap is looked at so with the specks around it: _rescue)
                    read_parts += _search(work, pts, [part for part, _ in read_parts], refs, plane)
                _add_parts(scored, read_parts, plane)
                if read_parts:
                    # what they leave is read again with the specks around it (_rescue), or
                    # stays unknown
                    mm_px = _mm_px(plane, mask.shape, seg_scale)
                    for rest in _remainder(c, [part for part, _ in read_parts], plane, seg_scale, mm_px):
                        if cv2.contourArea(rest) >= area_min:
                            unfit.append((rest, len(scored)))
                            scored.append(_blob({}, rest, plane, seg_scale))
                        else:
                            unfit.append((rest, None))
                    continue
        best = _identify(work, fits, refs, plane) if fits else {}
        if fits and plane.in_mm and not larger and not _is_read(best):
            # no piece as a whole: two pieces side by side whose outline together is a kind's
            # shape (two tiles as a card), when each of them is read
            parts = split_heap(pts, refs.kinds)
            pairs = ([(part, _identify(work, [part], refs, plane, _others(parts, i)))
                      for i, part in enumerate(parts)] if len(parts) > 1 else [])
            if pairs and all(_is_read(part_best) for _, part_best in pairs):
                _add_parts(scored, pairs, plane)
                continue
        if fits and searching and not _is_read(best):
            # a piece or two its outline does not show as they lie: found by how they look
            found = _search(work, pts, [], refs, plane)
            if found:
                _add_parts(scored, found, plane)
                if _covers([fit for fit, _ in found], pts.mean(axis=0)):
                    continue  # else its middle stays unknown
        fitted_any = fitted_any or bool(fits)
        if not fits:
            unfit.append((c, len(scored)))
        scored.append(_blob(best, c, plane, seg_scale))
    if plane.in_mm and unfit:
        _rescue(unfit, mask.shape, scored, work, refs, plane, seg_scale, table, boxed=empty is not None)
    verdicts = [_verdict(best) for best, _, _ in scored]
    if searching and change is not None:
        changed = _Change(change, mask, plane)
        _look_around(scored, verdicts, work, refs, plane, table, changed)
        _look_where_changed(scored, verdicts, work, refs, plane, table, changed)
    if calibration is None and (not fitted_any or contrast < CONTRAST_MIN):
        whole = _read_whole(work, refs, plane)
        if whole is not None:
            return ReadResult((whole,), ())
    cast = _cast([(best, verdict) for (best, _, _), verdict in zip(scored, verdicts, strict=True)])
    pieces: list[FoundPiece] = []
    unknown: list[UnknownPiece] = []
    accepted: list[_Verdict] = []
    for (best, center, outline), verdict in zip(scored, verdicts, strict=True):
        if verdict is not None and cast is not None:
            verdict = _with_cast(verdict, best, cast)
        if verdict is not None and verdict.is_accepted:
            if any(_same_piece(verdict, other) for other in accepted):
                continue
            accepted.append(verdict)
            pieces.append(verdict.piece(plane))
        elif verdict is None:
            unknown.append(UnknownPiece(center, plane.reports_mm, outline_px=outline))
        else:
            unknown.append(UnknownPiece(center, plane.reports_mm, verdict.label, verdict.score,
                                        verdict.margin, outline))
    return ReadResult(tuple(pieces), tuple(unknown))


def _same_piece(a: _Verdict, b: _Verdict) -> bool:
    """Whether two readings are of one piece (:func:`_one_place`)."""
    return a.kind is b.kind and _one_place(a.kind, frame_point(a.frame, 0.5, 0.5),
                                           frame_point(b.frame, 0.5, 0.5))


def _one_place(kind: PieceKind, a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> bool:
    """Whether pieces of *kind* centred at *a* and *b* (in the plane) are one: their centres
    nearer than a quarter of its shorter side (two pieces overlap by a fifth at most)."""
    return math.dist(a, b) < 0.25 * min(kind.size_mm)


def _blob(best: _Best, contour: np.ndarray, plane: _Plane, seg_scale: float) -> _Scoring:
    """A blob of the segmentation mask (its *contour*) as scored: *best*, with its centroid
    and hull to report if it stays unknown."""
    moments = cv2.moments(contour)
    centroid = np.array([[moments["m10"], moments["m01"]]]) / max(moments["m00"], 1e-9)
    hull = cv2.approxPolyDP(cv2.convexHull(contour), 1.5, True).reshape(-1, 2)
    return (best, plane.report(plane.from_image(_from_mask(centroid, seg_scale))[0]),
            _points(_from_mask(hull, seg_scale)))


def _from_mask(points: np.ndarray, seg_scale: float) -> np.ndarray:
    """Points (any shape ending in 2, or a contour) of the segmentation mask, made at
    *seg_scale* of the frame, in the frame's pixels (N x 2)."""
    return (np.asarray(points, np.float64).reshape(-1, 2) + 0.5) / seg_scale - 0.5


def _remainder(contour: np.ndarray, parts: list[_Fit], plane: _Plane, seg_scale: float,
               mm_px: float) -> list[np.ndarray]:
    """The outlines of what the pieces *parts* read from a heap (its *contour* in the
    segmentation mask, *mm_px* px a mm) leave of it, each piece grown by
    :data:`REMAINDER_GAP_MM`."""
    x, y, w, h = cv2.boundingRect(contour)
    canvas = np.zeros((h, w), np.uint8)  # the heap's box alone
    cv2.drawContours(canvas, [contour - np.array([x, y], np.int32)], -1, 1, cv2.FILLED)
    for kind, frame in parts:
        px = (plane.to_image(_unit_outline(kind, frame)) + 0.5) * seg_scale - 0.5 - np.array([x, y])
        corners = np.round(px).astype(np.int32)
        cv2.fillPoly(canvas, [corners], 0)
        cv2.polylines(canvas, [corners], True, 0, max(1, round(2 * REMAINDER_GAP_MM * mm_px)))
    contours, _ = cv2.findContours(canvas, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE, offset=(x, y))
    return list(contours)


def _mm_px(plane: _Plane, shape: tuple[int, int], seg_scale: float) -> float:
    """A mm in the segmentation mask's pixels (of *shape*), at its middle."""
    return plane.px_per_mm_near((shape[1] / 2 / seg_scale, shape[0] / 2 / seg_scale)) * seg_scale


def _others(parts: list[_Fit], i: int) -> list[np.ndarray]:
    """The outlines (in the plane) of *parts* but the *i*-th."""
    return [_unit_outline(*part) for j, part in enumerate(parts) if j != i]


def _is_read(best: _Best) -> bool:
    """Whether a candidate's scores *best* read as a face (its mean colour not yet compared)."""
    verdict = _verdict(best)
    return verdict is not None and verdict.is_accepted


def _add_parts(scored: list[_Scoring], parts: list[tuple[_Fit, _Best]], plane: _Plane) -> None:
    """Pieces fitted in the plane (a heap's, :func:`vision.heaps.divide_heap`; a rescued
    group's), each with its scores, into *scored*, to be reported at their centres."""
    for (kind, frame), best in parts:
        scored.append((best, plane.report(frame_point(frame, 0.5, 0.5)),
                       _points(plane.to_image(_unit_outline(kind, frame)))))


def _searched(work: np.ndarray, outline: np.ndarray, parts: list[tuple[_Fit, _Best]], refs: _References,
              plane: _Plane) -> list[tuple[_Fit, _Best]]:
    """A heap's pieces as fitted (*parts*, each scored), and where some are not read, the
    pieces :func:`_search` finds besides the read ones: those replace the unread parts whose
    centres they cover."""
    read = [part for part in parts if _is_read(part[1])]
    if len(read) == len(parts):
        return parts
    found = _search(work, outline, [fit for fit, _ in read], refs, plane)
    return read + found + [(fit, best) for fit, best in parts if not _is_read(best)
                           and not _covers([fit for fit, _ in found], frame_point(fit[1], 0.5, 0.5))]


def _covers(fits: list[_Fit], point: Sequence[float] | np.ndarray) -> bool:
    """Whether any of the pieces *fits* covers *point* (in the plane)."""
    at = (float(point[0]), float(point[1]))
    return any(cv2.pointPolygonTest(_unit_outline(*fit).astype(np.float32), at, False) >= 0 for fit in fits)


def _search(work: np.ndarray, outline: np.ndarray, taken: list[_Fit], refs: _References,
            plane: _Plane, only: tuple[PieceKind, Sequence[float]] | None = None
            ) -> list[tuple[_Fit, _Best]]:
    """The pieces found in a heap (its *outline*, N x 2, mm) by how they look, besides the
    pieces *taken* from it already: every face of every kind is matched over the heap
    flattened at :data:`SEARCH_PX_PER_MM`, laid along its sides (:data:`SEARCH_TURNS`), and
    the best places are read (:data:`SEARCH_MIN` to :data:`SEARCH_TRIES`). Each piece read
    joins *taken*. With *only* (a rect kind and its turns, degrees), that kind alone is
    matched, laid at those turns."""
    area = abs(float(cv2.contourArea(outline.astype(np.float32))))
    thick = _thickness_mm(outline)
    kinds = [kind for kind in refs.kinds if area >= SEARCH_COVER_MIN * kind.area_mm2
             and thick >= SEARCH_THICK_MIN * min(kind.size_mm) / 2]
    if only is not None:
        kinds = [kind for kind in kinds if kind is only[0]]
    discs = [kind for kind in kinds if kind.shape == "disc"]
    rects = [kind for kind in kinds if kind.shape == "rect"]
    turns = list(only[1]) if only is not None else \
        side_turns(outline, SEARCH_TURNS, SEARCH_TURNS_APART_DEG) if rects else []
    laid = ([(0.0, discs)] if discs else []) + [(turn, rects) for turn in turns]  # the heap's turn, its kinds
    places: list[tuple[float, PieceKind, np.ndarray]] = []  # match, kind, the piece's outline
    for turn, these in laid:
        flat = _Flattened(work, outline, taken, math.radians(turn), plane)
        places += [place for kind in these for place in flat.matches(kind, refs.searched(kind.name))]
    places.sort(key=lambda place: -place[0])
    found: list[tuple[_Fit, _Best]] = []
    tried: list[tuple[PieceKind, np.ndarray]] = []
    failed: list[str] = []
    for _, kind, quad in places:
        centre = quad.mean(axis=0)
        if failed.count(kind.name) >= SEARCH_TRIES or any(
                k is kind and _one_place(kind, centre, c) for k, c in tried):
            continue
        if _covers(taken, centre):
            continue  # a piece read since
        tried.append((kind, centre))
        frame = disc_frame(centre, kind) if kind.shape == "disc" else frame_from_quad(quad, kind)
        best = _identify(work, [(kind, frame)], refs, plane, [_unit_outline(*fit) for fit in taken])
        verdict = _verdict(best)
        if verdict is not None and verdict.is_accepted and verdict.score >= verdict.bar * (1 + SEARCH_BAR):
            taken.append((verdict.kind, verdict.frame))
            found.append((taken[-1], best))
        else:
            failed.append(kind.name)
    return found


def _look_around(scored: list[_Scoring], verdicts: list[_Verdict | None], work: np.ndarray, refs: _References,
                 plane: _Plane, table: tuple[float, float, float, float] | None, change: _Change) -> None:
    """Looks for a rect piece round each unknown in *scored* (each with its verdict in *verdicts*,
    kept in step) that no piece read covers, where *change* shows the table round its middle
    changed though the segmentation leaves it (:data:`AROUND_CHANGED_MIN`): a piece whose
    print matches the cloth under it shows the camera only what does not (a tile's brown
    back on wood: its dark middle, which no kind fits, or a coin does). Each rect kind,
    smallest first, is looked for (:func:`_search`) in a square reaching its corners round
    the unknown's middle, laid :data:`AROUND_TURNS` ways; the first piece found that covers
    the middle, lies on the *table* and changed the table over enough of itself replaces the
    unknown."""
    taken = [(v.kind, v.frame) for v in verdicts if v is not None and v.is_accepted]
    if len(taken) == len(scored):
        return  # no unknown
    outlines = [_unit_outline(*fit).astype(np.float32) for fit in taken]  # each worked out once
    rects = sorted((kind for kind in refs.kinds if kind.shape == "rect"), key=lambda kind: kind.area_mm2)
    if not rects:
        return
    reach = min(min(kind.size_mm) for kind in rects) / 2  # within any rect piece centred there
    turns = [90.0 * k / AROUND_TURNS for k in range(AROUND_TURNS)]
    gone: set[int] = set()
    for i, ((_, centre, _), verdict) in enumerate(zip(list(scored), list(verdicts), strict=True)):
        if verdict is not None and verdict.is_accepted:
            continue
        middle = np.asarray(centre, np.float64) / (plane.px_per_mm or 1.0)  # reported -> plane
        at = (float(middle[0]), float(middle[1]))
        if (any(cv2.pointPolygonTest(outline, at, False) >= 0 for outline in outlines)
                or change.round(middle, reach) < AROUND_CHANGED_MIN):
            continue
        for kind in rects:
            half = max(kind.size_mm) / 2 + AROUND_MARGIN_MM
            square = middle + half * np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
            searched = _search(work, square, list(taken), refs, plane, (kind, turns))
            found = [(fit, best) for fit, best in searched
                     if _covers([fit], middle) and _on_table(table, frame_point(fit[1], 0.5, 0.5))
                     and change.of_piece(*fit) >= AROUND_CHANGED_MIN]
            if found:
                gone.add(i)
                taken.append(found[0][0])
                outlines.append(_unit_outline(*found[0][0]).astype(np.float32))
                _add_parts(scored, found[:1], plane)
                verdicts.append(_verdict(found[0][1]))
                break
    scored[:] = [s for i, s in enumerate(scored) if i not in gone]
    verdicts[:] = [v for i, v in enumerate(verdicts) if i not in gone]


def _look_where_changed(scored: list[_Scoring], verdicts: list[_Verdict | None], work: np.ndarray,
                        refs: _References, plane: _Plane, table: tuple[float, float, float, float] | None,
                        change: _Change) -> None:
    """Looks for a disc where the table changed but no piece read explains it: a coin of the
    cloth's colour shows the segmentation only its print, and one partly under another piece
    that print joined to that piece's outline, so it is never fitted or fitted off its middle.
    What changed by more than noise (*change*) off the read pieces (each at its own size where
    it was read, grown by :data:`UNREAD_GROW_MM`) is opened by a disc of :data:`UNREAD_OPEN`
    of the smallest disc kind's radius (a read piece's rim and shadow fall away) and cut into
    patches, at 1 / :data:`UNREAD_SHRINK` of the working scale. In each patch of
    :data:`UNREAD_AREA` that disc's area, the disc is laid where it covers the most change
    less the unchanged table (the read pieces count neither way); where that is
    :data:`UNREAD_PEAK` of it or more and :data:`UNREAD_CHANGED` of it changed, each disc
    kind is compared there (:func:`_identify`, without the read pieces over it). A face read
    that clears its bar by :data:`UNREAD_BAR` and lies on the *table* joins *scored* and
    *verdicts* (kept in step), and replaces the unknowns whose middles it covers."""
    discs = sorted((kind for kind in refs.kinds if kind.shape == "disc"), key=lambda kind: kind.area_mm2)
    if not discs:
        return
    # each read piece at its own size where it was read: a piece may be read right on a quad
    # that is not its shape, reaching over a coin beside it
    taken = [(v.kind, v.frame) for v in verdicts if v is not None and v.is_accepted]
    in_plane = [_own_size_outline(kind, frame, 0.0).astype(np.float32) for kind, frame in taken]
    outlines = [_own_size_outline(kind, frame, UNREAD_GROW_MM) for kind, frame in taken]
    # into the working image at once: through the lens, a call costs more than its points
    grown = np.split(plane.to_work(np.vstack(outlines)), np.cumsum([len(o) for o in outlines])[:-1]) \
        if outlines else []
    boxes = np.array([[*o.min(axis=0), *o.max(axis=0)] for o in grown]).reshape(-1, 4)
    k = UNREAD_SHRINK  # every k-th working pixel from the (k // 2)-th: pixel i is k * i + k // 2
    changed = np.asarray(change.difference[k // 2::k, k // 2::k] >= change.least, np.uint8)
    for outline in grown:
        px = (outline - k // 2) / k * 16
        cv2.fillPoly(changed, [np.round(px).astype(np.int32)], 0, cv2.LINE_8, shift=4)
    radius = discs[0].size_mm[0] / 2 * plane.work_per_unit  # in working pixels
    r = max(1, round(UNREAD_OPEN * radius / k))
    opening = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    cv2.morphologyEx(changed, cv2.MORPH_OPEN, opening, dst=changed)
    patches, _ = cv2.findContours(changed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    disc_area = math.pi * (radius / k) ** 2
    big = math.ceil(radius)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * big + 1, 2 * big + 1)).astype(np.float32)
    whole = float(kernel.sum())
    height, width = change.difference.shape
    for patch in patches:
        if not UNREAD_AREA[0] <= cv2.contourArea(patch) / disc_area <= UNREAD_AREA[1]:
            continue
        x, y, w, h = cv2.boundingRect(patch)  # -> the working image, with a disc's radius round it
        x0, y0 = max(0, x * k - big), max(0, y * k - big)
        x1, y1 = min(width, (x + w) * k + big), min(height, (y + h) * k + big)
        # +1 changed, -1 the table unchanged, 0 under a read piece
        values = np.where(change.difference[y0:y1, x0:x1] >= change.least, 1.0, -1.0).astype(np.float32)
        cover = np.zeros(values.shape, np.uint8)
        near = np.flatnonzero((boxes[:, 0] < x1) & (boxes[:, 2] >= x0)
                              & (boxes[:, 1] < y1) & (boxes[:, 3] >= y0)).tolist()
        for i in near:
            px = np.round((grown[i] - (x0, y0)) * 16).astype(np.int32)
            cv2.fillPoly(cover, [px], 1, cv2.LINE_8, shift=4)
        values[cover > 0] = 0.0
        laid = np.asarray(cv2.filter2D(values, -1, kernel, borderType=cv2.BORDER_CONSTANT))
        inside = np.zeros(values.shape, np.uint8)  # the disc's middle within the patch
        px = np.round((patch.reshape(-1, 2) * k + k // 2 - (x0, y0)) * 16).astype(np.int32)
        cv2.fillPoly(inside, [px], 1, cv2.LINE_8, shift=4)
        laid[inside == 0] = -whole
        top = float(laid.max())
        if top < UNREAD_PEAK * whole:
            continue
        ys, xs = np.nonzero(laid >= top - UNREAD_PLATEAU * whole)  # the middle of the best places
        best_px = np.array([[x0 + xs.mean(), y0 + ys.mean()]])  # working pixels -> the frame's -> the plane
        middle = plane.from_image((best_px + 0.5) / plane.work_scale - 0.5)[0]
        at = (float(middle[0]), float(middle[1]))
        if any(cv2.pointPolygonTest(outline, at, False) >= 0 for outline in in_plane):
            continue
        hidden = [in_plane[i].astype(np.float64) for i in near]
        for kind in discs:
            frame = disc_frame(middle, kind)
            if change.of_piece(kind, frame) < UNREAD_CHANGED:
                continue
            best = _identify(work, [(kind, frame)], refs, plane, hidden)
            verdict = _verdict(best)
            if (verdict is None or not verdict.is_accepted or verdict.score < verdict.bar * (1 + UNREAD_BAR)
                    or not _on_table(table, frame_point(verdict.frame, 0.5, 0.5))):
                continue
            fit = (verdict.kind, verdict.frame)
            replaced = [i for i, ((_, centre, _), v) in enumerate(zip(scored, verdicts, strict=True))
                        if (v is None or not v.is_accepted)
                        and _covers([fit], np.asarray(centre, np.float64) / (plane.px_per_mm or 1.0))]
            scored[:] = [entry for i, entry in enumerate(scored) if i not in replaced]
            verdicts[:] = [v for i, v in enumerate(verdicts) if i not in replaced]
            _add_parts(scored, [(fit, best)], plane)
            verdicts.append(verdict)
            # over the patches still to look at, it is a read piece
            in_plane.append(_own_size_outline(*fit, 0.0).astype(np.float32))
            grown.append(plane.to_work(_own_size_outline(*fit, UNREAD_GROW_MM)))
            boxes = np.vstack([boxes, [*grown[-1].min(axis=0), *grown[-1].max(axis=0)]])
            break


def _own_size_outline(kind: PieceKind, frame: np.ndarray, grow_mm: float) -> np.ndarray:
    """The outline (in the plane, mm) of *kind*'s piece at its own size, grown by *grow_mm*
    each way, centred where *frame* is: a disc's round its centre, a rect's corners along
    the frame's top edge (:func:`_own_size_quads`, unturned)."""
    if kind.shape == "disc":
        centre = np.array(frame_point(frame, 0.5, 0.5))
        return centre + (_UNIT_OUTLINES["disc"] - 0.5) * (kind.size_mm[0] + 2 * grow_mm)
    return _own_size_quads(kind, frame, grow_mm, (0.0,))[0]


class _Change:
    """How much the frame changed from the empty table (*difference*, in the working image:
    :func:`vision.library.empty_difference`), against how much the table itself changes by
    noise alone (its pixels off the segmentation *mask*, the same size:
    :data:`AROUND_CHANGE_TIMES`)."""

    def __init__(self, difference: np.ndarray, mask: np.ndarray, plane: _Plane) -> None:
        self.difference, self.mask, self.plane = difference, mask, plane

    @functools.cached_property
    def least(self) -> float:
        """The least change that is no noise: from every 8th pixel each way (in 20 frames the
        same percentile as from every pixel in 18, a level off in 2)."""
        table = self.difference[::8, ::8][self.mask[::8, ::8] == 0]
        return max(1.0, AROUND_CHANGE_TIMES * float(np.percentile(table, AROUND_NOISE_PERCENTILE))
                   if table.size else 1.0)

    def of_piece(self, kind: PieceKind, frame: np.ndarray) -> float:
        """The share of *kind*'s piece at *frame* (in the plane) that changed by more than noise."""
        w, h = _compare_size(kind)
        flat = self.plane.flat(self.difference, frame, (w, h))
        return float(np.mean(flat[_region(kind, (h, w))] >= self.least))

    def round(self, middle: np.ndarray, radius: float) -> float:
        """The share of the disc of *radius* round *middle* (in the plane; as a circle in the
        working image, where a disc that small is one to a pixel) that changed by more than
        noise where the mask leaves it (0 where it leaves under a quarter)."""
        (x, y), edge = self.plane.to_work(np.array([middle, (middle[0] + radius, middle[1])], np.float64))
        r = math.dist((x, y), edge)
        h, w = self.mask.shape
        x0, y0 = max(0, math.floor(x - r)), max(0, math.floor(y - r))
        x1, y1 = min(w, math.ceil(x + r) + 1), min(h, math.ceil(y + r) + 1)
        yy, xx = np.ogrid[y0:y1, x0:x1]
        off = ((xx - x) ** 2 + (yy - y) ** 2 <= r * r) & (self.mask[y0:y1, x0:x1] == 0)
        left = np.count_nonzero(off)
        if left < 0.25 * math.pi * r * r:
            return 0.0
        return float(np.count_nonzero(self.difference[y0:y1, x0:x1][off] >= self.least)) / left


def _thickness_mm(outline: np.ndarray) -> float:
    """How thick the shape of *outline* (N x 2, mm) is: the radius of the largest circle in it."""
    low = outline.min(axis=0) - 1.0
    w, h = np.ceil(outline.max(axis=0) + 1.0 - low).astype(int) + 1
    drawn = np.zeros((h, w), np.uint8)
    cv2.fillPoly(drawn, [np.round((outline - low) * 16).astype(np.int32)], 1, cv2.LINE_8, shift=4)
    return float(np.asarray(cv2.distanceTransform(drawn, cv2.DIST_L2, 3)).max())


class _Flattened:
    """A heap (its *outline*, N x 2, mm) flattened from the working image at
    :data:`SEARCH_PX_PER_MM` (with :data:`SEARCH_MARGIN_MM` round it), its x axis *turn*
    (radians) from the plane's, with the pieces *taken* from it already drawn: where
    :func:`_search` matches the faces."""

    def __init__(self, work: np.ndarray, outline: np.ndarray, taken: list[_Fit], turn: float,
                 plane: _Plane) -> None:
        s = SEARCH_PX_PER_MM
        self.axes = np.array([[math.cos(turn), math.sin(turn)], [-math.sin(turn), math.cos(turn)]])
        along = outline @ self.axes.T  # the outline in the turned axes
        self.low = along.min(axis=0) - SEARCH_MARGIN_MM
        self.w, self.h = (int(math.ceil(float(span) * s))
                          for span in along.max(axis=0) + SEARCH_MARGIN_MM - self.low)
        origin = self.low @ self.axes
        frame = np.eye(3)  # the unit square -> the box, in mm
        frame[:2, 0], frame[:2, 1] = self.w / s * self.axes[0], self.h / s * self.axes[1]
        frame[:2, 2] = origin
        flat = plane.flat(work, frame, (self.w, self.h))
        self.image = np.asarray(cv2.cvtColor(flat, cv2.COLOR_BGR2GRAY), np.float32)
        self.heap = self._drawn([outline])
        self.under = self._drawn([_unit_outline(*fit) for fit in taken]) if taken else None
        self._bad: dict[tuple[int, int], np.ndarray] = {}

    def _drawn(self, outlines: list[np.ndarray]) -> np.ndarray:
        drawn = np.zeros((self.h, self.w), np.float32)
        for o in outlines:
            px = ((o @ self.axes.T - self.low) * SEARCH_PX_PER_MM * 16).round().astype(np.int32)
            cv2.fillPoly(drawn, [px], 1.0, cv2.LINE_8, shift=4)
        return drawn

    def _share(self, drawn: np.ndarray, tw: int, th: int) -> np.ndarray:
        """The share of a piece *tw* x *th* px laid at each place a match is made that *drawn* covers."""
        boxed = cv2.boxFilter(drawn, -1, (tw, th), anchor=(0, 0), borderType=cv2.BORDER_CONSTANT)
        return np.asarray(boxed)[:self.h - th + 1, :self.w - tw + 1]

    def _unfit(self, tw: int, th: int) -> np.ndarray:
        """Where a piece *tw* x *th* px cannot lie (:meth:`matches`): worked out once for each
        size (a rect's two ways round and a square's four turns share theirs)."""
        bad = self._bad.get((tw, th))
        if bad is None:
            bad = self._share(self.heap, tw, th) < SEARCH_COVER_MIN
            if self.under is not None:
                bad |= self._share(self.under, tw, th) > SEARCH_UNDER_MAX
            self._bad[tw, th] = bad
        return bad

    def matches(self, kind: PieceKind, faces: list[tuple[int | None, list[np.ndarray]]]
                ) -> list[tuple[float, PieceKind, np.ndarray]]:
        """Where *kind*'s *faces* (:meth:`_References.searched`) match, lying along the axes
        any way round (a disc's: upright only): each local best match of
        :data:`SEARCH_MIN` or more, of a piece the heap covers enough and the pieces taken not too
        much (:data:`SEARCH_UNDER_MAX`), with the outline of the piece laid there (mm)."""
        out = []
        for quarter, turned in faces:
            th, tw = turned[0].shape[:2]
            if self.w <= tw or self.h <= th:
                continue
            # each face's match, the best kept by cv2 as they come (a stack of them is copied first)
            match = np.asarray(cv2.matchTemplate(self.image, turned[0], cv2.TM_CCOEFF_NORMED), np.float32)
            for face in turned[1:]:
                cv2.max(match, cv2.matchTemplate(self.image, face, cv2.TM_CCOEFF_NORMED), dst=match)
            match[self._unfit(tw, th)] = -1.0
            best_near = cv2.dilate(match, np.ones((5, 5), np.uint8))
            peaks = np.argwhere((match >= SEARCH_MIN) & (match == best_near))
            w, h = kind.size_mm if quarter in (None, cv2.ROTATE_180) else kind.size_mm[::-1]
            box = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2
            centres = [(_peak(match, y, x) + (tw / 2, th / 2)) / SEARCH_PX_PER_MM + self.low
                       for y, x in peaks]
            out += [(float(match[y, x]), kind, (box + centre) @ self.axes)
                    for (y, x), centre in zip(peaks, centres, strict=True)]
        return out


def _peak(match: np.ndarray, y: int, x: int) -> np.ndarray:
    """Where the peak of *match* at row *y*, column *x* lies to a fraction of a pixel (x, y):
    the top of a parabola through it and its neighbours, each way."""
    at = np.array([x, y], np.float64)
    h, w = match.shape
    for axis, line in enumerate((match[y, x - 1:x + 2] if 0 < x < w - 1 else None,
                                 match[y - 1:y + 2, x] if 0 < y < h - 1 else None)):
        if line is not None and (bend := float(line[0] - 2 * line[1] + line[2])) < 0:
            at[axis] += 0.5 * float(line[0] - line[2]) / bend
    return at


def _rescue(unfit: list[tuple[np.ndarray, int | None]], shape: tuple[int, int], scored: list[_Scoring],
            work: np.ndarray, refs: _References, plane: _Plane, seg_scale: float,
            table: tuple[float, float, float, float] | None, boxed: bool) -> None:
    """Reads again, in *scored*, what no piece's shape fitted: the blobs and specks *unfit*
    (their outlines in the segmentation mask of *shape*, each with its scored entry, if it
    has one), taken together with their neighbours within :data:`RESCUE_MM`. Where a group's
    hull fits a kind (or lies within a disc kind's circle: a disc of that size at the
    circle's centre; or, with *boxed*, its smallest box is a rect kind's size) and the piece
    is identified, it replaces the group's unknowns whose middles it covers; else, with
    *boxed* too, the pieces found in the group's hull by how they look (:func:`_search`,
    :data:`RESCUE_THICK_MIN`) do. Nothing is read off the *table* (:func:`_table_box`)."""
    mm_px = _mm_px(plane, shape, seg_scale)
    # grouped by their boxes, each grown by RESCUE_MM: two outlines whose grown boxes overlap
    # are neighbours (a frame holds a few dozen outlines; no mask to label)
    reach = RESCUE_MM * mm_px
    boxes = np.array([cv2.boundingRect(c) for c, _ in unfit], np.float64)
    lo, hi = boxes[:, :2] - reach, boxes[:, :2] + boxes[:, 2:] + reach
    touch = ((lo[:, None, :] <= hi[None, :, :]) & (lo[None, :, :] <= hi[:, None, :])).all(axis=2)
    group_of = np.arange(len(unfit))
    while True:  # each outline takes the smallest group number among its neighbours'
        smallest = np.where(touch, group_of[None, :], len(unfit)).min(axis=1)
        if (smallest == group_of).all():
            break
        group_of = smallest
    least = RESCUE_DISC_SHARE ** 2 * min(k.area_mm2 for k in refs.kinds) * mm_px ** 2
    thinnest = min(min(k.size_mm) for k in refs.kinds) / 2
    gone: set[int] = set()
    for group in np.unique(group_of):
        members = [unfit[i] for i in np.flatnonzero(group_of == group)]
        if sum(cv2.contourArea(c) for c, _ in members) < least:
            continue  # too little for any piece
        hull = cv2.convexHull(np.vstack([c for c, _ in members])).reshape(-1, 2).astype(np.float64)
        pts = plane.from_image(_from_mask(hull, seg_scale))
        fits = _fits(pts, refs.kinds, in_mm=True)
        if not fits:  # a disc bitten where it matches the cloth: the whole coin around what is left
            circle_centre, radius = cv2.minEnclosingCircle(pts.astype(np.float32))
            fits = [(kind, disc_frame(circle_centre, kind)) for kind in refs.kinds if kind.shape == "disc"
                    and RESCUE_DISC_SHARE <= radius / (kind.size_mm[0] / 2) <= 1 + SIZE_TOLERANCE]
        if not fits and boxed:  # a rect bitten at a corner or along a side: the box around what is left
            fits = _boxed(pts, refs.kinds)
        best = _identify(work, fits, refs, plane) if fits else {}
        verdict = _verdict(best)
        if verdict is not None and verdict.is_accepted:
            found = [((verdict.kind, verdict.frame), best)]
        elif boxed and max(_thickness_mm(plane.from_image(_from_mask(c, seg_scale)))
                           for c, _ in members) >= RESCUE_THICK_MIN * thinnest:
            found = _search(work, pts, [], refs, plane)  # by how they look
        else:
            continue
        found = [(fit, best) for fit, best in found if _on_table(table, frame_point(fit[1], 0.5, 0.5))]
        if not found:
            continue
        # the unknowns replaced: those whose middles the pieces found cover
        for c, entry in members:
            middle = _from_mask(c.reshape(-1, 2).mean(axis=0), seg_scale)
            if entry is not None and _covers([fit for fit, _ in found], plane.from_image(middle)[0]):
                gone.add(entry)
        _add_parts(scored, found, plane)
    scored[:] = [s for i, s in enumerate(scored) if i not in gone]


def _boxed(outline: np.ndarray, kinds: tuple[PieceKind, ...]) -> list[_Fit]:
    """Each rect kind the smallest box around *outline* (N x 2, mm) is the size of, within
    :data:`vision.library.SIZE_TOLERANCE`, with the box's frame: a rect whose corner or edge
    segmentation lost (another piece over it, a cloth of its colour) still spans its whole
    box where its other corners show."""
    (cx, cy), sides, turn = cv2.minAreaRect(outline.astype(np.float32))
    short, long_ = sorted(sides)
    box = np.asarray(cv2.boxPoints(((cx, cy), sides, turn)), np.float64)
    out = []
    for kind in kinds:
        k_short, k_long = sorted(kind.size_mm)
        if (kind.shape == "rect" and abs(short / k_short - 1) <= SIZE_TOLERANCE
                and abs(long_ / k_long - 1) <= SIZE_TOLERANCE):
            out.append((kind, frame_from_quad(box, kind)))
    return out


def _fits(outline: np.ndarray, kinds: tuple[PieceKind, ...], in_mm: bool) -> list[_Fit]:
    """Each of *kinds* the *outline* (N x 2, in the plane) fits, with its frame. In mm, a
    kind whose area is far from the outline's hull's cannot fit: it is not tried."""
    hull_area = abs(float(cv2.contourArea(cv2.convexHull(outline.astype(np.float32))))) if in_mm else 0.0
    return [(kind, frame) for kind in kinds
            if (not in_mm or abs(hull_area / kind.area_mm2 - 1) <= FIT_AREA_SPAN)
            and (frame := (fit_rect if kind.shape == "rect" else fit_disc)(outline, kind, in_mm=in_mm))
            is not None]


# -- geometry --------------------------------------------------------------------------------------


class _Plane:
    """Where outlines are fitted: table mm (a calibration), mm of a top-down view
    (*px_per_mm*), or the frame's pixels; and the way to the working image's pixels."""

    def __init__(self, calibration: TableCalibration | None, px_per_mm: float | None,
                 work_scale: float, frame_size: tuple[int, int]) -> None:
        self.calibration = calibration
        self.px_per_mm = None if calibration is not None else px_per_mm
        self.work_scale = work_scale
        self.in_mm = calibration is not None or px_per_mm is not None
        self.reports_mm = calibration is not None
        w, h = frame_size
        self.work_per_unit = self.px_per_mm_near((w / 2, h / 2)) * work_scale
        """Working image pixels per plane unit, at the frame's centre (for telling how much
        detail a piece shows: the perspective across a table changes it by less than a
        detail level)."""
        self._flats: dict[tuple[int, bytes, tuple[int, int]], np.ndarray] = {}

    def from_image(self, points_px: np.ndarray) -> np.ndarray:
        """Frame pixels -> plane."""
        if self.calibration is not None:
            return self.calibration.to_table(points_px)
        if self.px_per_mm is not None:
            return np.asarray(points_px, np.float64) / self.px_per_mm
        return np.asarray(points_px, np.float64)

    def to_work(self, points: np.ndarray) -> np.ndarray:
        """Plane -> working image pixels (through the calibration, lens and all)."""
        px = self.calibration.to_image(points) if self.calibration is not None else points
        if self.px_per_mm is not None:
            px = px * self.px_per_mm
        return np.asarray((px + 0.5) * self.work_scale - 0.5, np.float64)

    def flat(self, work: np.ndarray, frame: np.ndarray, size: tuple[int, int]) -> np.ndarray:
        """The piece of *frame* (the unit square -> the plane) warped flat from the working
        image *work* to *size* ``(w, h)`` (:func:`vision.library.warp`), read-only: a piece
        warped again (its mean colour without the others, :func:`_seen_body_unhidden`) is the
        one warped before, kept for the frame's read."""
        key = (id(work), np.asarray(frame, np.float64).tobytes(), size)
        flat = self._flats.get(key)
        if flat is None:
            m = self.work_matrix
            flat = self._flats[key] = (warp(work, frame, size, to_image=self.to_work) if m is None
                                       else warp(work, m @ frame, size))
            flat.flags.writeable = False  # shared from here on
        return flat

    @property
    def work_matrix(self) -> np.ndarray | None:
        """Plane -> working image pixels as a 3 x 3 matrix, when it is one (no calibration)."""
        if self.calibration is not None:
            return None
        s = self.work_scale * (self.px_per_mm or 1.0)
        o = 0.5 * self.work_scale - 0.5
        return np.array([[s, 0.0, o], [0.0, s, o], [0.0, 0.0, 1.0]])

    def px_per_mm_near(self, point_px: tuple[float, float]) -> float:
        """Frame pixels per plane unit around *point_px*."""
        centre = self.from_image(np.array([point_px], np.float64))[0]
        ends = self.to_image(np.array([centre - (5.0, 0.0), centre + (5.0, 0.0)]))
        return float(np.linalg.norm(ends[1] - ends[0])) / 10.0

    def to_image(self, points: np.ndarray) -> np.ndarray:
        """Plane -> frame pixels."""
        if self.calibration is not None:
            return self.calibration.to_image(points)
        return np.asarray(points, np.float64) * (self.px_per_mm or 1.0)

    def report(self, point: np.ndarray | tuple[float, float]) -> tuple[float, float]:
        """A plane point as reported: table mm with a calibration, else frame pixels."""
        scale = self.px_per_mm or 1.0
        return float(point[0]) * scale, float(point[1]) * scale


def _table_box(calibration: TableCalibration | None) -> tuple[float, float, float, float] | None:
    """The table as the calibration's markers span it, in table mm (x0, y0, x1, y1), grown by
    :data:`OFF_TABLE_MM` each way; None without a calibration. The box, not the markers'
    hull: with three corners' markers found, it still holds the fourth corner."""
    if calibration is None or not calibration.marker_px:
        return None
    corners = calibration.to_table(np.vstack([np.asarray(c, np.float64).reshape(-1, 2)
                                              for c in calibration.marker_px.values()]))
    (x0, y0), (x1, y1) = corners.min(axis=0), corners.max(axis=0)
    return x0 - OFF_TABLE_MM, y0 - OFF_TABLE_MM, x1 + OFF_TABLE_MM, y1 + OFF_TABLE_MM


def _on_table(table: tuple[float, float, float, float] | None, point: Sequence[float] | np.ndarray) -> bool:
    """Whether *point* (table mm) lies in the *table* box (:func:`_table_box`); any point
    does without one."""
    return table is None or (table[0] <= point[0] <= table[2] and table[1] <= point[1] <= table[3])


def _shrink(image: np.ndarray, scale: float) -> np.ndarray:
    if scale >= 1.0:
        return image
    return np.asarray(cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), np.uint8)


def _blank_markers(mask: np.ndarray, seen: dict[int, np.ndarray], scale: float) -> None:
    for corners in seen.values():
        c = corners.mean(axis=0)
        grown = c + (corners - c) * (1 + 2 * MARKER_MARGIN)
        cv2.fillConvexPoly(mask, np.round((grown + 0.5) * scale - 0.5).astype(np.int32), 0)


# -- references ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Features:
    luma: np.ndarray  # unit vector, or zeros for a blank face
    chroma: np.ndarray  # unit vector, or zeros
    chroma_strength: float  # |colour map| / |darkness map|
    chroma_rms: float  # the colour map's root mean square per pixel (a share of paper)
    inner_strength: float  # chroma_strength away from the outline (SEEN_GREY_INSET)
    body: np.ndarray  # the face's mean colour as shares of its channels' sum (BODY_TOL)


@dataclass(frozen=True)
class _KindRefs:
    kind: PieceKind
    size_px: tuple[int, int]  # the compared images' (width, height)
    identities: tuple[str, ...]  # per row: the front's name, or "" for the back
    turns_deg: np.ndarray  # per row: how far (clockwise) the reference was turned
    luma: np.ndarray  # rows x features
    chroma: np.ndarray
    chroma_strength: np.ndarray
    faint: np.ndarray  # per row: its colour is too faint to compare (FAINT_CHROMA_RMS)
    bar: np.ndarray  # per row: the score it must reach (MIN_SCORE, less for fine print)
    starts: tuple[int, ...]  # the first row of each run of rows of one identity
    run_lengths: np.ndarray  # each run's rows
    common: np.ndarray | None  # per turn: the unit mean of the darkness maps at that turn
    common_row: np.ndarray  # per row: its turn's row of common
    shared: np.ndarray | None  # per face: its weight in common (the fronts' mean: DISTINCT_MIN)
    along: np.ndarray | None  # per row: its darkness map's correlation with its turn's common part
    distinct_bar: np.ndarray  # per row: how much the distinct part must match (DISTINCT_SELF_TYPICAL)
    gram: np.ndarray | None  # per turn: its rows' (one per face) luma correlations, faces x faces
    body: np.ndarray  # per row: the face's mean colour, as in _Features
    level: float  # the detail level (DETAIL_LEVELS) the rows are softened to


@dataclass(frozen=True)
class _References:
    revision: int
    kinds: tuple[PieceKind, ...]
    by_kind: dict[str, _KindRefs]
    faces: dict[str, list[tuple[str, np.ndarray]]]  # per kind: (identity, face at the compare size)
    softened: dict[tuple[str, float], _KindRefs] = field(default_factory=dict)
    for_search: dict[str, list[tuple[int | None, list[np.ndarray]]]] = field(default_factory=dict)

    def searched(self, kind: str) -> list[tuple[int | None, list[np.ndarray]]]:
        """*kind*'s faces as :func:`_search` matches them: grey, float, at
        :data:`SEARCH_PX_PER_MM`, each way round a rect lies (the cv2.rotate code, None
        upright); a disc's upright only, as the mean of its turns (it is matched at any)."""
        cached = self.for_search.get(kind)
        if cached is None:
            k = self.by_kind[kind].kind
            size = (max(3, round(k.size_mm[0] * SEARCH_PX_PER_MM)),
                    max(3, round(k.size_mm[1] * SEARCH_PX_PER_MM)))
            upright = []
            for _, img in self.faces[kind]:
                face = np.asarray(np.mean([_turned(img, k, t) for t in range(0, 360, 45)], axis=0)
                                  if k.shape == "disc" else img, np.float32)
                upright.append(np.asarray(cv2.cvtColor(cv2.resize(face, size, interpolation=cv2.INTER_AREA),
                                                       cv2.COLOR_BGR2GRAY), np.float32))
            quarters = (None, cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_180, cv2.ROTATE_90_COUNTERCLOCKWISE) \
                if k.shape == "rect" else (None,)
            cached = self.for_search[kind] = [
                (q, upright if q is None else [np.asarray(cv2.rotate(f, q), np.float32) for f in upright])
                for q in quarters]
        return cached

    def at(self, kind: str, level: float) -> _KindRefs:
        """*kind*'s references as a camera sees them with *level* (one of
        :data:`DETAIL_LEVELS`) of the compare size's resolution."""
        if level >= 1.0:
            return self.by_kind[kind]
        cached = self.softened.get((kind, level))
        if cached is None:
            r = self.by_kind[kind]
            faces = [(identity, _soften(img, level)) for identity, img in self.faces[kind]]
            cached = self.softened[(kind, level)] = _kind_refs(r.kind, r.size_px, faces, level)
        return cached


_CACHE: weakref.WeakKeyDictionary[Library, _References] = weakref.WeakKeyDictionary()


def _references(library: Library) -> _References:
    """The library's reference features, computed once per library and revision."""
    cached = _CACHE.get(library)
    if cached is not None and cached.revision == library.revision:
        return cached
    by_kind: dict[str, _KindRefs] = {}
    all_faces: dict[str, list[tuple[str, np.ndarray]]] = {}
    for name in library.kinds():
        kind = library.kind(name)
        faces = [(front, img) for front, imgs in library.fronts(name).items() for img in imgs]
        back = library.back(name)
        if back is not None:
            faces.append(("", back))
        if not faces:
            continue
        size = _compare_size(kind)
        small = [(identity, np.asarray(cv2.resize(img, size, interpolation=cv2.INTER_AREA), np.uint8))
                 for identity, img in faces]
        all_faces[name] = small
        by_kind[name] = _kind_refs(kind, size, small)
    refs = _References(library.revision, tuple(r.kind for r in by_kind.values()), by_kind, all_faces)
    for name in by_kind:  # every detail level now: no frame later pays for preparing one
        for level in DETAIL_LEVELS:
            refs.at(name, level)
        refs.searched(name)  # nor for the faces a search matches
    _CACHE[library] = refs
    return refs


def _kind_refs(kind: PieceKind, size: tuple[int, int], faces: list[tuple[str, np.ndarray]],
               level: float = 1.0) -> _KindRefs:
    ids: list[str] = []
    turns: list[float] = []
    feats: list[_Features] = []
    bars: list[float] = []
    face_of: list[int] = []  # per row: its entry in faces
    for n, (identity, small) in enumerate(faces):
        bar = MIN_SCORE * min(1.0, _self_score(small, kind, level) / SELF_SCORE_TYPICAL)
        for turn, turned in _turns(small, kind):
            face_of.append(n)
            ids.append(identity)
            turns.append(turn)
            feats.append(_features(turned, kind, level))
            bars.append(bar)
    starts = tuple(i for i, identity in enumerate(ids) if i == 0 or ids[i - 1] != identity)
    luma = np.stack([f.luma for f in feats])
    turn_of = np.asarray(turns, np.float64)
    unique, common_row = np.unique(turn_of, return_inverse=True)
    common = along = gram = shared = None
    distinct_bar = np.full(len(ids), DISTINCT_MIN)
    id_of = np.asarray(ids)
    if len(set(ids)) >= DISTINCT_FACES_MIN:
        # what the fronts share (DISTINCT_MIN): the back, where the kind has fronts, is left out
        sharing = id_of != "" if (id_of != "").any() else np.ones(len(ids), bool)
        means = np.stack([luma[(common_row == i) & sharing].mean(axis=0) for i in range(len(unique))])
        shared = sharing.reshape(len(faces), -1)[:, 0].astype(np.float64)
        shared /= shared.sum()
        common = means / np.maximum(np.linalg.norm(means, axis=1, keepdims=True), 1e-9)
        along = np.einsum("ij,ij->i", luma, common[common_row])
        # each turn's faces' correlations with each other, for comparing a part of them (_masked_scores)
        by_turn = luma.reshape(len(faces), -1, luma.shape[1]).transpose(1, 0, 2)
        gram = by_turn @ by_turn.transpose(0, 2, 1)
        own_rows = [id_of == name for name, _ in faces]
        self_match = np.array([_self_distinct(small, kind, level, luma[own], common, along[own],
                                              common_row[own])
                               for (_, small), own in zip(faces, own_rows, strict=True)])
        share = np.clip(self_match / DISTINCT_SELF_TYPICAL, DISTINCT_FLOOR, 1.0)
        distinct_bar = DISTINCT_MIN * share[face_of]
    strength = np.asarray([f.chroma_strength for f in feats], np.float64)
    others = id_of[:, None] != id_of[None, :]
    nearest = np.where(others, luma @ luma.T, -1.0).max(axis=1)  # each row's nearest other face
    faint = ((strength >= CHROMA_MIN) & (nearest < APART_LUMA_MAX)
             & (np.asarray([f.chroma_rms for f in feats]) < FAINT_CHROMA_RMS))
    return _KindRefs(kind, size, tuple(ids), turn_of, luma, np.stack([f.chroma for f in feats]),
                     strength, faint, np.asarray(bars, np.float64),
                     starts, np.diff((*starts, len(ids))),
                     None if common is None else common.astype(np.float32), common_row, shared,
                     None if along is None else along.astype(np.float32), distinct_bar,
                     None if gram is None else gram.astype(np.float32),
                     np.stack([f.body for f in feats]), level)


def _self_score(face: np.ndarray, kind: PieceKind, level: float) -> float:
    """How well *face* matches itself seen a little off: moved by :data:`SELF_SHIFT_PX` and
    blurred by :data:`SELF_BLUR_PX` (a fit good to a pixel, a camera's blur). Fine print
    (hatching, a lattice) loses most of its score so; big shapes keep it."""
    a, b = _features(face, kind, level), _features(_seen_off(face, SELF_SHIFT_PX, SELF_BLUR_PX), kind, level)
    return float(a.luma @ b.luma)


def _self_distinct(face: np.ndarray, kind: PieceKind, level: float, luma: np.ndarray, common: np.ndarray,
                   along: np.ndarray, common_row: np.ndarray) -> float:
    """How well *face*'s distinct part (its rows *luma*, each *along* its turn's row
    *common_row* of *common*) matches itself seen off as a camera sees a piece: moved by
    :data:`DISTINCT_SELF_SHIFT_PX`, blurred by :data:`DISTINCT_SELF_BLUR_PX`."""
    off = _seen_off(face, DISTINCT_SELF_SHIFT_PX, DISTINCT_SELF_BLUR_PX)
    f = _features(off if level >= 1.0 else _soften(off, level), kind, level).luma
    return float(_distinct_match(luma @ f, along, (common @ f)[common_row]).max())


def _seen_off(face: np.ndarray, shift_px: float, blur_px: float) -> np.ndarray:
    """*face* blurred by *blur_px* and moved by *shift_px* down and right (BGR uint8)."""
    h, w = face.shape[:2]
    m = np.array([[1.0, 0.0, shift_px], [0.0, 1.0, shift_px]], np.float32)
    blurred = cv2.GaussianBlur(face, (0, 0), blur_px)
    return np.asarray(cv2.warpAffine(blurred, m, (w, h), borderMode=cv2.BORDER_REPLICATE), np.uint8)


def _soften(image: np.ndarray, level: float) -> np.ndarray:
    """*image* (at the compare size) as a camera with *level* of its resolution sees it:
    shrunk to that and grown back."""
    h, w = image.shape[:2]
    small = (max(4, round(w * level)), max(4, round(h * level)))
    return np.asarray(cv2.resize(cv2.resize(image, small, interpolation=cv2.INTER_AREA), (w, h),
                                 interpolation=cv2.INTER_LINEAR), np.uint8)


def _distinct_match(luma: np.ndarray, along: np.ndarray, seen_along: np.ndarray) -> np.ndarray:
    """Per reference row r (a unit vector, its turn's common part c): the face seen f less
    its part along c, correlated with r less its part along c, from the rows' correlations
    *luma* (r . f), *along* (r . c) and *seen_along* (f . c, at each row's turn):
    (r . f - (r . c)(f . c)) / (|r - (r . c) c| |f - (f . c) c|)."""
    apart = np.maximum(1e-6, 1.0 - along * along) * np.maximum(1e-6, 1.0 - seen_along * seen_along)
    return np.asarray((luma - along * seen_along) / np.sqrt(apart))


def _compare_size(kind: PieceKind) -> tuple[int, int]:
    w, h = kind.size_mm
    s = COMPARE_LONG_SIDE_PX / max(w, h)
    return max(8, round(w * s)), max(8, round(h * s))


def _turns(image: np.ndarray, kind: PieceKind) -> list[tuple[float, np.ndarray]]:
    """*image* at each turn (clockwise on screen, degrees) its outline allows."""
    if kind.shape == "disc":
        angles = [float(turn) for turn in range(0, 360, DISC_STEP_DEG)]
    else:
        angles = [0.0, 180.0, 90.0, 270.0] if kind.is_square else [0.0, 180.0]
    return [(turn, _turned(image, kind, turn)) for turn in angles]


def _turned(image: np.ndarray, kind: PieceKind, turn: float) -> np.ndarray:
    """*image* turned by *turn* degrees clockwise on screen: a disc's by resampling, a
    rect's (a quarter turn's multiple) by moving its pixels."""
    if kind.shape == "disc":
        h, w = image.shape[:2]
        # OpenCV's positive angle turns anticlockwise on screen
        m = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), -turn, 1.0)
        return np.asarray(cv2.warpAffine(image, m, (w, h), flags=cv2.INTER_LINEAR,
                                         borderMode=cv2.BORDER_REPLICATE), np.uint8)
    return np.ascontiguousarray(np.rot90(image, -round(turn / 90.0)))


_REGIONS: dict[tuple[str, int, int, float], np.ndarray] = {}
_THIRDS = np.full((1, 3), 1.0 / 3.0, np.float32)
_DARKNESS = np.array([DARKNESS_WEIGHTS], np.float32)


def _region(kind: PieceKind, shape: tuple[int, int], inset: float = INSET) -> np.ndarray:
    """The compared pixels (a bool mask of *shape* ``(h, w)``): all but the *inset* border;
    for a disc, the circle inside it."""
    key = (kind.shape, *shape, inset)
    region = _REGIONS.get(key)
    if region is None:
        h, w = shape
        region = np.zeros((h, w), bool)
        if kind.shape == "disc":
            yy, xx = np.mgrid[0:h, 0:w]
            r = (1 - 2 * inset) * min(w, h) / 2
            region[((xx - (w - 1) / 2) ** 2 + (yy - (h - 1) / 2) ** 2) <= r * r] = True
        else:
            my, mx = round(inset * h), round(inset * w)
            region[my:h - my, mx:w - mx] = True
        _REGIONS[key] = region
    return region


_INNER: dict[tuple[str, int, int, int, float], tuple[np.ndarray, int]] = {}


def _inner(kind: PieceKind, shape: tuple[int, int], every: int) -> tuple[np.ndarray, int]:
    """Which of the colour map's samples (the region of *shape* at every *every*-th pixel)
    lie inside :data:`SEEN_GREY_INSET`, away from the outline (1.0, else 0.0), and how many."""
    key = (kind.shape, *shape, every, SEEN_GREY_INSET)
    inner = _INNER.get(key)
    if inner is None:
        region, inset = _region(kind, shape), _region(kind, shape, SEEN_GREY_INSET)
        chosen = inset[::every, ::every][region[::every, ::every]]
        inner = _INNER[key] = (chosen.astype(np.float32), max(1, int(np.count_nonzero(chosen))))
    return inner


def _body(image: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """*image*'s mean colour over *inside* (a uint8 mask), as shares of its channels' sum:
    what the face is made of, kept by any blur (:data:`BODY_TOL`)."""
    mean = np.array(cv2.mean(image, inside)[:3])
    return mean / max(float(mean.sum()), 1.0)


def _level(detail: float) -> float:
    """The :data:`DETAIL_LEVELS` entry nearest *detail*."""
    return min(DETAIL_LEVELS, key=lambda d: abs(math.log(max(detail, 1e-3) / d)))


def _shading(dark: np.ndarray, sigma: float) -> np.ndarray:
    """*dark* blurred at *sigma* (:data:`SHADING_SIGMA_PX` at the compare size), worked out
    at a quarter of its size (the blur leaves nothing finer; 4x faster than at full size)."""
    h, w = dark.shape
    small = cv2.resize(dark, (max(1, w // 4), max(1, h // 4)), interpolation=cv2.INTER_AREA)
    blurred = cv2.GaussianBlur(small, (0, 0), sigma / 4)
    return np.asarray(cv2.resize(blurred, (w, h), interpolation=cv2.INTER_LINEAR), np.float32)


def _features(image: np.ndarray, kind: PieceKind, level: float = 1.0) -> _Features:
    """The darkness and colour maps of a flat face (at the compare size, BGR uint8), each
    made a unit vector: :class:`_Seen` at one level."""
    return _Seen(image, kind).at(level)


_Maps = tuple[np.ndarray, np.ndarray, np.ndarray, float, float, int, np.ndarray]
"""A face's maps at one scale (:meth:`_Seen._at_scale`)."""


class _Seen:
    """A flat face (at the compare size, BGR uint8) made ready for comparing at any level.

    Each channel is divided by the paper's (its :data:`PAPER_PERCENTILE`) and clipped at 1:
    the light's colour and strength divide out and glare is paper. The darkness is the
    channels' weighted mean below paper (:data:`DARKNESS_WEIGHTS`), less its shading
    (:data:`SHADING_SIGMA_PX`); the colour map is each channel's departure from their mean
    (weighted by the pixel's brightness): which
    of blue, green and red the print takes away. At :data:`SPARSE_LEVEL` or less, all of it
    is worked out at half the compare size (with the blurs halved): the same maps at every
    other pixel, for a quarter of the work. The features carry the face's mean colour too
    (:data:`BODY_TOL`), at the scale their maps were worked out at. With *keep* (a bool mask
    at the compare size: what other pieces leave of it, :func:`_unhidden`), the paper, the
    mean colour and how much colour it shows away from its outline (:data:`SEEN_GREY_MAX`)
    are those of what it keeps.
    """

    def __init__(self, image: np.ndarray, kind: PieceKind, keep: np.ndarray | None = None) -> None:
        self.image = image
        self.kind = kind
        self.keep = keep
        self._maps: dict[int, _Maps] = {}
        self._done: dict[tuple[float, int], _Features] = {}

    def _at_scale(self, shrink: int) -> _Maps:
        """(region, darkness map, colour map, the darkness's strength, its mean, the region's
        pixels, the mean colour) at 1/*shrink* of the compare size; the strength as if at the
        compare size."""
        maps = self._maps.get(shrink)
        if maps is None:
            image = self.image
            if shrink > 1:
                h, w = image.shape[:2]
                image = cv2.resize(image, (max(4, w // shrink), max(4, h // shrink)),
                                   interpolation=cv2.INTER_AREA)
            region = _region(self.kind, (image.shape[0], image.shape[1]))
            inside = region.view(np.uint8)
            img = image.astype(np.float32)
            # what is seen of it: its colour and paper (another piece over it has its own)
            own = region if self.keep is None else region & _kept_at(self.keep, region.shape)
            body = _body(image, own.view(np.uint8))
            every = 2 // shrink  # the paper from every 4th pixel at the compare size: as good
            sample = img[::every, ::every][own[::every, ::every]]
            k = round(PAPER_PERCENTILE / 100 * (len(sample) - 1))
            paper = np.partition(sample, k, axis=0)[k]  # the percentile, 8x faster than np.percentile
            # per channel by cv2 (the same float32 products and differences as numpy's, which
            # broadcasts over the three channels at 1.5-4x the time; the scaling's zeros off
            # the diagonal add nothing)
            ratio = np.asarray(cv2.transform(img, np.diag(1.0 / np.maximum(paper, 1.0))), np.float32)
            np.minimum(ratio, 1.0, out=ratio)
            ratio -= 1.0
            # the channels' mean: cv2.transform is 20x faster than numpy's mean over them
            dark = np.asarray(cv2.transform(ratio, _THIRDS), np.float32)
            # weighted by brightness: a dark pixel's colour is mostly noise and JPEG (a tile's
            # brown back with a dark disc: colour NCC 0.0 -> 0.7; 9 more synthetic pieces read,
            # the Set photos the same)
            tint = np.asarray(cv2.subtract(ratio, cv2.merge((dark, dark, dark))))
            weight = 1.0 + dark
            cv2.multiply(tint, cv2.merge((weight, weight, weight)), dst=tint)
            darkness = np.asarray(cv2.transform(ratio, _DARKNESS), np.float32)
            luma_map = np.asarray(cv2.GaussianBlur(darkness, (0, 0), LUMA_SIGMA_PX / shrink), np.float32)
            luma_map -= _shading(darkness, SHADING_SIGMA_PX / shrink)
            # the darkness's mean and spread over the region, by cv2 (5x numpy's)
            luma_mean, luma_sd = (float(v[0, 0]) for v in cv2.meanStdDev(luma_map, mask=inside))
            pixels = int(np.count_nonzero(region))
            strength = luma_sd * math.sqrt(pixels) * shrink
            maps = self._maps[shrink] = (region, luma_map, tint, strength, luma_mean, pixels, body)
        return maps

    def at(self, level: float) -> _Features:
        """The features at *level* (of :data:`DETAIL_LEVELS`): the colour map is blurred more
        at a lower one."""
        shrink = 2 if level <= SPARSE_LEVEL else 1
        # blurred over 2 px or more, the colour map loses nothing sampled at every other pixel
        sigma = CHROMA_SIGMA_PX / max(level, CHROMA_LEVEL_MIN) / shrink
        done = self._done.get((sigma, shrink))
        if done is None:
            region, luma_map, tint, ln, luma_mean, pixels, body = self._at_scale(shrink)
            luma = luma_map[region]
            luma -= luma_mean
            every = 2 // shrink
            chroma = np.asarray(cv2.GaussianBlur(tint, (0, 0), sigma), np.float32)[::every, ::every]
            chroma = chroma[region[::every, ::every]]
            chroma -= chroma.mean(axis=0)
            chroma = chroma.ravel()
            cn = math.sqrt(float(chroma @ chroma))
            full = pixels * shrink * shrink
            if ln < 0.005 * math.sqrt(full):  # under 0.5 % of paper per pixel: a blank face
                done = _Features(np.zeros_like(luma), np.zeros_like(chroma), 0.0, 0.0, 0.0, body)
            else:
                luma *= shrink / ln  # ln is |luma| as if at the compare size
                rms = cn / math.sqrt(max(1, chroma.size // 3))
                # the samples inside's spread about their own mean, without copying them out
                inner, samples = _inner(self.kind, region.shape, every)
                if self.keep is not None:  # of what it keeps: the other piece has its own colour
                    kept = _kept_at(self.keep, region.shape)[::every, ::every]
                    inner = inner * kept[region[::every, ::every]]
                    samples = max(1, int(np.count_nonzero(inner)))
                per_pixel = chroma.reshape(-1, 3)
                mean = inner @ per_pixel / samples
                squares = float(np.einsum("i,ij,ij->", inner, per_pixel, per_pixel))
                spread = squares / samples - float(mean @ mean)
                inner_rms = math.sqrt(max(spread, 0.0))
                done = _Features(luma, chroma / cn if cn > 0 else chroma,
                                 cn / ln, rms, cn / ln * inner_rms / max(rms, 1e-12), body)
            self._done[sigma, shrink] = done
        return done


# -- deciding --------------------------------------------------------------------------------------


class _Scored(NamedTuple):
    """A face's best score for a candidate, and where it was reached."""

    score: float
    turn_deg: float
    kind: PieceKind
    frame: np.ndarray  # the fit it was reached on
    bar: float
    distinct: float  # its distinct part's correlation: 1.0 where the kind's faces are too few
    distinct_bar: float  # what that must reach
    body: np.ndarray  # the face's mean colour (_Seen.body)...
    seen_body: np.ndarray  # ...and the face seen's, on that fit


_Best = dict[tuple[str, str], _Scored]
"""(kind, identity) -> its best score for a candidate."""
_Fit = tuple[PieceKind, np.ndarray]
"""A kind and its frame (the unit square to the plane) on a candidate."""
_Scoring = tuple[_Best, tuple[float, float], tuple[tuple[float, float], ...]]
"""A candidate's faces as scored, with its centre and outline to report if it stays unknown."""


@dataclass(frozen=True)
class _Verdict:
    kind: PieceKind
    frame: np.ndarray
    identity: str
    turn_deg: float
    score: float
    margin: float
    bar: float = MIN_SCORE
    distinct: float = 1.0
    distinct_bar: float = DISTINCT_MIN
    body_gap: float = 0.0  # how much nearer another face's mean colour is, a share of the tolerance

    @property
    def is_accepted(self) -> bool:
        return (self.score >= self.bar and self.margin >= MIN_MARGIN and self.distinct >= self.distinct_bar
                and self.body_gap <= 1.0)

    @property
    def label(self) -> str:
        return f"{self.kind.name}/{self.identity or 'back'}"

    def piece(self, plane: _Plane) -> FoundPiece:
        (cx, cy), (ex, ey) = frame_points(self.frame, _CENTRE_AND_EAST)
        angle = (math.degrees(math.atan2(ey - cy, ex - cx)) + self.turn_deg) % 360.0
        confidence = (min(1.0, self.margin / CONFIDENT_MARGIN)
                      * min(1.0, (self.score - MIN_SCORE) / (SURE_SCORE - MIN_SCORE)))
        outline = plane.to_image(_unit_outline(self.kind, self.frame))
        return FoundPiece(self.kind.name, "down" if self.identity == "" else "up", self.identity or None,
                          plane.report((cx, cy)), plane.reports_mm, angle, max(0.0, confidence),
                          self.score, self.margin, _points(outline))


_UNIT_CORNERS = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
_NEXT_CORNER = np.array([1, 2, 3, 0])
"""Each corner's next, round the square (an index array: np.roll, or a list as the index, costs
20 us a call)."""
_CENTRE_AND_EAST = np.array([[0.5, 0.5], [0.75, 0.5]])


def _unit_disc(points: int) -> np.ndarray:
    """*points* points round the disc in the unit square, evenly spaced (N x 2)."""
    t = np.linspace(0.0, 2 * math.pi, points, endpoint=False)
    return np.column_stack([0.5 + 0.5 * np.cos(t), 0.5 + 0.5 * np.sin(t)])


_UNIT_OUTLINES = {"disc": _unit_disc(DISC_OUTLINE_POINTS), "rect": _UNIT_CORNERS}
"""Each shape's outline in the unit square (:func:`_unit_outline`)."""


def _unit_outline(kind: PieceKind, frame: np.ndarray) -> np.ndarray:
    """A piece's outline in the plane: a rect's corners, a disc's :data:`DISC_OUTLINE_POINTS`
    (in the unit square worked out once: the sines took 18 of a coin's 20 us)."""
    return frame_points(frame, _UNIT_OUTLINES[kind.shape])


def _identify(work: np.ndarray, fits: list[_Fit], refs: _References,
              plane: _Plane, hidden: Sequence[np.ndarray] = ()) -> _Best:
    """Every face's best score over every kind the candidate fits (:func:`_verdict` decides);
    unless that is sure, compared again without what the outlines *hidden* (in the plane: a
    heap's other pieces) cover. A face that beats the others clearly but scores under its
    bar is looked at again where it lies best aligned (:data:`REALIGN_MARGIN`), a rect at its
    kind's own size too, turned a little (:data:`REALIGN_TURNS_DEG`); a disc left unread,
    moved a little round its fit (:data:`DISC_NUDGE_MM`)."""
    best = _aligned(work, fits, refs, plane, hidden)
    verdict = _verdict(best)
    if (len(fits) != 1 or fits[0][0].shape != "disc" or verdict is None or verdict.is_accepted
            or verdict.score < verdict.bar - DISC_NUDGE_UNDER):
        return best
    kind, frame = fits[0]
    top = verdict.score
    step = DISC_NUDGE_MM / kind.size_mm[0]  # in the unit square
    for du, dv in ((-step, -step), (0.0, -step), (step, -step), (-step, 0.0),
                   (step, 0.0), (-step, step), (0.0, step), (step, step)):
        again = _compare(work, [(kind, _moved(frame, du, dv))], refs, plane, hidden)
        redone = _verdict(again)
        if redone is not None and redone.score > top:
            top, best = redone.score, again
    return best


def _aligned(work: np.ndarray, fits: list[_Fit], refs: _References,
             plane: _Plane, hidden: Sequence[np.ndarray]) -> _Best:
    """:func:`_identify`'s scores, but for a disc's nudge."""
    best = _compare(work, fits, refs, plane, ())
    verdict = _verdict(best)
    if hidden and not _is_sure(verdict):
        best = _compare(work, fits, refs, plane, hidden)
        verdict = _verdict(best)
    elif hidden and verdict is not None:
        _seen_body_unhidden(best, verdict, work, refs, plane, hidden)
    if verdict is None or verdict.score >= verdict.bar or verdict.margin < REALIGN_MARGIN:
        return best
    kind = verdict.kind
    size = refs.by_kind[kind.name].size_px
    face = next(img for identity, img in refs.faces[kind.name] if identity == verdict.identity)
    turned = _turned(face, kind, verdict.turn_deg)
    reference = np.asarray(cv2.cvtColor(turned, cv2.COLOR_BGR2GRAY), np.float32)
    window = cv2.createHanningWindow((size[0], size[1]), cv2.CV_32F)
    frames = [verdict.frame]
    if plane.in_mm and kind.shape == "rect":
        frames += _own_size_turned(kind, verdict.frame)
    for frame in frames:
        grey = np.asarray(cv2.cvtColor(plane.flat(work, frame, size), cv2.COLOR_BGR2GRAY), np.float32)
        (dx, dy), _ = cv2.phaseCorrelate(reference, grey, window)
        du, dv = dx / size[0], dy / size[1]  # in the face's unit square
        if math.hypot(du * kind.size_mm[0], dv * kind.size_mm[1]) > REALIGN_MAX_MM:
            continue
        again = _compare(work, [(kind, _moved(frame, du, dv))], refs, plane, hidden)
        redone = _verdict(again)
        if redone is not None and redone.score > verdict.score:
            best, verdict = again, redone
    return best


def _moved(frame: np.ndarray, du: float, dv: float) -> np.ndarray:
    """*frame* moved by *du*, *dv* of its own unit square."""
    return np.asarray(frame @ np.array([[1.0, 0.0, du], [0.0, 1.0, dv], [0.0, 0.0, 1.0]]), np.float64)


def _own_size_turned(kind: PieceKind, frame: np.ndarray) -> list[np.ndarray]:
    """Frames of the rect *kind* at its own size (mm), centred where *frame* is and turned
    from it by each of :data:`REALIGN_TURNS_DEG`."""
    return [np.asarray(cv2.getPerspectiveTransform(_UNIT_CORNERS.astype(np.float32), quad.astype(np.float32)),
                       np.float64) for quad in _own_size_quads(kind, frame, 0.0, REALIGN_TURNS_DEG)]


def _own_size_quads(kind: PieceKind, frame: np.ndarray, grow_mm: float,
                    turns: Sequence[float]) -> list[np.ndarray]:
    """The corners (in the plane, mm) of the rect *kind*'s piece at its own size grown by
    *grow_mm* each way, centred where *frame* is, along its top edge turned by each of *turns*
    (degrees)."""
    centre, east, south = frame_points(frame, np.array([[0.5, 0.5], [1.0, 0.5], [0.5, 1.0]]))
    along = (east - centre) / np.linalg.norm(east - centre)
    # which side of the top edge the frame's y runs to (a frame may be mirrored)
    side = 1.0 if along[0] * (south - centre)[1] - along[1] * (south - centre)[0] >= 0 else -1.0
    w, h = kind.size_mm[0] + 2 * grow_mm, kind.size_mm[1] + 2 * grow_mm
    corners = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    out = []
    for turn in turns:
        c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
        x = np.array([c * along[0] - s * along[1], s * along[0] + c * along[1]])
        out.append(np.asarray(centre + corners @ np.stack([x, side * np.array([-x[1], x[0]])])))
    return out


def _seen_body_unhidden(best: _Best, verdict: _Verdict, work: np.ndarray, refs: _References,
                        plane: _Plane, hidden: Sequence[np.ndarray]) -> None:
    """In *best*, the mean colour seen on *verdict*'s fit from what the outlines *hidden* leave
    of it (:func:`_unhidden`), as a heap's piece compared without them has it (:class:`_Seen`):
    a piece read surely as a whole is not compared so, but the piece over or under a part of
    it adds its colour to the mean (:data:`HIDDEN_GROW_MM`)."""
    size = refs.by_kind[verdict.kind.name].size_px
    keep = _unhidden(verdict.kind, verdict.frame, size, hidden)
    if keep is None:
        return
    flat = plane.flat(work, verdict.frame, size)
    body = _body(flat, (_region(verdict.kind, keep.shape) & keep).view(np.uint8))
    for key, scored in best.items():
        if scored.frame is verdict.frame:
            best[key] = scored._replace(seen_body=body)


def _compare(work: np.ndarray, fits: list[_Fit], refs: _References,
             plane: _Plane, hidden: Sequence[np.ndarray]) -> _Best:
    """:func:`_identify`'s scores, on the fits as given."""
    best: _Best = {}
    for kind, frame in fits:
        size = refs.by_kind[kind.name].size_px
        corners = frame_points(frame, _UNIT_CORNERS)
        sides = np.linalg.norm(corners[_NEXT_CORNER] - corners, axis=1) * plane.work_per_unit
        detail = min((sides[0] + sides[2]) / (2 * size[0]), (sides[1] + sides[3]) / (2 * size[1]))
        keep = _unhidden(kind, frame, size, hidden)
        seen = _Seen(plane.flat(work, frame, size), kind, keep)
        for level in dict.fromkeys(_level(detail * softer) for softer in SOFTER):
            f, r = seen.at(level), refs.at(kind.name, level)
            _score_all(f, r, frame, best, None if keep is None else _hidden_columns(keep, r))
            if len(fits) == 1 and _is_sure(_verdict(best)):
                break  # the nearest level's answer is sure: a softer one cannot overturn it
        else:  # not sure: the faces of fine print are looked at softer still
            level = _level(detail * FINE_PRINT_SOFTER)
            r = refs.at(kind.name, level)
            if (r.bar < MIN_SCORE).any():
                softer: _Best = {}
                _score_all(seen.at(level), r, frame, softer,
                           None if keep is None else _hidden_columns(keep, r))
                for key, scored in softer.items():
                    if scored.bar < MIN_SCORE and (key not in best or best[key].score < scored.score):
                        best[key] = scored
    return best


def _unhidden(kind: PieceKind, frame: np.ndarray, size: tuple[int, int],
              hidden: Sequence[np.ndarray]) -> np.ndarray | None:
    """Where the outlines *hidden* (in the plane), grown by :data:`HIDDEN_GROW_MM`, leave
    the piece of *frame* seen: a bool mask at the compare *size*; None where they miss it
    or leave too little of it to compare (:data:`HIDDEN_SHARE_MAX`)."""
    if not hidden:
        return None
    w, h = size
    to_unit = np.linalg.inv(frame)
    cover = np.zeros((h, w), np.uint8)
    for outline in hidden:  # plane -> the piece's unit square -> compare pixels, to 1/16 px
        px = frame_points(to_unit, outline) * (w, h) - 0.5
        cv2.fillPoly(cover, [np.round(px * 16).astype(np.int32)], 1, cv2.LINE_8, shift=4)
    if not cover.any():
        return None
    grow = round(HIDDEN_GROW_MM * w / kind.size_mm[0])
    if grow > 0:
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1))
        cv2.dilate(cover, disc, dst=cover)
    region = _region(kind, (h, w))
    if np.count_nonzero(cover.view(bool) & region) > HIDDEN_SHARE_MAX * np.count_nonzero(region):
        return None
    return np.asarray(cover == 0)


def _hidden_columns(keep: np.ndarray, r: _KindRefs) -> tuple[np.ndarray, np.ndarray]:
    """The darkness map's and the colour map's pixels (their places in *r*'s features) that
    *keep* (a bool mask at the compare size) hides."""
    if r.level <= SPARSE_LEVEL:  # worked out at half the compare size (_Seen.at)
        h, w = keep.shape
        small = _kept_at(keep, (max(4, h // 2), max(4, w // 2)))
        luma_keep = chroma_keep = small[_region(r.kind, small.shape)]
    else:  # the colour map sampled at every other pixel
        region = _region(r.kind, keep.shape)
        luma_keep, chroma_keep = keep[region], keep[::2, ::2][region[::2, ::2]]
    return np.flatnonzero(~luma_keep), np.flatnonzero(~chroma_keep)


def _kept_at(keep: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """*keep* (a bool mask at the compare size) at *shape* ``(h, w)``: where all it covers is kept."""
    if keep.shape == shape:
        return keep
    return np.asarray(cv2.resize(keep.astype(np.float32), (shape[1], shape[0]),
                                 interpolation=cv2.INTER_AREA) > 0.999)


class _Part(NamedTuple):
    """Unit vectors (rows, or one), each centred, restricted to the pixels a mask keeps and
    made unit again: what their correlations need (:func:`_restricted`)."""

    mean: np.ndarray  # per row: the kept pixels' mean (per channel: rows x channels)
    norm: np.ndarray  # per row: the kept pixels' length, centred
    kept: int  # how many pixels are kept


def _restricted(rows: np.ndarray, hidden: np.ndarray, channels: int) -> tuple[_Part, np.ndarray]:
    """*rows* (unit vectors, each channel centred; interleaved per pixel) as :class:`_Part`
    with the pixels *hidden* left out, and their hidden values (rows x hidden x channels).
    Worked out from the hidden pixels alone: the whole rows sum to 0 and have length 1."""
    pixels = rows.shape[-1] // channels
    cut = rows.reshape(*rows.shape[:-1], pixels, channels)[..., hidden, :]
    kept = pixels - len(hidden)
    mean = -cut.sum(axis=-2) / kept
    whole = np.einsum("...i,...i->...", rows, rows) if rows.ndim == 1 else 1.0
    length = whole - np.einsum("...ij,...ij->...", cut, cut) - kept * np.einsum("...j,...j->...", mean, mean)
    return _Part(mean, np.sqrt(np.maximum(length, 1e-12)), kept), cut


_Compared = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]
"""Per reference row: the darkness and colour correlations, the distinct part's, the colour's
strength; and the face seen's colour strength (:func:`_masked_scores`)."""


def _masked_scores(f: _Features, r: _KindRefs, hidden: tuple[np.ndarray, np.ndarray]) -> _Compared:
    """*f* against each row of *r* as :func:`_score_all` compares them, on the pixels the
    hidden ones (:func:`_hidden_columns`) leave: per row the darkness and colour
    correlations, the distinct part's, and the colour's strength; and the face seen's."""
    luma_hidden, chroma_hidden = hidden
    seen_l, seen_l_cut = _restricted(f.luma, luma_hidden, 1)
    refs_l, refs_l_cut = _restricted(r.luma, luma_hidden, 1)
    luma = ((r.luma @ f.luma - refs_l_cut.reshape(len(r.luma), -1) @ seen_l_cut.ravel()
             - refs_l.kept * (refs_l.mean @ seen_l.mean)) / (refs_l.norm * seen_l.norm))
    seen_c, seen_c_cut = _restricted(f.chroma, chroma_hidden, 3)
    refs_c, refs_c_cut = _restricted(r.chroma, chroma_hidden, 3)
    colour = ((r.chroma @ f.chroma - refs_c_cut.reshape(len(r.chroma), -1) @ seen_c_cut.ravel()
               - refs_c.kept * (refs_c.mean @ seen_c.mean)) / (refs_c.norm * seen_c.norm))
    strength = r.chroma_strength * refs_c.norm / refs_l.norm
    seen_strength = f.inner_strength * float(seen_c.norm) / float(seen_l.norm)
    if r.gram is None or r.shared is None:
        return luma, colour, np.ones_like(luma), strength, seen_strength
    # the distinct part, as _distinct_match, with each turn's common part worked out again
    # over the kept pixels: from the faces' correlations there (gram, less the hidden part)
    turns, faces = r.gram.shape[:2]
    cut = refs_l_cut.reshape(faces, turns, -1).transpose(1, 0, 2)
    mean, norm = (x.reshape(faces, turns).T for x in (refs_l.mean.ravel(), refs_l.norm))
    gram = ((r.gram - cut @ cut.transpose(0, 2, 1) - refs_l.kept * mean[:, :, None] * mean[:, None, :])
            / (norm[:, :, None] * norm[:, None, :]))
    w = r.shared  # each face's weight in the mean
    mean_length = np.sqrt(np.maximum(np.einsum("tij,i,j->t", gram, w, w), 1e-12))  # each turn's mean row's
    along = (gram @ w) / mean_length[:, None]  # each row along its turn's common part
    by_turn = luma.reshape(faces, turns).T
    seen_along = (by_turn @ w) / mean_length
    distinct = _distinct_match(by_turn, along, seen_along[:, None])
    return luma, colour, distinct.T.ravel(), strength, seen_strength


def _is_sure(verdict: _Verdict | None) -> bool:
    """Whether *verdict* is accepted, beating the runner-up by :data:`CONFIDENT_MARGIN` or more
    (200 synthetic scenes: the softer level then changed no answer; requiring
    :data:`SURE_SCORE` too read the same, 3 % slower)."""
    return (verdict is not None and verdict.is_accepted
            and verdict.margin >= CONFIDENT_MARGIN)


def _score_all(f: _Features, r: _KindRefs, frame: np.ndarray, best: _Best,
               hidden: tuple[np.ndarray, np.ndarray] | None = None) -> None:
    """Scores *f* against every reference row of *r* (without the pixels *hidden*:
    :func:`_hidden_columns`); keeps each identity's best in *best*."""
    if hidden is not None:
        luma, colour, distinct, strength, seen_strength = _masked_scores(f, r, hidden)
    else:
        # BLAS on one thread (see read): 0.05 ms for a coin's 252 rows, against 0.1 ms for einsum
        luma = r.luma @ f.luma
        colour = r.chroma @ f.chroma
        strength, seen_strength = r.chroma_strength, f.inner_strength
        if r.along is not None and r.common is not None:
            distinct = _distinct_match(luma, r.along, (r.common @ f.luma)[r.common_row])
        else:
            distinct = np.ones_like(luma)
    grey = (strength < CHROMA_MIN) & (seen_strength < SEEN_GREY_MAX)
    grey |= r.faint  # colour too faint for a camera to keep: the darkness map alone
    weight = COLOUR_WEIGHT if r.level > SPARSE_LEVEL else SPARSE_COLOUR_WEIGHT
    scores = luma - np.where(grey, 0.0, weight * np.maximum(0.0, COLOUR_GATE - colour))
    # each identity's rows are consecutive: every identity's best score by one reduction,
    # and its best row only where that beats what another level or fit gave it
    tops = np.maximum.reduceat(scores, r.starts)
    # each identity's first row reaching its best: the rows at their run's best, the first
    # of them at or after each run's start
    at_top = np.flatnonzero(scores >= np.repeat(tops, r.run_lengths))
    rows = at_top[np.searchsorted(at_top, r.starts)]
    bars = r.bar[rows]
    if hidden is not None:  # a part correlates by chance more than the whole (HIDDEN_BAR)
        bars = bars + HIDDEN_BAR * len(hidden[0]) / max(1, f.luma.size)
    for start, i, top, turn, bar, apart, apart_bar in zip(
            r.starts, rows.tolist(), tops.tolist(), r.turns_deg[rows].tolist(), bars.tolist(),
            distinct[rows].tolist(), r.distinct_bar[rows].tolist(), strict=True):
        key = (r.kind.name, r.identities[start])
        if key not in best or best[key].score < top:
            best[key] = _Scored(top, turn, r.kind, frame, bar, apart, apart_bar, r.body[i], f.body)


def _verdict(best: _Best) -> _Verdict | None:
    """The best face in *best* and how it stands (its mean colour not yet compared:
    :func:`_with_cast`)."""
    if not best:
        return None
    # the first best and the runner-up in one pass (a frame asks ~140 times)
    identity, top, runner_up = "", None, -math.inf
    for (_, face), scored in best.items():
        if top is None or scored.score > top.score:
            if top is not None:
                runner_up = top.score
            identity, top = face, scored
        elif scored.score > runner_up:
            runner_up = scored.score
    assert top is not None
    if len(best) == 1:  # a single face in the library has no runner-up: the bar is MIN_SCORE itself
        runner_up = MIN_SCORE
    return _Verdict(top.kind, top.frame, identity, top.turn_deg, top.score, top.score - runner_up, top.bar,
                    top.distinct, top.distinct_bar)


def _with_cast(verdict: _Verdict, best: _Best, cast: tuple[np.ndarray, float]) -> _Verdict:
    """*verdict* (on *best*) with how much nearer another face's mean colour is to the face
    seen's, a share of the tolerance, the frame's colour *cast* (:func:`_cast`) undone; past
    the tolerance, as :func:`_of_its_colour` decides."""
    tint, tolerance = cast
    scored = list(best.values())
    seen = np.array([s.seen_body for s in scored]) * tint
    body = np.array([s.body for s in scored])
    apart = np.linalg.norm(seen / seen.sum(axis=1, keepdims=True) - body, axis=1)
    gaps = (apart - apart.min()) / tolerance
    at = list(best).index((verdict.kind.name, verdict.identity))
    verdict = dataclasses.replace(verdict, body_gap=float(gaps[at]))
    return verdict if verdict.body_gap <= 1.0 else _of_its_colour(verdict, best, gaps)


def _of_its_colour(verdict: _Verdict, best: _Best, gaps: np.ndarray) -> _Verdict:
    """Where *verdict*'s face (on *best*) is made of another colour than the face seen
    (:data:`BODY_TOL`; each face's *gaps*, :func:`_with_cast`) but beats it by less than
    :data:`CONFIDENT_MARGIN`: the best face that is made of the seen one's, with its margin
    over the faces scoring under it (those over it are of another colour). It is read where
    it clears its bars so. A print matched clearly better by a face of another colour is that
    face's, in a colour the library lacks: *verdict* stands, unknown."""
    (_, identity), top, gap = max(((key, s, float(g)) for (key, s), g in zip(best.items(), gaps, strict=True)
                                   if g <= 1.0), key=lambda entry: entry[1].score)
    if verdict.score - top.score >= CONFIDENT_MARGIN:
        return verdict
    runner_up = max((s.score for s in best.values() if s is not top and s.score <= top.score),
                    default=MIN_SCORE)
    return _Verdict(top.kind, top.frame, identity, top.turn_deg, top.score, top.score - runner_up, top.bar,
                    top.distinct, top.distinct_bar, gap)


def _cast(read: list[tuple[_Best, _Verdict | None]]) -> tuple[np.ndarray, float] | None:
    """How the frame's light and camera tint the library's colours, and how far to trust
    mean colours (:data:`BODY_SPREAD`): the tint per channel is the median, over the pieces
    *read* surely (each candidate's scores and verdict; :func:`_is_sure`, scoring
    :data:`SURE_SCORE`), of their face's mean colour over the seen one's. None when no
    piece is read surely: mean colours are then not compared."""
    pairs = []
    for best, verdict in read:
        if verdict is not None and _is_sure(verdict) and verdict.score >= SURE_SCORE:
            scored = best[verdict.kind.name, verdict.identity]
            pairs.append((scored.body, scored.seen_body))
    if not pairs:
        return None
    body, seen = (np.stack(x) for x in zip(*pairs, strict=True))
    cast = np.median(body / np.maximum(seen, 1e-6), axis=0)
    fitted = seen * cast
    off = np.linalg.norm(fitted / fitted.sum(axis=1, keepdims=True) - body, axis=1)
    return cast, max(BODY_TOL, BODY_SPREAD * float(np.median(off)))


def _read_whole(work: np.ndarray, refs: _References, plane: _Plane) -> FoundPiece | None:
    """The whole frame as one piece (a crop of one card), if its shape fits a rect kind
    (and, with *px_per_mm*, its size) and it is identified; None otherwise."""
    h, w = work.shape[:2]
    best: _Best = {}
    for kind in refs.kinds:
        if kind.shape != "rect" or abs(math.log(min(w, h) / max(w, h) / kind.aspect)) > ASPECT_TOLERANCE:
            continue
        if plane.px_per_mm is not None:
            long_mm = max(w, h) / plane.work_scale / plane.px_per_mm
            if abs(long_mm / max(kind.size_mm) - 1) > SIZE_TOLERANCE:
                continue
        frame = whole_image_frame(w, h, kind)
        r = refs.by_kind[kind.name]
        _score_all(_features(warp(work, frame, r.size_px), kind), r, frame, best)
    verdict = _verdict(best)
    if verdict is None or not verdict.is_accepted:
        return None
    # the frame was fitted in working pixels; the piece is reported in the plane's terms
    m = plane.work_matrix
    assert m is not None  # no calibration here
    return dataclasses.replace(verdict, frame=np.linalg.inv(m) @ verdict.frame).piece(plane)
