"""A walk over every action of every registered ruleset (for tests): sample sheets (fresh,
and hurt in the ways that unlock the other actions) and params made from each action's
schema. The odds test (test_odds_every_action.py) resolves every action with them, the
outcome and params tests (test_outcome_schemas.py, rules/play/tests/test_params_models.py)
check what the actions answer, and tests/test_hidden_stays_hidden.py finds with them
every action that can keep a secret from the player. A new action or ruleset without a
sample state fails the odds test until it has one."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from rules.engine.dice import Dice, HmacGenerator
from rules.engine.interface import ActionSpec, Context, Ruleset

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


def sample_sheets(
    ruleset: Ruleset,
    context: Context | None = None,
    steps: Mapping[str, list[list[tuple[str, dict[str, Any]]]]] | None = None,
) -> list[dict[str, Any]]:
    """The fresh sheet and the sample states of :data:`PATCHES` and ``steps`` (default
    :data:`STEPS`), resolved under ``context`` (default :data:`CONTEXT`)."""
    context = context or CONTEXT
    steps = STEPS if steps is None else steps
    fresh = ruleset.new_sheet(dict(ruleset.example_initial), Dice(HmacGenerator(b"walk")))
    sheets = [fresh]
    for patch in PATCHES.get(ruleset.key, []):
        sheet = {**fresh, **{k: v for k, v in patch.items() if k != "conditions_unconscious"}}
        if patch.get("conditions_unconscious"):
            sheet["conditions"] = {**sheet["conditions"], "unconscious": True}
            sheet["conditions"]["unconscious_until"] = 600
        sheets.append(sheet)
    for taken in steps.get(ruleset.key, []):
        sheet = fresh
        for action, params in taken:
            sheet = ruleset.resolve(sheet, action, params, Dice(HmacGenerator(b"s")), context).sheet
        sheets.append(sheet)
    return sheets


def _candidates(
    ruleset: Ruleset,
    name: str,
    schema: Mapping[str, Any],
    required: bool,
    named: Mapping[tuple[str, str], Any],
    text: str | None,
) -> list[Any]:
    if (ruleset.key, name) in named:
        return [named[(ruleset.key, name)]]
    values: list[Any] = []
    if "enum" in schema:
        values = list(schema["enum"])
    elif schema.get("type") == "boolean":
        values = [True, False]
    elif required and schema.get("type") in ("integer", "number"):
        low = max(schema.get("minimum", 1), 1)
        values = list(dict.fromkeys([low, max(low, min(schema.get("maximum", 12), 12))]))
    elif schema.get("type") == "string" and (required or text is not None):
        values = [text or "A cut"]
    return values if required else [None, *values]


def sample_params(
    ruleset: Ruleset,
    spec: ActionSpec,
    named: Mapping[tuple[str, str], Any] | None = None,
    text: str | None = None,
) -> list[dict[str, Any]]:
    """Params from the action's schema: each enum and boolean both ways, numbers low and
    high; ``named`` (default :data:`NAMED`): values the schema cannot tell; ``text``: the
    value of every free text param, optional ones too (default: required ones only)."""
    named = NAMED if named is None else named
    properties = spec.params.get("properties", {})
    required = set(spec.params.get("required", []))
    names = list(properties)
    options = [
        _candidates(ruleset, n, properties[n], n in required, named, text) or [None] for n in names
    ]
    combos = itertools.islice(itertools.product(*options), 24)
    return [{n: v for n, v in zip(names, combo, strict=True) if v is not None} for combo in combos]
