"""Drakon's widgets: a player's card while the coins are secret, a player's row once they are
revealed, and the hide screen where one player enters their coin values in private.

:class:`~companion.ui.games.drakon.DrakonScreen` makes them and hands them what they show and
the callables their taps call; none of them reads the session. Their layout is in ``drakon.kv``,
which the app loads with the screen.

Main thread only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.properties import BooleanProperty, ListProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.modalview import ModalView

from companion.games.drakon import play as drakon_play
from companion.ui.lang import TR
from companion.ui.widgets import TouchButton


class DrakonCard(BoxLayout):  # type: ignore[misc]
    """One player during play: the public coin count, the hero, the secret entry, the flags."""

    name = StringProperty("")
    colour = ListProperty([1, 1, 1, 1])
    stacked = BooleanProperty(False)
    """The name, the count and the buttons in three rows (a card turned to a side seat)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.hero_button: TouchButton | None = None
        self.secret_button: TouchButton | None = None
        self.flag_button: TouchButton | None = None


class RevealRow(BoxLayout):  # type: ignore[misc]
    """One player after the reveal: the values face up, 1/2/3 to add one, ⌫ to take one back."""

    name = StringProperty("")
    title = StringProperty("")
    colour = ListProperty([1, 1, 1, 1])
    coins_text = StringProperty("")
    total_text = StringProperty("")
    photo_text = StringProperty("")
    has_photo = BooleanProperty(False)  # a camera is set up: the row has a Photo button
    busy = BooleanProperty(False)       # the camera is reading (for this row or another)
    add_coin: Callable[[str, int], None] = ObjectProperty(lambda _name, _value: None)
    remove_coin: Callable[[str], None] = ObjectProperty(lambda _name: None)
    take_photo: Callable[[str], None] = ObjectProperty(lambda _name: None)


class SecretCoins(ModalView):  # type: ignore[misc]
    """The hide screen: a full-screen cover, one player's private entry behind it, the cover again.

    ``stage`` is ``cover`` (pass the screen to the player), ``entry`` (their values, which only
    they see) or ``done`` (saved, pass the screen back). The draft values live here only while
    the entry page is up; they are forgotten when it closes, so no widget keeps them.
    """

    player = StringProperty("")
    stage = StringProperty("cover")
    coins_text = StringProperty("")
    total_text = StringProperty("")
    count_text = StringProperty("")
    message = StringProperty("")
    load: Callable[[str], list[int]] = ObjectProperty(lambda _player: [])
    table_count: Callable[[str], int] = ObjectProperty(lambda _player: 0)
    check: Callable[[str, list[int]], str] = ObjectProperty(lambda _player, _coins: "")
    save: Callable[[str, list[int]], str] = ObjectProperty(lambda _player, _coins: "")

    def __init__(self, **kwargs: Any) -> None:
        self.draft: list[int] = []
        self._asked: int | None = None  # the count Done last asked about (a second Done saves it)
        super().__init__(**kwargs)

    def on_stage(self, _view: Any, stage: str) -> None:
        self.ids.stages.current = stage

    def open_entry(self) -> None:
        self.draft = list(self.load(self.player))
        self.stage = "entry"
        self._show()

    def press(self, value: int) -> None:
        candidate = [*self.draft, value]
        refusal = self.check(self.player, candidate)
        if refusal:
            self.message = refusal
            return
        self.draft = candidate
        self._show()

    def remove_last(self) -> None:
        self.draft = self.draft[:-1]
        self._show()

    def clear(self) -> None:
        self.draft = []
        self._show()

    def done(self) -> None:
        """Save the draft. Where its number of coins is not the count on the table (one was
        set there), the first tap only says so; a second saves it, and the table's count follows."""
        table = self.table_count(self.player)
        if table and len(self.draft) != table and self._asked != len(self.draft):
            self._asked = len(self.draft)
            asked = TR._("The table says {table}, you entered {coins}: Done again saves {coins}")
            self.message = asked.format(table=table, coins=len(self.draft))
            return
        refusal = self.save(self.player, list(self.draft))
        if refusal:
            self.message = refusal
            return
        self._forget()
        self.stage = "done"

    def on_dismiss(self) -> None:
        self._forget()

    def _show(self) -> None:
        self.message = ""
        self._asked = None
        self.coins_text = drakon_play.to_coins_text(self.draft) or TR._("No coins yet")
        if len(self.draft) == 1:
            self.total_text = TR._("{gold} gold in one coin").format(gold=sum(self.draft))
        else:
            self.total_text = TR._("{gold} gold in {coins} coins").format(gold=sum(self.draft),
                                                                           coins=len(self.draft))
        self.count_text = TR._("Coins on the table: {coins}").format(coins=self.table_count(self.player))

    def _forget(self) -> None:
        self.draft, self._asked = [], None
        self.coins_text = self.total_text = self.count_text = self.message = ""
