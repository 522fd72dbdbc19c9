"""Peak memory of the touch app: just started, and after an hour's play (under a display).

    xvfb-run -a -s "-screen 0 1280x1280x24" .venv/bin/python benchmarks/peak_memory_app.py \
        [--idle-s 20] [--hour-s 3600] [--seed 1] [--json]

1. Started: ``companion app --gpio mock`` in a new process (SDL_AUDIODRIVER=dummy, a scratch
   config and database), left on its Home screen for --idle-s seconds; its peak RSS is
   ``VmHWM`` in ``/proc/PID/status``, read just before it is stopped.
2. An hour's play: the real app, built as ``companion app`` builds it (``companion.ui.launch.build``,
   mock GPIO, a new scratch config and database) with the UI tests' touch driver
   (``tests/ui/kit.py``), on an app clock that the script moves, so an hour of the app's time
   passes in a few minutes: the clock goes on 1 s at a time and the app draws two frames after
   each step, so it sees every second (each tick, warning and expiry, each alarm sound). The
   hour: Dragon's Gold games for four players, started from the Home screen by taps, one after
   another. Every 5-20 s of the app's time a move is made through the game screen's own
   methods, as its dialogs call them: a dragon turned up, an adventurer sent (the kill dialog
   opens when it dies, its treasure is drawn), the sharing dialog with the negotiation timer
   (60 s: some deals made, some left to time out), the market and its 60 s timer. Each sent
   adventurer passes the turn clock. Every 10 minutes a custom 2-minute timer is started on the
   Timer screen (paused and resumed once); every 5 minutes one undo and one redo; at the end of
   each game the score sheet is filled, the game finished and its results shown. ``VmRSS`` and
   ``VmHWM`` are sampled every minute of the app's time; the figure is ``VmHWM`` at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = ("Anna", "Bela", "Cili", "Dani")
GAME = "Dragon's Gold"
HOUR_S = 3600.0


def proc_status(pid: int | str = "self") -> dict[str, int]:
    """``VmRSS`` and ``VmHWM`` of a process, in KiB."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0])
    return out


def scratch_env(root: Path) -> dict[str, str]:
    (root / "config" / "table-companion").mkdir(parents=True)
    (root / "config" / "table-companion" / "config.toml").write_text("[gpio]\nmode = \"mock\"\n")
    return {**os.environ, "XDG_DATA_HOME": str(root / "data"), "XDG_CONFIG_HOME": str(root / "config"),
            "SDL_AUDIODRIVER": "dummy"}


# -- 1. the app as started ---------------------------------------------------------------------------

