"""Old school ruleset: sheet, validation, damage, ability loss, poison, drink, fall,
search and healing, with scripted dice (rulings OS-1..OS-10, project rulings OS-P*).

Clock-driven rules (aging, disease, privation, sleep) are in test_old_school_clock.py,
which reuses the helpers below.
"""

from __future__ import annotations

import heapq
from typing import Any

import pytest

from rules.engine.dice import Dice, ScriptedGenerator
from rules.engine.interface import ActionBlocked, Context, Result, RuleError, ScheduledEffect
from rules.engine.registry import get_ruleset
from rules.engine.rulesets.old_school.data import (
    ABILITIES,
    DAY,
    HOUR,
    PROJECT_CRITICAL_INJURIES,
    YEAR,
    modifier,
)
from rules.engine.rulesets.old_school.ruleset import OldSchool

OS = OldSchool()


# -- helpers (also used by test_old_school_clock.py) -----------------------------------------


def make_sheet(**initial: Any) -> dict[str, Any]:
    return OS.new_sheet(initial, Dice(ScriptedGenerator([])))


def context(clock: int = 0, referee: bool = True, options=None, tables=None) -> Context:
    return Context(clock=clock, options=options or {}, by_referee=referee, tables=tables or {})


def act(
    sheet: dict[str, Any],
    action: str,
    params: dict[str, Any] | None = None,
    faces: tuple[int, ...] | list[int] = (),
    **ctx: Any,
) -> Result:
    """Resolve an action with exactly the scripted faces (all must be used)."""
    generator = ScriptedGenerator(faces)
    result = OS.resolve(sheet, action, params or {}, Dice(generator), context(**ctx))
    assert generator.remaining == 0, f"{generator.remaining} scripted faces unused"
    return result


def apply(
    sheet: dict[str, Any],
    kind: str,
    payload: dict[str, Any],
    faces: tuple[int, ...] | list[int] = (),
    **ctx: Any,
) -> Result:
    generator = ScriptedGenerator(faces)
    result = OS.apply_effect(sheet, kind, payload, Dice(generator), context(**ctx))
    assert generator.remaining == 0, f"{generator.remaining} scripted faces unused"
    return result


def labels(result: Result) -> list[str]:
    return [roll.label for roll in result.rolls]


class Table:
    """A tiny campaign clock for tests: applies due effects in time order (then in the
    order they were scheduled), including effects scheduled by effects, each once."""

    def __init__(self, sheet, generator, *, clock: int = 0, options=None, tables=None):
        self.sheet = sheet
        self.dice = Dice(generator)
        self.now = clock
        self.options = options or {}
        self.tables = tables or {}
        self.queue: list[tuple[int, int, ScheduledEffect]] = []
        self.seq = 0
        self.log: list[tuple[int, str, str, Result]] = []
        self.cancelled: list[str] = []

    def ctx(self, referee: bool = True) -> Context:
        return Context(clock=self.now, options=self.options, by_referee=referee, tables=self.tables)

    def take(self, result: Result) -> Result:
        self.sheet = result.sheet
        for key in result.cancel_effects:
            self.cancelled.append(key)
            self.queue = [item for item in self.queue if item[2].key != key]
            heapq.heapify(self.queue)
        for effect in result.effects:
            self.seq += 1
            heapq.heappush(self.queue, (self.now + effect.due_in, self.seq, effect))
        return result

    def schedule(self, effects) -> None:
        self.take(Result(sheet=self.sheet, summary="", effects=tuple(effects)))

    def act(self, action: str, params=None, referee: bool = True) -> Result:
        result = OS.resolve(self.sheet, action, params or {}, self.dice, self.ctx(referee))
        return self.take(result)

    def advance(self, minutes: int) -> None:
        end = self.now + minutes
        while self.queue and self.queue[0][0] <= end:
            due, _, effect = heapq.heappop(self.queue)
            assert due >= self.now, "effects must come in time order"
            self.now = due
            start = len(self.dice.rolls)
            result = OS.apply_effect(
                self.sheet, effect.kind, dict(effect.payload), self.dice, self.ctx()
            )
            assert list(result.rolls) == self.dice.rolls[start:]
            self.log.append((due, effect.kind, effect.key, result))
            self.take(result)
        self.now = end

    def applied(self, kind: str) -> list[tuple[int, Result]]:
        return [(due, result) for due, k, _, result in self.log if k == kind]


# -- the ruleset and its sheet ---------------------------------------------------------------


def test_registry_resolves_the_package_class():
    ruleset = get_ruleset("old_school")
    assert isinstance(ruleset, OldSchool)
    assert (ruleset.key, ruleset.name) == ("old_school", "Old school")
    assert ruleset.describe()["tables"] == ["critical_injuries", "diseases"]


def test_default_sheet_is_valid_and_complete():
    sheet = OS.default_sheet()
    OS.validate_sheet(sheet)
    for ability in ABILITIES:
        assert sheet[ability] == sheet[f"max_{ability}"] == 10
    assert sheet["race"] == "human" and sheet["state"] == "alive"
    assert [sheet[f"save_{c}"] for c in ("poison", "wands", "paralysis", "breath", "spells")] == [
        12,
        13,
        14,
        15,
        17,
    ]
    assert sheet["conditions"] == {
        "unconscious": False,
        "unconscious_until": None,
        "drunk": False,
        "drunk_until": None,
        "sleep_deprived_days": 0,
        "starving": False,
        "thirsty": False,
    }
    assert sheet["diseases"] == [] and sheet["resting"] is False


