"""A resolution's ``params`` as the API publishes them (issue 27): ``HitDiceParams``...,
one object per ruleset whose fields are every param its actions take, the sheet a
character is created with, and what edits, choices, effects, undos and redos record.
A log with every kind of entry in every ruleset fits it (and its outcomes their
``HitDiceOutcome``...); a known field with the wrong type does not."""

from __future__ import annotations

import contextlib
from typing import Any

import jsonschema
import pytest

from campaigns.models import Membership
from core.errors import NotAllowed, ResolutionConflict
from core.openapi import params_component
from rules.clock.services import clock_advance_start
from rules.engine.dice import DiceError
from rules.engine.interface import ActionBlocked, RuleError
from rules.engine.registry import get_ruleset, ruleset_keys
from rules.engine.tests.action_walk import sample_params
from rules.log.models import ResolutionKind
from rules.play.api import RECORDED_PARAMS
from rules.play.editing import (
    character_level_up,
    character_owner_set,
    character_rename,
    character_retire,
)
from rules.play.services import (
    character_create,
    resolution_answer_choice,
    resolution_create_action,
)
from rules.play.tests.published_models import assert_log_fits_published_models
from rules.play.undo import resolution_redo, resolution_undo

pytestmark = pytest.mark.django_db
REFUSED = (RuleError, DiceError, ActionBlocked, ResolutionConflict, NotAllowed)


def _answer(character: Any, referee: Any) -> None:
    character.refresh_from_db()
    if character.pending_choice is not None:
        choice = character.pending_choice
        resolution_answer_choice(
            character_id=character.pk,
            actor=referee,
            by_referee=True,
            choice_id=choice["id"],
            option=choice["options"][-1]["key"],
        )


@pytest.mark.parametrize("ruleset_key", ruleset_keys())
def test_a_log_of_every_kind_fits_the_published_params_and_outcome(
    ruleset_key, make_campaign, referee, player, other_player, django_capture_on_commit_callbacks
):
    ruleset = get_ruleset(ruleset_key)
    campaign = make_campaign(ruleset_key)
    membership = Membership.objects.get(campaign=campaign, user=player)
    character = character_create(
        membership=membership, name="Logged", sheet=ruleset.example_initial
    )
    with django_capture_on_commit_callbacks(execute=True):
        for spec in ruleset.actions:  # every action, with params from its schema
            for params in sample_params(ruleset, spec)[:3]:
                try:
                    _answer(character, referee)
                    resolution_create_action(
                        character_id=character.pk,
                        actor=referee,
                        by_referee=True,
                        action=spec.key,
                        params=params,
                    )
                except REFUSED:
                    continue
        _answer(character, referee)
        clock_advance_start(campaign_id=campaign.pk, minutes=7 * 24 * 60, requested_by=referee)
    _answer(character, referee)
    character_rename(character_id=character.pk, actor=referee, name="Relogged")
    character_owner_set(character_id=character.pk, actor=referee, player=other_player.pk)
    character_retire(character_id=character.pk, actor=referee, retired=True)
    character_retire(character_id=character.pk, actor=referee, retired=False)
    with contextlib.suppress(*REFUSED):  # a ruleset without levels, or a dead character
        character_level_up(character_id=character.pk, actor=referee)
    with django_capture_on_commit_callbacks(execute=True):
        resolution_undo(character_id=character.pk, actor=referee)
        resolution_redo(character_id=character.pk, actor=referee)
    kinds = assert_log_fits_published_models(character)
    assert {ResolutionKind.CREATE, ResolutionKind.ACTION, ResolutionKind.EDIT} <= kinds
    assert {ResolutionKind.UNDO, ResolutionKind.REDO} <= kinds


def test_the_params_model_types_what_it_knows():
    """Known fields carry their types (a wrong one is refused); fields it does not know,
    from older writers or imports, pass."""
    schema = params_component(get_ruleset("hit_dice"), RECORDED_PARAMS).json_schema
    valid = jsonschema.Draft202012Validator(schema)
    assert valid.is_valid({"amount": 12, "give_up": False})  # an action's
    assert valid.is_valid({"from": {"id": 1, "username": "a"}, "to": "Mara"})  # edits'
    assert valid.is_valid({"something_older": [1]})
    assert not valid.is_valid({"amount": "12"})
    assert not valid.is_valid({"retired": "yes"})
    assert schema["properties"]["amount"]["type"] == "integer"
    assert "`damage`" in schema["properties"]["amount"]["description"]
