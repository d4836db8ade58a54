"""Condition monitor ruleset: rulings CM-1..CM-7 and the project rulings CM-P1...
(docs/rulesets/condition_monitor.md), with scripted dice so each value is exact."""

import re
from fractions import Fraction
from pathlib import Path

import pytest

from rules.engine.dice import Dice, ScriptedGenerator
from rules.engine.interface import ActionBlocked, Context, PendingChoice, RuleError
from rules.engine.registry import get_ruleset
from rules.engine.rulesets.condition_monitor import (
    BOX_COUNT,
    BOX_ORDER,
    WOUND_TABLE,
    ConditionMonitor,
    mark_wound,
    ordered,
    penalty,
)

RULES = ConditionMonitor()
EMPTY = [""] * BOX_COUNT
AGG, LETH, NORM = "/\\-", "/\\", "/"


def track(*boxes):
    """Ten boxes: the given ones, then empty ones."""
    return list(boxes) + [""] * (BOX_COUNT - len(boxes))


def make_sheet(boxes=None, **fields):
    """A sheet through the creation path: boxes ordered, state and penalty derived."""
    initial = dict(fields)
    if boxes is not None:
        initial["boxes"] = boxes
    return RULES.new_sheet(initial, Dice(ScriptedGenerator([])))


def on_track(boxes, **fields):
    """A sheet straight onto a track, past the creation rule CM-P8: a full track with a
    back slash in every box is a stabilized one (incapacitated, not dying)."""
    sheet = RULES.default_sheet()
    sheet.update(fields)
    sheet["boxes"] = ordered(boxes)
    sheet["state"] = "incapacitated" if all(sheet["boxes"]) else "ok"
    sheet["penalty"] = penalty(sheet["boxes"], sheet["willpower"], sheet["indomitable"])
    RULES.validate_sheet(sheet)
    return sheet


def run(sheet, action, params, faces=(), *, clock=0, options=None, referee=True):
    """Resolve with scripted faces; every scripted face must be used."""
    generator = ScriptedGenerator(faces)
    context = Context(clock=clock, options=options or {}, by_referee=referee)
    result = RULES.resolve(sheet, action, params, Dice(generator), context)
    assert generator.remaining == 0, "the action rolled fewer dice than scripted"
    return result


def tick(sheet, kind, until, *, clock=None):
    """Apply a clock effect at its minute (or ``clock``); no dice are ever drawn."""
    generator = ScriptedGenerator([])
    context = Context(clock=until if clock is None else clock, by_referee=True)
    return RULES.apply_effect(sheet, kind, {"until": until}, Dice(generator), context)


def answer(sheet, choice, option, *, clock=60):
    result = RULES.choose(
        sheet, choice, option, Dice(ScriptedGenerator([])), Context(clock=clock, by_referee=True)
    )
    return result


def wound(sheet, amount, kind="normal", *, clock=0, options=None):
    """Unsoaked damage (``soak_dice`` 0): the amount is the net damage."""
    return run(
        sheet,
        "damage",
        {"amount": amount, "kind": kind, "soak_dice": 0},
        clock=clock,
        options=options,
    )


# -- the ruleset as a whole --------------------------------------------------------------
def test_registered_with_its_actions_and_default_sheet():
    ruleset = get_ruleset("condition_monitor")
    assert isinstance(ruleset, ConditionMonitor)
    assert [spec.key for spec in ruleset.actions] == [
        "damage",
        "stabilize",
        "heal",
        "medical_care",
    ]
    assert {spec.key: spec.who for spec in ruleset.actions} == {
        "damage": "owner",
        "stabilize": "owner",
        "heal": "referee",
        "medical_care": "referee",
    }
    assert ruleset.options == {"soak_die_size": 6, "soak_hit_threshold": 5, "death_at": 8}
    sheet = make_sheet()
    assert sheet == {
        "strength": 3,
        "willpower": 2,
        "indomitable": False,
        "boxes": EMPTY,
        "state": "ok",
        "penalty": 0,
        "terminal_until": None,
        "dying_until": None,
    }
    assert ruleset.status(sheet) == "ok"


