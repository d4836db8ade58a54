"""Hit dice ruleset: every numbered rule of the rule text (6.1-6.12), every ruling
HD-1..HD-9 and the project rulings HD-P1..HD-P12 (docs/rulesets/hit_dice.md), with
scripted dice so each value is exact."""

import copy
import json

import pytest

from rules.engine.dice import Dice, ScriptedGenerator
from rules.engine.interface import (
    ActionBlocked,
    ChoiceOption,
    Context,
    PendingChoice,
    RuleError,
    ScheduledEffect,
)
from rules.engine.registry import get_ruleset
from rules.engine.rulesets.hit_dice import DEFAULT_MINOR_WOUND, MAJOR_WOUND_PLACEHOLDER, HitDice

RULES = HitDice()


def make_sheet(**fields):
    sheet = RULES.default_sheet()
    sheet.update(fields)
    RULES.validate_sheet(sheet)
    return sheet


def make_wound(wound_id, kind="minor", **fields):
    wound = {
        "id": wound_id,
        "kind": kind,
        "description": DEFAULT_MINOR_WOUND if kind == "minor" else "Gut wound",
        "treated": False,
        "ability_losses": {},
        "worsens_every": None,
        "worsen_dc": 20,
        "until_long_rest": kind == "minor",
        "expired": False,
        "cause": "test",
        "received_at": 0,
    }
    wound.update(fields)
    return wound


def run(sheet, action, params, faces=(), *, clock=0, options=None):
    """Resolve with scripted faces; every scripted face must be used."""
    generator = ScriptedGenerator(faces)
    result = RULES.resolve(
        sheet, action, params, Dice(generator), Context(clock=clock, options=options or {})
    )
    assert generator.remaining == 0, "the action rolled fewer dice than scripted"
    return result


def answer(sheet, choice, option, faces=(), *, clock=0):
    generator = ScriptedGenerator(faces)
    result = RULES.choose(sheet, choice, option, Dice(generator), Context(clock=clock))
    assert generator.remaining == 0
    return result


def worsen(sheet, wound_id, faces=(), *, clock=0):
    generator = ScriptedGenerator(faces)
    result = RULES.apply_effect(
        sheet, "wound_worsens", {"wound": wound_id}, Dice(generator), Context(clock=clock)
    )
    assert generator.remaining == 0
    return result


def rolled(result):
    return [(r.label, r.expression, r.dice, r.kept, r.total) for r in result.rolls]


# -- the ruleset as a whole ------------------------------------------------------------


def test_registry_serves_the_hit_dice_ruleset():
    ruleset = get_ruleset("hit_dice")
    assert isinstance(ruleset, HitDice)
    assert (ruleset.key, ruleset.name) == ("hit_dice", "Hit dice")


def test_describe_is_json_and_lists_every_action_with_who():
    described = json.loads(json.dumps(RULES.describe()))
    who = {a["key"]: a["who"] for a in described["actions"]}
    assert who == {
        "damage": "owner",
        "bypass": "referee",
        "short_rest": "owner",
        "long_rest": "owner",
        "treat_wound": "owner",
        "describe_wound": "referee",
        "die_of_wounds": "owner",
        "stand_up": "referee",
    }
    assert described["options"] == {"bypass_hp_per_level": 10}
    assert described["sheet_schema"]["additionalProperties"] is False


def test_resolve_never_mutates_the_sheet_it_was_given():
    sheet = make_sheet(hp=3, wounds=[make_wound(1)])
    before = copy.deepcopy(sheet)
    run(sheet, "damage", {"amount": 7}, [15, 15])
    run(sheet, "treat_wound", {"wound": 1})
    assert sheet == before


def test_public_sheet_hides_nothing():
    sheet = make_sheet(hp=4, wounds=[make_wound(1)])
    assert RULES.public_sheet(sheet) == sheet


# -- HD-1: the sheet -----------------------------------------------------------------------


def test_hd_1_default_sheet_fields_and_defaults():
    sheet = RULES.default_sheet()
    assert sheet == {
        "level": 1,
        "hit_dice": 1,
        "hp": 0,
        "fatigue": 0,
        "major_wound_marks": 0,
        "strength_save": 10,
        "will_save": 10,
        "wounds": [],
        "state": "standing",
    }
    RULES.validate_sheet(sheet)
    props = RULES.sheet_schema["properties"]
    assert props["strength_save"]["default"] == 10
    assert props["will_save"]["default"] == 10
    assert props["level"]["minimum"] == 1 and props["level"]["maximum"] == 20
    assert props["hp"]["minimum"] == 0


@pytest.mark.parametrize(
    "change",
    [
        {"level": 0},
        {"level": 21},
        {"level": "3"},
        {"hit_dice": 0},
        {"hp": -1},
        {"fatigue": -1},
        {"major_wound_marks": -1},
        {"strength_save": 51},
        {"state": "sleeping"},
        {"nickname": "Aldo"},
        {"wounds": [{"id": 1, "kind": "minor"}]},
        {"wounds": [make_wound(1, kind="fatal")]},
        {"wounds": [make_wound(1, ability_losses={"strength": 0})]},
        {"wounds": [make_wound(1, ability_losses={"Strength!": 2})]},
        {"wounds": [make_wound(1, worsens_every=0)]},
        {"wounds": [make_wound(1), make_wound(1)]},
    ],
)
def test_hd_1_sheet_schema_rejects_bad_sheets(change):
    sheet = RULES.default_sheet()
    sheet.update(change)
    with pytest.raises(RuleError, match="invalid sheet"):
        RULES.validate_sheet(sheet)


def test_hd_1_missing_field_is_rejected():
    sheet = RULES.default_sheet()
    del sheet["fatigue"]
    with pytest.raises(RuleError, match="fatigue"):
        RULES.validate_sheet(sheet)


# -- 6.1 / 6.2 / HD-P7: hit dice and a new character --------------------------------------


def test_6_1_x_hit_dice_means_hp_after_a_rest_is_xd6():
    result = run(make_sheet(level=3, hit_dice=3, hp=1), "long_rest", {}, [2, 5, 6])
    assert rolled(result) == [("Night's sleep hp re-roll (3 HD)", "3d6", (2, 5, 6), (2, 5, 6), 13)]
    assert result.sheet["hp"] == 13


