"""Volatio (Wrede & du Poël, AMIGO / Rio Grande Games, version 1.0): the dragon race's rules as data.

Pure and stdlib-only: no time, no I/O, no randomness except a ``random.Random`` handed in.
Section numbers (§) are those of ``shared/rules/volatio.md``, which restates the Hungarian
rule book; "book p. N" is the page of that rule book. Where the two differ the book wins,
and where the book is silent the reading the digest gives (V1-V18) is a named constant
here whose docstring says so. Functions read those constants when called, so a test or
a house-rule setting can change one.

What is modelled: the speed dial and the templates a flight may use, what a flight's
final position costs or earns (crash, collision, traps, energy fields, spell symbols),
fatigue and elimination, the spells' effects on energy and pointers, the start grid,
the order of flight and the finish. What is left to the players and the camera: the
geometry (V3 where the dragon sits on the template, V6 where a hit dragon goes, V13
the lasso's path, V17 the cave), because the rules only say it in pictures.

Speeds are written in DP ("Sárkány Erő", dragon power); distances along the track in mm.
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Any, TypeAlias, TypeGuard

from companion.errors import InvalidInput
from companion.games import GameInfo

MIN_PLAYERS, MAX_PLAYERS = 2, 6


class IllegalMove(InvalidInput):
    """A move the rules forbid in the current state; the message names the field and quotes the value."""


# -- the speed dial and the templates (§2, §4.2, §5.3, §5.10; book p. 3, 5-6, 14) -----------

DIAL_SPEEDS: tuple[int, ...] = (100, 200, 300, 400, 500, 600, 700, 800)
"""Reading V2: the book says only "8 repülési út" (8 templates) and names 100 to 800 DP;
so the dial and the templates are 100-800 in steps of 100, one template per value."""

MIN_SPEED, MAX_SPEED = DIAL_SPEEDS[0], DIAL_SPEEDS[-1]

MAX_SPEED_CHANGE = 300
"""§5.3, book p. 5-6: the coloured pointer moves at most 300 DP up or down a round."""

CRASH_SPEED = 100
"""§5.7-§5.8, book p. 9-10: after a crash or a collision both pointers go to 100 (next round ≤ 400)."""

FATIGUE_SPEED = 300
"""§5.9, book p. 10: a fatigued dragon's pointers both go to 300 (next round ≤ 500)."""

FATIGUED_MAX_SPEED = 500
"""§5.9, book p. 10: "nem repülhet 500 SE-nél gyorsabban" while fatigued."""

SPELL_TEMPLATE_SHIFT = 300
"""§5.10, book p. 14: Vis Draconis / Ventus Magicus allow a template up to 300 DP higher / lower."""

FATIGUE_CAPS_SPELL_TEMPLATES = True
"""Reading (not in the digest): the fatigue limit is on the *flight* ("nem repülhet 500
SE-nél gyorsabban", may not fly faster than 500), so Vis Draconis cannot lift a fatigued
dragon's template above 500 either. False lets the spell go past the cap."""

START_FLIGHT_SPELLS = False
"""Reading V9: the start flight (§4.1) uses the Avolatio card's DP with no spell, since no
card has been laid yet; crash, collision, symbol and energy rules apply as usual."""


class Spell(StrEnum):
    """The eight spell cards (§5.10, book p. 11-15), by the names the CLI uses."""

    ARDOR_FLAMMIVOLUS = "ardor-flammivolus"  # fireball
    LAQUEUS_MALEFICI = "laqueus-malefici"  # magic lasso
    COOPERATIO_SUBREPTA = "cooperatio-subrepta"  # forced alliance
    FOVEA_MALEFICA = "fovea-malefica"  # magic traps
    ENERGIA_MAGICA = "energia-magica"  # magic energy
    VIS_DRACONIS = "vis-draconis"  # dragon power: a longer template
    VENTUS_MAGICUS = "ventus-magicus"  # magic breath: a shorter template
    AMULETUM = "amuletum"  # magic shield


TEMPLATE_SPELLS: Mapping[Spell, int] = MappingProxyType(
    {Spell.VIS_DRACONIS: +SPELL_TEMPLATE_SHIFT, Spell.VENTUS_MAGICUS: -SPELL_TEMPLATE_SHIFT})
"""The two spells that change the template flown but never the dial (§5.10, book p. 14)."""


def is_dial_speed(value: object) -> TypeGuard[int]:
    """True for a value the speed indicator can show (100, 200, ..., 800 DP)."""
    return isinstance(value, int) and not isinstance(value, bool) and value in DIAL_SPEEDS


def check_dial(value: object, field: str) -> int:
    """*value* as a dial speed in DP.

    :raises InvalidInput: naming *field* for anything not on the dial (150, 900, "500", True).
    """
    if is_dial_speed(value):
        return value
    raise InvalidInput(field, value, "must be a speed on the dial: "
                                     + ", ".join(str(s) for s in DIAL_SPEEDS) + " DP")


def parse_spell(text: object, field: str = "spell") -> Spell:
    """The spell a CLI name stands for (``vis-draconis``; case, spaces and ``_`` do not matter).

    :raises InvalidInput: naming *field* for a name no spell card has.
    """
    if isinstance(text, Spell):
        return text
    if isinstance(text, str):
        wanted = text.strip().lower().replace(" ", "-").replace("_", "-")
        for spell in Spell:
            if wanted == spell.value:
                return spell
    raise InvalidInput(field, text, "unknown spell; known: " + ", ".join(s.value for s in Spell))


def speed_change_problem(previous: int, new: int, *, fatigued: bool = False) -> str | None:
    """Why setting the dial from *previous* to *new* DP is illegal, or None if it is legal (§5.3, §5.9)."""
    problems: list[str] = []
    change = abs(new - previous)
    if change > MAX_SPEED_CHANGE:
        problems.append(f"{new} DP is {change} DP away from last round's {previous} DP; the dial moves "
                        f"at most {MAX_SPEED_CHANGE} DP a round (§5.3)")
    if fatigued and new > FATIGUED_MAX_SPEED:
        problems.append(f"{new} DP is faster than {FATIGUED_MAX_SPEED} DP, the most a fatigued "
                        f"dragon may fly (§5.9)")
    return "; ".join(problems) or None


