"""Volatio at the table: the play log folded into the race, each move checked by the rules core."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.errors import CompanionError, InvalidInput
from companion.games import volatio as v
from companion.games.volatio import (
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
    Eliminated,
    EnergyGained,
    EnergyLost,
    IllegalMove,
    LaidCardDiscarded,
    Placement,
    PointersSet,
    SpeedRevealed,
    SpellCardsDiscarded,
)
from companion.games.volatio import play as vt
from companion.games.volatio.play import Race

MAGES = ("Red", "Blue", "Green", "Yellow")


def race_of(*moves: tuple[str, dict[str, Any]], players: tuple[str, ...] = MAGES) -> Race:
    return vt.fold(players, [(f"volatio.{kind}", data, float(i)) for i, (kind, data) in enumerate(moves)])


def everyone_reveals(speed: int = 500, players: tuple[str, ...] = MAGES) -> list[tuple[str, dict[str, Any]]]:
    return [("reveal", {"player": p, "speed": speed}) for p in players]


ROUND_1 = [*everyone_reveals(), ("next_round", {})]  # the start flight at 500 DP, then round 1


# -- the start (§3, §4.1, V9) -----------------------------------------------------------------

def test_new_race_starts_every_dragon_from_avolatio_card_1() -> None:
    race = vt.new_race(MAGES)
    assert race.dragons == dict.fromkeys(MAGES, Dragon(energy=2, hand=1, silver=500, coloured=500))
    assert (race.round, race.flown, race.progress) == (0, (), dict.fromkeys(MAGES, 0))


@pytest.mark.parametrize("players", [("Solo",), ("A", "B", "C", "D", "E", "F", "G"), ("A", "A")])
def test_new_race_refuses_a_wrong_table(players: tuple[str, ...]) -> None:
    with pytest.raises(InvalidInput) as caught:
        vt.new_race(players)
    assert caught.value.field == "players"


def test_start_card_sets_the_tokens_and_cards_before_the_start_flight() -> None:
    race = race_of(("start_card", {"player": "Blue", "energy": 4, "cards": 0}))
    assert (race.dragons["Blue"].energy, race.dragons["Blue"].hand) == (4, 0)
    assert race.dragons["Red"] == vt.new_race(MAGES).dragons["Red"]


def test_start_card_over_the_energy_limit_is_refused_naming_energy() -> None:
    with pytest.raises(InvalidInput) as caught:
        vt.play(vt.new_race(MAGES), "volatio.start_card", {"player": "Red", "energy": 5, "cards": 1})
    assert caught.value.field == "energy"


def test_start_card_after_the_start_flight_is_refused() -> None:
    race = race_of(("reveal", {"player": "Red", "speed": 400}))
    with pytest.raises(IllegalMove):
        vt.play(race, "start_card", {"player": "Red", "energy": 3, "cards": 1})


def test_start_flight_reveal_sets_the_avolatio_dp_with_no_change_check() -> None:
    race = race_of(("reveal", {"player": "Red", "speed": 100}))  # 400 from 500: fine on the start (V9)
    assert (race.dragons["Red"].silver, race.dragons["Red"].coloured) == (100, 100)
    assert race.last_events == (SpeedRevealed(500, 100),) and race.flown == ("Red",)


def test_start_flight_order_is_the_start_numbers() -> None:
    race = race_of(("progress", {"player": "Yellow", "progress": 3}))
    assert race.order() == MAGES  # positions do not matter on the start flight (§4.1)


def test_no_card_is_laid_for_the_start_flight() -> None:
    with pytest.raises(IllegalMove):
        vt.play(vt.new_race(MAGES), "lay_card", {"player": "Red"})


# -- the dial (§5.3, §5.9) ---------------------------------------------------------------------

def test_reveal_an_illegal_change_is_refused_with_the_cores_reason() -> None:
    race = race_of(*ROUND_1)
    with pytest.raises(IllegalMove) as caught:
        vt.play(race, "volatio.reveal", {"player": "Red", "speed": 100})
    assert caught.value.field == "dial"
    assert v.speed_check(500, 100).reason in str(caught.value)


def test_reveal_a_legal_change_sets_both_pointers() -> None:
    race = race_of(*ROUND_1, ("reveal", {"player": "Red", "speed": 800}))
    assert (race.dragons["Red"].silver, race.dragons["Red"].coloured) == (800, 800)
    assert race.last_events == (SpeedRevealed(500, 800),)


def test_reveal_twice_in_a_round_is_refused() -> None:
    race = race_of(*ROUND_1, ("reveal", {"player": "Red", "speed": 600}))
    with pytest.raises(IllegalMove):
        vt.play(race, "reveal", {"player": "Red", "speed": 600})


def test_reveal_off_the_dial_names_speed() -> None:
    with pytest.raises(InvalidInput) as caught:
        vt.play(race_of(*ROUND_1), "reveal", {"player": "Red", "speed": 550})
    assert caught.value.field == "speed"


def test_legal_dials_follow_the_core() -> None:
    race = race_of(*ROUND_1)
    assert race.legal_dials("Red") == v.legal_speeds(500) == (200, 300, 400, 500, 600, 700, 800)
    assert vt.new_race(MAGES).legal_dials("Red") == v.DIAL_SPEEDS


# -- crashes, collisions, fatigue (§5.7-§5.9, Example 3) ---------------------------------------

def test_crash_before_the_flight_is_refused() -> None:
    with pytest.raises(IllegalMove) as caught:
        vt.play(race_of(*ROUND_1), "crash", {"player": "Red", "part": "path"})
    assert "has not flown" in str(caught.value)


def test_path_crash_costs_two_tokens_and_resets_both_pointers_to_100() -> None:
    race = race_of(("start_card", {"player": "Red", "energy": 3, "cards": 1}), *ROUND_1,
                   ("reveal", {"player": "Red", "speed": 700}), ("crash", {"player": "Red", "part": "path"}))
    red = race.dragons["Red"]
    assert (red.energy, red.silver, red.coloured) == (1, 100, 100)
    assert red == v.crash_path(Dragon(energy=3, hand=1, silver=700, coloured=700))[0]
    assert race.last_events == (Crashed(Crash.PATH), EnergyLost(2, 0), PointersSet(100),
                                DragonPlaced(Placement.WHERE_TEMPLATE_TOUCHED))
    assert race.legal_dials("Red") == (100, 200, 300, 400)


def test_base_crash_costs_one_token() -> None:
    race = race_of(*ROUND_1, ("reveal", {"player": "Red", "speed": 600}), ("crash", {"player": "Red", "part": "base"}))
    assert (race.dragons["Red"].energy, race.dragons["Red"].silver) == (1, 100)


def test_crash_part_must_be_base_or_path() -> None:
    race = race_of(*ROUND_1, ("reveal", {"player": "Red", "speed": 600}))
    with pytest.raises(InvalidInput) as caught:
        vt.play(race, "crash", {"player": "Red", "part": "wing"})
    assert caught.value.field == "part"


def test_collision_costs_the_mover_one_token() -> None:
    race = race_of(*ROUND_1, ("reveal", {"player": "Blue", "speed": 600}), ("collision", {"player": "Blue"}))
    assert (race.dragons["Blue"].energy, race.dragons["Blue"].silver) == (1, 100)
    assert race.last_events[0] == Collided()


def test_path_crash_with_one_token_fatigues_at_2_tokens_and_300_dp() -> None:
    race = race_of(("start_card", {"player": "Red", "energy": 1, "cards": 3}), *ROUND_1,
                   ("reveal", {"player": "Red", "speed": 600}), ("crash", {"player": "Red", "part": "path"}))
    red = race.dragons["Red"]
    assert (red.energy, red.silver, red.coloured, red.hand, red.debilitatus) == (2, 300, 300, 0, 1)
    assert red.is_fatigued
    assert race.last_events == (Crashed(Crash.PATH), EnergyLost(1, 1), DebilitatusDrawn(1),
                                DragonPlaced(Placement.NEAREST_PASSED_ENERGY_FIELD), PointersSet(300),
                                EnergyGained(2, 0), SpellCardsDiscarded(3))


def fatigued_red() -> list[tuple[str, dict[str, Any]]]:
    return [("start_card", {"player": "Red", "energy": 0, "cards": 1}), *ROUND_1,
            ("lose_energy", {"player": "Red", "tokens": 1})]


def test_lose_energy_with_none_left_fatigues() -> None:
    race = race_of(*fatigued_red())
    assert (race.dragons["Red"].energy, race.dragons["Red"].silver, race.dragons["Red"].debilitatus) == (2, 300, 1)


def test_a_fatigued_dragon_may_not_reveal_above_500() -> None:
    race = race_of(*fatigued_red())
    with pytest.raises(IllegalMove) as caught:
        vt.play(race, "reveal", {"player": "Red", "speed": 600})
    assert "fatigued" in str(caught.value)
    assert race.legal_dials("Red") == (100, 200, 300, 400, 500)


def test_a_fatigued_dragon_draws_no_cards() -> None:
    race = race_of(*fatigued_red(), ("reveal", {"player": "Red", "speed": 400}), ("draw_card", {"player": "Red"}))
    assert race.dragons["Red"].hand == 0 and race.last_events == (CardsRefused(1),)


def test_an_energy_field_recovers_a_fatigued_dragon() -> None:
    race = race_of(*fatigued_red(), ("reveal", {"player": "Red", "speed": 400}), ("energy_field", {"player": "Red"}))
    assert (race.dragons["Red"].energy, race.dragons["Red"].is_fatigued) == (3, False)
    assert race.last_events == (EnergyGained(1, 0), DebilitatusDiscarded())


def test_a_second_debilitatus_eliminates() -> None:
    race = race_of(*fatigued_red(), ("lose_energy", {"player": "Red", "tokens": 3}))
    assert race.dragons["Red"].eliminated
    assert race.last_events == (EnergyLost(2, 1), DebilitatusDrawn(2), Eliminated())
    assert race.racing == ("Blue", "Green", "Yellow") and race.eliminated == ("Red",)
    assert "Red" not in race.order()
    with pytest.raises(IllegalMove):
        vt.play(race, "reveal", {"player": "Red", "speed": 300})


# -- energy and cards (§5.4, §5.5) ---------------------------------------------------------------

def test_energy_field_at_the_limit_refuses_the_fifth_token() -> None:
    race = race_of(("start_card", {"player": "Red", "energy": 4, "cards": 1}), *ROUND_1,
                   ("reveal", {"player": "Red", "speed": 500}), ("energy_field", {"player": "Red"}))
    assert race.dragons["Red"].energy == 4 and race.last_events == (EnergyGained(1, 1),)


def test_draw_card_over_the_hand_limit_discards_one() -> None:
    race = race_of(("start_card", {"player": "Red", "energy": 2, "cards": 4}), *ROUND_1,
                   ("reveal", {"player": "Red", "speed": 500}), ("draw_card", {"player": "Red"}))
    assert race.dragons["Red"].hand == 4 and race.last_events == (CardsDrawn(1, 1),)


def test_lay_card_before_the_flight_and_discarded_at_the_round_end() -> None:
    race = race_of(*ROUND_1, ("lay_card", {"player": "Red"}))
    assert (race.dragons["Red"].hand, race.dragons["Red"].laid) == (0, True)
    assert race.last_events == (CardLaid(),)
    race = race_of(*ROUND_1, ("lay_card", {"player": "Red"}), *everyone_reveals(), ("next_round", {}))
    assert race.dragons["Red"].laid is False and race.last_events == (LaidCardDiscarded(),)


def test_lay_card_after_the_flight_is_refused() -> None:
    race = race_of(*ROUND_1, ("reveal", {"player": "Red", "speed": 500}))
    with pytest.raises(IllegalMove):
        vt.play(race, "lay_card", {"player": "Red"})


# -- order, rounds, the finish (§5.2, §5.11, Examples 4 and 5) --------------------------------

def test_fly_order_furthest_first_and_judged_again_after_each_flight_example_5() -> None:
    moves = [*ROUND_1, ("progress", {"player": "Red", "progress": 9}), ("progress", {"player": "Blue", "progress": 6}),
             ("progress", {"player": "Green", "progress": 5}), ("progress", {"player": "Yellow", "progress": 2})]
    race = race_of(*moves)
    assert race.order() == ("Red", "Blue", "Green", "Yellow") and race.next_to_fly() == "Red"
    race = race_of(*moves, ("reveal", {"player": "Red", "speed": 300}), ("progress", {"player": "Red", "progress": 1}))
    assert race.order() == ("Red", "Blue", "Green", "Yellow") and race.next_to_fly() == "Blue"
    race = race_of(*moves, ("progress", {"player": "Yellow", "progress": 12}))
    assert race.order() == ("Yellow", "Red", "Blue", "Green")


def test_progress_must_be_whole_track_units() -> None:
    with pytest.raises(InvalidInput) as caught:
        vt.play(vt.new_race(MAGES), "progress", {"player": "Red", "progress": -1})
    assert caught.value.field == "progress"


def test_next_round_waits_for_every_flight() -> None:
    race = race_of(("reveal", {"player": "Red", "speed": 500}))
    with pytest.raises(IllegalMove) as caught:
        vt.play(race, "next_round", {})
    assert "Blue, Green, Yellow" in str(caught.value)
    assert race_of(*ROUND_1).round == 1 and race_of(*ROUND_1).flown == ()


def example_4() -> list[tuple[str, dict[str, Any]]]:
    """Red 2 cm and Blue 5 cm past the line, Green just short, Yellow eliminated earlier."""
    return [("start_card", {"player": "Yellow", "energy": 0, "cards": 0}), *ROUND_1,
            ("lose_energy", {"player": "Yellow", "tokens": 1}), ("lose_energy", {"player": "Yellow", "tokens": 3}),
            ("progress", {"player": "Red", "progress": 40}), ("progress", {"player": "Blue", "progress": 38}),
            ("progress", {"player": "Green", "progress": 39}),
            *everyone_reveals(players=("Red", "Blue", "Green")),
            ("finish", {"past_line_mm": {"Red": 20, "Blue": 50}})]


def test_finish_example_4_blue_wins_red_second_green_third() -> None:
    race = race_of(*example_4())
    assert race.is_over and race.result is not None
    assert race.result.ranking == ("Blue", "Red", "Green") and race.result.winners == ("Blue",)
    assert vt.result_document(race) == {
        "ranking": ["Blue", "Red", "Green"], "winners": ["Blue"], "scores": {"Blue": 3, "Red": 2, "Green": 1,
                                                                             "Yellow": 0},
        "past_line_mm": {"Red": 20.0, "Blue": 50.0}, "eliminated": ["Yellow"], "rounds": 1}


def test_finish_with_nobody_past_the_line_is_refused() -> None:
    with pytest.raises(IllegalMove) as caught:
        vt.play(race_of(*ROUND_1, *everyone_reveals()), "finish", {"past_line_mm": {}})
    assert caught.value.field == "past_line_mm"


def test_finish_before_the_round_is_played_out_is_refused() -> None:
    with pytest.raises(IllegalMove) as caught:
        vt.play(race_of(*ROUND_1), "finish", {"past_line_mm": {"Red": 10}})
    assert caught.value.field == "round"


def test_round_not_played_names_who_has_not_flown_as_data() -> None:
    race = race_of(*ROUND_1, ("reveal", {"player": "Blue", "speed": 500}))
    for kind, what in (("finish", "finish"), ("next_round", "next round")):
        with pytest.raises(vt.RoundNotPlayed) as caught:
            vt.play(race, kind, {"past_line_mm": {"Blue": 10}})
        assert (caught.value.what, caught.value.waiting, caught.value.value) == (what, ("Red", "Green", "Yellow"), 1)
        assert isinstance(caught.value, IllegalMove) and caught.value.field == "round"


def test_finish_with_nobody_past_the_line_is_a_nobody_crossed_error() -> None:
    with pytest.raises(vt.NobodyCrossed) as caught:
        vt.play(race_of(*ROUND_1, *everyone_reveals()), "finish", {"past_line_mm": {}})
    assert caught.value.value == {} and "nobody has crossed" in str(caught.value)


@pytest.mark.parametrize(("past", "field"), [({"Nobody": 5}, "past_line_mm.Nobody"),
                                             ({"Red": -1}, "past_line_mm.Red"),
                                             ({"Red": "far"}, "past_line_mm.Red")])
def test_finish_bad_entries_name_the_dragon(past: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        vt.play(race_of(*ROUND_1, *everyone_reveals()), "finish", {"past_line_mm": past})
    assert caught.value.field == field


def test_nothing_is_played_after_the_finish() -> None:
    with pytest.raises(IllegalMove):
        vt.play(race_of(*example_4()), "progress", {"player": "Red", "progress": 1})


def test_result_document_refused_while_racing() -> None:
    with pytest.raises(IllegalMove):
        vt.result_document(vt.new_race(MAGES))


# -- the fold ---------------------------------------------------------------------------------

def test_play_refuses_an_unknown_move_or_player() -> None:
    with pytest.raises(InvalidInput) as caught:
        vt.play(vt.new_race(MAGES), "volatio.fly", {})
    assert caught.value.field == "kind"
    with pytest.raises(InvalidInput) as caught:
        vt.play(vt.new_race(MAGES), "reveal", {"player": "Nobody", "speed": 500})
    assert caught.value.field == "player"


def test_fold_ignores_other_kinds_and_skips_a_refused_move_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    log = [("other.move", {}, 0.0), ("volatio.crash", {"player": "Red", "part": "path"}, 1.0),
           ("volatio.reveal", {"player": "Red", "speed": 300}, 2.0)]
    with caplog.at_level(logging.WARNING):
        race = vt.fold(MAGES, log)
    assert race.dragons["Red"].silver == 300 and race.dragons["Red"].energy == 2
    assert [r.levelname for r in caplog.records] == ["WARNING"]


def test_fold_without_the_last_move_is_the_race_before_it() -> None:
    """Undo is the log without its last move: the crash's tokens come back."""
    moves = [*ROUND_1, ("reveal", {"player": "Red", "speed": 600})]
    before = race_of(*moves)
    after = race_of(*moves, ("crash", {"player": "Red", "part": "path"}))
    assert after.dragons["Red"].energy == 0 and before.dragons["Red"].energy == 2
    assert before.dragons["Red"].silver == 600