def test_6_2_player_characters_have_one_hit_die_per_level_hd_p7_hp_rolled():
    dice = Dice(ScriptedGenerator([4, 1, 6]))
    sheet = RULES.new_sheet({"level": 3}, dice)
    assert sheet["hit_dice"] == 3
    assert sheet["hp"] == 11
    assert [(r.label, r.expression, r.total) for r in dice.rolls] == [("Starting hp", "3d6", 11)]


def test_hd_1_npc_hit_dice_are_set_freely_and_given_hp_is_kept():
    dice = Dice(ScriptedGenerator([]))
    sheet = RULES.new_sheet({"level": 1, "hit_dice": 5, "hp": 12, "will_save": 4}, dice)
    assert (sheet["hit_dice"], sheet["hp"], sheet["will_save"]) == (5, 12, 4)
    assert dice.rolls == []


def test_new_sheet_rejects_bad_initial_fields_before_rolling():
    dice = Dice(ScriptedGenerator([]))
    with pytest.raises(RuleError, match="level"):
        RULES.new_sheet({"level": 40}, dice)
    with pytest.raises(RuleError, match="unexpected"):
        RULES.new_sheet({"level": 2, "charisma": 5}, dice)


# -- 6.3 / HD-4: hp absorbs damage ---------------------------------------------------------


def test_6_3_damage_within_hp_is_no_injury():
    result = run(make_sheet(hp=8), "damage", {"amount": 5})
    assert result.sheet["hp"] == 3
    assert result.sheet["wounds"] == []
    assert result.rolls == ()
    assert result.pending_choice is None
    assert result.summary == "Takes 5 damage: 5 absorbed by hp (8 -> 3), no overflow and no injury."
    assert result.outcome == {"amount": 5, "absorbed": 5, "overflow": 0, "hp": 3}


def test_hd_4_damage_equal_to_hp_leaves_zero_and_no_saves():
    result = run(make_sheet(hp=6), "damage", {"amount": 6})
    assert result.sheet["hp"] == 0
    assert result.rolls == ()


def test_hd_4_one_point_of_overflow_means_dc_21():
    result = run(make_sheet(hp=6), "damage", {"amount": 7}, [11, 11])
    assert result.outcome["overflow"] == 1
    assert [r.label for r in result.rolls] == [
        "Strength injury save vs DC 21",
        "Will injury save vs DC 21",
    ]
    assert result.sheet["hp"] == 0


def test_hd_4_damage_at_zero_hp_overflows_entirely():
    result = run(make_sheet(hp=0), "damage", {"amount": 3}, [13, 13])
    assert result.outcome["absorbed"] == 0
    assert result.outcome["overflow"] == 3
    assert result.outcome["dc"] == 23


# -- 6.4 / 6.5 / HD-2: short rest ----------------------------------------------------------


def test_6_4_hd_2_short_rest_reroll_replaces_hp_even_when_lower():
    result = run(make_sheet(level=2, hit_dice=2, hp=11), "short_rest", {"reroll": True}, [1, 1])
    assert rolled(result) == [("Short rest hp re-roll (2 HD, 0 fatigue)", "2d6", (1, 1), (1, 1), 2)]
    assert result.sheet["hp"] == 2
    assert result.sheet["fatigue"] == 1
    assert result.elapsed_minutes == 10
    assert result.summary == "Short rest: hp re-rolled 2d6 = 2, hp 11 -> 2; fatigue 0 -> 1."


def test_6_4_hd_2_short_rest_without_reroll_keeps_hp_and_gains_no_fatigue():
    result = run(make_sheet(level=2, hit_dice=2, hp=3, fatigue=1), "short_rest", {"reroll": False})
    assert result.rolls == ()
    assert (result.sheet["hp"], result.sheet["fatigue"]) == (3, 1)
    assert result.elapsed_minutes == 10
    assert result.summary == "Short rest without re-rolling: hp stays 3, fatigue stays 1."


def test_6_5_text_example_third_short_rest_rolls_4d6_dropping_the_two_highest():
    sheet = make_sheet(level=2, hit_dice=2, hp=5, fatigue=2)
    result = run(sheet, "short_rest", {"reroll": True}, [6, 2, 5, 1])
    assert rolled(result) == [
        ("Short rest hp re-roll (2 HD, 2 fatigue)", "4d6kl2", (6, 2, 5, 1), (1, 2), 3)
    ]
    assert result.sheet["hp"] == 3
    assert result.sheet["fatigue"] == 3
    assert result.summary == (
        "Short rest: hp re-rolled 4d6kl2 = 3 (rolled [6, 2, 5, 1], kept the lowest [1, 2]), "
        "hp 5 -> 3; fatigue 2 -> 3."
    )


def test_hd_2_each_fatigue_point_adds_one_disadvantage_die():
    sheet = make_sheet(level=2, hit_dice=2, hp=5)
    first = run(sheet, "short_rest", {"reroll": True}, [3, 4])
    second = run(first.sheet, "short_rest", {"reroll": True}, [6, 5, 4])
    third = run(second.sheet, "short_rest", {"reroll": True}, [6, 6, 6, 6])
    assert [r.expression for r in (*first.rolls, *second.rolls, *third.rolls)] == [
        "2d6",
        "3d6kl2",
        "4d6kl2",
    ]
    assert [x.sheet["hp"] for x in (first, second, third)] == [7, 9, 12]
    assert third.sheet["fatigue"] == 3


def test_short_rest_at_maximum_fatigue_is_refused():
    with pytest.raises(RuleError, match="sleep first"):
        run(make_sheet(fatigue=100), "short_rest", {"reroll": True})


# -- 6.5 / HD-3 / HD-6: night's sleep ------------------------------------------------------


