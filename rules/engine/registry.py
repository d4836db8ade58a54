"""The registry of rulesets: key -> dotted path, imported on first use.

Lazy import keeps start-up cheap and lets a broken ruleset fail only its own
campaigns (the pattern of healthchecks' ``TRANSPORTS``).
"""

from __future__ import annotations

import importlib
from functools import cache

from rules.engine.interface import RuleError, Ruleset
from rules.engine.words import say

RULESETS: dict[str, str] = {
    "hit_dice": "rules.engine.rulesets.hit_dice.HitDice",
    "deckahedron": "rules.engine.rulesets.deckahedron.Deckahedron",
    "old_school": "rules.engine.rulesets.old_school.ruleset.OldSchool",
    "condition_monitor": "rules.engine.rulesets.condition_monitor.ConditionMonitor",
    "warband": "rules.engine.rulesets.warband.Warband",
}


def ruleset_keys() -> tuple[str, ...]:
    return tuple(RULESETS)


@cache
def get_ruleset(key: str) -> Ruleset:
    try:
        dotted = RULESETS[key]
    except KeyError:
        raise RuleError(say("unknown ruleset {ruleset}", ruleset=repr(key))) from None
    module_name, class_name = dotted.rsplit(".", 1)
    ruleset_class = getattr(importlib.import_module(module_name), class_name)
    instance = ruleset_class()
    assert isinstance(instance, Ruleset)
    return instance


def all_rulesets() -> list[Ruleset]:
    return [get_ruleset(key) for key in RULESETS]
