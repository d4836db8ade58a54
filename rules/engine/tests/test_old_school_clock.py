"""Old school on the campaign clock: aging (OS-5), disease (OS-6), starvation and
thirst (OS-7), sleep (OS-8), drink (OS-9), and a year of everything at once.

Effects are applied by the small in-test clock ``Table`` (test_old_school.py): in due
order, each once, including effects scheduled by effects.
"""

from __future__ import annotations

import pytest

from rules.engine.dice import Dice, ScriptedGenerator, SystemGenerator
from rules.engine.interface import RuleError, ScheduledEffect
from rules.engine.rulesets.old_school.data import (
    ABILITIES,
    AGING,
    DAY,
    HOUR,
    WEEK,
    YEAR,
)
from rules.engine.tests.test_old_school import OS, Table, act, apply, context, labels, make_sheet

GRF = "Green River Fever"
NO_SLEEP_TRACKING = {"track_sleep": False}


# -- aging (ruling OS-5) -----------------------------------------------------------------------


def birthday_chain(sheet):
    """The birthday chain of a new character, without its daily sleep windows."""
    return [effect for effect in OS.initial_effects(sheet) if effect.kind == "birthday"]


@pytest.mark.parametrize(
    ("race", "age", "penalty"),
    [
        ("human", 39, None),
        ("human", 40, 0),
        ("human", 41, 0),
        ("human", 49, 0),
        ("human", 50, -2),
        ("human", 59, -2),
        ("human", 60, -4),
        ("human", 90, -4),
        ("halfling", 69, None),
        ("halfling", 70, 0),
        ("halfling", 79, 0),
        ("halfling", 80, -2),
        ("halfling", 99, -2),
        ("halfling", 100, -4),
        ("dwarf", 199, None),
        ("dwarf", 200, 0),
        ("dwarf", 201, None),
        ("dwarf", 204, None),
        ("dwarf", 205, 0),
        ("dwarf", 245, 0),
        ("dwarf", 250, -2),
        ("dwarf", 252, None),
        ("dwarf", 295, -2),
        ("dwarf", 300, -4),
        ("dwarf", 305, -4),
    ],
)
def test_aging_table(race, age, penalty):
    bands = AGING[race]
    assert bands is not None
    assert bands.penalty_at(age) == penalty


def test_elves_do_not_age():
    assert AGING["elf"] is None


def test_a_birthday_at_40_makes_an_aging_save_and_a_failure_costs_a_random_ability_for_good():
    sheet = make_sheet(age=39)
    result = apply(sheet, "birthday", {"n": 1}, [13, 2])
    assert result.sheet["age"] == 40 and result.sheet["birthdays"] == 1
    assert labels(result) == ["save vs paralysis (aging, age 40)", "aging: ability lost at age 40"]
    assert result.rolls[0].expression == "1d20"
    assert (result.sheet["dexterity"], result.sheet["max_dexterity"]) == (9, 9)  # pick 2 of 6
    assert result.effects == (ScheduledEffect("birthday", YEAR, {"n": 2}, "birthday:2"),)
    assert result.summary == (
        "Turns 40; aging save at 40: save vs paralysis 13 vs 14 fails; Dexterity 10 -> 9 "
        "for good (maximum 10 -> 9)."
    )


def test_aging_saves_take_the_age_bands_penalty():
    fifty = apply(make_sheet(age=49), "birthday", {"n": 1}, [16])
    assert fifty.rolls[0].expression == "1d20-2" and fifty.rolls[0].total == 14
    assert fifty.sheet["max_strength"] == 10  # 14 vs 14 passes
    sixty = apply(make_sheet(age=59), "birthday", {"n": 1}, [17, 6])
    assert sixty.rolls[0].expression == "1d20-4"
    assert sixty.sheet["max_charisma"] == 9


def test_a_birthday_before_the_starting_age_makes_no_save():
    result = apply(make_sheet(age=30), "birthday", {"n": 1})
    assert result.rolls == () and result.sheet["age"] == 31
    assert result.summary == "Turns 31."


def test_a_birthday_applied_twice_does_nothing_the_second_time():
    once = apply(make_sheet(age=30), "birthday", {"n": 1})
    twice = apply(once.sheet, "birthday", {"n": 1})
    assert twice.sheet == once.sheet and twice.effects == ()
    assert twice.summary.startswith("Nothing happens")