def test_6_5_hd_3_long_rest_resets_fatigue_then_rerolls_without_disadvantage():
    sheet = make_sheet(level=2, hit_dice=2, hp=1, fatigue=3)
    result = run(sheet, "long_rest", {}, [6, 5])
    assert rolled(result) == [("Night's sleep hp re-roll (2 HD)", "2d6", (6, 5), (6, 5), 11)]
    assert (result.sheet["hp"], result.sheet["fatigue"]) == (11, 0)
    assert result.elapsed_minutes == 480
    assert result.summary == "Night's sleep: fatigue 3 -> 0; hp re-rolled 2d6 = 11, hp 1 -> 11."
    assert result.outcome == {
        "hp": 11,
        "fatigue": 0,
        "penalties_ended": [],
        "infection_risk": [],
    }


def test_hd_3_long_rest_reroll_is_mandatory_even_when_lower():
    result = run(make_sheet(level=2, hit_dice=2, hp=12), "long_rest", {}, [1, 2])
    assert result.sheet["hp"] == 3


def test_hd_3_hd_6_long_rest_ends_minor_penalties_and_lists_infection_risk():
    wounds = [
        make_wound(1),
        make_wound(2, treated=True),
        make_wound(3, kind="major", worsens_every=None),
        make_wound(4, expired=True),
    ]
    sheet = make_sheet(level=2, hit_dice=2, hp=4, wounds=wounds)
    result = run(sheet, "long_rest", {}, [3, 3])
    by_id = {w["id"]: w for w in result.sheet["wounds"]}
    assert [by_id[i]["expired"] for i in (1, 2, 3, 4)] == [True, True, False, True]
    assert result.outcome["penalties_ended"] == [1, 2]
    assert result.outcome["infection_risk"] == [1, 4]
    assert result.summary == (
        "Night's sleep: fatigue 0 -> 0; hp re-rolled 2d6 = 6, hp 4 -> 6; the penalties "
        "'until the next long rest' of wounds 1, 2 end; untreated minor wounds at risk of "
        f"infection: wound 1 ({DEFAULT_MINOR_WOUND}), wound 4 ({DEFAULT_MINOR_WOUND})."
    )


# -- 6.6 / 6.7 / 6.8 / HD-4: injury saves --------------------------------------------------


def test_6_6_overflow_triggers_both_saves_at_dc_20_plus_overflow():
    sheet = make_sheet(level=2, hit_dice=2, hp=3, strength_save=10, will_save=7)
    result = run(sheet, "damage", {"amount": 8}, [15, 18])
    assert rolled(result) == [
        ("Strength injury save vs DC 25", "1d20+10", (15,), (15,), 25),
        ("Will injury save vs DC 25", "1d20+7", (18,), (18,), 25),
    ]
    assert result.outcome["dc"] == 25


def test_g_5_a_save_passes_on_exactly_the_dc_and_fails_one_below():
    sheet = make_sheet(hp=0)
    passed = run(sheet, "damage", {"amount": 4}, [14, 13])  # DC 24: 24 passes, 23 fails
    assert passed.outcome["strength_save"] == "pass"
    assert passed.outcome["will_save"] == "fail"


def test_g_5_no_automatic_success_on_a_natural_20():
    sheet = make_sheet(hp=0, strength_save=0, will_save=0)
    result = run(sheet, "damage", {"amount": 5}, [20, 20])  # DC 25
    assert result.outcome["strength_save"] == "fail"
    assert result.outcome["will_save"] == "fail"


def test_negative_save_modifiers_are_rolled_as_such():
    sheet = make_sheet(hp=0, strength_save=-2, will_save=0)
    result = run(sheet, "damage", {"amount": 1}, [20, 20])
    assert [r.expression for r in result.rolls] == ["1d20-2", "1d20"]
    assert [r.total for r in result.rolls] == [18, 20]


def test_6_7_passing_the_strength_save_gives_a_minor_wound():
    sheet = make_sheet(level=2, hit_dice=2, hp=3)
    result = run(sheet, "damage", {"amount": 7}, [14, 16], clock=95)
    assert result.pending_choice is None
    assert result.sheet["wounds"] == [
        {
            "id": 1,
            "kind": "minor",
            "description": DEFAULT_MINOR_WOUND,
            "treated": False,
            "ability_losses": {},
            "worsens_every": None,
            "worsen_dc": 20,
            "until_long_rest": True,
            "expired": False,
            "cause": "7 damage, overflow 4",
            "received_at": 95,
        }
    ]
    assert result.sheet["state"] == "standing"
    assert result.summary == (
        "Takes 7 damage: 3 absorbed by hp (3 -> 0), overflow 4; strength injury save "
        "14+10=24 vs DC 24 passes; will injury save 16+10=26 vs DC 24 passes; minor wound 1: "
        f"{DEFAULT_MINOR_WOUND}."
    )


def test_6_7_g_3_failing_the_strength_save_asks_death_or_major_wound():
    sheet = make_sheet(level=2, hit_dice=2, hp=3)
    result = run(sheet, "damage", {"amount": 7}, [9, 15])
    assert result.pending_choice == PendingChoice(
        kind="death_or_major_wound",
        prompt="The strength injury save vs DC 24 failed: die outright, or take a major wound?",
        options=(
            ChoiceOption(
                "major_wound",
                "Take a major wound (major wound mark 1; at 2 marks a failed strength injury "
                "save kills)",
            ),
            ChoiceOption(
                "death",
                "Die outright",
                "Die outright? Only the referee's undo brings the character back.",
            ),
        ),
        state={"dc": 24, "cause": "7 damage, overflow 4"},
        who="owner",
    )
    assert result.sheet["wounds"] == []
    assert result.sheet["state"] == "standing"
    assert result.summary == (
        "Takes 7 damage: 3 absorbed by hp (3 -> 0), overflow 4; strength injury save "
        "9+10=19 vs DC 24 fails; will injury save 15+10=25 vs DC 24 passes; the player must "
        "choose death or a major wound."
    )
    # The stored choice survives a JSON round trip (the Django side stores it).
    stored = PendingChoice.from_dict(json.loads(json.dumps(result.pending_choice.as_dict())))
    assert stored == result.pending_choice


