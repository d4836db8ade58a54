"""Corrections stay inside the rules, everywhere (issue 34): a referee's correction of any
field of any ruleset's sheet is either refused, and changes nothing, or leaves a sheet
whose state the ruleset itself agrees with.

Sheets are reached by play: a new character of each ruleset, then random actions with
params inside their schemas on a generator seeded by hypothesis, each choice answered
at random. Then one field (any field of the sheet) is corrected to a random value: a
number around its bounds and the sheet's own numbers, a word of its schema, a boolean,
none, another field's value, or the same field of another sheet reached by play. After
an accepted correction the sheet passes the ruleset's checks and holds what the rules
hold of a sheet in play (``AGREES``, written here from the rulings, not read from the
ruleset's own bounds):

* hit_dice: hp at most 6 a hit die (HD-P14); major wound marks at most the level
  (HD-5, HD-P15: the rules never give a mark beyond it);
* old_school: scores and wounds at most their maximum; a score at 0 is death, 0 wounds
  or below down, above 0 not down (OS-1, OS-4, OS-P22);
* warband: wounds at most the maximum (WB-P13);
* deckahedron: every card in one pile, the wound cards and exhaustion as the tokens say
  (DK-5, DK-7, DK-P14);
* condition_monitor: the boxes in order, the penalty they give, the state they allow,
  a countdown exactly while dying or terminal (CM-3 to CM-6, CM-P11).

A correction to the value the field has already is refused: it would log a change that
changes nothing.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from rules.engine.dice import Dice, SystemGenerator
from rules.engine.interface import (
    ActionBlocked,
    Context,
    CorrectionRefused,
    PendingChoice,
    RuleError,
    Ruleset,
)
from rules.engine.registry import get_ruleset, ruleset_keys
from rules.engine.rulesets import condition_monitor as cm
from rules.engine.rulesets import deckahedron as dk

ABILITIES = ("strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma")


def _hit_dice(sheet: Mapping[str, Any]) -> list[str]:
    problems = []
    if sheet["hp"] > 6 * sheet["hit_dice"]:
        problems.append("hp above what the hit dice roll")
    if sheet["major_wound_marks"] > sheet["level"]:
        problems.append("more major wound marks than the level")
    return problems


def _old_school(sheet: Mapping[str, Any]) -> list[str]:
    problems = [f"{a} above its maximum" for a in ABILITIES if sheet[a] > sheet[f"max_{a}"]]
    if sheet["wounds"] > sheet["max_wounds"]:
        problems.append("wounds above the maximum")
    if sheet["state"] != "dead":
        if any(sheet[a] == 0 for a in ABILITIES):
            problems.append("a score at 0 and not dead")
        if (sheet["wounds"] <= 0) != (sheet["state"] == "down"):
            problems.append("down is not what the wounds say")
    return problems


def _warband(sheet: Mapping[str, Any]) -> list[str]:
    return ["wounds above the maximum"] if sheet["wounds"] > sheet["max_wounds"] else []


def _deckahedron(sheet: Mapping[str, Any]) -> list[str]:
    piles = [*sheet["deck"], *sheet["discard"], *sheet["exhaustion"]]
    problems = []
    if sorted(c for c in piles if c in dk.DECK_CARD_IDS) != sorted(dk.DECK_CARD_IDS):
        problems.append("a card lost or doubled")
    wound_cards = [c for c in dk.WOUND_CARD_IDS if c in piles]
    if wound_cards != list(dk.WOUND_CARD_IDS[: sheet["wounds"]]) or len(piles) != len(set(piles)):
        problems.append("wound cards not as the tokens say")
    if any(c in dk.WOUND_CARD_IDS for c in sheet["exhaustion"]):
        problems.append("a wound card on the exhaustion pile")
    if len(sheet["exhaustion"]) < sheet["harm"] + sheet["wounds"]:
        problems.append("fewer exhaustion cards than tokens")
    return problems


def _condition_monitor(sheet: Mapping[str, Any]) -> list[str]:
    boxes, state = sheet["boxes"], sheet["state"]
    problems = []
    if list(boxes) != cm.ordered(boxes):
        problems.append("boxes out of order")
    if sheet["penalty"] != cm.penalty(boxes, sheet["willpower"], sheet["indomitable"]):
        problems.append("a penalty the boxes do not give")
    if state in ("incapacitated", "dying", "terminal") and not all(boxes):
        problems.append(f"{state} with an empty box")
    if state == "dying" and not cm.all_back(boxes):
        problems.append("dying without a back slash in every box")
    if state == "ok" and all(boxes):
        problems.append("ok with every box marked")
    if (sheet["dying_until"] is not None) != (state == "dying"):
        problems.append("a dying countdown that is not the state's")
    if (sheet["terminal_until"] is not None) != (state == "terminal"):
        problems.append("a terminal countdown that is not the state's")
    return problems


AGREES: dict[str, Callable[[Mapping[str, Any]], list[str]]] = {
    "hit_dice": _hit_dice,
    "old_school": _old_school,
    "warband": _warband,
    "deckahedron": _deckahedron,
    "condition_monitor": _condition_monitor,
}


def test_every_ruleset_is_covered():
    assert set(AGREES) == set(ruleset_keys())


def _value(schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    """A value inside a params schema (an action played as a referee would)."""
    if "enum" in schema:
        return st.sampled_from(list(schema["enum"]))
    kind = schema.get("type", "string")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "integer":
        low = int(schema.get("minimum", 0))
        return st.integers(low, min(int(schema.get("maximum", low + 12)), low + 12))
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "object":
        return st.just({})
    if kind == "string":
        return st.sampled_from(["A deep cut", "Green River Fever", "2d6", "d20"])
    return st.none()


def _action(ruleset: Ruleset) -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    def params(spec: Any) -> st.SearchStrategy[dict[str, Any]]:
        properties = spec.params.get("properties", {})
        required = set(spec.params.get("required", []))
        return st.fixed_dictionaries(
            {k: _value(v) for k, v in properties.items() if k in required},
            optional={k: _value(v) for k, v in properties.items() if k not in required},
        )

    return st.one_of([st.tuples(st.just(spec.key), params(spec)) for spec in ruleset.actions])


@st.composite
def played(draw: st.DrawFn, key: str) -> dict[str, Any]:
    """A sheet of ``key`` reached by play: created, then a few random actions."""
    ruleset = get_ruleset(key)
    dice = Dice(SystemGenerator(draw(st.integers(0, 2**32))))
    sheet = ruleset.new_sheet(ruleset.example_initial, dice)
    for clock, (action, params) in enumerate(draw(st.lists(_action(ruleset), max_size=6))):
        context = _context(clock * 60)
        try:
            result = ruleset.resolve(sheet, action, params, dice, context)
        except (RuleError, ActionBlocked):
            continue
        sheet = result.sheet
        if result.pending_choice is not None:
            choice: PendingChoice = result.pending_choice
            option = draw(st.sampled_from(list(choice.option_keys())))
            try:
                sheet = ruleset.choose(sheet, choice, option, dice, context).sheet
            except (RuleError, ActionBlocked):
                continue
    return sheet


def _context(clock: int) -> Context:
    return Context(clock=clock, by_referee=True)


def _numbers(sheet: Mapping[str, Any]) -> list[int]:
    return sorted({v for v in sheet.values() if type(v) is int} | {0, 1, -1})


@st.composite
def corrected(draw: st.DrawFn, sheet: dict[str, Any], other: dict[str, Any]) -> tuple[str, Any]:
    """A field of ``sheet`` and a value to correct it to."""
    key = draw(st.sampled_from(sorted(sheet)))
    current = sheet[key]
    numbers = _numbers(sheet)
    options: list[st.SearchStrategy[Any]] = [
        # what the field holds on another sheet in play (an optional field, such as
        # old_school's critical_injuries, may be on one sheet only: then what it holds)
        st.just(other.get(key, copy.deepcopy(current))),
        st.just(copy.deepcopy(current)),  # what it holds already
        st.sampled_from([v for v in sheet.values() if not isinstance(v, list | dict)] or [0]),
        st.sampled_from(numbers),
        st.integers(-2, max(numbers) + 3),
        st.booleans(),
        st.none(),
    ]
    if isinstance(current, list) and current:
        options.append(st.just(current[1:]))  # one less
        options.append(st.just([current[0], *current]))  # one twice
        options.append(st.just(list(reversed(current))))
    return key, draw(st.one_of(options))


@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(AGREES))
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_correction_is_refused_or_leaves_a_sheet_the_rules_agree_with(key, data):
    ruleset = get_ruleset(key)
    sheet = data.draw(played(key), label="sheet")
    assert AGREES[key](sheet) == [], "a sheet reached by play breaks the rules"
    other = data.draw(played(key), label="another sheet")
    field, value = data.draw(corrected(sheet, other), label="correction")
    before = json.dumps(sheet, sort_keys=True)
    try:
        correction = ruleset.correct(sheet, {field: value})
    except CorrectionRefused as refused:
        event(f"refused: {field}")
        assert refused.problems and all(p.strip() for p in refused.problems)
        assert json.dumps(sheet, sort_keys=True) == before  # nothing changed
        return
    except RuleError as error:  # the schema's refusal: its words are the pages' to say
        event(f"refused by the schema: {field}")
        assert str(error).startswith("invalid sheet:"), error
        assert json.dumps(sheet, sort_keys=True) == before
        return
    event(f"corrected: {field}{' and more' if correction.follows else ''}")
    assert json.dumps(sheet, sort_keys=True) == before  # the sheet given is not changed
    after = correction.sheet
    assert after[field] == value
    ruleset.validate_sheet(after)
    assert AGREES[key](after) == [], (field, value, correction.follows)
    assert ruleset.out_of_bounds(after) == (), (field, value)
    assert correction.asked == {field: (sheet[field], value)}
    assert {k for k in after if after[k] != sheet[k]} == {field, *correction.follows}


@pytest.mark.parametrize(
    ("key", "initial", "changes", "refused"),
    [
        # the sheet: "MARKS 7/2", alive
        ("hit_dice", {"level": 2}, {"major_wound_marks": 7}, "7 major wound marks"),
        ("hit_dice", {"level": 2, "major_wound_marks": 2}, {"level": 1}, "2 major wound marks"),
        ("old_school", {}, {"strength": 10}, "nothing to correct: strength is 10 already"),
        ("condition_monitor", {}, {"indomitable": False}, "indomitable is no already"),
        ("condition_monitor", {}, {"state": "dying"}, "dying_until is set exactly while"),
    ],
)
def test_refusals_name_the_value_and_why(key, initial, changes, refused):
    ruleset = get_ruleset(key)
    sheet = ruleset.new_sheet(initial, Dice(SystemGenerator(1)))
    with pytest.raises(CorrectionRefused) as error:
        ruleset.correct(sheet, changes)
    assert refused in " ".join(error.value.problems)


def test_marks_at_the_level_are_a_doomed_character_not_a_dead_one():
    """HD-5: at the level, the next failed strength save kills with no choice; the marks
    themselves kill no one (HD-P15)."""
    ruleset = get_ruleset("hit_dice")
    sheet = ruleset.new_sheet({"level": 2}, Dice(SystemGenerator(1)))
    correction = ruleset.correct(sheet, {"major_wound_marks": 2})
    assert correction.sheet["state"] == "standing" and correction.follows == {}


def test_what_follows_a_correction_is_set_by_the_rules():
    # old_school: a score corrected to 0 kills (OS-1)
    school = get_ruleset("old_school")
    sheet = school.new_sheet({}, Dice(SystemGenerator(1)))
    killed = school.correct(sheet, {"constitution": 0})
    assert killed.follows == {"state": ("alive", "dead")}
    # condition_monitor: the penalty follows Willpower (CM-6), the state the boxes, and a
    # state corrected away from dying ends its countdown
    monitor = get_ruleset("condition_monitor")
    wounded = monitor.new_sheet({"boxes": ["/"] * 5 + [""] * 5}, Dice(SystemGenerator(1)))
    assert wounded["penalty"] == 5
    steadier = monitor.correct(wounded, {"willpower": 4})
    assert steadier.follows == {"penalty": (5, 3)}
    full = monitor.correct(wounded, {"boxes": ["/"] * 10})
    assert full.follows == {"penalty": (5, 10), "state": ("ok", "incapacitated")}
    dying = {
        **monitor.correct(wounded, {"boxes": ["/\\"] * 10}).sheet,
        "state": "dying",
        "dying_until": 60,
    }
    monitor.validate_sheet(dying)
    stable = monitor.correct(dying, {"state": "incapacitated"})
    assert stable.follows == {"dying_until": (60, None)}
