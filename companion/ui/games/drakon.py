"""Drakon on the touch screen: public coin counts, secret coin values, the variant's goal,
the Heroes! counters, and the reveal at the end.

Drakon's coins lie face down: everybody sees how many a player has, nobody but the owner
sees what they are worth. So the shared screen shows counts (steppers) and never a value. A
player enters their own values behind a full-screen cover (:class:`SecretCoins`: "pass the
screen to Anna", Anna opens her page, taps 1, 2 or 3 per coin, Done, and the cover is back),
or everybody's values are entered openly at the Reveal. Who holds the variant's goal, the
totals, the team totals and the leaders all come from :func:`companion.games.drakon.score_document`
on the session's sheet; the counts, the hero deal, the ability counters and the reveal are
moves of the session's play log folded by :mod:`companion.games.drakon.play`. Every move
is checked by the rules before it is logged, and nothing lives only in a widget. At the
reveal, a photo of a player's coins (the Photo button on their row, with a camera) fills
their values at once; a coin still face down waits for a tap.

This module reads the session and runs the commands. The players' cards, the reveal rows and
the cover are in :mod:`companion.ui.games.drakon_widgets`; the texts (the goal, the summary
line, the heroes' names) are in :mod:`companion.ui.games.drakon_text`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from kivy.clock import Clock
from kivy.properties import BooleanProperty, StringProperty

from companion.errors import CompanionError, InvalidInput
from companion.games import drakon
from companion.games.drakon import AbilityRefused
from companion.games.drakon import photo as drakon_photo
from companion.games.drakon import play as drakon_play
from companion.games.drakon.play import DrakonPlay
from companion.session import TableSession
from companion.ui.games.drakon_text import (
    coin_unit,
    coins_summary,
    goal_text,
    hero_name,
    side_name,
    summary_text,
)
from companion.ui.games.drakon_widgets import DrakonCard, RevealRow, SecretCoins
from companion.ui.lang import TR
from companion.ui.photo import PhotoGame, PhotoTaker
from companion.ui.results import ResultsPopup, seated
from companion.ui.screens import BaseScreen
from companion.ui.seating import SeatTable
from companion.ui.theme import PLAYER_RGB, THEME, rgb
from companion.ui.widgets import HoldButton, TouchButton

COINS_PHOTO = PhotoGame(rules=drakon_photo.PIECES, value_name=lambda worth: worth,
                        describe=coins_summary, columns=3)
"""Drakon's photo: a player's coins at the reveal, each worth its front."""

CARD_U = 2.35
"""A card's height, in touch units."""
CARD_MIN_W_U = 7.0
"""Table mode: the least width of a card by the near or far edge, in touch units."""
SIDE_CARD_U = 3.3
"""Table mode: the height of a card turned to a side seat (its name, count and buttons stacked)."""


