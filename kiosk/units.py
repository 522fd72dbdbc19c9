"""The kiosk's files, as text: systemd units, drop-ins, the udev rule, the Kivy settings, the config.

Pure functions from :class:`KioskOptions` to file contents; nothing here touches a disk. The
one hard part is quoting: a path or a user name lands in a unit file, where systemd expands
``%`` specifiers everywhere and ``$`` variables in a command's arguments, and splits words
on spaces. :func:`exec_path` and :func:`exec_arg` quote for exactly that, and refuse what
systemd would refuse (a program path with quotes, backslashes or control characters).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from companion.errors import InvalidInput
from kiosk.host import LEAVE, POWEROFF, RUNTIME_DIR

SERVICE = "companion-kiosk.service"
FALLBACK = "companion-kiosk-fallback.service"
POWEROFF_PATH = "companion-kiosk-poweroff.path"
POWEROFF_SERVICE = "companion-kiosk-poweroff.service"
LEAVE_PATH = "companion-kiosk-leave.path"
LEAVE_SERVICE = "companion-kiosk-leave.service"
UNITS = (SERVICE, FALLBACK, POWEROFF_PATH, POWEROFF_SERVICE, LEAVE_PATH, LEAVE_SERVICE)

UNIT_DIR = "/etc/systemd/system"
DATA_DIR = "/var/lib/table-companion"
"""The data location: the config, the database, the camera's files. A mount point of its own
when the root file system is read-only (the overlay): see the README's "Setting up a table"."""
STATE_NAME = "table-companion"  # StateDirectory= and RuntimeDirectory= (the /var/lib and /run names)
CONFIG_PATH = f"{DATA_DIR}/config.toml"
DATABASE_PATH = f"{DATA_DIR}/companion.sqlite3"
ETC_DIR = "/etc/table-companion"
KIVY_SETTINGS = f"{ETC_DIR}/kivy.ini"
UDEV_RULE = "/etc/udev/rules.d/70-table-companion-accessory.rules"
ACCESSORY_LINK = "table-accessory"  # /dev/table-accessory
LOGIND_DROPIN = "/etc/systemd/logind.conf.d/table-companion.conf"
JOURNALD_DROPIN = "/etc/systemd/journald.conf.d/table-companion.conf"
SYSCTL_FILE = "/etc/sysctl.d/90-table-companion.conf"
GROUPS = ("video", "render", "input", "gpio")
"""The service user's groups: the DRM devices, the GPU, the touch panel, the GPIO header."""
DEVICES = (
    ("/dev/tty1", "rw"),       # the console the app runs on (TTYPath=)
    ("char-drm", "rw"),        # /dev/dri/card* and renderD*: the screen and the GPU
    ("char-input", "rw"),      # /dev/input/event*: the touch panel, a keyboard
    ("char-gpiochip", "rw"),   # /dev/gpiochip*: the buzzer, LEDs and button through lgpio
    ("char-ttyUSB", "rw"),     # the timer accessory: a USB serial adapter...
    ("char-ttyACM", "rw"),     # ... or a Pico / Arduino (/dev/table-accessory links to one)
    ("char-video4linux", "rw"),  # /dev/video*, /dev/v4l-subdev*: the camera
    ("char-media", "rw"),      # /dev/media*: libcamera's view of the Pi camera
    ("char-dma_heap", "rw"),   # /dev/dma_heap/*: the Pi camera's frame buffers
    ("char-alsa", "rw"),       # /dev/snd/*: the app's sounds
)
"""The only devices the kiosk's app may open (``DevicePolicy=closed`` adds /dev/null and the like)."""

WATCHDOG_S = 20
"""A frozen UI is killed and restarted after this long; the app says it is alive 4 times a period."""
RESTART_S = 5
START_BURST = 5
START_INTERVAL_S = 600
"""Five failed starts within ten minutes and systemd stops restarting: the fallback page shows."""
EXIT_USAGE = 2  # the CLI's code for a user's mistake (a bad config): not worth restarting

ROTATIONS = (0, 90, 180, 270)
PANELS = {"7inch": ("DSI-1", "800x480@60"), "touch-display-2": ("DSI-1", "720x1280@60")}
"""The two official panels: their connector and mode for the kernel's ``video=`` option."""
TOUCH = {"hidinput": "probesysfs,provider=hidinput", "mtdev": "probesysfs,provider=mtdev", "sdl": "mouse"}
"""The one input provider per panel: Kivy's own evdev reader (``hidinput``, multi-touch, what Kivy
picks on a Pi), or mtdev, or SDL's touch as a single mouse pointer (``sdl``)."""
DISPLAYS = ("kmsdrm", "cage")