def test_6_7_6_11_choosing_a_major_wound_adds_it_and_a_mark():
    sheet = make_sheet(level=2, hit_dice=2, hp=3)
    hurt = run(sheet, "damage", {"amount": 7}, [9, 15])
    result = answer(hurt.sheet, hurt.pending_choice, "major_wound", clock=200)
    assert result.sheet["major_wound_marks"] == 1
    assert result.sheet["wounds"] == [
        {
            "id": 1,
            "kind": "major",
            "description": MAJOR_WOUND_PLACEHOLDER,
            "treated": False,
            "ability_losses": {},
            "worsens_every": None,
            "worsen_dc": 20,
            "until_long_rest": False,
            "expired": False,
            "cause": "7 damage, overflow 4",
            "received_at": 200,
        }
    ]
    assert result.sheet["state"] == "standing"
    assert result.rolls == ()
    assert result.outcome == {"major_wound": 1, "major_wound_marks": 1, "needs_description": True}
    assert result.summary == (
        "Chooses a major wound: wound 1, major wound mark 1 at level 2; the referee describes it."
    )


def test_6_7_choosing_death_kills():
    hurt = run(make_sheet(level=2, hit_dice=2, hp=3), "damage", {"amount": 7}, [9, 15])
    result = answer(hurt.sheet, hurt.pending_choice, "death")
    assert result.sheet["state"] == "dead"
    assert RULES.status(result.sheet) == "dead"
    assert result.sheet["major_wound_marks"] == 0
    assert result.summary == "Chooses death: the character dies of the failed strength injury save."


def test_6_8_failing_the_will_save_collapses():
    result = run(make_sheet(hp=0), "damage", {"amount": 2}, [15, 3])
    assert result.sheet["state"] == "collapsed"
    assert RULES.status(result.sheet) == "collapsed"
    assert result.outcome["collapsed"] is True
    assert result.summary.endswith("collapses.")


def test_6_8_hd_4_giving_up_fails_the_will_save_without_rolling_it():
    result = run(make_sheet(hp=0), "damage", {"amount": 2, "give_up": True}, [15])
    assert [r.label for r in result.rolls] == ["Strength injury save vs DC 22"]
    assert result.sheet["state"] == "collapsed"
    assert result.outcome["will_save"] == "given_up"
    assert result.summary == (
        "Takes 2 damage: 0 absorbed by hp (0 -> 0), overflow 2; strength injury save "
        "15+10=25 vs DC 22 passes; gives up, failing the will injury save on purpose; "
        f"minor wound 1: {DEFAULT_MINOR_WOUND}; collapses."
    )


def test_hd_p3_giving_up_without_overflow_changes_nothing():
    result = run(make_sheet(hp=9), "damage", {"amount": 2, "give_up": True})
    assert result.sheet["state"] == "standing"
    assert result.rolls == ()
    assert result.summary == (
        "Takes 2 damage: 2 absorbed by hp (9 -> 7), no overflow and no injury; there is no "
        "injury save to give up on."
    )


def test_strength_fail_and_will_fail_collapse_while_the_choice_waits():
    result = run(make_sheet(level=3, hit_dice=3, hp=0), "damage", {"amount": 5}, [2, 2])
    assert result.sheet["state"] == "collapsed"
    assert result.pending_choice.kind == "death_or_major_wound"


# -- 6.9 / HD-6: minor wounds --------------------------------------------------------------


def test_6_9_hd_6_referee_may_describe_another_minor_wound():
    sheet = make_sheet(hp=0, wounds=[make_wound(1)])
    result = run(
        sheet,
        "describe_wound",
        {"wound": 1, "description": "Sprained wrist: -1 to attacks for a week"},
    )
    wound = result.sheet["wounds"][0]
    assert wound["description"] == "Sprained wrist: -1 to attacks for a week"
    assert wound["until_long_rest"] is True
    assert result.effects == ()
    assert result.summary == ("Wound 1 (minor) is now: Sprained wrist: -1 to attacks for a week.")


def test_hd_6_describe_can_say_the_penalty_outlasts_a_long_rest():
    sheet = make_sheet(hp=0, wounds=[make_wound(1)])
    described = run(
        sheet,
        "describe_wound",
        {"wound": 1, "description": "Broken finger", "until_long_rest": False},
    )
    slept = run(described.sheet, "long_rest", {}, [4])
    assert slept.sheet["wounds"][0]["expired"] is False
    assert slept.outcome["penalties_ended"] == []
    assert slept.outcome["infection_risk"] == [1]


def test_hd_6_treating_a_minor_wound_ends_its_infection_risk():
    sheet = make_sheet(hp=0, wounds=[make_wound(1), make_wound(2)])
    treated = run(sheet, "treat_wound", {"wound": 2})
    assert [w["treated"] for w in treated.sheet["wounds"]] == [False, True]
    assert treated.cancel_effects == ()
    assert treated.summary == (
        f"Wound 2 ({DEFAULT_MINOR_WOUND}) is treated; it is no longer at risk of infection."
    )
    slept = run(treated.sheet, "long_rest", {}, [2])
    assert slept.outcome["infection_risk"] == [1]


def test_hd_p8_treating_does_not_end_the_penalty_and_cannot_be_repeated():
    sheet = make_sheet(hp=0, wounds=[make_wound(1)])
    treated = run(sheet, "treat_wound", {"wound": 1})
    assert treated.sheet["wounds"][0]["expired"] is False
    assert treated.elapsed_minutes == 0
    with pytest.raises(RuleError, match="already treated"):
        run(treated.sheet, "treat_wound", {"wound": 1})


def test_treating_a_missing_wound_is_refused():
    with pytest.raises(RuleError, match="no wound 3"):
        run(make_sheet(wounds=[make_wound(1)]), "treat_wound", {"wound": 3})


# -- 6.10 / HD-7: major wounds and worsening -----------------------------------------------


def major_sheet(**fields):
    base = {
        "level": 3,
        "hit_dice": 3,
        "hp": 0,
        "major_wound_marks": 1,
        "wounds": [make_wound(1, kind="major", description=MAJOR_WOUND_PLACEHOLDER)],
    }
    base.update(fields)
    return make_sheet(**base)