def test_new_sheet_sets_maxima_from_scores_and_wounds_from_max_wounds():
    sheet = make_sheet(strength=16, constitution=7, max_wounds=9, level=3, race="dwarf", age=60)
    assert (sheet["strength"], sheet["max_strength"]) == (16, 16)
    assert (sheet["wounds"], sheet["max_wounds"]) == (9, 9)
    assert sheet["modifiers"]["strength"] == 2
    assert sheet["modifiers"]["constitution"] == -1


def test_new_sheet_with_temporary_loss_already_taken():
    sheet = make_sheet(strength=9, max_strength=12)
    assert (sheet["strength"], sheet["max_strength"]) == (9, 12)


@pytest.mark.parametrize(
    "initial",
    [
        {"strength": 13, "max_strength": 12},
        {"wounds": 8, "max_wounds": 6},
        {"race": "orc"},
        {"strength": "12"},
        {"strength": 19},
        {"level": 0},
        {"save_poison": 0},
        {"nickname": "Aldo"},
        {"conditions": {}},
        {"state": "dead"},
        {"strength": 0},
        {"diseases": []},
    ],
)
def test_new_sheet_rejects_bad_or_engine_kept_fields(initial):
    with pytest.raises(RuleError):
        make_sheet(**initial)


def test_new_sheet_at_zero_wounds_starts_down():
    assert make_sheet(wounds=0, max_wounds=6)["state"] == "down"


@pytest.mark.parametrize(
    ("score", "expected"),
    [
        (1, -3),  # project ruling OS-P1
        (2, -3),
        (3, -3),  # ruling OS-1
        (4, -2),
        (5, -2),
        (6, -1),
        (8, -1),
        (9, 0),
        (12, 0),
        (13, 1),
        (15, 1),
        (16, 2),
        (17, 2),
        (18, 3),
    ],
)
def test_ability_modifiers_ruling_os1(score, expected):
    assert modifier(score) == expected


@pytest.mark.parametrize(
    ("action", "params"),
    [
        ("damage", {}),
        ("damage", {"amount": 0}),
        ("damage", {"amount": -3}),
        ("damage", {"amount": 1001}),
        ("damage", {"amount": "5"}),
        ("damage", {"amount": 5, "type": "fire"}),
        ("ability_loss", {"ability": "luck", "amount": 1}),
        ("ability_loss", {"ability": "strength", "amount": 19}),
        ("fall", {"feet": -10}),
        ("search", {"squares": 0}),
        ("search", {"squares": 101}),
        ("sleep", {"hours": 25}),
        ("set_supplies", {}),
        ("set_supplies", {"food": "yes"}),
        ("magical_aging", {"years": 0}),
        ("day_rest", {"bed": 1}),
        ("night_rest", {"hours": 8}),
        ("poison", {"effect": {"type": "damage"}}),
        ("poison", {"effect": {"type": "damage", "dice": "2d6*3"}}),
        ("poison", {"effect": {"type": "ability_loss", "abilities": {"luck": 1}}}),
        ("poison", {"effect": {"type": "sleep"}}),
        ("save", {"category": "dragons"}),
        ("expose_disease", {"disease": ""}),
        ("set_resting", {}),
    ],
)
def test_bad_params_raise_rule_error(action, params):
    with pytest.raises(RuleError):
        OS.resolve(make_sheet(), action, params, Dice(ScriptedGenerator([])), context())


def test_unknown_action_is_a_rule_error():
    with pytest.raises(RuleError, match="unknown action"):
        act(make_sheet(), "fireball", {})


def test_referee_only_actions_are_marked():
    who = {spec.key: spec.who for spec in OS.actions}
    assert {key for key, value in who.items() if value == "referee"} == {
        "damage",
        "heal",
        "ability_loss",
        "expose_disease",
        "contract_disease",
        "cure_disease",
        "poison",
        "fall",
        "set_supplies",
        "go_without_sleep",
        "magical_aging",
    }
    for key in ("drink", "search", "night_rest", "day_rest", "sleep", "set_resting", "save"):
        assert who[key] == "owner"


def test_project_critical_table_is_marked_as_the_projects_and_covers_every_roll():
    table = OS.tables["critical_injuries"]
    assert table is PROJECT_CRITICAL_INJURIES
    assert all("Sawbones project" in entry["source"] for entry in table)
    covered = set()
    for entry in table:
        covered |= set(range(entry["min"], (entry["max"] or 40) + 1))
    assert set(range(1, 41)) <= covered
    assert table[-1]["max"] is None and table[-1]["effect"] == {"type": "death"}


def test_initial_effects_schedule_a_birthday_a_year_on_and_a_sleep_window_a_day_on():
    effects = OS.initial_effects(make_sheet())
    assert [(e.kind, e.due_in, dict(e.payload), e.key) for e in effects] == [
        ("birthday", YEAR, {"n": 1}, "birthday:1"),
        ("sleep_window", DAY, {"n": 1}, "sleep_window:1"),
    ]
    assert YEAR == 525600


