"""Every registered ruleset has every part of the recipe (docs/adding-a-ruleset.md).

A ruleset is one engine module (what it is), one presentation module (how it is shown),
one docs page and one demo party. Miss a part and the pages used to fall back quietly
(a new-character form with no fields); here it is a failing test, naming the part.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, ClassVar

import pytest
from django.template import TemplateDoesNotExist
from django.template.loader import get_template

from rules.engine import registry
from rules.engine.dice import Dice, SystemGenerator
from rules.engine.interface import (
    ActionSpec,
    Context,
    Result,
    RuleError,
    Ruleset,
    Sheet,
    params_schema,
)
from rules.engine.registry import get_ruleset, ruleset_keys
from web.rulesets import presentation

ROOT = Path(__file__).resolve().parents[1]


def _engine_parts(ruleset: Ruleset) -> list[str]:
    missing = []
    for attribute in ("name", "blurb"):
        if not str(getattr(ruleset, attribute, "")).strip():
            missing.append(f"engine: {attribute}")
    properties = ruleset.sheet_schema.get("properties", {})
    fields = getattr(ruleset, "creation_fields", ())
    if not fields or any(key not in properties for key in fields):
        missing.append("engine: creation_fields (sheet fields a new character's form asks)")
    if not ruleset.actions:
        missing.append("engine: actions")
    for spec in ruleset.actions:
        if not callable(getattr(ruleset, f"action_{spec.key}", None)):
            missing.append(f"engine: action_{spec.key}")
    schema = ruleset.options_schema
    declared = set(schema.get("properties", {}))
    if schema.get("additionalProperties") is not False or declared != set(ruleset.options):
        missing.append("engine: options_schema (built with options_schema())")
    else:
        try:
            if ruleset.check_options({}) != dict(ruleset.options):
                missing.append("engine: options_schema defaults")
        except RuleError:
            missing.append("engine: options_schema refuses its own defaults")
    for key, default in ruleset.tables.items():
        try:
            ruleset.validate_table(key, copy.deepcopy(default))
        except RuleError:
            missing.append(f"engine: table {key} refuses its own default")
    return missing


def _demo_sheet(ruleset: Ruleset, fields: dict[str, Any]) -> Sheet:
    return ruleset.new_sheet(fields, Dice(SystemGenerator(6)))


def missing_parts(key: str) -> list[str]:
    """What ruleset ``key`` lacks of the recipe; [] when it is whole."""
    ruleset = get_ruleset(key)
    missing = _engine_parts(ruleset)
    if not (ROOT / "docs" / "rulesets" / f"{key}.md").is_file():
        missing.append(f"docs: docs/rulesets/{key}.md")
    shown = presentation(key)
    if shown is None:
        return [*missing, f"presentation: web/rulesets/{key}.py with PRESENTATION"]
    for name in shown.templates("sheet") + shown.templates("card"):
        try:
            get_template(name)
        except TemplateDoesNotExist:
            missing.append(f"presentation: template {name}")
    if not shown.party:
        missing.append("presentation: demo party")
    actions = {spec.key for spec in ruleset.actions}
    params = {param for spec in ruleset.actions for param in spec.params.get("properties", {})}
    params |= set(ruleset.creation_fields)
    for param in shown.choices:
        if param not in params:
            missing.append(f"presentation: choices for {param!r}, no form asks for it")
    for demo in shown.party:
        try:
            sheet = _demo_sheet(ruleset, dict(demo.sheet))
        except RuleError as error:
            missing.append(f"presentation: demo {demo.name} ({error})")
            continue
        if not isinstance(shown.view(ruleset.public_sheet(sheet), (), referee=True), dict):
            missing.append(f"presentation: view of {demo.name}")
        for action, _ in demo.opening:
            if action not in actions:
                missing.append(f"presentation: demo {demo.name} opens with unknown {action!r}")
    return missing


@pytest.mark.parametrize("key", ruleset_keys())
def test_every_registered_ruleset_has_every_part(key):
    assert missing_parts(key) == []


class Bare(Ruleset):
    """A ruleset with an engine module only: the recipe's other parts are missing."""

    key = "bare"
    name = "Bare"
    blurb = "Nothing but the engine."
    sheet_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"hp": {"type": "integer", "default": 1}},
    }
    creation_fields = ("hp",)
    actions = (ActionSpec("poke", "Poke", params_schema({})),)

    def default_sheet(self) -> Sheet:
        return {"hp": 1}

    def status(self, sheet: Any) -> str:
        return "standing"

    def action_poke(self, sheet: Sheet, params: Any, dice: Dice, context: Context) -> Result:
        return Result(sheet=sheet, summary="poked")


def test_a_ruleset_missing_a_part_fails_and_names_it(monkeypatch):
    monkeypatch.setitem(registry.RULESETS, "bare", f"{__name__}.Bare")
    get_ruleset.cache_clear()
    try:
        assert missing_parts("bare") == [
            "docs: docs/rulesets/bare.md",
            "presentation: web/rulesets/bare.py with PRESENTATION",
        ]
    finally:
        get_ruleset.cache_clear()


def test_engine_metadata_is_required(monkeypatch):
    monkeypatch.setattr(Bare, "blurb", "")
    monkeypatch.setattr(Bare, "creation_fields", ("mana",))
    assert _engine_parts(Bare()) == [
        "engine: blurb",
        "engine: creation_fields (sheet fields a new character's form asks)",
    ]
