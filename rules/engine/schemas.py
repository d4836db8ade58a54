"""The JSON Schemas a ruleset describes itself with: its actions and their params, its
campaign options and its outcomes.

A ruleset builds them with these helpers so that every one is closed (an unknown key is
bad input, not ignored) and says what the pages and the API schema need.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rules.engine.data import Who


@dataclass(frozen=True)
class ActionSpec:
    """An action a ruleset offers: served by ``GET rulesets/`` and checked on input."""

    key: str
    label: str
    params: Mapping[str, Any]  # JSON Schema of the params object
    who: Who = "owner"
    description: str = ""
    # A question the page asks before acting, for a lethal or irreversible action.
    confirm: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label,
            "params": copy.deepcopy(dict(self.params)),
            "who": self.who,
            "description": self.description,
        }


def params_schema(properties: Mapping[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """A closed JSON Schema object: unknown params are bad input, not ignored."""
    return {
        "type": "object",
        "properties": dict(properties),
        "required": list(required),
        "additionalProperties": False,
    }


# What a resolution's ``outcome`` may hold in every ruleset, besides the ruleset's own
# facts (:attr:`Ruleset.outcome_properties`): a referee's correction of the sheet
# (rules.play.editing) logs each field it changed, from and to. Other edits, undo and
# redo log no facts ({}).
COMMON_OUTCOME_PROPERTIES: Mapping[str, Any] = {
    "changed": {
        "type": "object",
        "description": "A correction: each field changed, from and to.",
        "additionalProperties": {
            "type": "object",
            "properties": {"from": {}, "to": {}},
            "required": ["from", "to"],
            "additionalProperties": False,
        },
    },
}


def _either(*schemas: Mapping[str, Any]) -> dict[str, Any]:
    return {"anyOf": [dict(schema) for schema in schemas]}


def outcome_schema(properties: Mapping[str, Any]) -> dict[str, Any]:
    """A closed JSON Schema object of a ruleset's outcomes: its facts, each optional (an
    action says only what it found), beside :data:`COMMON_OUTCOME_PROPERTIES` (a fact
    named like one of those may be either)."""
    merged = {key: copy.deepcopy(dict(value)) for key, value in properties.items()}
    for key, common in COMMON_OUTCOME_PROPERTIES.items():
        merged[key] = _either(merged[key], common) if key in merged else copy.deepcopy(common)
    return {"type": "object", "properties": merged, "additionalProperties": False}


# Whole-number options are minutes, hours, hit points...: never absurd.
OPTION_INT_LIMIT = 1_000_000


def options_schema(properties: Mapping[str, Any]) -> dict[str, Any]:
    """A ruleset's campaign options: each property with its ``default``, a ``title`` and a
    ``description`` for the options form, whole numbers bounded; nothing else allowed."""
    for key, prop in properties.items():
        missing = {"default", "title", "description"} - set(prop)
        if missing:
            raise TypeError(f"campaign option {key!r} lacks {', '.join(sorted(missing))}")
        if prop.get("type") == "integer" and not (
            prop.get("minimum", -OPTION_INT_LIMIT - 1) >= -OPTION_INT_LIMIT
            and prop.get("maximum", OPTION_INT_LIMIT + 1) <= OPTION_INT_LIMIT
        ):
            raise TypeError(f"campaign option {key!r} needs a minimum and a maximum")
    return {
        "type": "object",
        "properties": dict(properties),
        "additionalProperties": False,
    }


def json_type(value: Any) -> str:
    """The JSON Schema type of a JSON value."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if value is None:
        return "null"
    return "object"
