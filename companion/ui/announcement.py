"""An announcement over whatever the table shows: the venue's text, large, until a tap or its time.

:class:`Announcer` opens one :class:`AnnouncementView` (a window-wide dialog above every screen
and dialog open at the time) and closes it when its time is up on the app's clock, checked each
frame by :meth:`Announcer.update`, or at the first tap anywhere. A new announcement replaces
the text and the time of the one on view. Main thread only.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.lang import Builder
from kivy.properties import StringProperty
from kivy.uix.modalview import ModalView


class AnnouncementView(ModalView):  # type: ignore[misc]
    """The announcement's dialog: a heading, the text as large as it fits, and how to close it.
    Any touch on the window closes it and reaches nothing else."""

    text = StringProperty("")

    def on_touch_down(self, touch: Any) -> bool:
        self.dismiss(animation=False)
        return True

    def on_touch_move(self, touch: Any) -> bool:
        return True

    def on_touch_up(self, touch: Any) -> bool:
        return True


class Announcer:
    """Shows the venue's announcements; *now* is the app's monotonic clock."""

    def __init__(self, now: Callable[[], float]) -> None:
        self._now = now
        self.view: AnnouncementView | None = None
        self.until = 0.0

    @property
    def text(self) -> str:
        """The announcement on view ("" when none)."""
        return self.view.text if self.view is not None else ""

    def show(self, text: str, shown_s: float) -> None:
        """*text* for *shown_s* seconds from now, in place of any announcement on view."""
        self.until = self._now() + shown_s
        if self.view is not None and self.view.parent is not None:
            self.view.text = text
            return
        self.view = AnnouncementView(text=text)
        self.view.bind(on_dismiss=self._dismissed)
        self.view.open(animation=False)

    def update(self, now: float) -> None:
        """Close the announcement once its time is up (the app's frame pump calls this)."""
        if self.view is not None and now >= self.until:
            self.close()

    def close(self) -> None:
        if self.view is not None:
            self.view.dismiss(animation=False)

    def _dismissed(self, view: AnnouncementView) -> None:
        if view is self.view:
            self.view = None


KV_FILE = Path(__file__).with_suffix(".kv")
if str(KV_FILE) not in Builder.files:
    Builder.load_file(str(KV_FILE))
