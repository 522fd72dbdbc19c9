"""The admin PIN: only its scrypt hash is kept, wrong PINs are refused, and the pad locks out."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.config import parse_config
from companion.errors import ConfigError
from kiosk.pin import (
    CONFIG_MIN_COST_N,
    MIN_COST_N,
    PinError,
    PinGuard,
    PinVerdict,
    hash_pin,
    parse_pin_hash,
    verify_pin,
)
from tests.conftest import FakeClock
from tests.kiosk.conftest import companion

pins = st.from_regex(r"[0-9]{4,8}", fullmatch=True)
CHEAP = MIN_COST_N  # tests hash cheaply; the config refuses hashes this cheap


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(pin=pins, other=pins)
def test_pin_hash_round_trip(pin: str, other: str) -> None:
    stored = hash_pin(pin, cost_n=CHEAP)
    assert verify_pin(pin, stored)
    assert verify_pin(other, stored) == (other == pin)
    assert parse_pin_hash(stored).to_text() == stored


def test_pin_hash_is_scrypt_of_the_pin_with_a_fresh_salt() -> None:
    """Not an encoding of the PIN: the key is scrypt's, and each hash has its own salt."""
    first, second = hash_pin("97531864", cost_n=CHEAP), hash_pin("97531864", cost_n=CHEAP)
    assert first != second
    parsed = parse_pin_hash(first)
    assert (parsed.cost_n, parsed.block_r, parsed.parallel_p, len(parsed.salt), len(parsed.key)) == (CHEAP, 8, 1, 16, 32)
    assert parsed.key == hashlib.scrypt(b"97531864", salt=parsed.salt, n=CHEAP, r=8, p=1, dklen=32)
    assert b"97531864" not in base64.b64decode(first.split("$")[5] + "=")
    assert "97531864" not in first


def test_pin_default_cost_is_slow_enough_for_the_config() -> None:
    stored = hash_pin("2468")
    assert parse_pin_hash(stored).cost_n >= CONFIG_MIN_COST_N
    assert parse_config(f'[ui]\nadmin_pin_hash = "{stored}"\n')["ui.admin_pin_hash"] == stored


@pytest.mark.parametrize("pin", ["123", "123456789", "12a4", "١٢٣٤", "", " 1234"])
def test_pin_refused_when_not_4_to_8_digits(pin: str) -> None:
    with pytest.raises(PinError, match=r"^PIN: must be 4 to 8 digits \(the PIN itself is not shown\)$"):
        hash_pin(pin, cost_n=CHEAP)
    assert not verify_pin(pin, hash_pin("1234", cost_n=CHEAP))


@pytest.mark.parametrize("stored", ["", "1234", "bcrypt$1$2$3$AAAA$BBBB", "scrypt$1000$8$1$AAAAAAAAAAA$BBBBBBBBBBBBBBBBBBBBBB",
                                    "scrypt$x$8$1$AAAA$BBBB", "scrypt$1024$8$1$!!!!$BBBB"])
def test_pin_hash_unreadable_is_refused(stored: str) -> None:
    with pytest.raises(PinError):
        parse_pin_hash(stored)


def test_pin_guard_right_and_wrong() -> None:
    guard = PinGuard(hash_pin("2468", cost_n=CHEAP), FakeClock())
    assert [guard.check(p) for p in ("1111", "2468")] == [PinVerdict(False), PinVerdict(True)]


