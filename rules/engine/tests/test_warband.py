"""Warband ruleset: the injury chapter of the warband rules, rulings WB-1..WB-6 and the
project rulings WB-P1.. (docs/rulesets/warband.md), with scripted dice so every value
is exact. The injury roll's distribution is checked exactly against icepool."""

import copy
import json
import re
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.engine.dice import Dice, ScriptedGenerator
from rules.engine.interface import ActionBlocked, Context, RuleError
from rules.engine.registry import get_ruleset
from rules.engine.rulesets.warband import (
    DEFAULT_PHASES,
    INJURIES,
    INJURY_CHECK_CHART,
    INJURY_ROLL_TABLE,
    SEVERITY,
    BattleState,
    Recovery,
    Warband,
    battle_next,
    battle_start,
    fall_modifier,
    rout_checks_due,
    rout_threshold,
)

RULES = Warband()
DOCS = Path(__file__).resolve().parents[3] / "docs" / "rulesets" / "warband.md"
SCARS = {
    "dice": "1d6",
    "rows": [
        {"min": 1, "max": 3, "scar": "A jagged scar across the cheek"},
        {"min": 4, "max": 5, "scar": "Limps: -1 move"},
        {"min": 6, "max": 6, "scar": "Lost an eye"},
    ],
}


def make_sheet(**fields):
    sheet = RULES.new_sheet({"warband": "Red Hand"}, Dice(ScriptedGenerator([])))
    sheet.update(fields)
    RULES.validate_sheet(sheet)
    return sheet


def hero(**fields):
    return make_sheet(**{"wounds": 3, "max_wounds": 3, **fields})


def run(sheet, action, params, faces=(), *, tables=None, referee=False):
    """Resolve with scripted faces; every scripted face must be used."""
    generator = ScriptedGenerator(faces)
    context = Context(tables=tables or {}, by_referee=referee)
    result = RULES.resolve(sheet, action, params, Dice(generator), context)
    assert generator.remaining == 0, "the action rolled fewer dice than scripted"
    return result


def check(sheet, attack_roll, attack="melee", modifiers=0):
    params = {"attack_roll": attack_roll, "attack": attack}
    if modifiers:
        params["modifiers"] = modifiers
    return run(sheet, "injury_check", params)


def rolled(result):
    return [(r.label, r.expression, r.dice, r.total) for r in result.rolls]


# -- the ruleset as a whole ----------------------------------------------------------------


def test_registry_serves_the_warband_ruleset():
    ruleset = get_ruleset("warband")
    assert isinstance(ruleset, Warband)
    assert (ruleset.key, ruleset.name) == ("warband", "Warband")


def test_describe_is_json_and_lists_every_action_with_who():
    described = json.loads(json.dumps(RULES.describe()))
    who = {a["key"]: a["who"] for a in described["actions"]}
    assert who == {
        "injury_check": "owner",
        "injury_roll": "owner",
        "fall": "owner",
        "ledge_check": "owner",
        "disengage": "owner",
        "recover": "referee",
        "roll_scars": "referee",
    }
    assert described["options"] == {
        "phases": ["upkeep", "move", "ranged", "melee", "end"],
        "rout_threshold_percent": 50,
    }
    assert described["tables"] == ["scars"]


def test_resolve_never_mutates_the_sheet_it_was_given():
    sheet = hero(wounds=1)
    before = copy.deepcopy(sheet)
    check(sheet, 18)
    run(sheet, "fall", {"height_inches": 5}, [19])
    assert sheet == before


# -- the sheet -----------------------------------------------------------------------------


def test_a_unit_needs_its_warbands_name():
    dice = Dice(ScriptedGenerator([]))
    for initial in ({}, {"warband": ""}, {"warband": "   "}, {"warband": 7}):
        with pytest.raises(RuleError, match="warband"):
            RULES.new_sheet(initial, dice)
    assert RULES.new_sheet({"warband": "  Red Hand "}, dice)["warband"] == "Red Hand"


def test_the_sheets_defaults():
    sheet = RULES.new_sheet(RULES.example_initial, Dice(ScriptedGenerator([])))
    assert sheet == {
        "warband": "The Grey Company",
        "wounds": 1,
        "max_wounds": 1,
        "injury": "none",
        "agility": 10,
        "move": 6,
        "scars": [],
    }


