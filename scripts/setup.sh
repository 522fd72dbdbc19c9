# Shared by scripts/run and scripts/test: install what the project needs, idempotently.
# Sourced, not run. Works on a fresh Debian 12+ or Raspberry Pi OS (Bookworm+), as root or
# as a user with sudo. Set COMPANION_NO_APT=1 to skip the Debian packages (you installed them).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"

say() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: %s\n' "$*" >&2; exit 2; }

# Where the board's device-tree model is, in the order firmware_bridge/board.py reads them.
PI_MODEL_FILES=(/proc/device-tree/model /sys/firmware/devicetree/base/model)
# apt's package lists: empty on a fresh container or image until `apt-get update`.
APT_LISTS_DIR=/var/lib/apt/lists

# board_model: the model string from the first model file that can be read (as board.py does).
board_model() {
    local file
    for file in "${PI_MODEL_FILES[@]}"; do
        if [ -r "$file" ]; then tr -d '\0' <"$file" 2>/dev/null && return 0; fi
    done
    return 1
}

is_pi() { local model; model="$(board_model)" || return 1; [[ "$model" == "Raspberry Pi"* ]]; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else die "need root for: $* (run as root, or install sudo)"
    fi
}

# apt_install PKG...: installs the ones not installed yet; runs apt-get update once if needed.
apt_install() {
    [ "${COMPANION_NO_APT:-0}" = 1 ] && return 0
    command -v dpkg-query >/dev/null 2>&1 || { say "not a Debian system: install $* yourself"; return 0; }
    local missing=() pkg
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
            || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    say "installing Debian packages: ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
}

# apt_has PKG: true when PKG is installed, or (unless COMPANION_NO_APT=1) apt has a candidate
# for it. Reads apt's lists, after one `apt-get update` if there are none yet.
apt_has() {
    local pkg="$1" candidate
    command -v dpkg-query >/dev/null 2>&1 || return 1
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" && return 0
    [ "${COMPANION_NO_APT:-0}" = 1 ] && return 1
    command -v apt-cache >/dev/null 2>&1 || return 1
    if ! compgen -G "$APT_LISTS_DIR/*_Packages*" >/dev/null; then
        say "apt has no package lists yet: apt-get update"
        as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    fi
    candidate="$(apt-cache policy "$pkg" 2>/dev/null | sed -n 's/^ *Candidate: *//p' | head -n 1)"
    [ -n "$candidate" ] && [ "$candidate" != "(none)" ]
}

# The app's own system packages: Python with venv, and what Kivy's wheel links against.
APP_DEBS=(python3 python3-venv python3-pip libgl1 libegl1 libgles2 libmtdev1 libgl1-mesa-dri)
# On a Pi, where the archive has them (Raspberry Pi OS's does, Debian's and Ubuntu's do not):
# gpiozero's lgpio pin factory (the only one that works on a Pi 5) and the Pi camera's library.
PI_GPIO_DEB=python3-lgpio
PI_CAMERA_DEB=python3-picamera2
# Pythons for which PyPI has an aarch64 wheel of lgpio (for 3.13 it has only an empty placeholder).
LGPIO_WHEEL_PYTHONS=(cp311 cp312)
# What the tests start: a virtual X display for Kivy, socat for serial ptys, Mesa's software GL,
# and a Mosquitto MQTT broker (with its mosquitto_passwd) for the venue's tests.
TEST_DEBS=(xvfb xauth socat libgl1-mesa-dri mesa-utils mosquitto)
# systemd-analyze checks the kiosk's units (tests/kiosk); Debian ships it in systemd, which a
# container may lack. Nothing here starts systemd: only its checker runs.
VERIFY_DEBS=(systemd)

