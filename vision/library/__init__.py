"""The piece library: what each kind of game piece looks like, face by face, as a folder.

A library is a folder a host can copy. ``library.json`` at its root lists the kinds::

    {"kinds": {"set-card": {"shape": "rect", "size_mm": [57, 88],
                            "back": null,
                            "fronts": {"1-red-solid-oval": ["fronts/set-card/1-red-solid-oval-1.png",
                                                            "fronts/set-card/1-red-solid-oval-2.png"]}}}}

Each image is a PNG of one face, *normalised*: the piece warped flat and upright at
:data:`PX_PER_MM` (fewer for a piece so large it would pass :data:`MAX_SIDE_PX`), cropped to
the piece. A rect piece is stored as its size says (``[57, 88]`` is portrait); a disc as the
square around it. A front may have several reference images (several photos, cameras,
lights): the reader compares with each. Paths are relative to the library's folder, and a
single path where a list is expected is read as a list of one.

The modules:

- :mod:`~vision.library.kind`: :class:`PieceKind`, the stored scale and the names allowed;
- :mod:`~vision.library.store`: :class:`Library`, opening, reading and registering;
- :mod:`~vision.library.files`: ``library.json`` checked and written, the images read;
- :mod:`~vision.library.registration`: finding the piece in a registration photo or scan
  (:func:`find_piece`) and flattening it (:func:`normalise`);
- :mod:`~vision.library.frames`: fitting a piece's frame to its outline (:func:`fit_rect`,
  :func:`fit_disc`) and flattening it through that frame (:func:`warp`);
- :mod:`~vision.library.segmentation`: pieces against the surface they lie on
  (:func:`segment`), for the registration square (:mod:`vision.register_square`).
"""

from vision.library.files import LIBRARY_FILE
from vision.library.frames import (
    disc_frame,
    fit_disc,
    fit_rect,
    frame_from_quad,
    frame_point,
    frame_points,
    warp,
)
from vision.library.kind import MAX_SIDE_PX, NAME, PX_PER_MM, SHAPES, PieceKind
from vision.library.registration import find_piece, normalise, whole_image_frame
from vision.library.segmentation import segment
from vision.library.store import Library

__all__ = [
    "LIBRARY_FILE",
    "MAX_SIDE_PX",
    "NAME",
    "PX_PER_MM",
    "SHAPES",
    "Library",
    "PieceKind",
    "disc_frame",
    "find_piece",
    "fit_disc",
    "fit_rect",
    "frame_from_quad",
    "frame_point",
    "frame_points",
    "normalise",
    "segment",
    "warp",
    "whole_image_frame",
]
