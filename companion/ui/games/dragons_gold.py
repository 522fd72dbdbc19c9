"""Dragon's Gold on the touch screen: the play (dragons, fights, sharing) and the final scoring.

Play: the row of face-up dragons with their printed values (entered as each is turned up),
adventurers placed by tapping (each shown on its dragon in its player's colour), the kill found
by the rules core, then the sharing: the 60 s negotiation timer starts by itself when two or
more players share, and its countdown (with pause and +10 s) fills the sharing dialog; the
single wizard's red discs and the thieves' order are shown, a time-out removes the treasure
from the game; the market card's 60 s trading timer; the strategic variant's divider and
choosing order; the bag's tally and the end phase. Every move is a logged play move folded by
:mod:`companion.games.dragons_gold.play`, so undo, redo and resume cover it.

The final scoring page is :mod:`companion.ui.games.dragons_gold_score`; the dialogs are
:mod:`companion.ui.games.dragons_gold_popups`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from kivy.core.text import Label as CoreLabel
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from companion.durations import to_duration_text
from companion.errors import CompanionError
from companion.events import TimerExpired
from companion.games import dragons_gold
from companion.games.dragons_gold import Role, Rules
from companion.games.dragons_gold import play as dg_play
from companion.games.dragons_gold.play import TableState
from companion.timers import Phase
from companion.ui import bigtimer  # noqa: F401 - its kv holds the PAUSED band the dialog shows
from companion.ui.games.dragons_gold_popups import KillPopup, PlacePopup, RevealPopup, SharingPopup
from companion.ui.games.dragons_gold_score import DISC_FIELDS, DragonsGoldScoreScreen, is_light
from companion.ui.lang import TR
from companion.ui.screens import BaseScreen
from companion.ui.theme import PLAYER_RGB, THEME, rgb
from companion.ui.timer import BLINK_S, DIM_ALPHAS, sand_colour
from companion.ui.widgets import FitLabel

__all__ = ["DISC_FIELDS", "DragonsGoldScoreScreen", "DragonsGoldScreen", "SCREEN"]

ROLES = ("knight", "thief", "wizard")
TEAM: dict[str, int] = {"knight": 2, "thief": 1, "wizard": 1}
"""A player's four adventurers (§3)."""
ADD_S = 10.0
"""What the sharing dialog's + button adds to the negotiation, in seconds."""


class AttackerChip(FitLabel):
    """One adventurer under a dragon, on a band of its player's colour (drawn in kv)."""

    swatch = ListProperty([0, 0, 0, 1])


class DragonCard(BoxLayout):  # type: ignore[misc]
    """One slot of the row: a live dragon, a killed one waiting for its sharing, or empty."""

    slot = NumericProperty(0)
    title = StringProperty("")
    detail = StringProperty("")
    action = StringProperty("")
    can_act = BooleanProperty(True)
    screen: Any = ObjectProperty(None)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fbind("width", lambda *_: self._chip_heights())

    def show_attackers(self, chips: list[tuple[str, str]]) -> None:
        """The team under the dragon, in joining order: ``(text, player's colour hex)`` each."""
        box = self.ids.attackers
        if [(c.text, c.swatch) for c in reversed(box.children)] == [(t, rgb(c)) for t, c in chips]:
            return
        box.clear_widgets()
        for text, colour in chips:
            chip = AttackerChip(text=text, swatch=rgb(colour))
            chip.color = THEME.on_primary if is_light(colour) else THEME.text
            box.add_widget(chip)
        self._chip_heights()

    def _chip_heights(self) -> None:
        """One line for a chip whose text fits the card's width at its font, else two."""
        room = self.width - 2 * self.padding[0]
        for chip in self.ids.attackers.children:
            measure = CoreLabel(font_name=chip.font_name, font_size=int(chip.base_font_size))
            wide = measure.get_extents(chip.text)[0]
            chip.height = THEME.u * (0.55 if wide + 2 * chip.padding[0] <= room else 1.0)


