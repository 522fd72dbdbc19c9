"""Volatio: one dragon's state, its round (dial, card, flight), energy, fatigue and the spells cast on it.

The readings the rules leave open are constants of :mod:`companion.games.volatio.rules`, read
when a function is called: setting one there changes the rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from companion.errors import InvalidInput
from companion.games.volatio import rules
from companion.games.volatio.outcomes import (
    AttackBlocked,
    CardLaid,
    CardsDrawn,
    CardsRefused,
    Collided,
    ColouredPointerSet,
    Crashed,
    DebilitatusDiscarded,
    DebilitatusDrawn,
    DragonPlaced,
    Eliminated,
    EnergyGained,
    EnergyLost,
    Event,
    Events,
    LaidCardDiscarded,
    LaidCardPlayed,
    PointersSet,
    ShieldRaised,
    SpeedRevealed,
    SpellCardsDiscarded,
    TrapSprung,
)
from companion.games.volatio.rules import (
    Crash,
    IllegalMove,
    Placement,
    Spell,
    check_dial,
    flight_templates,
    legal_speeds,
    parse_spell,
    speed_change_problem,
)

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
        _check_count(self.energy, "energy", rules.ENERGY_LIMIT)
        _check_count(self.hand, "hand", rules.HAND_LIMIT)
        check_dial(self.silver, "silver")
        check_dial(self.coloured, "coloured")
        _check_count(self.debilitatus, "debilitatus", rules.ELIMINATING_DEBILITATUS)
        if self.debilitatus >= rules.ELIMINATING_DEBILITATUS and not self.eliminated:
            raise InvalidInput("debilitatus", self.debilitatus,
                               f"{rules.ELIMINATING_DEBILITATUS} Debilitatus cards put a dragon out of "
                               "the race")

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
            if isinstance(value, bool) or not isinstance(value, int) or value not in rules.TRAP_VALUES:
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
    if rules.GAINS_BEFORE_LOSSES:
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
        owed += rules.PATH_CRASH_LOSS
        placements.append(Placement.WHERE_TEMPLATE_TOUCHED)
    if flight.base_crash and (rules.CRASHES_ADD_UP or not flight.path_crash):
        events.append(Crashed(Crash.BASE))
        owed += rules.BASE_CRASH_LOSS
        placements.append(Placement.BORDER_SAME_DISTANCE)
    if flight.collision and (rules.COLLISION_ADDS_TO_CRASH or not placements):
        events.append(Collided())
        owed += rules.COLLISION_LOSS
        placements.append(Placement.TEMPLATE_END)
    for value in flight.traps:
        events.append(TrapSprung(value))
        owed += value
    reset = rules.CRASH_SPEED if placements else None
    placement = min(placements, key=rules.PLACEMENT_PRIORITY.index) if placements else None
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
    cards = symbols if rules.CARDS_PER_SYMBOL else min(symbols, 1)
    if cards == 0:
        return dragon, ()
    if dragon.is_fatigued:
        return dragon, (CardsRefused(cards),)
    over = max(0, dragon.hand + cards - rules.HAND_LIMIT)
    return replace(dragon, hand=dragon.hand + cards - over), (CardsDrawn(cards, over),)


def gain_energy(dragon: Dragon, tokens: int) -> tuple[Dragon, Events]:
    """Take *tokens* from the supply; any beyond :data:`ENERGY_LIMIT` are refused for good (§5.5)."""
    _check_racing(dragon)
    kept = min(tokens, rules.ENERGY_LIMIT - dragon.energy)
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
    if cards >= rules.ELIMINATING_DEBILITATUS:
        out = replace(dragon, debilitatus=cards, eliminated=True, energy=0, hand=0, laid=False,
                      shielded=False)
        return out, (DebilitatusDrawn(cards), Eliminated())
    laid_discarded = dragon.laid and rules.FATIGUE_DISCARDS_LAID_CARD
    discarded = dragon.hand + int(laid_discarded)
    energy = (rules.FATIGUE_ENERGY if rules.FATIGUE_FORGIVES_SHORTFALL
              else max(0, rules.FATIGUE_ENERGY - unpaid))
    dragon = replace(dragon, debilitatus=cards, silver=rules.FATIGUE_SPEED, coloured=rules.FATIGUE_SPEED,
                     energy=0, hand=0, laid=dragon.laid and not laid_discarded)
    dragon, gained = gain_energy(dragon, energy)
    events: Events = (DebilitatusDrawn(cards), DragonPlaced(Placement.NEAREST_PASSED_ENERGY_FIELD),
                      PointersSet(rules.FATIGUE_SPEED), *gained, SpellCardsDiscarded(discarded))
    if rules.FATIGUE_PLACEMENT_IS_ENERGY_STOP:
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
    _check_count(heads, "heads", rules.DAMAGE_DICE * rules.MAX_HEADS_PER_DIE)
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
    at_limit_ok = rules.ENERGIA_MAGICA_AT_LIMIT if allowed_at_limit is None else allowed_at_limit
    if caster.energy >= rules.ENERGY_LIMIT and not at_limit_ok:
        raise IllegalMove("energy", caster.energy, "Energia Magica cannot be cast holding "
                          f"{rules.ENERGY_LIMIT} tokens, the most a mage may hold (§5.5, V1)")
    if is_blocked(target, Spell.ENERGIA_MAGICA):
        return (caster, ()), (target, (AttackBlocked(Spell.ENERGIA_MAGICA),))
    if target.energy == 0 and not rules.ENERGIA_MAGICA_CAN_FATIGUE:
        return (caster, ()), (target, ())
    taken = min(1, target.energy)
    return gain_energy(caster, taken), lose_energy(target, 1)


def is_blocked(target: Dragon, spell: Spell) -> bool:
    """True when *target*'s Amuletum cancels *spell* (§5.10, V12)."""
    return target.shielded and spell in rules.AMULETUM_BLOCKS


def traps_to_place(supply: int) -> int:
    """How many traps Fovea Malefica lays beside the template, with *supply* left (§5.10, V14).

    :raises IllegalMove: naming ``supply`` when none are left, or fewer than three and
        :data:`FOVEA_PLACES_WHAT_IS_LEFT` is off.
    """
    _check_count(supply, "supply", rules.TRAP_COUNT)
    if supply == 0 or (supply < rules.TRAPS_PER_FOVEA and not rules.FOVEA_PLACES_WHAT_IS_LEFT):
        raise IllegalMove("supply", supply,
                          f"Fovea Malefica needs {rules.TRAPS_PER_FOVEA} traps from the supply")
    return min(rules.TRAPS_PER_FOVEA, supply)
