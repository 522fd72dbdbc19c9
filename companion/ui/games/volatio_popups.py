"""Volatio's texts and dialogs: what a move did, in words; the finish line; the camera's call; the ranking.

:func:`consequences` turns the rules core's events into short translated lines and says
whether any of them asks the players to do something at the table (the screen's banner
shows those until tapped away; a plain echo goes to the status strip). :func:`refusal`
says a refused end of round or finish in the player's language, from the error's fields.

Main thread only.
"""

from __future__ import annotations

from typing import Any

from kivy.properties import DictProperty, ListProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.popup import Popup

from companion.errors import CompanionError
from companion.games import volatio as v
from companion.games.volatio import play as vt
from companion.ui.lang import TR
from companion.ui.photo import photo_texture
from companion.ui.theme import PLAYER_RGB, THEME, rgb
from companion.ui.widgets import FitLabel, Stepper, TouchButton

MAX_PAST_LINE_CM = 100

_AT_THE_TABLE = (v.PointersSet, v.DebilitatusDrawn, v.Eliminated, v.DragonPlaced, v.Collided,
                 v.SpellCardsDiscarded, v.CardsRefused, v.DebilitatusDiscarded, v.LaidCardDiscarded)
"""Events that ask the players to do something with the pieces (a pointer, a card, the dragon)."""


def describe(events: v.Events) -> list[str]:
    """What the rules core says happened, as short translated texts (one per thing)."""
    return consequences(events)[0]


def consequences(events: v.Events) -> tuple[list[str], bool]:
    """The translated lines for *events*, and whether any is something to do at the table."""
    parts: list[str] = []
    at_table = False
    for e in events:
        at_table = at_table or isinstance(e, _AT_THE_TABLE)
        if isinstance(e, v.SpeedRevealed):
            parts.append(f"{e.speed} {TR._('DP')}")
        elif isinstance(e, v.EnergyLost) and e.tokens:
            parts.append(f"{TR._('Energy')} −{e.tokens}")
        elif isinstance(e, v.EnergyGained):
            if e.tokens > e.refused:
                parts.append(f"{TR._('Energy')} +{e.tokens - e.refused}")
            if e.refused:
                at_table = True
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
                at_table = True
                parts.append(TR._("hand limit: discard one card"))
        elif isinstance(e, v.CardsRefused):
            parts.append(TR._("a fatigued dragon draws no cards"))
        elif isinstance(e, v.DebilitatusDiscarded):
            parts.append(TR._("recovered: discard the Debilitatus card"))
        elif isinstance(e, v.CardLaid):
            parts.append(TR._("card laid"))
        elif isinstance(e, v.LaidCardDiscarded):
            parts.append(TR._("laid cards go to the discards"))
    return list(dict.fromkeys(parts)), at_table  # one line per thing, even when several dragons did it


def _placement_text(where: v.Placement) -> str:
    if where is v.Placement.NEAREST_PASSED_ENERGY_FIELD:
        return TR._("put the dragon beside the nearest passed energy field")
    if where is v.Placement.WHERE_TEMPLATE_TOUCHED:
        return TR._("put the dragon where the path touched the edge")
    if where is v.Placement.BORDER_SAME_DISTANCE:
        return TR._("put the dragon at the edge, as far along")
    return TR._("the dragon stays at the end of its path")


def not_flown_text(names: tuple[str, ...] | list[str]) -> str:
    """"Dora has not flown yet" (or "Dora, Endre have not flown yet"), translated."""
    if len(names) == 1:
        return TR._("{names} has not flown yet").format(names=names[0])
    return TR._("{names} have not flown yet").format(names=", ".join(names))