def test_status_words():
    assert OS.status(make_sheet()) == "standing"
    down = act(make_sheet(wounds=2, max_wounds=6), "damage", {"amount": 2}, [4]).sheet
    assert OS.status(down) == "unconscious"
    awake = apply(down, "wake_up", {"until": 240}, clock=240).sheet
    assert OS.status(awake) == "down"
    dead = act(make_sheet(strength=3), "ability_loss", {"ability": "strength", "amount": 3}).sheet
    assert OS.status(dead) == "dead"


def test_the_engine_never_mutates_the_sheet_it_was_given():
    sheet = make_sheet(wounds=3, max_wounds=6)
    before = repr(sheet)
    act(sheet, "damage", {"amount": 5}, [5, 2])
    apply(sheet, "sleep_window", {"n": 1})
    assert repr(sheet) == before


# -- damage (ruling OS-4) ----------------------------------------------------------------------


def test_damage_above_zero_only_lowers_wounds():
    result = act(make_sheet(max_wounds=8), "damage", {"amount": 3})
    assert result.sheet["wounds"] == 5
    assert result.sheet["state"] == "alive"
    assert result.rolls == () and result.effects == ()
    assert result.summary == "Takes 3 damage: wounds 8 -> 5."


def test_damage_to_exactly_zero_is_down_and_wakes_after_1d6_hours_without_injury_roll():
    result = act(make_sheet(max_wounds=6), "damage", {"amount": 6}, [3], clock=1000)
    sheet = result.sheet
    assert (sheet["wounds"], sheet["state"]) == (0, "down")
    assert sheet["conditions"]["unconscious"] is True
    assert sheet["conditions"]["unconscious_until"] == 1000 + 180
    assert labels(result) == ["hours until waking"]
    assert result.effects == (ScheduledEffect("wake_up", 180, {"until": 1180}, "wake_up:1180"),)


def test_damage_below_zero_rolls_1d10_plus_negative_on_the_critical_table():
    # 2 wounds, 4 damage: -2, injury roll 1d10+2 (the text's own example)
    result = act(make_sheet(wounds=2, max_wounds=6), "damage", {"amount": 4}, [5, 2])
    sheet = result.sheet
    assert sheet["wounds"] == -2 and sheet["state"] == "down"
    crit = result.rolls[0]
    assert (crit.label, crit.expression, crit.total) == ("critical injury", "1d10+2", 7)
    assert result.outcome["critical_injury"]["roll"] == 7
    # 7: wrenched knee, -1 Dexterity (temporary)
    assert (sheet["dexterity"], sheet["max_dexterity"]) == (9, 10)
    assert result.effects[0].kind == "wake_up" and result.effects[0].due_in == 2 * HOUR
    assert result.summary == (
        "Takes 4 damage: wounds 2 -> -2; falls prone; critical injury 1d10+2=7: Wrenched "
        "knee: walks with a limp for a while; Dexterity 10 -> 9; falls unconscious and will "
        "wake after 2 hours."
    )


def test_permanent_critical_injury_lowers_the_maximum():
    # wounds -6, 1d10 shows 8: 14, lost eye: -1 Dex and -1 Cha for good
    result = act(make_sheet(wounds=1, max_wounds=6), "damage", {"amount": 7}, [8, 1])
    sheet = result.sheet
    assert (sheet["dexterity"], sheet["max_dexterity"]) == (9, 9)
    assert (sheet["charisma"], sheet["max_charisma"]) == (9, 9)


def test_critical_roll_of_20_or_more_kills_on_the_project_table():
    result = act(make_sheet(wounds=0, max_wounds=6), "damage", {"amount": 10}, [10])
    assert result.sheet["state"] == "dead"
    assert labels(result) == ["critical injury"]
    assert "Killed outright" in result.summary
    assert result.effects == ()


def test_damage_at_zero_is_not_below_zero_and_does_not_kill():
    sheet = act(make_sheet(max_wounds=6), "damage", {"amount": 6}, [3]).sheet
    result = act(sheet, "damage", {"amount": 1}, [1])  # -1: 1d10+1 = 2, no new wake-up
    assert result.sheet["state"] == "down" and result.sheet["wounds"] == -1
    assert labels(result) == ["critical injury"]
    assert result.effects == ()  # already unconscious: the wake-up at 3 hours stands


def test_any_damage_below_zero_kills_and_cancels_what_was_pending():
    sheet = act(make_sheet(wounds=1, max_wounds=6), "damage", {"amount": 2}, [1, 4]).sheet
    assert sheet["wounds"] == -1
    result = act(sheet, "damage", {"amount": 1})
    assert result.sheet["state"] == "dead"
    assert result.rolls == ()
    assert "wake_up:240" in result.cancel_effects
    assert "birthday:1" in result.cancel_effects and "sleep_window:1" in result.cancel_effects
    assert result.summary == (
        "Takes 1 damage while below 0 wounds; dies (any damage below 0 wounds kills, OS-4)."
    )


