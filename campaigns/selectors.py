"""Reads for campaigns."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from campaigns.models import Campaign, Membership


def memberships_for_user(user: Any) -> QuerySet[Membership]:
    return (
        Membership.objects.filter(user=user)
        .select_related("campaign")
        .order_by("-campaign__created_at", "-campaign_id")
    )


def clock_display(minutes: int) -> str:
    """Ruling G-1: "Day N, HH:MM", day 1 starting at minute 0."""
    day, minute_of_day = divmod(minutes, 24 * 60)
    hours, mins = divmod(minute_of_day, 60)
    return f"Day {day + 1}, {hours:02d}:{mins:02d}"


def campaign_referee_ids(campaign: Campaign) -> set[int]:
    return set(
        Membership.objects.filter(campaign=campaign, role="referee").values_list(
            "user_id", flat=True
        )
    )
