"""Home Assistant's MQTT discovery messages, checked against its documented schema."""

from __future__ import annotations

import json
import re

import pytest

from venue.discovery import discovery_messages
from venue.protocol import Topics, encode

# From Home Assistant's MQTT integration docs (discovery, sensor, binary sensor, button): the
# keys each platform requires, and the keys these messages may use at all (a misspelt key is
# silently ignored by Home Assistant, so it is caught here).
REQUIRED = {"sensor": {"state_topic"}, "binary_sensor": {"state_topic"}, "button": {"command_topic"}}
COMMON = {"name", "unique_id", "object_id", "device", "origin", "availability_topic",
          "availability_template", "payload_available", "payload_not_available", "icon", "qos",
          "json_attributes_topic", "json_attributes_template", "value_template", "device_class",
          "enabled_by_default", "entity_category"}
ALLOWED = {"sensor": COMMON | {"state_topic", "unit_of_measurement", "expire_after", "force_update"},
           "binary_sensor": COMMON | {"state_topic", "payload_on", "payload_off", "expire_after"},
           "button": COMMON | {"command_topic", "payload_press", "retain"}}
DEVICE_KEYS = {"identifiers", "connections", "name", "manufacturer", "model", "sw_version", "hw_version",
               "suggested_area", "configuration_url", "via_device"}
DEVICE_CLASSES = {"sensor": {"timestamp", "duration"}, "binary_sensor": {"sound", "problem", "running"},
                  "button": {"restart", "identify", "update"}}
TOPIC = re.compile(r"(?P<prefix>.+)/(?P<component>[a-z_]+)/(?P<node>[a-zA-Z0-9_-]+)/"
                   r"(?P<object>[a-zA-Z0-9_-]+)/config")


@pytest.mark.parametrize("commands", [True, False])
def test_every_message_follows_the_discovery_schema(commands: bool) -> None:
    topics = Topics("cafe/companion", "t07")
    messages = discovery_messages(topics, "homeassistant", commands=commands, version="0.1.0")
    unique = set()
    for topic, config in messages:
        m = TOPIC.fullmatch(topic)
        assert m is not None and m["prefix"] == "homeassistant" and m["node"] == "t07", topic
        component = m["component"]
        assert REQUIRED[component] <= set(config), (topic, REQUIRED[component] - set(config))
        assert set(config) <= ALLOWED[component], (topic, set(config) - ALLOWED[component])
        assert config["device"]["identifiers"] and set(config["device"]) <= DEVICE_KEYS
        if "device_class" in config:
            assert config["device_class"] in DEVICE_CLASSES[component]
        assert config["availability_topic"] == "cafe/companion/t07/status"
        unique.add(config["unique_id"])
        json.loads(encode(config))
    assert len(unique) == len(messages)
    components = sorted(t.split("/")[1] for t, _ in messages)
    assert components.count("button") == (3 if commands else 0)
    assert {"binary_sensor", "sensor"} <= set(components)


def test_entities_read_and_send_the_tables_own_topics() -> None:
    topics = Topics("companion", "t1")
    by_object = {t.split("/")[3]: c for t, c in discovery_messages(topics, "ha", commands=True)}
    assert by_object["timer"]["state_topic"] == "companion/t1/main"
    assert by_object["alarm"]["state_topic"] == "companion/t1/alarm"
    assert by_object["game"]["state_topic"] == "companion/t1/game"
    assert {by_object[a]["command_topic"] for a in ("start", "pause", "reset")} == {
        "companion/t1/cmd/start", "companion/t1/cmd/pause", "companion/t1/cmd/reset"}


def test_two_venues_tables_of_the_same_id_are_two_devices() -> None:
    one = discovery_messages(Topics("cafe-a/companion", "t1"), "homeassistant", commands=False)
    two = discovery_messages(Topics("cafe-b/companion", "t1"), "homeassistant", commands=False)
    assert one[0][1]["device"]["identifiers"] != two[0][1]["device"]["identifiers"]
    assert one[0][1]["unique_id"] != two[0][1]["unique_id"]