# -- CM-1: the soak test -------------------------------------------------------------------
def test_cm1_soak_pool_of_strength_d6_hits_on_5_or_6_and_is_recorded_with_its_hits():
    result = run(make_sheet(strength=4), "damage", {"amount": 3, "kind": "normal"}, [5, 2, 6, 4])
    (roll,) = result.rolls
    assert roll.label == "Soak test (4 dice)"
    assert roll.expression == "4d6>=5"
    assert roll.dice == (5, 2, 6, 4)
    assert roll.kept == (5, 6)  # the hits
    assert roll.total == 2  # how many hits
    assert result.outcome["hits"] == 2
    assert result.outcome["net"] == 1  # 3 - 2
    assert result.sheet["boxes"] == track(NORM)  # a petty wound
    assert "soak test 4d6 rolls 5, 2, 6, 4: 2 hits" in result.summary


def test_cm1_soak_dice_param_overrides_strength_and_zero_means_no_soak():
    named = run(
        make_sheet(strength=4), "damage", {"amount": 2, "kind": "lethal", "soak_dice": 1}, [5]
    )
    assert [r.expression for r in named.rolls] == ["1d6>=5"]
    assert named.outcome["net"] == 1
    bare = run(make_sheet(strength=4), "damage", {"amount": 2, "kind": "lethal", "soak_dice": 0})
    assert bare.rolls == ()
    assert bare.outcome["net"] == 2
    assert bare.sheet["boxes"] == track(LETH, LETH, LETH)
    weak = run(make_sheet(strength=0), "damage", {"amount": 1, "kind": "normal"})
    assert weak.rolls == () and weak.sheet["boxes"] == track(NORM)


def test_cm1_campaign_options_set_the_die_size_and_hit_threshold():
    options = {"soak_die_size": 10, "soak_hit_threshold": 8}
    result = run(
        make_sheet(strength=4),
        "damage",
        {"amount": 3, "kind": "normal"},
        [8, 7, 10, 1],
        options=options,
    )
    (roll,) = result.rolls
    assert (roll.expression, roll.kept, roll.total) == ("4d10>=8", (8, 10), 2)
    assert result.outcome["net"] == 1


def test_cm1_odds_before_the_roll_without_soak_are_certain():
    sheet = make_sheet()
    odds = RULES.odds(sheet, "damage", {"amount": 5, "kind": "normal", "soak_dice": 0}, Context())
    assert [(o.key, o.probability) for o in odds.outcomes] == [("terminal", Fraction(1))]
    one_die = RULES.odds(
        sheet, "damage", {"amount": 1, "kind": "normal", "soak_dice": 1}, Context()
    )
    assert {o.key: str(o.probability) for o in one_die.outcomes} == {
        "petty": "2/3",
        "none": "1/3",
    }
    with pytest.raises(ActionBlocked, match="dead"):
        RULES.odds(wound(sheet, 8).sheet, "damage", {"amount": 1, "kind": "normal"}, Context())


def test_cm1_a_threshold_above_the_die_is_refused():
    with pytest.raises(RuleError, match="cannot hit on 7"):
        run(
            make_sheet(),
            "damage",
            {"amount": 3, "kind": "normal"},
            options={"soak_hit_threshold": 7},
        )


@pytest.mark.parametrize(
    ("amount", "faces"),
    [(2, [5, 6, 1]), (1, [6, 6, 6]), (0, [])],
    ids=["soaked-to-zero", "soaked-below-zero", "no-damage"],
)
def test_cm1_net_damage_of_zero_or_less_is_no_wound(amount, faces):
    result = run(make_sheet(), "damage", {"amount": amount, "kind": "aggravated"}, faces)
    assert result.sheet == make_sheet()
    assert result.outcome["wound"] is None
    assert result.outcome["net"] == 0


# -- CM-2: the net damage table --------------------------------------------------------------
@pytest.mark.parametrize(
    ("net", "name", "marked", "state"),
    [
        (1, "petty", 1, "ok"),
        (2, "ordinary", 3, "ok"),
        (3, "serious", 6, "ok"),
        (4, "incapacitating", 10, "incapacitated"),
        (5, "terminal", 10, "terminal"),
        (6, "terminal", 10, "terminal"),
        (7, "terminal", 10, "terminal"),
        (8, "death", 0, "dead"),
        (12, "death", 0, "dead"),
    ],
)
def test_cm2_each_row_of_the_net_damage_table(net, name, marked, state):
    # Two hits of three dice soak 2: the scripted damage is net + 2.
    result = run(make_sheet(), "damage", {"amount": net + 2, "kind": "normal"}, [6, 1, 5])
    assert result.outcome["net"] == net
    assert result.outcome["wound"] == name
    assert sum(1 for box in result.sheet["boxes"] if box) == marked
    assert result.sheet["boxes"] == track(*[NORM] * marked)
    assert result.sheet["state"] == state
    if name != "death":
        assert result.outcome["boxes"] == marked