def test_wounds_not_given_start_full_project_ruling_wb_p1():
    dice = Dice(ScriptedGenerator([]))
    assert RULES.new_sheet({"warband": "A", "max_wounds": 3}, dice)["wounds"] == 3
    assert RULES.new_sheet({"warband": "A", "max_wounds": 3, "wounds": 1}, dice)["wounds"] == 1
    with pytest.raises(RuleError, match="more than max_wounds"):
        RULES.new_sheet({"warband": "A", "max_wounds": 2, "wounds": 3}, dice)


@pytest.mark.parametrize(
    ("injury", "status", "move", "means"),
    [
        ("none", "standing", 6, "moves and acts normally"),
        ("staggered", "staggered", 3, "half speed"),
        ("dazed", "dazed", 1, 'only move 1"'),
        ("stunned", "stunned", 0, "cannot act"),
        ("incapacitated", "incapacitated", 0, "off the board"),
    ],
)
def test_the_public_sheet_says_what_the_state_means_now(injury, status, move, means):
    sheet = make_sheet(injury=injury, wounds=0)
    public = RULES.public_sheet(sheet)
    assert RULES.status(sheet) == status
    assert public["move_now"] == move
    assert means in public["injury_means"]
    assert {k: v for k, v in public.items() if k in sheet} == sheet


def test_a_staggered_unit_with_an_odd_move_moves_half_of_it():
    assert RULES.public_sheet(make_sheet(injury="staggered", move=5))["move_now"] == 2.5


# -- the Injury Check chart (rulings WB-1, WB-2) -------------------------------------------


@pytest.mark.parametrize(
    ("attack_roll", "injury"),
    [
        (1, "dazed"),
        (14, "dazed"),
        (15, "stunned"),
        (17, "stunned"),
        (18, "incapacitated"),
        (20, "incapacitated"),
    ],
)
@pytest.mark.parametrize("attack", ["melee", "ranged", "spell"])
def test_injury_check_chart_row_boundaries(attack_roll, injury, attack):
    result = check(make_sheet(), attack_roll, attack)
    assert result.sheet["injury"] == injury
    assert result.sheet["wounds"] == 0
    assert result.rolls == ()  # ruling WB-1: the table rolled the d20, the server rolls none
    assert result.outcome["value"] == attack_roll
    assert result.outcome["table_result"] == injury


@pytest.mark.parametrize(
    ("attack_roll", "modifiers", "value", "injury"),
    [
        (13, 2, 15, "stunned"),  # a modifier crosses the 14/15 row boundary
        (18, -1, 17, "stunned"),  # and the 17/18 one downwards
        (17, 1, 18, "incapacitated"),
        (20, 5, 20, "incapacitated"),  # above 20 reads as 20
        (1, -5, 1, "dazed"),  # below 1 reads as 1
        (3, -20, 1, "dazed"),
    ],
)
def test_injury_check_value_is_clamped_ruling_wb_1(attack_roll, modifiers, value, injury):
    result = check(make_sheet(), attack_roll, modifiers=modifiers)
    assert result.outcome["value"] == value
    assert result.sheet["injury"] == injury
    if value != attack_roll + modifiers:
        assert f"read as {value}" in result.summary


def test_wounds_buffer_on_injury_checks_ruling_wb_2():
    sheet = hero()
    first = check(sheet, 20)
    assert (first.sheet["wounds"], first.sheet["injury"]) == (2, "none")
    assert first.outcome["absorbed"] == "incapacitated"
    assert "wounds 3 -> 2" in first.summary
    second = check(first.sheet, 16, "ranged")
    assert (second.sheet["wounds"], second.sheet["injury"]) == (1, "none")
    third = check(second.sheet, 15, "spell")  # wounds 1: it drops to 0 and the injury applies
    assert (third.sheet["wounds"], third.sheet["injury"]) == (0, "stunned")
    assert "wounds 1 -> 0" in third.summary


def test_a_unit_out_of_wounds_takes_the_injury_directly():
    result = check(make_sheet(wounds=0), 12)
    assert (result.sheet["wounds"], result.sheet["injury"]) == (0, "dazed")


# -- melee against stunned and dazed, ranged never lessening (ruling WB-4) -----------------


@pytest.mark.parametrize("state", ["stunned", "dazed"])
@pytest.mark.parametrize("attack_roll", [1, 14, 20])
def test_melee_against_a_stunned_or_dazed_unit_incapacitates_it(state, attack_roll):
    result = check(make_sheet(injury=state, wounds=0), attack_roll)
    assert result.sheet["injury"] == "incapacitated"
    assert result.rolls == ()  # no check and no roll
    assert "value" not in result.outcome
    assert "incapacitated" in result.summary