class DragonsGoldScreen(BaseScreen):
    """The game: a Play page (the row, fights, sharing) and the Final scoring page."""

    bag = StringProperty("")
    banner = StringProperty("")
    strategic = BooleanProperty(False)
    advanced = BooleanProperty(False)
    market_due = BooleanProperty(False)
    over = BooleanProperty(False)
    page = StringProperty("play")

    def __init__(self, **kwargs: Any) -> None:
        self.sharing_popup: SharingPopup | None = None
        self._shot_undo = 0
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
        rules = self._rules()
        session = self.svc.session if self.svc is not None else None
        return dg_play.fold([], session.play_log if session is not None else [], rules=rules)

    def _rules(self) -> str:
        session = self.svc.session if self.svc is not None else None
        return (session.score_rules if session is not None else None) or "simple"

    def _moves(self) -> list[tuple[str, Any]]:
        session = self.svc.session if self.svc is not None else None
        return [(k, d) for k, d, _t in session.play_log if k.startswith("dg.")] if session else []

    def move(self, kind: str, data: dict[str, Any]) -> bool:
        """Check a move against the current state, then log it. False (and a message) if refused."""
        session = self.svc.session
        if session is None:
            return False
        try:
            dg_play.play(self.state(), kind, data)
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
        self.advanced = state.rules is Rules.ADVANCED
        self.market_due = state.is_market_due
        self.over = state.is_over and state.revealed > 0
        self.bag = TR._("Bag") + f": {state.bag}   " + TR._("Dragons") + f": {state.revealed}/18" + (
            "   " + TR._("End phase: no new dragons, no hidden treasure") if state.is_end_phase else "")
        self.banner = (TR._("Market card! 60 s of free trading") if state.is_market_due else
                       TR._("The game is over: go to the final scoring") if self.over else "")
        session = self.svc.session
        colours = {p.name: p.colour for p in session.players} if session is not None else {}
        for card in self.ids.row.children:
            self._show_card(card, state, colours)

    def _show_card(self, card: DragonCard, state: TableState, colours: dict[str, str]) -> None:
        s = state.slots[card.slot]
        if s.dragon is None:
            card.title, card.detail = TR._("Empty"), ""
            card.show_attackers([])
            card.action, card.can_act = TR._("Turn up a dragon"), state.can_reveal
            return
        d = s.dragon
        card.title = f"⚔ {d.dragon.strength}"
        hidden = f" + {d.dragon.hidden} " + TR._("hidden") if not s.killed else ""
        card.detail = (TR._("Treasure") + f": {s.treasure_discs}{hidden}\n"
                       + TR._("Attack") + f": {d.attack} / {d.dragon.strength}")
        card.show_attackers([(f"{a.player} · {TR._(a.role.value)} {a.strength}", PLAYER_RGB.get(
            colours.get(a.player, ""), "#9e9e9e")) for a in d.attackers])
        card.action = TR._("Sharing") if s.killed else TR._("Send an adventurer")
        card.can_act = True

    # -- what the Send dialog opens on ----------------------------------------------------------

    def next_player(self) -> str:
        """The player after the last one who sent an adventurer, in seat order (the first player
        before anyone has)."""
        session = self.svc.session
        names = [p.name for p in session.players] if session is not None else []
        if not names:
            return ""
        placed = [str(d.get("player")) for k, d in self._moves() if k == "dg.place"]
        if not placed or placed[-1] not in names:
            return names[0]
        return names[(names.index(placed[-1]) + 1) % len(names)]

    def _fighting(self, player: str) -> list[tuple[str, int]]:
        """*player*'s adventurers under dragons now, ``(role, strength)``."""
        return [(a.role.value, a.strength) for s in self.state().slots if s.dragon is not None
                for a in s.dragon.attackers if a.player == player]

    def free_role(self, player: str) -> str:
        """The first of *player*'s adventurers (knight, thief, wizard) not under a dragon."""
        busy = Counter(role for role, _s in self._fighting(player))
        return next((role for role in ROLES if busy[role] < TEAM[role]), "knight")

    def usual_strength(self, player: str, role: str) -> int:
        """The strength *player*'s *role* had when last sent (for a knight, the one of the two
        not fighting now), else 1: the printed values never change during a game."""
        sent = [int(d.get("strength", 1)) for k, d in self._moves()
                if k == "dg.place" and d.get("player") == player and d.get("role") == role]
        busy = [s for r, s in self._fighting(player) if r == role]
        for strength in reversed(sent):
            if strength not in busy:
                return strength
        return sent[-1] if sent else 1

    # -- moves ------------------------------------------------------------------------------------

    def card_tapped(self, slot: int) -> None:
        s = self.state().slots[slot]
        if s.dragon is None:
            RevealPopup(screen=self, slot=slot).open()
        elif s.killed:
            self.open_sharing(slot)
        else:
            PlacePopup(screen=self, slot=slot, player=self.next_player()).open()

    def reveal(self, slot: int, strength: int, known: int, hidden: int) -> None:
        self.move("reveal", {"slot": slot, "strength": strength, "known": known, "hidden": hidden})

    def place(self, slot: int, player: str, role: str, strength: int) -> None:
        if not player:
            self.notify(TR._("Choose the player"))
            return
        if self.move("place", {"slot": slot, "player": player, "role": role, "strength": strength}):
            state = self.state()
            s = state.slots[slot]
            if s.dragon is not None and s.dragon.is_dead:  # §5.3: the kill is checked at once
                wizards = sum(1 for a in s.dragon.attackers if a.role is Role.WIZARD)
                KillPopup(screen=self, slot=slot, end_phase=state.is_end_phase, known=s.treasure_discs,
                          hidden=0 if state.is_end_phase else min(s.dragon.dragon.hidden, state.bag),
                          ask_red=state.rules is Rules.SIMPLE and wizards == 1).open()

    def kill(self, slot: int, hidden_drawn: int, red: int) -> None:
        if self.move("kill", {"slot": slot, "hidden_drawn": hidden_drawn, "red": red}):
            self.open_sharing(slot)

    def open_sharing(self, slot: int) -> SharingPopup:
        """The sharing dialog for the dragon killed at *slot*. Where the share needs a
        negotiation, its timer starts; one already going (the dialog was closed with the app, and
        the session resumed) goes on where it was, running or paused."""
        state = self.state()
        popup = self._sharing_popup(slot, state.sharing(slot), state)
        session = self.svc.session
        going = (session is not None and "negotiation" in session.board
                 and session.board["negotiation"].phase in (Phase.RUNNING, Phase.PAUSED))
        if popup.negotiating and not going:
            self._start_timer("negotiation")
        self.update(self.svc.clock.now())
        popup.open()
        return popup

    def _sharing_popup(self, slot: int, sharing: dragons_gold.Sharing, state: TableState,
                       preview: bool = False) -> SharingPopup:
        popup = SharingPopup(screen=self, slot=slot, text=sharing_text(sharing, state),
                             negotiating=sharing.needs_negotiation, preview=preview)
        popup.bind(on_dismiss=self._sharing_closed)
        self.sharing_popup = popup
        return popup

    def _sharing_closed(self, popup: SharingPopup) -> None:
        if self.sharing_popup is popup:
            self.sharing_popup = None
        undo, self._shot_undo = self._shot_undo, 0
        session = self.svc.session
        for _ in range(undo):
            if session is not None:
                session.undo()

    def shared(self, slot: int, outcome: str) -> None:
        popup = self.sharing_popup
        preview = popup is not None and popup.preview
        if outcome != "timeout" and not preview:  # a deal stops the glass; at a time-out it has run out
            self._stop_timer("negotiation")
        if popup is not None:
            popup.dismiss()
        if preview:
            return
        if self.move("shared", {"slot": slot, "outcome": outcome}) and outcome == "timeout":
            self.notify(TR._("Time is up: the treasure leaves the game"))

    def market(self) -> None:
        self._start_timer("market")
        self.move("market", {})
        self.notify(TR._("Market: trade treasure freely for 60 s"))

    def toggle_strategic(self) -> None:
        self.move("variant", {"strategic": not self.state().strategic})

    def toggle_advanced(self) -> None:
        """The advanced rules (§7.1) on or off: the sharing's magic items and the scoring follow."""
        session = self.svc.session
        if session is not None:
            self.attempt(lambda: session.set_score_rules("simple" if self.advanced else "advanced"))
            self.refresh()

    # -- the negotiation's countdown, in the sharing dialog ---------------------------------------

    def update(self, now: float) -> None:
        """Copy the negotiation timer into the open sharing dialog (once a frame, main thread)."""
        popup = self.sharing_popup
        session = self.svc.session if self.svc is not None else None
        if popup is None or not popup.negotiating or session is None or "negotiation" not in session.board:
            return
        timer = session.board["negotiation"]
        left = timer.remaining_s(now)
        popup.digits = to_duration_text(left)
        popup.sand = sand_colour(timer.phase, left, timer.warnings_s)
        popup.paused = timer.phase is Phase.PAUSED
        popup.digits_alpha = DIM_ALPHAS[int(now / BLINK_S) % 2] if popup.paused else 1.0
        popup.toggle_text = "▶ " + TR._("Resume") if popup.paused else "❚❚ " + TR._("Pause")

    def toggle_negotiation(self) -> None:
        """Pause or resume the negotiation (a timer that is not going is left alone)."""
        self._negotiation(lambda session: session.toggle("negotiation"))

    def add_negotiation_time(self) -> None:
        self._negotiation(lambda session: session.adjust("negotiation", ADD_S))

    def _negotiation(self, command: Any) -> None:
        session = self.svc.session
        if session is None or "negotiation" not in session.board:
            return
        if session.board["negotiation"].phase in (Phase.RUNNING, Phase.PAUSED):
            self.attempt(lambda: command(session))
        self.update(session.now())

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

    def open_sharing_for_screenshot(self) -> SharingPopup | None:
        """For the screenshot script, not for journeys: the sharing dialog of the first dragon with
        a team, as if it had just been killed by one more knight of the next player (nothing is
        logged), over the negotiation timer (started if it is not running, and taken back when
        the dialog closes)."""
        session = self.svc.session
        state = self.state()
        slot = next((i for i, s in enumerate(state.slots) if s.dragon is not None and s.dragon.attackers),
                    None)
        if session is None or slot is None:
            return None
        s = state.slots[slot]
        assert s.dragon is not None
        if not s.killed:
            missing = max(1, s.dragon.dragon.strength - s.dragon.attack)
            state = dg_play.play(state, "place", {"slot": slot, "player": self.next_player(),
                                                               "role": "knight", "strength": missing})
            state = dg_play.play(state, "kill", {"slot": slot, "red": 1,
                                                              "hidden_drawn": s.dragon.dragon.hidden})
        popup = self._sharing_popup(slot, state.sharing(slot), state, preview=True)
        popup.negotiating = True
        if "negotiation" not in session.board:
            session.add_timer("negotiation", self.svc.config.presets["negotiation"])
            self._shot_undo += 1
        if session.board["negotiation"].phase is not Phase.RUNNING:
            session.toggle("negotiation")
            self._shot_undo += 1
        self.update(session.now())
        popup.open(animation=False)
        return popup


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
