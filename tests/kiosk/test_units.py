"""Rendering the kiosk's files: quoting paths and names for systemd, checked by systemd itself.

A program path goes through ``systemd-analyze verify``, which names the program it could not
find exactly as it parsed it: an oracle for the quoting. Arguments have no such oracle, so
they are checked against systemd's documented unquoting rules (C escapes inside double
quotes, ``%%`` for ``%``, ``$$`` for ``$``).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.errors import InvalidInput
from companion.ui.kiosk_mode import KioskSettings
from kiosk import units
from kiosk.edits import apply_tokens, remove_members, undo_tokens
from kiosk.units import KioskOptions
from tests.kiosk.conftest import systemd_analyze

FORBIDDEN = "\"'\\"
path_char = st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp", "Co", "Cn"),
                          exclude_characters=FORBIDDEN + "/")
segment = st.text(path_char, min_size=1, max_size=12).filter(lambda s: s not in (".", ".."))
paths = st.lists(segment, min_size=1, max_size=4).map(lambda parts: "/nonexistent-kiosk-test/" + "/".join(parts))


def unquote_word(word: str, *, dollars: bool = True) -> str:
    """One ExecStart argument as systemd reads it (extract_first_word with UNQUOTE|CUNESCAPE,
    then specifier and variable expansion of the escapes we use). ``Environment=`` expands
    specifiers but no variables: *dollars* False."""
    if not word.startswith('"'):
        body = word
    else:
        assert word.endswith('"') and len(word) >= 2
        body = word[1:-1]
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            nxt = body[i + 1]
            if nxt == "x":
                out.append(chr(int(body[i + 2:i + 4], 16)))
                i += 4
                continue
            out.append({"n": "\n", "t": "\t", "\\": "\\", '"': '"'}[nxt])
            i += 2
            continue
        if c == "%" or (c == "$" and dollars):
            assert body[i + 1] == c, f"a lone {c} in {word!r}"
            out.append(c)
            i += 2
            continue
        assert c != '"', f"an unescaped quote in {word!r}"
        out.append(c)
        i += 1
    return "".join(out)


def verify_unit(tmp_path: Path, text: str, name: str = "probe.service") -> str:
    unit = tmp_path / name
    unit.write_text(text)
    done = subprocess.run([systemd_analyze(), "verify", "--man=no", "--generators=no", str(unit)],
                          capture_output=True, text=True, timeout=60)
    return done.stdout + done.stderr


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=paths)
def test_unit_program_path_reaches_systemd_unchanged(tmp_path: Path, path: str) -> None:
    out = verify_unit(tmp_path, f"[Service]\nExecStart={units.exec_path(path)} kiosk run\n")
    assert f"Command {path} is not executable: No such file or directory" in out, out


@given(path=st.text(max_size=40))
def test_unit_program_path_is_quoted_or_refused(path: str) -> None:
    try:
        word = units.exec_path(path)
    except InvalidInput as exc:
        assert exc.field == "path" and "\n" not in str(exc)
        return
    assert word.startswith('"') and word.endswith('"') and not any(c in path for c in FORBIDDEN)
    assert word[1:-1].replace("%%", "%") == path


@given(text=st.text(st.characters(exclude_characters="\0"), max_size=40))
def test_unit_argument_quoting_round_trips(text: str) -> None:
    word = units.exec_arg(text)
    assert " " not in word or (word.startswith('"') and word.endswith('"'))
    assert unquote_word(word) == text


@given(value=st.text(st.characters(exclude_categories=("Cc", "Cs")), max_size=30))
def test_unit_environment_value_round_trips(value: str) -> None:
    word = units.env_assignment("KIVY_HOME", value)
    assert unquote_word(word, dollars=False) == f"KIVY_HOME={value}"


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.one_of(st.from_regex(r"[a-z_][a-z0-9_-]{0,31}", fullmatch=True), st.text(max_size=40)))
def test_unit_user_names_are_refused_or_land_verbatim(tmp_path: Path, name: str) -> None:
    try:
        opts = KioskOptions(user=name, companion="/opt/companion/bin/companion", usb_ids=("2e8a:0005",)).checked()
    except InvalidInput as exc:
        assert exc.field == "--user"
        return
    assert name != "root"
    service = units.kiosk_service(opts)
    assert f"User={name}" in service.splitlines()
    assert f'OWNER="{name}"' in units.udev_rule(opts)
    out = verify_unit(tmp_path, service, "companion-kiosk.service")
    assert [line for line in out.splitlines() if "is not executable" not in line] == [], out


def test_unit_cage_arguments_pass_systemd_without_a_warning(tmp_path: Path) -> None:
    opts = KioskOptions(user="pi", companion="/opt/50% off/$HOME/bin/companion", display="cage").checked()
    text = units.kiosk_service(opts)
    assert 'ExecStart=/usr/bin/cage -s -- "/opt/50%% off/$$HOME/bin/companion" kiosk run' in text
    out = verify_unit(tmp_path, text, "companion-kiosk.service")
    assert all("is not executable" in line for line in out.splitlines()), out


@pytest.mark.parametrize("opts, field", [
    (dict(display="wayland"), "--display"), (dict(rotate=45), "--rotate"), (dict(panel="hdmi"), "--panel"),
    (dict(touch="both"), "--touch"), (dict(usb_ids=("2E8A:0005",)), "accessory.usb_ids"),
    (dict(rotate=90), "--rotate"),
])
def test_unit_options_checked(opts: dict, field: str) -> None:
    with pytest.raises(InvalidInput) as info:
        KioskOptions(user="pi", companion="/usr/bin/companion", **opts).checked()
    assert info.value.field == field


def test_unit_kivy_settings_one_provider_per_touch_choice(tmp_path: Path) -> None:
    for touch, provider in units.TOUCH.items():
        path = tmp_path / f"{touch}.ini"
        path.write_text(units.kivy_settings(KioskOptions(user="pi", companion="/c", touch=touch)))
        settings_ = KioskSettings(path)
        assert settings_.inputs == {"touch": provider} and settings_.rotation == 0


@pytest.mark.parametrize("text, message", [
    ("[input]\nmouse = mouse\nhid = probesysfs,provider=hidinput\n", "[input] must name exactly one provider, not 2"),
    ("[graphics]\nrotation = 45\n", "[graphics] rotation: must be 0, 90, 180 or 270 (got '45')"),
    ("[graphics]\nshow_cursor = 0\n", "[graphics] show_cursor: not a setting the kiosk applies"),
    ("[input\n", "cannot read it"),
])
def test_unit_kivy_settings_refused(tmp_path: Path, text: str, message: str) -> None:
    from companion.errors import CompanionError

    path = tmp_path / "kivy.ini"
    path.write_text(text)
    with pytest.raises(CompanionError, match=re.escape(message)):
        KioskSettings(path)


tokens = st.from_regex(r"[a-z.]{1,8}(=[a-z0-9,:@-]{0,8})?", fullmatch=True)
ours = st.sampled_from([
    ["consoleblank=0", "vt.global_cursor_default=0"],
    ["consoleblank=0", "vt.global_cursor_default=0", "video=DSI-1:720x1280@60,rotate=90"],
])


@given(base=st.lists(st.one_of(tokens, st.sampled_from(["consoleblank=600", "video=DSI-1:800x480@60",
                                                          "video=HDMI-A-1:1920x1080@60", "quiet"])),
                     max_size=8), wanted=ours)
@pytest.mark.slow
def test_unit_cmdline_edit_undoes_exactly(base: list[str], wanted: list[str]) -> None:
    keys = [units.token_key(t) for t in base]
    if len(set(keys)) != len(keys):  # a line the kernel reads last-wins; one of a key is the real case
        return
    new, added, removed = apply_tokens(base, wanted)
    assert all(t in new for t in wanted)
    assert [units.token_key(t) for t in new].count("consoleblank=") == 1
    assert undo_tokens(new, added, removed) == base
    again, added2, removed2 = apply_tokens(undo_tokens(new, added, removed), wanted)
    assert (again, added2, removed2) == (new, added, removed)


@pytest.mark.slow
@given(members=st.lists(st.from_regex(r"[a-z]{1,6}", fullmatch=True), unique=True, max_size=4))
def test_unit_group_members_undo_exactly(members: list[str]) -> None:
    lines = [f"video:x:44:{','.join(members)}", "pi:x:1000:"]
    if "pi" in members:
        return
    joined = [lines[0] + ("," if members else "") + "pi", lines[1]]
    assert remove_members(joined, ["video:pi"], 3) == lines