def test_human_aging_across_the_bands_on_the_clock():
    sheet = make_sheet(age=38)
    table = Table(sheet, ScriptedGenerator([20] * 24))
    table.schedule(birthday_chain(sheet))
    table.advance(25 * YEAR)
    birthdays = table.applied("birthday")
    assert [due for due, _ in birthdays] == [YEAR * k for k in range(1, 26)]
    assert table.sheet["age"] == 63
    saves = [roll for roll in table.dice.rolls]
    assert [roll.label for roll in saves] == [
        f"save vs paralysis (aging, age {age})" for age in range(40, 64)
    ]
    assert [roll.expression for roll in saves] == ["1d20"] * 10 + ["1d20-2"] * 10 + ["1d20-4"] * 4


def test_halfling_aging_starts_at_70():
    sheet = make_sheet(race="halfling", age=68)
    table = Table(sheet, ScriptedGenerator([20] * 33))
    table.schedule(birthday_chain(sheet))
    table.advance(34 * YEAR)
    expressions = [roll.expression for roll in table.dice.rolls]
    assert len(expressions) == 33  # ages 70..102
    assert expressions == ["1d20"] * 10 + ["1d20-2"] * 20 + ["1d20-4"] * 3


def test_dwarves_save_every_five_years_exactly():
    sheet = make_sheet(race="dwarf", age=199)
    table = Table(sheet, ScriptedGenerator([20] * 21))
    table.schedule(birthday_chain(sheet))
    table.advance(102 * YEAR)
    ages = list(range(200, 301, 5))
    assert [roll.label for roll in table.dice.rolls] == [
        f"save vs paralysis (aging, age {age})" for age in ages
    ]
    assert [roll.expression for roll in table.dice.rolls] == (
        ["1d20"] * 10 + ["1d20-2"] * 10 + ["1d20-4"]
    )


def test_elves_never_make_an_aging_save():
    sheet = make_sheet(race="elf", age=990)
    table = Table(sheet, ScriptedGenerator([]))
    table.schedule(birthday_chain(sheet))
    table.advance(20 * YEAR)
    assert table.sheet["age"] == 1010 and table.dice.rolls == []


def test_magical_aging_makes_every_skipped_save_at_once():
    result = act(make_sheet(age=38), "magical_aging", {"years": 15}, [20] * 14)
    assert result.sheet["age"] == 53
    assert [roll.expression for roll in result.rolls] == ["1d20"] * 10 + ["1d20-2"] * 4
    assert result.outcome["aging_saves"] == {"made": 14, "passed": 14}
    assert result.summary == "Ages 15 years by magic (38 -> 53); 14 aging saves: 14 pass, 0 fail."


def test_magical_aging_with_few_saves_says_each_one():
    result = act(make_sheet(age=45), "magical_aging", {"years": 3}, [5, 6, 20, 20])
    assert (result.sheet["charisma"], result.sheet["max_charisma"]) == (9, 9)
    assert result.summary == (
        "Ages 3 years by magic (45 -> 48); aging save at 46: save vs paralysis 5 vs 14 fails; "
        "Charisma 10 -> 9 for good (maximum 10 -> 9); aging save at 47: save vs paralysis 20 vs "
        "14 passes; aging save at 48: save vs paralysis 20 vs 14 passes."
    )


def test_magical_aging_of_a_dwarf_and_the_summary_of_losses():
    faces = [1, 1, 1, 1] + [20] * 10  # two failures at 200 and 205, both on strength
    result = act(make_sheet(race="dwarf", age=195), "magical_aging", {"years": 60}, faces)
    assert len([r for r in result.rolls if r.label.startswith("save")]) == 12  # 200..255
    assert (result.sheet["strength"], result.sheet["max_strength"]) == (8, 8)
    assert result.summary == (
        "Ages 60 years by magic (195 -> 255); 12 aging saves: 10 pass, 2 fail (Strength -2 "
        "for good)."
    )


