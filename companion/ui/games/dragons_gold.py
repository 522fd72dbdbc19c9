"""Dragon's Gold on the touch screen: the play (dragons, fights, sharing) and the final scoring.

Play: the row of face-up dragons with their printed values (entered as each is turned up),
adventurers placed by tapping, the kill found by the rules core, then the sharing: the 60 s
negotiation timer starts by itself when two or more players share, the single wizard's red
discs and the thieves' order are shown, a time-out removes the treasure from the game; the
market card's 60 s trading timer; the strategic variant's divider and choosing order; the bag's
tally and the end phase. Every move is a logged play move folded by
:mod:`companion.games.dragons_gold_table`, so undo, redo and resume cover it.

Final scoring: the score sheet, each change checked with the game's own ``score_document``
before it is logged; the totals shown are exactly what ``companion score`` answers. A photo of
a player's treasure pile (the Photo button, with a camera) fills their nine counts at once,
checked the same way (:func:`companion.games.table_photo.dragons_gold_counts`).
"""

from __future__ import annotations

from typing import Any

from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.popup import Popup

from companion.errors import CompanionError
from companion.events import TimerExpired
from companion.games import dragons_gold, dragons_gold_table, table_photo
from companion.games.dragons_gold_table import TableState
from companion.timers import Phase
from companion.ui.lang import TR
from companion.ui.photo import PhotoGame, PhotoTaker
from companion.ui.results import ResultsPopup
from companion.ui.screens import BaseScreen
from companion.ui.theme import PLAYER_RGB, rgb
from companion.ui.widgets import FitLabel, Stepper, TouchButton

DISC_FIELDS: tuple[str, ...] = tuple(d.value for d in dragons_gold.Disc)

DISC_RGB: dict[str, str] = {**PLAYER_RGB, "silver": "#b0bec5", "gold": "#ffb300", "white": "#fafafa",
                            "black": "#212121"}
"""The discs' colours on the photo picker's buttons (the gems share the player colours' names)."""


def disc_summary(values: tuple[str, ...]) -> str:
    """A photo's treasure in a line: ``silver 3 · gold 1 · red 2``, in the box's order."""
    counts = table_photo.disc_counts(values)
    return " · ".join(f"{TR._(field)} {n}" for field, n in counts.items() if n)


TREASURE_PHOTO = PhotoGame(rules=table_photo.DRAGONS_GOLD_PIECES, value_name=lambda field: TR._(field),
                           describe=disc_summary, columns=3, value_fill=lambda field: rgb(DISC_RGB[field]))
"""Dragon's Gold's photo: a player's treasure pile, one face-up disc at a time."""


class DiscCounter(BoxLayout):  # type: ignore[misc]
    field = StringProperty("")


