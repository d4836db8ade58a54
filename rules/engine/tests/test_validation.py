"""The fast validator (fastjsonschema) and the authority (jsonschema) agree.

``rules.engine.validation.validate`` trusts fastjsonschema's "valid" and asks
jsonschema only when it says "invalid". That is sound only if the two agree on every
schema the rulesets use: random sheets and params, near-valid and not, check it.
"""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.engine.dice import Dice, SystemGenerator
from rules.engine.interface import RuleError
from rules.engine.registry import all_rulesets
from rules.engine.validation import is_valid_fast, same_json, validate

RULESETS = all_rulesets()

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**12), max_value=10**12)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=6,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    paths = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            paths += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            paths += _paths(item, (*prefix, index))
    return paths


def _mutate(document: Any, data: st.DataObject) -> Any:
    document = copy.deepcopy(document)
    path = data.draw(st.sampled_from(_paths(document)))
    if not path:
        return data.draw(json_values)
    parent = document
    for part in path[:-1]:
        parent = parent[part]
    action = data.draw(st.sampled_from(["replace", "delete", "add", "nudge"]))
    last = path[-1]
    if action == "replace":
        parent[last] = data.draw(json_values)
    elif action == "delete":
        del parent[last]
    elif action == "add" and isinstance(parent, dict):
        parent[data.draw(st.text(max_size=6))] = data.draw(json_values)
    elif action == "nudge" and isinstance(parent[last], int | float):
        parent[last] = parent[last] + data.draw(st.sampled_from([-1000, -1, 1, 1000, 0.5]))
    return document


def _agree(instance: Any, schema: Any) -> None:
    authority = jsonschema.Draft202012Validator(schema).is_valid(instance)
    fast = is_valid_fast(instance, schema)
    assert fast is not None, "every ruleset schema compiles for the fast path"
    assert fast == authority, instance


def _drawn_sheet(ruleset: Any, data: st.DataObject) -> dict[str, Any]:
    """A new sheet of ``ruleset``, its dice drawn."""
    seed = data.draw(st.integers(0, 1000))
    sheet: dict[str, Any] = ruleset.new_sheet(ruleset.example_initial, Dice(SystemGenerator(seed)))
    return sheet


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda r: r.key)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_fast_and_full_validation_agree_on_sheets(ruleset, data):
    sheet = _drawn_sheet(ruleset, data)
    _agree(sheet, ruleset.sheet_schema)
    for _ in range(3):
        sheet = _mutate(sheet, data)
        _agree(sheet, ruleset.sheet_schema)


@pytest.mark.parametrize(
    "ruleset,action",
    [(r, a) for r in RULESETS for a in r.actions],
    ids=lambda v: getattr(v, "key", None),
)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_fast_and_full_validation_agree_on_params(ruleset, action, data):
    names = list(action.params.get("properties", {}))
    params = (
        {
            name: data.draw(json_values)
            for name in data.draw(st.lists(st.sampled_from(names), unique=True))
        }
        if names
        else {}
    )
    _agree(params, action.params)
    _agree(_mutate(params, data), action.params)


def test_an_invalid_instance_still_gets_the_authoritys_message():
    ruleset = RULESETS[0]
    sheet = ruleset.new_sheet(ruleset.example_initial, Dice(SystemGenerator(1)))
    sheet["state"] = 7
    with pytest.raises(RuleError, match="invalid sheet: state"):
        validate(sheet, ruleset.sheet_schema, "sheet")


# Effects of every kind a disease may have (old_school's EFFECT_SCHEMA: an "if" per kind,
# a "oneOf" for damage), valid and not: the fast path compiles "const" as a one-value
# "enum" and checks a sheet property by property (rules.engine.validation._compile_fast).
DISEASE_EFFECTS = [
    {"type": "none"},
    {"type": "death"},
    {"type": "damage", "amount": 3},
    {"type": "damage", "dice": "2d6"},
    {"type": "damage", "amount": 3, "dice": "2d6"},
    {"type": "damage"},
    {"type": "ability_loss", "abilities": {"strength": 1}, "permanent": True},
    {"type": "ability_loss"},
    {"type": "sleep", "hours": 4},
    {"type": "sleep"},
    {"type": "plague"},
]


def _for_each_disease_effect(test: Any) -> Any:
    """``test(effect, data)`` for each disease effect, with data hypothesis draws."""
    drawn = settings(max_examples=40, deadline=None)(given(data=st.data())(test))
    return pytest.mark.parametrize("effect", DISEASE_EFFECTS, ids=lambda e: "-".join(map(str, e)))(
        drawn
    )


def _old_school_schema() -> Any:
    return next(r for r in RULESETS if r.key == "old_school").sheet_schema


def _diseased_sheet(effect: dict[str, Any]) -> dict[str, Any]:
    ruleset = next(r for r in RULESETS if r.key == "old_school")
    sheet = ruleset.new_sheet(ruleset.example_initial, Dice(SystemGenerator(1)))
    sheet["diseases"] = [
        {
            "name": "Test fever",
            "contracted_at": 0,
            "incubation_minutes": 60,
            "interval_minutes": 240,
            "saves_total": 3,
            "saves_made": 1,
            "saves_failed": 0,
            "effect": copy.deepcopy(effect),
            "hidden": False,
        }
    ]
    return sheet