def test_magical_aging_of_an_elf_rolls_nothing():
    result = act(make_sheet(race="elf", age=100), "magical_aging", {"years": 500})
    assert result.rolls == () and result.sheet["age"] == 600
    assert result.summary == "Ages 500 years by magic (100 -> 600); elves do not age: no saves."


def test_magical_aging_stops_rolling_at_death():
    weak = act(make_sheet(age=39, strength=3), "ability_loss", {"ability": "strength", "amount": 2})
    result = act(weak.sheet, "magical_aging", {"years": 5}, [1, 1])
    assert result.sheet["state"] == "dead" and result.sheet["age"] == 44
    assert len(result.rolls) == 2
    assert "dies (strength 0, OS-1)" in result.summary


# -- disease (ruling OS-6) ---------------------------------------------------------------------


def test_exposure_save_is_hidden_and_a_failure_contracts_in_secret():
    result = act(make_sheet(), "expose_disease", {"disease": GRF}, [11], clock=100)
    roll = result.rolls[0]
    assert roll.hidden is True  # ruling G-4
    assert (roll.label, roll.expression) == (
        "save vs poison (exposure to Green River Fever)",
        "1d20",
    )
    assert result.effects == (
        ScheduledEffect(
            "disease_save", WEEK, {"disease": GRF, "since": 100, "n": 1}, f"disease:{GRF}:1", True
        ),
    )
    (entry,) = result.sheet["diseases"]
    assert entry["hidden"] is True and entry["saves_total"] == 18
    assert OS.public_sheet(result.sheet)["diseases"] == []
    assert "Green River" not in result.summary
    assert result.outcome["referee_only"]["contracted"] is True


def test_a_passed_exposure_save_contracts_nothing():
    result = act(make_sheet(), "expose_disease", {"disease": GRF, "modifier": 1}, [11])
    assert result.rolls[0].expression == "1d20+1" and result.rolls[0].hidden
    assert result.sheet["diseases"] == [] and result.effects == ()
    assert result.outcome["referee_only"]["contracted"] is False


def test_contract_disease_skips_the_exposure_save():
    result = act(make_sheet(), "contract_disease", {"disease": GRF}, clock=0)
    assert result.rolls == ()
    assert result.effects[0].hidden is True
    shown = act(make_sheet(), "contract_disease", {"disease": GRF, "hidden": False}, clock=0)
    assert shown.effects[0].hidden is False
    assert OS.public_sheet(shown.sheet)["diseases"][0]["name"] == GRF
    assert shown.summary == (
        "Contracts Green River Fever: 18 saves vs poison, the first at Day 8, 00:00."
    )


def test_unknown_or_repeated_disease_is_a_rule_error():
    with pytest.raises(RuleError, match="no disease 'Plague'"):
        act(make_sheet(), "contract_disease", {"disease": "Plague"})
    sheet = act(make_sheet(), "contract_disease", {"disease": GRF}).sheet
    with pytest.raises(RuleError, match="already has"):
        act(sheet, "expose_disease", {"disease": GRF})
    with pytest.raises(RuleError, match="does not have"):
        act(make_sheet(), "cure_disease", {"disease": GRF})


def test_green_river_fever_makes_exactly_18_saves_to_the_minute():
    faces = [20] * 18
    for failed in (0, 5, 17):
        faces[failed] = 1
    table = Table(make_sheet(intelligence=12), ScriptedGenerator(faces), clock=500)
    table.act("set_resting", {"resting": True})
    table.act("contract_disease", {"disease": GRF})
    table.advance(30 * DAY)
    saves = table.applied("disease_save")
    first = 500 + WEEK
    assert [due for due, _ in saves] == [first + 4 * HOUR * k for k in range(18)]
    assert saves[-1][0] == first + 68 * HOUR
    assert [key for _, kind, key, _ in table.log if kind == "disease_save"] == [
        f"disease:{GRF}:{n}" for n in range(1, 19)
    ]
    assert [roll.label for roll in table.dice.rolls] == [
        f"save vs poison (Green River Fever, save {n} of 18)" for n in range(1, 19)
    ]
    assert all(roll.expression == "1d20" for roll in table.dice.rolls)  # resting throughout
    assert table.sheet["intelligence"] == 9 and table.sheet["max_intelligence"] == 12
    assert table.sheet["diseases"] == [] and table.queue == []
    assert saves[-1][1].summary.endswith("Green River Fever has run its course (3 failed saves).")


