"""Offer only what can be done (issue 24): in every ruleset's terminal states, every
action the ruleset does not rule out (``Ruleset.unavailable``: what a sheet's page
offers) can be taken; an action the rules refuse for the state (ActionBlocked, a 409)
is said unavailable before anyone tries."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from rules.engine.dice import Dice, SystemGenerator
from rules.engine.interface import ActionBlocked, Context, RuleError, Ruleset
from rules.engine.registry import get_ruleset

# Each ruleset's states a character does not leave by itself: the sheet's fields set.
TERMINAL: dict[str, list[dict[str, Any]]] = {
    "hit_dice": [{"state": "dead"}],
    "old_school": [{"state": "dead"}],
    "condition_monitor": [{"state": "dead"}],
    "deckahedron": [{"incapacitated": True}],
    "warband": [{"injury": "incapacitated"}],
}


def _value(schema: Mapping[str, Any]) -> Any:
    """A valid value of a params property: the least the schema allows."""
    if "default" in schema:
        return schema["default"]
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type", "string")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "integer":
        return max(1, schema.get("minimum", 1)) if schema.get("maximum", 1) >= 1 else 0
    if kind == "boolean":
        return False
    if kind == "object":
        return {}
    if kind == "array":
        return []
    return "x" * max(1, schema.get("minLength", 1))


def _params(spec: Any) -> dict[str, Any]:
    properties = spec.params.get("properties", {})
    return {name: _value(properties[name]) for name in spec.params.get("required", [])}


def _sheet(ruleset: Ruleset, fields: Mapping[str, Any]) -> dict[str, Any]:
    initial = dict(ruleset.example_initial)
    sheet = ruleset.new_sheet(initial, Dice(SystemGenerator()))
    sheet.update(fields)
    return sheet


@pytest.mark.parametrize(
    ("key", "fields"), [(key, fields) for key, states in TERMINAL.items() for fields in states]
)
def test_a_terminal_state_offers_only_actions_that_can_be_taken(
    key: str, fields: dict[str, Any]
) -> None:
    ruleset = get_ruleset(key)
    sheet = _sheet(ruleset, fields)
    # the campaign's tables filled in (a warband's Scars table starts empty: the
    # referee's to write, said when a unit rolls on it)
    tables = {"scars": {"dice": "1d20", "rows": [{"min": 1, "max": 20, "scar": "A scar"}]}}
    context = Context(
        clock=0,
        options=dict(ruleset.options),
        by_referee=True,
        tables=tables if key == "warband" else {},
    )
    blocked = []
    for spec in ruleset.actions:
        if ruleset.unavailable(sheet, spec.key) is not None:
            continue  # not offered: the page says why
        try:
            ruleset.resolve(dict(sheet), spec.key, _params(spec), Dice(SystemGenerator()), context)
        except ActionBlocked as error:
            blocked.append(f"{spec.key}: {error}")
        except RuleError:
            pass  # these params, not the state (a wound id the sheet lacks...)
    assert blocked == [], f"{key} {fields} offers actions it refuses"


def test_a_dead_condition_monitor_character_is_offered_nothing() -> None:
    ruleset = get_ruleset("condition_monitor")
    sheet = _sheet(ruleset, {"state": "dead"})
    assert [s.key for s in ruleset.actions if ruleset.unavailable(sheet, s.key) is None] == []
