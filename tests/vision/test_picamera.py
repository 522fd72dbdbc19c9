"""vision.picamera: each way picamera2 fails to load is one line naming its fix.

The failures are staged in a subprocess with a fake ``picamera2`` package (and the modules it
imports) first on its sys.path, raising the text the real ones raise: Cython's "numpy.dtype
size changed", numpy 2's "compiled using NumPy 1.x" (written to stderr with a traceback, then
raised), and "_ARRAY_API not found" followed by "numpy.core.multiarray failed to import".
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vision import picamera, sources
from vision.picamera import NumpyMismatch, Picamera2Missing

SYSTEM_NUMPY = "1.24.2"

DTYPE_SIZE = ('raise ValueError("numpy.dtype size changed, may indicate binary incompatibility. '
              'Expected 96 from C header, got 88 from PyObject")')
NUMPY_1X = '''import sys
msg = """
A module that was compiled using NumPy 1.x cannot be run in
NumPy 2.4.0 as it may crash. To support both 1.x and 2.x
versions of NumPy, modules must be compiled with NumPy 2.0.
"""
sys.stderr.write(msg + "Traceback (most recent call last):\\n  File ...\\n")
raise ImportError(msg)
'''
ARRAY_API = '''import sys
sys.stderr.write("AttributeError: _ARRAY_API not found\\n")
raise ImportError("numpy.core.multiarray failed to import")
'''


def stage(site: Path, files: dict[str, str], *, system_numpy: bool = True) -> Path:
    """Writes *files* (path relative to *site*: source) and, as the system's numpy would be
    there, a numpy dist-info of another version."""
    for name, text in files.items():
        path = site / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    if system_numpy:
        info = site / f"numpy-{SYSTEM_NUMPY}.dist-info"
        info.mkdir(parents=True, exist_ok=True)
        info.joinpath("METADATA").write_text(f"Metadata-Version: 2.1\nName: numpy\nVersion: {SYSTEM_NUMPY}\n")
    return site


def run(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, timeout=60)


def check(site: Path) -> subprocess.CompletedProcess[str]:
    return run(site, "-m", "vision.picamera")


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, f"exit {done.returncode}; stderr:\n{done.stderr}"
    lines = done.stderr.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got:\n{done.stderr}"
    return lines[0]


def test_picamera_check_passes_when_picamera2_loads(tmp_path: Path) -> None:
    site = stage(tmp_path, {"picamera2/__init__.py": "import libcamera\nclass Picamera2: pass\n",
                            "libcamera/__init__.py": "controls = object()\n"})
    done = check(site)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), done.stderr


def test_picamera_check_not_installed_says_how_to_install(tmp_path: Path) -> None:
    line = one_line(check(stage(tmp_path, {})))
    assert line.startswith("picamera2 is not installed:")
    assert "sudo apt install python3-picamera2" in line and "--system-site-packages" in line


def test_picamera_missing_from_a_venv_without_system_packages_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "picamera2").mkdir()
    monkeypatch.setattr(picamera, "SYSTEM_PACKAGES", tmp_path)
    error = picamera.diagnose(ModuleNotFoundError("No module named 'picamera2'", name="picamera2"))
    assert isinstance(error, Picamera2Missing)
    assert "does not see the system's packages" in str(error) and "--system-site-packages" in str(error)


@pytest.mark.parametrize(("error", "sign"), [(DTYPE_SIZE, "numpy.dtype size changed"),
                                             (NUMPY_1X, "compiled using NumPy 1.x"),
                                             (ARRAY_API, "multiarray failed to import")],
                         ids=["dtype-size", "numpy-1x", "array-api"])
@pytest.mark.slow
def test_picamera_check_simplejpeg_for_another_numpy_names_the_fix(tmp_path: Path, error: str, sign: str) -> None:
    site = stage(tmp_path, {"picamera2/__init__.py": "import numpy\nfrom .encoders import JpegEncoder\n",
                            "picamera2/encoders.py": "import simplejpeg\nJpegEncoder = None\n",
                            "simplejpeg/__init__.py": "from ._jpeg import encode_jpeg\n",
                            "simplejpeg/_jpeg.py": error + "\n"})
    done = check(site)
    line = one_line(done)
    assert line.startswith(f"picamera2 does not load with this Python's numpy {np.__version__}: simplejpeg "
                           f"was built for the system's numpy {SYSTEM_NUMPY} ("), line
    assert sign in line
    assert line.endswith("-m pip install --ignore-installed --no-deps simplejpeg (PyPI's build, for numpy "
                         f"{np.__version__.split('.')[0]}; ./scripts/run does this)"), line
    assert done.stdout == "simplejpeg\n"


@pytest.mark.slow
def test_picamera_check_unknown_module_for_another_numpy_suggests_the_pin(tmp_path: Path) -> None:
    site = stage(tmp_path, {"picamera2/__init__.py": "import pidng\n",
                            "pidng/__init__.py": DTYPE_SIZE + "\n"})
    done = check(site)
    line = one_line(done)
    assert "pidng was built for the system's numpy 1.24.2" in line
    assert line.endswith(f"-m pip install numpy=={SYSTEM_NUMPY})"), line
    assert done.stdout == ""   # nothing setup.sh could install by itself


def test_picamera_check_without_libcamera_names_the_package(tmp_path: Path) -> None:
    site = stage(tmp_path, {"picamera2/__init__.py": "import libcamera\n"})
    assert one_line(check(site)) == ("picamera2 is installed but libcamera's Python module is not: "
                                     "sudo apt install python3-libcamera")


def test_picamera_check_other_failure_is_one_line_with_the_error(tmp_path: Path) -> None:
    site = stage(tmp_path, {"picamera2/__init__.py": 'raise RuntimeError("no /dev/dma_heap\\nsecond line")\n'})
    assert one_line(check(site)) == ("picamera2 is installed but does not import: RuntimeError: "
                                     "no /dev/dma_heap")


@pytest.mark.slow
def test_picamera2_source_numpy_mismatch_is_one_camera_error(tmp_path: Path) -> None:
    site = stage(tmp_path, {"picamera2/__init__.py": "import simplejpeg\n",
                            "simplejpeg/__init__.py": DTYPE_SIZE + "\n"})
    done = run(site, "-c", "from vision.sources import Picamera2Source\n"
                           "from vision.errors import CameraUnavailable\n"
                           "try:\n    Picamera2Source()\n"
                           "except CameraUnavailable as exc:\n    print(type(exc).__name__, exc)\n")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.startswith("NumpyMismatch picamera2 does not load with this Python's numpy"), done.stderr


@pytest.mark.slow
def test_doctor_reports_the_numpy_mismatch(tmp_path: Path) -> None:
    site = stage(tmp_path, {"picamera2/__init__.py": "import simplejpeg\n",
                            "simplejpeg/__init__.py": DTYPE_SIZE + "\n"})
    config = tmp_path / "config.toml"
    config.write_text("")
    done = run(site, "-m", "companion", "--config", str(config), "doctor", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)["platform"]["picamera2"]
    assert report["loads"] is False and report["kind"] == "numpy", done.stderr
    assert "simplejpeg was built for the system's numpy 1.24.2" in report["problem"]
    text = run(site, "-m", "companion", "--config", str(config), "doctor")
    assert [line for line in text.stdout.splitlines() if line.startswith("pi camera: ")] == \
        [f"pi camera: {report['problem']}"], text.stderr


def test_has_picamera_warns_once_about_a_numpy_mismatch(monkeypatch: pytest.MonkeyPatch,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    def mismatch() -> tuple[object, object]:
        raise NumpyMismatch("picamera2 does not load with this Python's numpy 2.4.0: ...", "simplejpeg",
                            "simplejpeg")

    monkeypatch.setattr(sources, "import_picamera2", mismatch)
    monkeypatch.setattr(sources, "_warned_picamera", set())
    with caplog.at_level(logging.WARNING, logger="vision.sources"):
        assert not sources.has_picamera()
        assert not sources.has_picamera()
    assert [r.getMessage() for r in caplog.records] == [
        "Raspberry Pi camera: picamera2 does not load with this Python's numpy 2.4.0: ..."]


def test_has_picamera_is_quiet_when_picamera2_is_not_installed(monkeypatch: pytest.MonkeyPatch,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    def missing() -> tuple[object, object]:
        raise Picamera2Missing("picamera2 is not installed: ...")

    monkeypatch.setattr(sources, "import_picamera2", missing)
    with caplog.at_level(logging.WARNING, logger="vision.sources"):
        assert not sources.has_picamera()
    assert caplog.records == []