def test_disease_saves_are_at_minus_two_when_not_resting_at_that_moment():
    table = Table(make_sheet(), ScriptedGenerator([20] * 18))
    table.act("contract_disease", {"disease": GRF, "hidden": False})
    table.advance(WEEK + 4 * HOUR)  # saves 1 and 2, not resting
    table.act("set_resting", {"resting": True}, referee=False)
    table.advance(8 * HOUR)  # saves 3 and 4, resting
    table.act("set_resting", {"resting": False}, referee=False)
    table.advance(3 * DAY)
    expressions = [roll.expression for roll in table.dice.rolls]
    assert expressions == ["1d20-2"] * 2 + ["1d20"] * 2 + ["1d20-2"] * 14
    assert "(not resting)" in table.applied("disease_save")[0][1].summary


def test_the_first_disease_save_reveals_a_hidden_disease():
    sheet = act(make_sheet(), "contract_disease", {"disease": GRF}, clock=0).sheet
    result = apply(sheet, "disease_save", {"disease": GRF, "since": 0, "n": 1}, [3], clock=WEEK)
    assert result.rolls[0].hidden is False
    assert OS.public_sheet(result.sheet)["diseases"][0]["saves_made"] == 1
    assert result.sheet["intelligence"] == 9
    assert result.effects == (
        ScheduledEffect(
            "disease_save", 240, {"disease": GRF, "since": 0, "n": 2}, f"disease:{GRF}:2"
        ),
    )


def test_a_cured_disease_cancels_its_next_save_and_a_stray_one_does_nothing():
    sheet = act(make_sheet(), "contract_disease", {"disease": GRF}).sheet
    sheet = apply(sheet, "disease_save", {"disease": GRF, "since": 0, "n": 1}, [20]).sheet
    cured = act(sheet, "cure_disease", {"disease": GRF})
    assert cured.cancel_effects == (f"disease:{GRF}:2",)
    assert cured.sheet["diseases"] == []
    assert cured.summary == "Is cured of Green River Fever; its remaining saves are cancelled."
    stray = apply(cured.sheet, "disease_save", {"disease": GRF, "since": 0, "n": 2})
    assert stray.sheet == cured.sheet
    assert stray.summary == "Nothing happens: the character no longer has Green River Fever."


def test_curing_a_secret_disease_keeps_the_secret():
    sheet = act(make_sheet(), "contract_disease", {"disease": GRF}).sheet
    cured = act(sheet, "cure_disease", {"disease": GRF})
    assert cured.cancel_effects == (f"disease:{GRF}:1",)
    assert "Green River" not in cured.summary
    assert cured.outcome["referee_only"] == {"disease": GRF, "cured": True}


def test_a_disease_save_applied_twice_does_nothing_the_second_time():
    sheet = act(make_sheet(), "contract_disease", {"disease": GRF}).sheet
    once = apply(sheet, "disease_save", {"disease": GRF, "since": 0, "n": 1}, [20])
    twice = apply(once.sheet, "disease_save", {"disease": GRF, "since": 0, "n": 1})
    assert twice.sheet == once.sheet and twice.effects == () and twice.rolls == ()


def test_a_disease_that_kills_stops_its_saves():
    weak = act(make_sheet(intelligence=3), "ability_loss", {"ability": "intelligence", "amount": 1})
    table = Table(weak.sheet, ScriptedGenerator([1, 1]))
    table.act("contract_disease", {"disease": GRF})
    table.advance(30 * DAY)
    assert table.sheet["state"] == "dead"
    assert len(table.applied("disease_save")) == 2
    assert table.queue == []


def test_a_campaign_disease_with_no_incubation_and_damage():
    tables = {
        "diseases": {
            "Gut Rot": {
                "incubation_minutes": 0,
                "interval_minutes": DAY,
                "infection_minutes": 3 * DAY,
                "effect": {"type": "damage", "amount": 2},
            }
        }
    }
    table = Table(make_sheet(max_wounds=9), ScriptedGenerator([1, 20, 1]), tables=tables)
    table.act("contract_disease", {"disease": "Gut Rot", "hidden": False})
    table.advance(10 * DAY)
    assert [due for due, _ in table.applied("disease_save")] == [0, DAY, 2 * DAY]
    assert table.sheet["wounds"] == 5
    with pytest.raises(RuleError, match="no disease"):
        table.act("contract_disease", {"disease": GRF})  # the campaign's table replaces ours


