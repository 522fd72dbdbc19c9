"""Volatio's rules: the digest's worked examples (§6) as data, the CLI contract, the start."""

from __future__ import annotations

import random

import pytest

from companion.errors import InvalidInput
from companion.games import volatio as v
from companion.games.volatio import (
    AvolatioCard,
    ColouredPointerSet,
    Crash,
    Crashed,
    DebilitatusDrawn,
    Dragon,
    DragonPlaced,
    Eliminated,
    EnergyGained,
    EnergyLost,
    Flight,
    IllegalMove,
    LaidCardPlayed,
    Placement,
    PointersSet,
    Spell,
    SpellCardsDiscarded,
    StartTile,
    TrackPosition,
    TrapSprung,
)
from tests.games.volatio_helpers import FATIGUE_EVENTS, FINISH_MM, dragon

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
