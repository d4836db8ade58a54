"""The whole log of a campaign (issue 13): every character's resolutions, newest first,
filtered by character, action, who, roll label, in-game time and text.

A referee reads everything; a player reads the entries of their own characters (other
players' sheets are not theirs to see). Hidden rolls stay the referee's (ruling G-4,
``rules.log.selectors.resolution_view``). The query is one page and one count, whatever the
length of the log (``select_related``: no query per entry).
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet, TextField
from django.db.models.functions import Cast

from campaigns.models import Membership
from rules.log.filters import LogFilters
from rules.log.models import Resolution

# The filters are the play's (rules.log.filters): the clock's own entries of the
# log (rules.clock.selectors.clock_log) take the same.


def campaign_log(membership: Membership, filters: LogFilters) -> QuerySet[Resolution]:
    """The entries the member may read, filtered, newest first."""
    rows = Resolution.objects.filter(campaign_id=membership.campaign_id).select_related(
        "actor", "character"
    )
    if not membership.is_referee:
        rows = rows.filter(character__owner_id=membership.user_id)
    if filters.character is not None:
        rows = rows.filter(character_id=filters.character)
    if filters.action:
        rows = rows.filter(action=filters.action)
    if filters.roll:
        rows = rows.annotate(rolls_text=Cast("rolls", TextField())).filter(
            rolls_text__icontains=filters.roll
        )
    return filters.narrow(rows, "summary").order_by("-clock", "-id")


def log_choices(membership: Membership) -> tuple[list[Any], list[Any]]:
    """The characters and the people the log page offers as filters."""
    characters = membership.campaign.characters.order_by("name", "pk")
    if not membership.is_referee:
        characters = characters.filter(owner_id=membership.user_id)
    members = membership.campaign.memberships.select_related("user").order_by("user__username")
    return list(characters), [m.user for m in members]


def party_characters(membership: Membership) -> list[Any]:
    """The characters a party action may pick: the campaign's, not retired, by name."""
    return list(
        membership.campaign.characters.filter(retired_at__isnull=True).order_by("name", "pk")
    )
