"""The admin PIN: kept only as a slow, salted hash, and checked with a limit on wrong tries.

A table in a café is a public place: the config file may be read by anyone who gets the SD
card, so it holds no PIN, only ``scrypt$N$r$p$SALT$KEY`` (``hashlib.scrypt``, a random
16-byte salt, base64 without padding). A 4-digit PIN is still only 10,000 guesses for someone
who has the file; the hash makes each guess cost tens of milliseconds on a PC and makes the
PIN impossible to read off, which is what it is for. At the screen, :class:`PinGuard` turns
away every try for a while after a few wrong ones, so the pad cannot be brute-forced by hand;
:class:`PinTriesFile` keeps its count on disk, so that pulling the plug does not reset it.

Standard library only; the guard takes a clock (monotonic seconds) and never reads the time.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import logging
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

from companion.atomic import write_atomic
from companion.clock import Clock
from companion.errors import CompanionError

log = logging.getLogger(__name__)

SCHEME = "scrypt"
COST_N = 2**15
"""scrypt's CPU/memory cost: about 0.1 s and 32 MiB on a PC, a few tenths of a second on a Pi 4."""
BLOCK_R = 8
PARALLEL_P = 1
SALT_BYTES = 16
KEY_BYTES = 32
MIN_COST_N = 2**10
"""The cheapest hash :func:`parse_pin_hash` reads (tests make cheap ones); the config asks more."""
CONFIG_MIN_COST_N = 2**14
"""The cheapest hash the config file accepts: a hand-made weak hash is refused there."""
MAX_COST_N = 2**20
_MAXMEM = 256 * 1024 * 1024
_PIN = re.compile(r"\d{4,8}")


class PinError(CompanionError, ValueError):
    """A PIN or a stored PIN hash that cannot be used. Never quotes a PIN."""


def is_pin(text: str) -> bool:
    """Is *text* a PIN the pad can type: 4 to 8 digits (ASCII)."""
    return _PIN.fullmatch(text) is not None and text.isascii()


@dataclass(frozen=True)
class PinHash:
    """One stored PIN: scrypt's parameters, the salt and the derived key."""

    cost_n: int
    block_r: int
    parallel_p: int
    salt: bytes
    key: bytes

    def to_text(self) -> str:
        """The form the config file keeps: ``scrypt$N$r$p$SALT$KEY``."""
        return "$".join((SCHEME, str(self.cost_n), str(self.block_r), str(self.parallel_p),
                         _b64(self.salt), _b64(self.key)))

    def matches(self, pin: str) -> bool:
        """Does *pin* give this hash? In constant time for a given length."""
        return hmac.compare_digest(_derive(pin, self.salt, self.cost_n, self.block_r, self.parallel_p,
                                           len(self.key)), self.key)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    if not re.fullmatch(r"[A-Za-z0-9+/]+", text):
        raise binascii.Error("not base64")
    return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)


def _derive(pin: str, salt: bytes, n: int, r: int, p: int, length: int) -> bytes:
    return hashlib.scrypt(pin.encode("ascii"), salt=salt, n=n, r=r, p=p, maxmem=_MAXMEM, dklen=length)


def hash_pin(pin: str, *, cost_n: int = COST_N, salt: bytes | None = None) -> str:
    """The stored form of *pin*: a fresh random salt each time, so two hashes of one PIN differ.

    Takes about 0.1 s on a PC (more on a Pi): main thread callers accept that once per change.

    :raises PinError: for a PIN that is not 4 to 8 digits, or a cost out of range.
    """
    if not is_pin(pin):
        raise PinError("PIN: must be 4 to 8 digits (the PIN itself is not shown)")
    if not _is_cost(cost_n):
        raise PinError(f"PIN hash: scrypt's N must be a power of two from {MIN_COST_N} to {MAX_COST_N} "
                       f"(got {cost_n!r})")
    salt = os.urandom(SALT_BYTES) if salt is None else salt
    key = _derive(pin, salt, cost_n, BLOCK_R, PARALLEL_P, KEY_BYTES)
    return PinHash(cost_n, BLOCK_R, PARALLEL_P, salt, key).to_text()


def _is_cost(n: int) -> bool:
    return MIN_COST_N <= n <= MAX_COST_N and n & (n - 1) == 0


def parse_pin_hash(text: str) -> PinHash:
    """Read a stored hash (:meth:`PinHash.to_text`'s form).

    :raises PinError: naming what is wrong, for anything else.
    """
    parts = text.split("$")
    if len(parts) != 6 or parts[0] != SCHEME:
        raise PinError("PIN hash: must be scrypt$N$r$p$SALT$KEY as `companion kiosk set-pin` writes it")
    try:
        n, r, p = (int(v) for v in parts[1:4])
        salt, key = _unb64(parts[4]), _unb64(parts[5])
    except (ValueError, binascii.Error):
        raise PinError("PIN hash: N, r and p must be numbers and SALT and KEY base64") from None
    if not _is_cost(n) or not 1 <= r <= 32 or not 1 <= p <= 16:
        raise PinError(f"PIN hash: parameters out of range (N {n}, r {r}, p {p})")
    if len(salt) < 8 or len(key) < 16:
        raise PinError("PIN hash: the salt or the key is too short")
    return PinHash(n, r, p, salt, key)


def verify_pin(pin: str, stored: str) -> bool:
    """Does *pin* match the stored hash *stored*? A PIN that is not 4-8 digits never does.

    :raises PinError: for a stored hash that cannot be read.
    """
    parsed = parse_pin_hash(stored)
    return is_pin(pin) and parsed.matches(pin)