# -- starvation and thirst (ruling OS-7) -------------------------------------------------------


def test_lacking_food_checks_every_24_hours_and_a_failure_costs_a_constitution_point():
    table = Table(make_sheet(), ScriptedGenerator([11, 12, 1]), clock=100)
    result = table.act("set_supplies", {"food": False})
    assert result.effects == (
        ScheduledEffect("starvation_check", DAY, {"since": 100, "n": 1}, "starvation:100:1"),
    )
    table.advance(3 * DAY)
    assert [due for due, _ in table.applied("starvation_check")] == [
        100 + DAY * k for k in (1, 2, 3)
    ]
    assert [roll.label for roll in table.dice.rolls] == [
        f"save vs poison (starvation, day {n})" for n in (1, 2, 3)
    ]
    assert (table.sheet["constitution"], table.sheet["max_constitution"]) == (8, 10)
    assert table.sheet["privation"]["constitution_lost"] == 2
    fed = table.act("set_supplies", {"food": True})
    assert fed.cancel_effects == ("starvation:100:4",)
    assert fed.sheet["conditions"]["starving"] is False
    stray = apply(fed.sheet, "starvation_check", {"since": 100, "n": 4})
    assert stray.sheet == fed.sheet
    assert stray.summary == "Nothing happens: the character has food again."


def test_a_failed_thirst_save_halves_constitution_and_the_third_kills():
    sheet = make_sheet(constitution=13, level=2, max_wounds=12)
    table = Table(sheet, ScriptedGenerator([1, 12, 1, 1]))
    table.act("set_supplies", {"water": False})
    table.advance(DAY)
    # 13 -> 6 (project ruling OS-P5); modifier +1 -> -1 at level 2: wounds -4 (OS-2)
    assert table.sheet["constitution"] == 6 and table.sheet["max_constitution"] == 13
    assert (table.sheet["wounds"], table.sheet["max_wounds"]) == (8, 8)
    assert table.sheet["privation"]["thirst_failures"] == 1
    table.advance(DAY)  # passes
    table.advance(DAY)
    assert table.sheet["constitution"] == 3
    assert (table.sheet["wounds"], table.sheet["max_wounds"]) == (4, 4)
    table.advance(DAY)
    assert table.sheet["state"] == "dead"
    assert table.applied("thirst_check")[-1][1].summary == (
        "Day 4 without water: save vs poison 1 vs 12 fails; dies (third failed save without "
        "water, OS-7)."
    )
    table.advance(10 * DAY)
    assert len(table.applied("thirst_check")) == 4 and table.queue == []


def test_water_restored_resets_the_failed_thirst_saves():
    table = Table(make_sheet(), ScriptedGenerator([1, 1]))
    table.act("set_supplies", {"water": False})
    table.advance(DAY)
    result = table.act("set_supplies", {"water": True})
    assert result.cancel_effects == ("thirst:0:2",)
    assert result.sheet["privation"]["thirst_failures"] == 0  # project ruling OS-P5
    table.act("set_supplies", {"water": False})
    table.advance(DAY)
    assert table.sheet["privation"]["thirst_failures"] == 1
    assert [key for _, kind, key, _ in table.log] == ["thirst:0:1", f"thirst:{DAY}:1"]


def test_constitution_lost_to_thirst_recovers_at_twice_the_rate_once_fed_and_rested():
    sheet = make_sheet(constitution=13)
    sheet = act(sheet, "ability_loss", {"ability": "constitution", "amount": 2}).sheet  # 11
    sheet = act(sheet, "set_supplies", {"water": False}).sheet
    sheet = apply(sheet, "thirst_check", {"since": 0, "n": 1}, [1], clock=DAY).sheet
    assert sheet["constitution"] == 5 and sheet["privation"]["constitution_lost"] == 6
    sheet = act(sheet, "set_supplies", {"water": True}, clock=DAY).sheet
    values = []
    for day in range(1, 6):
        sheet = act(sheet, "day_rest", {}, clock=day * DAY).sheet
        values.append((sheet["constitution"], sheet["privation"]["constitution_lost"]))
    assert values == [(7, 4), (9, 2), (11, 0), (12, 0), (13, 0)]