_USER = re.compile(r"[a-z_][a-z0-9_-]{0,30}")
"""systemd's strict rule for a user name in a unit: at most 31 characters (UT_NAMESIZE less one)."""
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_PLAIN = re.compile(r"[A-Za-z0-9_./:=@+,-]+")  # a word systemd takes as it is, unquoted
HEADER = "Written by `companion kiosk install`; `companion kiosk uninstall` removes it."


@dataclass(frozen=True)
class KioskOptions:
    """What the host chose: who runs the app, where its program is, and how the screen sits.

    :raises InvalidInput: (``checked``) naming the option, for a value that cannot be used.
    """

    user: str
    companion: str
    """The ``companion`` program's absolute path on the target (the venv's ``bin/companion``)."""
    display: str = "kmsdrm"
    rotate: int = 0
    panel: str | None = None
    touch: str = "hidinput"
    usb_ids: tuple[str, ...] = ()
    overlay: bool = False
    uid: int | None = None
    """The user's numeric id: under cage the app writes the user's runtime folder ``/run/user/UID``
    (the Wayland socket), which the unit then leaves writable."""

    def checked(self) -> KioskOptions:
        check_user(self.user)
        exec_path(self.companion, "--companion")
        if self.display not in DISPLAYS:
            raise InvalidInput("--display", self.display, "must be kmsdrm or cage")
        if self.rotate not in ROTATIONS:
            raise InvalidInput("--rotate", self.rotate, "must be 0, 90, 180 or 270")
        if self.panel is not None and self.panel not in PANELS:
            raise InvalidInput("--panel", self.panel, "must be " + " or ".join(PANELS))
        if self.rotate and self.panel is None:
            raise InvalidInput("--rotate", self.rotate, "say which panel it is with --panel "
                               + "|".join(PANELS) + " (the console's rotation needs its mode)")
        if self.touch not in TOUCH:
            raise InvalidInput("--touch", self.touch, "must be " + ", ".join(TOUCH))
        for usb_id in self.usb_ids:
            if not re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{4}", usb_id):
                raise InvalidInput("accessory.usb_ids", usb_id, 'must be "VID:PID" in lower-case hex')
        return self


def check_user(name: str) -> str:
    """A user name safe in a unit, a udev rule and ``/etc/group``; never root.

    :raises InvalidInput: naming ``--user``.
    """
    if not _USER.fullmatch(name):
        raise InvalidInput("--user", name, "must be a Linux user name: a-z, 0-9, '_' or '-', at most 31, "
                           "not starting with a digit or '-'")
    if name == "root":
        raise InvalidInput("--user", name, "the kiosk must not run as root: name the Pi's user")
    return name


def exec_path(path: str, field: str = "path") -> str:
    """*path* as the program word of a unit's ``ExecStart=``: quoted, ``%`` doubled.

    systemd takes the program path literally (no ``$`` expansion) and refuses one holding
    quotes, backslashes or control characters, so those are refused here first.

    :raises InvalidInput: naming *field*.
    """
    if not PurePosixPath(path).is_absolute() or "//" in path or path.endswith("/"):
        raise InvalidInput(field, path, "must be an absolute path to a program")
    if _CONTROL.search(path) or any(c in path for c in "\"'\\"):
        raise InvalidInput(field, path, "systemd cannot run a program whose path holds quotes, backslashes "
                           "or control characters: move it")
    if any(part in (".", "..") for part in path.split("/")):
        raise InvalidInput(field, path, "must not hold . or .. parts")
    return '"' + path.replace("%", "%%") + '"'


