"""The touch app: wires the core, the GPIO panel and the screens together, and runs Kivy.

This module is the app's composition root: the only one in ``companion/ui`` that knows
about the hardware adapters. The :class:`CompanionApp` only wires; the screens hold no
logic of their own; the core owns timers, turns and the log.

Besides the screens the app shell owns what spans them: the status strip (the hardware's state,
and a message that clears itself after :data:`NOTE_S`), the expiry alarm (the window flashes
red until someone taps anywhere; the tap that stops it presses nothing else; the alarm sound
repeats for ``gpio.alarm_s`` or until that tap), the app's own sounds (:mod:`.sound`), the
venue's announcements (:mod:`.announcement`) and its link (:mod:`.venue_feed`, when the table is
on a venue's broker), which screen a resumed session opens on, and the banner while the database
cannot be written
(the store holds the moves in memory meanwhile; the app asks it to write them every
:data:`STORE_RETRY_S` until the disk takes them, and the banner goes).
"""

from __future__ import annotations

import logging
import math
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.lang import Builder
from kivy.properties import ListProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import NoTransition, ScreenManager

from companion.errors import CompanionError
from companion.events import TimerCancelled, TimerEvent, TimerExpired, TimerReset, TimerStarted
from companion.session import SessionRebuilt, TableSession
from companion.timers import MAX_TIMER_S, Phase
from companion.ui.announcement import Announcer
from companion.ui.bars import NavBar, StatusStrip, storage_banner
from companion.ui.games import screen_class
from companion.ui.history import HistoryScreen
from companion.ui.home import HomeScreen
from companion.ui.lang import TR
from companion.ui.results import LineChart  # noqa: F401 - the history screen's kv names it
from companion.ui.screens import GameScreen
from companion.ui.services import Services, game_choices
from companion.ui.settings import SettingsScreen
from companion.ui.sound import Sounds
from companion.ui.theme import THEME, register_font, rgb
from companion.ui.timer import TimerScreen, timer_label
from companion.ui.turns import TurnScreen
from companion.ui.undo_note import redo_with_note, undo_with_note
from companion.ui.venue_feed import VenueFeed
from firmware_bridge.accessory import AccessoryBridge, AccessoryStatus
from firmware_bridge.firmware import accessory_proto
from firmware_bridge.gpio import SandTimerPanel
from kiosk.host import HostRequests
from kiosk.watchdog import Notifier

KV_FILE = Path(__file__).with_name("companion.kv")
NOTE_S = 6.0
"""A message on the status strip clears itself after this many seconds (a new one restarts it)."""
RESUME_NOTE_S = 20.0
"""What a resume has to say (a timer ran out meanwhile, a reboot) stays this long."""
FLASH_HZ = 2.0
"""The expiry flash: red and dark this many times a second each, until a tap."""
FLASH_RGBA = rgb("#780000")
"""The flash's red: deep enough that the red digits of an expired timer and white text stay
readable on it."""
NO_FLASH = [0, 0, 0, 0]
STORE_RETRY_S = 2.0
"""While the disk refuses the database's writes, the app tries to write the held moves this often."""

log = logging.getLogger(__name__)


class Root(BoxLayout):  # type: ignore[misc]
    flash = ListProperty(NO_FLASH)


@dataclass
class Hardware:
    """What the app drives besides the screen: the GPIO panel and what the strip reports."""

    panel: SandTimerPanel | None
    gpio: str  # real, mock or off
    accessory: str  # a word from STRIP_ACCESSORY
    camera: str  # ok, none
    ports: list[str]
    cameras: list[str]
    bridge: AccessoryBridge | None = None  # the USB timer accessory, when one is configured
    venue: VenueFeed | None = None  # the link to the venue's broker, when the table is on one


STRIP_ACCESSORY = {"off": "off", "searching": "none", "connecting": "connecting", "connected": "connected",
                   "disconnected": "disconnected", "no answer": "no answer",
                   "version mismatch": "version mismatch"}
"""The strip's word for each state of the accessory link."""