def test_melee_incapacitates_a_stunned_unit_even_with_wounds_left_project_ruling_wb_p4():
    result = check(hero(injury="stunned", wounds=2), 3)
    assert (result.sheet["injury"], result.sheet["wounds"]) == ("incapacitated", 0)


def test_melee_on_a_staggered_unit_uses_the_chart():
    result = check(make_sheet(injury="staggered", wounds=0), 5)
    assert result.sheet["injury"] == "dazed"


@pytest.mark.parametrize("attack", ["ranged", "spell"])
@pytest.mark.parametrize(
    ("state", "attack_roll", "after"),
    [
        ("stunned", 1, "stunned"),  # dazed is less severe: nothing happens
        ("stunned", 14, "stunned"),
        ("stunned", 15, "stunned"),  # as severe: nothing changes either
        ("stunned", 18, "incapacitated"),
        ("dazed", 14, "dazed"),
        ("dazed", 15, "stunned"),
        ("staggered", 1, "dazed"),
    ],
)
def test_ranged_and_spell_injuries_never_lessen_ruling_wb_4(attack, state, attack_roll, after):
    sheet = hero(injury=state, wounds=0)
    result = check(sheet, attack_roll, attack)
    assert result.sheet["injury"] == after
    assert result.outcome["changed"] is (after != state)
    if after == state:
        assert result.sheet == sheet
        assert "nothing changes" in result.summary


def test_a_ranged_injury_that_would_lessen_costs_no_wound():
    # An odd sheet the referee made (stunned with a wound left): the check does nothing.
    sheet = hero(injury="stunned", wounds=2)
    assert check(sheet, 3, "ranged").sheet == sheet


def test_an_incapacitated_unit_cannot_be_injured_again():
    sheet = make_sheet(injury="incapacitated", wounds=0)
    for action, params in [
        ("injury_check", {"attack_roll": 20, "attack": "melee"}),
        ("injury_roll", {}),
        ("fall", {"height_inches": 3}),
        ("ledge_check", {"drop_inches": 3}),
    ]:
        with pytest.raises(ActionBlocked, match="incapacitated"):
            run(sheet, action, params)


@pytest.mark.parametrize(
    "params",
    [
        {"attack_roll": 0, "attack": "melee"},
        {"attack_roll": 21, "attack": "melee"},
        {"attack_roll": 10, "attack": "thrown"},
        {"attack_roll": 10},
        {"attack_roll": 10, "attack": "melee", "modifiers": 51},
        {"attack_roll": 10.5, "attack": "melee"},
        {"attack_roll": 10, "attack": "melee", "extra": 1},
    ],
)
def test_bad_injury_check_params_are_refused(params):
    with pytest.raises(RuleError, match="invalid params for injury_check"):
        run(make_sheet(), "injury_check", params)


# -- the Injury Roll table (rulings G-2, WB-2) ---------------------------------------------


@pytest.mark.parametrize(
    ("face", "injury"),
    [
        (1, "none"),
        (11, "none"),
        (12, "dazed"),
        (14, "dazed"),
        (15, "stunned"),
        (17, "stunned"),
        (18, "incapacitated"),
        (20, "incapacitated"),
    ],
)
def test_injury_roll_table_row_boundaries(face, injury):
    result = run(make_sheet(), "injury_roll", {}, [face])
    assert rolled(result) == [("Injury roll", "1d20", (face,), face)]
    assert result.sheet["injury"] == injury
    assert result.outcome["table_result"] == injury
    assert result.sheet["wounds"] == (1 if injury == "none" else 0)


@pytest.mark.parametrize(
    ("face", "modifiers", "injury"),
    [
        (10, 2, "dazed"),  # 12
        (13, 2, "stunned"),  # 15: the text's example
        (19, -2, "stunned"),  # 17
        (20, 5, "incapacitated"),  # 25 reads as 20 (project ruling WB-P3)
        (1, -5, "none"),  # -4 reads as 1
    ],
)
def test_injury_roll_modifiers_and_clamping(face, modifiers, injury):
    result = run(make_sheet(), "injury_roll", {"modifiers": modifiers}, [face])
    assert rolled(result) == [("Injury roll", f"1d20{modifiers:+d}", (face,), face + modifiers)]
    assert result.sheet["injury"] == injury


