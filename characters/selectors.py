"""Reads for characters: the party list and the views of one sheet."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Sum

from campaigns.models import Campaign
from characters.models import Character
from rules.engine.registry import get_ruleset


@dataclass(frozen=True)
class PartyMember:
    character: Character
    status: str
    is_own: bool


def party(campaign: Campaign, *, viewer_id: int) -> list[PartyMember]:
    """Every character of the campaign with its one-word state; one query."""
    ruleset = get_ruleset(campaign.ruleset)
    characters = Character.objects.filter(campaign=campaign).select_related("owner")
    return [PartyMember(c, ruleset.status(c.sheet), c.owner_id == viewer_id) for c in characters]


def party_totals(campaign: Campaign) -> tuple[int, int]:
    """How many characters the campaign has and the sum of their versions: together a
    cheap witness that the party changed (versions only grow); one query."""
    totals = Character.objects.filter(campaign=campaign).aggregate(
        count=Count("id"), versions=Sum("version")
    )
    return int(totals["count"]), int(totals["versions"] or 0)


def characters_in_order(campaign: Campaign) -> list[Character]:
    """The campaign's characters in the order they were created."""
    return list(Character.objects.filter(campaign=campaign).order_by("pk"))


def public_sheet(character: Character) -> dict[str, Any]:
    """The sheet as clients see it (the Deckahedron deck's order stays on the server)."""
    return get_ruleset(character.campaign.ruleset).public_sheet(character.sheet)
