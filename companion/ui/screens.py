"""What every screen shares (:class:`BaseScreen`), and the plain page of a game without its own.

Each screen gets the :class:`Services` passed in (``svc``) and calls the core; none holds
game or timer logic of its own. The app calls :meth:`update` on the visible screen once a
frame; screens only copy what the core says into their properties.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.properties import ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.errors import CompanionError
from companion.ui.services import Services

Notify = Callable[[str], None]


class BaseScreen(Screen):  # type: ignore[misc]
    svc: Services = ObjectProperty(None)
    notify: Notify = ObjectProperty(lambda _msg: None)

    def attempt(self, action: Callable[[], Any]) -> None:
        """Run a command; a refusal from the core is shown, not raised."""
        try:
            action()
        except CompanionError as exc:
            self.notify(str(exc))

    def update(self, now: float) -> None:
        pass

    def refresh(self) -> None:
        """Redraw from the core after the session changed wholesale (undo, resume, language)."""

    def taken_back(self) -> None:
        """Undo or Redo changed the session: what the screen said of the last action is old."""


class GameScreen(BaseScreen):
    title = StringProperty("")
    game = StringProperty("")