def test_wounds_buffer_on_injury_rolls_only_injuring_results_cost_a_wound_ruling_wb_2():
    sheet = hero()
    miss = run(sheet, "injury_roll", {}, [11])
    assert miss.sheet == sheet  # no effect: no wound lost
    assert "no effect" in miss.summary
    hit = run(sheet, "injury_roll", {}, [12])
    assert (hit.sheet["wounds"], hit.sheet["injury"]) == (2, "none")
    last = run(hero(wounds=1), "injury_roll", {}, [18])
    assert (last.sheet["wounds"], last.sheet["injury"]) == (0, "incapacitated")


def test_an_injury_roll_never_lessens_an_injury_project_ruling_wb_p2():
    sheet = make_sheet(injury="stunned", wounds=0)
    assert run(sheet, "injury_roll", {}, [13]).sheet == sheet
    assert run(sheet, "injury_roll", {}, [18]).sheet["injury"] == "incapacitated"


# -- falls and ledges (ruling WB-5) --------------------------------------------------------


@pytest.mark.parametrize(
    ("height", "bonus"),
    [(0, 0), (1.5, 0), (2, 0), (2.9, 0), (3, 2), (4.5, 4), (5, 6), (10, 16)],
)
def test_fall_modifier_is_plus_two_per_full_inch_above_two(height, bonus):
    assert fall_modifier(height) == bonus


@pytest.mark.parametrize(
    ("height", "face", "expression", "injury"),
    [
        (2, 14, "1d20", "dazed"),
        (2, 15, "1d20", "stunned"),
        (2.9, 11, "1d20", "none"),
        (3, 10, "1d20+2", "dazed"),  # 12
        (3, 13, "1d20+2", "stunned"),  # 15, the text's example
        (4.5, 11, "1d20+4", "stunned"),  # 15
        (4.5, 14, "1d20+4", "incapacitated"),  # 18
        (10, 1, "1d20+16", "stunned"),  # 17
        (10, 2, "1d20+16", "incapacitated"),  # 18
    ],
)
def test_falls(height, face, expression, injury):
    result = run(make_sheet(), "fall", {"height_inches": height}, [face])
    assert [(r.expression, r.dice) for r in result.rolls] == [(expression, (face,))]
    assert result.sheet["injury"] == injury
    assert result.outcome["fall_modifier"] == fall_modifier(height)
    assert f'falls {height:g}"' in result.summary.lower()


def test_a_fall_adds_its_modifiers_to_the_heights():
    result = run(make_sheet(), "fall", {"height_inches": 3, "modifiers": -3}, [13])
    assert rolled(result)[0][1:] == ("1d20-1", (13,), 12)
    assert result.sheet["injury"] == "dazed"


def test_a_hero_falling_loses_a_wound_instead():
    result = run(hero(), "fall", {"height_inches": 10}, [20])
    assert (result.sheet["wounds"], result.sheet["injury"]) == (2, "none")


def test_negative_heights_are_refused():
    with pytest.raises(RuleError, match="height_inches"):
        run(make_sheet(), "fall", {"height_inches": -1})


@pytest.mark.parametrize("state", ["dazed", "stunned"])
def test_ledge_agility_check_passes_at_the_target_ruling_g_5(state):
    sheet = make_sheet(injury=state, wounds=0, agility=10)
    result = run(sheet, "ledge_check", {"drop_inches": 3}, [10])
    assert result.sheet == sheet
    assert rolled(result) == [("Agility check vs 10", "1d20", (10,), 10)]
    assert result.outcome["passed"] is True
    assert "keeps its footing" in result.summary


def test_ledge_failure_falls_the_drop_in_the_same_resolution():
    sheet = make_sheet(injury="dazed", wounds=0, agility=12)
    result = run(sheet, "ledge_check", {"drop_inches": 4.5}, [11, 14])
    assert rolled(result) == [
        ("Agility check vs 12", "1d20", (11,), 11),
        ('Injury roll for a 4.5" fall', "1d20+4", (14,), 18),
    ]
    assert result.sheet["injury"] == "incapacitated"
    assert result.outcome["passed"] is False
    assert "fails and falls" in result.summary


def test_ledge_modifiers_go_to_the_agility_check_only():
    sheet = make_sheet(injury="stunned", wounds=0, agility=10)
    passed = run(sheet, "ledge_check", {"drop_inches": 2, "modifiers": 2}, [8])
    assert passed.outcome["passed"] is True
    failed = run(sheet, "ledge_check", {"drop_inches": 2, "modifiers": -2}, [11, 17])
    assert rolled(failed)[1][1:] == ("1d20", (17,), 17)
    assert failed.sheet["injury"] == "stunned"  # a stunned result does not lessen it


