"""Synthetic overhead-camera scenes of the Volatio table, with exact ground truth.

The world frame is the table's, in millimetres: x right, y down, z *into* the table (a point
``h`` mm above the table has ``z = -h``). A :class:`CameraModel` is a pinhole camera with
OpenCV's five-term lens distortion; a scene is built from flat layers (the printed board
with its table markers, then each piece's top face at its height), each a top-down texture
warped exactly into a supersampled *undistorted* canvas by its plane's homography, then
bent through the lens distortion and area-averaged down to the sensor's pixels.

Conventions that everything here relies on:

* image coordinates are OpenCV's: pixel ``(row i, col j)`` has its centre at ``(x=j, y=i)``;
* texture pixel ``(i, j)`` of a layer covers the table square whose centre is
  ``origin_mm + (j + 0.5, i + 0.5) * mm_per_px`` (its top-left corner is ``origin_mm``);
* region edges (the track, the printed line, markers, piece outlines) are rasterised with
  exact fractional coverage (signed distance to the polygon within 1.5 px of its edge), so
  an edge's 50 % point is where the geometry says it is, to well under a tenth of a pixel;
* the canvas is rendered at :data:`SUPERSAMPLE` times the sensor's resolution, lens
  distortion is applied *at that resolution* (a remap through the inverse distortion map),
  and only then is it box-filtered down with ``INTER_AREA``: each sensor pixel averages
  the light that falls on its own square in the distorted image. Downsampling before the
  remap would instead average undistorted squares and then interpolate bilinearly, which
  blurs by up to another half pixel and misplaces the footprint near the corners.

Nothing here is tuned to be easy for a detector: translucent templates, side walls seen in
perspective, soft shadows, distractors touching the edge line, lighting, noise, blur and
JPEG are all in. Only this package may import cv2.

The modules:

- :mod:`~tests.support.synth.camera`: :class:`CameraModel` and :func:`random_camera`;
- :mod:`~tests.support.synth.raster`: homographies on points and geometry, regions drawn
  exact-edged or antialiased;
- :mod:`~tests.support.synth.markers`: marker cells, stickers and ink, :func:`table_area`;
- :mod:`~tests.support.synth.canvas`: the supersampled canvas, its layers and the lens distortion;
- :mod:`~tests.support.synth.effects`: :class:`Effects`, what the camera and room do to the picture;
- :mod:`~tests.support.synth.track`: :func:`random_track`, the drivable region;
- :mod:`~tests.support.synth.pieces`: :class:`PlacedPiece` and :func:`random_pieces`;
- :mod:`~tests.support.synth.board`: the printed mat's texture, distractors and shadows;
- :mod:`~tests.support.synth.scene`: :class:`Scene`, :func:`random_scene` and
  :func:`render_texture_on_table`.
"""

from tests.support.synth.board import BOARD_PX_PER_MM
from tests.support.synth.camera import CameraModel, random_camera
from tests.support.synth.canvas import SUPERSAMPLE
from tests.support.synth.effects import Effects
from tests.support.synth.markers import QUIET_CELLS, table_area
from tests.support.synth.pieces import PIECE_KEEP_OUT_MM, PlacedPiece, random_pieces
from tests.support.synth.scene import TRACK_KEEP_OUT_MM, Scene, random_scene, render_texture_on_table
from tests.support.synth.track import HALF_WIDTH_MM, LINE_WIDTH_MM, random_track

__all__ = [
    "BOARD_PX_PER_MM",
    "HALF_WIDTH_MM",
    "LINE_WIDTH_MM",
    "PIECE_KEEP_OUT_MM",
    "QUIET_CELLS",
    "SUPERSAMPLE",
    "TRACK_KEEP_OUT_MM",
    "CameraModel",
    "Effects",
    "PlacedPiece",
    "Scene",
    "random_camera",
    "random_pieces",
    "random_scene",
    "random_track",
    "render_texture_on_table",
    "table_area",
]