@dataclass(frozen=True)
class PinVerdict:
    """What one try at the pad came to.

    ``accepted``: the PIN was right. ``locked_for_s``: when not accepted, how long (monotonic
    seconds) every try will now be turned away without being checked; 0 when the next try is
    welcome at once.
    """

    accepted: bool
    locked_for_s: float = 0.0


TRIES_FILE = "pin-tries.json"
"""The lock-out's file, in the app's data folder (beside the database)."""


@dataclass(frozen=True)
class PinTries:
    """The pad's lock-out as it is kept across a restart.

    ``wrong``: wrong PINs in a row. ``locked_for_s``: what was left of the lock-out when this
    was written (0 for none). Monotonic time does not survive a reboot, so a restart resumes the
    lock-out for ``locked_for_s`` counted from the start: longer than was left, never shorter.
    """

    wrong: int = 0
    locked_for_s: float = 0.0


class PinTriesFile:
    """:class:`PinTries` in a small JSON file, written atomically with mode 0600.

    Main thread only (the guard's thread).
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> PinTries | None:
        """What the file holds; a fresh :class:`PinTries` when there is no file.

        None when the file cannot be read or makes no sense: the guard then assumes the worst.
        """
        try:
            doc = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return PinTries()
        except (OSError, UnicodeDecodeError, ValueError):
            return None
        wrong, locked = (doc.get("wrong"), doc.get("locked_for_s")) if isinstance(doc, dict) else (None, None)
        if (isinstance(wrong, bool) or not isinstance(wrong, int) or wrong < 0
                or isinstance(locked, bool) or not isinstance(locked, (int, float))
                or not math.isfinite(locked) or locked < 0):
            return None
        return PinTries(wrong, float(locked))

    def save(self, tries: PinTries) -> None:
        """:raises OSError: when it cannot be written (the old file is then as it was)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"wrong": tries.wrong, "locked_for_s": tries.locked_for_s}) + "\n"
        write_atomic(self.path, text.encode("ascii"), 0o600)


class PinGuard:
    """The admin PIN at the pad: right or wrong, and a lock-out after several wrong tries.

    After *free_tries* wrong PINs in a row every try is turned away for *lockout_s*; each wrong
    PIN after a lock-out starts a lock-out twice as long as the last, up to *max_lockout_s*. A
    right PIN clears the count. During a lock-out a PIN is not even checked, so the pad answers
    nothing about it.

    With *tries* (a :class:`PinTriesFile`) the count and the lock-out survive a restart: the
    guard starts from the file, resuming a lock-out for what was left of it when it was written,
    counted from now; a file that cannot be read counts as *free_tries* wrong PINs and a
    lock-out of *lockout_s*. Every change is written at once; a file that cannot be written is
    said once at WARNING and the guard goes on in memory. Without *tries* a restart clears it all.

    Main thread only; *clock* gives monotonic seconds.

    :raises PinError: (constructor) for a stored hash that cannot be read.
    """

    def __init__(self, stored: str, clock: Clock, *, free_tries: int = 3, lockout_s: float = 30.0,
                 max_lockout_s: float = 300.0, tries: PinTriesFile | None = None) -> None:
        self._hash = parse_pin_hash(stored)
        self._clock = clock
        self.free_tries = free_tries
        self.lockout_s = lockout_s
        self.max_lockout_s = max_lockout_s
        self._file = tries
        self._save_failed = False
        self._wrong = 0
        self._locked_until = float("-inf")
        self._saved = PinTries()
        if tries is not None:
            saved = tries.load()
            if saved is None:
                log.warning("the PIN pad's count of wrong tries in %s cannot be read: locked for %g s",
                            tries.path, lockout_s)
                saved = PinTries(free_tries, lockout_s)
            self._saved = saved
            self._wrong = saved.wrong
            if saved.locked_for_s > 0:
                self._locked_until = clock.now() + min(saved.locked_for_s, max_lockout_s)

    def lockout_for(self, wrong: int) -> float:
        """The lock-out (s) that the *wrong*-th wrong PIN in a row starts; 0 for a free try."""
        if wrong < self.free_tries:
            return 0.0
        return min(self.max_lockout_s, self.lockout_s * 2.0 ** min(wrong - self.free_tries, 64))

    def wait_s(self) -> float:
        """Seconds until a try is checked again (0 when it is now)."""
        now = self._clock.now()
        self._settle(now)
        return max(0.0, self._locked_until - now)

    def check(self, pin: str) -> PinVerdict:
        """One try. A right PIN is accepted unless the pad is locked out."""
        now = self._clock.now()
        if now < self._locked_until:
            return PinVerdict(False, self._locked_until - now)
        if is_pin(pin) and self._hash.matches(pin):
            self._wrong = 0
            self._save(PinTries())
            return PinVerdict(True)
        self._wrong += 1
        lock_s = self.lockout_for(self._wrong)
        if lock_s > 0:
            self._locked_until = now + lock_s
        self._save(PinTries(self._wrong, lock_s))
        return PinVerdict(False, lock_s)

    def _settle(self, now: float) -> None:
        """Once a lock-out has run out, the file says so: a restart then does not serve it again."""
        if self._saved.locked_for_s > 0 and now >= self._locked_until:
            self._save(PinTries(self._wrong, 0.0))

    def _save(self, tries: PinTries) -> None:
        if self._file is None or tries == self._saved:
            return
        try:
            self._file.save(tries)
        except OSError as exc:
            if not self._save_failed:
                log.warning("the PIN pad's count of wrong tries cannot be written to %s (%s): a restart "
                            "clears it", self._file.path, exc.strerror or exc)
            self._save_failed = True
            return
        self._saved = tries