def test_cm2_the_table_as_data():
    assert [(r.net, r.name, r.boxes, r.terminal) for r in WOUND_TABLE] == [
        (1, "petty", 1, False),
        (2, "ordinary", 3, False),
        (3, "serious", 6, False),
        (4, "incapacitating", 10, False),
        (5, "terminal", 10, True),
    ]


def test_cm2_the_table_in_the_referee_docs_is_the_data():
    docs = Path(__file__).resolve().parents[3] / "docs/rulesets/condition_monitor.md"
    section = docs.read_text().split("## The net damage table")[1].split("\n## ")[0]
    printed = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in section.splitlines()
        if re.match(r"^\| \d", line)
    ]
    death_at = RULES.options["death_at"]
    expected = [["0 or less", "none", "none"]]
    for row in WOUND_TABLE:
        nets = range(row.net, death_at) if row.terminal else [row.net]
        boxes = "all 10" if row.boxes == BOX_COUNT else str(row.boxes)
        expected.append([", ".join(map(str, nets)), row.name, boxes])
    expected.append([f"{death_at} or more", "death", "(none: see CM-P3)"])
    assert [[net, wound.split(":")[0], boxes] for net, wound, boxes in printed] == expected


def test_cm2_death_at_option_seven_kills_at_seven():
    options = {"death_at": 7}
    assert wound(make_sheet(), 6, options=options).sheet["state"] == "terminal"
    dead = wound(make_sheet(), 7, options=options)
    assert dead.sheet["state"] == "dead"
    assert dead.outcome["wound"] == "death"
    assert "net damage 7 kills outright" in dead.summary


def test_cm2_death_at_option_above_eight_extends_the_terminal_rows():
    options = {"death_at": 10}
    for net in (8, 9):
        assert wound(make_sheet(), net, options=options).outcome["wound"] == "terminal"
    assert wound(make_sheet(), 10, options=options).sheet["state"] == "dead"


def test_cm2_death_at_option_below_the_terminal_rows_is_refused():
    with pytest.raises(RuleError, match="death_at"):
        wound(make_sheet(), 1, options={"death_at": 4})


def test_cm2_death_leaves_the_track_as_it_was_project_ruling_cm_p3():
    sheet = make_sheet(track(LETH, NORM))
    dead = wound(sheet, 9, "aggravated")
    assert dead.sheet["boxes"] == track(LETH, NORM)
    assert dead.sheet["state"] == "dead"


# -- CM-3: lines placed and displaced ---------------------------------------------------------
@pytest.mark.parametrize(("kind", "box"), [("normal", NORM), ("lethal", LETH), ("aggravated", AGG)])
def test_cm3_each_kind_on_an_empty_track(kind, box):
    result = wound(make_sheet(), 2, kind)  # ordinary: 3 boxes
    assert result.sheet["boxes"] == track(box, box, box)
    assert result.outcome["overflow"] == {}


def test_cm3_mixed_wounds_keep_the_order_aggravated_lethal_normal():
    sheet = wound(make_sheet(), 1, "normal").sheet
    sheet = wound(sheet, 1, "aggravated").sheet
    assert sheet["boxes"] == track(AGG, NORM)
    sheet = wound(sheet, 1, "lethal").sheet
    assert sheet["boxes"] == track(AGG, LETH, NORM)
    sheet = wound(sheet, 2, "normal").sheet
    assert sheet["boxes"] == track(AGG, LETH, NORM, NORM, NORM, NORM)


def test_cm3_a_normal_wound_on_a_full_normal_track_turns_boxes_lethal():
    sheet = make_sheet([NORM] * 10)
    assert sheet["state"] == "incapacitated"
    result = wound(sheet, 2, "normal")  # 3 boxes
    assert result.sheet["boxes"] == [LETH] * 3 + [NORM] * 7
    assert result.outcome["turned_lethal"] == 3
    assert result.outcome["overflow"] == {}
    assert result.sheet["state"] == "incapacitated"
    assert "3 normal boxes turn lethal on the full track" in result.summary


def test_cm3_a_normal_wound_on_a_full_lethal_track_overflows():
    sheet = on_track([LETH] * 9 + [NORM])
    result = wound(sheet, 2, "normal")
    assert result.sheet["boxes"] == [LETH] * 10  # the one normal box turned lethal
    assert result.outcome["turned_lethal"] == 1
    assert result.outcome["overflow"] == {"/": 2}
    assert result.sheet["state"] == "dying"  # every box now holds a back slash (CM-4)