@_for_each_disease_effect
def test_fast_and_full_validation_agree_on_sheets_with_diseases(effect, data):
    schema = _old_school_schema()
    sheet = _diseased_sheet(effect)
    _agree(sheet, schema)
    _agree(_mutate(sheet, data), schema)


@pytest.mark.parametrize(
    "instance,valid",
    [
        ({"const": "x", "kind": "a"}, True),
        ({"const": 1, "kind": "a"}, False),
        ({"const": "x", "kind": "b"}, False),
        ({"const": "x", "kind": "a", "more": 1}, False),
        ({"kind": "a"}, False),
        ([], False),
    ],
)
def test_const_is_the_keyword_not_a_property_of_that_name(instance, valid):
    # A property named "const" stays a property; the keyword "const" becomes an "enum".
    schema = {
        "type": "object",
        "properties": {"const": {"type": "string"}, "kind": {"const": "a"}},
        "required": ["const", "kind"],
        "additionalProperties": False,
    }
    assert jsonschema.Draft202012Validator(schema).is_valid(instance) is valid
    assert is_valid_fast(instance, schema) is valid


# -- a sheet made from a valid one: only what changed is checked (issue 39) -----------------


def _refusal(instance: Any, schema: Any, valid: Any) -> str | None:
    try:
        validate(instance, schema, "sheet", valid=valid)
    except RuleError as error:
        return str(error)
    return None


@settings(max_examples=100, deadline=None)
@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda r: r.key)
@given(data=st.data())
def test_checking_what_changed_refuses_what_the_whole_check_refuses(ruleset, data):
    sheet = _drawn_sheet(ruleset, data)
    changed = sheet
    for _ in range(data.draw(st.integers(1, 3))):
        changed = _mutate(changed, data)
    # the same refusal (the same words), or none, with the valid sheet given or without
    assert _refusal(changed, ruleset.sheet_schema, sheet) == _refusal(
        changed, ruleset.sheet_schema, None
    )


def test_an_effect_whose_result_breaks_a_changed_property_is_still_refused(monkeypatch):
    from rules.engine.tests.test_old_school import OS, context, make_sheet

    sheet = make_sheet()
    integer = next(k for k, v in sheet.items() if type(v) is int and k != "version")

    def broken(self: Any, sheet: dict[str, Any], *args: Any) -> Any:
        result = original(self, sheet, *args)
        # the same number as a float where the schema wants an integer: equal in Python,
        # not to the schema, so it is checked
        result.sheet[integer] = float(result.sheet[integer]) + 0.5
        return result

    original = type(OS).finish_effect
    monkeypatch.setattr(type(OS), "finish_effect", broken)
    with pytest.raises(RuleError, match=f"invalid sheet: {integer}"):
        OS.apply_effect(sheet, "birthday", {"n": 1}, Dice(SystemGenerator(1)), context())

    def retyped(self: Any, sheet: dict[str, Any], *args: Any) -> Any:
        result = original(self, sheet, *args)
        result.sheet["resting"] = 1 if sheet["resting"] is True else 0  # == True, not a bool
        return result

    monkeypatch.setattr(type(OS), "finish_effect", retyped)
    with pytest.raises(RuleError, match="invalid sheet: resting"):
        OS.apply_effect(sheet, "birthday", {"n": 1}, Dice(SystemGenerator(1)), context())


@pytest.mark.parametrize(
    "a,b,same",
    [
        ({"hp": 3, "wounds": [{"n": 1}]}, {"hp": 3, "wounds": [{"n": 1}]}, True),
        ({"a": 1}, {"a": True}, False),
        ([1.0], [1], False),
        ([{"x": None}], [{"x": False}], False),
        (1, True, False),
        ("1", "1", True),
    ],
)
def test_same_json_tells_types_apart(a, b, same):
    assert same_json(a, b) is same


@_for_each_disease_effect
def test_checking_what_changed_in_a_disease_refuses_what_the_whole_check_refuses(effect, data):
    # A sheet's diseases are checked entry by entry, each where it changed (issue 39):
    # a change inside an entry (its count, its effect, a key added or gone, an entry
    # more) is refused in the same words as by the whole check, or accepted by both.
    schema = _old_school_schema()
    sheet = _diseased_sheet(effect)
    valid = sheet if _refusal(sheet, schema, None) is None else None
    changed = copy.deepcopy(sheet)
    if data.draw(st.booleans()):
        changed["diseases"].append(copy.deepcopy(changed["diseases"][0]))
    changed["diseases"] = _mutate(changed["diseases"], data)
    refusal = _refusal(changed, schema, valid)
    assert refusal == _refusal(changed, schema, None)
    assert (refusal is None) is jsonschema.Draft202012Validator(schema).is_valid(changed)
