"""Volatio on the touch screen: a panel per dragon, the round bar, a banner, and the finish.

Each panel holds one dragon's speed dial (−/+ in steps of 100 and Reveal, checked with the
rules core's :func:`~companion.games.volatio.speed_check` before anything is logged), its
energy and spell cards against their limits, the Base / Path / Collision penalties and its
position along the track, each shown only while it applies (the dial before the flight, the
penalties and the position after it), so a panel is three rows and four fit 800x480 as 2×2.
Every change is one ``session.record_play("volatio.<move>", ...)`` checked first with
:func:`companion.games.volatio.play.play`, and the whole race is folded again from the
session's play log after any change, so undo, redo and resume rebuild it. The dial a mage is
turning is the only thing held in a widget: it is the secret on the physical indicator until
revealed, not game state.

What a move asks the players to do with the pieces (a Debilitatus card, a pointer, the dragon
moved) stays in a banner above the panels until a tap closes it (one still open waits under
the next); when the turn passes to a dragon whose panel is out of view, the panels scroll to it.

Main thread only.
"""

from __future__ import annotations

import math
import threading
from typing import Any, NamedTuple

from kivy.animation import Animation
from kivy.clock import Clock
from kivy.properties import BooleanProperty, NumericProperty, StringProperty

from companion.errors import CompanionError
from companion.games import volatio as v
from companion.games.volatio import play as vt
from companion.session import Player
from companion.ui.games.volatio_panel import Banner, DragonPanel
from companion.ui.games.volatio_popups import (
    FinishPopup,
    FlightPopup,
    NameTag,
    RankingPopup,
    consequences,
    describe,
    not_flown_text,
    refusal,
    speed_refusal,
)
from companion.ui.lang import TR
from companion.ui.photo import camera_error_text
from companion.ui.screens import BaseScreen
from companion.ui.seating import SeatTable
from companion.ui.theme import PLAYER_RGB, THEME, rgb
from companion.ui.widgets import SeatFrame

__all__ = ["SCREEN", "Banner", "DragonPanel", "FinishPopup", "FlightPopup", "NameTag", "RankingPopup",
           "VolatioScreen", "describe"]

PANEL_MIN_W_U = 7.6
"""A panel's narrowest width in touch units: − 500 DP + and Reveal side by side (two fit 800 px)."""

PANEL_MIN_H_U = 3.3
"""A panel's lowest height in touch units: three rows of one unit and the gaps (two rows fit 480 px)."""

PANEL_MAX_H_U = 4.4
"""A panel grows no taller than this when few dragons leave room: bigger buttons, not emptier ones."""

CUE_W_U = 1.0
"""The scroll buttons' width beside the panels (▲ / ▼ while some panels are out of view)."""


class _Asked(NamedTuple):
    """A banner not yet closed: whose move it was (None: the round's), what the move asked,
    the play log's length once it was logged, and the race's round then (a round's banner is
    titled by it, in the language in use)."""

    player: str | None
    events: v.Events
    logged: int
    round: int
    over: bool


def round_name(round_: int, over: bool) -> str:
    """``Start flight``, ``Round 3`` or ``Race over``."""
    if over:
        return TR._("Race over")
    return TR._("Start flight") if round_ == vt.START_ROUND else f"{TR._('Round')} {round_}"