class CompanionApp(App):  # type: ignore[misc]
    """Builds the window's widgets from :class:`Services` and :class:`Hardware`. Main thread.

    Under systemd (the kiosk's unit) it tells the service manager when its first frame is up
    and then, from the frame loop itself, that the loop is alive: a frozen UI stops those
    messages and systemd restarts the app. In kiosk mode (``ui.kiosk``) it hides the cursor,
    refuses to be closed from the keyboard or the window system, and swallows Escape.
    """

    title = "Table companion"
    use_kivy_settings = False

    def __init__(self, services: Services, hardware: Hardware, *, sounds: Sounds | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.svc = services
        self.svc.resumed = self._resumed_in_place
        self.hw = hardware
        self.sounds = sounds if sounds is not None else Sounds(lambda: self.svc.config["ui.volume"])
        self.alarm: str | None = None
        """The timer whose expiry alarm is on (flashing until a tap), or None."""
        self._alarm_t0 = 0.0
        self._alarm_steady = False  # the screenshot's alarm: red throughout, not blinking
        self._shot_undo = 0  # the screenshot's alarm: commands to take back when it stops
        self._swallowed: set[Any] = set()  # the touches that stopped an alarm, to their end
        self._note_until = 0.0
        self._screens: dict[str, Any] = {}
        self._closed = False
        self.notifier = Notifier.from_environment()
        self.host = HostRequests.from_environment()
        self._feeding: Any = None  # the Clock event that feeds systemd's watchdog
        self._store_trouble: str | None = None  # what the banner says now
        self._store_retry: Any = None  # the Clock event that retries the held writes
        self.store_retries = 0
        """How many times the app has asked the store to write what it holds."""
        self.announcer = Announcer(lambda: self.svc.clock.now())

    def build(self) -> Root:
        register_font()
        if KV_FILE.name not in " ".join(Builder.files):
            Builder.load_file(str(KV_FILE))
        TR.switch(self.svc.config["ui.language"])
        Window.allow_screensaver = False  # the screen never blanks at the table, mid-game or not
        kiosk = bool(self.svc.config["ui.kiosk"])
        if kiosk:
            # Through the window, not Kivy's show_cursor option, which breaks touch on some panels.
            Window.show_cursor = False
            Window.bind(on_request_close=self._refuse_close, on_keyboard=self._kiosk_key)
        THEME.fit_window(*Window.size)
        Window.bind(size=lambda _w, size: THEME.fit_window(*size))
        root = Root()
        self.sounds.load()
        self.strip = StatusStrip(gpio=self.hw.gpio, accessory=self.hw.accessory, camera=self.hw.camera,
                                 sound=self.sounds.state_word())
        self.manager = ScreenManager(transition=NoTransition())
        notify = self.notify
        venue_status = self.hw.venue.status_line if self.hw.venue is not None else None
        home = HomeScreen(name="home", svc=self.svc, notify=notify, choose_language=self.set_language,
                          session_started=self.started)
        screens: list[Any] = [home, TimerScreen(name="timer", svc=self.svc, notify=notify),
                              HistoryScreen(name="history", svc=self.svc, notify=notify),
                              TurnScreen(name="turns", svc=self.svc, notify=notify),
                              SettingsScreen(name="settings", svc=self.svc, notify=notify,
                                             ports=self.hw.ports, cameras=self.hw.cameras,
                                             host=self.host if kiosk else None,
                                             venue_status=venue_status)]
        for key, title in game_choices()[1:]:  # the sand-timer has its own screen
            own = screen_class(key)
            if own is not None:
                screens.append(own(name=f"game:{key}", svc=self.svc, notify=notify))
            else:
                screens.append(GameScreen(name=f"game:{key}", svc=self.svc, notify=notify, game=key,
                                          title=title))
        for screen in screens:
            self.manager.add_widget(screen)
            self._screens[screen.name] = screen
        self.nav = NavBar(go=self.go, undo=self.undo, redo=self.redo)
        self.manager.bind(current=lambda _m, name: setattr(self.nav, "current", name))
        root.add_widget(self.strip)
        root.add_widget(self.manager)
        root.add_widget(self.nav)
        self.root_widget = root
        self.svc.bus.subscribe(TimerExpired, self._on_expired)
        self.svc.bus.subscribe(SessionRebuilt, self._on_rebuilt)
        self.svc.bus.subscribe(TimerEvent, self._on_timer_event)
        self.sounds.attach(self.svc.bus)
        # Bound on the window itself, so the tap that stops an alarm reaches no widget (a popup's
        # included): it stops the alarm and does nothing else.
        Window.bind(on_touch_down=self._touch_down, on_touch_move=self._touch_rest,
                    on_touch_up=self._touch_up)
        if self.hw.panel is not None:
            self.hw.panel.attach(self.svc.bus)
        if self.hw.bridge is not None:
            self.hw.bridge.attach(self.svc.bus)
            self.hw.bridge.start()
        if self.hw.venue is not None:
            self.hw.venue.start(self.announcer.show)
        Clock.schedule_interval(self.pump, 0)
        Clock.schedule_once(self._ready, 0)  # after the first frame: the screen shows the app
        return root

    # -- the service manager and the kiosk's lock ------------------------------------------

    def _ready(self, _dt: float) -> None:
        """Up: systemd's start job ends, and from now on the frame loop feeds its watchdog."""
        self.notifier.ready()
        feed_s = self.notifier.feed_interval_s
        if feed_s is not None:
            self._feeding = Clock.schedule_interval(self._feed_watchdog, feed_s)

    def _feed_watchdog(self, _dt: float) -> None:
        self.notifier.feed()

    def _refuse_close(self, *_args: Any, **_kwargs: Any) -> bool:
        """In kiosk mode nothing closes the window but the app itself (the PIN-guarded actions)."""
        return True

    def _kiosk_key(self, _window: Any, key: int, *_args: Any) -> bool:
        return key == 27  # Escape (and Android's back): swallowed, so nothing acts on it

    def open_settings(self, *_args: Any) -> bool:
        """Kivy's own settings panel (F1) is never shown: the app's Settings screen is the one."""
        return False

    # -- the frame pump: the core's deadlines, the GPIO ticks, the visible screen -------------

    def pump(self, _dt: float) -> None:
        session = self.svc.session
        now = self.svc.clock.now()
        if session is not None:
            session.poll()
            tick = session.board.next_tick()
            if tick is not None and tick <= now:
                session.board.tick()
            self.nav.can_undo, self.nav.can_redo = session.can_undo, session.can_redo
        self.manager.current_screen.update(now)
        if self.alarm is not None:
            since = now - self._alarm_t0
            on = self._alarm_steady or int(since * FLASH_HZ * 2) % 2 == 0
            self.root_widget.flash = FLASH_RGBA if on else NO_FLASH
            if since >= self.svc.config["gpio.alarm_s"] and self.sounds.is_alarm_playing:
                self.sounds.stop_alarm()  # the sound stops after alarm_s; the flash waits for a tap
        self.announcer.update(now)
        if self._note_until and now >= self._note_until:
            self._note_until = 0.0
            self.strip.note = ""
        self.strip.sound = self.sounds.state_word()
        self._watch_store()

    # -- the database: a banner and retries while the disk refuses its writes -----------------

    def _watch_store(self) -> None:
        """Show the banner (and start retrying) when the store starts holding writes; take it
        down (and stop) once it has written them. Main thread."""
        trouble = self.svc.store.trouble
        if trouble == self._store_trouble:
            return
        self._store_trouble = trouble
        self.strip.banner = storage_banner(trouble)
        if trouble is not None and self._store_retry is None:
            self._store_retry = Clock.schedule_interval(self._retry_store, STORE_RETRY_S)
        elif trouble is None and self._store_retry is not None:
            self._store_retry.cancel()
            self._store_retry = None

    def _retry_store(self, _dt: float) -> None:
        self.store_retries += 1
        try:
            self.svc.store.flush()
        except sqlite3.Error:  # not the disk's refusal but our bug: the store dropped that write
            log.exception("database %s: a held write was refused", self.svc.store.path)
        self._watch_store()

    # -- the expiry alarm -----------------------------------------------------------------------

    def _on_expired(self, event: TimerExpired) -> None:
        """A timer ran out: flash and sound until a tap (the sound for ``gpio.alarm_s`` at most)."""
        if self.alarm is None:
            self._alarm_t0 = self.svc.clock.now()
            self.sounds.start_alarm()
        self.alarm = event.timer
        self.root_widget.flash = FLASH_RGBA
        self.notify(TR._("{timer}: time is up. Tap anywhere to stop the alarm.")
                    .format(timer=timer_label(event.timer)), hold_s=math.inf)

    def _on_timer_event(self, event: TimerEvent) -> None:
        if isinstance(event, (TimerStarted, TimerReset, TimerCancelled)):
            self.stop_alarm(silence=False)  # the GPIO panel and the accessory silence themselves

    def _on_rebuilt(self, event: SessionRebuilt) -> None:
        self.stop_alarm(silence=False)  # undo, redo, resume: whatever rang is taken back or old
        if event.reason in ("undo", "redo"):
            for screen in self._screens.values():
                screen.taken_back()
        self.refresh()

    def stop_alarm(self, *, silence: bool = True) -> None:
        """End the alarm: the flash, the app's sound, its message, and (with *silence*) the GPIO
        buzzer and the accessory's alarm. Nothing happens without an alarm. Main thread."""
        if self.alarm is None:
            return
        self.alarm = None
        self._alarm_steady = False
        self.root_widget.flash = NO_FLASH
        self.sounds.stop_alarm()
        if self._note_until == math.inf:
            self.notify("")
        if silence:
            if self.hw.panel is not None:
                self.hw.panel.silence()
            if self.hw.bridge is not None:
                self.hw.bridge.command(accessory_proto.SILENCE)
        undo, self._shot_undo = self._shot_undo, 0
        for _ in range(undo):
            if self.svc.session is not None:
                self.svc.session.undo()

    def _touch_down(self, _window: Any, touch: Any) -> bool:
        if self.alarm is None:
            return False
        self._swallowed.add(touch.uid)
        self.stop_alarm()
        return True

    def _touch_rest(self, _window: Any, touch: Any) -> bool:
        return touch.uid in self._swallowed

    def _touch_up(self, _window: Any, touch: Any) -> bool:
        if touch.uid in self._swallowed:
            self._swallowed.discard(touch.uid)
            return True
        return False

    def show_alarm_for_screenshot(self) -> None:
        """For the screenshot script, not for journeys: the timer selected on the Timer screen
        runs out now (its time taken away) and the alarm shows, red throughout; the next
        :meth:`stop_alarm` also takes those commands back, so the sample table goes on as it was."""
        session = self.svc.ensure_session()
        name = self._screens["timer"].selected
        if name not in session.board:
            return
        steps = 0
        if session.board[name].phase is not Phase.RUNNING:
            session.toggle(name)  # idle, paused or expired: running again
            steps += 1
        session.adjust(name, -MAX_TIMER_S)
        self._shot_undo = steps + 1
        self._alarm_steady = True
        self.root_widget.flash = FLASH_RGBA
        self.pump(0)  # every widget shows it now, not a frame later

    # -- navigation and commands --------------------------------------------------------------

    def go(self, name: str) -> None:
        """Show screen *name*; ``"game"`` is the session's game's screen, the Timer screen at a
        sand-timer. With nothing going but a session left open, the Timer, Turns and Game tabs
        resume it first (the Timer screen then shows its timer going, as Home's Resume would)."""
        if name in ("timer", "turns", "game"):
            self._resume_left_open(show_timer=False)
        if name == "game":
            game = self.svc.session.game if self.svc.session is not None else "timer"
            name = f"game:{game}" if f"game:{game}" in self._screens else "timer"
        self.manager.current = name

    def started(self, game: str) -> None:
        """A session began or was resumed: the Timer screen when it has a timer going (the one
        running, else paused, else one that ran out while the app was closed), else the game's
        screen. What a resume has to say replaces the Home screen's "Session resumed"."""
        session = self.svc.session
        self.refresh()
        said = self._resume_notes(session) if session is not None else []
        if said:
            self.notify(". ".join(said), hold_s=RESUME_NOTE_S)
        shown = self._timer_to_show()
        if shown is not None:
            self._screens["timer"].select(shown)
            self.manager.current = "timer"
        else:
            self.manager.current = "timer" if game == "timer" else f"game:{game}"

    def _resume_left_open(self, *, show_timer: bool) -> bool:
        """With nothing going but a session left open: resume it, select its timer going on the
        Timer screen (and with *show_timer*, show that screen). Whether it resumed one."""
        if self.svc.session is not None or self.svc.store.open_session() is None:
            return False
        self._attempt(self.svc.ensure_session)
        shown = self._timer_to_show()
        if shown is not None:
            self._screens["timer"].select(shown)
            if show_timer:
                self.manager.current = "timer"
        return True

    def _resumed_in_place(self, session: TableSession) -> None:
        """The session left open was resumed by a timer's tap or the button (not by Home's
        Resume): every screen shows it, the screen stays, and the strip says so."""
        self.refresh()
        said = self._resume_notes(session)
        self.notify(". ".join(said or [TR._("Session resumed")]), hold_s=RESUME_NOTE_S)

    @staticmethod
    def _resume_notes(session: TableSession) -> list[str]:
        """What a resume has to say: the timers that ran out meanwhile, and a reboot."""
        said = [TR._("{timer} ran out while the app was closed").format(timer=timer_label(name))
                for name in session.ran_out]
        if session.resume_note:
            said.append(TR._(session.resume_note))
        return said

    def _timer_to_show(self) -> str | None:
        session = self.svc.session
        if session is None:
            return None
        board = session.board
        for phase in (Phase.RUNNING, Phase.PAUSED):
            going = [n for n in board.names if board[n].phase is phase]
            if going:
                return going[-1]
        ran_out = [n for n in session.ran_out if n in board]
        return ran_out[-1] if ran_out else None

    def set_language(self, lang: str) -> None:
        TR.switch(lang)
        self.strip.banner = storage_banner(self._store_trouble)
        self.refresh()

    def undo(self) -> None:  # the buttons: take back (put back) the last action, and say which
        if (session := self.svc.session) is not None:
            self._attempt(lambda: self.notify(undo_with_note(session)))

    def redo(self) -> None:
        if (session := self.svc.session) is not None:
            self._attempt(lambda: self.notify(redo_with_note(session)))

    def _attempt(self, action: Any) -> None:
        try:
            action()
        except CompanionError as exc:
            self.notify(str(exc))

    def refresh(self) -> None:
        for screen in self._screens.values():
            screen.refresh()

    def notify(self, message: str, hold_s: float = NOTE_S) -> None:
        """Show *message* on the status strip for *hold_s* seconds (``math.inf``: until the next
        message); an empty one clears the strip. Main thread."""
        self.strip.note = message
        self._note_until = self.svc.clock.now() + hold_s if message else 0.0

    def button_toggle(self) -> None:
        """The physical button: start/pause the timer on screen (or the newest one). With nothing
        going but a session left open, a press resumes it and shows its timer, as Home's Resume
        would; the next press starts or pauses."""
        if not self._resume_left_open(show_timer=True):
            self._screens["timer"].toggle()

    def button_reset(self) -> None:
        self._screens["timer"].reset()

    def button_silenced(self) -> None:
        """A button (the accessory's or the GPIO panel's) silenced its alarm: silence the rest
        too, and stop the flash."""
        if self.hw.panel is not None:
            self.hw.panel.silence()
        self.stop_alarm()

    def accessory_changed(self, status: AccessoryStatus) -> None:
        """The accessory link changed (posted to the main thread by the bridge)."""
        self.strip.accessory = STRIP_ACCESSORY.get(status.state, status.state)

    def on_stop(self) -> None:
        if self._feeding is not None:
            self._feeding.cancel()
            self._feeding = None
        if not self._closed:  # Kivy may dispatch on_stop twice; systemd hears it once
            self.notifier.stopping()
        self.on_stop_cleanup()

    def on_stop_cleanup(self) -> None:
        """Every output off and the database closed (what it still holds written if the disk
        takes it now); safe to call twice."""
        if self._store_retry is not None:
            self._store_retry.cancel()
            self._store_retry = None
        if self.hw.panel is not None:
            self.hw.panel.close()
        if self.hw.bridge is not None:
            self.hw.bridge.close(flush_s=0.3)
        if self.hw.venue is not None:
            self.hw.venue.close()  # before the store: its outbox lies in the same database
        if not self._closed:
            self._closed = True
            self.svc.store.close()


def kivy_post(fn: Any) -> None:
    """Hand *fn* to Kivy's main thread (gpiozero's handlers run on their own threads)."""
    Clock.schedule_once(lambda _dt: fn())