def test_wb_p10_a_fall_from_a_ledge_with_several_sides_rolls_the_side():
    """The text: "If there are multiple sides that a unit could Fall from, determine which
    side it does so at random" (project ruling WB-P10, issue 26)."""
    sheet = make_sheet(injury="dazed", wounds=0, agility=12)
    result = run(sheet, "ledge_check", {"drop_inches": 3, "sides": 3}, [5, 2, 9])
    assert rolled(result) == [
        ("Agility check vs 12", "1d20", (5,), 5),
        ("Which of 3 sides it falls from", "1d3", (2,), 2),
        ('Injury roll for a 3" fall', "1d20+2", (9,), 11),
    ]
    assert result.outcome["fall_side"] == 2
    assert "from side 2 of 3" in result.summary
    kept = run(sheet, "ledge_check", {"drop_inches": 3, "sides": 3}, [15])
    assert "fall_side" not in kept.outcome  # no fall, no side rolled
    one = run(sheet, "ledge_check", {"drop_inches": 3}, [5, 9])
    assert "fall_side" not in one.outcome  # a single side needs no roll


@pytest.mark.parametrize("state", ["none", "staggered"])
def test_ledge_check_only_for_dazed_or_stunned_units(state):
    with pytest.raises(ActionBlocked, match="Only a dazed or stunned unit"):
        run(make_sheet(injury=state, wounds=0), "ledge_check", {"drop_inches": 3})


def test_a_ledge_needs_a_drop_of_two_inches():
    with pytest.raises(RuleError, match="drop_inches"):
        run(make_sheet(injury="dazed", wounds=0), "ledge_check", {"drop_inches": 1.9})


# -- recovery (ruling WB-3) ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("moment", "before", "after"),
    [
        ("upkeep", "stunned", "dazed"),
        ("upkeep", "dazed", "staggered"),
        ("upkeep", "staggered", None),
        ("upkeep", "none", None),
        ("upkeep", "incapacitated", None),
        ("end", "staggered", "none"),
        ("end", "dazed", None),
        ("end", "stunned", None),
        ("end", "incapacitated", None),
    ],
)
def test_battle_recovery_steps(moment, before, after):
    sheet = hero(injury=before, wounds=0)
    result = RULES.battle_recovery(sheet, moment)
    if after is None:
        assert result is None
        return
    assert result is not None
    assert result.sheet == {**sheet, "injury": after}  # wounds do not come back (WB-P1)
    assert result.rolls == ()
    assert result.outcome == {"moment": moment, "from": before, "injury": after}


def test_recover_after_the_battle():
    result = run(hero(injury="staggered", wounds=0), "recover", {}, referee=True)
    assert (result.sheet["wounds"], result.sheet["injury"]) == (3, "none")
    with pytest.raises(ActionBlocked, match="Scars table"):
        run(hero(injury="incapacitated", wounds=0), "recover", {}, referee=True)


# -- scars (ruling WB-6) -------------------------------------------------------------------


def test_the_scars_table_ships_empty_and_rolling_on_it_is_refused():
    assert RULES.tables["scars"]["rows"] == []
    with pytest.raises(ActionBlocked, match="Scars table is empty: the referee must fill it"):
        run(make_sheet(injury="incapacitated", wounds=0), "roll_scars", {}, referee=True)


def test_roll_scars_adds_the_scar_and_brings_the_unit_back_project_ruling_wb_p5():
    sheet = hero(injury="incapacitated", wounds=0, scars=["Old burn"])
    result = run(sheet, "roll_scars", {}, [5], tables={"scars": SCARS}, referee=True)
    assert rolled(result) == [("Scars table", "1d6", (5,), 5)]
    assert result.sheet["scars"] == ["Old burn", "Limps: -1 move"]
    assert (result.sheet["injury"], result.sheet["wounds"]) == ("none", 3)