def test_marking_supplies_twice_changes_nothing():
    sheet = act(make_sheet(), "set_supplies", {"food": False, "water": False}).sheet
    again = act(sheet, "set_supplies", {"food": False, "water": True}, clock=60)
    assert again.effects == () and again.cancel_effects == ("thirst:0:1",)
    assert again.summary == "Still lacks food; has water again."


# -- sleep deprivation (ruling OS-8) -----------------------------------------------------------


def sleepless(sheet, nights=1):
    """The referee marks the character as going without sleep (project ruling OS-P17)."""
    return act(sheet, "go_without_sleep", {"reason": "on_watch", "nights": nights}).sheet


def test_sleep_windows_add_a_cumulative_penalty_until_proper_sleep():
    sheet = sleepless(make_sheet(), 3)
    first = apply(sheet, "sleep_window", {"n": 1}, clock=DAY)
    assert first.sheet["conditions"]["sleep_deprived_days"] == 1
    assert first.sheet["penalties"] == {"rolls": -1, "percentile": -10, "saves": -1}
    assert first.effects == (ScheduledEffect("sleep_window", DAY, {"n": 2}, "sleep_window:2"),)
    second = apply(first.sheet, "sleep_window", {"n": 2}, clock=2 * DAY)
    assert second.sheet["penalties"] == {"rolls": -2, "percentile": -20, "saves": -2}
    save = act(second.sheet, "save", {"category": "spells"}, [18])
    assert save.rolls[0].expression == "1d20-2" and save.outcome["passed"] is False
    nap = act(second.sheet, "sleep", {"hours": 3}, referee=False, clock=2 * DAY)
    assert nap.elapsed_minutes == 3 * HOUR
    assert nap.sheet["conditions"]["sleep_deprived_days"] == 2
    slept = act(nap.sheet, "sleep", {"hours": 1}, referee=False, clock=2 * DAY + 3 * HOUR)
    assert slept.sheet["conditions"]["sleep_deprived_days"] == 0  # corrected at once
    assert slept.summary == "Sleeps 1 hour; sleep deprivation ends."
    closed = apply(slept.sheet, "sleep_window", {"n": 3}, clock=3 * DAY)
    assert closed.sheet["conditions"]["sleep_deprived_days"] == 0
    assert closed.sheet["sleep"] == {"windows": 3, "hours": 0, "periods": [], "without": 0}
    assert closed.summary == "Slept 4 hours in the last 24: rested."


def test_drunk_and_sleep_deprived_penalties_add_up_on_saves():
    sheet = apply(sleepless(make_sheet()), "sleep_window", {"n": 1}).sheet
    sheet = act(sheet, "drink", {}).sheet
    assert sheet["penalties"]["saves"] == -3
    assert act(sheet, "save", {"category": "wands"}, [16]).rolls[0].expression == "1d20-3"


def test_night_rest_is_a_proper_sleep():
    sheet = apply(sleepless(make_sheet()), "sleep_window", {"n": 1}).sheet
    result = act(sheet, "night_rest", {})
    assert result.sheet["conditions"]["sleep_deprived_days"] == 0
    assert result.sheet["sleep"]["hours"] == 8
    day = act(sheet, "day_rest", {})  # project ruling OS-P8
    assert day.sheet["conditions"]["sleep_deprived_days"] == 0
    assert "sleep deprivation ends" in day.summary


def test_sleep_can_be_left_untracked_by_the_campaign():
    result = apply(make_sheet(), "sleep_window", {"n": 1}, options=NO_SLEEP_TRACKING)
    assert result.sheet["conditions"]["sleep_deprived_days"] == 0
    assert result.effects[0].kind == "sleep_window"
    assert result.summary == "Sleep is not tracked in this campaign."


# -- the effects' contract ---------------------------------------------------------------------


def dead_sheet():
    return act(make_sheet(strength=3), "ability_loss", {"ability": "strength", "amount": 3}).sheet