def legal_speeds(previous: int, *, fatigued: bool = False) -> tuple[int, ...]:
    """The dial values a mage may set this round, ascending, given last round's DP (§5.3, §5.9).

    *previous* is the silver pointer. Example: from 500, 200 to 800.

    :raises InvalidInput: naming ``previous`` for a value not on the dial.
    """
    check_dial(previous, "previous")
    return tuple(s for s in DIAL_SPEEDS if speed_change_problem(previous, s, fatigued=fatigued) is None)


def flight_templates(dial: int, *, fatigued: bool = False, spell: Spell | str | None = None,
                     start_flight: bool = False) -> tuple[int, ...]:
    """The templates (in DP, ascending) a dragon may fly with *dial* set and *spell* cast.

    Each DP value has one template (§5.3), so with no spell the answer is ``(dial,)``.
    Vis Draconis adds up to 300 and Ventus Magicus takes up to 300 off the *template*,
    never the dial (§5.10, book p. 14: "500 → 500, 600, 700 vagy 800"), within 100-800
    (V2), and never above 500 while fatigued (:data:`FATIGUE_CAPS_SPELL_TEMPLATES`).
    The dial itself is assumed legal against last round's; see :func:`speed_check`.

    :raises InvalidInput: naming ``dial`` or ``spell`` for a value that is no such thing.
    :raises IllegalMove: for a fatigued dial above 500, a spell that does not change the
        template, or a spell on the start flight (V9).
    """
    check_dial(dial, "dial")
    if fatigued and dial > FATIGUED_MAX_SPEED:
        raise IllegalMove("dial", dial, f"a fatigued dragon flies at most {FATIGUED_MAX_SPEED} DP (§5.9)")
    if spell is None:
        return (dial,)
    chosen = parse_spell(spell)
    if chosen not in TEMPLATE_SPELLS:
        raise IllegalMove("spell", chosen.value, "only vis-draconis and ventus-magicus change the template")
    if start_flight and not START_FLIGHT_SPELLS:
        raise IllegalMove("spell", chosen.value, "no spell on the start flight: no card was laid (§4.1, V9)")
    shift = TEMPLATE_SPELLS[chosen]
    low, high = sorted((dial, dial + shift))
    if fatigued and FATIGUE_CAPS_SPELL_TEMPLATES:
        high = min(high, FATIGUED_MAX_SPEED)
    return tuple(s for s in DIAL_SPEEDS if low <= s <= high)


@dataclass(frozen=True)
class SpeedCheck:
    """The answer to "may I set the dial to *new*?": legal or why not, and the templates I may fly."""

    legal: bool
    reason: str | None  # None when legal
    templates: tuple[int, ...]  # DP, ascending; empty when the dial setting is illegal

    def to_json(self) -> dict[str, Any]:
        return {"legal": self.legal, "reason": self.reason, "templates": list(self.templates)}


def speed_check(previous: int, new: int, *, fatigued: bool = False, spell: str | None = None) -> SpeedCheck:
    """Check a dial change and list the templates the flight may then use (§5.3, §5.9, §5.10).

    The pure core of ``companion rules volatio-speed --previous N --new M [--fatigued]
    [--spell vis-draconis|ventus-magicus]``; fields are named as the CLI's options.
    *previous* is last round's DP (the silver pointer), *new* the coloured pointer.

    :raises InvalidInput: naming ``--previous``, ``--new`` or ``--spell`` for a value that is
        not on the dial or not a template spell.
    """
    check_dial(previous, "--previous")
    check_dial(new, "--new")
    chosen: Spell | None = None
    if spell is not None:
        chosen = parse_spell(spell, "--spell")
        if chosen not in TEMPLATE_SPELLS:
            raise InvalidInput("--spell", spell, "must be 'vis-draconis' or 'ventus-magicus'")
    reason = speed_change_problem(previous, new, fatigued=fatigued)
    if reason is not None:
        return SpeedCheck(False, reason, ())
    return SpeedCheck(True, None, flight_templates(new, fatigued=fatigued, spell=chosen))


def speed_check_json(previous: int, new: int, *, fatigued: bool = False,
                     spell: str | None = None) -> dict[str, Any]:
    """:func:`speed_check` as the CLI's JSON: ``{"legal": bool, "reason": str|null, "templates": [int]}``.

    :raises InvalidInput: as :func:`speed_check`.
    """
    return speed_check(previous, new, fatigued=fatigued, spell=spell).to_json()


# -- energy, cards, traps (§5.4-§5.6; book p. 7-8) ----------------------------------------------

ENERGY_LIMIT = 4
"""Reading V1: §5.5 (book p. 8) says no mage holds more than four tokens and a fifth is
not received; the Energia Magica card's "ha már 5 energia korongja van" is taken as a slip."""

ENERGIA_MAGICA_AT_LIMIT = False
"""Reading V1: Energia Magica cannot be cast while holding :data:`ENERGY_LIMIT` tokens.
True is the literal card text: the target loses 1 and the caster, capped, gains nothing."""

HAND_LIMIT = 4
"""§5.4, book p. 7: "egy varázslónak sem lehet négynél több lap a kezében" (no more than four
cards; on a fifth, discard one at once). The card laid beside the indicator does not count.
The book settles this one; it is a constant so the hand and energy limits read alike."""

GAINS_BEFORE_LOSSES = True
"""Reading V7 ("veszíthet abból korongot, amit épp megszerzett", may lose the token just
gained): a flight's gains (the energy field, with recovery from fatigue, and spell cards)
are settled before its losses. False settles losses first, and a dragon that the losses
fatigue has been moved off the field and gets nothing from it."""

CARDS_PER_SYMBOL = True
"""Reading V8: one card per spell-card symbol touched (one touched by both template and base
counts once). False gives one card per flight however many symbols were touched."""