def test_pin_guard_locks_out_after_three_wrong_and_doubles() -> None:
    clock = FakeClock()
    guard = PinGuard(hash_pin("2468", cost_n=CHEAP), clock)
    assert [guard.check("0000") for _ in range(3)] == [PinVerdict(False), PinVerdict(False), PinVerdict(False, 30.0)]
    clock.advance(10)
    assert guard.check("2468") == PinVerdict(False, 20.0)  # the right PIN, but not now
    assert guard.wait_s() == 20.0
    clock.advance(20)
    assert guard.check("1357") == PinVerdict(False, 60.0)  # one more wrong one: twice as long
    clock.advance(60)
    assert guard.check("1357") == PinVerdict(False, 120.0)
    clock.advance(120)
    assert guard.check("1357") == PinVerdict(False, 240.0)
    clock.advance(240)
    assert guard.check("1357") == PinVerdict(False, 300.0)  # at most five minutes
    clock.advance(300)
    assert guard.check("2468") == PinVerdict(True)
    assert [guard.check("0000") for _ in range(3)][-1] == PinVerdict(False, 30.0)  # a right PIN starts afresh


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(tries=st.lists(st.tuples(st.sampled_from(["2468", "0000", "12"]), st.floats(0, 400)), max_size=12))
def test_pin_guard_never_lets_a_wrong_pin_or_a_locked_pad_through(tries: list[tuple[str, float]]) -> None:
    clock = FakeClock()
    guard = PinGuard(hash_pin("2468", cost_n=CHEAP), clock)
    for pin, gap in tries:
        locked = guard.wait_s() > 0
        verdict = guard.check(pin)
        assert verdict.accepted == (pin == "2468" and not locked)
        assert verdict.locked_for_s >= 0 and (not verdict.accepted or verdict.locked_for_s == 0)
        clock.advance(gap)


def test_pin_plain_config_key_is_a_one_line_error() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config('[ui]\nkiosk = true\nadmin_pin = "1234"\n', "c.toml")
    assert str(info.value) == ("config c.toml, line 3: ui.admin_pin: a PIN in plain text is no longer read: run "
                               "`companion kiosk set-pin` (it stores only the PIN's hash, as ui.admin_pin_hash, "
                               "and removes this line)")


def test_pin_cheap_hash_in_config_refused() -> None:
    with pytest.raises(ConfigError, match="too cheap a hash"):
        parse_config(f'[ui]\nadmin_pin_hash = "{hash_pin("1234", cost_n=CHEAP)}"\n', "c.toml")


@pytest.mark.slow
def test_pin_plain_config_stops_the_kiosk_with_one_line(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[ui]\nkiosk = true\nadmin_pin = "1234"\n')
    done = companion("kiosk", "run", "--config", str(config))
    assert done.returncode == 2
    assert done.stderr == (f"companion: config {config}, line 3: ui.admin_pin: a PIN in plain text is no longer "
                           "read: run `companion kiosk set-pin` (it stores only the PIN's hash, as "
                           "ui.admin_pin_hash, and removes this line)\n")
    assert (tmp_path / "last-error.txt").read_text() == done.stderr.removeprefix("companion: ")


@pytest.mark.slow
def test_pin_set_pin_migrates_a_plain_pin(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('# the café table\n[ui]\nkiosk = true\nadmin_pin = "1234"  # old\n\n[timer]\ntick_hz = 5\n')
    config.chmod(0o640)
    done = companion("kiosk", "set-pin", "--config", str(config), stdin="86420\n")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"the admin PIN is set: {config} keeps only its hash\n"
    text = config.read_text()
    assert "admin_pin =" not in text and "1234" not in text and "86420" not in text
    assert "# the café table" in text and "tick_hz = 5" in text
    assert verify_pin("86420", parse_config(text)["ui.admin_pin_hash"])
    assert config.stat().st_mode & 0o777 == 0o600  # it holds the hash now: its owner's only


@pytest.mark.parametrize("stdin, message", [
    ("", "companion: PIN: none given: type it at the prompt, or give it as one line on standard input\n"),
    ("12\n", "companion: PIN: must be 4 to 8 digits (the PIN itself is not shown)\n"),
])
@pytest.mark.slow
def test_pin_set_pin_bad_pin_changes_nothing(tmp_path: Path, stdin: str, message: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[ui]\nkiosk = true\n")
    done = companion("kiosk", "set-pin", "--config", str(config), stdin=stdin)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", message)
    assert config.read_text() == "[ui]\nkiosk = true\n"