@pytest.mark.parametrize(
    ("kind", "payload"),
    [
        ("birthday", {"n": 1}),
        ("sleep_window", {"n": 1}),
        ("wake_up", {"until": 60}),
        ("sober_up", {"until": 60}),
        ("starvation_check", {"since": 0, "n": 1}),
        ("thirst_check", {"since": 0, "n": 1}),
        ("disease_save", {"disease": GRF, "since": 0, "n": 1}),
    ],
)
def test_every_effect_on_a_dead_character_does_nothing_but_say_so(kind, payload):
    sheet = dead_sheet()
    result = apply(sheet, kind, payload)
    assert result.sheet == sheet and result.effects == () and result.rolls == ()
    assert (
        result.summary.startswith("Nothing happens (") and "the character is dead" in result.summary
    )


@pytest.mark.parametrize(
    ("kind", "payload"),
    [
        ("birthday", {"n": "1"}),
        ("birthday", {}),
        ("wake_up", {"until": 60, "extra": 1}),
        ("disease_save", {"disease": GRF, "n": 1}),
        ("earthquake", {}),
    ],
)
def test_bad_effects_are_rule_errors(kind, payload):
    with pytest.raises(RuleError):
        apply(make_sheet(), kind, payload)


def test_apply_effect_is_deterministic_given_the_dice():
    sheet = act(make_sheet(age=59), "contract_disease", {"disease": GRF}).sheet
    for kind, payload in (
        ("birthday", {"n": 1}),
        ("disease_save", {"disease": GRF, "since": 0, "n": 1}),
    ):
        first = OS.apply_effect(sheet, kind, payload, Dice(SystemGenerator(7)), context(clock=5))
        second = OS.apply_effect(sheet, kind, payload, Dice(SystemGenerator(7)), context(clock=5))
        assert first == second


# -- a year of everything at once --------------------------------------------------------------


def afflicted(seed: int, *, thirst: bool, options=None) -> Table:
    """A character with every condition at once, effects queued on a test clock."""
    sheet = make_sheet(age=59, constitution=14, level=5, max_wounds=30, intelligence=13)
    table = Table(sheet, SystemGenerator(seed), options=options)
    table.schedule(OS.initial_effects(sheet))
    table.act("ability_loss", {"ability": "strength", "amount": 3})
    table.act("drink", {"hours": 12})
    table.act("set_supplies", {"food": False, "water": not thirst})
    table.act("contract_disease", {"disease": GRF})
    table.act("damage", {"amount": 30})  # exactly 0: down and unconscious
    table.act("poison", {"save": False, "effect": {"type": "sleep", "hours": 10}})
    # project ruling OS-P17: no night's sleep all year, as the referee marks it
    table.act("go_without_sleep", {"reason": "forced_march", "nights": 366})
    assert OS.status(table.sheet) == "unconscious"
    return table


def check_invariants(table: Table, start_maxima: dict[str, int], sleep: bool = True) -> None:
    dead_since = None
    keys = [key for _, _, key, _ in table.log]
    assert len(keys) == len(set(keys)), "each effect applies once"
    times = [due for due, _, _, _ in table.log]
    assert times == sorted(times), "effects apply in time order"
    previous = None
    for due, kind, _, result in table.log:
        sheet = result.sheet
        OS.validate_sheet(sheet)
        for ability in ABILITIES:
            assert 0 <= sheet[ability] <= sheet[f"max_{ability}"] <= start_maxima[ability]
        assert sheet["wounds"] <= sheet["max_wounds"]
        assert sheet["privation"]["thirst_failures"] <= 3
        assert all(d["saves_made"] <= d["saves_total"] for d in sheet["diseases"])
        if dead_since is not None:
            assert sheet == previous, "dead stays dead and nothing changes"
            assert result.effects == ()
        if sheet["state"] == "dead" and dead_since is None:
            dead_since = due
            assert result.effects == ()
        if kind == "birthday" and previous is not None and dead_since is None:
            assert sheet["age"] == previous["age"] + 1
        if kind == "sleep_window" and sleep and previous is not None and dead_since is None:
            gained = (
                sheet["conditions"]["sleep_deprived_days"]
                - previous["conditions"]["sleep_deprived_days"]
            )
            assert gained == 1  # nobody sleeps in this scenario
        previous = sheet
    if table.sheet["state"] == "dead":
        assert table.queue == [], "a dead character waits for nothing"


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_a_year_with_every_condition_at_once(seed):
    table = afflicted(seed, thirst=True)
    maxima = {ability: table.sheet[f"max_{ability}"] for ability in ABILITIES}
    table.advance(YEAR)
    check_invariants(table, maxima)
    # lacking water and food with no sleep, nobody survives the year
    assert table.sheet["state"] == "dead"
    assert table.now == YEAR


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_a_year_advanced_in_odd_chunks_is_the_same_year(seed):
    whole = afflicted(seed, thirst=False, options=NO_SLEEP_TRACKING)
    whole.advance(YEAR + 1)
    chunks = afflicted(seed, thirst=False, options=NO_SLEEP_TRACKING)
    for step in (1, 7, 239, 240, DAY - 1, WEEK, 3 * DAY + 17):
        chunks.advance(step)
    chunks.advance(YEAR + 1 - chunks.now)
    assert [(d, k, key) for d, k, key, _ in chunks.log] == [
        (d, k, key) for d, k, key, _ in whole.log
    ]
    assert chunks.sheet == whole.sheet


