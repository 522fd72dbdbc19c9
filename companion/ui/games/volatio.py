"""Volatio on the touch screen: a panel per dragon, the round bar, and the finish.

Each panel holds one dragon's speed dial (−/+ in steps of 100 and Reveal, checked with the
rules core's :func:`~companion.games.volatio.speed_check` before anything is logged), its
energy and spell cards against their limits, the Base / Path / Collision penalties and its
position along the track. Every change is one ``session.record_play("volatio.<move>", ...)``
checked first with :func:`companion.games.volatio_table.play`, and the whole race is folded
again from the session's play log after any change, so undo, redo and resume rebuild it.
The dial a mage is turning is the only thing held in a widget: it is the secret on the
physical indicator until revealed, not game state.

Main thread only.
"""

from __future__ import annotations

import math
import threading
from typing import Any

from kivy.clock import Clock
from kivy.properties import (
    BooleanProperty,
    DictProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.popup import Popup

from companion.errors import CompanionError
from companion.games import volatio as v
from companion.games import volatio_table as vt
from companion.session import Player
from companion.ui.lang import TR
from companion.ui.results import ResultsPopup
from companion.ui.screens import BaseScreen
from companion.ui.theme import PLAYER_RGB, THEME, rgb
from companion.ui.widgets import FitLabel, SeatFrame, Stepper, TouchButton

PANEL_MIN_W_U = 5.4
"""A panel's narrowest width in touch units: − value + and Reveal side by side (three fit 800 px)."""

PANEL_MIN_H_U = 6.5
"""A panel's lowest height in touch units: six rows of one unit and the gaps."""

MAX_PAST_LINE_CM = 100


def describe(events: v.Events) -> list[str]:
    """What the rules core says happened, as short texts for the status strip (translated)."""
    parts: list[str] = []
    for e in events:
        if isinstance(e, v.SpeedRevealed):
            parts.append(f"{e.speed} {TR._('DP')}")
        elif isinstance(e, v.EnergyLost) and e.tokens:
            parts.append(f"{TR._('Energy')} −{e.tokens}")
        elif isinstance(e, v.EnergyGained):
            if e.tokens > e.refused:
                parts.append(f"{TR._('Energy')} +{e.tokens - e.refused}")
            if e.refused:
                parts.append(TR._("the energy limit turns a token away"))
        elif isinstance(e, v.PointersSet):
            parts.append(f"{TR._('both pointers')} {e.speed} {TR._('DP')}")
        elif isinstance(e, v.DebilitatusDrawn):
            parts.append(TR._("fatigued: take a Debilitatus card"))
        elif isinstance(e, v.Eliminated):
            parts.append(TR._("Out of the race"))
        elif isinstance(e, v.DragonPlaced):
            parts.append(_placement_text(e.where))
        elif isinstance(e, v.Collided):
            parts.append(TR._("move the hit dragon beside the edge it was hit from"))
        elif isinstance(e, v.SpellCardsDiscarded):
            parts.append(TR._("discard all spell cards"))
        elif isinstance(e, v.CardsDrawn):
            parts.append(f"{TR._('Cards')} +{e.cards}")
            if e.discarded:
                parts.append(TR._("hand limit: discard one card"))
        elif isinstance(e, v.CardsRefused):
            parts.append(TR._("a fatigued dragon draws no cards"))
        elif isinstance(e, v.DebilitatusDiscarded):
            parts.append(TR._("recovered: discard the Debilitatus card"))
        elif isinstance(e, v.CardLaid):
            parts.append(TR._("card laid"))
        elif isinstance(e, v.LaidCardDiscarded):
            parts.append(TR._("laid cards go to the discards"))
    return list(dict.fromkeys(parts))  # one line per thing, even when several dragons did it


def _placement_text(where: v.Placement) -> str:
    if where is v.Placement.NEAREST_PASSED_ENERGY_FIELD:
        return TR._("put the dragon beside the nearest passed energy field")
    if where is v.Placement.WHERE_TEMPLATE_TOUCHED:
        return TR._("put the dragon where the path touched the edge")
    if where is v.Placement.BORDER_SAME_DISTANCE:
        return TR._("put the dragon at the edge, as far along")
    return TR._("the dragon stays at the end of its path")


class DragonPanel(BoxLayout):  # type: ignore[misc]
    """One dragon: the dial, energy, cards, penalties and position. Shows; the screen acts."""

    owner: Any = ObjectProperty(None)
    player = StringProperty("")
    colour = ListProperty([0.5, 0.5, 0.5, 1])
    dial = NumericProperty(vt.START_CARD.speed)
    status = StringProperty("")
    status_colour = ListProperty(THEME.muted)
    energy_text = StringProperty("")
    cards_text = StringProperty("")
    position_text = StringProperty("")
    reveal_text = StringProperty("")
    lay_text = StringProperty("−")
    lay_font_u = NumericProperty(0.6)  # "−" as big as the other steppers', a word as a label's
    dial_text = StringProperty("")
    base_text = StringProperty("")
    path_text = StringProperty("")
    collision_text = StringProperty("")
    dial_colour = ListProperty(THEME.text)
    can_reveal = BooleanProperty(True)
    can_judge = BooleanProperty(False)  # flown this round: penalties and gains apply
    is_active = BooleanProperty(True)  # racing, and the race not over
    next_up = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.problem = ""  # a refused reveal, shown until the next change
        self._dial_for: tuple[int, int, bool] | None = None

    def bump_dial(self, direction: int) -> None:
        self.problem = ""
        self.dial = min(v.MAX_SPEED, max(v.MIN_SPEED, int(self.dial) + direction * 100))
        if self.owner is not None:
            self.owner.refresh_panel(self)

    def show(self, race: vt.Race) -> None:
        """Copy what the race says about this dragon into the panel's properties."""
        name = self.player
        dragon = race.dragons[name]
        flown = name in race.flown
        setup = race.round == vt.START_ROUND and not flown
        key = (race.round, dragon.silver, flown)
        if key != self._dial_for:  # a new round, a reset pointer or an undo: the dial starts from silver
            self._dial_for = key
            self.dial = dragon.silver
        self.is_active = not dragon.eliminated and not race.is_over
        self.can_reveal = self.is_active and not flown
        self.can_judge = self.is_active and flown
        self.next_up = self.is_active and race.next_to_fly() == name
        self.energy_text = f"{TR._('Energy')} {dragon.energy}/{v.ENERGY_LIMIT}"
        laid = f" +1 {TR._('laid')}" if dragon.laid else ""
        self.cards_text = f"{TR._('Cards')} {dragon.hand}/{v.HAND_LIMIT}{laid}"
        self.position_text = f"{TR._('Position')} {race.progress[name]}"
        self.reveal_text = TR._("Revealed") if flown else TR._("Reveal")
        self.lay_text, self.lay_font_u = ("−", 0.6) if setup else (TR._("Lay"), 0.42)
        self.dial_text = f"{int(self.dial)} {TR._('DP')}"
        self.base_text, self.path_text, self.collision_text = TR._("Base"), TR._("Path"), TR._("Collision")
        legal = self.dial in race.legal_dials(name) or not self.is_active
        self.dial_colour = THEME.text if legal else THEME.red
        parts: list[str] = []
        colour = THEME.muted
        if dragon.eliminated:
            parts, colour = [TR._("Out of the race")], THEME.red
        elif self.problem:
            parts, colour = [self.problem], THEME.red
        else:
            if dragon.is_fatigued:
                parts.append(TR._("Fatigued"))
                colour = THEME.amber
            if setup:
                parts.append(TR._("Avolatio card"))
            if self.next_up:
                parts.append(TR._("Next to fly"))
                colour = THEME.primary if not dragon.is_fatigued else colour
            elif flown:
                parts.append(TR._("Flown"))
                colour = THEME.green if not dragon.is_fatigued else colour
        self.status, self.status_colour = " · ".join(parts), colour


class FinishPopup(Popup):  # type: ignore[misc]
    """Who crossed the finish line, and how many cm past it (§5.11)."""

    message = StringProperty("")
    hint = StringProperty("")
    cancel_text = StringProperty("")
    confirm_text = StringProperty("")
    confirmed: Any = ObjectProperty(lambda _past: None)
    colours = DictProperty({})

    def __init__(self, racing: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.title = TR._("Who crossed the finish line?")
        self.hint = TR._("Mark each dragon whose base touches or passes the line, and how far past it")
        self.cancel_text, self.confirm_text = TR._("Cancel"), TR._("Show the ranking")
        self.crossed: dict[str, TouchButton] = {}
        self.past: dict[str, Stepper] = {}
        rows = self.ids.rows
        for name in racing:
            row = BoxLayout(size_hint_y=None, height=THEME.u, spacing=THEME.u * 0.15)
            fill = rgb(PLAYER_RGB.get(self.colours.get(name, ""), "#888888"))
            row.add_widget(TouchButton(text=name, fill=fill, size_hint_x=0.8))
            toggle = TouchButton(text=TR._("Crossed"), size_hint_x=0.8)
            stepper = Stepper(low=0, high=MAX_PAST_LINE_CM, step=1, value=0, unit=TR._("cm"), disabled=True)
            toggle.bind(on_release=lambda _b, n=name: self.toggle(n))
            row.add_widget(toggle)
            row.add_widget(stepper)
            self.crossed[name], self.past[name] = toggle, stepper
            rows.add_widget(row)

    def toggle(self, name: str) -> None:
        button = self.crossed[name]
        button.selected = not button.selected
        self.past[name].disabled = not button.selected

    def past_line_mm(self) -> dict[str, int]:
        return {name: int(self.past[name].value) * 10 for name, b in self.crossed.items() if b.selected}

    def confirm(self) -> None:
        self.confirmed(self.past_line_mm())


class FlightPopup(Popup):  # type: ignore[misc]
    """What the overhead camera saw: each template and dragon base against the track's edge,
    and for each that touches, one tap to apply the crash to the dragon that flew."""

    hint = StringProperty("")
    close_text = StringProperty("")

    def __init__(self, report: dict[str, Any], flyer: str | None, dragon_owner: dict[str, str],
                 apply: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.title = TR._("The camera's call")
        self.close_text = TR._("Close")
        self.applied: list[tuple[str, str]] = []
        self._apply = apply
        pieces = report.get("pieces", [])
        self.hint = TR._("Uncertain: too close for the camera, the players decide") if any(
            p["verdict"] == "uncertain" for p in pieces) else TR._("Clearance from the track's edge, in mm")
        rows = self.ids.rows
        if not pieces:
            rows.add_widget(FitLabel(text=TR._("No template or dragon in view"), size_hint_y=None,
                                     height=THEME.u))
        for piece in pieces:
            row = BoxLayout(size_hint_y=None, height=THEME.u, spacing=THEME.u * 0.15)
            verdict = {"touch": TR._("touches the edge"), "clear": TR._("clear"),
                       "uncertain": TR._("uncertain")}[piece["verdict"]]
            what = (TR._("Template") + f" {piece['speed']}" if piece["kind"] == "template"
                    else TR._("Dragon") + f" {dragon_owner.get(str(piece['marker_id']), '')}".rstrip())
            label = FitLabel(text=f"{what}: {verdict} ({piece['clearance_mm']:+.1f})", size_hint_x=2.2,
                             color=THEME.red if piece["verdict"] == "touch" else THEME.text)
            row.add_widget(label)
            owner = dragon_owner.get(str(piece["marker_id"])) if piece["kind"] == "dragon" else flyer
            if piece["verdict"] == "touch" and owner:
                part = "base" if piece["kind"] == "dragon" else "path"
                kind = TR._("Base") if part == "base" else TR._("Path")
                button = TouchButton(text=f"{TR._('Crash')} · {kind}: {owner}", primary=True)
                button.bind(on_release=lambda b, o=owner, pt=part: self.apply(b, o, pt))
                row.add_widget(button)
            rows.add_widget(row)
        for a, b in report.get("contacts", []):
            rows.add_widget(FitLabel(text=TR._("Contact") + f": {a} – {b}", size_hint_y=None, height=THEME.u,
                                     color=THEME.amber))

    def apply(self, button: TouchButton, player: str, part: str) -> None:
        if self._apply(player, part):
            self.applied.append((player, part))
            button.disabled = True


class VolatioScreen(BaseScreen):
    """The race: a panel per dragon, the round and its order of flight, Next round and Finish."""

    round_text = StringProperty("")
    order_text = StringProperty("")
    can_next = BooleanProperty(False)
    is_over = BooleanProperty(False)
    empty_text = StringProperty("")
    has_camera = BooleanProperty(False)
    checking = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        self.panels: dict[str, DragonPanel] = {}
        self.race: vt.Race | None = None
        self.finish_popup: FinishPopup | None = None
        self.flight_popup: FlightPopup | None = None
        self.results_popup: ResultsPopup | None = None
        self._players: tuple[Player, ...] = ()
        super().__init__(**kwargs)

    def on_kv_post(self, _base: Any) -> None:
        scroll = self.ids.scroll
        scroll.bind(size=self._layout)
        THEME.bind(u=self._layout)

    def on_pre_enter(self, *_: Any) -> None:
        self.has_camera = self.svc is not None and self.svc.camera_check is not None
        self.refresh()

    # -- the overhead camera -------------------------------------------------------------------

    def camera_check(self) -> None:
        """Ask the camera (on a worker thread: a frame and the check take a moment) and show its call."""
        check = self.svc.camera_check if self.svc is not None else None
        if check is None or self.checking:
            return
        self.checking = True
        self.notify(TR._("Looking at the table…"))

        def work() -> None:
            try:
                report, error = check(), None
            except CompanionError as exc:  # the camera's own errors arrive as one line each
                report, error = None, str(exc)
            Clock.schedule_once(lambda _dt: self._camera_answered(report, error))

        threading.Thread(target=work, name="camera-check", daemon=True).start()

    def _camera_answered(self, report: dict[str, Any] | None, error: str | None) -> None:
        self.checking = False
        if report is None:
            self.notify(error or "")
            return
        self.notify("")
        race = self.race
        flyer = race.flown[-1] if race is not None and race.flown else None
        by_colour = {p.colour: p.name for p in self._players}
        owners = {}
        for piece in report.get("pieces", []):
            if piece["kind"] == "dragon":
                colour = str(piece.get("label", "")).removeprefix("dragon ").strip()
                if colour in by_colour:
                    owners[str(piece["marker_id"])] = by_colour[colour]
        self.flight_popup = FlightPopup(report, flyer, owners, self._camera_crash)
        self.flight_popup.open()

    def _camera_crash(self, player: str, part: str) -> bool:
        panel = self.panels.get(player)
        if panel is None or not panel.can_judge:
            self.notify(TR._("Only a dragon that has flown this round can crash"))
            return False
        return self._move("volatio.crash", {"player": player, "part": part}, panel)

    # -- drawing -------------------------------------------------------------------------------

    def refresh(self) -> None:
        session = self.svc.session if self.svc is not None else None
        players = session.players if session is not None else ()
        try:
            self.race = vt.fold([p.name for p in players], session.play_log) if session is not None else None
        except CompanionError:
            self.race = None
        if players != self._players:
            self._build_panels(players)
        race = self.race
        self.empty_text = "" if race is not None else \
            TR._("Volatio is for 2 to 6 players: add them on the Home screen")
        if race is None:
            self.round_text, self.order_text, self.can_next, self.is_over = "", "", False, False
            return
        for panel in self.panels.values():
            panel.show(race)
        self.is_over = race.is_over
        if race.is_over:
            self.round_text = TR._("Race over")
            self.order_text = TR._("Winner") + ": " + ", ".join(race.result.winners if race.result else ())
        else:
            self.round_text = TR._("Start flight") if race.round == vt.START_ROUND \
                else f"{TR._('Round')} {race.round}"
            flown = set(race.flown)
            self.order_text = TR._("Order") + ": " + " → ".join(
                f"{name} ✓" if name in flown else name for name in race.order())
        self.can_next = not race.is_over and not race.waiting

    def refresh_panel(self, panel: DragonPanel) -> None:
        if self.race is not None:
            panel.show(self.race)

    def _build_panels(self, players: tuple[Player, ...]) -> None:
        self._players = players
        grid = self.ids.panels
        grid.clear_widgets()
        self.panels = {}
        if self.race is None:
            self._layout()
            return
        session = self.svc.session if self.svc is not None else None
        self._angles = session.panel_angles() if session is not None else {}
        for p in players:
            panel = DragonPanel(owner=self, player=p.name, colour=rgb(PLAYER_RGB.get(p.colour, "#888888")))
            self.panels[p.name] = panel
            angle = self._angles.get(p.name, 0)
            grid.add_widget(SeatFrame(panel, angle=angle) if angle else panel)  # table mode
        self._layout()

    def _layout(self, *_: Any) -> None:
        """Panels side by side in landscape (scrolling past three at 800 px), stacked in portrait."""
        scroll, grid = self.ids.scroll, self.ids.panels
        n = max(1, len(self.panels))
        u, gap = THEME.u, THEME.u * 0.1
        landscape = self.width >= self.height
        around = any(getattr(self, "_angles", {}).values())
        cols = n if landscape else max(1, min(n, int((scroll.width + gap) // (PANEL_MIN_W_U * u + gap))))
        min_w, min_h = PANEL_MIN_W_U * u, PANEL_MIN_H_U * u
        if around:  # table mode: two columns of cells big enough for a panel either way round
            cols = min(n, 2)
            min_w = min_h = max(min_w, min_h)
        rows = math.ceil(n / cols)
        col_w = max(min_w, (scroll.width - gap * (cols - 1)) / cols)
        row_h = max(min_h, (scroll.height - gap * (rows - 1)) / rows)
        grid.cols, grid.spacing = cols, gap
        grid.size = (cols * col_w + gap * (cols - 1), rows * row_h + gap * (rows - 1))

    # -- moves ---------------------------------------------------------------------------------

    def _move(self, kind: str, data: dict[str, Any], panel: DragonPanel | None = None) -> bool:
        """Check *kind* with the rules core, then log it; a refusal is shown and nothing is logged."""
        session = self.svc.session
        if session is None or self.race is None:
            return False
        try:
            after = vt.play(self.race, kind, data)
            session.record_play(kind, data)
        except CompanionError as exc:
            self.notify(str(exc))
            return False
        if panel is not None:
            panel.problem = ""
        self.refresh()
        said = describe(after.last_events)
        who = f"{after.last_player}: " if after.last_player else ""
        if kind == f"{vt.PREFIX}{vt.Move.NEXT_ROUND}":
            said.insert(0, self.round_text)
        if said:
            self.notify(who + ", ".join(said))
        return True

    def _setup(self, name: str) -> bool:
        race = self.race
        return race is not None and race.round == vt.START_ROUND and name not in race.flown

    def _start_card(self, panel: DragonPanel, energy: int = 0, cards: int = 0) -> None:
        assert self.race is not None
        dragon = self.race.dragons[panel.player]
        self._move("volatio.start_card", {"player": panel.player, "energy": dragon.energy + energy,
                                          "cards": dragon.hand + cards}, panel)

    def reveal(self, panel: DragonPanel) -> None:
        """Turn the indicator up: an illegal change is refused on the panel with the core's reason."""
        race = self.race
        if race is None:
            return
        name, dial = panel.player, int(panel.dial)
        dragon = race.dragons[name]
        if race.round != vt.START_ROUND and not dragon.eliminated:
            check = v.speed_check(dragon.silver, dial, fatigued=dragon.is_fatigued)
            if not check.legal:
                legal = race.legal_dials(name)
                dp = TR._("DP")
                panel.problem = f"{TR._('Not allowed')}: {dial} {dp} · {legal[0]}–{legal[-1]} {dp}"
                panel.show(race)
                self.notify(f"{name}: {check.reason}")
                return
        self._move("volatio.reveal", {"player": name, "speed": dial}, panel)

    def energy_down(self, panel: DragonPanel) -> None:
        if self._setup(panel.player):
            self._start_card(panel, energy=-1)
        else:
            self._move("volatio.lose_energy", {"player": panel.player, "tokens": 1}, panel)

    def energy_up(self, panel: DragonPanel) -> None:
        if self._setup(panel.player):
            self._start_card(panel, energy=1)
        else:
            self._move("volatio.energy_field", {"player": panel.player}, panel)

    def cards_down(self, panel: DragonPanel) -> None:
        if self._setup(panel.player):
            self._start_card(panel, cards=-1)
        else:
            self._move("volatio.lay_card", {"player": panel.player}, panel)

    def cards_up(self, panel: DragonPanel) -> None:
        if self._setup(panel.player):
            self._start_card(panel, cards=1)
        else:
            self._move("volatio.draw_card", {"player": panel.player}, panel)

    def crash(self, panel: DragonPanel, part: str) -> None:
        self._move("volatio.crash", {"player": panel.player, "part": part}, panel)

    def collision(self, panel: DragonPanel) -> None:
        self._move("volatio.collision", {"player": panel.player}, panel)

    def move_on(self, panel: DragonPanel, units: int) -> None:
        if self.race is not None:
            progress = self.race.progress[panel.player] + units
            self._move("volatio.progress", {"player": panel.player, "progress": progress}, panel)

    def next_round(self) -> None:
        self._move("volatio.next_round", {})

    def open_finish(self) -> None:
        race = self.race
        if race is None or race.is_over:
            return
        colours = {p.name: p.colour for p in self._players}
        self.finish_popup = FinishPopup(list(race.order()), colours=colours, confirmed=self.finish)
        self.finish_popup.open()

    def finish(self, past_line_mm: dict[str, int]) -> None:
        """Record who crossed; the rules core places everyone, and the results are shown."""
        session, popup = self.svc.session, self.finish_popup
        if session is None or self.race is None:
            return
        try:
            vt.play(self.race, "volatio.finish", {"past_line_mm": past_line_mm})
        except CompanionError as exc:
            if popup is not None:
                popup.message = str(exc)
            self.notify(str(exc))
            return
        if not self._move("volatio.finish", {"past_line_mm": past_line_mm}):
            return
        if popup is not None:
            popup.dismiss()
        assert self.race is not None and self.race.is_over
        out = vt.result_document(self.race)
        self.attempt(lambda: session.finish_game(out))
        colours = {p.name: p.colour for p in self._players}
        self.results_popup = ResultsPopup(scores=out["scores"], winners=out["winners"], colours=colours)
        self.results_popup.open()


SCREEN = VolatioScreen