def test_6_10_hd_7_describing_a_worsening_major_wound_schedules_the_worsening():
    result = run(
        major_sheet(),
        "describe_wound",
        {
            "wound": 1,
            "description": "Deep gash in the thigh, bleeding",
            "ability_losses": {"dexterity": 3},
            "worsens_every": 60,
            "worsen_dc": 25,
        },
    )
    wound = result.sheet["wounds"][0]
    assert wound["description"] == "Deep gash in the thigh, bleeding"
    assert wound["ability_losses"] == {"dexterity": 3}
    assert (wound["worsens_every"], wound["worsen_dc"]) == (60, 25)
    assert result.effects == (
        ScheduledEffect(
            kind="wound_worsens", due_in=60, payload={"wound": 1}, key="wound:1:worsens"
        ),
    )
    assert result.cancel_effects == ()
    assert result.summary == (
        "Wound 1 (major) is now: Deep gash in the thigh, bleeding; ability losses -3 dexterity; "
        "it worsens every 60 minutes unless treated (injury saves at DC 25); first worsening "
        "in 60 minutes."
    )


def test_hd_7_worsen_dc_defaults_to_20():
    result = run(
        major_sheet(),
        "describe_wound",
        {"wound": 1, "description": "Bleeding", "worsens_every": 30},
    )
    assert result.sheet["wounds"][0]["worsen_dc"] == 20


def worsening_sheet(dc=25, every=60, **fields):
    return major_sheet(
        wounds=[
            make_wound(1, kind="major", description="Bleeding", worsens_every=every, worsen_dc=dc)
        ],
        **fields,
    )


def test_hd_7_worsening_makes_a_new_pair_of_saves_and_schedules_the_next():
    result = worsen(worsening_sheet(), 1, [16, 12], clock=60)
    assert rolled(result) == [
        ("Strength injury save vs DC 25", "1d20+10", (16,), (16,), 26),
        ("Will injury save vs DC 25", "1d20+10", (12,), (12,), 22),
    ]
    assert result.effects == (
        ScheduledEffect(
            kind="wound_worsens", due_in=60, payload={"wound": 1}, key="wound:1:worsens"
        ),
    )
    # project ruling HD-P4: the usual consequences of 6.7 and 6.8
    assert result.sheet["state"] == "collapsed"
    new = result.sheet["wounds"][1]
    assert (new["id"], new["kind"], new["cause"], new["received_at"]) == (
        2,
        "minor",
        "wound 1 worsening",
        60,
    )
    assert new["description"] == (
        "Wound 1 worsened: -2 to heavy physical tasks until the next long rest"
    )
    assert result.summary == (
        "Wound 1 worsens: strength injury save 16+10=26 vs DC 25 passes; will injury save "
        "12+10=22 vs DC 25 fails; minor wound 2: Wound 1 worsened: -2 to heavy physical tasks "
        "until the next long rest; collapses; it worsens again in 60 minutes unless treated."
    )
    assert result.outcome["worsened"] is True


def test_hd_7_worsening_can_end_in_the_death_or_major_wound_choice():
    result = worsen(worsening_sheet(), 1, [3, 19])
    assert result.pending_choice.kind == "death_or_major_wound"
    assert result.pending_choice.state == {"dc": 25, "cause": "wound 1 worsening"}
    assert result.effects[0].key == "wound:1:worsens"
    taken = answer(result.sheet, result.pending_choice, "major_wound")
    assert taken.sheet["major_wound_marks"] == 2
    assert taken.sheet["wounds"][1]["cause"] == "wound 1 worsening"
    died = answer(result.sheet, result.pending_choice, "death")
    assert died.cancel_effects == ("wound:1:worsens",)


def test_hd_7_hd_5_worsening_kills_when_marks_reach_level():
    sheet = worsening_sheet(major_wound_marks=3)
    result = worsen(sheet, 1, [3, 19])
    assert result.sheet["state"] == "dead"
    assert result.pending_choice is None
    assert result.effects == ()
    assert result.cancel_effects == ("wound:1:worsens",)


def test_hd_7_treating_a_worsening_wound_cancels_its_effect():
    result = run(worsening_sheet(), "treat_wound", {"wound": 1})
    assert result.cancel_effects == ("wound:1:worsens",)
    assert result.sheet["wounds"][0]["treated"] is True
    assert result.summary == "Wound 1 (Bleeding) is treated; it stops worsening."


def test_hd_7_an_effect_for_a_treated_wound_does_nothing_but_say_so():
    sheet = worsening_sheet()
    sheet["wounds"][0]["treated"] = True
    result = worsen(sheet, 1)
    assert result.sheet == sheet
    assert result.rolls == ()
    assert result.effects == ()
    assert result.summary == "Wound 1 was treated and no longer worsens."


def test_worsening_effect_for_a_dead_character_does_nothing():
    sheet = worsening_sheet(state="dead")
    result = worsen(sheet, 1)
    assert result.sheet == sheet
    assert result.effects == ()
    assert result.summary == "Wound 1 does not worsen: the character is dead."


def test_hd_p5_worsening_effect_after_the_period_was_removed_does_nothing():
    sheet = worsening_sheet()
    sheet["wounds"][0]["worsens_every"] = None
    result = worsen(sheet, 1)
    assert result.summary == "Wound 1 no longer worsens."
    assert result.effects == ()


def test_hd_p5_redescribing_with_the_same_period_keeps_the_schedule():
    result = run(
        worsening_sheet(),
        "describe_wound",
        {"wound": 1, "description": "Bleeding badly", "worsens_every": 60, "worsen_dc": 25},
    )
    assert (result.effects, result.cancel_effects) == ((), ())


def test_hd_p5_changing_the_period_cancels_and_reschedules():
    result = run(
        worsening_sheet(),
        "describe_wound",
        {"wound": 1, "description": "Bleeding", "worsens_every": 30},
    )
    assert result.cancel_effects == ("wound:1:worsens",)
    assert result.effects == (
        ScheduledEffect(
            kind="wound_worsens", due_in=30, payload={"wound": 1}, key="wound:1:worsens"
        ),
    )