class DrakonScreen(BaseScreen):
    """Drakon's table and final scoring: cards while the coins are secret, rows once revealed."""

    variant = StringProperty("standard")
    goal = StringProperty("")
    summary = StringProperty("")
    revealed = BooleanProperty(False)
    around = BooleanProperty(False)
    """Table mode while the coins are secret: the cards stand round the screen by seat."""

    def __init__(self, **kwargs: Any) -> None:
        self.cards: dict[str, DrakonCard] = {}
        self.reveal_rows: dict[str, RevealRow] = {}
        self.secret: SecretCoins | None = None
        self.deal_button: TouchButton | None = None
        self.reveal_button: HoldButton | None = None
        self.finish_button: TouchButton | None = None
        self._loading = False
        self._table: SeatTable | None = None
        self.photo = PhotoTaker(notify=lambda message: self.notify(message))
        super().__init__(**kwargs)
        self._redraw = Clock.create_trigger(lambda _dt: self.refresh(), -1)
        self.photo.bind(busy=self._photo_busy)

    # -- reading the session -------------------------------------------------------------------

    def _session(self) -> TableSession | None:
        return self.svc.session if self.svc is not None else None

    def _names(self) -> list[str]:
        session = self._session()
        return [p.name for p in session.players] if session is not None else []

    def _ours(self) -> TableSession | None:
        """The session if it is a Drakon one; another game's sheet and log mean nothing here."""
        session = self._session()
        return session if session is not None and session.game == "drakon" else None

    def _doc(self) -> dict[str, Any]:
        session = self._ours()
        raw = session.score_document() if session is not None else {}
        return drakon_play.sheet_document(raw, self._names())

    def _state(self) -> DrakonPlay:
        session = self._ours()
        return drakon_play.fold(self._names(), session.play_log if session is not None else [])

    def _has_entered(self, player: str) -> bool:
        """Whether *player* has put values on the sheet (in secret or at the reveal)."""
        session = self._ours()
        return session is not None and "coins" in session.score_sheet.get(player, {})

    def _entry(self, player: str, doc: dict[str, Any], state: DrakonPlay) -> str:
        """*player*'s secret entry: ``"none"``, ``"stale"`` (their count has changed since: a
        coin found, lost or stolen) or ``"done"``."""
        if not self._has_entered(player):
            return "none"
        return "done" if len(doc["players"][player]["coins"]) == state.counts.get(player, 0) else "stale"

    # -- drawing -------------------------------------------------------------------------------

    def on_pre_enter(self, *_: Any) -> None:
        self.refresh()

    def refresh(self) -> None:
        session = self._session()
        doc, state = self._doc(), self._state()
        self.variant = doc["variant"]
        self.revealed = state.revealed
        self.goal = goal_text(self.variant)
        rows = self.ids.rows
        rows.clear_widgets()
        self.cards, self.reveal_rows = {}, {}
        colours = {p.name: p.colour for p in session.players} if session is not None else {}
        angles = session.panel_angles() if session is not None else {}
        self.around = not state.revealed and any(angles.values())
        table = self._table = None
        if self.around:  # table mode: each card by its player's seat, facing them
            table = self._table = SeatTable(side_px=THEME.u * SIDE_CARD_U, row_px=THEME.u * CARD_U,
                                            gap=THEME.u * 0.1, size_hint=(None, None))
            rows.add_widget(table)
        for name in self._names():
            colour = rgb(PLAYER_RGB.get(colours.get(name, ""), "#888888"))
            if state.revealed:
                rows.add_widget(self._reveal_row(name, colour, doc))
                continue
            card = self._card(name, colour, doc, state)
            if table is not None:
                card.stacked = angles.get(name, 0) in (90, 270)
                table.seat(card, angles.get(name, 0))
            else:
                rows.add_widget(card)
        self._fit_table()
        self._build_actions(state)
        self._rescore(doc, state)

    def on_kv_post(self, *_: Any) -> None:
        self.ids.scroll.bind(size=self._fit_table)

    def _fit_table(self, *_: Any) -> None:
        """Make table mode's table fill the cards' view: at least two cards high (a card turned
        to a side seat is as wide as the table is high), and wide enough for the cards that
        share the near or far edge (:data:`CARD_MIN_W_U` each); a bigger one scrolls."""
        table, view = self._table, self.ids.scroll
        if table is None:
            return
        u = THEME.u
        table.wide = view.width >= view.height  # the side cards stand beside the rows, or between them
        least_w = table.least(CARD_MIN_W_U * u, SIDE_CARD_U * u, table.wide)[0]  # its height: the view
        table.width = self.ids.rows.width = max(view.width, least_w)
        table.height = max(view.height, (2 * CARD_U + 0.1) * u)

    def _card(self, name: str, colour: list[float], doc: dict[str, Any], state: DrakonPlay) -> DrakonCard:
        card = DrakonCard(name=name, colour=colour)
        self._loading = True
        try:
            card.ids.stepper.value = state.counts.get(name, 0)
        finally:
            self._loading = False
        # Texts here, not in kv: cards are rebuilt, and kv's tr._ bindings would stay behind.
        stepper = card.ids.stepper
        stepper.unit = coin_unit(stepper.value)
        stepper.title = TR._("{player}: number of coins").format(player=name)
        stepper.bind(value=lambda s, v: setattr(s, "unit", coin_unit(v)))
        stepper.bind(value=lambda _s, v, n=name: self.count_changed(n, int(v)))
        extras = card.ids.extras
        if name in state.heroes:
            counter = state.heroes[name]
            text = (TR._("{hero}: used") if counter.used else TR._("{hero}: ready")).format(
                hero=hero_name(counter.hero))
            card.hero_button = TouchButton(text=text, selected=not counter.used)
            card.hero_button.bind(on_release=lambda _b, n=name: self.use_ability(n))
            extras.add_widget(card.hero_button)
        player = doc["players"][name]
        secret = {"none": TR._("Enter coins in secret"), "stale": TR._("Coins changed: enter again"),
                  "done": TR._("Coins entered ✓")}[self._entry(name, doc, state)]
        card.secret_button = TouchButton(text=secret)
        card.secret_button.bind(on_release=lambda _b, n=name: self.open_secret(n))
        extras.add_widget(card.secret_button)
        if self.variant == "escape":
            escaped = bool(player.get("escaped", False))
            card.flag_button = TouchButton(text=TR._("Escaped") if escaped else TR._("In the lair"),
                                           selected=escaped)
            card.flag_button.bind(on_release=lambda _b, n=name, e=escaped: self.set_escaped(n, not e))
            extras.add_widget(card.flag_button)
        elif self.variant == "team":
            team = player.get("team")
            card.flag_button = TouchButton(text=TR._("Team {name}").format(name=team or "?"))
            card.flag_button.bind(on_release=lambda _b, n=name, t=team: self.change_team(n, t))
            extras.add_widget(card.flag_button)
        self.cards[name] = card
        return card

    def _reveal_row(self, name: str, colour: list[float], doc: dict[str, Any]) -> RevealRow:
        player = doc["players"][name]
        title = name
        if self.variant == "team" and player.get("team"):
            title = f"{name} · {side_name(player['team'], self.variant)}"
        elif self.variant == "escape" and player.get("escaped"):
            title = f"{name} · {TR._('Escaped')}"
        coins = list(player["coins"])
        row = RevealRow(name=name, title=title, colour=colour,
                        coins_text=drakon_play.to_coins_text(coins) or TR._("No coins"),
                        total_text=str(sum(coins)), add_coin=self.add_coin, remove_coin=self.remove_coin,
                        photo_text=TR._("Photo"), has_photo=self.svc.read_pieces is not None,
                        busy=self.photo.busy, take_photo=self.take_photo)
        self.reveal_rows[name] = row
        return row

    def _build_actions(self, state: DrakonPlay) -> None:
        box = self.ids.actions
        box.clear_widgets()
        self.deal_button = self.reveal_button = self.finish_button = None
        if state.revealed:
            self.finish_button = TouchButton(text=TR._("Finish"), primary=True)
            self.finish_button.bind(on_release=lambda _b: self.finish())
            box.add_widget(self.finish_button)
            return
        if not state.has_heroes:
            self.deal_button = TouchButton(text=TR._("Deal the heroes"))
            self.deal_button.bind(on_release=lambda _b: self.deal_heroes())
            box.add_widget(self.deal_button)
        self.reveal_button = HoldButton(text=TR._("Hold to reveal"), primary=True)
        self.reveal_button.bind(
            on_tap=lambda _b: self.notify(TR._("Hold the button to turn every coin face up")),
            on_hold=lambda _b: self.reveal())
        box.add_widget(self.reveal_button)

    def _rescore(self, doc: dict[str, Any], state: DrakonPlay) -> None:
        """The summary line (:func:`~companion.ui.games.drakon_text.summary_text`): before the
        reveal it never shows a value, a total or who leads."""
        names = self._names()
        entered = sum(1 for n in names if self._entry(n, doc, state) == "done")  # a stale entry is not
        self.summary = summary_text(doc, names, entered, variant=self.variant, revealed=self.revealed)

    # -- commands ------------------------------------------------------------------------------

    def _play(self, kind: str, data: Mapping[str, Any]) -> bool:
        """Check a move with the rules, then log it; a refusal is shown, and nothing is logged."""
        session = self._ours()
        if session is None:
            return False
        try:
            self._state().apply(kind, data)
            session.record_play(drakon_play.PREFIX + kind, data)
        except CompanionError as exc:
            self.notify(str(exc))
            return False
        return True

    def count_changed(self, player: str, count: int) -> None:
        if self._loading:
            return
        if self._state().counts.get(player) != count:
            self._play("count", {"player": player, "count": count})
        self._redraw()

    def choose_variant(self, key: str) -> None:
        session = self._ours()
        if session is None or key == self.variant:
            return
        variant = drakon.find_variant(key)
        names = self._names()
        if len(names) not in variant.player_counts:
            counts = " / ".join(str(n) for n in sorted(variant.player_counts))
            self.notify(TR._("This variant is for {counts} players").format(counts=counts))
            return
        sheet = self._doc()["players"]

        def go() -> None:
            session.set_score_option("variant", key)
            if variant.is_team_game:
                for name, team in drakon_play.default_teams(names).items():
                    if "team" not in sheet[name]:
                        session.set_score(name, "team", team)

        self.attempt(go)
        self._redraw()

    def set_escaped(self, player: str, escaped: bool) -> None:
        session = self._ours()
        if session is not None:
            self.attempt(lambda: session.set_score(player, "escaped", escaped))
            self._redraw()

    def change_team(self, player: str, team: str | None) -> None:
        session = self._ours()
        if session is not None:
            new = drakon_play.next_team(team, len(self._names()))
            self.attempt(lambda: session.set_score(player, "team", new))
            self._redraw()

    def deal_heroes(self) -> None:
        if self._play("heroes", drakon_play.deal(self._names(), random.Random())):
            self.notify(TR._("Heroes dealt: each ability works once per game"))
        self._redraw()

    def use_ability(self, player: str) -> None:
        state = self._state()
        counter = state.heroes.get(player)
        if counter is None:
            return
        try:
            state.apply("ability", {"player": player})
        except AbilityRefused:
            self.notify(TR._("{player}: the {hero} ability was used already; it works once per game").format(
                player=player, hero=hero_name(counter.hero)))
            return
        if self._play("ability", {"player": player}):
            self.notify(TR._("{player} used the {hero} ability").format(player=player,
                                                                         hero=hero_name(counter.hero)))
        self._redraw()

    def reveal(self) -> None:
        self._play("reveal", {})
        self._redraw()

    def add_coin(self, player: str, value: int) -> None:
        doc = self._doc()
        self._set_coins(doc, player, [*drakon_play.coins_of(doc, player), value])

    def remove_coin(self, player: str) -> None:
        doc = self._doc()
        self._set_coins(doc, player, drakon_play.coins_of(doc, player)[:-1])

    def _set_coins(self, doc: dict[str, Any], player: str, coins: list[int]) -> None:
        session = self._ours()
        if session is None:
            return
        try:
            drakon_play.check_coins(doc, player, coins)
        except InvalidInput:
            self.notify(TR._("The box holds only {coins} coins").format(coins=drakon.COINS_IN_BOX))
            return
        self.attempt(lambda: session.set_score(player, "coins", coins))
        self._redraw()

    # -- the photo at the reveal ---------------------------------------------------------------

    def take_photo(self, player: str) -> None:
        """Read *player*'s coins, turned face up, from a photo (the popup corrects, then applies)."""
        if self._ours() is None or not self.revealed:
            return
        self.photo.take(self.svc.read_pieces, COINS_PHOTO,
                        TR._("Photo: {player}'s coins").format(player=player),
                        lambda values: self.apply_photo(player, values))

    def apply_photo(self, player: str, values: tuple[str, ...]) -> str:
        """Put a photo's coins on *player*'s row in place of what it held, checked as +1/+2/+3
        are (one logged change: one undo takes it back). Returns the refusal, or "" when applied."""
        session = self._ours()
        if session is None:
            return TR._("Start a game first")
        try:
            coins = drakon_photo.drakon_coins(self._doc(), player, values)
        except InvalidInput:
            return TR._("The box holds only {coins} coins").format(coins=drakon.COINS_IN_BOX)
        try:
            session.set_score(player, "coins", coins)
        except CompanionError as exc:
            return str(exc)
        self._redraw()
        self.notify(TR._("{player}: the photo's coins are on the sheet").format(player=player))
        return ""

    def _photo_busy(self, _taker: Any, busy: bool) -> None:
        for row in self.reveal_rows.values():
            row.busy = busy

    # -- the hide screen -----------------------------------------------------------------------

    def open_secret(self, player: str) -> None:
        """Cover the whole screen and hand it to *player* for their private entry."""
        if self.secret is None:
            # One cover for the screen's life: its kv texts are bound to the language switch,
            # which would trip over a cover made per entry and then garbage-collected.
            self.secret = SecretCoins(load=self._load_secret, check=self._check_secret,
                                      save=self._save_secret, table_count=self._table_count)
            self.secret.bind(on_dismiss=self._secret_closed)
        elif self.secret.parent is not None:
            return
        self.secret.player = player
        self.secret.stage = "cover"
        self.secret.open()

    def _table_count(self, player: str) -> int:
        return self._state().counts.get(player, 0)

    def _secret_closed(self, *_: Any) -> None:
        self._redraw()  # returns nothing: a handler returning True would keep the cover up

    def _load_secret(self, player: str) -> list[int]:
        return drakon_play.coins_of(self._doc(), player)

    def _check_secret(self, player: str, coins: list[int]) -> str:
        try:
            drakon_play.check_coins(self._doc(), player, coins)
        except InvalidInput:
            return TR._("The box holds only {coins} coins").format(coins=drakon.COINS_IN_BOX)
        return ""

    def _save_secret(self, player: str, coins: list[int]) -> str:
        """Write *player*'s values to the sheet; their public count follows (a count is no secret)."""
        session = self._ours()
        refusal = self._check_secret(player, coins)
        if session is None or refusal:
            return refusal
        try:
            session.set_score(player, "coins", coins)
        except CompanionError as exc:
            return str(exc)
        if self._state().counts.get(player) != len(coins):
            self._play("count", {"player": player, "count": len(coins)})
        return ""

    # -- the end -------------------------------------------------------------------------------

    def finish(self) -> None:
        session = self._ours()
        if session is None:
            return
        try:
            out = drakon.score_document(self._doc())
        except CompanionError as exc:
            self.notify(str(exc))
            return
        colours = {p.name: p.colour for p in session.players}
        self.attempt(lambda: session.finish_game(out))  # a result that stands is not logged twice
        winners = [side_name(s, self.variant) for s in drakon_play.winners(out)]
        scores = seated(out["totals"], (p.name for p in session.players))
        ResultsPopup(scores=scores, winners=winners, colours=colours).open()


SCREEN = DrakonScreen
