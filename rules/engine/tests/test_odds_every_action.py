"""Every action of every registered ruleset that can be taken has its odds.

The test walks each ruleset's actions over a few sample sheets (fresh, and hurt in the
ways that unlock the other actions) and params made from each action's schema; wherever
the real action resolves, its odds must be computed (never "not computed yet") and add
up to exactly 1. Every action must resolve at least once, so a new action or ruleset
without a sample state fails here until it has one.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import pytest

from rules.engine.dice import Dice, DiceError, HmacGenerator
from rules.engine.interface import (
    ActionBlocked,
    ActionSpec,
    Context,
    OddsUnavailable,
    RuleError,
    Ruleset,
)
from rules.engine.registry import all_rulesets

SCARS = {
    "dice": "2d6",
    "rows": [
        {"min": 2, "max": 6, "scar": "Limps"},
        {"min": 7, "max": 12, "scar": "A scar across the face"},
    ],
}
CONTEXT = Context(by_referee=True, tables={"scars": SCARS})
# Params the schema cannot tell (a name from a table).
NAMED: dict[tuple[str, str], Any] = {("old_school", "disease"): "Green River Fever"}
_MAJOR_WOUND = {
    "id": 1,
    "kind": "major",
    "description": "A deep gash",
    "treated": False,
    "ability_losses": {},
    "worsens_every": None,
    "worsen_dc": 20,
    "until_long_rest": False,
    "expired": False,
    "cause": "test",
    "received_at": 0,
}
# Per ruleset, the sample states beside the fresh sheet: fields set on it, or actions
# taken on it first (with dice that roll nothing: soak 0).
PATCHES: dict[str, list[dict[str, Any]]] = {
    "hit_dice": [
        {"level": 3, "hit_dice": 3, "hp": 4, "fatigue": 2},
        {"state": "collapsed", "wounds": [_MAJOR_WOUND], "major_wound_marks": 1},
    ],
    "deckahedron": [{"incapacitated": True}],
    "old_school": [
        {"age": 58, "wounds": 2},
        {"conditions_unconscious": True},
    ],
    "warband": [{"injury": "dazed"}, {"injury": "incapacitated"}],
}
STEPS: dict[str, list[list[tuple[str, dict[str, Any]]]]] = {
    "condition_monitor": [
        [("damage", {"amount": 1, "kind": "normal", "soak_dice": 0})],
        [("damage", {"amount": 4, "kind": "normal", "soak_dice": 0})],
        [("damage", {"amount": 4, "kind": "lethal", "soak_dice": 0})],
        [("damage", {"amount": 5, "kind": "lethal", "soak_dice": 0})],
    ],
    "old_school": [[("contract_disease", {"disease": "Green River Fever", "hidden": False})]],
}


def sample_sheets(ruleset: Ruleset) -> list[dict[str, Any]]:
    fresh = ruleset.new_sheet(dict(ruleset.example_initial), Dice(HmacGenerator(b"walk")))
    sheets = [fresh]
    for patch in PATCHES.get(ruleset.key, []):
        sheet = {**fresh, **{k: v for k, v in patch.items() if k != "conditions_unconscious"}}
        if patch.get("conditions_unconscious"):
            sheet["conditions"] = {**sheet["conditions"], "unconscious": True}
            sheet["conditions"]["unconscious_until"] = 600
        sheets.append(sheet)
    for steps in STEPS.get(ruleset.key, []):
        sheet = fresh
        for action, params in steps:
            sheet = ruleset.resolve(sheet, action, params, Dice(HmacGenerator(b"s")), CONTEXT).sheet
        sheets.append(sheet)
    return sheets


def _candidates(ruleset: Ruleset, name: str, schema: Mapping[str, Any], required: bool) -> list:
    if (ruleset.key, name) in NAMED:
        return [NAMED[(ruleset.key, name)]]
    values: list[Any] = []
    if "enum" in schema:
        values = list(schema["enum"])
    elif schema.get("type") == "boolean":
        values = [True, False]
    elif required and schema.get("type") in ("integer", "number"):
        low = max(schema.get("minimum", 1), 1)
        values = list(dict.fromkeys([low, max(low, min(schema.get("maximum", 12), 12))]))
    elif required and schema.get("type") == "string":
        values = ["A cut"]
    return values if required else [None, *values]


def sample_params(ruleset: Ruleset, spec: ActionSpec) -> list[dict[str, Any]]:
    """Params from the action's schema: each enum and boolean both ways, numbers low and high."""
    properties = spec.params.get("properties", {})
    required = set(spec.params.get("required", []))
    names = list(properties)
    options = [_candidates(ruleset, n, properties[n], n in required) or [None] for n in names]
    combos = itertools.islice(itertools.product(*options), 24)
    return [{n: v for n, v in zip(names, combo, strict=True) if v is not None} for combo in combos]


@pytest.mark.parametrize("ruleset", all_rulesets(), ids=lambda r: r.key)
def test_every_action_that_can_be_taken_has_its_odds(ruleset: Ruleset) -> None:
    resolved: set[str] = set()
    generator = HmacGenerator(f"walk-{ruleset.key}".encode())
    for sheet in sample_sheets(ruleset):
        for spec in ruleset.actions:
            for params in sample_params(ruleset, spec):
                try:
                    ruleset.resolve(sheet, spec.key, params, Dice(generator), CONTEXT)
                except (RuleError, ActionBlocked, DiceError):
                    continue  # refused: the odds refuse it too (test_odds.py)
                resolved.add(spec.key)
                try:
                    odds = ruleset.odds(sheet, spec.key, params, CONTEXT)
                except OddsUnavailable as error:
                    pytest.fail(f"{ruleset.key} {spec.key} {params}: {error}")
                assert sum(o.probability for o in odds.outcomes) == 1
    assert resolved == {spec.key for spec in ruleset.actions}, "actions without a sample state"