def test_actions_on_a_dead_character_are_blocked():
    dead = act(make_sheet(strength=3), "ability_loss", {"ability": "strength", "amount": 3}).sheet
    for action, params in (
        ("damage", {"amount": 1}),
        ("night_rest", {}),
        ("drink", {}),
        ("magical_aging", {"years": 1}),
    ):
        with pytest.raises(ActionBlocked, match="dead"):
            act(dead, action, params)


def test_the_campaigns_edited_critical_table_is_used():
    tables = {
        "critical_injuries": [
            {"min": 1, "max": 5, "description": "Lucky", "effect": None},
            {"min": 6, "max": None, "description": "Head lopped off", "effect": {"type": "death"}},
        ]
    }
    lucky = act(make_sheet(wounds=1), "damage", {"amount": 2}, [4, 1], tables=tables)
    assert "Lucky" in lucky.summary and lucky.sheet["state"] == "down"
    dead = act(make_sheet(wounds=1), "damage", {"amount": 2}, [5], tables=tables)
    assert dead.sheet["state"] == "dead" and "Head lopped off" in dead.summary


def test_a_roll_the_campaign_table_does_not_cover_changes_nothing_but_says_so():
    tables = {"critical_injuries": [{"min": 1, "max": 3, "description": "Scratch"}]}
    result = act(make_sheet(wounds=1), "damage", {"amount": 3}, [9, 1], tables=tables)
    assert "critical injury 1d10+2=11: no entry on the table" in result.summary
    assert result.outcome["critical_injury"] == {"roll": 11, "description": None}


def test_a_malformed_campaign_table_is_a_clear_rule_error():
    tables = {"critical_injuries": [{"min": 1, "description": "no max"}]}
    with pytest.raises(RuleError, match="invalid critical injury table"):
        act(make_sheet(wounds=1), "damage", {"amount": 3}, [9, 1], tables=tables)


def test_wake_up_leaves_the_character_down_and_a_stale_wake_up_does_nothing():
    sheet = act(make_sheet(wounds=1), "damage", {"amount": 3}, [1, 2], clock=60).sheet
    awake = apply(sheet, "wake_up", {"until": 180}, clock=180)
    assert awake.sheet["conditions"]["unconscious"] is False
    assert awake.sheet["state"] == "down"
    assert "cannot stand" in awake.summary
    again = apply(awake.sheet, "wake_up", {"until": 180}, clock=180)
    assert again.sheet == awake.sheet
    assert again.summary == "Nothing happens: the character is already awake."


def test_knocked_out_again_after_waking_gets_a_new_wake_up():
    sheet = act(make_sheet(wounds=6), "damage", {"amount": 6}, [1], clock=0).sheet
    sheet = apply(sheet, "wake_up", {"until": 60}, clock=60).sheet
    result = act(sheet, "damage", {"amount": 1}, [3, 2], clock=100)  # 1d10+1=4, 2 hours
    assert result.effects == (ScheduledEffect("wake_up", 120, {"until": 220}, "wake_up:220"),)


def test_heal_never_above_maximum_and_wakes_when_above_zero():
    sheet = act(make_sheet(wounds=1, max_wounds=6), "damage", {"amount": 2}, [1, 5]).sheet
    result = act(sheet, "heal", {"amount": 50})
    assert result.sheet["wounds"] == 6 and result.sheet["state"] == "alive"
    assert result.sheet["conditions"]["unconscious"] is False  # project ruling OS-P4
    assert result.cancel_effects == ("wake_up:300",)


# -- ability loss (rulings OS-1, OS-2) ---------------------------------------------------------


def test_temporary_loss_lowers_the_current_score_only():
    result = act(make_sheet(strength=13), "ability_loss", {"ability": "strength", "amount": 1})
    sheet = result.sheet
    assert (sheet["strength"], sheet["max_strength"]) == (12, 13)
    assert sheet["modifiers"]["strength"] == 0  # 13 -> 12 loses the +1 (the text's example)
    assert result.summary == "Strength 13 -> 12."


def test_permanent_loss_lowers_the_maximum_too():
    sheet = make_sheet(wisdom=11, max_wisdom=14)
    result = act(sheet, "ability_loss", {"ability": "wisdom", "amount": 2, "permanent": True})
    assert (result.sheet["wisdom"], result.sheet["max_wisdom"]) == (9, 12)


def test_constitution_modifier_change_times_level_moves_current_and_maximum_wounds():
    sheet = make_sheet(constitution=13, level=3, max_wounds=15)
    sheet = act(sheet, "damage", {"amount": 4}).sheet  # 11 of 15
    result = act(sheet, "ability_loss", {"ability": "constitution", "amount": 1})
    assert (result.sheet["wounds"], result.sheet["max_wounds"]) == (8, 12)  # ruling OS-2
    assert "changes wounds by -3 (11/15 -> 8/12)" in result.summary
    # a drop that keeps the modifier changes nothing
    same = act(result.sheet, "ability_loss", {"ability": "constitution", "amount": 3})
    assert (same.sheet["wounds"], same.sheet["max_wounds"]) == (8, 12)


