"""Volatio's rules: the digest's worked examples (§6) as data, each reading's constant, and invariants."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.errors import CompanionError, InvalidInput
from companion.games import volatio as v
from companion.games.volatio import (
    AttackBlocked,
    AvolatioCard,
    CardLaid,
    CardsDrawn,
    CardsRefused,
    Collided,
    ColouredPointerSet,
    Crash,
    Crashed,
    DebilitatusDiscarded,
    DebilitatusDrawn,
    Dragon,
    DragonPlaced,
    Eliminated,
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
    StartTile,
    TrackPosition,
    TrapSprung,
)

FATIGUE_EVENTS = (DebilitatusDrawn(1), DragonPlaced(Placement.NEAREST_PASSED_ENERGY_FIELD),
                  PointersSet(300), EnergyGained(2, 0))


def dragon(energy: int = 3, hand: int = 1, speed: int = 500, **kw: object) -> Dragon:
    return Dragon(energy=energy, hand=hand, silver=speed, coloured=speed, **kw)  # type: ignore[arg-type]


# -- Example 1: legal speed changes ----------------------------------------------------------

EXAMPLE_1 = [  # (situation, silver pointer, fatigued, legal choices)
    ("last round 500", 500, False, (200, 300, 400, 500, 600, 700, 800)),
    ("last round 800", 800, False, (500, 600, 700, 800)),
    ("last round 200", 200, False, (100, 200, 300, 400, 500)),
    ("after a crash or collision", 100, False, (100, 200, 300, 400)),
    ("after becoming fatigued", 300, True, (100, 200, 300, 400, 500)),
    ("fatigued, last round 500", 500, True, (200, 300, 400, 500)),
]


@pytest.mark.parametrize(("situation", "previous", "fatigued", "legal"), EXAMPLE_1,
                         ids=[row[0] for row in EXAMPLE_1])
def test_legal_speeds_example_1(situation: str, previous: int, fatigued: bool, legal: tuple[int, ...]) -> None:
    assert v.legal_speeds(previous, fatigued=fatigued) == legal


def test_speed_check_800_to_400_is_illegal() -> None:
    check = v.speed_check(800, 400)
    assert (check.legal, check.templates) == (False, ())
    assert check.reason is not None and "400 DP away" in check.reason and "300" in check.reason


TEMPLATE_EXAMPLES = [  # (dial, spell, templates): Example 1's spell rows and §5.10's card examples
    (700, "vis-draconis", (700, 800)),
    (200, "ventus-magicus", (100, 200)),
    (500, "vis-draconis", (500, 600, 700, 800)),
    (500, "ventus-magicus", (200, 300, 400, 500)),
    (500, None, (500,)),
]


@pytest.mark.parametrize(("dial", "spell", "templates"), TEMPLATE_EXAMPLES)
def test_flight_templates_examples(dial: int, spell: str | None, templates: tuple[int, ...]) -> None:
    assert v.flight_templates(dial, spell=spell) == templates


def test_play_laid_card_cooperatio_resets_coloured_to_silver_example_1() -> None:
    mage = v.set_dial(dragon(speed=400, laid=True), 700)
    mage, events = v.play_laid_card(mage, Spell.COOPERATIO_SUBREPTA)
    assert events == (LaidCardPlayed(Spell.COOPERATIO_SUBREPTA), ColouredPointerSet(400))
    assert (mage.silver, mage.coloured, mage.laid) == (400, 400, False)
    assert v.legal_dials(mage) == (100, 200, 300, 400, 500, 600, 700)


# -- the CLI contract -------------------------------------------------------------------------

def test_speed_check_json_legal_shape() -> None:
    assert v.speed_check_json(500, 700, spell="vis-draconis") == {
        "legal": True, "reason": None, "templates": [700, 800]}


def test_speed_check_json_illegal_shape() -> None:
    doc = v.speed_check_json(300, 600, fatigued=True)
    assert doc["legal"] is False and doc["templates"] == []
    assert "500 DP" in doc["reason"] and "fatigued" in doc["reason"]


def test_speed_check_fatigued_caps_vis_draconis_at_500() -> None:
    assert v.speed_check(300, 400, fatigued=True, spell="vis-draconis").templates == (400, 500)


def test_speed_check_reports_both_problems() -> None:
    reason = v.speed_check(100, 600, fatigued=True).reason
    assert reason is not None and "§5.3" in reason and "§5.9" in reason


@pytest.mark.parametrize(("previous", "new", "spell", "field", "bad"), [
    (150, 200, None, "--previous", 150),
    (500, 900, None, "--new", 900),
    (0, 100, None, "--previous", 0),
    (500, True, None, "--new", True),
    (500, 500, "fireball", "--spell", "fireball"),
    (500, 500, "ardor-flammivolus", "--spell", "ardor-flammivolus"),
])
def test_speed_check_bad_value_names_the_option(previous: int, new: int, spell: str | None,
                                                field: str, bad: object) -> None:
    with pytest.raises(InvalidInput) as caught:
        v.speed_check(previous, new, spell=spell)
    assert caught.value.field == field
    assert str(caught.value).startswith(f"{field}: ") and repr(bad) in str(caught.value)


def test_speed_check_accepts_spell_spelling_variants() -> None:
    assert v.speed_check(500, 500, spell="Ventus_Magicus").templates == (200, 300, 400, 500)


# -- Example 2: energy arithmetic --------------------------------------------------------------

def test_resolve_flight_gain_capped_then_trap_example_2() -> None:
    mage, events = v.resolve_flight(dragon(energy=4), Flight(energy_field=True, traps=(1,)))
    assert mage.energy == 3
    assert events == (EnergyGained(1, refused=1), TrapSprung(1), EnergyLost(1, 0))


def test_resolve_flight_energy_field_and_empty_trap_example_2() -> None:
    mage, events = v.resolve_flight(dragon(energy=3), Flight(energy_field=True, traps=(0,)))
    assert mage.energy == 4
    assert events == (EnergyGained(1, 0), TrapSprung(0))


def test_resolve_flight_two_traps_fatigue_once_example_2() -> None:
    mage, events = v.resolve_flight(dragon(energy=2, hand=2), Flight(traps=(2, 1)))
    assert events == (TrapSprung(2), TrapSprung(1), EnergyLost(2, unpaid=1), *FATIGUE_EVENTS,
                      SpellCardsDiscarded(2))
    assert (mage.energy, mage.hand, mage.debilitatus, mage.silver, mage.coloured) == (2, 0, 1, 300, 300)
    assert mage.is_fatigued


def test_fireball_second_debilitatus_eliminates_example_2() -> None:
    mage, events = v.fireball(dragon(energy=1, hand=0, debilitatus=1), heads=2)
    assert events == (EnergyLost(1, unpaid=1), DebilitatusDrawn(2), Eliminated())
    assert mage.eliminated and not mage.is_fatigued


def test_energia_magica_refused_at_four_example_2() -> None:
    with pytest.raises(IllegalMove) as caught:
        v.energia_magica(dragon(energy=4), dragon(energy=2))
    assert caught.value.field == "energy" and "(got 4)" in str(caught.value)


def test_energia_magica_literal_card_target_loses_caster_stays_example_2() -> None:
    (caster, gained), (target, lost) = v.energia_magica(dragon(energy=4), dragon(energy=2),
                                                        allowed_at_limit=True)
    assert (caster.energy, gained) == (4, (EnergyGained(1, refused=1),))
    assert (target.energy, lost) == (1, (EnergyLost(1, 0),))


# -- Example 3: crash penalties ----------------------------------------------------------------

def test_crash_path_costs_two_example_3() -> None:
    mage, events = v.crash_path(dragon(energy=3, speed=700))
    assert (mage.energy, mage.silver, mage.coloured) == (1, 100, 100)
    assert events == (Crashed(Crash.PATH), EnergyLost(2, 0), PointersSet(100),
                      DragonPlaced(Placement.WHERE_TEMPLATE_TOUCHED))
    assert max(v.legal_dials(mage)) == 400


def test_crash_base_costs_one_example_3() -> None:
    mage, events = v.crash_base(dragon(energy=3, speed=700))
    assert (mage.energy, mage.silver, mage.coloured) == (2, 100, 100)
    assert events == (Crashed(Crash.BASE), EnergyLost(1, 0), PointersSet(100),
                      DragonPlaced(Placement.BORDER_SAME_DISTANCE))


def test_crash_path_with_one_token_fatigues_instead_example_3() -> None:
    mage, events = v.crash_path(dragon(energy=1, hand=1, speed=600))
    assert events == (Crashed(Crash.PATH), EnergyLost(1, unpaid=1), *FATIGUE_EVENTS, SpellCardsDiscarded(1))
    assert (mage.energy, mage.silver, mage.coloured) == (2, 300, 300)
    assert max(v.legal_dials(mage)) == 500


# -- Example 4: the finish ---------------------------------------------------------------------

FINISH_MM = 1000.0
EXAMPLE_4 = {"Red": TrackPosition(1020, 30), "Blue": TrackPosition(1050, 50), "Green": TrackPosition(990, 10)}


def test_race_result_furthest_past_line_wins_example_4() -> None:
    result = v.race_result(EXAMPLE_4, FINISH_MM)  # Yellow was eliminated: not passed, unplaced
    assert result.is_over
    assert result.winners == ("Blue",)
    assert result.ranking == ("Blue", "Red", "Green")
    assert result.past_line_mm == {"Red": 20, "Blue": 50}


def test_race_result_exact_tie_goes_to_inner_side_example_4() -> None:
    tied = {**EXAMPLE_4, "Red": TrackPosition(1050, 10)}
    result = v.race_result(tied, FINISH_MM)
    assert result.winners == ("Red",) and result.ranking[:2] == ("Red", "Blue")


def test_race_result_late_crosser_ranked_by_own_distance_example_4() -> None:
    lassoed = {**EXAMPLE_4, "Green": TrackPosition(1040, 10)}
    assert v.race_result(lassoed, FINISH_MM).ranking == ("Blue", "Green", "Red")


def test_race_result_front_touching_line_counts_as_crossed() -> None:
    result = v.race_result({"Red": TrackPosition(1000), "Blue": TrackPosition(999)}, FINISH_MM)
    assert result.is_over and result.winners == ("Red",)


def test_race_result_nobody_crossed_race_goes_on() -> None:
    result = v.race_result({"Red": TrackPosition(900), "Blue": TrackPosition(950)}, FINISH_MM)
    assert (result.is_over, result.winners, result.ranking) == (False, (), ("Blue", "Red"))


# -- Example 5: flight order -------------------------------------------------------------------

EXAMPLE_5 = {"Yellow": TrackPosition(500, 20), "Green": TrackPosition(800, 30),
             "Blue": TrackPosition(800, 5), "Red": TrackPosition(900, 40)}


def test_fly_order_furthest_first_inner_side_breaks_tie_example_5() -> None:
    assert v.fly_order(EXAMPLE_5) == ("Red", "Blue", "Green", "Yellow")


def test_next_to_fly_skips_dragon_sent_back_after_flying_example_5() -> None:
    after_red = {**EXAMPLE_5, "Red": TrackPosition(300, 0)}  # fatigued back behind Yellow
    assert v.next_to_fly(after_red, flown={"Red"}) == "Blue"


def test_next_to_fly_none_once_everyone_flew() -> None:
    assert v.next_to_fly(EXAMPLE_5, flown=set(EXAMPLE_5)) is None


# -- the start -----------------------------------------------------------------------------------

TABLE = {1: AvolatioCard(1, 2, 1, 500), 2: AvolatioCard(2, 3, 2, 400), 3: AvolatioCard(3, 4, 3, 300)}


def test_start_grid_avolatio_card_1_example() -> None:
    grid = v.start_grid({"Bela": 2, "Anna": 1}, TABLE)
    assert grid.dragons["Anna"] == Dragon(energy=2, hand=1, silver=500, coloured=500)
    assert grid.fields == {"Anna": 1, "Bela": 2}


def test_start_grid_order_is_start_number_order() -> None:
    assert v.start_grid({"Cili": 3, "Bela": 2, "Anna": 1}, TABLE).order == ("Anna", "Bela", "Cili")


def test_start_grid_card_missing_from_table_names_it() -> None:
    with pytest.raises(InvalidInput) as caught:
        v.start_grid({"Anna": 1, "Bela": 2})
    assert caught.value.field == "avolatio.2"


@pytest.mark.parametrize(("cards", "field", "bad"), [
    ({"Anna": 1, "Bela": 3}, "players.Bela", 3),
    ({"Anna": 1, "Bela": 1}, "players.Bela", 1),
    ({"Anna": 0, "Bela": 1}, "players.Anna", 0),
    ({"Anna": 1}, "players", 1),
])
def test_start_grid_bad_cards_name_the_player(cards: dict[str, int], field: str, bad: int) -> None:
    with pytest.raises(InvalidInput) as caught:
        v.start_grid(cards, TABLE)
    assert (caught.value.field, caught.value.value) == (field, bad)


def test_avolatio_cards_know_only_card_1() -> None:
    assert dict(v.AVOLATIO_CARDS) == {1: AvolatioCard(1, energy=2, spell_cards=1, speed=500)}


@pytest.mark.parametrize(("players", "tile"), [(2, StartTile.UP_TO_4), (4, StartTile.UP_TO_4),
                                               (5, StartTile.FIVE_OR_SIX), (6, StartTile.FIVE_OR_SIX)])
def test_start_tile_matches_player_count(players: int, tile: StartTile) -> None:
    assert v.start_tile(players) is tile


def test_avolatio_deck_uses_one_to_n() -> None:
    assert v.avolatio_deck(4) == (1, 2, 3, 4)


def test_avolatio_deck_seven_players_refused() -> None:
    with pytest.raises(InvalidInput, match="players"):
        v.avolatio_deck(7)


def test_deal_avolatio_gives_each_mage_a_different_card() -> None:
    dealt = v.deal_avolatio(["Anna", "Bela", "Cili"], random.Random(7))
    assert sorted(dealt) == ["Anna", "Bela", "Cili"] and sorted(dealt.values()) == [1, 2, 3]


def test_avolatio_card_bad_speed_names_the_card() -> None:
    with pytest.raises(InvalidInput) as caught:
        AvolatioCard(2, 2, 1, 450)
    assert caught.value.field == "avolatio.2.speed"


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


# -- invariants ---------------------------------------------------------------------------------------

dials = st.sampled_from(v.DIAL_SPEEDS)
spells = st.sampled_from([None, "vis-draconis", "ventus-magicus"])


@pytest.mark.slow
@given(start=dials, data=st.data())
def test_legal_speeds_sequence_stays_on_dial_within_limit(start: int, data: st.DataObject) -> None:
    previous = start
    for _ in range(12):
        fatigued = data.draw(st.booleans())
        if fatigued and previous > v.FATIGUED_MAX_SPEED:
            previous = v.FATIGUE_SPEED  # a dragon becomes fatigued with both pointers at 300
        new = data.draw(st.sampled_from(v.legal_speeds(previous, fatigued=fatigued)))
        assert new in v.DIAL_SPEEDS and abs(new - previous) <= v.MAX_SPEED_CHANGE
        assert not fatigued or new <= v.FATIGUED_MAX_SPEED
        previous = new


@given(previous=dials, new=dials, fatigued=st.booleans(), spell=spells)
def test_speed_check_legal_exactly_when_in_legal_speeds(previous: int, new: int, fatigued: bool,
                                                        spell: str | None) -> None:
    check = v.speed_check(previous, new, fatigued=fatigued, spell=spell)
    assert check.legal == (new in v.legal_speeds(previous, fatigued=fatigued))
    assert (check.reason is None) == check.legal


@given(previous=dials, new=dials, fatigued=st.booleans(), spell=spells)
def test_speed_check_templates_near_dial_and_under_fatigue_cap(previous: int, new: int, fatigued: bool,
                                                               spell: str | None) -> None:
    check = v.speed_check(previous, new, fatigued=fatigued, spell=spell)
    if check.legal:
        assert new in check.templates and list(check.templates) == sorted(check.templates)
        assert all(t in v.DIAL_SPEEDS and abs(t - new) <= v.SPELL_TEMPLATE_SHIFT for t in check.templates)
        assert not fatigued or max(check.templates) <= v.FATIGUED_MAX_SPEED
        assert spell is not None or check.templates == (new,)


@given(energy=st.integers(0, 4), extra=st.integers(1, 6), laid=st.booleans())
def test_lose_energy_second_debilitatus_always_eliminates(energy: int, extra: int, laid: bool) -> None:
    mage, events = v.lose_energy(dragon(energy=energy, hand=0, speed=300, debilitatus=1, laid=laid),
                                 energy + extra)
    assert mage.eliminated and events[-2:] == (DebilitatusDrawn(2), Eliminated())


flights = st.builds(Flight, base_crash=st.booleans(), path_crash=st.booleans(), collision=st.booleans(),
                    energy_field=st.booleans(), symbols=st.integers(0, 3),
                    traps=st.lists(st.sampled_from(v.TRAP_VALUES), max_size=3).map(tuple))


@given(energy=st.integers(0, 4), hand=st.integers(0, 4), flights=st.lists(flights, max_size=15),
       heads=st.lists(st.integers(0, 2), max_size=15))
@pytest.mark.slow
def test_resolve_flight_state_stays_in_range(energy: int, hand: int, flights: list[Flight],
                                             heads: list[int]) -> None:
    mage = dragon(energy=energy, hand=hand)
    for flight, hit in zip(flights, heads + [0] * len(flights), strict=False):
        if mage.eliminated:
            break
        mage, _ = v.resolve_flight(mage, flight)  # Dragon's own checks reject any out-of-range state
        if not mage.eliminated:
            mage, _ = v.fireball(mage, hit)
        if mage.is_fatigued:
            assert mage.hand == 0 and set(v.legal_dials(mage)) <= {100, 200, 300, 400, 500}


positions = st.dictionaries(st.text(min_size=1, max_size=5),
                            st.builds(TrackPosition, st.integers(0, 2000), st.integers(0, 300)),
                            max_size=6)


@given(positions=positions, seed=st.integers(0, 2**16))
def test_fly_order_permutation_independent_of_input_order(positions: dict[str, TrackPosition],
                                                          seed: int) -> None:
    names = list(positions)
    random.Random(seed).shuffle(names)
    shuffled = {name: positions[name] for name in names}
    order = v.fly_order(positions)
    assert sorted(order) == sorted(positions) and v.fly_order(shuffled) == order


@given(positions=positions, finish=st.integers(0, 2000))
def test_race_result_winner_is_furthest_crosser(positions: dict[str, TrackPosition], finish: int) -> None:
    result = v.race_result(positions, finish)
    assert result.is_over == any(p.progress_mm >= finish for p in positions.values())
    if result.is_over:
        best = max(result.past_line_mm.values())
        assert all(result.past_line_mm[w] == best for w in result.winners)
