"""The test broker and the documented access rules (docs/examples/mosquitto/venue.acl) on a real
Mosquitto: what each table, the venue and Home Assistant may write and read, passwords, TLS, and
what a graceful restart keeps.

A message the broker must not deliver is shown not to arrive by ordering, not by waiting: the
broker handles one client's messages in order, and hands a message to every subscriber before it
acknowledges it, so once a later message has arrived an earlier one would have arrived first.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Callable

import pytest
from paho.mqtt.enums import MQTTProtocolVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from tests.support.mosquitto import ACL_EXAMPLE, Broker, Connection, Listener, client

Connect = Callable[..., Connection]
Listen = Callable[..., Listener]

GRANTED = 0x00  # MQTT 5 reason code "Success" / "Granted QoS 0"
NOT_AUTHORIZED = 0x87

V5, V311 = MQTTProtocolVersion.MQTTv5, MQTTProtocolVersion.MQTTv311


def accepted(code: ReasonCode) -> bool:
    """A PUBACK's "Success", or "No matching subscribers" (0x10) when nobody listens."""
    return not code.is_failure


def topics(listener: Listener) -> list[str]:
    return [m.topic for m in listener.seen]


def test_the_broker_runs_the_documented_acl_itself(broker: Broker) -> None:
    assert (broker.directory / "venue.acl").read_bytes() == ACL_EXAMPLE.read_bytes()
    assert broker.url == f"mqtt://127.0.0.1:{broker.port}"
    assert broker.tls_url == f"mqtts://127.0.0.1:{broker.tls_port}"
    assert broker.port != broker.tls_port


def test_a_tables_state_reaches_the_venue_and_another_tables_never(
        connect: Connect, listen: Listen) -> None:
    venue = listen("venue", ["companion/#"])
    t1 = connect("t1")
    assert t1.publish("companion/t2/state", b"forged").value == NOT_AUTHORIZED
    assert accepted(t1.publish("companion/t1/state", b"running"))
    got = venue.wait_for("companion/t1/state")
    assert (got.payload, got.qos) == (b"running", 1)
    assert topics(venue) == ["companion/t1/state"]


def test_a_table_hears_its_own_commands_and_no_other_tables_traffic(
        connect: Connect, listen: Listen) -> None:
    t1 = listen("t1", ["companion/t1/cmd/#"])
    # Mosquitto 2.0.11 grants these subscriptions and then delivers nothing the ACL denies;
    # a broker that refuses them at once answers "Not authorized".
    for code in t1.subscribe("companion/t2/cmd/#", "companion/t2/#", "companion/#", "homeassistant/#"):
        assert code.value in (1, NOT_AUTHORIZED), code
    t2 = connect("t2")
    assert accepted(t2.publish("companion/t2/state", b"paused"))
    assert accepted(t2.publish("homeassistant/sensor/t2/timer/config", b"{}"))
    venue = connect("venue")
    assert accepted(venue.publish("companion/t2/cmd/pause", b"{}"))
    assert accepted(venue.publish("companion/t1/cmd/pause", b'{"timer": 1}'))
    got = t1.wait_for("companion/t1/cmd/pause")
    assert got.payload == b'{"timer": 1}'
    assert topics(t1) == ["companion/t1/cmd/pause"]


def test_a_table_writes_its_own_discovery_topics_only(connect: Connect, listen: Listen) -> None:
    home = listen("homeassistant", ["homeassistant/#", "companion/#"])
    t1 = connect("t1")
    assert t1.publish("homeassistant/sensor/t2/timer/config", b"{}").value == NOT_AUTHORIZED
    assert accepted(t1.publish("homeassistant/sensor/t1/timer/config", b'{"name": "Timer"}', retain=True))
    got = home.wait_for("homeassistant/sensor/t1/timer/config")
    assert got.payload == b'{"name": "Timer"}'
    assert topics(home) == ["homeassistant/sensor/t1/timer/config"]


def test_the_venue_reads_the_tables_but_not_home_assistants_topics(connect: Connect, listen: Listen) -> None:
    venue = listen("venue", ["homeassistant/#", "companion/#"])
    t3 = connect("t3")
    assert accepted(t3.publish("homeassistant/sensor/t3/timer/config", b"{}"))
    assert accepted(t3.publish("companion/t3/state", b"idle"))
    venue.wait_for("companion/t3/state")
    assert topics(venue) == ["companion/t3/state"]