def test_constitution_loss_to_zero_wounds_is_not_damage():
    # project ruling OS-P3: down and out for 1d6 hours, but no injury roll and no death
    sheet = make_sheet(constitution=9, level=4, max_wounds=10, wounds=2)
    result = act(sheet, "ability_loss", {"ability": "constitution", "amount": 1}, [2])
    assert (result.sheet["wounds"], result.sheet["max_wounds"]) == (-2, 6)
    assert result.sheet["state"] == "down"
    assert labels(result) == ["hours until waking"]


def test_maximum_wounds_never_drop_below_one():
    # project ruling OS-P2
    sheet = make_sheet(constitution=4, level=3, max_wounds=3)
    result = act(sheet, "ability_loss", {"ability": "constitution", "amount": 1}, [1])
    assert (result.sheet["wounds"], result.sheet["max_wounds"]) == (0, 1)
    assert result.sheet["state"] == "down"


def test_zero_in_any_ability_kills():
    result = act(make_sheet(charisma=3), "ability_loss", {"ability": "charisma", "amount": 5})
    assert result.sheet["charisma"] == 0 and result.sheet["state"] == "dead"
    assert result.summary == "Charisma 3 -> 0; dies (charisma 0, OS-1)."


# -- saves, poison, drink, fall, search --------------------------------------------------------


def test_save_is_d20_plus_modifiers_against_the_target_with_the_category_in_the_label():
    params = {"category": "breath", "modifier": 2, "reason": "pit trap"}
    result = act(make_sheet(), "save", params, [13])
    roll = result.rolls[0]
    assert (roll.label, roll.expression, roll.total) == ("save vs breath (pit trap)", "1d20+2", 15)
    assert result.outcome["passed"] is True  # 15 >= 15 (G-5)
    assert result.summary == "Save vs breath 13+2=15 vs 15 passes."
    failed = act(make_sheet(), "save", {"category": "breath"}, [14])
    assert failed.outcome["passed"] is False
    assert failed.rolls[0].label == "save vs breath"


def test_poison_save_passes_and_nothing_happens():
    result = act(make_sheet(), "poison", {}, [12])
    assert result.sheet["state"] == "alive"
    assert labels(result) == ["save vs poison (poison)"]


def test_poison_failure_is_death_by_default():
    result = act(make_sheet(), "poison", {}, [11])
    assert result.sheet["state"] == "dead"
    assert result.summary == "Save vs poison 11 vs 12 fails; dies (poison)."


def test_poison_with_a_referee_defined_effect():
    damage = act(
        make_sheet(max_wounds=9),
        "poison",
        {"effect": {"type": "damage", "dice": "2d4"}, "modifier": -1},
        [12, 3, 2],
    )
    assert damage.rolls[0].expression == "1d20-1"
    assert damage.sheet["wounds"] == 4
    loss = act(
        make_sheet(),
        "poison",
        {"effect": {"type": "ability_loss", "abilities": {"strength": 2, "wisdom": 1}}},
        [1],
    )
    assert (loss.sheet["strength"], loss.sheet["wisdom"]) == (8, 9)
    sleep = act(make_sheet(), "poison", {"effect": {"type": "sleep", "hours": 8}}, [2], clock=50)
    assert sleep.sheet["conditions"]["unconscious"] is True
    assert sleep.sheet["state"] == "alive"
    assert sleep.effects == (ScheduledEffect("wake_up", 480, {"until": 530}, "wake_up:530"),)


def test_a_drug_taken_on_purpose_gets_no_save():
    result = act(
        make_sheet(),
        "poison",
        {"save": False, "effect": {"type": "ability_loss", "abilities": {"wisdom": 1}}},
    )
    assert result.rolls == () and result.sheet["wisdom"] == 9


def test_drink_makes_drunk_until_sober_up_with_dex_and_save_penalties():
    # ruling OS-9, project ruling OS-P6: 4 hours by default
    result = act(make_sheet(dexterity=13), "drink", {}, referee=False, clock=600)
    sheet = result.sheet
    assert sheet["conditions"]["drunk"] is True and sheet["conditions"]["drunk_until"] == 840
    assert sheet["modifiers"]["dexterity"] == 0  # 13 - 2 = 11
    assert sheet["dexterity"] == 13  # the score itself is not lost
    assert sheet["penalties"]["saves"] == -2
    assert result.effects == (ScheduledEffect("sober_up", 240, {"until": 840}, "sober_up:840"),)
    save = act(sheet, "save", {"category": "poison"}, [13])
    assert save.rolls[0].expression == "1d20-2" and save.outcome["passed"] is False
    sober = apply(sheet, "sober_up", {"until": 840}, clock=840)
    assert sober.sheet["conditions"]["drunk"] is False
    assert sober.sheet["modifiers"]["dexterity"] == 1
    assert sober.sheet["penalties"]["saves"] == 0


def test_only_the_referee_sets_how_long_drunkenness_lasts():
    with pytest.raises(RuleError, match="only the referee"):
        act(make_sheet(), "drink", {"hours": 10}, referee=False)
    result = act(make_sheet(), "drink", {"hours": 10}, referee=True)
    assert result.effects[0].due_in == 600
    option = act(make_sheet(), "drink", {}, referee=False, options={"drunk_hours": 2})
    assert option.effects[0].due_in == 120


