"""Tests for a Raspberry Pi set up by ./scripts/run: the system's picamera2 and lgpio in the venv.

Skipped unless COMPANION_RIG names the rig (``COMPANION_RIG=pi ./scripts/test tests/hardware``).
They need no camera or wiring: they check that what ./scripts/run installed loads in the venv
(picamera2 and its compiled helpers with the venv's numpy, and the real lgpio), and, when a
camera is attached, that it gives a frame.
"""

from __future__ import annotations

import importlib
import os
import sys

import numpy as np
import pytest

from vision.picamera import import_picamera2, numpy_versions, picamera2_problem

pytestmark = [
    pytest.mark.hardware,
    pytest.mark.skipif(not os.environ.get("COMPANION_RIG"), reason="set COMPANION_RIG to run on a rig"),
]


def test_rig_picamera2_loads_with_the_venvs_numpy() -> None:
    mine, system = numpy_versions()
    problem = picamera2_problem()
    assert problem is None, f"{problem} (numpy {mine} here, {system or 'no other'} on sys.path)"
    assert np.__file__.startswith(sys.prefix), f"numpy {np.__file__} is not the venv's ({sys.prefix})"


def test_rig_simplejpeg_encodes_with_the_venvs_numpy() -> None:
    # A compiled module built for another numpy can import and still fail on its first array.
    simplejpeg = importlib.import_module("simplejpeg")
    jpeg = simplejpeg.encode_jpeg(np.zeros((16, 16, 3), np.uint8), colorspace="BGR")
    assert jpeg[:2] == b"\xff\xd8"


def test_rig_lgpio_is_the_real_module() -> None:
    lgpio = importlib.import_module("lgpio")
    assert hasattr(lgpio, "gpiochip_open"), f"{lgpio.__file__}: PyPI's empty placeholder, not lgpio"


def test_rig_picamera2_camera_gives_a_frame() -> None:
    from vision.sources import Picamera2Source

    picamera2_cls, _ = import_picamera2()
    if not picamera2_cls.global_camera_info():
        pytest.skip("no camera attached")
    with Picamera2Source((640, 480)) as source:
        frame = source.read()
    assert frame.dtype == np.uint8 and frame.shape == (480, 640, 3)