def test_hd_p5_removing_the_period_cancels_the_worsening():
    result = run(worsening_sheet(), "describe_wound", {"wound": 1, "description": "Bandaged"})
    assert result.cancel_effects == ("wound:1:worsens",)
    assert result.effects == ()
    assert result.sheet["wounds"][0]["worsens_every"] is None
    assert result.summary.endswith("it no longer worsens.")


def test_hd_p5_a_treated_wound_given_a_period_is_not_scheduled():
    sheet = major_sheet()
    sheet["wounds"][0]["treated"] = True
    result = run(
        sheet, "describe_wound", {"wound": 1, "description": "Stitched", "worsens_every": 60}
    )
    assert result.effects == ()
    assert result.summary.endswith("it is treated, so it does not worsen.")


def test_hd_p5_a_minor_wound_may_worsen_too():
    sheet = make_sheet(hp=0, wounds=[make_wound(1)])
    result = run(
        sheet,
        "describe_wound",
        {"wound": 1, "description": "Infected cut", "worsens_every": 1440, "worsen_dc": 18},
    )
    assert result.effects[0].due_in == 1440
    assert result.sheet["wounds"][0]["until_long_rest"] is True


def test_hd_p6_strength_and_will_losses_lower_the_save_modifiers():
    sheet = major_sheet()
    first = run(
        sheet,
        "describe_wound",
        {"wound": 1, "description": "Crushed ribs", "ability_losses": {"strength": 3, "will": 1}},
    )
    assert (first.sheet["strength_save"], first.sheet["will_save"]) == (7, 9)
    assert "strength save 10 -> 7; will save 10 -> 9" in first.summary
    again = run(
        first.sheet,
        "describe_wound",
        {"wound": 1, "description": "Crushed ribs", "ability_losses": {"strength": 1}},
    )
    assert (again.sheet["strength_save"], again.sheet["will_save"]) == (9, 10)


def test_hd_p6_a_loss_beyond_the_save_bounds_is_refused():
    sheet = major_sheet(strength_save=-25)
    with pytest.raises(RuleError, match="outside -30..50"):
        run(
            sheet,
            "describe_wound",
            {"wound": 1, "description": "x", "ability_losses": {"strength": 6}},
        )


# -- 6.11 / HD-5: major wound marks ---------------------------------------------------------


def test_6_11_hd_5_failed_strength_save_at_marks_equal_level_kills_with_no_choice():
    sheet = make_sheet(level=2, hit_dice=2, hp=0, major_wound_marks=2)
    result = run(sheet, "damage", {"amount": 4}, [9, 18])
    assert result.pending_choice is None
    assert result.sheet["state"] == "dead"
    assert result.outcome["died"] is True
    assert result.summary == (
        "Takes 4 damage: 0 absorbed by hp (0 -> 0), overflow 4; strength injury save "
        "9+10=19 vs DC 24 fails; will injury save 18+10=28 vs DC 24 passes; with 2 major "
        "wound marks at level 2 the failed strength save kills outright."
    )


def test_hd_5_marks_below_level_still_offer_the_choice():
    sheet = make_sheet(level=2, hit_dice=2, hp=0, major_wound_marks=1)
    result = run(sheet, "damage", {"amount": 4}, [9, 18])
    assert result.pending_choice.option_keys() == ("major_wound", "death")
    assert result.pending_choice.options[0].label == (
        "Take a major wound (major wound mark 2; at 2 marks a failed strength injury save kills)"
    )


def test_hd_5_passing_the_strength_save_at_the_limit_is_still_a_minor_wound():
    sheet = make_sheet(level=1, hp=0, major_wound_marks=1)
    result = run(sheet, "damage", {"amount": 1}, [11, 11])
    assert result.sheet["state"] == "standing"
    assert result.sheet["wounds"][0]["kind"] == "minor"


def test_hd_5_hd_p2_death_cancels_every_worsening_and_both_saves_are_rolled():
    wounds = [
        make_wound(1, kind="major", worsens_every=60),
        make_wound(2, kind="major", worsens_every=30, treated=True),
        make_wound(3, worsens_every=1440),
    ]
    sheet = make_sheet(level=2, hit_dice=2, hp=0, major_wound_marks=2, wounds=wounds)
    result = run(sheet, "damage", {"amount": 1}, [1, 20])
    assert len(result.rolls) == 2
    assert result.cancel_effects == ("wound:1:worsens", "wound:3:worsens")


def test_hd_p12_a_stale_major_wound_answer_is_refused():
    hurt = run(make_sheet(level=2, hit_dice=2, hp=0), "damage", {"amount": 1}, [1, 20])
    later = copy.deepcopy(hurt.sheet)
    later["major_wound_marks"] = 2
    with pytest.raises(RuleError, match="only death remains"):
        answer(later, hurt.pending_choice, "major_wound")


# -- 6.12 / HD-8: bypassing hit points -------------------------------------------------------


def test_6_12_hd_8_bypass_offers_to_pay_10_hp_per_attacker_level():
    sheet = make_sheet(level=4, hit_dice=4, hp=30)
    result = run(sheet, "bypass", {"damage": 6, "attacker_level": 3})
    assert result.rolls == ()
    assert result.sheet == sheet
    assert result.pending_choice == PendingChoice(
        kind="bypass",
        prompt="An effect bypasses hit points (6 damage, attacker level/HD 3): pay 30 hp or "
        "take injury saves at DC 26?",
        options=(
            ChoiceOption("pay", "Pay 30 hp (hp 30 -> 0) and take no injury"),
            ChoiceOption("injury", "Take the injury saves at DC 26"),
            ChoiceOption(
                "injury_give_up", "Take the injury saves at DC 26, giving up on the will save"
            ),
        ),
        state={"damage": 6, "attacker_level": 3, "cost": 30, "dc": 26},
        who="owner",
    )
    assert result.summary == (
        "An effect bypasses hit points: 6 damage from an attacker of level/HD 3; the player "
        "chooses to pay 30 hp or take injury saves at DC 26."
    )