def test_drinking_more_extends_and_the_old_sober_up_does_nothing():
    sheet = act(make_sheet(), "drink", {}, clock=0).sheet
    later = act(sheet, "drink", {}, clock=120)
    assert later.cancel_effects == ("sober_up:240",)
    assert later.effects == (ScheduledEffect("sober_up", 240, {"until": 360}, "sober_up:360"),)
    stale = apply(later.sheet, "sober_up", {"until": 240}, clock=240)
    assert stale.sheet["conditions"]["drunk"] is True
    assert stale.summary.startswith("Nothing happens")
    shorter = act(later.sheet, "drink", {"hours": 1}, clock=130)
    assert shorter.effects == () and shorter.sheet["conditions"]["drunk_until"] == 360


@pytest.mark.parametrize(
    ("feet", "dice"),
    [(5, 0), (9, 0), (10, 1), (19, 1), (35, 3), (200, 20), (500, 20)],
)
def test_falling_is_1d6_per_full_10_feet_up_to_20d6(feet, dice):
    # ruling OS-9
    faces = [1] * dice
    result = act(make_sheet(max_wounds=30), "fall", {"feet": feet}, faces)
    if dice:
        assert result.rolls[0].expression == f"{dice}d6"
        assert result.sheet["wounds"] == 30 - dice
    else:
        assert result.rolls == () and result.sheet["wounds"] == 30


def test_falling_damage_goes_through_the_damage_rules():
    result = act(make_sheet(wounds=2), "fall", {"feet": 20}, [3, 3, 4, 1])
    assert result.sheet["wounds"] == -4
    assert labels(result) == ["falling damage", "critical injury", "hours until waking"]


def test_search_is_1_in_6_and_takes_a_turn_per_square():
    found = act(make_sheet(), "search", {"squares": 3}, [1], referee=False)
    assert found.outcome["found"] is True and found.elapsed_minutes == 30
    assert labels(found) == ["search"]
    missed = act(make_sheet(), "search", {"squares": 1}, [2], referee=False)
    assert missed.outcome["found"] is False and missed.elapsed_minutes == 10
    assert missed.summary == (
        "Searches 1 ten-foot square for 10 minutes: 1d6=2 vs 1 in 6, finds nothing."
    )


def test_search_chance_is_the_referees_and_sleep_deprivation_lowers_it():
    # project ruling OS-P7
    with pytest.raises(RuleError, match="only the referee"):
        act(make_sheet(), "search", {"squares": 1, "chance": 2}, referee=False)
    assert act(make_sheet(), "search", {"squares": 1, "chance": 2}, [2]).outcome["found"]
    awake = act(make_sheet(), "go_without_sleep", {"reason": "forced_march"}).sheet
    tired = apply(awake, "sleep_window", {"n": 1}).sheet
    result = act(tired, "search", {"squares": 1}, [1], referee=False)
    assert result.outcome["found"] is False
    assert "no chance (sleep deprived)" in result.summary


def test_a_down_or_unconscious_character_cannot_search_or_drink():
    out = act(make_sheet(wounds=1), "damage", {"amount": 1}, [2]).sheet
    with pytest.raises(ActionBlocked, match="unconscious"):
        act(out, "search", {"squares": 1})
    with pytest.raises(ActionBlocked, match="unconscious"):
        act(out, "drink", {})
    awake = apply(out, "wake_up", {"until": 120}, clock=120).sheet
    with pytest.raises(ActionBlocked, match="down"):
        act(awake, "search", {"squares": 1})
    assert act(awake, "drink", {}).sheet["conditions"]["drunk"] is True


# -- healing (ruling OS-10) --------------------------------------------------------------------


def test_night_rest_recovers_one_at_half_wounds_or_more():
    sheet = make_sheet(max_wounds=7, wounds=4)  # 8 >= 7: at least half
    result = act(sheet, "night_rest", {}, referee=False)
    assert result.sheet["wounds"] == 5
    assert result.elapsed_minutes == 8 * HOUR
    assert result.summary == "Rests for the night; recovers 1: wounds 4 -> 5 of 7."


def test_night_rest_below_half_recovers_nothing_and_never_above_maximum():
    assert act(make_sheet(max_wounds=7, wounds=3), "night_rest", {}).sheet["wounds"] == 3
    assert act(make_sheet(max_wounds=7), "night_rest", {}).sheet["wounds"] == 7


def test_no_recovery_in_a_hostile_place():
    options = {"hostile_place": True}
    night = act(make_sheet(max_wounds=8, wounds=6), "night_rest", {}, options=options)
    assert night.sheet["wounds"] == 6
    assert "no recovery in a hostile place" in night.summary
    sheet = make_sheet(max_wounds=8, wounds=6, strength=9, max_strength=12)
    day = act(sheet, "day_rest", {"bed": True}, options=options)
    assert day.rolls == () and day.sheet["wounds"] == 6 and day.sheet["strength"] == 9