def test_cm3_a_lethal_wound_on_a_full_normal_track_displaces_normal_boxes():
    result = wound(make_sheet([NORM] * 10), 2, "lethal")
    assert result.sheet["boxes"] == [LETH] * 3 + [NORM] * 7
    assert result.outcome["overflow"] == {"/": 3}
    assert "no room left for 3 forward slashes" in result.summary


def test_cm3_an_aggravated_wound_on_a_full_track_displaces_lesser_boxes():
    on_lethal = wound(on_track([LETH] * 8 + [NORM] * 2), 2, "aggravated")
    # The back slashes first fill the two normal boxes, the third has nowhere to go.
    assert on_lethal.sheet["boxes"] == [AGG] * 3 + [LETH] * 7
    assert on_lethal.outcome["overflow"] == {"/": 3, "\\": 1}
    full_lethal = wound(on_track([LETH] * 10), 2, "aggravated")
    assert full_lethal.sheet["boxes"] == [AGG] * 3 + [LETH] * 7
    assert full_lethal.outcome["overflow"] == {"/": 3, "\\": 3}
    on_normal = wound(make_sheet([NORM] * 10), 2, "aggravated")
    assert on_normal.sheet["boxes"] == [AGG] * 3 + [NORM] * 7
    assert on_normal.outcome["overflow"] == {"/": 3}


def test_cm3_an_aggravated_wound_on_a_full_aggravated_track_changes_nothing():
    result = wound(on_track([AGG] * 10), 1, "aggravated")
    assert result.sheet["boxes"] == [AGG] * 10
    assert result.outcome["overflow"] == {"/": 1, "\\": 1, "-": 1}


def test_cm3_a_lethal_wound_on_a_nearly_full_track_fills_then_overflows():
    result = wound(make_sheet(track(*[NORM] * 8)), 3, "lethal")  # 6 boxes: 2 fit, 4 overflow
    assert result.sheet["boxes"] == [LETH] * 6 + [NORM] * 4
    assert result.outcome["overflow"] == {"/": 4}


def test_cm3_lines_go_to_partial_boxes_before_empty_ones():
    sheet = make_sheet(track("\\", "\\"))  # a lethal wound healed of its forward slashes
    result = wound(sheet, 1, "normal")
    assert result.sheet["boxes"] == track(LETH, "\\")


@pytest.mark.parametrize(
    ("line", "count", "after", "healed"),
    [
        ("/", 3, track(AGG, LETH, "\\"), 3),  # the two normal boxes, then a lethal one
        ("\\", 1, track(AGG, LETH, NORM, NORM, NORM), 1),
        ("-", 1, track(LETH, LETH, LETH, NORM, NORM), 1),
        ("-", 4, track(LETH, LETH, LETH, NORM, NORM), 1),  # only one box held a bar
    ],
)
def test_cm7_healing_one_kind_of_line_reorders_the_track(line, count, after, healed):
    sheet = make_sheet(track(AGG, LETH, LETH, NORM, NORM))
    result = run(sheet, "heal", {"line": line, "boxes": count})
    assert result.sheet["boxes"] == after
    assert result.outcome["healed"] == healed
    assert result.sheet["penalty"] == sum(1 for box in after if "/" in box)


def test_cm7_healing_a_line_no_box_holds_is_refused():
    with pytest.raises(RuleError, match="No box holds a horizontal bar"):
        run(make_sheet(track(LETH)), "heal", {"line": "-", "boxes": 1})


def test_cm7_healing_the_last_marks_ends_incapacitation():
    sheet = make_sheet([NORM] * 10)
    result = run(sheet, "heal", {"line": "/", "boxes": 2})
    assert result.sheet["boxes"] == [NORM] * 8 + ["", ""]
    assert result.sheet["state"] == "ok"


def test_cm3_mark_wound_and_ordered_are_pure():
    boxes = ("/", "", "/\\-", "\\")
    assert ordered(boxes) == ["/\\-", "/", "\\", ""]
    assert ordered(["-\\/"]) == ["/\\-"]  # lines written in the order /, \, -
    marking = mark_wound(track(NORM), "lethal", 1)
    assert marking.boxes == tuple(track(LETH, NORM))
    assert list(BOX_ORDER) == ordered(reversed(BOX_ORDER))


# -- CM-6: the wound penalty ------------------------------------------------------------------
PENALTY_TRACK = track(AGG, LETH, LETH, NORM, NORM, "\\", "-")  # 5 boxes with a forward slash


