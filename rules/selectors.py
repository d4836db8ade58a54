"""Reads of the rules app: the resolution log as each viewer may see it."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from campaigns.models import Campaign
from characters.models import Character
from characters.selectors import public_choice
from rules.dice import campaign_generator
from rules.engine.dice import DiceExpression
from rules.engine.registry import get_ruleset
from rules.models import Resolution


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
    return {
        "id": resolution.pk,
        "character": resolution.character_id,
        "kind": resolution.kind,
        "action": resolution.action,
        "params": resolution.params,
        "rolls": rolls,
        "summary": resolution.summary,
        "outcome": resolution.outcome,
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