TRAP_VALUES: tuple[int, ...] = (2, 1, 0)
"""§2, §5.6: the magic traps cost 2, 1 or 0 tokens (3 x 2, 6 x 1, 3 x 0: 12 in all)."""

TRAP_COUNT = 12
TRAPS_PER_FOVEA = 3

FOVEA_PLACES_WHAT_IS_LEFT = True
"""Reading V14: used traps go back to the box, so when fewer than three are left, Fovea
Malefica places as many as remain. False makes the spell illegal then."""


# -- crashes, collisions, fatigue (§5.7-§5.9; book p. 9-11) -------------------------------------

BASE_CRASH_LOSS = 1
"""§5.7, book p. 9: the dragon base touches the border after the flight: lose 1 token."""

PATH_CRASH_LOSS = 2
"""§5.7, book p. 9: any part of the final template touches the border: lose 2 tokens."""

COLLISION_LOSS = 1
"""§5.8, book p. 10: the template or the base touches another dragon: the mover loses 1 token."""

CRASHES_ADD_UP = False
"""Reading V4: when both the base and the template touch the border, only the template's
penalty applies (2 tokens, placed where the template touched); True charges 3."""

COLLISION_ADDS_TO_CRASH = True
"""Reading (not in the digest): a flight that both crashes and hits a dragon pays both
penalties, as two separate rules each apply; the crash decides where the dragon goes."""

FATIGUE_ENERGY = 2
"""§5.9, book p. 10: a mage whose dragon becomes fatigued takes 2 tokens."""

FATIGUE_FORGIVES_SHORTFALL = True
"""Reading V5: one fatigue covers the whole shortfall of that event; tokens owed beyond
what the mage had are not taken from the 2 new ones. False takes them from the new ones."""

ELIMINATING_DEBILITATUS = 2
"""§5.9, book p. 11: "Ha egy kifáradt sárkány beszerez egy második Debilitatus kártyát" -
a *fatigued* dragon that gets a second card is out. So this counts the cards lying in
front of the mage: one discarded on recovery no longer counts."""

FATIGUE_DISCARDS_LAID_CARD = True
"""Reading V10: "Dobnia kell az összes varázskártyáját" (discard all spell cards) includes a
card laid beside the indicator and not used yet."""

FATIGUE_PLACEMENT_IS_ENERGY_STOP = False
"""Reading V11: being put beside the nearest passed energy field is not stopping at an energy
field: no token and no recovery. True would give both at once."""

ENERGIA_MAGICA_CAN_FATIGUE = False
"""Reading V15: Energia Magica *takes* a token; from a mage with none it takes nothing and
does not fatigue the dragon. True treats it as a loss like any other."""

FATIGUED_DRAGON_STAYS_IF_NO_FIELD_PASSED = True
"""Reading (not in the digest): a dragon fatigued before it has passed any energy field
(on the start flight, say) stays where it is; the book names no other place."""

DAMAGE_DICE = 2
MAX_HEADS_PER_DIE = 1
"""Reading V18: the book does not show the damage dice; each die is taken to show at most one
dragon head, so a fireball costs 0-2 tokens ("Minden dobott sárkányfej után ... egy energia korongot")."""

FIREBALL_RANGES: tuple[int, ...] = (400, 600, 800)
"""§5.10, book p. 11: each fireball card shows one of these ranges (reading V18)."""

LASSO_RANGE, COOPERATIO_RANGE, ENERGIA_MAGICA_RANGE = 600, 400, 600
"""§5.10, book p. 12-14: the ranges, measured with the template of that value."""


class Crash(StrEnum):
    """Which part touched the border (§5.7)."""

    BASE = "base"
    PATH = "path"


class Placement(StrEnum):
    """Where the players put a dragon after a penalty: the rules say it in words, the camera checks."""

    BORDER_SAME_DISTANCE = "border-same-distance"  # base crash: same distance, touching the border
    WHERE_TEMPLATE_TOUCHED = "where-template-touched"  # template crash
    TEMPLATE_END = "template-end"  # collision: the mover stays at the end of its flight
    BESIDE_BORDER_HIT_SIDE = "beside-border-hit-side"  # collision: the hit dragon (V6)
    NEAREST_PASSED_ENERGY_FIELD = "nearest-passed-energy-field"  # fatigue


PLACEMENT_PRIORITY: tuple[Placement, ...] = (
    Placement.NEAREST_PASSED_ENERGY_FIELD, Placement.WHERE_TEMPLATE_TOUCHED,
    Placement.BORDER_SAME_DISTANCE, Placement.TEMPLATE_END)
"""Readings V4 and V5: when one flight earns several placements, the first in this list wins
(fatigue beats a crash, the template crash beats the base crash, a crash beats a collision)."""

HIT_DRAGON_PLACEMENT = Placement.BESIDE_BORDER_HIT_SIDE
"""Reading V6: the hit dragon is pushed sideways at the same distance to the border on the side
it was hit from; only without room does it go back along the track (the hit one, not the mover)."""

AMULETUM_BLOCKS: frozenset[Spell] = frozenset(
    {Spell.ARDOR_FLAMMIVOLUS, Spell.LAQUEUS_MALEFICI, Spell.COOPERATIO_SUBREPTA, Spell.ENERGIA_MAGICA})
"""Reading V12: the shield cancels every spell that names its dragon as the target; it does
not stop collisions or traps."""


# -- what happened: outcomes as data ------------------------------------------------------------

@dataclass(frozen=True)
class SpeedRevealed:
    previous: int  # DP, the silver pointer before
    speed: int  # DP, both pointers now


@dataclass(frozen=True)
class CardLaid:
    """A spell card went from the hand to beside the indicator, face down (§4.2 phase 2)."""


@dataclass(frozen=True)
class LaidCardPlayed:
    spell: Spell


@dataclass(frozen=True)
class LaidCardDiscarded:
    """An unused laid card went to the discards at the end of the round (§5.4)."""


