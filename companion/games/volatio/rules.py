"""Volatio's numbers and readings: the speed dial and its templates, energy, cards, traps, crashes,
collisions and fatigue; the constants the other modules read when called."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any, TypeGuard

from companion.errors import InvalidInput

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