@pytest.mark.parametrize(("willpower", "expected"), [(1, 5), (2, 5), (3, 4), (4, 3), (10, 0)])
def test_cm6_penalty_by_willpower(willpower, expected):
    sheet = make_sheet(PENALTY_TRACK, willpower=willpower)
    assert sheet["penalty"] == expected
    assert penalty(PENALTY_TRACK, willpower, False) == expected


def test_cm6_indomitable_ignores_wound_penalties():
    sheet = make_sheet(PENALTY_TRACK, willpower=1, indomitable=True)
    assert sheet["penalty"] == 0
    assert wound(sheet, 3, "lethal").sheet["penalty"] == 0


def test_cm6_every_resolution_keeps_the_penalty_up_to_date():
    sheet = make_sheet(willpower=4)
    sheet = wound(sheet, 2, "normal").sheet  # 3 boxes, 2 ignored
    assert sheet["penalty"] == 1
    sheet = wound(sheet, 3, "lethal").sheet  # 6 more forward slashes: 9 boxes hold one
    assert sheet["penalty"] == 7
    healed = run(sheet, "heal", {"line": "/", "boxes": 7})  # 2 left, both ignored
    assert healed.sheet["penalty"] == 0
    assert healed.outcome["penalty"] == 0


# -- CM-4: incapacitated and dying -----------------------------------------------------------
def test_cm4_every_box_marked_is_incapacitated_not_dying():
    result = wound(make_sheet(), 4, "normal")
    assert result.sheet["state"] == "incapacitated"
    assert result.effects == ()


def test_cm4_every_box_with_a_back_slash_is_dying_for_an_hour():
    result = wound(make_sheet(), 4, "lethal", clock=100)
    assert result.sheet["state"] == "dying"
    assert result.sheet["dying_until"] == 160
    (effect,) = result.effects
    assert (effect.kind, effect.due_in, dict(effect.payload), effect.key) == (
        "dying_hour",
        60,
        {"until": 160},
        "dying_hour:160",
    )
    assert "stabilize within the hour" in result.summary


def test_cm4_stabilized_within_the_hour_lives():
    dying = wound(make_sheet(), 4, "lethal", clock=100).sheet
    result = run(dying, "stabilize", {}, clock=159, referee=False)
    assert result.sheet["state"] == "incapacitated"
    assert result.sheet["dying_until"] is None
    assert result.cancel_effects == ("dying_hour:160",)
    late = tick(result.sheet, "dying_hour", 160)
    assert late.sheet == result.sheet
    assert late.pending_choice is None


def test_cm4_the_hour_passes_and_the_referee_answers_a_pending_choice():
    dying = wound(make_sheet(), 4, "lethal", clock=100).sheet
    with pytest.raises(ActionBlocked, match="Too late"):
        run(dying, "stabilize", {}, clock=160)
    passed = tick(dying, "dying_hour", 160)
    choice = passed.pending_choice
    assert isinstance(choice, PendingChoice)
    assert choice.kind == "dying_hour"
    assert choice.who == "referee"
    assert choice.option_keys() == ("stabilizes", "dies")
    assert passed.sheet["state"] == "dying"

    lives = answer(passed.sheet, choice, "stabilizes", clock=160)
    assert lives.sheet["state"] == "incapacitated"
    assert lives.sheet["dying_until"] is None
    assert lives.summary.startswith("Stabilizes by itself")

    dies = answer(passed.sheet, choice, "dies", clock=160)
    assert dies.sheet["state"] == "dead"
    assert dies.sheet["dying_until"] is None
    assert dies.summary == "Dies: the wounds degrade to death."


def test_cm4_the_dying_choice_refuses_an_unknown_answer_and_a_stale_one():
    passed = tick(wound(make_sheet(), 4, "lethal").sheet, "dying_hour", 60)
    with pytest.raises(RuleError, match="unknown option"):
        answer(passed.sheet, passed.pending_choice, "lives forever")
    healed = run(passed.sheet, "heal", {"line": "\\", "boxes": 1}).sheet
    with pytest.raises(RuleError, match="no longer dying"):
        answer(healed, passed.pending_choice, "dies")


def test_cm4_healing_a_back_slash_ends_dying():
    dying = wound(make_sheet(), 4, "lethal").sheet
    result = run(dying, "heal", {"line": "\\", "boxes": 1}, clock=30)
    assert result.sheet["state"] == "incapacitated"
    assert result.cancel_effects == ("dying_hour:60",)
    still = run(dying, "heal", {"line": "/", "boxes": 2}, clock=30)
    assert still.sheet["state"] == "dying"  # still a back slash in every box
    assert still.sheet["dying_until"] == 60 and still.cancel_effects == ()