def exec_arg(text: str) -> str:
    """*text* as one argument word of ``ExecStart=``: as it is when plain, else quoted, with C
    escapes, ``%%`` and ``$$``.

    :raises InvalidInput: for a NUL, which no argument can hold.
    """
    if "\0" in text:
        raise InvalidInput("argument", text, "must not hold a NUL character")
    if _PLAIN.fullmatch(text):
        return text
    out = []
    for c in text:
        if c in "\\\"":
            out.append("\\" + c)
        elif c == "%":
            out.append("%%")
        elif c == "$":
            out.append("$$")
        elif _CONTROL.match(c):
            out.append(f"\\x{ord(c):02x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def env_assignment(key: str, value: str) -> str:
    """One ``Environment=`` word: ``"KEY=value"`` with C escapes and ``%%`` (no ``$`` there)."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) or _CONTROL.search(value):
        raise InvalidInput("Environment", f"{key}={value}", "must be NAME=value without control characters")
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
    return f'"{key}={escaped}"'


def _unit(*sections: tuple[str, list[str]], what: str) -> str:
    lines = [f"# {what}", f"# {HEADER}"]
    for name, body in sections:
        lines += ["", f"[{name}]", *body]
    return "\n".join(lines) + "\n"


def _command(opts: KioskOptions, *words: str) -> str:
    program = exec_path(opts.companion, "--companion")
    args = " ".join(exec_arg(w) for w in words)
    if opts.display == "cage":  # cage runs one app full screen and stops when it stops
        return f"/usr/bin/cage -s -- {exec_arg(opts.companion)} {args}"
    return f"{program} {args}"


def sandbox(write: tuple[str, ...], *, hide_processes: bool = True) -> list[str]:
    """The protections both of the kiosk's long-running units have (``systemd-analyze security``).

    The whole file system is read-only but the unit's own folders (StateDirectory=,
    RuntimeDirectory=) and *write*; the homes are readable (the venv may live in one) and
    nothing there is writable. No capabilities, no namespaces, no kernel knobs, no other
    devices than the unit's ``DeviceAllow=`` lines; with *hide_processes*, no other users'
    processes in /proc. Files the unit makes are its user's only.
    """
    return [
        "NoNewPrivileges=yes",
        "CapabilityBoundingSet=",
        "UMask=0077",
        "ProtectSystem=strict",
        *(f"ReadWritePaths={path}" for path in write),
        "ProtectHome=read-only",
        "PrivateTmp=yes",
        "PrivateMounts=yes",
        "ProtectKernelTunables=yes",
        "ProtectKernelModules=yes",
        "ProtectKernelLogs=yes",
        "ProtectControlGroups=yes",
        "ProtectClock=yes",
        "ProtectHostname=yes",
        *(["ProtectProc=invisible"] if hide_processes else []),
        "RestrictNamespaces=yes",
        "RestrictRealtime=yes",
        "RestrictSUIDSGID=yes",
        "LockPersonality=yes",
        "SystemCallArchitectures=native",
        "SystemCallFilter=@system-service",
        "SystemCallErrorNumber=EPERM",  # a call outside the list fails; it does not kill the app
        "DevicePolicy=closed",
    ]


def _writable(opts: KioskOptions) -> tuple[str, ...]:
    """Where the app writes besides its own /run folder: the data folder, and under cage the
    user's runtime folder (cage's Wayland socket; logind mounts it at the session's start)."""
    if opts.display == "cage" and opts.uid is not None:
        return (DATA_DIR, f"-/run/user/{opts.uid}")
    return (DATA_DIR,)


