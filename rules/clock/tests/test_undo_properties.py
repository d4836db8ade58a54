"""Property test of ruling G-6 (issue 24): an undo returns the character to exactly where
it was, the future included.

Random runs of actions (params near their schemas' limits, choices answered at random),
clock advances, undos (one step, or back to an entry) and redos, in every ruleset,
through the services and the clock's own jobs. The state of the character (sheet,
pending choice, pending scheduled effects: kind, key, due minute, payload, secrecy) is
noted right after every step, under the version it left the character at. Then:

* undoing back to an entry gives the state right after the entry before it (before the
  clock catches up on what is overdue);
* a redo gives the state right after the entry it brings back.

The catch-up jobs and every other clock job then run, as the commit would send them.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from campaigns.models import Campaign, Membership
from characters.models import Character
from core.errors import NotAllowed, ResolutionConflict
from rules.clock.models import ClockJob, ClockJobState
from rules.clock.services import clock_advance_start, clock_job_resume
from rules.clock.tests.clock_helpers import wounded
from rules.engine.dice import DiceError
from rules.engine.interface import ActionBlocked, RuleError
from rules.engine.registry import get_ruleset, ruleset_keys
from rules.log.models import Resolution, ResolutionKind, ScheduledEffect
from rules.play.services import (
    character_create,
    resolution_answer_choice,
    resolution_create_action,
)
from rules.play.tests.published_models import assert_log_fits_published_models
from rules.play.tests.test_api import _plausible_actions
from rules.play.undo import resolution_redo, resolution_undo

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

REFUSED = (
    RuleError,
    DiceError,
    ActionBlocked,
    ResolutionConflict,
    NotAllowed,
    ValidationError,
)
ADVANCES = st.sampled_from([10, 60, 240, 8 * 60, 24 * 60, 7 * 24 * 60])


def state(character: Character) -> tuple[Any, ...]:
    character.refresh_from_db()
    effects = sorted(
        (e.kind, e.key, e.due_at, e.payload, e.hidden)
        for e in ScheduledEffect.objects.filter(character=character, state="pending")
    )
    return character.sheet, character.pending_choice, effects


# Actions that put things on the clock or take them off, for the rulesets whose random
# actions seldom do: a wound that worsens (HD-7) and its treatment, a lethal wound and
# its dying hour (CM-4) and the care that stops it.
SCHEDULING: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "hit_dice": st.one_of(
        st.fixed_dictionaries(
            {
                "action": st.just("describe_wound"),
                "params": st.fixed_dictionaries(
                    {
                        "wound": st.integers(1, 2),
                        "description": st.just("Gut wound"),
                        "worsens_every": st.sampled_from([30, 60, 240]),
                        "worsen_dc": st.integers(1, 20),
                    }
                ),
            }
        ),
        st.fixed_dictionaries(
            {
                "action": st.just("treat_wound"),
                "params": st.fixed_dictionaries({"wound": st.integers(1, 3)}),
            }
        ),
    ),
    "condition_monitor": st.one_of(
        st.fixed_dictionaries(
            {
                "action": st.just("damage"),
                "params": st.fixed_dictionaries(
                    {
                        "amount": st.integers(1, 12),
                        "kind": st.sampled_from(["lethal", "normal"]),
                        "soak_dice": st.just(0),
                    }
                ),
            }
        ),
        st.fixed_dictionaries({"action": st.just("stabilize"), "params": st.just({})}),
    ),
}


def actions(ruleset: str) -> st.SearchStrategy[dict[str, Any]]:
    plausible = _plausible_actions(ruleset)
    return st.one_of(plausible, SCHEDULING[ruleset]) if ruleset in SCHEDULING else plausible


def steps(ruleset: str) -> st.SearchStrategy[tuple[str, Any]]:
    return st.one_of(
        st.tuples(st.just("act"), actions(ruleset)),
        st.tuples(st.just("act"), actions(ruleset)),
        st.tuples(st.just("advance"), ADVANCES),
        st.tuples(st.just("undo"), st.integers(0, 10)),
        st.tuples(st.just("undo_to"), st.integers(0, 10)),
        st.tuples(st.just("redo"), st.none()),
    )


def _resume_waiting(campaign_id: int) -> None:
    """The referee resumes jobs whose choice is answered (ruling G-3)."""
    for job in ClockJob.objects.filter(campaign_id=campaign_id, state=ClockJobState.WAITING):
        waiting = job.waiting_on
        if waiting is None or waiting.pending_choice is None:
            clock_job_resume(job_id=job.pk)


@pytest.mark.parametrize("ruleset", ruleset_keys())
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_undo_returns_the_character_to_where_it_was_future_included(
    make_campaign, referee, player, ruleset, data, django_capture_on_commit_callbacks
) -> None:
    campaign = make_campaign(ruleset)
    # The dice from a seed hypothesis draws: the same example rolls the same dice, so a
    # failure replays and shrinks (a random seed made the steps drawn after a choice
    # differ between runs of one example: hypothesis' "inconsistent data generation").
    seed = data.draw(st.binary(min_size=32, max_size=32), label="dice seed")
    Campaign.objects.filter(pk=campaign.pk).update(dice_seed=seed.hex())
    campaign.refresh_from_db()
    if ruleset == "hit_dice":  # a major wound that worsens every hour (HD-7)
        character = wounded(campaign, player, "Prop", every=60, dc=12, strength=0, will=0)
    else:
        character = character_create(
            membership=Membership.objects.get(campaign=campaign, user=player),
            name="Prop",
            sheet=get_ruleset(ruleset).example_initial,
        )
    # version -> the state right after the step that left the character at it
    after: dict[int, tuple[Any, ...]] = {character.version: state(character)}
    for op, arg in data.draw(st.lists(steps(ruleset), min_size=1, max_size=12), label="steps"):
        with django_capture_on_commit_callbacks(execute=True):
            try:
                if op == "act":
                    resolution_create_action(
                        character_id=character.pk,
                        actor=referee,
                        by_referee=True,
                        action=arg["action"],
                        params=arg["params"],
                    )
                elif op == "advance":
                    clock_advance_start(campaign_id=campaign.pk, minutes=arg, requested_by=referee)
                elif op in ("undo", "undo_to"):
                    in_force = list(
                        Resolution.objects.filter(character=character, undone_by__isnull=True)
                        .exclude(kind__in=(ResolutionKind.CREATE, ResolutionKind.UNDO))
                        .order_by("-version")
                    )
                    # entries whose state before them was noted, the newest for "undo"
                    known = [e for e in in_force if e.version - 1 in after]
                    if op == "undo":
                        known = [e for e in in_force[:1] if e in known]
                    if known:
                        target = known[arg % len(known)]
                        undos = resolution_undo(
                            character_id=character.pk, actor=referee, to=target.pk
                        )
                        revived = sum(len(u.params["revived_effects"]) for u in undos)
                        event(f"undo: effects revived: {min(revived, 3)}")
                        assert state(character) == after[target.version - 1], (
                            f"undo back to {target.action} (v{target.version})"
                        )
                else:
                    redone = resolution_redo(character_id=character.pk, actor=referee)
                    entry = redone.undoes.undoes if redone.undoes else None
                    if entry is not None and entry.version in after:
                        assert state(character) == after[entry.version], f"redo {entry.action}"
            except REFUSED:
                event(f"refused: {op} {arg['action'] if op == 'act' else ''}")
            character.refresh_from_db()
            after.setdefault(character.version, state(character))
        # the clock's jobs have run (catch-up included): the state they left
        _resume_waiting(campaign.pk)
        character.refresh_from_db()
        after.setdefault(character.version, state(character))
        choice = character.pending_choice
        if choice is not None and data.draw(st.booleans(), label="answer"):
            option = data.draw(st.sampled_from([o["key"] for o in choice["options"]]))
            with django_capture_on_commit_callbacks(execute=True):
                resolution_answer_choice(
                    character_id=character.pk,
                    actor=referee,
                    by_referee=True,
                    choice_id=choice["id"],
                    option=option,
                )
                character.refresh_from_db()
                after.setdefault(character.version, state(character))
            _resume_waiting(campaign.pk)
            character.refresh_from_db()
            after.setdefault(character.version, state(character))
    # and every entry these runs logged (effects and catch-ups, undos, redos, choices)
    # fits the models the API publishes for it (issue 27)
    assert_log_fits_published_models(character)