def test_cm4_a_new_wound_while_dying_keeps_the_hour_running_project_ruling_cm_p4():
    dying = wound(make_sheet(), 4, "lethal", clock=0).sheet
    again = wound(dying, 2, "aggravated", clock=30)
    assert again.sheet["dying_until"] == 60
    assert again.effects == () and again.cancel_effects == ()


def test_cm4_a_new_wound_after_stabilizing_starts_a_new_hour_project_ruling_cm_p4():
    stable = run(wound(make_sheet(), 4, "lethal").sheet, "stabilize", {}, clock=10).sheet
    again = wound(stable, 1, "normal", clock=200)
    assert again.sheet["state"] == "dying"
    assert again.sheet["dying_until"] == 260
    assert [e.key for e in again.effects] == ["dying_hour:260"]


# -- CM-5: terminal wounds ----------------------------------------------------------------------
def test_cm5_a_terminal_wound_fills_the_track_and_starts_five_minutes():
    result = wound(make_sheet(), 5, "normal", clock=100)
    assert result.sheet["boxes"] == [NORM] * 10
    assert result.sheet["state"] == "terminal"
    assert result.sheet["terminal_until"] == 105
    (effect,) = result.effects
    assert (effect.kind, effect.due_in, effect.key) == ("terminal_wound", 5, "terminal_wound:105")
    assert result.outcome["dies_at"] == 105


def test_cm5_stabilized_at_four_minutes_it_becomes_an_incapacitating_wound():
    terminal = wound(make_sheet(), 6, "normal", clock=100).sheet
    result = run(terminal, "stabilize", {}, clock=104, referee=False)
    assert result.sheet["state"] == "incapacitated"
    assert result.sheet["terminal_until"] is None
    assert result.cancel_effects == ("terminal_wound:105",)
    assert "now an incapacitating one" in result.summary
    spared = tick(result.sheet, "terminal_wound", 105)
    assert spared.sheet["state"] == "incapacitated"


def test_cm5_not_stabilized_it_kills_at_five_minutes():
    terminal = wound(make_sheet(), 7, "lethal", clock=100).sheet
    with pytest.raises(ActionBlocked, match="Too late"):
        run(terminal, "stabilize", {}, clock=105)
    dead = tick(terminal, "terminal_wound", 105)
    assert dead.sheet["state"] == "dead"
    assert dead.sheet["terminal_until"] is None
    assert "not stabilized in time" in dead.summary


def test_cm5_a_terminal_lethal_wound_stabilized_does_not_start_dying():
    terminal = wound(make_sheet(), 5, "lethal").sheet
    stable = run(terminal, "stabilize", {}, clock=2).sheet
    assert stable["boxes"] == [LETH] * 10
    assert stable["state"] == "incapacitated"


def test_cm5_a_terminal_wound_while_dying_replaces_the_hour():
    dying = wound(make_sheet(), 4, "lethal").sheet
    result = wound(dying, 5, "lethal", clock=10)
    assert result.sheet["state"] == "terminal"
    assert result.sheet["dying_until"] is None
    assert result.cancel_effects == ("dying_hour:60",)
    assert [e.key for e in result.effects] == ["terminal_wound:15"]


def test_cm5_a_second_terminal_wound_keeps_the_first_deadline_project_ruling_cm_p4():
    terminal = wound(make_sheet(), 5, "normal", clock=0).sheet
    again = wound(terminal, 6, "aggravated", clock=3)
    assert again.sheet["terminal_until"] == 5
    assert again.effects == ()
    assert again.sheet["state"] == "terminal"


def test_cm5_death_while_terminal_stops_the_clock():
    terminal = wound(make_sheet(), 5, "normal", clock=0).sheet
    dead = wound(terminal, 8, "normal", clock=1)
    assert dead.sheet["state"] == "dead"
    assert dead.cancel_effects == ("terminal_wound:5",)


def test_cm5_heal_and_care_wait_for_stabilization_project_ruling_cm_p5():
    terminal = wound(make_sheet(), 5, "normal").sheet
    with pytest.raises(ActionBlocked, match="stabilize them first"):
        run(terminal, "heal", {"line": "/", "boxes": 1})
    with pytest.raises(ActionBlocked, match="stabilize them first"):
        run(terminal, "medical_care", {})


