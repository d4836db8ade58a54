"""Shared set-up for the campaign clock's tests (rules/clock/tests/test_clock*.py)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any

from django.db import connection
from django.db.models import QuerySet

from campaigns.models import Campaign, Membership
from campaigns.services import campaign_create
from characters.models import Character
from rules.clock.models import ClockJob
from rules.clock.services import clock_advance_run, clock_advance_start
from rules.log.models import Resolution, ResolutionKind, ScheduledEffect
from rules.play.services import character_create, resolution_create_action


def major_wound(wound_id: int = 1) -> dict[str, Any]:
    return {
        "id": wound_id,
        "kind": "major",
        "description": "Gut wound",
        "treated": False,
        "ability_losses": {},
        "worsens_every": None,
        "worsen_dc": 20,
        "until_long_rest": False,
        "expired": False,
        "cause": "spear",
        "received_at": 0,
    }


def wounded(
    campaign: Campaign,
    owner: Any,
    name: str,
    *,
    every: int = 60,
    dc: int = 1,
    strength: int = 50,
    will: int = 50,
    level: int = 2,
    marks: int = 0,
    wounds: int = 1,
    every_others: int | None = None,
) -> Character:
    """A hit_dice character whose major wound worsens every ``every`` minutes (HD-7).

    With the default DC 1 and +50 saves every worsening passes both injury saves (a
    new minor wound, still standing); DC 100 always fails the strength save.
    """
    membership = Membership.objects.get(campaign=campaign, user=owner)
    character = character_create(
        membership=membership,
        name=name,
        sheet={
            "level": level,
            "hit_dice": level,
            "hp": 10,
            "strength_save": strength,
            "will_save": will,
            "major_wound_marks": marks,
            "wounds": [major_wound(i) for i in range(1, wounds + 1)],
        },
    )
    referee = campaign.memberships.get(role="referee").user
    for wound_id in range(1, wounds + 1):
        resolution_create_action(
            character_id=character.pk,
            actor=referee,
            by_referee=True,
            action="describe_wound",
            params={
                "wound": wound_id,
                "description": "Gut wound",
                "worsens_every": every if wound_id == 1 else (every_others or every),
                "worsen_dc": dc,
            },
        )
    character.refresh_from_db()
    return character


FIXED_SEED = "5a" * 32  # tests that depend on what the dice say use a known seed


def twin_campaign(campaign: Campaign, name: str = "Twin") -> Campaign:
    """A second campaign with the same ruleset, members and (fixed) dice seed."""
    campaign.dice_seed = FIXED_SEED
    campaign.save(update_fields=["dice_seed"])
    referee = campaign.memberships.get(role="referee").user
    twin = campaign_create(user=referee, name=name, ruleset=campaign.ruleset)
    for membership in campaign.memberships.exclude(role="referee"):
        Membership.objects.create(campaign=twin, user=membership.user, role=membership.role)
    twin.dice_seed = campaign.dice_seed
    twin.save(update_fields=["dice_seed"])
    return twin


def run_job(campaign: Campaign, minutes: int, **kwargs: Any) -> ClockJob:
    """Create a job and run its task's service in-process (as the eager task would)."""
    job = clock_advance_start(campaign_id=campaign.pk, minutes=minutes, **kwargs)
    clock_advance_run(job_id=job.pk)
    job.refresh_from_db()
    return job


def effect_resolutions(campaign: Campaign) -> QuerySet[Resolution]:
    return (
        Resolution.objects.filter(campaign=campaign, kind=ResolutionKind.EFFECT)
        .select_related("character")
        .order_by("id")
    )


def fingerprint(resolution: Resolution) -> tuple[Any, ...]:
    """What must match between two runs of the same effects: minute, rolls, sheets."""
    return (
        resolution.character.name,
        resolution.action,
        resolution.params["payload"],
        resolution.clock,
        resolution.rolls,
        resolution.summary,
        resolution.sheet_before,
        resolution.sheet_after,
        resolution.version,
        resolution.pending_choice is not None,
        resolution.dice_counter_start,
        resolution.dice_counter_end,
    )


def effect_rows(campaign: Campaign) -> list[tuple[Any, ...]]:
    return [
        (e.character.name, e.kind, e.key, e.due_at, e.state, e.payload)
        for e in ScheduledEffect.objects.filter(campaign=campaign)
        .select_related("character")
        .order_by("id")
    ]


def log_of(campaign: Campaign) -> list[tuple[Any, ...]]:
    return [fingerprint(r) for r in effect_resolutions(campaign)]


def assert_whole(campaign: Campaign) -> None:
    """Nothing half-applied: every done effect has exactly its one resolution, every
    effect resolution belongs to a done effect, each character's log is gap-free and
    its sheet is its latest resolution's, and the dice counter is the last one used."""
    effects = ScheduledEffect.objects.filter(campaign=campaign)
    done = {e.pk: e for e in effects.filter(state="done")}
    resolutions = list(effect_resolutions(campaign))
    assert sorted(done) == sorted(r.params["scheduled_effect"] for r in resolutions)
    assert all(done[r.params["scheduled_effect"]].resolution_id == r.pk for r in resolutions)
    assert not effects.exclude(state="done").exclude(resolution=None).exists()
    for character in Character.objects.filter(campaign=campaign):
        log = list(Resolution.objects.filter(character=character).order_by("version"))
        assert [r.version for r in log] == list(range(1, len(log) + 1))
        assert character.version == log[-1].version
        assert character.sheet == log[-1].sheet_after
        assert character.pending_choice == log[-1].pending_choice
    last = Resolution.objects.filter(campaign=campaign).order_by("-dice_counter_end").first()
    campaign.refresh_from_db()
    assert campaign.dice_counter == (last.dice_counter_end if last else 0)


def run_in_threads(targets: list[Callable[[], Any]]) -> list[BaseException]:
    """Start every target at once (a barrier), each on its own database connection."""
    barrier = threading.Barrier(len(targets))
    errors: list[BaseException] = []

    def worker(target: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            target()
        except BaseException as error:  # collected and asserted on by the test
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(t,)) for t in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return errors


# What the demo parties (seed_demo) go through before a long advance; each may be refused.
SESSION: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "hit_dice": [
        ("damage", {"amount": 25}),
        ("short_rest", {"reroll": True}),
        ("damage", {"amount": 40}),
        ("long_rest", {}),
        ("long_rest", {}),
    ],
    "old_school": [
        ("contract_disease", {"disease": "Green River Fever"}),
    ],
}


def play_session() -> None:
    """Every demo character of those rulesets takes the session's blows, rests and fever,
    resolved by the referee (so the demo has dice to replay and verify)."""
    from core.errors import ResolutionConflict
    from rules.engine.interface import ActionBlocked, RuleError

    for character in Character.objects.filter(campaign__ruleset__in=SESSION).order_by("pk"):
        referee = character.campaign.memberships.get(role="referee").user
        for action, params in SESSION[character.campaign.ruleset]:
            with contextlib.suppress(RuleError, ActionBlocked, ResolutionConflict):
                resolution_create_action(
                    character_id=character.pk,
                    actor=referee,
                    by_referee=True,
                    action=action,
                    params=params,
                )