class DragonsGoldScoreScreen(BaseScreen):
    """Dragon's Gold's final scoring: a player at a time, nine big steppers, live totals."""

    player = StringProperty("")
    summary = StringProperty("")
    rules = StringProperty("simple")
    players = ListProperty([])
    has_photo = BooleanProperty(False)
    reading = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        self._loading = False
        self.counters: dict[str, Stepper] = {}  # before super(): kv's on_kv_post fills it
        self.photo = PhotoTaker(notify=lambda message: self.notify(message))
        super().__init__(**kwargs)
        self.photo.bind(busy=lambda _taker, busy: setattr(self, "reading", busy))

    def on_kv_post(self, _base: Any) -> None:
        grid = self.ids.counts
        for field in DISC_FIELDS:
            box = DiscCounter(field=field)
            stepper = Stepper(low=0, high=dragons_gold.BOX[dragons_gold.Disc(field)])
            stepper.bind(value=lambda s, v, f=field: self.count_changed(f, int(v), s))
            box.add_widget(FitLabel(text=TR._(field), size_hint_y=0.4))
            box.add_widget(stepper)
            self.counters[field] = stepper
            grid.add_widget(box)

    def on_pre_enter(self, *_: Any) -> None:
        self.refresh()

    def refresh(self) -> None:
        session = self.svc.session if self.svc is not None else None
        names = [p.name for p in session.players] if session is not None else []
        self.players = names
        if self.player not in names:
            self.player = names[0] if names else ""
        self.rules = (session.score_rules if session is not None else None) or "simple"
        self.has_photo = self.svc is not None and self.svc.read_pieces is not None
        tabs = self.ids.tabs
        tabs.clear_widgets()
        for p in session.players if session is not None else ():
            tab = TouchButton(text=p.name, selected=p.name == self.player,
                              fill=[0, 0, 0, 0] if p.name == self.player else rgb(PLAYER_RGB[p.colour], 0.55))
            tab.bind(on_release=lambda _b, n=p.name: self.choose(n))
            tabs.add_widget(tab)
        for widget in self.counters.values():
            widget.disabled = not self.player
        for field, label in zip(DISC_FIELDS, self.ids.counts.children[::-1], strict=True):
            label.children[1].text = TR._(field)
        self._load_counts()
        self._rescore()

    def choose(self, player: str) -> None:
        self.player = player
        self.refresh()

    def set_rules(self, rules: str) -> None:
        session = self.svc.session
        if session is not None:
            self.attempt(lambda: session.set_score_rules(rules))
            self.refresh()

    def _load_counts(self) -> None:
        session = self.svc.session if self.svc is not None else None
        sheet = session.score_sheet.get(self.player, {}) if session is not None else {}
        self._loading = True
        try:
            for field, stepper in self.counters.items():
                stepper.value = sheet.get(field, 0)
        finally:
            self._loading = False

    def count_changed(self, field: str, value: int, stepper: Stepper) -> None:
        session = self.svc.session
        if self._loading or session is None or not self.player:
            return
        if session.score_sheet.get(self.player, {}).get(field, 0) == value:
            return
        candidate = session.score_document()
        candidate["players"][self.player][field] = value
        try:
            dragons_gold.score_document(candidate)  # refuse what the box cannot hold, before logging
            session.set_score(self.player, field, value)
        except CompanionError as exc:
            self.notify(str(exc))
            self._load_counts()
            return
        self._rescore()

    def take_photo(self) -> None:
        """Read the chosen player's treasure pile from a photo (the popup corrects, then applies)."""
        player = self.player
        if not player or self.svc is None:
            return
        self.photo.take(self.svc.read_pieces, TREASURE_PHOTO,
                        TR._("Photo: {player}'s treasure").format(player=player),
                        lambda values: self.apply_photo(player, values))

    def apply_photo(self, player: str, values: tuple[str, ...]) -> str:
        """Put a photo's discs on *player*'s sheet in place of their counts: all nine checked
        together first, as a stepper's change is, then the changed counts logged as one change
        (one undo takes the photo back). Returns the refusal, or "" when applied."""
        session = self.svc.session
        if session is None:
            return TR._("Start a game first")
        try:
            counts = table_photo.dragons_gold_counts(session.score_document(), player, values)
        except CompanionError as exc:
            return str(exc)
        sheet = session.score_sheet.get(player, {})
        # the player is at the table and every n >= 0: set_scores takes them
        session.set_scores(player, {field: n for field, n in counts.items() if sheet.get(field, 0) != n})
        self.refresh()
        self.notify(TR._("{player}: the photo's treasure is on the sheet").format(player=player))
        return ""

    def _rescore(self) -> None:
        session = self.svc.session if self.svc is not None else None
        if session is None or len(session.players) < dragons_gold.MIN_PLAYERS:
            self.summary = TR._("Dragon's Gold is for 3 to 6 players: add them on the Home screen")
            return
        try:
            out = dragons_gold.score_document(session.score_document())
        except CompanionError as exc:
            self.summary = str(exc)
            return
        winners = set(out["winners"])
        self.summary = "   ".join(f"{name} {score}{' ★' if name in winners else ''}"
                                  for name, score in out["scores"].items())

    def finish(self) -> None:
        session = self.svc.session
        if session is None:
            return
        try:
            out = dragons_gold.score_document(session.score_document())
        except CompanionError as exc:
            self.notify(str(exc))
            return
        colours = {p.name: p.colour for p in session.players}
        self.attempt(lambda: session.finish_game(out))
        ResultsPopup(scores=out["scores"], winners=out["winners"], colours=colours).open()




ROLES = ("knight", "thief", "wizard")


class DragonCard(BoxLayout):  # type: ignore[misc]
    """One slot of the row: a live dragon, a killed one waiting for its sharing, or empty."""

    slot = NumericProperty(0)
    title = StringProperty("")
    detail = StringProperty("")
    attackers = StringProperty("")
    action = StringProperty("")
    can_act = BooleanProperty(True)
    screen: Any = ObjectProperty(None)