@pytest.mark.parametrize(("user", "topic", "allowed"), [
    ("t1", "companion/t1/state", True),
    ("t1", "companion/t1/events/turn", True),
    ("t1", "companion/t2/state", False),
    ("t1", "companion/t2/cmd/pause", False),
    ("t1", "companion", False),
    ("t1", "homeassistant/sensor/t1/timer/config", True),
    ("t1", "homeassistant/sensor/t2/timer/config", False),
    ("t1", "homeassistant/status", False),
    ("t1", "elsewhere/t1", False),
    ("venue", "companion/t1/cmd/pause", True),
    ("venue", "companion/t3/cmd/timer/start", True),
    ("venue", "companion/t1/state", False),
    ("venue", "homeassistant/sensor/t1/timer/config", False),
    ("homeassistant", "companion/t2/cmd/reset", True),
    ("homeassistant", "companion/t2/state", False),
    ("homeassistant", "homeassistant/sensor/t2/timer/config", False),
])
def test_who_may_write_where(connect: Connect, user: str, topic: str, allowed: bool) -> None:
    code = connect(user).publish(topic, b"x")
    assert accepted(code) if allowed else code.value == NOT_AUTHORIZED, f"{user} -> {topic}: {code}"


@pytest.mark.parametrize("protocol", [V5, V311])
@pytest.mark.parametrize(("user", "password"), [("t1", "t2-secret"), ("t1", ""), ("nobody", "x"), (None, None)])
def test_a_wrong_password_an_unknown_user_and_anonymous_are_refused(
        connect: Connect, protocol: MQTTProtocolVersion, user: str | None, password: str | None) -> None:
    # Mosquitto refuses each with "Not authorized": 0x87 under MQTT 5, return code 5 under 3.1.1
    # (which paho reports as the same reason code).
    code = connect(user, password, protocol=protocol).connack
    assert code.value == NOT_AUTHORIZED, code


@pytest.mark.parametrize("protocol", [V5, V311])
def test_every_user_logs_in_with_its_password(broker: Broker, connect: Connect,
                                              protocol: MQTTProtocolVersion) -> None:
    for user in broker.passwords:
        assert connect(user, protocol=protocol).connack.value == GRANTED, user


def test_tls_with_the_venue_ca(connect: Connect, listen: Listen) -> None:
    venue = listen("venue", ["companion/#"], tls=True)
    t1 = connect("t1", tls=True)
    assert t1.connack.value == GRANTED
    assert accepted(t1.publish("companion/t1/state", b"over tls"))
    assert venue.wait_for("companion/t1/state").payload == b"over tls"


def test_tls_without_the_venue_ca_fails_verification(broker: Broker) -> None:
    mqtt = client(broker, "t1")
    mqtt.tls_set()  # the system's CAs, which never signed the broker's certificate
    with pytest.raises(ssl.SSLCertVerificationError):
        mqtt.connect(broker.host, broker.tls_port)


def test_a_retained_message_survives_a_graceful_restart(broker: Broker, connect: Connect,
                                                        listen: Listen) -> None:
    t1 = connect("t1")
    assert accepted(t1.publish("companion/t1/state", b'{"state": "running"}', retain=True))
    t1.close()
    broker.restart()
    venue = listen("venue", ["companion/#"])
    got = venue.wait_for("companion/t1/state")
    assert (got.payload, got.retain) == (b'{"state": "running"}', True)


def test_a_tables_session_and_its_queued_command_survive_a_graceful_restart(
        broker: Broker, connect: Connect) -> None:
    def session() -> Properties:
        properties = Properties(PacketTypes.CONNECT)
        properties.SessionExpiryInterval = 3600
        return properties

    t1 = connect("t1", client_id="table-t1", clean_start=False, properties=session())
    assert [c.value for c in t1.subscribe("companion/t1/cmd/#")] == [1]
    t1.close()
    broker.restart()
    assert accepted(connect("venue").publish("companion/t1/cmd/pause", b"{}"))
    again = connect("t1", client_id="table-t1", clean_start=False, properties=session())
    assert again.wait_for("companion/t1/cmd/pause").payload == b"{}"


def test_a_killed_broker_refuses_connections_and_starts_again_on_its_ports(broker: Broker,
                                                                          connect: Connect) -> None:
    port, tls_port = broker.port, broker.tls_port
    broker.kill()
    assert not broker.running
    with pytest.raises(OSError):
        socket.create_connection((broker.host, port), timeout=5).close()
    broker.start()
    assert (broker.port, broker.tls_port) == (port, tls_port)
    assert connect("t2").connack.value == GRANTED
    assert "mosquitto version" in broker.log_text()