def kiosk_service(opts: KioskOptions) -> str:
    """The app on tty1, restarted when it crashes or freezes; the fallback page after a crash loop."""
    env = {"KIVY_WINDOW": "sdl2", "KIVY_NO_CONFIG": "1", "KIVY_NO_ARGS": "1", "KIVY_NO_FILELOG": "1",
           "KIVY_LOG_MODE": "PYTHON", "PYTHONUNBUFFERED": "1",
           # lgpio (gpiozero's factory on a Pi 5) keeps its notification files in a writable folder.
           "LG_WD": f"/run/{STATE_NAME}"}
    env["SDL_VIDEODRIVER"] = "x11" if opts.display == "cage" else "kmsdrm"
    service = [
        "Type=notify",
        # Under cage the app is cage's child: its notifications come from outside the main process.
        f"NotifyAccess={'all' if opts.display == 'cage' else 'main'}",
        f"User={opts.user}",
        "PAMName=login",  # a logind session on seat0: the DRM, render and input devices are the user's
        "TTYPath=/dev/tty1",
        "TTYReset=yes",
        "TTYVHangup=yes",
        "TTYVTDisallocate=yes",
        "StandardInput=tty",
        "StandardOutput=journal",
        "StandardError=journal",
        "UtmpIdentifier=tty1",
        "UtmpMode=user",
        f"StateDirectory={STATE_NAME}",
        "StateDirectoryMode=0750",
        f"RuntimeDirectory={STATE_NAME}",
        "RuntimeDirectoryMode=0755",
        f"WorkingDirectory=-{DATA_DIR}",
        *(f"Environment={env_assignment(k, v)}" for k, v in sorted(env.items())),
        "ExecStart=" + _command(opts, "kiosk", "run", "--config", CONFIG_PATH,
                                "--kivy-config", KIVY_SETTINGS),
        "Restart=always",
        f"RestartSec={RESTART_S}",
        f"RestartPreventExitStatus={EXIT_USAGE}",
        "TimeoutStartSec=120",
        "TimeoutStopSec=20",
        f"WatchdogSec={WATCHDOG_S}",
        "LogRateLimitIntervalSec=30",
        "LogRateLimitBurst=2000",
        *sandbox(write=_writable(opts)),
        *(f"DeviceAllow={device} {access}" for device, access in DEVICES),
        # No network at all: the app listens on no port, and nothing it runs can open one.
        # Netlink stays: udev tells the app about plugged devices (the accessory, input) through it.
        "RestrictAddressFamilies=AF_UNIX AF_NETLINK",
        "IPAddressDeny=any",
    ]
    unit = [
        "Description=Table companion (kiosk)",
        "After=systemd-user-sessions.service plymouth-quit-wait.service systemd-logind.service",
        f"Conflicts=getty@tty1.service {FALLBACK}",
        f"Wants={POWEROFF_PATH} {LEAVE_PATH}",
        f"OnFailure={FALLBACK}",
        f"StartLimitIntervalSec={START_INTERVAL_S}",
        f"StartLimitBurst={START_BURST}",
    ]
    return _unit(("Unit", unit), ("Service", service), ("Install", ["WantedBy=multi-user.target"]),
                 what="The table companion in kiosk mode: full screen on tty1 from power-on.")


def fallback_service(opts: KioskOptions) -> str:
    """A plain text page on tty1 with the last error, when the app failed too often to restart."""
    fallback = replace(opts, display="kmsdrm")  # plain text on the console: never under cage
    service = [
        "Type=simple",
        f"User={opts.user}",
        "SupplementaryGroups=systemd-journal",  # to quote the app's last log lines on the page
        f"StateDirectory={STATE_NAME}",
        "TTYPath=/dev/tty1",
        "TTYReset=yes",
        "TTYVHangup=yes",
        "TTYVTDisallocate=yes",
        "StandardInput=tty-force",
        "StandardOutput=tty",
        "StandardError=journal",
        "ExecStart=" + _command(fallback, "kiosk", "fallback", "--config", CONFIG_PATH),
        # It only reads (the config folder, the journal) and asks systemctl, which looks at /proc/1.
        *sandbox(write=(), hide_processes=False),
        "DeviceAllow=/dev/tty1 rw",
        "PrivateNetwork=yes",
        "RestrictAddressFamilies=AF_UNIX",
        "IPAddressDeny=any",
    ]
    unit = ["Description=Table companion: the page shown when the app keeps failing",
            "After=systemd-user-sessions.service"]
    return _unit(("Unit", unit), ("Service", service),
                 what="The fallback page: the table companion's last error, instead of a black screen.")


def request_path_unit(action: str, service: str, what: str) -> str:
    return _unit(("Unit", [f"Description=Table companion: {what}"]),
                 ("Path", [f"PathExists={RUNTIME_DIR / action}", f"Unit={service}"]),
                 what=f"Watches for the app's request to {what} (made behind the admin PIN).")


def poweroff_service() -> str:
    return _unit(("Unit", ["Description=Table companion: safe power-off"]),
                 ("Service", ["Type=oneshot", "ExecStart=/usr/bin/systemctl --no-block poweroff"]),
                 what="Powers the table off when the host asks on the screen.")


def leave_service() -> str:
    service = ["Type=oneshot",
               f"ExecStart=/usr/bin/systemctl --no-block stop {SERVICE}",
               "ExecStart=/usr/bin/systemctl --no-block start getty@tty2.service",
               "ExecStart=/usr/bin/chvt 2"]
    return _unit(("Unit", ["Description=Table companion: leave kiosk mode until the next start"]),
                 ("Service", service),
                 what="Stops the app and opens a login prompt on tty2 when the host asks on the screen.")