def test_hd_8_pay_is_not_offered_when_hp_cannot_cover_it():
    sheet = make_sheet(level=4, hit_dice=4, hp=29)
    result = run(sheet, "bypass", {"damage": 6, "attacker_level": 3})
    assert result.pending_choice.option_keys() == ("injury", "injury_give_up")
    assert result.summary == (
        "An effect bypasses hit points: 6 damage from an attacker of level/HD 3; hp 29 cannot "
        "cover the 30 hp cost, so the player only chooses how to take the injury saves at DC 26."
    )
    with pytest.raises(RuleError, match="not an option"):
        answer(sheet, result.pending_choice, "pay")


def test_hd_8_paying_costs_the_hp_and_no_injury():
    sheet = make_sheet(level=4, hit_dice=4, hp=35)
    offer = run(sheet, "bypass", {"damage": 6, "attacker_level": 3})
    result = answer(offer.sheet, offer.pending_choice, "pay")
    assert result.sheet["hp"] == 5
    assert result.sheet["wounds"] == []
    assert result.rolls == ()
    assert result.summary == "Pays 30 hp to stop the effect (hp 35 -> 5); no injury."


def test_hd_p12_paying_after_hp_dropped_is_refused():
    sheet = make_sheet(level=4, hit_dice=4, hp=35)
    offer = run(sheet, "bypass", {"damage": 6, "attacker_level": 3})
    lower = dict(offer.sheet, hp=10)
    with pytest.raises(RuleError, match="no longer covers"):
        answer(lower, offer.pending_choice, "pay")


def test_hd_8_taking_the_saves_uses_dc_20_plus_damage_and_keeps_hp():
    sheet = make_sheet(level=4, hit_dice=4, hp=35)
    offer = run(sheet, "bypass", {"damage": 6, "attacker_level": 3})
    result = answer(offer.sheet, offer.pending_choice, "injury", [16, 15])
    assert [(r.label, r.total) for r in result.rolls] == [
        ("Strength injury save vs DC 26", 26),
        ("Will injury save vs DC 26", 25),
    ]
    assert result.sheet["hp"] == 35
    assert result.sheet["state"] == "collapsed"
    assert result.sheet["wounds"][0]["cause"] == "effect bypassing hit points, 6 damage"
    assert result.summary == (
        "Takes the injury saves at DC 26: strength injury save 16+10=26 vs DC 26 passes; will "
        f"injury save 15+10=25 vs DC 26 fails; minor wound 1: {DEFAULT_MINOR_WOUND}; collapses."
    )


def test_hd_8_taking_the_saves_giving_up_and_failing_strength_asks_again():
    sheet = make_sheet(level=4, hit_dice=4, hp=0)
    offer = run(sheet, "bypass", {"damage": 2, "attacker_level": 1})
    result = answer(offer.sheet, offer.pending_choice, "injury_give_up", [5])
    assert [r.label for r in result.rolls] == ["Strength injury save vs DC 22"]
    assert result.sheet["state"] == "collapsed"
    assert result.pending_choice.kind == "death_or_major_wound"
    final = answer(result.sheet, result.pending_choice, "major_wound")
    assert final.sheet["major_wound_marks"] == 1


def test_hd_p10_the_bypass_cost_is_a_campaign_option():
    sheet = make_sheet(level=4, hit_dice=4, hp=20)
    result = run(
        sheet, "bypass", {"damage": 1, "attacker_level": 4}, options={"bypass_hp_per_level": 5}
    )
    assert result.pending_choice.state["cost"] == 20
    assert result.pending_choice.option_keys()[0] == "pay"
    with pytest.raises(RuleError, match="bypass_hp_per_level"):
        run(sheet, "bypass", {"damage": 1, "attacker_level": 4}, options={"bypass_hp_per_level": 0})


# -- HD-9: dying of wounds -------------------------------------------------------------------


def test_hd_9_a_character_may_choose_to_die_of_major_wounds():
    sheet = worsening_sheet()
    result = run(sheet, "die_of_wounds", {})
    assert result.sheet["state"] == "dead"
    assert result.cancel_effects == ("wound:1:worsens",)
    assert result.summary == "Dies of their major wound (1), as the player chose."


def test_hd_p9_dying_of_wounds_needs_a_major_wound():
    with pytest.raises(RuleError, match="no major wound"):
        run(make_sheet(wounds=[make_wound(1)]), "die_of_wounds", {})


# -- HD-P1: collapsed and dead -------------------------------------------------------------


def collapsed_sheet(**fields):
    base = {"level": 2, "hit_dice": 2, "hp": 0, "state": "collapsed"}
    base.update(fields)
    return make_sheet(**base)


def test_hd_p1_short_rest_stands_a_collapsed_character_up_with_or_without_reroll():
    kept = run(collapsed_sheet(), "short_rest", {"reroll": False})
    assert kept.sheet["state"] == "standing"
    assert kept.summary == (
        "Short rest without re-rolling: hp stays 0, fatigue stays 0; stands up again."
    )
    rerolled = run(collapsed_sheet(), "short_rest", {"reroll": True}, [2, 3])
    assert rerolled.sheet["state"] == "standing"
    assert rerolled.outcome["stood_up"] is True


def test_hd_p1_long_rest_stands_a_collapsed_character_up():
    result = run(collapsed_sheet(), "long_rest", {}, [2, 3])
    assert result.sheet["state"] == "standing"
    assert result.summary.endswith("stands up again.")


def test_hd_p1_the_referee_may_stand_a_collapsed_character_up():
    result = run(collapsed_sheet(), "stand_up", {})
    assert result.sheet["state"] == "standing"
    assert result.summary == "Stands up again, as the referee rules."
    with pytest.raises(RuleError, match="not collapsed"):
        run(make_sheet(), "stand_up", {})


def test_hd_p1_a_collapsed_character_can_still_be_hurt_and_stays_down():
    result = run(collapsed_sheet(), "damage", {"amount": 1}, [15, 15])
    assert result.sheet["state"] == "collapsed"
    assert result.summary.endswith("stays collapsed.")
    assert result.sheet["wounds"][0]["kind"] == "minor"