def test_only_incapacitated_units_roll_for_scars():
    with pytest.raises(ActionBlocked, match="Only a unit incapacitated"):
        run(make_sheet(), "roll_scars", {}, tables={"scars": SCARS}, referee=True)


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"dice": "1d6", "rows": SCARS["rows"][:2]}, "can roll 6, which no row covers"),
        (
            {"dice": "1d6", "rows": [*SCARS["rows"], {"min": 6, "max": 6, "scar": "Again"}]},
            "6 is in two rows",
        ),
        ({"dice": "1d6", "rows": [{"min": 6, "max": 1, "scar": "Back"}]}, "ends before"),
        ({"dice": "a lot", "rows": []}, "not a dice expression"),
        ({"rows": []}, "dice"),
        ([], "scars table"),
    ],
)
def test_bad_scars_tables_are_refused(table, message):
    with pytest.raises(RuleError, match=message):
        RULES.validate_table("scars", table)


def test_good_scars_tables_are_accepted():
    RULES.validate_table("scars", SCARS)
    RULES.validate_table("scars", {"dice": "2d6", "rows": [{"min": 2, "max": 12, "scar": "X"}]})
    RULES.validate_table("scars", RULES.tables["scars"])


# -- battles: turns, phases, recovery, rout (rulings WB-3, WB-6) ---------------------------


def test_a_battle_starts_on_turn_one_in_the_first_warbands_upkeep():
    assert battle_start(DEFAULT_PHASES) == BattleState(turn=1, active=0, phase="upkeep")


def test_phases_then_the_next_warband_then_the_next_turn():
    state = battle_start(DEFAULT_PHASES)
    seen = []
    for _ in range(3 * len(DEFAULT_PHASES)):
        state, recoveries = battle_next(state, DEFAULT_PHASES, 2)
        seen.append((state.turn, state.active, state.phase, recoveries))
    assert seen[:5] == [
        (1, 0, "move", ()),
        (1, 0, "ranged", ()),
        (1, 0, "melee", ()),
        (1, 0, "end", ()),
        (1, 1, "upkeep", (Recovery(0, "end"), Recovery(1, "upkeep"))),
    ]
    assert seen[9] == (2, 0, "upkeep", (Recovery(1, "end"), Recovery(0, "upkeep")))
    assert seen[14] == (2, 1, "upkeep", (Recovery(0, "end"), Recovery(1, "upkeep")))


def test_recovery_across_whole_turns_of_a_three_warband_battle():
    """Units of three warbands recover only at their own upkeep and end (WB-3)."""
    units = {
        "a": (0, hero(injury="stunned", wounds=0)),
        "b": (1, make_sheet(injury="stunned", wounds=0)),
        "c": (2, make_sheet(injury="dazed", wounds=0)),
        "c2": (2, make_sheet(injury="incapacitated", wounds=0)),
    }
    history = {key: [sheet["injury"]] for key, (_, sheet) in units.items()}
    state = battle_start(DEFAULT_PHASES)
    while state.turn < 3:
        state, recoveries = battle_next(state, DEFAULT_PHASES, 3)
        for recovery in recoveries:
            for key, (warband, sheet) in units.items():
                if warband != recovery.warband:
                    continue
                result = RULES.battle_recovery(sheet, recovery.moment)
                if result is not None:
                    units[key] = (warband, result.sheet)
                    history[key].append(f"t{state.turn}:{recovery.moment}:{result.sheet['injury']}")
    # Warband a (first) was in its turn-1 upkeep already when the battle began: its
    # stunned unit recovers at its turn-2 upkeep, then at its end, then nothing more.
    assert history["a"] == ["stunned", "t2:upkeep:dazed", "t3:upkeep:staggered"]
    assert history["b"] == [
        "stunned",
        "t1:upkeep:dazed",
        "t2:upkeep:staggered",
        "t2:end:none",
    ]
    assert history["c"] == ["dazed", "t1:upkeep:staggered", "t2:end:none"]
    assert history["c2"] == ["incapacitated"]
    assert state == BattleState(turn=3, active=0, phase="upkeep")


def test_custom_phases_and_a_phase_no_longer_listed_project_rulings_wb_p6_wb_p7():
    phases = ("upkeep", "fight", "end")
    RULES.validate_options({"phases": list(phases)})
    state, _ = battle_next(BattleState(1, 0, "upkeep"), phases, 2)
    assert state == BattleState(1, 0, "fight")
    # "melee" was dropped from the options mid-battle: it counts as the last phase
    state, recoveries = battle_next(BattleState(1, 0, "melee"), phases, 2)
    assert state == BattleState(1, 1, "upkeep")
    assert recoveries == (Recovery(0, "end"), Recovery(1, "upkeep"))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"phases": ["move", "end"]}, "must begin with upkeep and finish with end"),
        ({"phases": ["upkeep", "move"]}, "must begin with upkeep and finish with end"),
        ({"phases": ["upkeep"]}, "phases"),
        ({"phases": ["upkeep", "move", "move", "end"]}, "phases"),
        ({"phases": ["upkeep", "Move!", "end"]}, "phases"),
        ({"rout_threshold_percent": 0}, "rout_threshold_percent"),
        ({"rout_threshold_percent": 101}, "rout_threshold_percent"),
    ],
)
def test_bad_battle_options_are_refused(options, message):
    with pytest.raises(RuleError, match=message):
        RULES.validate_options(options)


