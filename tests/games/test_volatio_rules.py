"""Volatio's rules: the dial, cards, energy and fatigue, crashes, spells, each reading's constant, bad input."""

from __future__ import annotations

import pytest

from companion.errors import CompanionError, InvalidInput
from companion.games import volatio as v
from companion.games.volatio import (
    AttackBlocked,
    CardLaid,
    CardsDrawn,
    CardsRefused,
    Collided,
    Crash,
    Crashed,
    DebilitatusDiscarded,
    DebilitatusDrawn,
    Dragon,
    DragonPlaced,
    EnergyGained,
    EnergyLost,
    Flight,
    IllegalMove,
    LaidCardDiscarded,
    LaidCardPlayed,
    Placement,
    PointersSet,
    ShieldRaised,
    SpeedRevealed,
    Spell,
    SpellCardsDiscarded,
    TrackPosition,
)
from tests.games.volatio_helpers import FINISH_MM, dragon

# -- the dial during a round -----------------------------------------------------------------

def test_set_dial_too_far_raises_illegal_move_quoting_value() -> None:
    with pytest.raises(IllegalMove) as caught:
        v.set_dial(dragon(speed=800), 400)
    assert caught.value.field == "dial" and "(got 400)" in str(caught.value)
    assert isinstance(caught.value, CompanionError) and isinstance(caught.value, ValueError)


def test_set_dial_fatigued_above_500_raises() -> None:
    with pytest.raises(IllegalMove, match="fatigued"):
        v.set_dial(dragon(speed=300, debilitatus=1), 600)


def test_set_dial_keeps_silver_until_revealed() -> None:
    mage = v.set_dial(dragon(speed=500), 700)
    assert (mage.silver, mage.coloured) == (500, 700)


def test_reveal_speed_moves_silver_to_coloured() -> None:
    mage, events = v.reveal_speed(v.set_dial(dragon(speed=500), 700))
    assert (mage.silver, mage.coloured, events) == (700, 700, (SpeedRevealed(500, 700),))


def test_reveal_speed_illegal_shown_value_raises() -> None:
    with pytest.raises(IllegalMove, match="dial"):
        v.reveal_speed(dragon(speed=200), shown=600)


def test_check_template_vis_draconis_allows_higher_template() -> None:
    assert v.check_template(dragon(speed=500), 800, Spell.VIS_DRACONIS) == 800


def test_check_template_without_spell_refuses_other_template() -> None:
    with pytest.raises(IllegalMove) as caught:
        v.check_template(dragon(speed=500), 600)
    assert caught.value.field == "template"


def test_flight_templates_other_spell_refused() -> None:
    with pytest.raises(IllegalMove) as caught:
        v.flight_templates(500, spell="amuletum")
    assert caught.value.field == "spell"


def test_flight_templates_vis_draconis_never_beyond_800() -> None:
    assert v.flight_templates(800, spell=Spell.VIS_DRACONIS) == (800,)


# -- cards ------------------------------------------------------------------------------------------

def test_lay_card_moves_card_from_hand() -> None:
    mage, events = v.lay_card(dragon(hand=2))
    assert (mage.hand, mage.laid, events) == (1, True, (CardLaid(),))


def test_lay_card_empty_hand_raises() -> None:
    with pytest.raises(IllegalMove, match="hand"):
        v.lay_card(dragon(hand=0))


def test_lay_card_second_card_raises() -> None:
    with pytest.raises(IllegalMove, match="laid"):
        v.lay_card(dragon(hand=2, laid=True))


def test_play_laid_card_never_from_hand() -> None:
    with pytest.raises(IllegalMove) as caught:
        v.play_laid_card(dragon(hand=3), "vis-draconis")
    assert caught.value.field == "laid"


def test_end_round_discards_unused_laid_card_and_shield() -> None:
    mage, events = v.end_round(dragon(laid=True, shielded=True))
    assert (mage.laid, mage.shielded, events) == (False, False, (LaidCardDiscarded(),))


def test_play_laid_card_amuletum_raises_shield() -> None:
    mage, events = v.play_laid_card(dragon(laid=True), "amuletum")
    assert mage.shielded and events == (LaidCardPlayed(Spell.AMULETUM), ShieldRaised())


