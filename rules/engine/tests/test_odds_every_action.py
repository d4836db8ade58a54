"""Every action of every registered ruleset that can be taken has its odds.

The test walks each ruleset's actions over a few sample sheets (fresh, and hurt in the
ways that unlock the other actions) and params made from each action's schema; wherever
the real action resolves, its odds must be computed (never "not computed yet") and add
up to exactly 1. Every action must resolve at least once, so a new action or ruleset
without a sample state fails here until it has one.
"""

from __future__ import annotations

import pytest

from rules.engine.dice import Dice, DiceError, HmacGenerator
from rules.engine.interface import ActionBlocked, OddsUnavailable, RuleError, Ruleset
from rules.engine.registry import all_rulesets
from rules.engine.tests.action_walk import CONTEXT, sample_params, sample_sheets


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
