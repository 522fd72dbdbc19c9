"""scripts/setup.sh's Raspberry Pi path: what it installs from apt and from PyPI, per system.

Each test sources the script in a bash subprocess with COMPANION_NO_APT unset, the board's
model files pointed at temporary files, and apt-get, apt-cache, dpkg-query, sudo, uname and the
venv's python replaced by scripts that record their arguments (apt has no library test double),
then asserts the calls that would have installed something.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from firmware_bridge import board

ROOT = Path(__file__).resolve().parents[2]
SEP = "\x1f"

# Each fake appends one line to $FAKE_LOG: its name, then its arguments, split by SEP.
_RECORD = 'printf "%s" "$(basename "$0")" >>"$FAKE_LOG"; printf "\\x1f%s" "$@" >>"$FAKE_LOG"; echo >>"$FAKE_LOG"\n'

FAKES = {
    "apt-get": "exit 0\n",
    # `apt-cache policy PKG`: a candidate for the packages in $FAKE_APT_HAS; nothing for the rest,
    # as apt prints for a package its lists do not know.
    "apt-cache": """[ "$1" = policy ] || exit 0
case " $FAKE_APT_HAS " in
  *" $2 "*) printf '%s:\\n  Installed: (none)\\n  Candidate: 1.0-1\\n' "$2" ;;
  *) echo "N: Unable to locate package $2" >&2 ;;
esac
""",
    "dpkg-query": """pkg="${@: -1}"
case " $FAKE_INSTALLED " in
  *" $pkg "*) printf 'install ok installed' ;;
  *) echo "dpkg-query: no packages found matching $pkg" >&2; exit 1 ;;
esac
""",
    "sudo": 'exec "$@"\n',
    "uname": '[ "$1" = -m ] && echo "$FAKE_MACHINE" || echo Linux\n',
}

# The venv's python: its wheel tag, whether lgpio imports, pip, and vision.picamera's check
# ($FAKE_CAMERA: "ok"; "simplejpeg": the system's simplejpeg is built for another numpy until
# pip has installed PyPI's into the venv; "broken": it never loads).
FAKE_PYTHON = """case "$*" in
  *sys.version_info*) echo "$FAKE_PY_TAG" ;;
  *"import lgpio"*) exit 1 ;;
  "-m pip "*) exit 0 ;;
  "-m vision.picamera")
    case "$FAKE_CAMERA" in
      ok) exit 0 ;;
      simplejpeg)
        grep -q "pip.*simplejpeg" "$FAKE_LOG" && exit 0
        echo "picamera2 does not load with this Python's numpy 2.4.0: simplejpeg was built ..." >&2
        echo simplejpeg; exit 2 ;;
      *) echo "picamera2 is installed but libcamera's Python module is not" >&2; exit 2 ;;
    esac ;;