def test_night_rest_twice_without_the_clock_moving_is_refused():
    sheet = act(make_sheet(max_wounds=8, wounds=6), "night_rest", {}, clock=0).sheet
    with pytest.raises(RuleError, match="already had a night's rest"):
        act(sheet, "night_rest", {}, clock=60)
    assert act(sheet, "night_rest", {}, clock=DAY).sheet["wounds"] == 8


def test_day_rest_recovers_1d3_at_half_or_more_plus_one_in_a_bed():
    result = act(make_sheet(max_wounds=10, wounds=5), "day_rest", {"bed": True}, [3])
    assert labels(result) == ["day of rest"]
    assert result.elapsed_minutes == DAY
    assert result.sheet["wounds"] == 9
    assert result.sheet["resting"] is True
    assert "recovers 1d3=3 +1 in a clean bed: wounds 5 -> 9 of 10" in result.summary


def test_day_rest_below_half_recovers_one_and_is_capped_at_maximum():
    low = act(make_sheet(max_wounds=10, wounds=4), "day_rest", {})
    assert low.rolls == () and low.sheet["wounds"] == 5
    full = act(make_sheet(max_wounds=10, wounds=9), "day_rest", {"bed": True}, [3])
    assert full.sheet["wounds"] == 10


def test_day_rest_brings_an_unconscious_character_back_above_zero():
    sheet = act(make_sheet(max_wounds=4, wounds=1), "damage", {"amount": 1}, [6]).sheet
    result = act(sheet, "day_rest", {"bed": True})
    assert result.sheet["wounds"] == 2 and result.sheet["state"] == "alive"
    assert result.sheet["conditions"]["unconscious"] is True  # still out until the wake-up


def test_day_rest_needs_food_and_water():
    sheet = make_sheet(max_wounds=10, wounds=5, strength=8, max_strength=10)
    sheet = act(sheet, "set_supplies", {"food": False}).sheet
    result = act(sheet, "day_rest", {})
    assert result.rolls == () and result.sheet["wounds"] == 5 and result.sheet["strength"] == 8
    assert "without food it is no day of rest" in result.summary


def test_day_rest_twice_in_a_day_is_refused():
    sheet = act(make_sheet(max_wounds=10), "day_rest", {}, clock=0).sheet
    with pytest.raises(RuleError, match="a full day must pass"):
        act(sheet, "day_rest", {}, clock=DAY - 1)


def test_temporary_ability_loss_recovers_a_point_a_day_and_one_more_each_full_week():
    sheet = make_sheet(strength=4, max_strength=14, wisdom=10, max_wisdom=11, charisma=9)
    sheet = act(
        sheet, "ability_loss", {"ability": "charisma", "amount": 2, "permanent": True}
    ).sheet
    strengths = []
    for day in range(8):
        result = act(sheet, "day_rest", {}, clock=day * DAY)
        sheet = result.sheet
        strengths.append(sheet["strength"])
        assert sheet["rest"]["streak_days"] == day + 1
    # a point a day, and an extra one at the end of day 7 (OS-10)
    assert strengths == [5, 6, 7, 8, 9, 10, 12, 13]
    assert sheet["wisdom"] == 11  # never above maximum
    assert (sheet["charisma"], sheet["max_charisma"]) == (7, 7)  # permanent loss stays


def test_the_week_of_rest_starts_over_after_a_break():
    # project ruling OS-P10
    sheet = make_sheet(strength=3, max_strength=18)
    for day in range(6):
        sheet = act(sheet, "day_rest", {}, clock=day * DAY).sheet
    sheet = act(sheet, "search", {"squares": 1}, [6], clock=6 * DAY - 10).sheet
    assert sheet["resting"] is False and sheet["rest"]["streak_days"] == 0
    result = act(sheet, "day_rest", {}, clock=6 * DAY)
    assert result.sheet["rest"]["streak_days"] == 1 and result.sheet["strength"] == 10
    gap = act(result.sheet, "day_rest", {}, clock=9 * DAY)  # two idle days between
    assert gap.sheet["rest"]["streak_days"] == 1


def test_constitution_recovery_raises_wounds_by_the_modifier_change():
    sheet = make_sheet(constitution=12, max_constitution=13, level=3, max_wounds=12, wounds=9)
    result = act(sheet, "day_rest", {}, [1])
    assert result.sheet["constitution"] == 13
    assert (result.sheet["wounds"], result.sheet["max_wounds"]) == (13, 15)


# -- editable tables and campaign options ----------------------------------------------------------


def test_the_default_tables_pass_their_own_checks():
    OS.validate_table("critical_injuries", OS.tables["critical_injuries"])
    OS.validate_table("diseases", OS.tables["diseases"])


@pytest.mark.parametrize(
    ("key", "data", "message"),
    [
        ("critical_injuries", {"min": 1}, "invalid critical injury table"),
        ("critical_injuries", [{"min": 5, "max": 3, "description": "Oops"}], "ends before"),
        (
            "critical_injuries",
            [{"min": 1, "max": 3, "description": "x", "effect": {"type": "maim"}}],
            "invalid critical injury table",
        ),
        ("diseases", [], "invalid disease table"),
        (
            "diseases",
            {"Pox": {"incubation_minutes": 0, "interval_minutes": 0, "infection_minutes": 60}},
            "invalid disease table",
        ),
        (
            "diseases",
            {
                "Pox": {
                    "incubation_minutes": 0,
                    "interval_minutes": 60,
                    "infection_minutes": 60,
                    "effect": {"type": "ability_loss"},
                }
            },
            "invalid disease table",
        ),
        ("scars", [], "no table"),
    ],
)
def test_a_referees_bad_table_edit_is_refused(key, data, message):
    with pytest.raises(RuleError, match=message):
        OS.validate_table(key, data)