def started_app(idle_s: float) -> dict[str, Any]:
    """``companion app`` left on Home for *idle_s*: its VmRSS each second and its VmHWM."""
    with tempfile.TemporaryDirectory(prefix="companion-mem-app-") as tmp:
        command = [sys.executable, "-m", "companion", "app", "--gpio", "mock", "--size", "800x480"]
        proc = subprocess.Popen(command, env=scratch_env(Path(tmp)), cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        rss = []
        try:
            end = time.monotonic() + idle_s
            while time.monotonic() < end:
                time.sleep(1.0)
                if proc.poll() is not None:
                    raise SystemExit(f"companion app exited ({proc.returncode}): "
                                     f"{proc.stderr.read()[-2000:]}")
                rss.append(proc_status(proc.pid)["VmRSS"])
            status = proc_status(proc.pid)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    return {"idle_s": idle_s, "vm_hwm_mib": status["VmHWM"] / 1024, "vm_rss_mib": status["VmRSS"] / 1024,
            "rss_mib_each_s": [round(r / 1024, 1) for r in rss]}


# -- 2. an hour's play, in the driven app --------------------------------------------------------------

def progress(text: str) -> None:
    """A line on stderr, for whoever watches a long run."""
    print(text, file=sys.stderr, flush=True)


class Bot:
    """Plays Dragon's Gold on the game screen through its own methods, and the timers around it."""

    def __init__(self, app: Any, rng: random.Random, hour_s: float) -> None:
        from tests.ui.kit import journey_clock

        self.app, self.rng, self.hour_s = app, rng, hour_s
        self.clock = journey_clock(app)
        self.t0 = self.clock.now()
        self.samples: list[dict[str, Any]] = []
        self.counts = {"games": 0, "moves": 0, "turns": 0, "deals": 0, "timeouts": 0, "markets": 0,
                       "custom_timers": 0, "undo_redo": 0, "frames": 0}
        self._next_custom = 600.0
        self._next_undo = 300.0
        self._next_sample = 0.0

    def elapsed(self) -> float:
        return self.clock.now() - self.t0

    async def wait(self, seconds: float) -> None:
        """The app's clock on by *seconds*, 1 s a step, two frames a step; samples each minute."""
        left = seconds
        while left > 1e-6:  # counted down apart from the clock, whose large float drops tiny steps
            step = min(1.0, left)
            left -= step
            self.clock.advance(step)
            await self.app.wait_clock_frames(2)
            self.counts["frames"] += 2
            if self.elapsed() >= self._next_sample:
                self.samples.append({"t_min": round(self.elapsed() / 60, 1), **proc_status()})
                self._next_sample += 60.0
                progress(f"{self.samples[-1]} {self.counts}")
            await self._side_jobs()

    async def _side_jobs(self) -> None:
        session = self.app.svc.session
        if session is None:
            return
        if self.elapsed() >= self._next_custom:  # a custom timer on the Timer screen, paused once
            self._next_custom += 600.0
            back = self.app.manager.current
            self.app.go("timer")
            timer_screen = self.app._screens["timer"]
            timer_screen.start_custom(120.0)
            await self.app.wait_clock_frames(2)
            name = timer_screen.selected
            session.toggle(name)
            await self.app.wait_clock_frames(2)
            session.toggle(name)
            self.app.manager.current = back
            self.counts["custom_timers"] += 1
        if self.elapsed() >= self._next_undo and session.can_undo:
            self._next_undo += 300.0
            self.app.undo()
            await self.app.wait_clock_frames(2)
            if session.can_redo:
                self.app.redo()
            self.counts["undo_redo"] += 1

    def popup(self, kind: str) -> Any:
        return next((w for w in self.app.root_window.children if type(w).__name__ == kind), None)

    async def start_game(self) -> Any:
        from tests.ui.kit import find, screen, start_game, tap

        progress(f"game {self.counts['games'] + 1} at {self.elapsed() / 60:.1f} min of the app's time")
        results = self.popup("ResultsPopup")
        if results is not None:
            results.dismiss()
        if self.counts["games"] == 0:
            await start_game(self.app, GAME, PLAYERS)
        else:  # the players are still at the table
            self.app.go("home")
            await self.app.wait_clock_frames(2)
            await tap(self.app, find(self.app, "TouchButton", GAME))
            await tap(self.app, screen(self.app, "home").ids.start)
        self.counts["games"] += 1
        self.app.svc.session.setup_turns(list(PLAYERS), 300.0)
        game = screen(self.app, "game:dragons-gold")
        assert self.app.manager.current == "game:dragons-gold", self.app.manager.current
        return game

    async def play_game(self, game: Any) -> None:
        session = self.app.svc.session
        rng = self.rng
        while self.elapsed() < self.hour_s:
            state = game.state()
            if state.is_over:
                break
            if state.is_market_due:
                game.market()
                self.counts["markets"] += 1
                await self.wait(60.0)
            elif state.can_reveal and rng.random() < 0.6:
                slot = next(i for i, s in enumerate(state.slots) if s.is_empty)
                game.reveal(slot, rng.randint(4, 12), rng.randint(2, 4), rng.randint(0, 3))
            else:
                live = [i for i, s in enumerate(state.slots) if s.dragon is not None and not s.killed]
                if not live:
                    if not state.can_reveal:
                        break
                    continue
                slot = rng.choice(live)
                player = game.next_player()
                role = game.free_role(player)
                game.place(slot, player, role, rng.randint(1, 4))
                session.pass_turn()
                self.counts["turns"] += 1
                await self.app.wait_clock_frames(2)
                kill = self.popup("KillPopup")
                if kill is not None:  # as its OK button does
                    kill.dismiss()
                    game.kill(slot, int(kill.ids.hidden.value), 0)
                    await self.app.wait_clock_frames(2)
                    await self.share(game, slot)
            self.counts["moves"] += 1
            await self.wait(rng.uniform(5.0, 20.0))

    async def share(self, game: Any, slot: int) -> None:
        """The sharing dialog: a deal after 10-50 s of negotiating, or the timer left to run out."""
        popup = self.popup("SharingPopup")
        if popup is None:
            return
        if not popup.negotiating:
            game.shared(slot, "solo")
            return
        if self.rng.random() < 0.25:
            self.counts["timeouts"] += 1
            await self.wait(62.0)  # the 60 s negotiation runs out: the dialog closes itself
        else:
            await self.wait(self.rng.uniform(10.0, 50.0))
            game.shared(slot, "deal")
            self.counts["deals"] += 1
        self.counts["moves"] += 1

    async def score_and_finish(self, game: Any) -> None:
        session = self.app.svc.session
        for player in PLAYERS:
            session.set_scores(player, {"silver": self.rng.randint(0, 8), "gold": self.rng.randint(0, 4),
                                        "red": self.rng.randint(0, 3), "blue": self.rng.randint(0, 3)})
        game.show_page("score")
        await self.app.wait_clock_frames(2)
        game.ids.sheet.finish()
        await self.app.wait_clock_frames(4)

    async def hour(self) -> None:
        while self.elapsed() < self.hour_s:
            game = await self.start_game()
            await self.play_game(game)
            await self.score_and_finish(game)
            await self.wait(30.0)  # between games
        self.samples.append({"t_min": round(self.elapsed() / 60, 1), **proc_status()})


def child_hour(hour_s: float, seed: int) -> None:
    """The driven app's hour; prints one ``RESULT {json}`` line."""
    sys.path.insert(0, str(ROOT))
    os.environ.update(KIVY_NO_ARGS="1", KIVY_NO_FILELOG="1", KIVY_LOG_MODE="PYTHON", KIVY_CLIPBOARD="sdl2")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ.setdefault("KIVY_AUDIO", "sdl2")
    from companion.ui.launch import build, configure_kivy

    configure_kivy(800, 480, fullscreen=False)
    from kivy.tests.async_common import UnitKivyApp

    from companion.ui.app import CompanionApp
    from tests.ui.kit import result, run_journey

    class DrivenApp(UnitKivyApp, CompanionApp):  # type: ignore[misc]
        pass

    app = build(None, size="800x480", gpio="mock", app_class=DrivenApp)
    done: dict[str, Any] = {}

    async def journey(app: Any) -> None:
        bot = Bot(app, random.Random(seed), hour_s)
        t = time.monotonic()
        await bot.hour()
        done.update(bot.counts, app_s=bot.elapsed(), wall_s=time.monotonic() - t, samples=bot.samples)

    code = run_journey(app, journey)
    if code == 0:
        result(**done, final=proc_status())
    sys.exit(code)


def hour_of_play(hour_s: float, seed: int) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child-hour", str(hour_s), "--seed", str(seed)]
    with (tempfile.TemporaryDirectory(prefix="companion-mem-hour-") as tmp, tempfile.TemporaryFile() as out,
          tempfile.TemporaryFile() as err):
        proc = subprocess.Popen(command, env=scratch_env(Path(tmp)), cwd=ROOT, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        out.seek(0)
        err.seek(0)
        lines = [line for line in out.read().decode().splitlines() if line.startswith("RESULT ")]
        if os.waitstatus_to_exitcode(status) != 0 or not lines:
            raise SystemExit(f"the hour failed: {err.read().decode()[-3000:]}")
    doc: dict[str, Any] = json.loads(lines[-1][7:])
    doc["ru_maxrss_mib"] = usage.ru_maxrss / 1024
    return doc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--idle-s", type=float, default=20.0)
    parser.add_argument("--hour-s", type=float, default=HOUR_S, help="the app's seconds of play")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child-hour", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_hour is not None:
        child_hour(args.child_hour, args.seed)
        return
    started = started_app(args.idle_s)
    hour = hour_of_play(args.hour_s, args.seed)
    results = {"python": platform.python_version(), "started": started, "hour": hour}
    if args.json:
        print(json.dumps(results, indent=2))
        return
    s, h = results["started"], results["hour"]
    print(f"companion app on Home for {s['idle_s']:g} s: VmHWM {s['vm_hwm_mib']:.1f} MiB, "
          f"VmRSS {s['vm_rss_mib']:.1f} MiB")
    print(f"an hour's play ({h['app_s'] / 60:.0f} min of the app's time in {h['wall_s'] / 60:.1f} min): "
          f"{h['games']} games, {h['moves']} moves, {h['turns']} turns, {h['deals']} deals, "
          f"{h['timeouts']} negotiations timed out, {h['markets']} markets, {h['custom_timers']} custom "
          f"timers, {h['undo_redo']} undo+redo, {h['frames']} frames")
    print(f"  VmHWM at the end {h['final']['VmHWM'] / 1024:.1f} MiB (ru_maxrss {h['ru_maxrss_mib']:.1f} "
          f"MiB), VmRSS {h['final']['VmRSS'] / 1024:.1f} MiB")
    print("  VmRSS by minute (MiB): " + ", ".join(f"{x['t_min']:g}: {x['VmRSS'] / 1024:.0f}"
                                                  for x in h["samples"][::10]))


if __name__ == "__main__":
    main()