def test_stabilize_needs_a_dying_or_terminal_character():
    with pytest.raises(RuleError, match="neither dying nor terminally wounded"):
        run(make_sheet([NORM] * 10), "stabilize", {})


# -- CM-7: medical care or rest ------------------------------------------------------------------
@pytest.mark.parametrize(("means", "word"), [("medical_care", "medical care"), ("rest", "rest")])
def test_cm7_care_turns_an_incapacitating_wound_into_a_serious_one(means, word):
    sheet = make_sheet([AGG, LETH] + [NORM] * 8)
    result = run(sheet, "medical_care", {"means": means})
    assert result.sheet["boxes"] == track(AGG, LETH, NORM, NORM, NORM, NORM)
    assert result.sheet["state"] == "ok"
    assert result.outcome["cleared"] == [NORM] * 4
    assert result.summary.startswith(word[0].upper() + word[1:])


def test_cm7_care_for_a_character_stabilized_with_every_box_lethal():
    stable = run(wound(make_sheet(), 4, "lethal").sheet, "stabilize", {}, clock=5).sheet
    result = run(stable, "medical_care", {})
    assert result.sheet["boxes"] == track(*[LETH] * 6)
    assert result.sheet["state"] == "ok"


def test_cm7_care_needs_an_incapacitated_character():
    with pytest.raises(RuleError, match="not incapacitated"):
        run(make_sheet(track(NORM)), "medical_care", {})
    with pytest.raises(ActionBlocked, match="dying: stabilize"):
        run(wound(make_sheet(), 4, "lethal").sheet, "medical_care", {})


# -- the dead, bad input, the sheet ------------------------------------------------------------
@pytest.mark.parametrize(
    ("action", "params"),
    [
        ("damage", {"amount": 1, "kind": "normal"}),
        ("stabilize", {}),
        ("heal", {"line": "/", "boxes": 1}),
        ("medical_care", {}),
    ],
)
def test_the_dead_cannot_act(action, params):
    dead = wound(make_sheet(), 8, "normal").sheet
    with pytest.raises(ActionBlocked, match="dead"):
        run(dead, action, params)


@pytest.mark.parametrize(
    "params",
    [
        {"amount": -1, "kind": "normal"},
        {"amount": 2, "kind": "fire"},
        {"amount": 2},
        {"amount": 2, "kind": "normal", "soak_dice": -1},
        {"amount": 2, "kind": "normal", "extra": 1},
        {"amount": "2", "kind": "normal"},
    ],
)
def test_bad_damage_params_are_refused(params):
    with pytest.raises(RuleError, match="invalid params for damage"):
        run(make_sheet(), "damage", params)


@pytest.mark.parametrize(
    ("initial", "message"),
    [
        ({"boxes": [""] * 11}, "is too long"),
        ({"boxes": [""] * 9}, "is too short"),
        ({"boxes": ["X"] + [""] * 9}, "is not one of"),
        ({"boxes": ["\\/"] + [""] * 9}, "is not one of"),
        ({"state": "dead"}, "kept by the rules"),
        ({"penalty": 0}, "kept by the rules"),
        ({"willpower": -1}, "minimum"),
        ({"boxes": [LETH] * 10}, "back slash in every box"),
    ],
)
def test_creation_refuses_bad_sheets(initial, message):
    with pytest.raises(RuleError, match=message):
        make_sheet(**initial)


def test_creation_orders_the_boxes_and_derives_state_and_penalty():
    sheet = make_sheet(["", NORM, "", AGG, "\\", LETH, "", "", "", ""], willpower=3)
    assert sheet["boxes"] == track(AGG, LETH, NORM, "\\")
    assert sheet["penalty"] == 2
    assert sheet["state"] == "ok"
    full = make_sheet([NORM] * 9 + ["-"])
    assert full["state"] == "incapacitated"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"boxes": track("", NORM)}, "not in the order"),
        ({"penalty": 3}, "penalty"),
        ({"state": "dying"}, "dying"),
        ({"terminal_until": 5}, "terminal_until"),
        ({"state": "incapacitated"}, "needs every box marked"),
    ],
)
def test_validate_sheet_keeps_the_track_invariants(changes, message):
    sheet = make_sheet(track(NORM))
    sheet.update(changes)
    with pytest.raises(RuleError, match=message):
        RULES.validate_sheet(sheet)


