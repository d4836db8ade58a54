"""Reads of the rules app: the resolution log as each viewer may see it."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import Http404

from campaigns.models import Campaign
from campaigns.selectors import clock_display
from characters.choices import public_choice
from characters.models import Character
from core.cleaning import valid_id
from rules.dice import campaign_generator
from rules.engine.dice import DiceExpression
from rules.engine.registry import get_ruleset
from rules.models import ClockJob, Resolution, ScheduledEffect

REFEREE_ONLY = "referee_only"


def resolutions_for_character(character: Character) -> QuerySet[Resolution]:
    """Newest first (the API's log order)."""
    return Resolution.objects.filter(character=character).order_by("-version", "-id")


def resolution_view(
    resolution: Resolution, *, ruleset_key: str, viewer_is_referee: bool
) -> dict[str, Any]:
    """A resolution as the viewer may see it: hidden rolls (G-4) only for referees."""
    ruleset = get_ruleset(ruleset_key)
    show_hidden = viewer_is_referee or resolution.revealed
    rolls = [r for r in resolution.rolls if show_hidden or not r.get("hidden")]
    # A ruleset puts what only the referee may know under outcome["referee_only"] (G-4).
    outcome = {
        key: value
        for key, value in resolution.outcome.items()
        if show_hidden or key != REFEREE_ONLY
    }
    return {
        "id": resolution.pk,
        "character": resolution.character_id,
        "kind": resolution.kind,
        "action": resolution.action,
        "params": resolution.params,
        "rolls": rolls,
        "summary": resolution.summary,
        "outcome": outcome,
        "sheet": ruleset.public_sheet(resolution.sheet_after),
        "version": resolution.version,
        "pending_choice": public_choice(resolution.pending_choice),
        "clock": resolution.clock,
        "actor": resolution.actor_id,
        "undoes": resolution.undoes_id,
        "created_at": resolution.created_at,
    }


def verify_resolution_rolls(resolution: Resolution, campaign: Campaign) -> bool:
    """Recompute every die of the resolution from the campaign's seed and counter range.

    True when the recorded dice are exactly what the HMAC generator gives: proof that
    no roll was altered after the fact.
    """
    generator = campaign_generator(campaign)
    generator.counter = resolution.dice_counter_start
    for roll in resolution.rolls:
        expression = roll["expression"]
        if expression.startswith("shuffle("):
            size = int(expression[len("shuffle(") : -1])
            sides = list(range(size, 1, -1))
        else:
            parsed = DiceExpression.parse(expression)
            sides = [parsed.sides] * parsed.count
        recomputed = [generator.randbelow(s) + 1 for s in sides]
        if recomputed != list(roll["dice"]):
            return False
    return generator.counter == resolution.dice_counter_end


def campaign_tables_view(campaign: Campaign) -> list[dict[str, Any]]:
    """Each editable table of the campaign's ruleset: the campaign's copy or the default."""
    ruleset = get_ruleset(campaign.ruleset)
    edited = {table.key: table.data for table in campaign.tables.all()}
    return [
        {"key": key, "data": edited.get(key, default), "edited": key in edited}
        for key, default in ruleset.tables.items()
    ]


# -- the campaign clock (docs/clock.md) -------------------------------------------------------
def clock_jobs_for_campaign(campaign: Campaign, *, limit: int = 50) -> list[ClockJob]:
    """The campaign's latest clock jobs, newest first."""
    return list(ClockJob.objects.filter(campaign=campaign).order_by("-id")[:limit])


def clock_job_for_campaign(campaign: Campaign, job_id: int | str) -> ClockJob:
    """One job of the campaign; a job of another campaign answers 404 like a missing one."""
    try:
        return ClockJob.objects.get(campaign=campaign, pk=valid_id(job_id))
    except (ClockJob.DoesNotExist, ValueError, TypeError):
        raise Http404("no such clock job") from None


def clock_job_view(job: ClockJob) -> dict[str, Any]:
    clock = job.clock_reached
    return {
        "id": job.pk,
        "kind": job.kind,
        "state": job.state,
        "minutes": job.minutes,
        "done": job.done,
        "total": job.total,
        "clock_start": job.clock_start,
        "target": job.target,
        "clock": clock,
        "clock_display": None if clock is None else clock_display(clock),
        "reason": job.reason,
        "waiting_on": job.waiting_on_id,
        "skipped": job.skipped,
        "created_at": job.created_at,
        "started_at": job.started_at,
        "finished_at": job.finished_at,
    }


def effects_for_viewer(
    campaign: Campaign,
    *,
    viewer_id: int,
    viewer_is_referee: bool,
    state: str | None = None,
    character_id: int | None = None,
) -> QuerySet[ScheduledEffect]:
    """Scheduled effects in due order: referees see all; players their own characters'
    effects, hidden ones left out (ruling G-4)."""
    effects = ScheduledEffect.objects.filter(campaign=campaign)
    if not viewer_is_referee:
        effects = effects.filter(character__owner_id=viewer_id, hidden=False)
    if state is not None:
        effects = effects.filter(state=state)
    if character_id is not None:
        effects = effects.filter(character_id=character_id)
    return effects.order_by("due_at", "id")


def effect_view(effect: ScheduledEffect, *, viewer_is_referee: bool) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": effect.pk,
        "character": effect.character_id,
        "kind": effect.kind,
        "due_at": effect.due_at,
        "due_display": clock_display(effect.due_at),
        "state": effect.state,
        "payload": effect.payload,
        "resolution": effect.resolution_id,
    }
    if viewer_is_referee:
        view["key"] = effect.key
        view["hidden"] = effect.hidden
    return view
