"""The touch app on a venue's broker: a real Mosquitto (tests/support/mosquitto.py), real paho
clients, the app in a real window (Xvfb) with the venue link its config asks for.

The venue's side is this test: it watches the table's topics and publishes the venue's commands;
the table's side is the journey tests/ui/journeys/venue.py, which says what it saw in ``RESULT``
lines. Every wait is for a message or a line, with a generous deadline (scaled by the slowdown),
and a failure shows the app's stderr.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.store import Store
from tests.processes import Lines
from tests.support.mosquitto import Broker, Connection, Listener, Received
from tests.ui.test_journeys import DRIVER, drive, journey_env, scratch

pytestmark = pytest.mark.slow

HUNGARIAN = ("Figyelem! A kávézó 22 órakor zár. Kérjük, fejezzétek be a játékot, és a dobozokat tegyétek "
             "vissza a polcra. Köszönjük, hogy nálunk játszottatok – jó éjszakát és viszontlátásra!")
RUSSIAN = ("Внимание! Кафе закрывается в 22:00. Пожалуйста, заканчивайте партию, сложите фишки и карты "
           "в коробки и верните их на полку у входа. Спасибо, что играли у нас сегодня! Следующий турнир "
           "по «Дракону» — в субботу в 18:00, записывайтесь у бармена. Хорошего вечера и до встречи, друзья!")


def body(message: Received) -> Any:
    return json.loads(message.payload) if message.payload else None


def message(conn: Connection, topic: str, wanted: Callable[[Any], bool] = lambda _b: True) -> Received:
    """A message on *topic* whose body *wanted* accepts: the first already taken, else the next."""
    for m in conn.seen:
        if m.topic == topic and wanted(body(m)):
            return m
    return conn.wait_for(topic, lambda p: wanted(json.loads(p) if p else None), timeout=60)


def heard(conn: Connection, topic: str, wanted: Callable[[Any], bool] = lambda _b: True) -> Any:
    return body(message(conn, topic, wanted))


def state_is(state: str) -> Callable[[Any], bool]:
    return lambda b: b is not None and b.get("state") == state


def test_ui_venue_follows_the_table_and_commands_it(tmp_path: Path, display: str, broker: Broker,
                                                    listen: Callable[..., Listener],
                                                    connect: Callable[..., Connection]) -> None:
    assert len(RUSSIAN) == 280  # the longest announcement a venue may send
    table = "t1"
    env = scratch(tmp_path, f'[timer.presets]\nnegotiation = 600\n[venue]\nbroker = "{broker.url}"\n'
                            f'table = "{table}"\nusername = "{table}"\npassword = "{broker.passwords[table]}"\n'
                            'accept_commands = true\n')
    base = f"companion/{table}"
    watch = listen("venue", [f"{base}/#"])
    venue = connect("venue")
    shots = tmp_path / "shots"
    app = Lines(subprocess.Popen([sys.executable, str(DRIVER), "venue", "800x480"], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True,
                                 env=journey_env({**env, "VENUE_SHOTS": str(shots)}, display)), "the app")

    def step(name: str) -> dict[str, Any]:
        said: dict[str, Any] = json.loads(app.next_matching(lambda line: line.startswith("RESULT "), 90)[7:])
        assert said.get("step") == name, said
        return said

    try:
        running = step("running")
        assert heard(watch, f"{base}/status", state_is("online"))["protocol"] == 1
        game = heard(watch, f"{base}/game")
        assert {k: game[k] for k in ("key", "title", "players", "round")} == {
            "key": "gold", "title": "Gold!", "players": ["Anna", "Béla"], "round": None}
        scores = heard(watch, f"{base}/scores")
        assert {k: scores[k] for k in ("players", "leader", "final")} == {
            "players": {"Anna": None, "Béla": None}, "leader": None, "final": False}
        timer = heard(watch, f"{base}/timer/negotiation", state_is("running"))
        assert timer["total_s"] == 600 and timer["deadline"] == pytest.approx(timer["t"] + timer["remaining_s"], abs=0.01)
        late = listen("venue", [f"{base}/timer/negotiation", f"{base}/game"])  # what the broker retained
        retained = [message(late, f"{base}/timer/negotiation"), message(late, f"{base}/game")]
        assert all(m.retain for m in retained) and body(retained[0])["deadline"] == timer["deadline"]

        assert not venue.publish(f"{base}/cmd/pause", b"").is_failure
        paused = step("paused")
        assert paused["events"] == [["timer.toggle", {"name": "negotiation"}]] * 2 and paused["can_undo"]
        now = heard(watch, f"{base}/timer/negotiation", state_is("paused"))
        assert now["deadline"] is None and 0 < now["remaining_s"] < 600 and now["seq"] > timer["seq"]
        assert heard(watch, f"{base}/reply") == {"command": {"action": "pause"}, "ok": True, "why": None,
                                                  "t": pytest.approx(now["t"], abs=30)}
        assert heard(watch, f"{base}/main", state_is("paused"))["name"] == "negotiation"

        venue.publish(f"{base}/cmd/announce", json.dumps({"text": HUNGARIAN, "seconds": 120}))
        for name, text in (("announced", HUNGARIAN), ("replaced", RUSSIAN)):
            shown = step(name)
            assert shown["text"] == text and shown["over"] == "timer", shown
            assert shown["faults"] == [] and not shown["overflows"], shown
            assert shown["font_px"] >= 28, shown  # read from across the table: more than the app's 18 px
            x, y, w, h = shown["box"]
            assert x >= 0 and y >= 0 and x + w <= 800 and y + h <= 480 and w >= 700 and h >= 400, shown
            assert Path(shown["shot"]).stat().st_size > 0
            if name == "announced":
                venue.publish(f"{base}/cmd/announce", RUSSIAN.encode())
        assert step("closed") == {"step": "closed", "screen": "timer"}
        settings = step("settings")
        assert settings["line"] == f"{table} on {broker.url}, connected"
        assert settings["faults"] == [] and not settings["overflows"], settings

        assert app.wait(60) == 0, app.stderr
        assert heard(watch, f"{base}/status", state_is("offline"))["protocol"] == 1
    except BaseException as exc:
        raise AssertionError(f"{exc}\n-- the app's stderr:\n{app.stderr[-3000:]}") from exc
    finally:
        app.stop()

    after = listen("venue", [f"{base}/status", f"{base}/timer/negotiation"])  # retained, the app gone
    assert heard(after, f"{base}/status")["state"] == "offline"
    assert heard(after, f"{base}/timer/negotiation")["state"] == "paused"
    store = Store.open_read_only(running["db"])
    try:
        kinds = [(e.kind, e.data) for e in store.events(running["session"])]
    finally:
        store.close()
    assert kinds[-2:] == [("timer.toggle", {"name": "negotiation"})] * 2  # the tap, then the venue's pause


def table_config(broker: Broker, table: str, password: str | None = None) -> str:
    return (f'[venue]\nbroker = "{broker.url}"\ntable = "{table}"\nusername = "{table}"\n'
            f'password = "{password if password is not None else broker.passwords[table]}"\n')


def run_state_journey(tmp_path: Path, display: str, config: str, states: str) -> tuple[Lines, Callable[[], Any]]:
    app = Lines(subprocess.Popen([sys.executable, str(DRIVER), "venue_state", "800x480"], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True,
                                 env=journey_env({**scratch(tmp_path, config), "VENUE_STATES": states}, display)),
                "the app")

    def step() -> Any:
        return json.loads(app.next_matching(lambda line: line.startswith("RESULT "), 90)[7:])

    return app, step


def test_ui_venue_link_state_on_settings_through_a_broker_restart(tmp_path: Path, display: str, broker: Broker,
                                                                   listen: Callable[..., Listener]) -> None:
    """Settings says connected, reconnecting while the broker is down, and connected again; the
    table then puts its state back on the broker (online again)."""
    watch = listen("venue", ["companion/t2/status"])
    app, step = run_state_journey(tmp_path, display, table_config(broker, "t2"), "connected,reconnecting,connected")
    try:
        assert step() == {"step": "connected", "line": f"t2 on {broker.url}, connected"}
        heard(watch, "companion/t2/status", state_is("online"))
        watch.close()
        stopped_at = time.time()  # wall time, as the status's t: this machine's clock both
        broker.stop()
        assert step() == {"step": "reconnecting", "line": f"t2 on {broker.url}, reconnecting"}
        broker.start()
        assert step() == {"step": "connected", "line": f"t2 on {broker.url}, connected"}
        again = listen("venue", ["companion/t2/status"])  # the status of the new connection, not the kept one
        heard(again, "companion/t2/status", lambda b: state_is("online")(b) and b["t"] > stopped_at)
        assert app.wait(60) == 0, app.stderr
    except BaseException as exc:
        raise AssertionError(f"{exc}\n-- the app's stderr:\n{app.stderr[-3000:]}") from exc
    finally:
        app.stop()


def test_ui_venue_link_refused_is_said_on_settings(tmp_path: Path, display: str, broker: Broker) -> None:
    """A wrong password: Settings says the broker refused the table, and the app plays on."""
    app, step = run_state_journey(tmp_path, display, table_config(broker, "t3", "not-the-password"), "refused")
    try:
        assert step() == {"step": "refused", "line": f"t3 on {broker.url}, refused by the broker"}
        assert app.wait(60) == 0, app.stderr
    except BaseException as exc:
        raise AssertionError(f"{exc}\n-- the app's stderr:\n{app.stderr[-3000:]}") from exc
    finally:
        app.stop()


def test_ui_announcement_lies_over_a_dialog_and_times_out(tmp_path: Path, display: str) -> None:
    assert drive("announcement_times_out", scratch(tmp_path), display) == [{"ok": True}]