@dataclass(frozen=True)
class ColouredPointerSet:
    speed: int  # Cooperatio Subrepta: the coloured pointer back to the silver one


@dataclass(frozen=True)
class ShieldRaised:
    """Amuletum: no hostile spell reaches this dragon for the rest of the round."""


@dataclass(frozen=True)
class AttackBlocked:
    spell: Spell


@dataclass(frozen=True)
class EnergyGained:
    tokens: int  # offered
    refused: int = 0  # of those, what the energy limit turned away for good (§5.5)


@dataclass(frozen=True)
class EnergyLost:
    tokens: int  # paid to the supply
    unpaid: int = 0  # owed beyond what the mage had: this fatigues the dragon


@dataclass(frozen=True)
class CardsDrawn:
    cards: int
    discarded: int = 0  # over the hand limit: the mage discards this many of their choice at once


@dataclass(frozen=True)
class CardsRefused:
    cards: int  # symbols touched by a fatigued dragon, which may not draw (§5.9)


@dataclass(frozen=True)
class TrapSprung:
    value: int


@dataclass(frozen=True)
class Crashed:
    part: Crash


@dataclass(frozen=True)
class Collided:
    hit_dragon: Placement = HIT_DRAGON_PLACEMENT  # where its owner puts the dragon that was hit


@dataclass(frozen=True)
class PointersSet:
    speed: int  # both pointers


@dataclass(frozen=True)
class DragonPlaced:
    where: Placement


@dataclass(frozen=True)
class DebilitatusDrawn:
    cards: int  # Debilitatus cards now in front of the mage


@dataclass(frozen=True)
class DebilitatusDiscarded:
    """Recovery: the dragon stopped at an energy field (§5.9)."""


@dataclass(frozen=True)
class SpellCardsDiscarded:
    cards: int  # the whole hand, plus the laid card (V10)


@dataclass(frozen=True)
class Eliminated:
    """A second Debilitatus card: the dragon leaves the track (§5.9)."""


Event: TypeAlias = (SpeedRevealed | CardLaid | LaidCardPlayed | LaidCardDiscarded | ColouredPointerSet
                    | ShieldRaised | AttackBlocked | EnergyGained | EnergyLost | CardsDrawn | CardsRefused
                    | TrapSprung | Crashed | Collided | PointersSet | DragonPlaced | DebilitatusDrawn
                    | DebilitatusDiscarded | SpellCardsDiscarded | Eliminated)
Events: TypeAlias = tuple[Event, ...]


# -- one dragon's state -------------------------------------------------------------------------

@dataclass(frozen=True)
class Dragon:
    """One mage's dragon and what lies in front of the mage, between two events.

    ``silver`` is last round's DP and ``coloured`` this round's (equal once revealed);
    ``hand`` counts the secret spell cards, not counting a ``laid`` one.

    :raises InvalidInput: naming the field for a value out of range.
    """

    energy: int
    hand: int
    silver: int
    coloured: int
    debilitatus: int = 0  # Debilitatus cards in front of the mage
    eliminated: bool = False
    laid: bool = False  # a spell card lies face down beside the indicator
    shielded: bool = False  # Amuletum played this round

    def __post_init__(self) -> None:
        _check_count(self.energy, "energy", ENERGY_LIMIT)
        _check_count(self.hand, "hand", HAND_LIMIT)
        check_dial(self.silver, "silver")
        check_dial(self.coloured, "coloured")
        _check_count(self.debilitatus, "debilitatus", ELIMINATING_DEBILITATUS)
        if self.debilitatus >= ELIMINATING_DEBILITATUS and not self.eliminated:
            raise InvalidInput("debilitatus", self.debilitatus,
                               f"{ELIMINATING_DEBILITATUS} Debilitatus cards put a dragon out of the race")

    @property
    def is_fatigued(self) -> bool:
        return self.debilitatus > 0 and not self.eliminated

    @property
    def speed(self) -> int:
        """The DP last revealed (the silver pointer)."""
        return self.silver


def legal_dials(dragon: Dragon) -> tuple[int, ...]:
    """The dial values this dragon's mage may set for the coming round (§5.3, §5.9)."""
    return legal_speeds(dragon.silver, fatigued=dragon.is_fatigued)