def test_a_survivor_year_ends_with_every_chain_in_its_place():
    # fed and watered, sleep untracked: the disease, drink, wake-up and the 60th birthday
    table = afflicted(21, thirst=False, options=NO_SLEEP_TRACKING)
    table.act("set_supplies", {"food": True})
    table.act("set_resting", {"resting": True})
    maxima = {ability: table.sheet[f"max_{ability}"] for ability in ABILITIES}
    table.advance(YEAR)
    check_invariants(table, maxima, sleep=False)
    sheet = table.sheet
    assert sheet["state"] == "down"  # still at 0 wounds: nobody rested them
    assert sheet["age"] == 60 and sheet["birthdays"] == 1
    (aging,) = [roll for roll in table.dice.rolls if "aging" in roll.label and "save" in roll.label]
    assert aging.label == "save vs paralysis (aging, age 60)" and aging.expression == "1d20-4"
    assert sheet["diseases"] == [] and len(table.applied("disease_save")) == 18
    assert sheet["conditions"]["drunk"] is False and sheet["conditions"]["unconscious"] is False
    assert sorted(effect.kind for _, _, effect in table.queue) == ["birthday", "sleep_window"]
    assert len(table.applied("wake_up")) == 1  # the 10-hour poison sleep replaced the 1d6
    assert len(table.applied("sober_up")) == 1
    assert len(table.applied("sleep_window")) == 365


def test_os_p20_a_night_of_sleep_across_the_window_leaves_no_penalty_on_waking():
    """A marked night, then 8 hours of sleep from 23:00: 1 hour falls in the closing
    window and 7 in the next, but a sleep of 4 hours or more corrects deprivation when it
    is taken (OS-8, project ruling OS-P20): no penalty on waking at 07:00."""
    table = Table(make_sheet(), ScriptedGenerator([]))
    table.schedule(OS.initial_effects(table.sheet))
    table.act("go_without_sleep", {"reason": "on_watch", "nights": 1})
    table.advance(DAY - HOUR)  # 23:00
    table.act("sleep", {"hours": 8}, referee=False)
    table.advance(8 * HOUR)  # 07:00, waking
    ((_, window),) = table.applied("sleep_window")
    assert table.sheet["conditions"]["sleep_deprived_days"] == 0
    assert table.sheet["penalties"] == {"rolls": 0, "percentile": 0, "saves": 0}
    assert window.summary.startswith("On watch all night, slept only 1 hour ")
    assert "no sleep deprivation" in window.summary


def test_os_p20_a_short_nap_across_the_window_does_not_correct_it():
    table = Table(make_sheet(), ScriptedGenerator([]))
    table.schedule(OS.initial_effects(table.sheet))
    table.act("go_without_sleep", {"reason": "on_watch", "nights": 1})
    table.advance(DAY - HOUR)
    table.act("sleep", {"hours": 3}, referee=False)
    table.advance(3 * HOUR)
    assert table.sheet["conditions"]["sleep_deprived_days"] == 1