@pytest.mark.parametrize(
    ("units", "percent", "threshold"),
    [(5, 50, 3), (4, 50, 2), (1, 50, 1), (0, 50, 0), (5, 100, 5), (5, 1, 1), (10, 25, 3)],
)
def test_rout_threshold_is_a_share_of_the_units_rounded_up_ruling_wb_6(units, percent, threshold):
    assert rout_threshold(units, percent) == threshold


def test_rout_checks_are_due_once_the_threshold_is_reached():
    assert not rout_checks_due(5, 2, 50)
    assert rout_checks_due(5, 3, 50)
    assert rout_checks_due(5, 5, 50)
    assert not rout_checks_due(0, 0, 50)  # a warband with no units left on the list
    assert RULES.rout_percent(Context(options={"rout_threshold_percent": 40})) == 40
    assert RULES.rout_percent(Context()) == 50


# -- the injury roll's exact distribution --------------------------------------------------


def engine_distribution(modifiers):
    """Outcome -> probability, by resolving the roll on every face of the d20."""
    counts = Counter(
        run(make_sheet(), "injury_roll", {"modifiers": modifiers}, [face]).sheet["injury"]
        for face in range(1, 21)
    )
    return {injury: Fraction(count, 20) for injury, count in counts.items()}


def icepool_distribution(modifiers):
    """The text's table, written out afresh here, over icepool's d20 + modifiers."""

    def read(total):
        if total <= 11:
            return "none"
        if total <= 14:
            return "dazed"
        if total <= 17:
            return "stunned"
        return "incapacitated"

    die = (icepool.d20 + modifiers).map(read)
    return {str(o): Fraction(q, die.denominator()) for o, q in die.items()}


@pytest.mark.parametrize("modifiers", [-12, -3, 0, 2, 4, 7, 16, 25])
def test_injury_roll_distribution_is_exactly_the_tables(modifiers):
    assert engine_distribution(modifiers) == icepool_distribution(modifiers)


def test_injury_roll_distribution_figures():
    # Unmodified: 11/20 no effect, 3/20 dazed, 3/20 stunned, 3/20 incapacitated; a 10"
    # fall (+16) incapacitates on 2-20.
    assert engine_distribution(0) == {
        "none": Fraction(11, 20),
        "dazed": Fraction(3, 20),
        "stunned": Fraction(3, 20),
        "incapacitated": Fraction(3, 20),
    }
    assert engine_distribution(16) == {
        "stunned": Fraction(1, 20),
        "incapacitated": Fraction(19, 20),
    }


# -- properties ----------------------------------------------------------------------------

_STEPS: st.SearchStrategy[tuple[str, dict[str, Any], list[int]]] = st.one_of(
    st.tuples(
        st.just("injury_check"),
        st.fixed_dictionaries(
            {
                "attack_roll": st.integers(1, 20),
                "attack": st.sampled_from(["melee", "ranged", "spell"]),
                "modifiers": st.integers(-50, 50),
            }
        ),
        st.just([]),
    ),
    st.tuples(
        st.just("injury_roll"),
        st.fixed_dictionaries({"modifiers": st.integers(-50, 50)}),
        st.lists(st.integers(1, 20), min_size=1, max_size=1),
    ),
    st.tuples(
        st.just("fall"),
        st.fixed_dictionaries({"height_inches": st.floats(0, 20)}),
        st.lists(st.integers(1, 20), min_size=1, max_size=1),
    ),
)


@settings(max_examples=200, deadline=None)
@given(max_wounds=st.integers(1, 4), steps=st.lists(_STEPS, max_size=8))
def test_injuries_only_worsen_and_wounds_go_first(max_wounds, steps):
    """Between recoveries a unit's injury never lessens and its wounds never come back;
    it has no injury while it has more than one wound left (WB-2, WB-4, WB-P2)."""
    sheet = make_sheet(max_wounds=max_wounds, wounds=max_wounds)
    for action, params, faces in steps:
        if sheet["injury"] == "incapacitated":
            break
        result = run(sheet, action, params, faces)
        assert SEVERITY[result.sheet["injury"]] >= SEVERITY[sheet["injury"]]
        assert result.sheet["wounds"] <= sheet["wounds"]
        assert result.sheet["wounds"] >= sheet["wounds"] - 1
        if result.sheet["injury"] != "none":
            assert result.sheet["wounds"] == 0
        sheet = result.sheet


