"""Synthetic table scenes of game pieces, with exact truth, for :mod:`vision.reading`: the names
the tests and ``benchmarks/piece_reading.py`` use, from the modules that hold them.

* :mod:`tests.support.piece_kinds`: the three kinds of drawn pieces (coins, chamber tiles,
  cards; :func:`piece_art`, deterministic per *art seed*), a clean flat "photo" of a face
  (:func:`face_photo`) and a library of them all (:func:`make_library`).
* :mod:`tests.support.piece_scene`: :func:`random_piece_scene`, 8-20 of those pieces laid on a
  cloth with the layout's table markers and distractors that are no piece, photographed
  through a random camera with random effects, with the empty table and the truth.
* :mod:`tests.support.piece_scoring`: :func:`score_reading`, a reading against that truth.
* :mod:`tests.support.piece_table` (the cloth, the table texture, the markers, the
  distractors' art) and :mod:`tests.support.piece_drawing` (drawing in mm) serve them.
"""

from __future__ import annotations

from tests.support.piece_drawing import DRAW_PX_PER_MM, TEXTURE_PX_PER_MM, Bgr
from tests.support.piece_kinds import (
    CARD_MM,
    CARDS,
    CHAMBERS,
    COIN_MM,
    TILE_MM,
    KindArt,
    face_photo,
    make_library,
    piece_art,
)
from tests.support.piece_scene import (
    DOWN_CHANCE,
    EDGE_MM,
    GAP_MM,
    KIND_WEIGHTS,
    OVERLAP_CHANCE,
    OVERLAP_RANGE,
    DistractorTruth,
    PieceScene,
    PieceTruth,
    random_piece_scene,
)
from tests.support.piece_scoring import PieceOutcome, ReadingScore, score_reading
from tests.support.piece_table import QUIET_CELLS

__all__ = [
    "CARDS",
    "CARD_MM",
    "CHAMBERS",
    "COIN_MM",
    "DOWN_CHANCE",
    "DRAW_PX_PER_MM",
    "EDGE_MM",
    "GAP_MM",
    "KIND_WEIGHTS",
    "OVERLAP_CHANCE",
    "OVERLAP_RANGE",
    "QUIET_CELLS",
    "TEXTURE_PX_PER_MM",
    "TILE_MM",
    "Bgr",
    "DistractorTruth",
    "KindArt",
    "PieceOutcome",
    "PieceScene",
    "PieceTruth",
    "ReadingScore",
    "face_photo",
    "make_library",
    "piece_art",
    "random_piece_scene",
    "score_reading",
]