def speed_refusal(previous: int, dial: int, fatigued: bool) -> str:
    """Why the dial may not show *dial* DP after *previous* (§5.3, §5.9), translated."""
    dp = TR._("DP")
    if fatigued and dial > v.FATIGUED_MAX_SPEED:
        return TR._("a fatigued dragon flies at most {most}").format(most=f"{v.FATIGUED_MAX_SPEED} {dp}")
    return TR._("{new} is more than {step} from last round's {old}").format(
        new=f"{dial} {dp}", step=f"{v.MAX_SPEED_CHANGE} {dp}", old=f"{previous} {dp}")


def refusal(exc: CompanionError) -> str:
    """A refused move in the player's language where the error carries its facts; else its message."""
    if isinstance(exc, vt.RoundNotPlayed):
        return not_flown_text(exc.waiting)
    if isinstance(exc, vt.NobodyCrossed):
        return TR._("Mark each dragon that crossed the line")
    return str(exc)


class NameTag(FitLabel):
    """A dragon's name on its colour (dark text on a light colour): a label, not a button."""

    fill = ListProperty([0.5, 0.5, 0.5, 1])


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
            row.add_widget(NameTag(text=name, fill=fill, size_hint_x=0.8))
            toggle = TouchButton(text=TR._("Crossed"), size_hint_x=0.8)
            stepper = Stepper(low=0, high=MAX_PAST_LINE_CM, step=1, value=0, unit=TR._("cm"), disabled=True,
                              title=name)
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


class RankingPopup(Popup):  # type: ignore[misc]
    """The race's result: each dragon's place, how far past the line, and its rank points (§5.11).

    Volatio has no points (§6); the rank points (N for the winner of N placed dragons, down to
    1, the eliminated 0) are the app's, for the history chart, and are labelled so.
    """

    scores = DictProperty({})
    winners = ListProperty([])
    winner_text = StringProperty("")
    points_heading = StringProperty("")
    close_text = StringProperty("")

    def __init__(self, out: dict[str, Any], colours: dict[str, str], **kwargs: Any) -> None:
        super().__init__(scores=out["scores"], winners=out["winners"], **kwargs)
        self.title = TR._("Results")
        self.winner_text = TR._("Winner") + ": " + ", ".join(out["winners"])
        self.points_heading = TR._("Rank points")
        self.close_text = TR._("Close")
        rows = self.ids.rows
        past = out.get("past_line_mm", {})
        order = [*out["ranking"], *out.get("eliminated", [])]
        for place, name in enumerate(order, start=1):
            if name in past:
                cm = round(past[name] / 10)
                where = TR._("{cm} past the line").format(cm=f"{cm} {TR._('cm')}")
            elif name in out.get("eliminated", []):
                where = TR._("Out of the race")
            else:
                where = TR._("short of the line")
            row = BoxLayout(size_hint_y=None, height=THEME.u * 0.9, spacing=THEME.u * 0.15)
            row.add_widget(FitLabel(text=f"{place}." if name not in out.get("eliminated", []) else "–",
                                    size_hint_x=0.35))
            row.add_widget(NameTag(text=name, fill=rgb(PLAYER_RGB.get(colours.get(name, ""), "#888888")),
                                   size_hint_x=1.1))
            row.add_widget(FitLabel(text=where, color=THEME.muted, size_hint_x=1.6))
            row.add_widget(FitLabel(text=str(out["scores"].get(name, 0)), size_hint_x=0.9,
                                    base_font_size=THEME.u * 0.5))
            rows.add_widget(row)


class FlightPopup(Popup):  # type: ignore[misc]
    """What the overhead camera saw: each template and dragon base against the track's edge,
    and for each that touches, one tap to apply the crash to the dragon that flew."""

    hint = StringProperty("")
    close_text = StringProperty("")
    picture = ObjectProperty(None, allownone=True)
    """The photo with the track and every piece's verdict drawn on it, when the camera sent one."""

    def __init__(self, report: dict[str, Any], flyer: str | None, dragon_owner: dict[str, str],
                 apply: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if report.get("rgb"):
            try:
                self.picture = photo_texture(report)
            except CompanionError:
                self.picture = None  # a torn picture: the list alone still says it all
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
