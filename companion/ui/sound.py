"""The app's own sounds on the Pi's audio output: a beep for each warning, and the expiry alarm.

The GPIO buzzer and the accessory beep on their own; these play through Kivy's ``SoundLoader``
(SDL2's mixer) at the loudness of the config key ``ui.volume`` (0-100 %, read at each play, so
a change in Settings is heard at once; 0 is silent). The sounds are the project's own, made by
``scripts/make_sounds.py`` and shipped in ``sounds/`` beside this module.

No audio device (a Pi with nothing on its audio out, a container) never stops the app: the
sounds are then off, one line at WARNING says why, and the status strip says "Sound: none".
"""

from __future__ import annotations

import logging
import os
import sys
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.events import EventBus, WarningReached

log = logging.getLogger(__name__)

SOUNDS_DIR = Path(__file__).with_name("sounds")
WARNINGS = ("warn-1", "warn-2", "warn-3")
"""The warning beeps, earliest warning first; a fourth and later warning beep like the third."""
ALARM = "alarm"
"""The expiry alarm: one second long, played on a loop until :meth:`Sounds.stop_alarm`."""


ALSA_CARDS = Path("/proc/asound/cards")


def audio_missing(cards: Path = ALSA_CARDS, environ: Any = os.environ) -> str | None:
    """Why there is surely no audio output, or None when there may be one.

    Asked before Kivy's audio provider opens SDL's mixer, which logs CRITICAL when it finds no
    device: on Linux with SDL's default (ALSA) driver, a machine whose kernel lists no sound
    card has none. A driver named in ``SDL_AUDIODRIVER`` (``dummy`` in the tests, ``pulse``...)
    is left to SDL.
    """
    if environ.get("SDL_AUDIODRIVER") or not sys.platform.startswith("linux"):
        return None
    try:
        listed = cards.read_text(encoding="ascii", errors="replace")
    except OSError:
        return "no sound card (the kernel lists none)"
    if not listed.strip() or "no soundcards" in listed:
        return "no sound card (the kernel lists none)"
    return None


def _kivy_loader() -> Any:
    from kivy.core.audio import SoundLoader

    return SoundLoader


class Sounds:
    """Loads the shipped sounds once and plays them. Main thread only.

    *volume* gives the loudness in per cent when a sound starts; *loader* is Kivy's
    ``SoundLoader`` (or anything with its ``load(path)``).
    """

    def __init__(self, volume: Callable[[], float], *, folder: Path = SOUNDS_DIR,
                 loader: Any = None) -> None:
        self._volume = volume
        self._folder = folder
        self._loader = loader
        self._sounds: dict[str, Any] = {}
        self.problem: str | None = None
        """Why there is no sound (None while the sounds work)."""
        self.played: deque[tuple[str, str, float]] = deque(maxlen=100)
        """The sounds started lately, as (name, its state just after ``play()``, its volume 0-1):
        ``play`` when the mixer really took it."""

    def load(self) -> Sounds:
        """Load every sound; on failure the sounds are off and :attr:`problem` says why."""
        try:
            if self._loader is None and (missing := audio_missing()) is not None:
                raise OSError(missing)
            loader = self._loader if self._loader is not None else _kivy_loader()
            for name in (*WARNINGS, ALARM):
                path = self._folder / f"{name}.wav"
                sound = loader.load(str(path)) if path.exists() else None
                # Kivy's SDL2 sound without a mixer loads as an empty sound of length 0.
                if sound is None or not sound.length:
                    raise OSError(f"{path.name} did not load (no audio output, or no audio provider)")
                self._sounds[name] = sound
        except Exception as exc:  # no audio must never stop the app
            self._sounds = {}
            self.problem = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            log.warning("sound off: %s", self.problem)
        return self

    @property
    def is_available(self) -> bool:
        return bool(self._sounds)

    def state_word(self) -> str:
        """The status strip's word: ``on``, ``off`` (volume 0) or ``none`` (no audio)."""
        if not self.is_available:
            return "none"
        return "on" if self._level() > 0 else "off"

    def sound(self, name: str) -> Any:
        """The loaded sound object of that name (None when the sounds are off)."""
        return self._sounds.get(name)

    def attach(self, bus: EventBus) -> Callable[[], None]:
        """Beep at every warning on *bus*; returns the unsubscriber. (The alarm is the app's:
        it repeats until a tap, see :meth:`start_alarm`.)"""
        return bus.subscribe(WarningReached, lambda event: self.play_warning(event.index))

    def play_warning(self, index: int) -> None:
        """The beep of warning *index* (0: the earliest)."""
        self._play(WARNINGS[min(max(index, 0), len(WARNINGS) - 1)], loop=False)

    def start_alarm(self) -> None:
        """The alarm, on a loop, until :meth:`stop_alarm`."""
        self._play(ALARM, loop=True)

    def stop_alarm(self) -> None:
        sound = self._sounds.get(ALARM)
        if sound is not None and sound.state == "play":
            sound.loop = False
            sound.stop()

    @property
    def is_alarm_playing(self) -> bool:
        sound = self._sounds.get(ALARM)
        return sound is not None and sound.state == "play"

    def _level(self) -> float:
        try:
            return min(100.0, max(0.0, float(self._volume()))) / 100.0
        except (TypeError, ValueError):
            return 0.0

    def _play(self, name: str, *, loop: bool) -> None:
        sound = self._sounds.get(name)
        level = self._level()
        if sound is None or level <= 0:
            return
        try:
            if sound.state == "play":
                sound.stop()
            sound.volume = level
            sound.loop = loop
            sound.play()
        except Exception as exc:  # a mixer that went away mid-game: say it once, play no more
            self._sounds = {}
            self.problem = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            log.warning("sound off: %s", self.problem)
            return
        self.played.append((name, str(sound.state), float(sound.volume)))
