# Shared by scripts/run and scripts/test: install what the project needs, idempotently.
# Sourced, not run. Works on a fresh Debian 12+ or Raspberry Pi OS (Bookworm+), as root or
# as a user with sudo. Set COMPANION_NO_APT=1 to skip the Debian packages (you installed them).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"

say() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: %s\n' "$*" >&2; exit 2; }

is_pi() { grep -qs "Raspberry Pi" /proc/device-tree/model 2>/dev/null; }

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

# The app's own system packages: Python with venv, and what Kivy's wheel links against.
APP_DEBS=(python3 python3-venv python3-pip libgl1 libegl1 libgles2 libmtdev1 libgl1-mesa-dri)
# On a Pi: gpiozero's lgpio pin factory (the only one that works on a Pi 5) from Debian.
PI_DEBS=(python3-lgpio)
# What the tests start: a virtual X display for Kivy, socat for serial ptys, Mesa's software GL.
TEST_DEBS=(xvfb xauth socat libgl1-mesa-dri mesa-utils)
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
        is_pi && flags+=(--system-site-packages)   # for Debian's python3-lgpio
        "$python" -m venv "${flags[@]}" "$VENV"
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