MOVES = st.one_of(
    st.tuples(st.just("reveal"), st.fixed_dictionaries({"player": st.sampled_from(MAGES),
                                                        "speed": st.sampled_from(v.DIAL_SPEEDS)})),
    st.tuples(st.sampled_from(["collision", "energy_field", "draw_card", "lay_card"]),
              st.fixed_dictionaries({"player": st.sampled_from(MAGES)})),
    st.tuples(st.just("crash"), st.fixed_dictionaries({"player": st.sampled_from(MAGES),
                                                       "part": st.sampled_from(["base", "path"])})),
    st.tuples(st.just("lose_energy"), st.fixed_dictionaries({"player": st.sampled_from(MAGES),
                                                             "tokens": st.integers(0, 3)})),
    st.tuples(st.just("progress"), st.fixed_dictionaries({"player": st.sampled_from(MAGES),
                                                          "progress": st.integers(0, 30)})),
    st.tuples(st.just("next_round"), st.just({})),
)


@pytest.mark.slow
@given(moves=st.lists(MOVES, max_size=60))
def test_fold_equals_playing_the_accepted_moves_one_by_one(moves: list[tuple[str, dict[str, Any]]]) -> None:
    race, accepted = vt.new_race(MAGES), []
    for kind, data in moves:
        try:
            race = vt.play(race, kind, data)
        except CompanionError:
            continue
        accepted.append((kind, data))
        for dragon in race.dragons.values():
            assert 0 <= dragon.energy <= v.ENERGY_LIMIT and 0 <= dragon.hand <= v.HAND_LIMIT
        assert sorted(race.order()) == sorted(race.racing)
    assert race_of(*accepted) == race


def test_ranking_points_give_tied_winners_the_first_place() -> None:
    race = race_of(*ROUND_1, *everyone_reveals(), ("finish", {"past_line_mm": {"Red": 30, "Blue": 30}}))
    assert race.result is not None and race.result.winners == ("Blue", "Red")
    assert vt.ranking_points(race) == {"Blue": 4, "Red": 4, "Green": 2, "Yellow": 1}


def test_a_dragon_eliminated_after_its_flight_leaves_the_order() -> None:
    race = race_of(*fatigued_red(), ("reveal", {"player": "Red", "speed": 300}),
                   ("lose_energy", {"player": "Red", "tokens": 3}))
    assert race.order() == ("Blue", "Green", "Yellow") and race.next_to_fly() == "Blue"
