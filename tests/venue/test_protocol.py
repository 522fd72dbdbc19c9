"""The venue's wire format: topics, payloads and the venue's commands."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from venue.protocol import (
    MAX_ANNOUNCEMENT_CHARS,
    Broker,
    CommandError,
    Topics,
    encode,
    parse_command,
    parse_topic,
)


@pytest.mark.parametrize(("url", "host", "port", "tls"), [
    ("mqtt://broker.local", "broker.local", 1883, False),
    ("mqtts://broker.local", "broker.local", 8883, True),
    ("mqtt://10.0.0.5:1884", "10.0.0.5", 1884, False),
    ("mqtts://[::1]:8884", "::1", 8884, True),
])
def test_a_broker_url_gives_host_port_and_tls(url: str, host: str, port: int, tls: bool) -> None:
    assert Broker.from_url(url) == Broker(host, port, tls)


@given(st.text(min_size=1, max_size=40))
def test_any_timer_name_is_one_topic_level_and_reads_back(name: str) -> None:
    topics = Topics("cafe/companion", "t07")
    topic = topics.timer(name)
    level = topic.removeprefix("cafe/companion/t07/timer/")
    assert "/" not in level and "+" not in level and "#" not in level and "\0" not in level
    heard = parse_topic("cafe/companion", topic, encode({"name": name}))
    assert heard is not None and heard.table == "t07" and heard.part == "timer" and heard.name == name


def test_an_empty_payload_clears_and_foreign_topics_are_not_ours() -> None:
    heard = parse_topic("companion", "companion/t1/timer/market", b"")
    assert heard is not None and heard.body is None
    assert parse_topic("companion", "other/t1/status", b"{}") is None
    assert parse_topic("companion", "companion/t1/status/extra", b"{}") is None
    assert parse_topic("companion", "companion/t1/status", b"not json") is None
    assert parse_topic("companion", "companion/t1/status", b"[1, 2]") is None


@pytest.mark.parametrize(("action", "payload", "expected"), [
    ("start", b"", {"action": "start"}),
    ("pause", b"{}", {"action": "pause"}),
    ("reset", b'{"timer": "market"}', {"action": "reset", "timer": "market"}),
    ("add", b"30", {"action": "add", "seconds": 30.0}),
    ("add", b"-10.5", {"action": "add", "seconds": -10.5}),
    ("add", b'{"seconds": 60, "timer": "t"}', {"action": "add", "timer": "t", "seconds": 60.0}),
    ("announce", "Utolsó kör!".encode(), {"action": "announce", "text": "Utolsó kör!", "shown_s": 15.0}),
    ("announce", b'{"text": "Last  round\\n now", "seconds": 30}',
     {"action": "announce", "text": "Last round now", "shown_s": 30.0}),
])
def test_commands_read_as_documented(action: str, payload: bytes, expected: dict[str, object]) -> None:
    assert parse_command(action, payload).to_log() == expected


@pytest.mark.parametrize(("action", "payload", "why"), [
    ("fly", b"", "unknown command 'fly'"),
    ("add", b"", "seconds must be a number"),
    ("add", b"0", "not 0"),
    ("add", b"3601", "3600"),
    ("add", b"NaN", "seconds must be a number"),
    ("add", b'{"seconds": true}', "seconds must be a number"),
    ("start", b'{"seconds": 3}', "start takes only a timer's name"),
    ("start", b'{"timer": ""}', "timer must be a timer's name"),
    ("pause", b'{"who": 1}', "unknown field 'who'"),
    ("reset", b"[]", "must be a JSON object"),
    ("reset", b"\xff\xfe", "not UTF-8"),
    ("announce", b"   ", "needs its text"),
    ("announce", b"x" * (MAX_ANNOUNCEMENT_CHARS + 1), "at most"),
    ("announce", b"x" * 5000, "at most 4096 bytes"),
])
def test_bad_commands_are_refused_with_a_reason(action: str, payload: bytes, why: str) -> None:
    with pytest.raises(CommandError, match=why):
        parse_command(action, payload)


@given(st.sampled_from(["start", "pause", "reset", "add", "announce", "x"]), st.binary(max_size=300))
def test_no_payload_makes_the_command_parser_raise_anything_else(action: str, payload: bytes) -> None:
    try:
        command = parse_command(action, payload)
    except CommandError as exc:
        assert "\n" not in str(exc)
    else:
        json.dumps(command.to_log(), allow_nan=False)  # what the table logs and replies is JSON


def test_json_nested_past_pythons_recursion_limit_is_refused_not_raised() -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    assert parse_topic("companion", "companion/t1/status", deep) is None
    with pytest.raises(CommandError, match="not JSON"):
        parse_command("start", b"[" * 4000)