def unit_files(opts: KioskOptions) -> dict[str, str]:
    """Every unit by its file name."""
    return {
        SERVICE: kiosk_service(opts),
        FALLBACK: fallback_service(opts),
        POWEROFF_PATH: request_path_unit(POWEROFF, POWEROFF_SERVICE, "power off"),
        POWEROFF_SERVICE: poweroff_service(),
        LEAVE_PATH: request_path_unit(LEAVE, LEAVE_SERVICE, "leave kiosk mode"),
        LEAVE_SERVICE: leave_service(),
    }


def logind_dropin() -> str:
    return (f"# {HEADER}\n# No login prompts on the other consoles either: Ctrl+Alt+F2 leads nowhere.\n"
            "[Login]\nNAutoVTs=0\nReserveVT=0\n")


def journald_dropin() -> str:
    return (f"# {HEADER}\n# The journal stays small: under the read-only overlay it lives in memory.\n"
            "[Journal]\nSystemMaxUse=64M\nRuntimeMaxUse=32M\nMaxRetentionSec=1month\n")


def sysctl_file() -> str:
    return (f"# {HEADER}\n# No magic SysRq keys: a keyboard at the table cannot reboot or kill anything.\n"
            "kernel.sysrq = 0\n")


def udev_rule(opts: KioskOptions) -> str:
    """The accessory as ``/dev/table-accessory``, owned by the kiosk's user, for each USB id."""
    lines = [f"# {HEADER}",
             f"# The USB timer accessory (accessory.usb_ids) as /dev/{ACCESSORY_LINK}, for user {opts.user}."]
    for usb_id in opts.usb_ids:
        vid, pid = usb_id.split(":")
        lines.append(f'SUBSYSTEM=="tty", ATTRS{{idVendor}}=="{vid}", ATTRS{{idProduct}}=="{pid}", '
                     f'SYMLINK+="{ACCESSORY_LINK}", OWNER="{opts.user}", MODE="0660"')
    return "\n".join(lines) + "\n"


def kivy_settings(opts: KioskOptions) -> str:
    """Kivy's settings for the kiosk, applied over Kivy's defaults by ``companion kiosk run``."""
    return "\n".join([
        f"# Kivy settings for the kiosk. {HEADER}",
        "# [input] replaces Kivy's own list: exactly one provider reads the panel",
        "# (two would read every tap twice).",
        "# The cursor is hidden by the app (Window.show_cursor), not by Kivy's show_cursor option,",
        "# which breaks touch on some panels.",
        "",
        "[graphics]",
        "# Kivy turns the picture and the touches together; the kernel's video= option turns the console.",
        f"rotation = {opts.rotate}",
        "",
        "[input]",
        f"touch = {TOUCH[opts.touch]}",
        "",
    ])


def kiosk_config(pin_hash: str) -> str:
    """The app's config on the table (``/var/lib/table-companion/config.toml``)."""
    return "\n".join([
        "# The table companion's settings on this table. Written by `companion kiosk install`;",
        "# every key is in the README's config table. The Settings screen (behind the admin PIN)",
        "# rewrites this file and keeps these comments.",
        "",
        "[ui]",
        "kiosk = true",
        "fullscreen = true",
        "# Only the admin PIN's hash, never the PIN: `companion kiosk set-pin` changes it.",
        f'admin_pin_hash = "{pin_hash}"',
        "",
        "[paths]",
        f'database = "{DATABASE_PATH}"',
        "",
    ])


def cmdline_tokens(opts: KioskOptions) -> list[str]:
    """What the kernel's command line gets: no console blanking, no console cursor, the
    console's rotation (the boot text and the fallback page) for the panel."""
    tokens = ["consoleblank=0", "vt.global_cursor_default=0"]
    if opts.rotate and opts.panel is not None:
        connector, mode = PANELS[opts.panel]
        tokens.append(f"video={connector}:{mode},rotate={opts.rotate}")
    return tokens


def token_key(token: str) -> str:
    """Which earlier token a new one replaces: ``consoleblank=600`` for ``consoleblank=0``;
    ``video=DSI-1:...`` only for the same connector."""
    if token.startswith("video=") and ":" in token:
        return token.split(":", 1)[0] + ":"
    return token.split("=", 1)[0] + "=" if "=" in token else token
