"""The one TOML config file: every key has a default, every error names the key and line.

Read with the standard library's ``tomllib``. The file lives in platformdirs'
user config dir unless ``--config PATH`` names another. A missing default file
means all defaults; a named file that is missing is an error.
"""

from __future__ import annotations

import difflib
import math
import os
import re
import stat
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs

from companion.atomic import write_atomic
from companion.documents import DocumentError, decode_utf8, parse_toml, read_capped
from companion.errors import ConfigError, quote
from companion.timers import MAX_TIMER_S, MIN_TIMER_S
from kiosk.pin import CONFIG_MIN_COST_N, PinError, parse_pin_hash

APP_NAME = "table-companion"
BCM_PINS = range(0, 28)  # GPIO0..GPIO27 on the 40-pin header
BUILTIN_PRESETS: dict[str, float] = {"negotiation": 60.0, "market": 60.0}


def default_config_path() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


def default_database_path() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME)) / "companion.sqlite3"


class _Bad(ValueError):
    """A value failed its check; carries the reason without the key (added by the caller)."""


Check = Callable[[Any], Any]


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Bad("must be a number")
    if not math.isfinite(value):
        raise _Bad("must be a finite number")
    return float(value)


def seconds(*, allow_zero: bool = False, at_most: float = MAX_TIMER_S) -> Check:
    """A duration as a TOML number of seconds. A timer's (the default *at_most*, a day) is
    held to what a typed one is, 1 s to 24 h (or 0 where *allow_zero*); a hardware timing with
    its own smaller *at_most* (the button's hold and bounce, the alarm) may be under 1 s."""
    at_least = MIN_TIMER_S if at_most == MAX_TIMER_S else 0.0

    def check(value: Any) -> float:
        s = _number(value)
        if s < 0 or (s == 0 and not allow_zero):
            raise _Bad("must not be negative" if allow_zero else "must be a positive number of seconds")
        if at_least and (0 < s < at_least or s > at_most):
            raise _Bad(f"must be {'0 or ' if allow_zero else ''}from {at_least:g} s to {at_most:g} s (24 h)")
        if s > at_most:
            raise _Bad(f"must be at most {at_most:g} s")
        return s
    return check


def seconds_list(value: Any) -> tuple[float, ...]:
    if not isinstance(value, list):
        raise _Bad("must be a list of seconds, like [10, 3]")
    positive = seconds()  # each 1 s to 24 h, as a timer's length
    return tuple(sorted({positive(v) for v in value}, reverse=True))


def rate_hz(value: Any) -> float:
    hz = _number(value)
    if not 0 < hz <= 100:
        raise _Bad("must be more than 0 and at most 100")
    return hz


def choice(*options: str) -> Check:
    def check(value: Any) -> str:
        if value not in options:
            raise _Bad("must be one of " + ", ".join(repr(o) for o in options))
        return str(value)
    return check


def pin(value: Any) -> int | None:
    """A BCM pin number, or ``false`` for a part that is not wired."""
    if value is False:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value not in BCM_PINS:
        raise _Bad("must be a BCM pin number from 0 to 27, or false when not wired")
    return int(value)


def pin_list(value: Any) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise _Bad("must be a list of BCM pin numbers, like [5, 6, 13]")
    pins = []
    for v in value:
        p = pin(v)
        if p is None:
            raise _Bad("must list BCM pin numbers only")
        pins.append(p)
    return tuple(pins)


def boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _Bad("must be true or false")
    return value


def window_size(value: Any) -> str:
    m = re.fullmatch(r"(\d{3,4})x(\d{3,4})", value) if isinstance(value, str) else None
    if m is None or not all(200 <= int(g) <= 4096 for g in m.groups()):
        raise _Bad("must be WIDTHxHEIGHT in pixels, like 800x480")
    return str(value)


def pin_hash(value: Any) -> str:
    """The admin PIN's scrypt hash (``companion kiosk set-pin`` writes it), or "" for none."""
    if not isinstance(value, str):
        raise _Bad("must be a string: the hash `companion kiosk set-pin` writes")
    if value == "":
        return value
    try:
        parsed = parse_pin_hash(value)
    except PinError as exc:
        raise _Bad(str(exc).removeprefix("PIN hash: ")) from None
    if parsed.cost_n < CONFIG_MIN_COST_N:
        raise _Bad(f"too cheap a hash (scrypt N {parsed.cost_n}, at least {CONFIG_MIN_COST_N}): "
                   "set the PIN again with `companion kiosk set-pin`")
    return value


