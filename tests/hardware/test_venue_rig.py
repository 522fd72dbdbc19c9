"""A table on the venue's own broker (a real Mosquitto or any MQTT broker, over the network).

Skipped unless COMPANION_VENUE_TABLE names this table's config (its ``[venue]``: broker, table,
username, password, ca_file) and COMPANION_VENUE_WATCH a config for the venue's dashboard (the
same broker, the ``venue`` login of docs/examples/mosquitto). Nobody needs to touch anything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.config import load_config

TABLE, WATCH = os.environ.get("COMPANION_VENUE_TABLE"), os.environ.get("COMPANION_VENUE_WATCH")
pytestmark = [
    pytest.mark.hardware,
    pytest.mark.skipif(not (TABLE and WATCH), reason="set COMPANION_VENUE_TABLE and COMPANION_VENUE_WATCH"),
]


def test_the_venue_dashboard_sees_this_table_run_a_timer_out() -> None:
    assert TABLE is not None and WATCH is not None
    table = load_config(Path(TABLE))["venue.table"]
    watch = subprocess.Popen([sys.executable, "-m", "companion", "--config", WATCH, "venue", "watch", "--json",
                              "--for", "40"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        timer = subprocess.run([sys.executable, "-m", "companion", "--config", TABLE, "timer", "5",
                                "--name", "rig", "--gpio", "off", "--accessory", "none", "--json"],
                               capture_output=True, text=True, timeout=120)
        assert timer.returncode == 0, timer.stderr
    finally:
        out, err = watch.communicate(timeout=120)
    lines = [json.loads(line) for line in out.splitlines()]
    states = [x["body"]["state"] for x in lines if x["table"] == table and x["part"] == "timer"
              and x["name"] == "rig" and x["body"]]
    assert "running" in states and states[-1] == "expired", (states, err)
    statuses = [x["body"]["state"] for x in lines if x["table"] == table and x["part"] == "status"]
    assert statuses[-1] == "offline", (statuses, err)
