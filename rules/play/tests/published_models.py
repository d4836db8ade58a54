"""Every entry of a character's log fits the models the API publishes for its ruleset
(issue 27): its ``params`` ``HitDiceParams``..., its ``outcome`` ``HitDiceOutcome``...
Called by the tests that fill logs with every kind of entry (test_params_models.py, the
undo property test), so a new field a writer records cannot go unpublished."""

from __future__ import annotations

import jsonschema

from characters.models import Character
from core.openapi import outcome_component, params_component
from rules.engine.registry import get_ruleset
from rules.log.models import Resolution
from rules.play.api import RECORDED_PARAMS


def assert_log_fits_published_models(character: Character) -> set[str]:
    """Check every entry of ``character``'s log; the kinds of entry it held."""
    ruleset = get_ruleset(character.campaign.ruleset)
    # Strict here: the published model lets fields it does not know through (an older
    # export's), but what today's writers record must all be in it.
    params = {**params_component(ruleset, RECORDED_PARAMS).json_schema}
    params["additionalProperties"] = False
    outcome = outcome_component(ruleset).json_schema
    entries = list(Resolution.objects.filter(character=character))
    for entry in entries:
        where = f"{ruleset.key} {entry.kind} {entry.action} (v{entry.version})"
        for name, value, schema in (
            ("params", entry.params, params),
            ("outcome", entry.outcome, outcome),
        ):
            errors = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(value)]
            assert not errors, f"{where}: {name} {value!r}: {errors}"
    return {entry.kind for entry in entries}