def usb_ids(value: Any) -> tuple[str, ...]:
    """USB ids as ``"VID:PID"`` in hex, like ``"2e8a:0005"``."""
    if not isinstance(value, list) or not all(
            isinstance(v, str) and re.fullmatch(r"[0-9A-Fa-f]{4}:[0-9A-Fa-f]{4}", v) for v in value):
        raise _Bad('must be a list of USB ids as "VID:PID" in hex, like ["2e8a:0005"]')
    return tuple(v.lower() for v in value)


def percent(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
        raise _Bad("must be a whole number from 0 to 100")
    return int(value)


def text(value: Any) -> str:
    if not isinstance(value, str):
        raise _Bad("must be a string")
    return value


def broker_url(value: Any) -> str:
    """The venue's MQTT broker as ``mqtt://host[:port]`` or ``mqtts://host[:port]`` (TLS), or ""
    for none."""
    if not isinstance(value, str):
        raise _Bad("must be a string like \"mqtt://broker.local:1883\"")
    if value == "":
        return value
    from urllib.parse import urlsplit

    try:
        url = urlsplit(value)
        port = url.port
    except ValueError as exc:
        raise _Bad(f"is not a broker address ({exc})") from None
    if url.scheme not in ("mqtt", "mqtts") or not url.hostname or url.path not in ("", "/") \
            or url.query or url.fragment or url.username or url.password:
        raise _Bad('must be mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (credentials go in '
                   'venue.username and venue.password)')
    if port == 0:
        raise _Bad("must name a port from 1 to 65535")
    return value


def topic_level(what: str, *, levels: bool = False, empty: bool = True) -> Check:
    """A name that goes into MQTT topics: letters, digits, ``-`` and ``_`` (and ``/`` between
    levels where *levels*), at most 64 characters; or "" (unset) where *empty*."""
    pattern = r"[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*" if levels else r"[A-Za-z0-9_-]+"

    def check(value: Any) -> str:
        if not isinstance(value, str):
            raise _Bad("must be a string")
        if (value or not empty) and (len(value) > 64 or not re.fullmatch(pattern, value)):
            split = ", levels split by '/'" if levels else ""
            raise _Bad(f"{what} is 1-64 letters, digits, '-' or '_'{split}")
        return value
    return check


@dataclass(frozen=True)
class Key:
    """One documented setting: where it lives, its default, and its check."""

    section: str
    name: str
    default: Any
    check: Check
    doc: str

    @property
    def path(self) -> str:
        return f"{self.section}.{self.name}"


SCHEMA: tuple[Key, ...] = (
    Key("timer", "warnings_s", [10, 3], seconds_list,
        "Remaining times (s) at which a running timer warns; each fires once a run."),
    Key("timer", "tick_hz", 10, rate_hz, "Display updates per second (bar, LED bar)."),
    Key("turn_clock", "budget_s", 300, seconds(), "Each player's time budget for the turn clock."),
    Key("turn_clock", "increment_s", 0, seconds(allow_zero=True),
        "Time given back to a player after each of their turns."),
    Key("gpio", "mode", "auto", choice("auto", "real", "mock", "off"),
        "auto: real pins on a Raspberry Pi, gpiozero's MockFactory elsewhere."),
    Key("gpio", "buzzer_pin", 18, pin, "BCM pin of the buzzer (false: none)."),
    Key("gpio", "buzzer_type", "active", choice("active", "tonal"),
        "active: a buzzer that beeps when powered; tonal: a passive piezo driven with PWM tones."),
    Key("gpio", "bar_pins", [5, 6, 13, 19, 26, 16, 20, 21], pin_list,
        "BCM pins of the LED bar, the LED that goes out last first ([]: none)."),
    Key("gpio", "status_led_pin", 24, pin,
        "BCM pin of the status LED: on while running, slow blink paused, fast blink alarm."),
    Key("gpio", "button_pin", 17, pin,
        "BCM pin of the button (to ground; internal pull-up): press start/pause, hold reset."),
    Key("gpio", "button_hold_s", 2.0, seconds(at_most=10), "How long a press must last to reset."),
    Key("gpio", "button_bounce_s", 0.02, seconds(allow_zero=True, at_most=0.5),
        "Edges closer than this to the last one are contact bounce and ignored."),
    Key("gpio", "alarm_s", 4.0, seconds(at_most=600),
        "How long the expiry alarm sounds unless the button silences it."),
    Key("paths", "database", "", text, "The SQLite database (empty: the user data dir)."),
    Key("ui", "language", "en", choice("en", "hu", "ru"), "The touch app's language: en, hu or ru."),
    Key("ui", "size", "800x480", window_size, "Window size when not full screen, WIDTHxHEIGHT."),
    Key("ui", "fullscreen", False, boolean, "Fill the screen (kiosk mode sets this itself)."),
    Key("ui", "kiosk", False, boolean, "Kiosk mode: settings sit behind the admin PIN."),
    Key("ui", "volume", 80, percent,
        "Loudness of the app's own sounds (warnings, alarm) on the Pi's audio, 0-100 %."),
    Key("ui", "admin_pin_hash", "", pin_hash,
        "The admin PIN's salted scrypt hash (never the PIN): `companion kiosk set-pin` writes it."),
    Key("accessory", "port", "auto", text,
        "The timer accessory's serial port: auto (find it by USB id), none, or a path / pyserial URL."),
    Key("accessory", "usb_ids", ["2e8a:0005", "2341:0043", "2341:0001", "2341:8036"], usb_ids,
        "USB ids (VID:PID) that auto takes for the accessory: a Pico running MicroPython, Arduinos."),
    Key("accessory", "brightness", 80, percent, "The accessory's display and LED brightness, 0-100 %."),
    Key("camera", "source", "auto", text,
        "The overhead camera: auto, none, a device index or path, or an image or video file."),
    Key("camera", "layout", "", text,
        "The table layout for the camera (markers and pieces, JSON); empty: the Volatio set's."),
    Key("venue", "broker", "", broker_url,
        "The venue's MQTT broker, mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (TLS); empty: none."),
    Key("venue", "table", "", topic_level("a table id"),
        "This table's id on the broker, like t07 (needed with a broker)."),
    Key("venue", "prefix", "companion", topic_level("a topic prefix", levels=True, empty=False),
        "The venue's topic prefix: the table publishes under PREFIX/TABLE/."),
    Key("venue", "username", "", text, "The broker's user name for this table (empty: none)."),
    Key("venue", "password", "", text, "The broker's password for that user."),
    Key("venue", "ca_file", "", text,
        "With mqtts://, the CA certificate file the broker's certificate is checked against "
        "(empty: the system's CAs)."),
    Key("venue", "accept_commands", False, boolean,
        "Take start, pause, reset, add-time and announcements from the venue."),
    Key("venue", "discovery_prefix", "homeassistant", topic_level("a discovery prefix", levels=True),
        "Home Assistant's MQTT discovery prefix; empty: not announced to Home Assistant."),
)
PRESETS_SECTION = "timer.presets"
RETIRED: dict[str, str] = {
    "ui.admin_pin": "a PIN in plain text is no longer read: run `companion kiosk set-pin` (it stores only "
                    "the PIN's hash, as ui.admin_pin_hash, and removes this line)",
}
"""Keys older versions read, each with what to do instead: a clearer error than "unknown key"."""
_KEYS = {k.path: k for k in SCHEMA}
_SECTIONS = {k.section for k in SCHEMA} | {PRESETS_SECTION}


@dataclass(frozen=True)
class Config:
    """Every setting, checked. Built by :func:`load_config` or :func:`parse_config`."""

    values: Mapping[str, Any]
    presets: Mapping[str, float] = field(default_factory=lambda: dict(BUILTIN_PRESETS))
    source: Path | None = None

    def __getitem__(self, path: str) -> Any:
        return self.values[path]

    @property
    def database_path(self) -> Path:
        db = str(self.values["paths.database"])
        return Path(db).expanduser() if db else default_database_path()


def defaults() -> Config:
    return Config({k.path: k.check(k.default) for k in SCHEMA})


def load_config(path: Path | None) -> Config:
    """Read *path*, or the default file when *path* is None (all defaults if that is missing).

    At most 1 MiB is read (:func:`companion.documents.read_capped`), as strict UTF-8.

    :raises ConfigError: for a missing named file, one too large, bad TOML, an unknown key, or
        a bad value.
    """
    chosen = path if path is not None else default_config_path()
    try:
        source_text = decode_utf8(read_capped(chosen, "a config file"))
    except FileNotFoundError:
        if path is None:
            return Config(defaults().values, source=None)
        raise ConfigError(str(chosen), None, "no such file") from None
    except OSError as exc:
        raise ConfigError(str(chosen), None, f"cannot read it ({exc.strerror})") from None
    except DocumentError as exc:
        raise ConfigError(str(chosen), None, exc.why) from None
    return parse_config(source_text, str(chosen), source=chosen)


def parse_config(source_text: str, name: str = "<config>", *, source: Path | None = None) -> Config:
    """Check a TOML document against :data:`SCHEMA`.

    The TOML is read within :mod:`companion.documents`' limits (64 levels, 64-bit integers).

    :raises ConfigError: naming the key and, where the file shows it, the line.
    """
    try:
        doc = parse_toml(source_text)
    except DocumentError as exc:
        line = exc.line
        if line is None and exc.key is not None:  # a number in a list is found by the list's key
            line = key_lines(source_text).get(exc.key.split("[", 1)[0])
        raise ConfigError(name, exc.key, exc.why, line) from None
    lines = key_lines(source_text)

    def fail(key: str, why: str) -> ConfigError:
        return ConfigError(name, key, why, lines.get(key))

    values = {k.path: k.check(k.default) for k in SCHEMA}
    presets = dict(BUILTIN_PRESETS)
    for section, body in doc.items():
        if section not in _SECTIONS:
            raise fail(section, _unknown(section, _SECTIONS, "section"))
        if not isinstance(body, dict):
            raise fail(section, "must be a [table]")
        for key, value in body.items():
            path = f"{section}.{key}"
            if path == PRESETS_SECTION:
                if not isinstance(value, dict):
                    raise fail(path, "must be a [timer.presets] table of name = seconds")
                for preset, secs in value.items():
                    ppath = f"{path}.{preset}"
                    if not re.fullmatch(r"[A-Za-z0-9_-]{1,32}", preset):
                        raise fail(ppath, "a preset name is 1-32 letters, digits, '-' or '_'")
                    try:
                        presets[preset] = seconds()(secs)
                    except _Bad as bad:
                        raise fail(ppath, f"{bad} (got {quote(secs)})") from None
                continue
            spec = _KEYS.get(path)
            if path in RETIRED:
                raise fail(path, RETIRED[path])
            if spec is None:
                raise fail(path, _unknown(path, set(_KEYS) | {PRESETS_SECTION}, "key"))
            try:
                values[path] = spec.check(value)
            except _Bad as bad:
                raise fail(path, f"{bad} (got {quote(value)})") from None
    _check_pins(values, lines, fail)
    return Config(values, presets, source)


def _check_pins(values: Mapping[str, Any], lines: Mapping[str, int],
                fail: Callable[[str, str], ConfigError]) -> None:
    owners: dict[int, str] = {}
    singles = ("gpio.buzzer_pin", "gpio.status_led_pin", "gpio.button_pin")
    entries: list[tuple[str, int | None]] = [(k, values[k]) for k in singles]
    entries += [("gpio.bar_pins", p) for p in values["gpio.bar_pins"]]
    for key, p in entries:
        if p is None:
            continue
        if p in owners:
            other = owners[p]
            if other == key:
                raise fail(key, f"GPIO{p} is listed twice; one pin drives one part")
            # Name the key the host wrote last (the other may be a default they never saw).
            blamed = max((other, key), key=lambda k: lines.get(k, -1))
            raise fail(blamed, f"GPIO{p} is used by both {other} and {key}; one pin drives one part")
        owners[p] = key


def _unknown(path: str, known: set[str], what: str) -> str:
    close = difflib.get_close_matches(path, sorted(known), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown {what}{hint}"


_HEADER = re.compile(r"^\[\[?([^\]]+)\]\]?\s*(?:#.*)?$")  # linear: no two parts compete for a space
_PART = r"""(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')"""
_ASSIGN = re.compile(rf"^({_PART}(?:\s*\.\s*{_PART})*)\s*=")


def _dotted(text: str) -> str:
    return ".".join(part.strip("\"'") for part in re.findall(_PART, text))


def key_lines(source_text: str) -> dict[str, int]:
    """Where each table and key is first written: ``{"gpio.buzzer_pin": 7, ...}``.

    tomllib keeps no positions, so this reads the lines itself. It only has to be
    right for what people write in a config file; a key it cannot place is
    reported without a line.
    """
    lines: dict[str, int] = {}
    table = ""
    for number, raw in enumerate(source_text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if m := _HEADER.match(line):
            table = _dotted(m.group(1))
            lines.setdefault(table, number)
        elif m := _ASSIGN.match(line):
            key = _dotted(m.group(1))
            lines.setdefault(f"{table}.{key}" if table else key, number)
    return lines


def save_settings(path: Path, changes: Mapping[str, Any], *, remove: Iterable[str] = ()) -> Config:
    """Write *changes* (``{"gpio.buzzer_pin": 12, "timer.presets.auction": 45}``) into the TOML
    file at *path*, keeping the host's comments and layout (tomlkit), and return the new config.
    Keys in *remove* (such as a :data:`RETIRED` one) are taken out of the file if there.

    The whole file is checked before it is written, and written atomically
    (:func:`companion.atomic.write_atomic`: a temporary file in the same folder, synced, renamed
    over, the folder synced): a bad value or a pulled plug leaves the old file as it was. A new
    file is 0600; an existing one keeps its permissions and owner, but one that holds the admin
    PIN's hash and that others may read becomes 0600. ``None`` is written as ``false`` (not wired).

    :raises ConfigError: for a value the schema refuses, or a file that cannot be written.
    """
    import tomlkit

    try:
        doc = tomlkit.parse(path.read_text(encoding="utf-8")) if path.exists() else tomlkit.document()
    except (OSError, UnicodeDecodeError, tomlkit.exceptions.ParseError) as exc:
        raise ConfigError(str(path), None, f"cannot update it ({exc})") from None
    for key in remove:
        section, name = key.rsplit(".", 1)
        holder: Any = doc
        for part in section.split("."):
            holder = holder.get(part) if hasattr(holder, "get") else None
        if holder is not None and hasattr(holder, "get") and name in holder:
            del holder[name]
    for key, value in changes.items():
        section, name = key.rsplit(".", 1)
        table: Any = doc
        for part in section.split("."):
            if part not in table:
                table[part] = tomlkit.table()
            table = table[part]
        table[name] = False if value is None else list(value) if isinstance(value, tuple) else value
    text = tomlkit.dumps(doc)
    config = parse_config(text, str(path), source=path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        secret = bool(config["ui.admin_pin_hash"] or config["venue.password"])
        mode, owner = _config_file_mode(path, holds_secret=secret)
        write_atomic(path, text.encode("utf-8"), mode, owner=owner)
    except OSError as exc:
        raise ConfigError(str(path), None, f"cannot write it ({exc.strerror or exc})") from None
    return config


def _config_file_mode(path: Path, *, holds_secret: bool) -> tuple[int, tuple[int, int] | None]:
    """The permission bits and owner the config file at *path* is written with.

    A new file is 0600. An existing one keeps its mode, unless it holds the admin PIN's hash and
    its group or anyone else may read it: then only its owner may (0640 and 0644 become 0600; the
    scrypt hash of a 4-digit PIN is only 10,000 guesses from the PIN). The venue's broker password
    counts as a secret too. Root editing another
    user's file (the kiosk's) gives the new file that owner back.
    """
    try:
        old = path.stat()
    except FileNotFoundError:
        return 0o600, None
    mode = stat.S_IMODE(old.st_mode)
    if holds_secret and mode & 0o077:
        mode &= 0o700
    return mode, (old.st_uid, old.st_gid) if os.geteuid() == 0 else None
