"""``companion app --venue URL --table ID``: a bad venue is one line and exit 2, before anything
starts (no window, no database, no broker)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def app(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    return subprocess.run([sys.executable, "-m", "companion", "--config", str(config), "app", *args],
                          capture_output=True, text=True, timeout=60, env=env)


@pytest.mark.parametrize(("args", "line"), [
    (["--venue", "ftp://venue", "--table", "t07"],
     "companion: --venue: must be mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (credentials go in venue.username "
     "and venue.password) (got 'ftp://venue')"),
    (["--venue", "mqtt://venue"],
     "companion: --table: a table on a venue's broker needs its id: --table ID, or venue.table in the config "
     "(got None)"),
    (["--venue", "mqtt://venue", "--table", "table 7"],
     "companion: --table: a table id is 1-64 letters, digits, '-' or '_' (got 'table 7')"),
])
def test_cli_app_bad_venue_is_one_line(tmp_path: Path, args: list[str], line: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[paths]\ndatabase = "{tmp_path / "db.sqlite3"}"\n')
    done = app(config, *args)
    assert (done.returncode, done.stderr.splitlines()) == (2, [line]), done.stderr
    assert not (tmp_path / "db.sqlite3").exists()  # said before anything was opened


def test_cli_app_venue_none_leaves_the_config_broker_off(tmp_path: Path) -> None:
    """``--venue none`` turns off the config's broker; then only the missing display is said."""
    config = tmp_path / "config.toml"
    config.write_text('[venue]\nbroker = "mqtt://venue"\n')  # no table: would be refused
    done = app(config, "--venue", "none")
    assert done.returncode == 2
    assert done.stderr.splitlines() == ["companion: no display here: run the app on a screen, or on a virtual one "
                                        "with `xvfb-run -a companion app`"]