# make_venv EXTRAS: a .venv with the project installed editable (EXTRAS: "" or "[test]").
make_venv() {
    local extras="$1" python="${PYTHON:-python3}"
    command -v "$python" >/dev/null 2>&1 || die "no $python: install python3 (3.11 or newer)"
    "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
        || die "$("$python" -V 2>&1) is too old: the companion needs Python 3.11 or newer"
    if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import sys' 2>/dev/null; then
        say "creating $VENV"
        rm -rf "$VENV"
        local flags=()
        is_pi && flags+=(--system-site-packages)   # for the archive's python3-lgpio and picamera2
        "$python" -m venv "${flags[@]}" "$VENV"
    elif is_pi && grep -qs '^include-system-site-packages = false' "$VENV/pyvenv.cfg"; then
        say "letting $VENV see the system's packages (python3-lgpio, python3-picamera2)"
        sed -i 's/^include-system-site-packages = false/include-system-site-packages = true/' "$VENV/pyvenv.cfg"
    fi
    # Reinstall only when pyproject.toml or the extras changed.
    local stamp="$VENV/.installed-$(cat "$ROOT/pyproject.toml" | sha256sum | cut -c1-16)-${extras//[^a-z]/}"
    if [ ! -e "$stamp" ]; then
        say "installing Python packages into $VENV"
        local log="$VENV/pip-install.log"
        if ! { "$VENV/bin/python" -m pip install --disable-pip-version-check --upgrade pip \
               && "$VENV/bin/python" -m pip install --disable-pip-version-check -e "$ROOT$extras"; \
             } >"$log" 2>&1; then
            tail -n 25 "$log" >&2
            die "pip could not install the Python packages (whole log: $log)"
        fi
        rm -f "$VENV"/.installed-*
        touch "$stamp"
    fi
}

# venv_tag: the venv's Python as a wheel tag, e.g. cp311.
venv_tag() { "$VENV/bin/python" -c 'import sys; print("cp%d%d" % sys.version_info[:2])'; }

# venv_pip SPEC...: pip install into the venv, quietly; its log in the venv on failure.
venv_pip() {
    local log="$VENV/pip-install-pi.log"
    "$VENV/bin/python" -m pip install --disable-pip-version-check "$@" >"$log" 2>&1 \
        || { tail -n 5 "$log" >&2; return 1; }
}

# pi_gpio_from_pypi: lgpio for gpiozero when the archive has no python3-lgpio: from PyPI into the
# venv where a wheel exists (aarch64, Python 3.11 or 3.12), else a line saying GPIO will not work
# (`companion` then says so in one line when it starts).
pi_gpio_from_pypi() {
    # The real module, not PyPI's empty placeholder (which imports, but has no functions).
    "$VENV/bin/python" -c 'import lgpio; lgpio.gpiochip_open' >/dev/null 2>&1 && return 0
    local machine tag
    machine="$(uname -m)"
    tag="$(venv_tag)"
    if [ "$machine" = aarch64 ] && [[ " ${LGPIO_WHEEL_PYTHONS[*]} " == *" $tag "* ]]; then
        say "installing lgpio from PyPI into $VENV (this system's archive has no $PI_GPIO_DEB)"
        venv_pip --only-binary=:all: "lgpio>=0.2" \
            || say "GPIO will not work: pip could not install lgpio (log: $VENV/pip-install-pi.log)"
        return 0
    fi
    say "GPIO will not work: this system's archive has no $PI_GPIO_DEB, and PyPI has no lgpio" \
        "wheel for $tag on $machine (it has them for ${LGPIO_WHEEL_PYTHONS[*]} on aarch64)"
}

# pi_camera_check: that the archive's picamera2 loads with the venv's numpy. Fixes the known case
# once (the system's simplejpeg built for numpy 1.x: PyPI's build goes into the venv), else says
# in one line why the Pi camera will not work.
pi_camera_check() {
    local requirement problem
    requirement="$("$VENV/bin/python" -m vision.picamera 2>/dev/null)" && return 0
    if [ -n "$requirement" ]; then
        say "installing $requirement from PyPI into $VENV: the system's is built for another numpy"
        venv_pip --ignore-installed --no-deps --only-binary=:all: "$requirement" || true
    fi
    problem="$("$VENV/bin/python" -m vision.picamera 2>&1 >/dev/null)" && return 0
    say "the Pi camera will not work: $problem"
}

# pi_setup: what a Raspberry Pi needs beyond the app's packages (nothing elsewhere): lgpio and
# picamera2 from the archive where it has them (Raspberry Pi OS), lgpio from PyPI where it has
# not (Debian, Ubuntu). Needs the venv.
pi_setup() {
    is_pi || return 0
    local debs=() gpio_deb=0 camera_deb=0
    if apt_has "$PI_GPIO_DEB"; then debs+=("$PI_GPIO_DEB"); gpio_deb=1; fi
    if apt_has "$PI_CAMERA_DEB"; then debs+=("$PI_CAMERA_DEB"); camera_deb=1; fi
    [ ${#debs[@]} -eq 0 ] || apt_install "${debs[@]}"
    [ "$gpio_deb" = 1 ] || pi_gpio_from_pypi
    if [ "$camera_deb" = 1 ]; then
        pi_camera_check
    else
        say "the Pi camera will not work: this system's archive has no $PI_CAMERA_DEB" \
            "(Raspberry Pi OS has it); a USB camera still does"
    fi
}
