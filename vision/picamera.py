"""Whether picamera2 loads in this Python, and if not, why, in one line with the fix.

picamera2 and its compiled helpers (simplejpeg above all) come from the system's packages
(Raspberry Pi OS's ``python3-picamera2``), built against the system's numpy, while the venv
brings its own numpy. Importing them fails in a few distinct ways, each with its own message:

* not installed (:class:`Picamera2Missing`), or installed for the system's Python while the
  venv does not see the system's packages;
* installed, but a compiled module in its imports was built for another numpy's binary
  interface (:class:`NumpyMismatch`: "numpy.dtype size changed", "_ARRAY_API not found",
  "compiled using NumPy 1.x cannot be run in NumPy 2");
* installed but broken some other way: libcamera's Python module missing, or anything else
  (:class:`Picamera2Broken`).

The import writes nothing to the terminal: numpy's own long warning and the traceback it
prints are caught and read for the diagnosis. ``python -m vision.picamera`` runs the check
(exit 0: it loads; exit 2: one line on stderr, and on stdout the PyPI package whose build for
this numpy fixes a mismatch, when one is known).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import io
import re
import sys
from pathlib import Path
from types import TracebackType
from typing import Any

from vision.errors import CameraUnavailable

# Where Debian and Raspberry Pi OS install Python packages for the system's python3.
SYSTEM_PACKAGES = Path("/usr/lib/python3/dist-packages")

# What numpy and Cython put in the error of a compiled module built for another numpy.
_ABI_SIGNS = (
    "numpy.dtype size changed", "numpy.ndarray size changed", "_ARRAY_API not found",
    "compiled using NumPy 1.x", "multiarray failed to import", "_multiarray_umath failed to import",
    "compiled against API version", "compiled against ABI version",
)

# Modules in picamera2's imports whose PyPI wheels are built for numpy 2 and that are the same
# project as the system's package (a PyPI name alone could be someone else's package).
PYPI_BUILDS = {"simplejpeg": "simplejpeg"}

# Frames from these packages are not the module that failed: they are the ones importing it.
_NOT_THE_CULPRIT = {"picamera2", "numpy", "importlib", "vision"}


class Picamera2Missing(CameraUnavailable):
    """picamera2 is not importable from this Python."""


class NumpyMismatch(CameraUnavailable):
    """picamera2 is installed, but a compiled module it imports was built for another numpy.

    *module* is that module's top-level name when the traceback shows it; *requirement* the
    PyPI package whose build for this numpy replaces it, when one is known.
    """

    def __init__(self, message: str, module: str | None, requirement: str | None) -> None:
        super().__init__(message)
        self.module, self.requirement = module, requirement


class Picamera2Broken(CameraUnavailable):
    """picamera2 is installed but does not import, for a reason other than numpy."""


def import_picamera2() -> tuple[Any, Any]:
    """``(Picamera2, libcamera.controls)``, imported with nothing written to stderr.

    :raises Picamera2Missing: when picamera2 is not installed (or the venv cannot see it).
    :raises NumpyMismatch: when a module it imports was built for another numpy.
    :raises Picamera2Broken: when it fails to import in any other way.
    """
    caught = io.StringIO()
    try:
        # importlib rather than import statements: picamera2 exists only on a Pi (from the
        # system's packages, not PyPI), so neither mypy nor this module's import may need it.
        # stderr is swapped for the whole process for the import's moment: another thread's
        # line written then would be lost with numpy's warning.
        with contextlib.redirect_stderr(caught):
            picamera2 = importlib.import_module("picamera2")
            controls = importlib.import_module("libcamera").controls
    except Exception as exc:  # a system package can fail in any way; each is one line here
        raise diagnose(exc, caught.getvalue()) from None
    return picamera2.Picamera2, controls


def picamera2_problem() -> CameraUnavailable | None:
    """None when picamera2 loads with this Python's numpy, else the error saying why not."""
    try:
        import_picamera2()
    except CameraUnavailable as exc:
        return exc
    return None


def picamera2_report() -> dict[str, Any]:
    """For ``companion doctor``: ``{"loads": bool, "problem": str | None, "kind": str | None}``,
    *kind* one of ``"missing"``, ``"numpy"``, ``"broken"``."""
    problem = picamera2_problem()
    kinds = {Picamera2Missing: "missing", NumpyMismatch: "numpy", Picamera2Broken: "broken"}
    return {"loads": problem is None, "problem": None if problem is None else str(problem),
            "kind": None if problem is None else kinds.get(type(problem), "broken")}


