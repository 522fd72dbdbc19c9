"""Dragon's Gold's dialogs: send an adventurer, turn up a dragon, the kill, and the sharing with
the negotiation's countdown (the screen is :mod:`.dragons_gold`; their layout is in its kv).

Main thread only.
"""

from __future__ import annotations

from typing import Any

from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.popup import Popup

from companion.ui.lang import TR
from companion.ui.theme import PLAYER_RGB, THEME, rgb
from companion.ui.widgets import TouchButton


class PlacePopup(Popup):  # type: ignore[misc]
    """Who sends which adventurer, and its strength (printed on the card).

    It opens on the player after the last one who sent an adventurer (seat order), on an
    adventurer of theirs that is not fighting yet, at the strength that adventurer had last time.
    """

    screen: Any = ObjectProperty(None)
    slot = NumericProperty(0)
    player = StringProperty("")
    role = StringProperty("knight")
    about = StringProperty("")
    """The dragon it is sent against: ``⚔ 8 · Attack: 1 / 8``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._build()  # now, not on_open: that waits for the opening animation
        if self.player:
            self.pick(self.player)
        fought = self.screen.state().slots[self.slot].dragon
        if fought is not None:
            strength = fought.dragon.strength
            self.about = f"⚔ {strength} · {TR._('Attack')}: {fought.attack} / {strength}"

    def _build(self) -> None:
        box = self.ids.players
        box.clear_widgets()
        for p in self.screen.svc.session.players:
            b = TouchButton(text=p.name, fill=rgb(PLAYER_RGB[p.colour], 0.6), selected=p.name == self.player)
            b.bind(on_release=lambda _b, n=p.name: self.pick(n))
            box.add_widget(b)

    def pick(self, player: str) -> None:
        self.player = player
        self._build()
        self.pick_role(self.screen.free_role(player))

    def pick_role(self, role: str) -> None:
        self.role = role
        self.ids.strength.value = self.screen.usual_strength(self.player, role)


class RevealPopup(Popup):  # type: ignore[misc]
    """A dragon turned up: the three numbers printed on its card."""

    screen: Any = ObjectProperty(None)
    slot = NumericProperty(0)


class KillPopup(Popup):  # type: ignore[misc]
    """The dragon died: the hidden treasure drawn (the card's number to start with), and, when a
    single wizard takes them first (§5.6), the red discs in the whole treasure."""

    screen: Any = ObjectProperty(None)
    slot = NumericProperty(0)
    end_phase = BooleanProperty(False)
    hidden = NumericProperty(0)
    """The hidden treasure printed on the card (no more than the bag holds)."""
    known = NumericProperty(0)
    """The discs already on the card."""
    ask_red = BooleanProperty(False)


class SharingPopup(Popup):  # type: ignore[misc]
    """How the treasure is shared, from the rules core, with the negotiation's countdown.

    The digits, their colour and the PAUSED band are the timer screen's (the screen copies the
    session's ``negotiation`` timer in on each frame); Pause and +10 s act on that timer.
    """

    screen: Any = ObjectProperty(None)
    slot = NumericProperty(0)
    text = StringProperty("")
    negotiating = BooleanProperty(False)
    preview = BooleanProperty(False)
    """The screenshot's dialog: no kill behind it, so a time-out or a deal only closes it."""
    digits = StringProperty("")
    sand = ListProperty(THEME.primary)
    paused = BooleanProperty(False)
    digits_alpha = NumericProperty(1.0)
    toggle_text = StringProperty("")