def test_an_unknown_effect_is_refused():
    with pytest.raises(RuleError, match="no scheduled effect"):
        RULES.apply_effect(make_sheet(), "bleed", {}, Dice(ScriptedGenerator([])), Context())
    with pytest.raises(RuleError, match="payload of terminal_wound"):
        RULES.apply_effect(
            make_sheet(),
            "terminal_wound",
            {"until": "soon"},
            Dice(ScriptedGenerator([])),
            Context(),
        )


# -- project ruling CM-P10 (issue 26): only a box filled in as Normal turns lethal ---------
def test_cm_p10_a_normal_wound_on_a_full_track_turns_only_normal_boxes_lethal():
    """The text: "if there are any boxes only filled in as Normal, draw an extra diagonal
    line through ... them to make them Lethal". A partly healed `/-` box is not one."""
    full = [AGG] * 2 + [LETH] * 6 + ["/-"] * 2
    marking = mark_wound(full, "normal", 1)
    assert marking.boxes == tuple(full)  # not `/\-`: no box turns aggravated
    assert marking.turned_lethal == 0
    assert marking.overflow == {"/": 1}
    with_normal = [AGG] * 2 + [LETH] * 5 + [NORM] + ["/-"] * 2
    marking = mark_wound(with_normal, "normal", 2)
    assert marking.boxes == tuple([AGG] * 2 + [LETH] * 6 + ["/-"] * 2)
    assert (marking.turned_lethal, marking.overflow) == (1, {"/": 1})


# Issue 34: CM-P10 for every kind of wound. A full track of lethal boxes and one partly
# healed `/-` box (every box holds a forward slash): a petty wound of any kind finds no
# room for its forward slash, and turns only a whole box, never the `/-` one. The soak
# pool is one scripted die showing 5 (a hit): 2 damage, net 1, a petty wound.
HEALED_TRACK = [LETH] * 9 + ["/-"]


@pytest.mark.parametrize(
    ("kind", "boxes", "overflow"),
    [
        # its forward slash has no box without one, and no box holds just `/`
        ("normal", [LETH] * 9 + ["/-"], {"/": 1}),
        # nor has its back slash a box holding just `/` to turn lethal: both dropped
        ("lethal", [LETH] * 9 + ["/-"], {"/": 1, "\\": 1}),
        # its bar turns one lethal box aggravated: one box, as a petty wound marks
        ("aggravated", [AGG] + [LETH] * 8 + ["/-"], {"/": 1, "\\": 1}),
    ],
)
def test_cm_p10_a_petty_wound_of_any_kind_never_turns_a_partly_healed_box(kind, boxes, overflow):
    sheet = on_track(HEALED_TRACK)
    assert sheet["state"] == "incapacitated"
    result = run(sheet, "damage", {"amount": 2, "kind": kind, "soak_dice": 1}, [5])
    assert result.outcome["net"] == 1
    assert result.sheet["boxes"] == boxes
    assert result.outcome["overflow"] == overflow
    # a back slash is still missing from the `/-` box: incapacitated, not dying
    assert result.sheet["state"] == "incapacitated"
    assert result.sheet["dying_until"] is None and not result.effects


def test_cm_p10_a_lethal_wound_on_a_full_normal_track_still_turns_normal_boxes_lethal():
    """CM-3's "a lethal wound on a track full of normal marks turns N boxes lethal", and an
    aggravated one N boxes aggravated, with scripted soak dice (a miss: net 2, three boxes)."""
    lethal = run(
        on_track([NORM] * 10), "damage", {"amount": 2, "kind": "lethal", "soak_dice": 1}, [1]
    )
    assert lethal.sheet["boxes"] == [LETH] * 3 + [NORM] * 7
    assert lethal.outcome["overflow"] == {"/": 3}
    aggravated = run(
        on_track([LETH] * 4 + [NORM] * 6),
        "damage",
        {"amount": 2, "kind": "aggravated", "soak_dice": 1},
        [2],
    )
    assert aggravated.sheet["boxes"] == [AGG] * 3 + [LETH] * 4 + [NORM] * 3
    assert aggravated.outcome["overflow"] == {"/": 3}


def test_cm_p10_through_the_action_the_summary_says_the_line_had_no_room():
    sheet = make_sheet([AGG] * 2 + [LETH] * 6 + ["/-"] * 2)
    result = RULES.resolve(
        sheet,
        "damage",
        {"amount": 1, "kind": "normal", "soak_dice": 0},
        Dice(ScriptedGenerator([])),
        Context(),
    )
    assert result.sheet["boxes"] == sheet["boxes"]
    assert result.outcome["overflow"] == {"/": 1}
    assert "no room left" in result.summary