def diagnose(exc: BaseException, stderr: str = "") -> CameraUnavailable:
    """The one-line error for *exc*, raised while importing picamera2 (*stderr*: what the
    import wrote there)."""
    text = "\n".join([*_messages(exc), stderr])
    missing = _missing_name(exc)
    if missing == "picamera2":
        return _missing()
    if any(sign in text for sign in _ABI_SIGNS) or (missing or "").startswith("numpy"):
        return _mismatch(exc)
    if missing == "libcamera":
        return Picamera2Broken("picamera2 is installed but libcamera's Python module is not: "
                               "sudo apt install python3-libcamera")
    return Picamera2Broken(f"picamera2 is installed but does not import: {type(exc).__name__}: "
                           f"{_first_line(exc)}")


def _missing() -> Picamera2Missing:
    if (SYSTEM_PACKAGES / "picamera2").is_dir() and str(SYSTEM_PACKAGES) not in sys.path:
        return Picamera2Missing(
            f"picamera2 is installed for the system's Python, but this one ({sys.prefix}) does not "
            "see the system's packages: make the venv again with --system-site-packages "
            "(remove .venv, then ./scripts/run)")
    return Picamera2Missing("picamera2 is not installed: on Raspberry Pi OS, sudo apt install "
                            "python3-picamera2, in a venv made with --system-site-packages "
                            "(./scripts/run does both)")


def _mismatch(exc: BaseException) -> NumpyMismatch:
    mine, others = numpy_versions()
    module = _culprit(exc)
    requirement = PYPI_BUILDS.get(module or "")
    what = module or "a module it imports"
    built_for = f"the system's numpy {', '.join(others)}" if others else "another numpy"
    python = sys.executable
    if requirement:
        fix = (f"{python} -m pip install --ignore-installed --no-deps {requirement} "
               f"(PyPI's build, for numpy {mine.split('.')[0]}; ./scripts/run does this)")
    elif others:
        fix = (f"a build of {module or 'that module'} for numpy {mine} in the venv, or the venv's "
               f"numpy pinned to the system's ({python} -m pip install numpy=={others[0]})")
    else:
        fix = "make the venv again (remove .venv, then ./scripts/run)"
    return NumpyMismatch(f"picamera2 does not load with this Python's numpy {mine}: {what} was built "
                         f"for {built_for} ({_first_line(exc)}); fix: {fix}", module, requirement)


def numpy_versions() -> tuple[str, list[str]]:
    """(the numpy this Python imports, the versions of every other numpy on sys.path)."""
    try:
        import numpy
    except ImportError:
        return "(none)", []
    mine = numpy.__version__
    here = Path(numpy.__file__).resolve().parent.parent
    others = sorted({dist.version for dist in importlib.metadata.distributions(name="numpy")
                     if Path(str(dist.locate_file(""))).resolve() != here and dist.version != mine})
    return mine, others


def _missing_name(exc: BaseException) -> str | None:
    """The module a ModuleNotFoundError names (its ``name``, else its message's), or None."""
    if not isinstance(exc, ModuleNotFoundError):
        return None
    if exc.name:
        return exc.name
    found = re.match(r"No module named '([^']+)'", str(exc))
    return found.group(1) if found else None


def _messages(exc: BaseException) -> list[str]:
    """The messages of *exc* and of the errors it was raised from or during."""
    out: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        out.append(f"{type(current).__name__}: {current}")
        current = current.__cause__ or current.__context__
    return out


def _culprit(exc: BaseException) -> str | None:
    """The top-level name of the deepest module in *exc*'s traceback that is neither
    picamera2 nor numpy: the compiled module that failed to load, or None."""
    roots = sorted((Path(p) for p in sys.path if p), key=lambda p: len(p.parts), reverse=True)
    found: str | None = None
    tb: TracebackType | None = exc.__traceback__
    while tb is not None:
        name = _top_level(tb.tb_frame.f_code.co_filename, roots)
        if name and name not in _NOT_THE_CULPRIT:
            found = name
        tb = tb.tb_next
    return found


def _top_level(filename: str, roots: list[Path]) -> str | None:
    if filename.startswith("<"):
        return None
    path = Path(filename)
    if not path.is_absolute():  # a Cython frame: "simplejpeg/_jpeg.pyx"
        return path.parts[0] if path.parts else None
    for root in roots:
        if path.is_relative_to(root) and path != root:
            return path.relative_to(root).parts[0].removesuffix(".py")
    return None


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    line = lines[0] if lines else type(exc).__name__
    return line if len(line) <= 120 else line[:117] + "..."


def main(argv: list[str] | None = None) -> int:
    """``python -m vision.picamera``: exit 0 when picamera2 loads, else 2 with one line."""
    problem = picamera2_problem()
    if problem is None:
        return 0
    print(problem, file=sys.stderr)
    if isinstance(problem, NumpyMismatch) and problem.requirement:
        print(problem.requirement)
    return 2


if __name__ == "__main__":
    sys.exit(main())