# -- the docs print the engine's tables ----------------------------------------------------


def _docs_table(heading):
    text = DOCS.read_text(encoding="utf-8")
    section = text.split(heading, 1)[1]
    rows = re.findall(r"^\| (\d+)-(\d+) +\| ([a-z ]+?) +\|$", section, flags=re.M)
    found = []
    for low, high, word in rows:
        found.append((int(low), int(high), word))
        if int(high) == 20:
            break
    return found


def test_the_docs_print_the_engines_tables():
    words = {"no effect": "none"}
    check_rows = [(r.low, r.high, r.injury) for r in INJURY_CHECK_CHART]
    roll_rows = [(r.low, r.high, r.injury) for r in INJURY_ROLL_TABLE]
    assert [(a, b, words.get(w, w)) for a, b, w in _docs_table("## The Injury Check chart")] == (
        check_rows
    )
    assert [(a, b, words.get(w, w)) for a, b, w in _docs_table("## The Injury Roll table")] == (
        roll_rows
    )
    assert set(INJURIES) >= {row.injury for row in INJURY_ROLL_TABLE}


# -- who may be attacked in melee, who may disengage (project ruling WB-P11, issue 26) ------
def test_wb_p11_a_stunned_unit_cannot_be_attacked_in_melee_while_another_target_exists():
    sheet = make_sheet(injury="stunned", wounds=0)
    params = {"attack_roll": 12, "attack": "melee", "attacker_has_other_target": True}
    with pytest.raises(ActionBlocked, match="A stunned unit cannot be attacked in melee"):
        run(sheet, "injury_check", params)
    alone = run(sheet, "injury_check", {**params, "attacker_has_other_target": False})
    assert alone.sheet["injury"] == "incapacitated"  # no other target: ruling WB-4
    ranged = run(sheet, "injury_check", {**params, "attack": "ranged"})
    assert ranged.sheet["injury"] == "stunned"  # the rule is about melee only
    dazed = run(make_sheet(injury="dazed", wounds=0), "injury_check", params)
    assert dazed.sheet["injury"] == "incapacitated"  # a dazed unit may be picked


def test_wb_p11_a_dazed_unit_disengages_only_when_every_enemy_has_another_target():
    dazed = make_sheet(injury="dazed", wounds=0)
    with pytest.raises(ActionBlocked, match="may disengage only if every enemy"):
        run(dazed, "disengage", {"enemies_have_other_targets": False})
    left = run(dazed, "disengage", {"enemies_have_other_targets": True})
    assert left.outcome == {"disengaged": True, "move_inches": 1}
    assert left.sheet == dazed
    with pytest.raises(ActionBlocked, match="cannot do anything"):
        run(
            make_sheet(injury="stunned", wounds=0),
            "disengage",
            {"enemies_have_other_targets": True},
        )
    with pytest.raises(ActionBlocked, match="Only a dazed unit"):
        run(make_sheet(), "disengage", {"enemies_have_other_targets": True})


def test_wb_p11_the_state_text_says_both_rules():
    from rules.engine.rulesets.warband import INJURY_MEANS

    assert "only if it has no other target that is not stunned or dazed" in INJURY_MEANS["stunned"]
    assert "disengage from melee only if every enemy" in INJURY_MEANS["dazed"]


def test_wb_p12_an_injury_roll_of_no_effect_costs_no_wound():
    """The text: "At any point that a unit would become Injured, it actually loses 1 Wound
    first"; a roll of 1-11 has "no effect": the unit would not become injured, so it keeps
    its wounds (ruling WB-2, project ruling WB-P12, issue 26)."""
    sheet = hero(wounds=3)
    for face in (1, 11):
        result = run(sheet, "injury_roll", {}, [face])
        assert (result.sheet["wounds"], result.sheet["injury"]) == (3, "none")
        assert result.outcome["changed"] is False
    hurt = run(sheet, "injury_roll", {}, [12])
    assert (hurt.sheet["wounds"], hurt.sheet["injury"]) == (2, "none")  # the buffer takes it