class PlacePopup(Popup):  # type: ignore[misc]
    """Who sends which adventurer, and its strength (printed on the card)."""

    screen: Any = ObjectProperty(None)
    slot = NumericProperty(0)
    player = StringProperty("")
    role = StringProperty("knight")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._build()  # now, not on_open: that waits for the opening animation

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


class RevealPopup(Popup):  # type: ignore[misc]
    """A dragon turned up: the three numbers printed on its card."""

    screen: Any = ObjectProperty(None)
    slot = NumericProperty(0)


class KillPopup(Popup):  # type: ignore[misc]
    """The dragon died: the hidden treasure drawn, and the red discs in the whole treasure."""

    screen: Any = ObjectProperty(None)
    slot = NumericProperty(0)
    end_phase = BooleanProperty(False)


class SharingPopup(Popup):  # type: ignore[misc]
    """How the treasure is shared, from the rules core; the negotiation timer runs meanwhile."""

    screen: Any = ObjectProperty(None)
    slot = NumericProperty(0)
    text = StringProperty("")
    negotiating = BooleanProperty(False)


class DragonsGoldScreen(BaseScreen):
    """The game: a Play page (the row, fights, sharing) and the Final scoring page."""

    bag = StringProperty("")
    banner = StringProperty("")
    strategic = BooleanProperty(False)
    market_due = BooleanProperty(False)
    over = BooleanProperty(False)
    page = StringProperty("play")

    def __init__(self, **kwargs: Any) -> None:
        self.sharing_popup: SharingPopup | None = None
        super().__init__(**kwargs)

    def on_kv_post(self, _base: Any) -> None:
        for i in range(dragons_gold.ROW_SIZE):
            self.ids.row.add_widget(DragonCard(slot=i, screen=self))
        self.ids.sheet.svc = self.svc
        self.ids.sheet.notify = self.notify
        if self.svc is not None:
            self.svc.bus.subscribe(TimerExpired, self._timer_expired)

    # -- the state, from the log ----------------------------------------------------------------

    def state(self) -> TableState:
        session = self.svc.session
        moves = [(k[3:], d) for k, d, _t in session.play_log if k.startswith("dg.")] if session else []
        rules = (session.score_rules if session is not None else None) or "simple"
        return dragons_gold_table.fold(moves, rules=rules)

    def move(self, kind: str, data: dict[str, Any]) -> bool:
        """Check a move against the current state, then log it. False (and a message) if refused."""
        session = self.svc.session
        if session is None:
            return False
        try:
            dragons_gold_table.apply(self.state(), kind, data)
            session.record_play("dg." + kind, data)
        except CompanionError as exc:
            self.notify(str(exc))
            return False
        self.refresh()
        return True

    def on_pre_enter(self, *_: Any) -> None:
        self.refresh()

    def show_page(self, page: str) -> None:
        self.page = page
        self.ids.pages.current = page
        self.refresh()

    def refresh(self) -> None:
        if self.svc is None or "row" not in self.ids:
            return
        self.ids.sheet.refresh()
        state = self.state()
        self.strategic = state.strategic
        self.market_due = state.is_market_due
        self.over = state.is_over and state.revealed > 0
        self.bag = TR._("Bag") + f": {state.bag}   " + TR._("Dragons") + f": {state.revealed}/18" + (
            "   " + TR._("End phase: no new dragons, no hidden treasure") if state.is_end_phase else "")
        self.banner = (TR._("Market card! 60 s of free trading") if state.is_market_due else
                       TR._("The game is over: go to the final scoring") if self.over else "")
        for card in self.ids.row.children:
            self._show_card(card, state)

    def _show_card(self, card: DragonCard, state: TableState) -> None:
        s = state.slots[card.slot]
        if s.dragon is None:
            card.title, card.detail, card.attackers = TR._("Empty"), "", ""
            card.action, card.can_act = TR._("Turn up a dragon"), state.can_reveal
            return
        d = s.dragon
        card.title = f"⚔ {d.dragon.strength}"
        hidden = f" + {d.dragon.hidden} " + TR._("hidden") if not s.killed else ""
        card.detail = TR._("Treasure") + f": {s.treasure_discs}{hidden}   " + TR._("Attack") + f": {d.attack}"
        card.attackers = "\n".join(f"{a.player} · {TR._(a.role.value)} {a.strength}" for a in d.attackers)
        card.action = TR._("Sharing") if s.killed else TR._("Send an adventurer")
        card.can_act = True

    # -- moves ------------------------------------------------------------------------------------

    def card_tapped(self, slot: int) -> None:
        s = self.state().slots[slot]
        if s.dragon is None:
            RevealPopup(screen=self, slot=slot).open()
        elif s.killed:
            self.open_sharing(slot)
        else:
            players = self.svc.session.players if self.svc.session else ()
            PlacePopup(screen=self, slot=slot, player=players[0].name if players else "").open()

    def reveal(self, slot: int, strength: int, known: int, hidden: int) -> None:
        self.move("reveal", {"slot": slot, "strength": strength, "known": known, "hidden": hidden})

    def place(self, slot: int, player: str, role: str, strength: int) -> None:
        if not player:
            self.notify(TR._("Choose the player"))
            return
        if self.move("place", {"slot": slot, "player": player, "role": role, "strength": strength}):
            s = self.state().slots[slot]
            if s.dragon is not None and s.dragon.is_dead:  # §5.3: the kill is checked at once
                KillPopup(screen=self, slot=slot, end_phase=self.state().is_end_phase).open()

    def kill(self, slot: int, hidden_drawn: int, red: int) -> None:
        if self.move("kill", {"slot": slot, "hidden_drawn": hidden_drawn, "red": red}):
            self.open_sharing(slot)

    def open_sharing(self, slot: int) -> None:
        state = self.state()
        sharing = state.sharing(slot)
        popup = SharingPopup(screen=self, slot=slot, text=sharing_text(sharing, state),
                             negotiating=sharing.needs_negotiation)
        self.sharing_popup = popup
        if sharing.needs_negotiation:
            self._start_timer("negotiation")
        popup.open()

    def shared(self, slot: int, outcome: str) -> None:
        if outcome != "timeout":  # a deal stops the glass; at a time-out it has run out (and rings)
            self._stop_timer("negotiation")
        if self.sharing_popup is not None:
            self.sharing_popup.dismiss()
            self.sharing_popup = None
        if self.move("shared", {"slot": slot, "outcome": outcome}) and outcome == "timeout":
            self.notify(TR._("Time is up: the treasure leaves the game"))

    def market(self) -> None:
        self._start_timer("market")
        self.move("market", {})
        self.notify(TR._("Market: trade treasure freely for 60 s"))

    def toggle_strategic(self) -> None:
        self.move("variant", {"strategic": not self.state().strategic})

    def _timer_expired(self, event: TimerExpired) -> None:
        popup = self.sharing_popup
        if event.timer == "negotiation" and popup is not None and popup.negotiating:
            self.shared(popup.slot, "timeout")

    def _start_timer(self, name: str) -> None:
        session = self.svc.session
        if session is None:
            return
        total = self.svc.config.presets[name]

        def go() -> None:
            if name not in session.board:
                session.add_timer(name, total)
            elif session.board[name].phase is not Phase.IDLE:
                session.reset(name)
            session.toggle(name)

        self.attempt(go)

    def _stop_timer(self, name: str) -> None:
        session = self.svc.session
        if session is not None and name in session.board and session.board[name].phase is not Phase.IDLE:
            self.attempt(lambda: session.reset(name))