def test_hd_p1_a_collapsed_character_can_be_treated_described_and_bypassed():
    sheet = collapsed_sheet(wounds=[make_wound(1)])
    assert run(sheet, "treat_wound", {"wound": 1}).sheet["state"] == "collapsed"
    assert run(sheet, "describe_wound", {"wound": 1, "description": "Cut"}).sheet["state"] == (
        "collapsed"
    )
    assert run(sheet, "bypass", {"damage": 1, "attacker_level": 1}).pending_choice is not None


def test_hd_p1_status_is_the_state_word():
    assert RULES.status(make_sheet()) == "standing"
    assert RULES.status(collapsed_sheet()) == "collapsed"
    assert RULES.status(make_sheet(state="dead")) == "dead"


ALL_ACTIONS = [
    ("damage", {"amount": 1}),
    ("bypass", {"damage": 1, "attacker_level": 1}),
    ("short_rest", {"reroll": True}),
    ("short_rest", {"reroll": False}),
    ("long_rest", {}),
    ("treat_wound", {"wound": 1}),
    ("describe_wound", {"wound": 1, "description": "x"}),
    ("die_of_wounds", {}),
    ("stand_up", {}),
]


@pytest.mark.parametrize(("action", "params"), ALL_ACTIONS)
def test_a_dead_character_cannot_act(action, params):
    sheet = make_sheet(state="dead", wounds=[make_wound(1, kind="major")])
    with pytest.raises(ActionBlocked, match="dead"):
        run(sheet, action, params)


def test_a_dead_character_cannot_answer_a_choice():
    hurt = run(make_sheet(level=2, hit_dice=2, hp=0), "damage", {"amount": 1}, [1, 20])
    dead = dict(hurt.sheet, state="dead")
    with pytest.raises(ActionBlocked):
        answer(dead, hurt.pending_choice, "major_wound")


# -- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "params"),
    [
        ("damage", {}),
        ("damage", {"amount": 0}),
        ("damage", {"amount": -3}),
        ("damage", {"amount": 10001}),
        ("damage", {"amount": "5"}),
        ("damage", {"amount": 2.5}),
        ("damage", {"amount": 5, "give_up": "yes"}),
        ("damage", {"amount": 5, "extra": 1}),
        ("bypass", {"damage": 5}),
        ("bypass", {"damage": 5, "attacker_level": 0}),
        ("bypass", {"damage": 5, "attacker_level": 101}),
        ("bypass", {"damage": -1, "attacker_level": 2}),
        ("short_rest", {}),
        ("short_rest", {"reroll": 1}),
        ("long_rest", {"hours": 8}),
        ("treat_wound", {}),
        ("treat_wound", {"wound": 0}),
        ("treat_wound", {"wound": "1"}),
        ("describe_wound", {"wound": 1}),
        ("describe_wound", {"wound": 1, "description": ""}),
        ("describe_wound", {"wound": 1, "description": "x" * 501}),
        ("describe_wound", {"wound": 1, "description": "x", "ability_losses": {"str": -2}}),
        ("describe_wound", {"wound": 1, "description": "x", "ability_losses": {"Str": 2}}),
        ("describe_wound", {"wound": 1, "description": "x", "ability_losses": [1]}),
        ("describe_wound", {"wound": 1, "description": "x", "worsens_every": 0}),
        ("describe_wound", {"wound": 1, "description": "x", "worsens_every": 10**9}),
        ("describe_wound", {"wound": 1, "description": "x", "worsen_dc": 0}),
        ("describe_wound", {"wound": 1, "description": "x", "worsen_dc": 101}),
        ("describe_wound", {"wound": 1, "description": "x", "kind": "major"}),
        ("die_of_wounds", {"now": True}),
        ("stand_up", {"x": 1}),
    ],
)
def test_bad_params_raise_rule_error(action, params):
    sheet = make_sheet(state="collapsed", wounds=[make_wound(1, kind="major")])
    with pytest.raises(RuleError, match=f"invalid params for {action}"):
        run(sheet, action, params)


def test_unknown_action_raises_rule_error():
    with pytest.raises(RuleError, match="unknown action"):
        run(make_sheet(), "heal", {})


def test_describing_a_missing_wound_is_refused():
    with pytest.raises(RuleError, match="no wound 2"):
        run(make_sheet(), "describe_wound", {"wound": 2, "description": "x"})


def test_choose_rejects_unknown_kinds_and_options():
    sheet = make_sheet()
    other = PendingChoice(kind="flip_or_fold", prompt="?", options=(ChoiceOption("a", "A"),))
    with pytest.raises(RuleError, match="no choice 'flip_or_fold'"):
        answer(sheet, other, "a")
    hurt = run(make_sheet(level=2, hit_dice=2, hp=0), "damage", {"amount": 1}, [1, 20])
    with pytest.raises(RuleError, match="'live' is not an option"):
        answer(hurt.sheet, hurt.pending_choice, "live")


def test_apply_effect_rejects_unknown_kinds_and_bad_payloads():
    sheet = worsening_sheet()
    dice = Dice(ScriptedGenerator([]))
    with pytest.raises(RuleError, match="no scheduled effect 'birthday'"):
        RULES.apply_effect(sheet, "birthday", {}, dice, Context())
    with pytest.raises(RuleError, match="wound's id"):
        RULES.apply_effect(sheet, "wound_worsens", {}, dice, Context())
    with pytest.raises(RuleError, match="wound's id"):
        RULES.apply_effect(sheet, "wound_worsens", {"wound": True}, dice, Context())
    with pytest.raises(RuleError, match="no wound 9"):
        RULES.apply_effect(sheet, "wound_worsens", {"wound": 9}, dice, Context())


# -- HD-P11: wound ids ----------------------------------------------------------------------


def test_hd_p11_wound_ids_follow_the_highest_and_are_stable():
    sheet = make_sheet(hp=0, wounds=[make_wound(4, treated=True), make_wound(2)])
    first = run(sheet, "damage", {"amount": 1}, [15, 15])
    assert [w["id"] for w in first.sheet["wounds"]] == [4, 2, 5]
    second = run(first.sheet, "damage", {"amount": 1}, [15, 15])
    assert [w["id"] for w in second.sheet["wounds"]] == [4, 2, 5, 6]