def test_a_bad_campaign_option_is_a_rule_error():
    with pytest.raises(RuleError, match="campaign options"):
        act(make_sheet(), "drink", {}, options={"drunk_hours": "all night"})
    with pytest.raises(RuleError, match="campaign options"):
        act(make_sheet(), "night_rest", {}, options={"hostile_place": "yes"})


def test_a_critical_injury_that_costs_constitution_moves_wounds_but_is_not_damage():
    # project ruling OS-P13: 1d10+9 shows 15, internal injuries, -1 Constitution for good
    sheet = make_sheet(constitution=13, level=2, max_wounds=10, wounds=1)
    result = act(sheet, "damage", {"amount": 10}, [6, 1])
    assert (result.sheet["constitution"], result.sheet["max_constitution"]) == (12, 12)
    assert (result.sheet["wounds"], result.sheet["max_wounds"]) == (-11, 8)
    assert result.sheet["state"] == "down"


def test_resting_ends_with_damage_a_fall_or_set_resting_false():
    # project ruling OS-P10
    rested = act(make_sheet(max_wounds=10), "day_rest", {}).sheet
    assert rested["resting"] is True and rested["rest"]["streak_days"] == 1
    hurt = act(rested, "damage", {"amount": 1})
    assert hurt.sheet["resting"] is False and hurt.sheet["rest"]["streak_days"] == 0
    assert hurt.summary == "Is no longer resting; takes 1 damage: wounds 10 -> 9."
    fell = act(rested, "fall", {"feet": 5})
    assert fell.sheet["resting"] is False
    stopped = act(rested, "set_resting", {"resting": False}, referee=False)
    assert stopped.sheet["resting"] is False and stopped.sheet["rest"]["streak_days"] == 0
    started = act(make_sheet(), "set_resting", {"resting": True}, referee=False)
    assert started.sheet["resting"] is True and started.summary == "Is resting."


def test_a_character_created_old_makes_no_saves_for_the_years_before():
    # project ruling OS-P14: only the next birthday can bring a save
    sheet = make_sheet(age=55)
    assert sheet["max_strength"] == 10 and sheet["birthdays"] == 0
    result = apply(sheet, "birthday", {"n": 1}, [20])
    assert [roll.label for roll in result.rolls] == ["save vs paralysis (aging, age 56)"]


# -- issue 26: a level gained while Constitution is low (project ruling OS-P21) -------------
def _recovered(sheet: dict[str, Any]) -> dict[str, Any]:
    """Days of rest, fed, until Constitution is back at its maximum."""
    for day in range(40):
        if sheet["constitution"] >= sheet["max_constitution"]:
            return sheet
        dice = Dice(ScriptedGenerator([3] * 5))
        sheet = OS.resolve(sheet, "day_rest", {"bed": True}, dice, context(day * DAY)).sheet
    raise AssertionError("Constitution never came back")


def test_os_p21_max_wounds_after_recovery_are_those_without_the_loss():
    """Con 13 (+1), level 1, 6 wounds. Without a loss, a level on a d6 of 2 brings 3: 9/9.
    Con 3 (-3) first: the level brings 1 (at least 1, OS-P18); recovering must give 9/9
    again, not 4 + 4 x 2 = 11 (OS-2 by the level alone)."""
    sheet = make_sheet(level=1, constitution=13, max_wounds=6)
    unhurt = OS.level_up(sheet, Dice(ScriptedGenerator([2])), context(), player_character=True)
    assert (unhurt.sheet["wounds"], unhurt.sheet["max_wounds"]) == (9, 9)

    low = act(sheet, "ability_loss", {"ability": "constitution", "amount": 10}).sheet
    assert (low["wounds"], low["max_wounds"]) == (2, 2)
    gained = OS.level_up(low, Dice(ScriptedGenerator([2])), context(), player_character=True)
    assert (gained.sheet["wounds"], gained.sheet["max_wounds"]) == (3, 3)
    back = _recovered(gained.sheet)
    assert back["constitution"] == 13
    assert back["max_wounds"] == 9


def test_os_p21_a_level_gained_high_then_a_loss_and_recovery_comes_back_whole():
    sheet = make_sheet(level=1, constitution=13, max_wounds=6)
    gained = OS.level_up(sheet, Dice(ScriptedGenerator([1])), context(), player_character=True)
    assert gained.sheet["max_wounds"] == 8 and gained.sheet["level_dice"] == [1]
    low = act(gained.sheet, "ability_loss", {"ability": "constitution", "amount": 10}).sheet
    # -4 for the first level, max(1, 1 - 3) - (1 + 1) = -1 for the gained one.
    assert low["max_wounds"] == 3
    assert _recovered(low)["max_wounds"] == 8