class VolatioScreen(BaseScreen):
    """The race: a panel per dragon, the round and its order of flight, Next round and Finish."""

    round_text = StringProperty("")
    order_text = StringProperty("")
    can_next = BooleanProperty(False)
    is_over = BooleanProperty(False)
    empty_text = StringProperty("")
    has_camera = BooleanProperty(False)
    checking = BooleanProperty(False)
    more_above = BooleanProperty(False)
    more_below = BooleanProperty(False)
    cue_w = NumericProperty(0)
    bar_h = NumericProperty(48)

    def __init__(self, **kwargs: Any) -> None:
        self.panels: dict[str, DragonPanel] = {}
        self.race: vt.Race | None = None
        self.finish_popup: FinishPopup | None = None
        self.flight_popup: FlightPopup | None = None
        self.results_popup: RankingPopup | None = None
        self._players: tuple[Player, ...] = ()
        self._angles: dict[str, int] = {}
        self._table: SeatTable | None = None
        self._followed: str | None = None  # the next flyer the panels last scrolled to
        self._banners: list[_Asked] = []  # the banners not yet closed, the newest last
        self._follow_trigger = Clock.create_trigger(lambda _dt: self._follow(), 0.05)
        self._cue_trigger = Clock.create_trigger(lambda _dt: self._update_cue(), -1)
        super().__init__(**kwargs)

    def on_kv_post(self, _base: Any) -> None:
        scroll = self.ids.scroll
        scroll.bind(size=self._layout, scroll_y=self._cue_trigger, scroll_x=self._cue_trigger)
        self.ids.panels.bind(size=self._cue_trigger)
        THEME.bind(u=self._layout)
        self.ids.banner.bind(on_close=self._banner_closed)

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
                report, error = None, camera_error_text(exc)
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
            self._banners.clear()
        logged = len(session.play_log) if session is not None else 0
        # a banner whose move was undone goes; the rest are said again (the language may have changed)
        self._banners = [b for b in self._banners if b.logged <= logged]
        self._show_banner()
        race = self.race
        self.empty_text = "" if race is not None else \
            TR._("Volatio is for 2 to 6 players: add them on the Home screen")
        if race is None:
            self.round_text, self.order_text, self.can_next, self.is_over = "", "", False, False
            return
        for panel in self.panels.values():
            panel.show(race)
        self.is_over = race.is_over
        self.round_text = round_name(race.round, race.is_over)
        if race.is_over:
            self.order_text = TR._("Winner") + ": " + ", ".join(race.result.winners if race.result else ())
        else:
            flown = set(race.flown)
            self.order_text = TR._("Order") + ": " + " → ".join(
                f"{name} ✓" if name in flown else name for name in race.order())
        self.can_next = not race.is_over and not race.waiting
        self._follow_trigger()

    def refresh_panel(self, panel: DragonPanel) -> None:
        if self.race is not None:
            panel.show(self.race)

    def _build_panels(self, players: tuple[Player, ...]) -> None:
        self._players = players
        self._followed = None
        grid = self.ids.panels
        grid.clear_widgets()
        self.panels = {}
        if self.race is None:
            self._layout()
            return
        session = self.svc.session if self.svc is not None else None
        self._angles = session.panel_angles() if session is not None else {}
        self._table = None
        if any(self._angles.get(p.name, 0) for p in players):  # table mode: each panel by its seat
            self._table = SeatTable(side_px=PANEL_MIN_H_U * THEME.u, row_px=PANEL_MIN_H_U * THEME.u,
                                    gap=THEME.u * 0.1, size_hint=(None, None))
            grid.add_widget(self._table)
        for p in players:
            panel = DragonPanel(owner=self, player=p.name, colour=rgb(PLAYER_RGB.get(p.colour, "#888888")))
            self.panels[p.name] = panel
            if self._table is not None:
                self._table.seat(panel, self._angles.get(p.name, 0))
            else:
                grid.add_widget(panel)
        self._layout()

    def _layout(self, *_: Any) -> None:
        """Two columns of three-row panels in landscape (2×2 fits 800x480), one column in portrait;
        rows past the view scroll, with ▲ / ▼ buttons beside them. In table mode, the panels stand
        round the view by seat, the side ones as tall as the view (the view scrolls where it is
        lower than a panel is wide)."""
        scroll, grid = self.ids.scroll, self.ids.panels
        n = max(1, len(self.panels))
        u, gap = THEME.u, THEME.u * 0.1
        landscape = self.width >= self.height
        # The order of flight needs three lines for five or six names beside the buttons.
        self.bar_h = u * (2.1 if not landscape else 1.4 if n >= 5 else 1)
        min_w, min_h = PANEL_MIN_W_U * u, PANEL_MIN_H_U * u
        if self._table is not None:
            self._table.wide = landscape
            wide, high = self._table.least(min_w, min_h, landscape)
            self.cue_w = 0 if high <= scroll.height + 0.5 else u * CUE_W_U
            view_w = self.width - 2 * u * 0.08 - self.cue_w - (gap / 2 if self.cue_w else 0)
            self._table.size = (max(view_w, wide), max(scroll.height, high))
            grid.cols, grid.spacing = 1, 0
            grid.size = self._table.size
        else:
            view_w = self.width - 2 * u * 0.08 - self.cue_w
            cols = max(1, min(n, int((view_w + gap) // (min_w + gap)), 2))
            rows = math.ceil(n / cols)
            fits = rows * min_h + gap * (rows - 1) <= scroll.height + 0.5
            self.cue_w = 0 if fits else u * CUE_W_U
            view_w = self.width - 2 * u * 0.08 - self.cue_w - (gap / 2 if self.cue_w else 0)
            col_w = max(min_w, (view_w - gap * (cols - 1)) / cols)
            row_h = min(max(min_h, (scroll.height - gap * (rows - 1)) / rows), PANEL_MAX_H_U * u)
            grid.cols, grid.spacing = cols, gap
            grid.size = (cols * col_w + gap * (cols - 1), rows * row_h + gap * (rows - 1))
        self._cue_trigger()
        self._followed = None  # a new layout: bring the next flyer into view again
        self._follow_trigger()

    def _update_cue(self) -> None:
        scroll, grid = self.ids.scroll, self.ids.panels
        tall = grid.height > scroll.height + 1
        self.more_above = tall and scroll.scroll_y < 0.99
        self.more_below = tall and scroll.scroll_y > 0.01

    def scroll_page(self, direction: int) -> None:
        """▲ (*direction* 1) or ▼ (-1): the panels' view moves that way by its height less half a
        touch unit (what was at its edge stays in view)."""
        scroll, grid = self.ids.scroll, self.ids.panels
        travel = grid.height - scroll.height
        if travel <= 0:
            return
        step = max(scroll.height - THEME.u * 0.5, THEME.u) / travel
        Animation.cancel_all(scroll, "scroll_y")
        Animation(scroll_y=min(1.0, max(0.0, scroll.scroll_y + direction * step)), d=0.2).start(scroll)

    def _frame_of(self, name: str) -> Any:
        panel = self.panels[name]
        return panel.parent.parent if isinstance(panel.parent.parent, SeatFrame) else panel

    def is_in_view(self, name: str) -> bool:
        """True when *name*'s whole panel lies inside the visible part of the panels' view."""
        scroll = self.ids.scroll
        frame = self._frame_of(name)
        x0, y0 = frame.to_window(frame.x, frame.y)
        x1, y1 = frame.to_window(frame.right, frame.top)
        sx0, sy0 = scroll.to_window(scroll.x, scroll.y)
        sx1, sy1 = scroll.to_window(scroll.right, scroll.top)
        return bool(min(x0, x1) >= sx0 - 1 and max(x0, x1) <= sx1 + 1 and min(y0, y1) >= sy0 - 1
                    and max(y0, y1) <= sy1 + 1)

    def _follow(self) -> None:
        """When the turn passes to a dragon whose panel is out of view, scroll it into view."""
        race = self.race
        name = race.next_to_fly() if race is not None and not race.is_over else None
        if name is None or name not in self.panels or name == self._followed:
            return
        self._followed = name
        if not self.is_in_view(name):
            self.ids.scroll.scroll_to(self._frame_of(name), padding=0, animate={"d": 0.2})

    # -- the banner ----------------------------------------------------------------------------

    def show_banner(self, player: str | None, events: v.Events) -> None:
        """Show what *events* ask of the players, for *player* (None: the round), until a tap
        closes the banner; one still open waits under it until then. The lines are said again
        in a newly chosen language."""
        session = self.svc.session if self.svc is not None else None
        race = self.race
        self._banners.append(_Asked(player, events, len(session.play_log) if session is not None else 0,
                                    race.round if race is not None else vt.START_ROUND,
                                    race is not None and race.is_over))
        self._show_banner()

    def hide_banner(self) -> None:
        self._banners.clear()
        self.ids.banner.close()

    def _show_banner(self) -> None:
        """The newest banner not yet closed, or none."""
        if not self._banners:
            self.ids.banner.close()
            return
        asked = self._banners[-1]
        colours = {p.name: p.colour for p in self._players}
        fill = rgb(PLAYER_RGB.get(colours.get(asked.player or "", ""), "#ff9f00"))
        self.ids.banner.show_lines(asked.player or round_name(asked.round, asked.over), fill,
                                   consequences(asked.events)[0], waiting=len(self._banners) - 1)

    def _banner_closed(self, _banner: Any) -> bool:
        """A tap closed the banner: the one it covered shows, if any."""
        if self._banners:
            self._banners.pop()
        self._show_banner()
        return True

    def show_banner_for_screenshot(self) -> None:
        """The banner as a fatigue leaves it (§5.9), over another dragon's base crash not yet
        closed, for the screenshot script's ``volatio-banner``."""
        names = [p.name for p in self._players] or ["Anna", "Bence"]
        self.show_banner(names[-1], v.crash_base(v.Dragon(energy=2, hand=1, silver=500, coloured=500))[1])
        self.show_banner(names[0], v.crash_path(v.Dragon(energy=1, hand=2, silver=400, coloured=400))[1])

    # -- moves ---------------------------------------------------------------------------------

    def _move(self, kind: str, data: dict[str, Any], panel: DragonPanel | None = None) -> bool:
        """Check *kind* with the rules core, then log it; a refusal is shown and nothing is logged.

        What the move asks the players to do goes to the banner; a plain echo to the strip.
        """
        session = self.svc.session
        if session is None or self.race is None:
            return False
        try:
            after = vt.play(self.race, kind, data)
            session.record_play(kind, data)
        except CompanionError as exc:
            self.notify(refusal(exc))
            return False
        if panel is not None:
            panel.problem = ""
        self.refresh()
        said, at_table = consequences(after.last_events)
        if at_table:
            self.show_banner(after.last_player, after.last_events)
            return True
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
        """Turn the indicator up: an illegal change is refused on the panel, with why on the strip."""
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
                self.notify(f"{name}: {speed_refusal(dragon.silver, dial, dragon.is_fatigued)}")
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
        """Who crossed the line; a dragon yet to fly this round is named at once (§5.11)."""
        race = self.race
        if race is None or race.is_over:
            return
        colours = {p.name: p.colour for p in self._players}
        self.finish_popup = FinishPopup(list(race.order()), colours=colours, confirmed=self.finish)
        if race.waiting:
            self.finish_popup.message = not_flown_text(race.waiting)
        self.finish_popup.open()

    def finish(self, past_line_mm: dict[str, int]) -> None:
        """Record who crossed; the rules core places everyone, and the ranking is shown."""
        session, popup = self.svc.session, self.finish_popup
        if session is None or self.race is None:
            return
        try:
            vt.play(self.race, "volatio.finish", {"past_line_mm": past_line_mm})
        except CompanionError as exc:
            if popup is not None:
                popup.message = refusal(exc)
            return
        if not self._move("volatio.finish", {"past_line_mm": past_line_mm}):
            return
        if popup is not None:
            popup.dismiss()
        assert self.race is not None and self.race.is_over
        out = vt.result_document(self.race)
        self.attempt(lambda: session.finish_game(out))
        colours = {p.name: p.colour for p in self._players}
        self.results_popup = RankingPopup(out, colours)
        self.results_popup.open()


SCREEN = VolatioScreen