def _check_count(value: object, field: str, at_most: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(field, value, "must be a whole number")
    if not 0 <= value <= at_most:
        raise InvalidInput(field, value, f"must be from 0 to {at_most}")


def _check_racing(dragon: Dragon) -> None:
    if dragon.eliminated:
        raise IllegalMove("eliminated", True, "this dragon is out of the race (§5.9)")


# -- the round: dial, card, flight (§4.2) -------------------------------------------------------

def set_dial(dragon: Dragon, dial: int) -> Dragon:
    """Phase 1: the mage turns the coloured pointer, in secret (§4.2, §5.3).

    :raises InvalidInput: naming ``dial`` for a value not on the dial.
    :raises IllegalMove: naming ``dial`` for more than 300 DP from the silver pointer, or
        more than 500 while fatigued.
    """
    _check_racing(dragon)
    check_dial(dial, "dial")
    problem = speed_change_problem(dragon.silver, dial, fatigued=dragon.is_fatigued)
    if problem is not None:
        raise IllegalMove("dial", dial, problem)
    return replace(dragon, coloured=dial)


def reveal_speed(dragon: Dragon, shown: int | None = None) -> tuple[Dragon, Events]:
    """Phase 3: the indicator is turned up, checked, and the silver pointer set to the coloured one.

    *shown* is what the indicator shows when read at the table (the camera); by default
    the coloured pointer entered earlier.

    :raises IllegalMove: naming ``dial`` when the shown value was not a legal change (§5.3).
    """
    dial = dragon.coloured if shown is None else shown
    checked = set_dial(dragon, dial)
    return replace(checked, silver=dial), (SpeedRevealed(dragon.silver, dial),)


def check_template(dragon: Dragon, template: int, spell: Spell | str | None = None, *,
                   start_flight: bool = False) -> int:
    """*template* (DP) if this dragon may fly it now, with its revealed dial and *spell* (§5.3, §5.10).

    :raises IllegalMove: naming ``template`` for one the dial and spell do not allow.
    """
    _check_racing(dragon)
    allowed = flight_templates(dragon.silver, fatigued=dragon.is_fatigued, spell=spell,
                               start_flight=start_flight)
    if template not in allowed:
        raise IllegalMove("template", template, f"with the dial at {dragon.silver} DP this flight may use "
                                                + ", ".join(str(t) for t in allowed))
    return template


def lay_card(dragon: Dragon) -> tuple[Dragon, Events]:
    """Phase 2: lay one spell card from the hand face down beside the indicator (§4.2).

    :raises IllegalMove: naming ``hand`` when it is empty, or ``laid`` when a card is already laid.
    """
    _check_racing(dragon)
    if dragon.laid:
        raise IllegalMove("laid", True, "only one spell card may be laid a round (§4.2)")
    if dragon.hand == 0:
        raise IllegalMove("hand", 0, "no spell card in hand to lay")
    return replace(dragon, hand=dragon.hand - 1, laid=True), (CardLaid(),)


def play_laid_card(dragon: Dragon, spell: Spell | str) -> tuple[Dragon, Events]:
    """Cast the laid card: it goes to the discards, and its effect on the caster applies (§5.10).

    Cooperatio Subrepta sets the coloured pointer back to the silver one (the caster does
    not fly this round); Amuletum shields the dragon for the rest of the round. The other
    spells' effects on other dragons are :func:`fireball` and :func:`energia_magica`; the
    templates for Vis Draconis / Ventus Magicus are :func:`flight_templates`.

    :raises InvalidInput: naming ``spell`` for an unknown spell.
    :raises IllegalMove: naming ``laid`` when no card was laid: spells are never cast from the hand.
    """
    _check_racing(dragon)
    chosen = parse_spell(spell)
    if not dragon.laid:
        raise IllegalMove("laid", False, f"{chosen.value}: a spell must be laid beside the indicator "
                                         "first; never cast from the hand (§5.10)")
    dragon = replace(dragon, laid=False)
    events: list[Event] = [LaidCardPlayed(chosen)]
    if chosen is Spell.COOPERATIO_SUBREPTA:
        dragon = replace(dragon, coloured=dragon.silver)
        events.append(ColouredPointerSet(dragon.silver))
    elif chosen is Spell.AMULETUM:
        dragon = replace(dragon, shielded=True)
        events.append(ShieldRaised())
    return dragon, tuple(events)


def end_round(dragon: Dragon) -> tuple[Dragon, Events]:
    """The round is over: an unused laid card is discarded and the shield drops (§5.4, §5.10)."""
    events: Events = (LaidCardDiscarded(),) if dragon.laid else ()
    return replace(dragon, laid=False, shielded=False), events


@dataclass(frozen=True)
class Flight:
    """What a flight's final template and dragon base touched (§5.4-§5.8): the camera's or the table's report.

    ``symbols`` counts distinct spell-card symbols touched (V8); ``traps`` lists the values
    of the traps touched, as revealed.

    :raises InvalidInput: naming the field for a negative count or a trap value that does not exist.
    """

    base_crash: bool = False
    path_crash: bool = False
    collision: bool = False
    energy_field: bool = False  # the base (not the template) touches an energy field
    symbols: int = 0
    traps: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        _check_count(self.symbols, "symbols", 99)
        for i, value in enumerate(self.traps):
            if isinstance(value, bool) or not isinstance(value, int) or value not in TRAP_VALUES:
                raise InvalidInput(f"traps.{i}", value, "a trap is worth 2, 1 or 0 (§5.6)")


def resolve_flight(dragon: Dragon, flight: Flight) -> tuple[Dragon, Events]:
    """Settle everything a flight's final position earns and costs, in the order the readings give.

    Gains first (V7): the energy field (a token, and recovery from fatigue), then spell
    cards. Then the losses, summed so that one fatigue covers the flight's whole shortfall
    (V5): the crash (template beats base, V4), the collision, each trap (§5.6). Then the
    pointers (100 after a crash or collision, 300 if the flight fatigued the dragon) and
    where the dragon goes (:data:`PLACEMENT_PRIORITY`).

    :raises IllegalMove: naming ``eliminated`` for a dragon out of the race.
    """
    _check_racing(dragon)
    if GAINS_BEFORE_LOSSES:
        dragon, gains = _flight_gains(dragon, flight)
        dragon, losses = _flight_losses(dragon, flight)
        return dragon, gains + losses
    fatigued_before = dragon.debilitatus
    dragon, losses = _flight_losses(dragon, flight)
    if dragon.eliminated or dragon.debilitatus > fatigued_before:
        return dragon, losses  # moved off the field, and a fatigued dragon draws nothing
    dragon, gains = _flight_gains(dragon, flight)
    return dragon, losses + gains


def _flight_gains(dragon: Dragon, flight: Flight) -> tuple[Dragon, Events]:
    events: Events = ()
    if flight.energy_field:
        dragon, events = reach_energy_field(dragon)
    if flight.symbols:
        dragon, more = draw_cards(dragon, flight.symbols)
        events += more
    return dragon, events


def _flight_losses(dragon: Dragon, flight: Flight) -> tuple[Dragon, Events]:
    events: list[Event] = []
    owed = 0
    placements: list[Placement] = []
    if flight.path_crash:
        events.append(Crashed(Crash.PATH))
        owed += PATH_CRASH_LOSS
        placements.append(Placement.WHERE_TEMPLATE_TOUCHED)
    if flight.base_crash and (CRASHES_ADD_UP or not flight.path_crash):
        events.append(Crashed(Crash.BASE))
        owed += BASE_CRASH_LOSS
        placements.append(Placement.BORDER_SAME_DISTANCE)
    if flight.collision and (COLLISION_ADDS_TO_CRASH or not placements):
        events.append(Collided())
        owed += COLLISION_LOSS
        placements.append(Placement.TEMPLATE_END)
    for value in flight.traps:
        events.append(TrapSprung(value))
        owed += value
    reset = CRASH_SPEED if placements else None
    placement = min(placements, key=PLACEMENT_PRIORITY.index) if placements else None
    dragon, more = _pay(dragon, owed, reset_to=reset, placement=placement)
    return dragon, tuple(events) + more


def crash_base(dragon: Dragon) -> tuple[Dragon, Events]:
    """The base touches the border: −1 token, both pointers 100, same distance at the border (§5.7)."""
    return resolve_flight(dragon, Flight(base_crash=True))


def crash_path(dragon: Dragon) -> tuple[Dragon, Events]:
    """The final template touches the border: −2 tokens, both pointers 100, placed where it touched (§5.7)."""
    return resolve_flight(dragon, Flight(path_crash=True))


def collide(dragon: Dragon) -> tuple[Dragon, Events]:
    """The template or base touches another dragon: the mover −1 token, both pointers 100 (§5.8)."""
    return resolve_flight(dragon, Flight(collision=True))


def spring_traps(dragon: Dragon, values: Sequence[int]) -> tuple[Dragon, Events]:
    """Traps touched by the final template or base: each costs its value (§5.6)."""
    return resolve_flight(dragon, Flight(traps=tuple(values)))


def reach_energy_field(dragon: Dragon, *, discard_debilitatus: bool = True) -> tuple[Dragon, Events]:
    """The base stopped on an energy field: +1 token up to the limit, and recovery (§5.5, §5.9).

    The book says the mage *may* ("dobhatja") discard the Debilitatus card then; there is
    no reason to keep it, so that is the default.
    """
    _check_racing(dragon)
    dragon, events = gain_energy(dragon, 1)
    if dragon.is_fatigued and discard_debilitatus:
        dragon = replace(dragon, debilitatus=dragon.debilitatus - 1)
        events += (DebilitatusDiscarded(),)
    return dragon, events


def draw_cards(dragon: Dragon, symbols: int) -> tuple[Dragon, Events]:
    """Spell-card symbols touched: draw up to :data:`HAND_LIMIT` (§5.4), none while fatigued (§5.9).

    :raises InvalidInput: naming ``symbols`` for a negative count.
    """
    _check_racing(dragon)
    _check_count(symbols, "symbols", 99)
    cards = symbols if CARDS_PER_SYMBOL else min(symbols, 1)
    if cards == 0:
        return dragon, ()
    if dragon.is_fatigued:
        return dragon, (CardsRefused(cards),)
    over = max(0, dragon.hand + cards - HAND_LIMIT)
    return replace(dragon, hand=dragon.hand + cards - over), (CardsDrawn(cards, over),)


def gain_energy(dragon: Dragon, tokens: int) -> tuple[Dragon, Events]:
    """Take *tokens* from the supply; any beyond :data:`ENERGY_LIMIT` are refused for good (§5.5)."""
    _check_racing(dragon)
    kept = min(tokens, ENERGY_LIMIT - dragon.energy)
    return replace(dragon, energy=dragon.energy + kept), (EnergyGained(tokens, tokens - kept),)


def lose_energy(dragon: Dragon, tokens: int) -> tuple[Dragon, Events]:
    """Pay *tokens* to the supply; owing one with none left fatigues the dragon (§5.5, §5.9).

    :raises InvalidInput: naming ``tokens`` for a negative count.
    """
    _check_racing(dragon)
    _check_count(tokens, "tokens", 99)
    return _pay(dragon, tokens, reset_to=None, placement=None)


def _pay(dragon: Dragon, owed: int, *, reset_to: int | None,
         placement: Placement | None) -> tuple[Dragon, Events]:
    paid = min(owed, dragon.energy)
    unpaid = owed - paid
    events: Events = (EnergyLost(paid, unpaid),) if owed else ()
    dragon = replace(dragon, energy=dragon.energy - paid)
    if unpaid:  # V5: the fatigue's pointers and placement replace the crash's
        dragon, more = _fatigue(dragon, unpaid)
        return dragon, events + more
    if reset_to is not None:
        dragon = replace(dragon, silver=reset_to, coloured=reset_to)
        events += (PointersSet(reset_to),)
    if placement is not None:
        events += (DragonPlaced(placement),)
    return dragon, events


def _fatigue(dragon: Dragon, unpaid: int) -> tuple[Dragon, Events]:
    """§5.9, book p. 10-11, in the book's order: card, place, pointers, tokens, discards."""
    cards = dragon.debilitatus + 1
    if cards >= ELIMINATING_DEBILITATUS:
        out = replace(dragon, debilitatus=cards, eliminated=True, energy=0, hand=0, laid=False,
                      shielded=False)
        return out, (DebilitatusDrawn(cards), Eliminated())
    laid_discarded = dragon.laid and FATIGUE_DISCARDS_LAID_CARD
    discarded = dragon.hand + int(laid_discarded)
    energy = FATIGUE_ENERGY if FATIGUE_FORGIVES_SHORTFALL else max(0, FATIGUE_ENERGY - unpaid)
    dragon = replace(dragon, debilitatus=cards, silver=FATIGUE_SPEED, coloured=FATIGUE_SPEED,
                     energy=0, hand=0, laid=dragon.laid and not laid_discarded)
    dragon, gained = gain_energy(dragon, energy)
    events: Events = (DebilitatusDrawn(cards), DragonPlaced(Placement.NEAREST_PASSED_ENERGY_FIELD),
                      PointersSet(FATIGUE_SPEED), *gained, SpellCardsDiscarded(discarded))
    if FATIGUE_PLACEMENT_IS_ENERGY_STOP:
        dragon, more = reach_energy_field(dragon)
        events += more
    return dragon, events


def nearest_passed_energy_field(progress_mm: float, fields_mm: Iterable[float]) -> float | None:
    """Where a fatigued dragon goes: the energy field nearest behind it along the track (§5.9).

    *progress_mm* and *fields_mm* are distances along the track. Returns None when no field
    is behind it (:data:`FATIGUED_DRAGON_STAYS_IF_NO_FIELD_PASSED`: it stays where it is).
    """
    behind = [f for f in fields_mm if f < progress_mm]
    return max(behind) if behind else None


# -- spells on other dragons (§5.10; book p. 11-15) ---------------------------------------------

def fireball(target: Dragon, heads: int) -> tuple[Dragon, Events]:
    """Ardor Flammivolus hit *target*: it loses one token per dragon head rolled (§5.10, book p. 11).

    :raises InvalidInput: naming ``heads`` for more heads than the dice can show.
    """
    _check_racing(target)
    _check_count(heads, "heads", DAMAGE_DICE * MAX_HEADS_PER_DIE)
    if is_blocked(target, Spell.ARDOR_FLAMMIVOLUS):
        return target, (AttackBlocked(Spell.ARDOR_FLAMMIVOLUS),)
    return lose_energy(target, heads)


def energia_magica(caster: Dragon, target: Dragon, *, allowed_at_limit: bool | None = None,
                   ) -> tuple[tuple[Dragon, Events], tuple[Dragon, Events]]:
    """Energia Magica: the caster takes one token from *target* (§5.10, book p. 14).

    Returns ``((caster, events), (target, events))``. At the energy limit the spell is
    refused (V1, :data:`ENERGIA_MAGICA_AT_LIMIT`, or *allowed_at_limit*); from a target
    with no token nothing is taken (V15); a shielded target blocks it (V12).

    :raises IllegalMove: naming ``energy`` when the caster already holds the limit.
    """
    _check_racing(caster)
    _check_racing(target)
    at_limit_ok = ENERGIA_MAGICA_AT_LIMIT if allowed_at_limit is None else allowed_at_limit
    if caster.energy >= ENERGY_LIMIT and not at_limit_ok:
        raise IllegalMove("energy", caster.energy, f"Energia Magica cannot be cast holding {ENERGY_LIMIT} "
                                                   "tokens, the most a mage may hold (§5.5, V1)")
    if is_blocked(target, Spell.ENERGIA_MAGICA):
        return (caster, ()), (target, (AttackBlocked(Spell.ENERGIA_MAGICA),))
    if target.energy == 0 and not ENERGIA_MAGICA_CAN_FATIGUE:
        return (caster, ()), (target, ())
    taken = min(1, target.energy)
    return gain_energy(caster, taken), lose_energy(target, 1)


def is_blocked(target: Dragon, spell: Spell) -> bool:
    """True when *target*'s Amuletum cancels *spell* (§5.10, V12)."""
    return target.shielded and spell in AMULETUM_BLOCKS


def traps_to_place(supply: int) -> int:
    """How many traps Fovea Malefica lays beside the template, with *supply* left (§5.10, V14).

    :raises IllegalMove: naming ``supply`` when none are left, or fewer than three and
        :data:`FOVEA_PLACES_WHAT_IS_LEFT` is off.
    """
    _check_count(supply, "supply", TRAP_COUNT)
    if supply == 0 or (supply < TRAPS_PER_FOVEA and not FOVEA_PLACES_WHAT_IS_LEFT):
        raise IllegalMove("supply", supply, f"Fovea Malefica needs {TRAPS_PER_FOVEA} traps from the supply")
    return min(TRAPS_PER_FOVEA, supply)


# -- the start (§3, §4.1; book p. 3-4) ----------------------------------------------------------

@dataclass(frozen=True)
class AvolatioCard:
    """A start card: start field (= its number), spell cards, energy tokens and DP (§3 step 9)."""

    number: int
    energy: int
    spell_cards: int
    speed: int

    def __post_init__(self) -> None:
        if isinstance(self.number, bool) or not isinstance(self.number, int) \
                or not 1 <= self.number <= MAX_PLAYERS:
            raise InvalidInput("number", self.number, f"Avolatio cards are numbered 1 to {MAX_PLAYERS}")
        _check_count(self.energy, f"avolatio.{self.number}.energy", ENERGY_LIMIT)
        _check_count(self.spell_cards, f"avolatio.{self.number}.spell_cards", HAND_LIMIT)
        check_dial(self.speed, f"avolatio.{self.number}.speed")


AVOLATIO_CARDS: Mapping[int, AvolatioCard] = MappingProxyType(
    {1: AvolatioCard(1, energy=2, spell_cards=1, speed=500)})
"""V18: the book spells out only card 1 (field 1 front right, 2 tokens, 1 card, 500 DP, book
p. 4); cards 2-6 are printed on the cards, so a game needs a table with them."""

SMALL_START_TILE_MAX_PLAYERS = 4
"""§2, book p. 3: one start tile takes up to four dragons, the other five or six."""


class StartTile(StrEnum):
    UP_TO_4 = "up-to-4"
    FIVE_OR_SIX = "5-or-6"


@dataclass(frozen=True)
class StartGrid:
    """The race as set up: tile, each mage's start field, the start flight order and the dragons."""

    tile: StartTile
    fields: Mapping[str, int]  # the start field is the Avolatio number
    order: tuple[str, ...]  # the start flight (§4.1): in start-number order
    dragons: Mapping[str, Dragon]


def start_tile(players: int) -> StartTile:
    """The start tile for *players* dragons (§3 step 2).

    :raises InvalidInput: naming ``players`` outside 2-6.
    """
    _check_players(players)
    return StartTile.UP_TO_4 if players <= SMALL_START_TILE_MAX_PLAYERS else StartTile.FIVE_OR_SIX


def avolatio_deck(players: int) -> tuple[int, ...]:
    """The Avolatio cards in play: 1 to N for N mages, the rest back in the box (§3 step 6)."""
    _check_players(players)
    return tuple(range(1, players + 1))


def deal_avolatio(names: Sequence[str], rng: random.Random) -> dict[str, int]:
    """Shuffle the Avolatio cards 1..N and give each mage one (§3 step 6).

    :raises InvalidInput: naming ``players`` for a count outside 2-6 or a repeated name.
    """
    if len(set(names)) != len(names):
        raise InvalidInput("players", list(names), "each mage needs a different name")
    numbers = list(avolatio_deck(len(names)))
    rng.shuffle(numbers)
    return dict(zip(names, numbers, strict=True))


def start_grid(cards: Mapping[str, int],
               table: Mapping[int, AvolatioCard] = AVOLATIO_CARDS) -> StartGrid:
    """Set up the race from each mage's Avolatio card (§3 steps 8-9, §4.1).

    *cards* maps a mage to their Avolatio number; *table* gives each card's data. Each
    dragon starts with the card's tokens, cards and DP on both pointers.

    :raises InvalidInput: naming ``players.<name>`` for a number outside 1..N or used twice,
        ``avolatio.<n>`` for a card missing from *table*.
    """
    _check_players(len(cards))
    seen: dict[int, str] = {}
    for name, number in cards.items():
        field = f"players.{name}"
        if not name.strip():
            raise InvalidInput("players", name, "a mage needs a name")
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= len(cards):
            raise InvalidInput(field, number, f"with {len(cards)} mages the cards are 1 to {len(cards)}")
        if number in seen:
            raise InvalidInput(field, number, f"{seen[number]} already has Avolatio card {number}")
        seen[number] = name
        if number not in table:
            raise InvalidInput(f"avolatio.{number}", None, "this card's tokens, cards and DP are not in the "
                                                           "table (the book prints only card 1)")
    dragons = {name: Dragon(energy=table[n].energy, hand=table[n].spell_cards,
                            silver=table[n].speed, coloured=table[n].speed) for name, n in cards.items()}
    return StartGrid(start_tile(len(cards)), dict(cards), start_order(cards), dragons)


def start_order(cards: Mapping[str, int]) -> tuple[str, ...]:
    """The start flight's order: Avolatio number 1 first, then 2, and so on (§4.1, book p. 4)."""
    return tuple(sorted(cards, key=lambda name: cards[name]))


def _check_players(players: int) -> None:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise InvalidInput("players", players, f"Volatio is for {MIN_PLAYERS} to {MAX_PLAYERS} mages")


# -- order of flight and the finish (§5.2, §5.11; book p. 6-7, 15) ------------------------------

FINISH_TIE_BREAK_INNER_SIDE = True
"""Reading V16: two dragons exactly as far past the finish line are ranked as the flight order
ranks a tie, nearer the inner side first. False leaves them tied (both win if first)."""


@dataclass(frozen=True)
class TrackPosition:
    """Where a dragon is, as far as the order and the finish need it.

    ``progress_mm``: how far the front of the base is along the track (judged by the yellow
    guide lines when in doubt, §5.2). ``inner_mm``: how far the base is from the inner side.

    :raises InvalidInput: naming the field for a value that is not a finite number, or a
        negative ``inner_mm``.
    """

    progress_mm: float
    inner_mm: float = 0.0

    def __post_init__(self) -> None:
        for field, value in (("progress_mm", self.progress_mm), ("inner_mm", self.inner_mm)):
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise InvalidInput(field, value, "must be a finite number of mm")
        if self.inner_mm < 0:
            raise InvalidInput("inner_mm", self.inner_mm, "must not be negative")


def _ahead_key(name: str, position: TrackPosition) -> tuple[float, float, str]:
    # The name only orders dragons at the very same spot, which two bases cannot share;
    # it is there so that no input order ever changes an answer.
    return (-position.progress_mm, position.inner_mm, name)


def fly_order(positions: Mapping[str, TrackPosition]) -> tuple[str, ...]:
    """Everyone ranked for flight: furthest along first, a tie to the one nearer the inner side (§5.2).

    Pass the dragons still racing. Within a round the order is judged again after every
    flight, so use :func:`next_to_fly` as the round goes on.
    """
    return tuple(sorted(positions, key=lambda name: _ahead_key(name, positions[name])))


def next_to_fly(positions: Mapping[str, TrackPosition], flown: Collection[str]) -> str | None:
    """The furthest-ahead dragon that has not flown this round, from positions now (§5.2, book p. 7).

    A dragon sent back (by fatigue, say) after flying does not fly again (Example 5).
    Returns None when everyone has flown.
    """
    waiting = {name: pos for name, pos in positions.items() if name not in flown}
    order = fly_order(waiting)
    return order[0] if order else None


@dataclass(frozen=True)
class RaceResult:
    """The finish check at the end of a round (§5.11)."""

    is_over: bool  # someone's base front has reached the finish line
    ranking: tuple[str, ...]  # every racing dragon: first place first
    winners: tuple[str, ...]  # empty while the race goes on; more than one only on a true tie
    past_line_mm: Mapping[str, float]  # the dragons that crossed, and by how much


def race_result(positions: Mapping[str, TrackPosition], finish_mm: float) -> RaceResult:
    """Whether the race ended this round, and the places (§5.11, book p. 15).

    A dragon has crossed when the front of its base touches or passes the line
    (``progress_mm >= finish_mm``). Of those, the one furthest past the line wins;
    everyone else is placed by track position, which for dragons past the line is the
    same thing. Pass only the dragons still racing: the eliminated are unplaced.
    """
    past = {name: pos.progress_mm - finish_mm for name, pos in positions.items()
            if pos.progress_mm >= finish_mm}
    ranking = fly_order(positions)
    if not past:
        return RaceResult(False, ranking, (), {})

    def place_key(name: str) -> tuple[float, float]:
        pos = positions[name]
        return (-pos.progress_mm, pos.inner_mm if FINISH_TIE_BREAK_INNER_SIDE else 0.0)

    best = place_key(ranking[0])
    winners = tuple(sorted(name for name in ranking if place_key(name) == best))
    return RaceResult(True, ranking, winners, past)


GAME = GameInfo(key="volatio", title="Volatio", min_players=MIN_PLAYERS, max_players=MAX_PLAYERS,
                aliases=("dragon-race",), score_document=None)