def test_draw_cards_fatigued_draws_nothing() -> None:
    mage, events = v.draw_cards(dragon(hand=0, debilitatus=1), 2)
    assert (mage.hand, events) == (0, (CardsRefused(2),))


def test_hand_limit_fifth_card_discarded() -> None:
    assert v.HAND_LIMIT == 4
    mage, events = v.draw_cards(dragon(hand=4), 1)
    assert (mage.hand, events) == (4, (CardsDrawn(1, discarded=1),))


def test_hand_limit_laid_card_not_counted() -> None:
    mage, events = v.draw_cards(dragon(hand=3, laid=True), 1)
    assert (mage.hand, mage.laid, events) == (4, True, (CardsDrawn(1, 0),))


def test_cards_per_symbol_one_card_each() -> None:
    mage, events = v.resolve_flight(dragon(hand=0), Flight(symbols=2))
    assert (mage.hand, events) == (2, (CardsDrawn(2, 0),))


def test_cards_per_symbol_off_one_card_per_flight(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(v.rules, "CARDS_PER_SYMBOL", False)
    assert v.draw_cards(dragon(hand=0), 2)[0].hand == 1


# -- energy, fatigue, recovery ----------------------------------------------------------------

def test_energy_limit_fifth_token_refused() -> None:
    assert v.ENERGY_LIMIT == 4
    mage, events = v.reach_energy_field(dragon(energy=4))
    assert (mage.energy, events) == (4, (EnergyGained(1, refused=1),))


def test_gains_before_losses_off_loss_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(v.rules, "GAINS_BEFORE_LOSSES", False)
    mage, _ = v.resolve_flight(dragon(energy=4), Flight(energy_field=True, traps=(1,)))
    assert mage.energy == 4  # the digest: "applying the loss first would give 4"


def test_gains_before_losses_off_fatigued_dragon_gets_no_field(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(v.rules, "GAINS_BEFORE_LOSSES", False)
    mage, events = v.resolve_flight(dragon(energy=0, hand=0), Flight(energy_field=True, traps=(1,)))
    assert mage.energy == 2 and not any(isinstance(e, DebilitatusDiscarded) for e in events)


def test_reach_energy_field_fatigued_recovers() -> None:
    mage, events = v.reach_energy_field(dragon(energy=2, hand=0, debilitatus=1))
    assert (mage.energy, mage.is_fatigued) == (3, False)
    assert events == (EnergyGained(1, 0), DebilitatusDiscarded())


def test_reach_energy_field_may_keep_debilitatus() -> None:
    mage, _ = v.reach_energy_field(dragon(hand=0, debilitatus=1), discard_debilitatus=False)
    assert mage.is_fatigued


def test_resolve_flight_recovery_before_losses_avoids_elimination() -> None:
    mage, events = v.resolve_flight(dragon(energy=0, hand=0, debilitatus=1),
                                    Flight(energy_field=True, traps=(2,)))
    assert not mage.eliminated and mage.debilitatus == 1
    assert events[:2] == (EnergyGained(1, 0), DebilitatusDiscarded())


def test_eliminating_debilitatus_counts_cards_held_not_lifetime() -> None:
    mage, _ = v.lose_energy(dragon(energy=0, hand=0), 1)  # first fatigue
    mage, _ = v.reach_energy_field(mage)  # recovered: the card is discarded
    mage, _ = v.lose_energy(mage, mage.energy)
    mage, events = v.lose_energy(mage, 1)
    assert not mage.eliminated and DebilitatusDrawn(1) in events


def test_fatigue_discards_laid_card() -> None:
    mage, events = v.lose_energy(dragon(energy=0, hand=2, laid=True), 1)
    assert (mage.hand, mage.laid) == (0, False) and events[-1] == SpellCardsDiscarded(3)


def test_fatigue_discards_laid_card_off_keeps_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(v.rules, "FATIGUE_DISCARDS_LAID_CARD", False)
    mage, events = v.lose_energy(dragon(energy=0, hand=2, laid=True), 1)
    assert (mage.hand, mage.laid) == (0, True) and events[-1] == SpellCardsDiscarded(2)


def test_fatigue_forgives_shortfall_new_tokens_kept() -> None:
    mage, _ = v.crash_path(dragon(energy=0, hand=0))
    assert mage.energy == 2


def test_fatigue_forgives_shortfall_off_takes_from_new_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(v.rules, "FATIGUE_FORGIVES_SHORTFALL", False)
    mage, _ = v.crash_path(dragon(energy=0, hand=0))
    assert mage.energy == 0


def test_fatigue_placement_is_not_energy_stop() -> None:
    mage, events = v.lose_energy(dragon(energy=0, hand=0), 1)
    assert mage.is_fatigued and DebilitatusDiscarded() not in events


def test_fatigue_placement_as_energy_stop_would_clear_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(v.rules, "FATIGUE_PLACEMENT_IS_ENERGY_STOP", True)
    mage, _ = v.lose_energy(dragon(energy=0, hand=0), 1)
    assert (mage.is_fatigued, mage.energy) == (False, 3)


def test_nearest_passed_energy_field_is_closest_behind() -> None:
    assert v.nearest_passed_energy_field(750.0, [200.0, 700.0, 800.0, 400.0]) == 700.0


def test_nearest_passed_energy_field_none_passed_stays() -> None:
    assert v.FATIGUED_DRAGON_STAYS_IF_NO_FIELD_PASSED
    assert v.nearest_passed_energy_field(100.0, [200.0, 300.0]) is None


def test_lose_energy_eliminated_dragon_refused() -> None:
    out = Dragon(0, 0, 300, 300, debilitatus=2, eliminated=True)
    with pytest.raises(IllegalMove) as caught:
        v.lose_energy(out, 1)
    assert caught.value.field == "eliminated"


# -- crashes and collisions ----------------------------------------------------------------------

def test_collide_costs_one_and_resets_to_100() -> None:
    mage, events = v.collide(dragon(energy=2, speed=600))
    assert (mage.energy, mage.silver) == (1, 100)
    assert events == (Collided(Placement.BESIDE_BORDER_HIT_SIDE), EnergyLost(1, 0), PointersSet(100),
                      DragonPlaced(Placement.TEMPLATE_END))


def test_crashes_add_up_off_template_crash_only() -> None:
    mage, events = v.resolve_flight(dragon(energy=4), Flight(base_crash=True, path_crash=True))
    assert mage.energy == 2 and Crashed(Crash.BASE) not in events
    assert events[-1] == DragonPlaced(Placement.WHERE_TEMPLATE_TOUCHED)


def test_crashes_add_up_on_charges_both(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(v.rules, "CRASHES_ADD_UP", True)
    mage, events = v.resolve_flight(dragon(energy=4), Flight(base_crash=True, path_crash=True))
    assert mage.energy == 1 and events[-1] == DragonPlaced(Placement.WHERE_TEMPLATE_TOUCHED)


def test_collision_adds_to_crash() -> None:
    mage, events = v.resolve_flight(dragon(energy=4), Flight(path_crash=True, collision=True))
    assert mage.energy == 1 and events[-1] == DragonPlaced(Placement.WHERE_TEMPLATE_TOUCHED)


def test_collision_adds_to_crash_off_crash_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(v.rules, "COLLISION_ADDS_TO_CRASH", False)
    mage, _ = v.resolve_flight(dragon(energy=4), Flight(path_crash=True, collision=True))
    assert mage.energy == 2


def test_placement_priority_fatigue_first() -> None:
    assert v.PLACEMENT_PRIORITY[0] is Placement.NEAREST_PASSED_ENERGY_FIELD


def test_flight_bad_trap_value_names_it() -> None:
    with pytest.raises(InvalidInput) as caught:
        Flight(traps=(1, 3))
    assert (caught.value.field, caught.value.value) == ("traps.1", 3)


def test_resolve_flight_clean_flight_changes_nothing() -> None:
    assert v.resolve_flight(dragon(), Flight()) == (dragon(), ())


# -- spells on others ------------------------------------------------------------------------------

def test_fireball_shielded_target_blocked() -> None:
    target = dragon(energy=2, shielded=True)
    assert v.fireball(target, 2) == (target, (AttackBlocked(Spell.ARDOR_FLAMMIVOLUS),))


def test_amuletum_does_not_stop_traps() -> None:
    mage, _ = v.spring_traps(dragon(energy=2, shielded=True), [1])
    assert mage.energy == 1


def test_fireball_more_heads_than_dice_refused() -> None:
    with pytest.raises(InvalidInput) as caught:
        v.fireball(dragon(), 3)
    assert (caught.value.field, caught.value.value) == ("heads", 3)


def test_energia_magica_takes_one_token() -> None:
    (caster, _), (target, _) = v.energia_magica(dragon(energy=1), dragon(energy=3))
    assert (caster.energy, target.energy) == (2, 2)


def test_energia_magica_empty_target_loses_nothing() -> None:
    (caster, c_events), (target, t_events) = v.energia_magica(dragon(energy=1), dragon(energy=0))
    assert (caster.energy, target.energy, target.is_fatigued, c_events, t_events) == (1, 0, False, (), ())


def test_energia_magica_can_fatigue_on_fatigues_empty_target(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(v.rules, "ENERGIA_MAGICA_CAN_FATIGUE", True)
    _, (target, _) = v.energia_magica(dragon(energy=1), dragon(energy=0, hand=0))
    assert target.is_fatigued


def test_energia_magica_shielded_target_blocked() -> None:
    (caster, _), (target, events) = v.energia_magica(dragon(energy=1), dragon(energy=3, shielded=True))
    assert (caster.energy, target.energy, events) == (1, 3, (AttackBlocked(Spell.ENERGIA_MAGICA),))


def test_traps_to_place_three_from_full_supply() -> None:
    assert v.traps_to_place(12) == 3


def test_traps_to_place_what_is_left() -> None:
    assert v.traps_to_place(2) == 2


def test_traps_to_place_what_is_left_off_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(v.rules, "FOVEA_PLACES_WHAT_IS_LEFT", False)
    with pytest.raises(IllegalMove, match="supply"):
        v.traps_to_place(2)


def test_traps_to_place_empty_supply_refuses() -> None:
    with pytest.raises(IllegalMove, match="supply"):
        v.traps_to_place(0)


# -- the readings' constants ----------------------------------------------------------------------

def test_dial_speeds_are_100_to_800() -> None:
    assert tuple(range(100, 900, 100)) == v.DIAL_SPEEDS


def test_fatigue_caps_spell_templates_off_lets_vis_draconis_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(v.rules, "FATIGUE_CAPS_SPELL_TEMPLATES", False)
    assert v.flight_templates(400, fatigued=True, spell="vis-draconis") == (400, 500, 600, 700)


def test_start_flight_spells_refused() -> None:
    with pytest.raises(IllegalMove, match="start flight"):
        v.flight_templates(500, spell="vis-draconis", start_flight=True)


def test_finish_tie_break_off_both_win(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(v.grid, "FINISH_TIE_BREAK_INNER_SIDE", False)
    tied = {"Red": TrackPosition(1050, 10), "Blue": TrackPosition(1050, 50)}
    assert v.race_result(tied, FINISH_MM).winners == ("Blue", "Red")


def test_energia_magica_at_limit_constant_is_off() -> None:
    assert v.ENERGIA_MAGICA_AT_LIMIT is False


# -- input checks ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("kw", "field"), [({"energy": 5}, "energy"), ({"hand": 5}, "hand"),
                                           ({"energy": -1}, "energy"), ({"speed": 150}, "silver")])
def test_dragon_out_of_range_names_field(kw: dict[str, int], field: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        dragon(**kw)
    assert caught.value.field == field


def test_dragon_two_debilitatus_must_be_eliminated() -> None:
    with pytest.raises(InvalidInput, match="debilitatus"):
        Dragon(0, 0, 300, 300, debilitatus=2)


@pytest.mark.parametrize(("progress", "inner", "field"), [(float("nan"), 0.0, "progress_mm"),
                                                          (1.0, -2.0, "inner_mm")])
def test_track_position_bad_value_names_field(progress: float, inner: float, field: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        TrackPosition(progress, inner)
    assert caught.value.field == field


def test_parse_spell_unknown_lists_known() -> None:
    with pytest.raises(InvalidInput, match="vis-draconis") as caught:
        v.parse_spell("abracadabra")
    assert caught.value.value == "abracadabra"


def test_game_info_registered_shape() -> None:
    assert (v.GAME.key, v.GAME.title, v.GAME.min_players, v.GAME.max_players) == ("volatio", "Volatio", 2, 6)
    assert v.GAME.score_document is None
