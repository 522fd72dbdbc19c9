"""Home Assistant's MQTT discovery messages for one table (``docs/venue-protocol.md``).

One device per table; its entities read the table's ``main``, ``alarm`` and ``game`` topics and
send its ``cmd/`` topics, following Home Assistant's MQTT discovery schema: a retained JSON
config on ``DISCOVERY/COMPONENT/NODE_ID/OBJECT_ID/config``.
"""

from __future__ import annotations

from typing import Any

from venue.protocol import Topics

MANUFACTURER = "Table companion"


def discovery_messages(topics: Topics, discovery_prefix: str, *, commands: bool,
                       version: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every ``(topic, config)`` the table announces; buttons only where it takes *commands*."""
    slug = f"{topics.prefix.replace('/', '_')}_{topics.table}"
    device: dict[str, Any] = {
        "identifiers": [f"table_companion_{slug}"],
        "name": f"Table {topics.table}",
        "manufacturer": MANUFACTURER,
        "model": "Table companion",
    }
    if version:
        device["sw_version"] = version
    common: dict[str, Any] = {
        "device": device,
        "origin": {"name": "table-companion"},
        "availability_topic": topics.status,
        "availability_template": "{{ value_json.state }}",
        "payload_available": "online",
        "payload_not_available": "offline",
    }

    def entity(component: str, object_id: str, name: str, **config: Any) -> tuple[str, dict[str, Any]]:
        body = {"name": name, "unique_id": f"{slug}_{object_id}", "object_id": f"{slug}_{object_id}",
                **common, **config}
        return f"{discovery_prefix}/{component}/{topics.table}/{object_id}/config", body

    messages = [
        entity("sensor", "timer", "Timer", state_topic=topics.main, icon="mdi:timer-sand",
               value_template="{{ value_json.state if value_json.state is defined else 'none' }}",
               json_attributes_topic=topics.main),
        entity("sensor", "timer_end", "Timer ends", state_topic=topics.main, device_class="timestamp",
               value_template="{{ as_datetime(value_json.deadline) if value_json.deadline else None }}"),
        entity("binary_sensor", "alarm", "Alarm", state_topic=topics.alarm, device_class="sound",
               value_template="{{ value_json.state }}", payload_on="on", payload_off="off"),
        entity("sensor", "game", "Game", state_topic=topics.game, icon="mdi:dice-multiple",
               value_template="{{ value_json.title }}", json_attributes_topic=topics.game),
    ]
    if commands:
        for action, name, icon in (("start", "Start", "mdi:play"), ("pause", "Pause", "mdi:pause"),
                                   ("reset", "Reset", "mdi:restore")):
            messages.append(entity("button", action, name, command_topic=topics.command(action),
                                   payload_press="{}", qos=1, icon=icon))
    return messages