esac
"""


@dataclass
class SetupRun:
    calls: list[list[str]]
    stderr: str

    def apt_installed(self) -> list[str]:
        """The packages apt-get was asked to install, in order."""
        return [arg for call in self.calls if call[0] == "apt-get" and "install" in call
                for arg in call[call.index("install") + 1:] if not arg.startswith("-")]

    def pip_installed(self) -> list[str]:
        """The requirements pip was asked to install into the venv, in order."""
        return [arg for call in self.calls if call[:4] == ["python", "-m", "pip", "install"]
                for arg in call[4:] if not arg.startswith("-")]

    def setup_lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.startswith("setup: ")]


def run_setup(tmp_path: Path, commands: str = "pi_setup", *, model: str | None = "Raspberry Pi 5 Model B Rev 1.0",
              model_at: int = 0, apt_has: str = "", installed: str = "", machine: str = "aarch64",
              py_tag: str = "cp311", camera: str = "ok", apt_lists: bool = True, no_apt: bool = False) -> SetupRun:
    """Sources scripts/setup.sh with the fakes first on PATH and runs *commands*."""
    bin_dir, venv_bin, lists = tmp_path / "bin", tmp_path / "venv" / "bin", tmp_path / "lists"
    for d in (bin_dir, venv_bin, lists):
        d.mkdir(parents=True, exist_ok=True)
    for name, body in {**FAKES, "python": FAKE_PYTHON}.items():
        script = (venv_bin if name == "python" else bin_dir) / name
        script.write_text("#!/bin/bash\n" + _RECORD + body)
        script.chmod(0o755)
    if apt_lists:
        (lists / "deb.debian.org_debian_dists_bookworm_main_binary-arm64_Packages").write_text("")
    model_files = [tmp_path / "proc-model", tmp_path / "sys-model"]
    if model is not None:
        model_files[model_at].write_bytes(model.encode() + b"\0")
    log = tmp_path / "calls.log"
    log.write_text("")
    env = {k: v for k, v in os.environ.items() if k != "COMPANION_NO_APT"}
    if no_apt:
        env["COMPANION_NO_APT"] = "1"
    env.update(PATH=f"{bin_dir}:{env['PATH']}", FAKE_LOG=str(log), FAKE_APT_HAS=apt_has,
               FAKE_INSTALLED=installed, FAKE_MACHINE=machine, FAKE_PY_TAG=py_tag, FAKE_CAMERA=camera)
    script = (f"source scripts/setup.sh; PI_MODEL_FILES=({model_files[0]} {model_files[1]}); "
              f"APT_LISTS_DIR={lists}; VENV={tmp_path / 'venv'}; {commands}")
    done = subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, f"setup.sh exited {done.returncode}; stderr:\n{done.stderr}"
    calls = [line.split(SEP) for line in log.read_text().splitlines() if line]
    return SetupRun(calls, done.stderr)


def test_setup_pi_with_raspberry_pi_os_installs_lgpio_and_picamera2_from_apt(tmp_path: Path) -> None:
    run = run_setup(tmp_path, apt_has="python3-lgpio python3-picamera2")
    assert run.apt_installed() == ["python3-lgpio", "python3-picamera2"], run.stderr
    assert run.pip_installed() == [], run.stderr
    assert not [line for line in run.setup_lines() if "will not work" in line], run.stderr


def test_setup_pi_with_plain_debian_and_cp311_installs_lgpio_from_pypi(tmp_path: Path) -> None:
    run = run_setup(tmp_path, py_tag="cp311")
    assert run.apt_installed() == [], run.stderr
    assert run.pip_installed() == ["lgpio>=0.2"], run.stderr
    assert [line for line in run.setup_lines() if "python3-picamera2" in line and "will not work" in line], \
        run.stderr


def test_setup_pi_with_plain_debian_and_cp312_installs_lgpio_from_pypi(tmp_path: Path) -> None:
    run = run_setup(tmp_path, py_tag="cp312")
    assert run.pip_installed() == ["lgpio>=0.2"], run.stderr


@pytest.mark.parametrize(("py_tag", "machine"), [("cp313", "aarch64"), ("cp311", "armv7l")])
def test_setup_pi_without_a_lgpio_wheel_installs_neither_and_says_why(
        tmp_path: Path, py_tag: str, machine: str) -> None:
    run = run_setup(tmp_path, py_tag=py_tag, machine=machine)
    assert run.apt_installed() == [], run.stderr
    assert run.pip_installed() == [], run.stderr
    gpio = [line for line in run.setup_lines() if line.startswith("setup: GPIO will not work")]
    assert len(gpio) == 1, run.stderr
    assert "python3-lgpio" in gpio[0] and py_tag in gpio[0] and machine in gpio[0]


def test_setup_not_a_pi_installs_nothing_and_asks_nothing(tmp_path: Path) -> None:
    run = run_setup(tmp_path, model="Generic DT based system", apt_has="python3-lgpio python3-picamera2")
    assert run.calls == [], run.stderr
    assert run.stderr == ""


def test_setup_without_any_model_file_is_not_a_pi(tmp_path: Path) -> None:
    run = run_setup(tmp_path, model=None, apt_has="python3-lgpio python3-picamera2")
    assert run.calls == [], run.stderr


def test_setup_finds_a_pi_from_the_second_model_file_alone(tmp_path: Path) -> None:
    run = run_setup(tmp_path, "is_pi && echo pi >&2", model_at=1)
    assert run.stderr.splitlines() == ["pi"], run.stderr


def test_setup_reads_the_same_model_files_as_board_py(tmp_path: Path) -> None:
    done = subprocess.run(["bash", "-c", 'source scripts/setup.sh; printf "%s\\n" "${PI_MODEL_FILES[@]}"'],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [str(p) for p in board.MODEL_FILES], done.stderr


def test_setup_pi_skips_apt_get_for_packages_already_installed(tmp_path: Path) -> None:
    run = run_setup(tmp_path, installed="python3-lgpio python3-picamera2")
    assert [call for call in run.calls if call[0] in ("apt-get", "apt-cache")] == [], run.stderr
    assert run.pip_installed() == [], run.stderr


def test_setup_pi_updates_empty_apt_lists_before_asking(tmp_path: Path) -> None:
    run = run_setup(tmp_path, apt_has="python3-lgpio python3-picamera2", apt_lists=False)
    apt = [call[:2] for call in run.calls if call[0] in ("apt-get", "apt-cache")]
    assert apt[:2] == [["apt-get", "update"], ["apt-cache", "policy"]], run.stderr


def test_setup_pi_replaces_a_simplejpeg_built_for_another_numpy(tmp_path: Path) -> None:
    run = run_setup(tmp_path, apt_has="python3-lgpio python3-picamera2", camera="simplejpeg")
    assert run.pip_installed() == ["simplejpeg"], run.stderr
    pip = next(call for call in run.calls if call[:4] == ["python", "-m", "pip", "install"])
    assert "--ignore-installed" in pip and "--no-deps" in pip, run.stderr
    assert not [line for line in run.setup_lines() if "will not work" in line], run.stderr


def test_setup_pi_says_in_one_line_when_picamera2_does_not_load(tmp_path: Path) -> None:
    run = run_setup(tmp_path, apt_has="python3-lgpio python3-picamera2", camera="broken")
    assert run.pip_installed() == [], run.stderr
    camera = [line for line in run.setup_lines() if line.startswith("setup: the Pi camera will not work")]
    assert camera == ["setup: the Pi camera will not work: picamera2 is installed but libcamera's "
                      "Python module is not"], run.stderr


def test_setup_pi_with_no_apt_asks_apt_nothing_and_takes_lgpio_from_pypi(tmp_path: Path) -> None:
    run = run_setup(tmp_path, apt_has="python3-lgpio python3-picamera2", no_apt=True)
    assert [call for call in run.calls if call[0] in ("apt-get", "apt-cache")] == [], run.stderr
    assert run.pip_installed() == ["lgpio>=0.2"], run.stderr


def test_setup_pi_asks_apt_get_once_for_both_packages(tmp_path: Path) -> None:
    run = run_setup(tmp_path, apt_has="python3-lgpio python3-picamera2")
    installs = [call for call in run.calls if call[:2] == ["apt-get", "install"]]
    assert len(installs) == 1, run.stderr