def sharing_text(sharing: dragons_gold.Sharing, state: TableState) -> str:
    """What the table needs to know to share, in the order it happens (§5.4-§5.7, §7.2)."""
    lines: list[str] = []
    if len(sharing.participants) == 1:
        lines.append(TR._("All the treasure goes to") + f" {sharing.participants[0]}")
    elif sharing.choosing_order:
        order = ", ".join(sharing.choosing_order)
        lines.append(TR._("Divider") + f": {sharing.choosing_order[-1]} ({sharing.parts} "
                     + TR._("parts") + ")")
        lines.append(TR._("Choosing order") + f": {order}")
    else:
        lines.append(TR._("Negotiate within 60 s") + ": " + ", ".join(sharing.participants))
    if sharing.red_to_wizard is not None:
        lines.append(TR._("Before negotiating, all red discs go to the wizard's owner") +
                     f": {sharing.red_to_wizard} ({sharing.red_taken})")
    elif state.rules is dragons_gold.Rules.ADVANCED and sharing.magic_item_eligible:
        lines.append(TR._("A magic item per red disc for") + ": " + ", ".join(sharing.magic_item_eligible))
    for theft in sharing.thefts:
        how = TR._("looks and chooses") if theft.may_look else TR._("draws blind")
        lines.append(TR._("Thief") + f": {theft.thief_of} → {', '.join(theft.victims)} ({how})")
    return "\n".join(lines)


SCREEN = DragonsGoldScreen
