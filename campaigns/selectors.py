"""Reads for campaigns."""

from __future__ import annotations

import hashlib
from typing import Any

from django.db.models import QuerySet

from campaigns.models import Campaign, Membership, RevealedSeed
from rules.engine.text import clock_text


def memberships_for_user(user: Any) -> QuerySet[Membership]:
    return (
        Membership.objects.filter(user=user)
        .select_related("campaign")
        .order_by("-campaign__created_at", "-campaign_id")
    )


def clock_display(minutes: int) -> str:
    """Ruling G-1: "Day N, HH:MM", written as the rulesets write it (rules.engine.text)."""
    return clock_text(minutes)


def campaign_referee_ids(campaign: Campaign) -> set[int]:
    return set(
        Membership.objects.filter(campaign=campaign, role="referee").values_list(
            "user_id", flat=True
        )
    )


# -- fair dice (docs/dice.md) ------------------------------------------------------------------
def dice_commitment(seed_hex: str) -> str:
    """The public commitment to a seed: SHA-256 of the seed's bytes, lower-case hex."""
    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()


def campaign_seed_periods(campaign: Campaign) -> list[dict[str, Any]]:
    """Every seed the campaign has used, oldest first; the current one keeps its secret."""
    periods: list[dict[str, Any]] = [
        {
            "commitment": dice_commitment(revealed.seed),
            "seed": revealed.seed,
            "first_counter": revealed.first_counter,
            "last_counter": revealed.last_counter,
            "revealed_at": revealed.revealed_at,
        }
        for revealed in RevealedSeed.objects.filter(campaign=campaign)
    ]
    used = campaign.dice_counter > campaign.dice_seed_first_counter
    periods.append(
        {
            "commitment": dice_commitment(campaign.dice_seed),
            "seed": None,  # secret until the referee rotates it
            "first_counter": campaign.dice_seed_first_counter,
            "last_counter": campaign.dice_counter - 1 if used else None,
            "revealed_at": None,
        }
    )
    return periods


def seed_for_counter(campaign: Campaign, counter: int) -> str:
    """The seed (hex) that drew the die at ``counter``: each counter has exactly one."""
    if counter >= campaign.dice_seed_first_counter:
        return campaign.dice_seed
    revealed = RevealedSeed.objects.filter(
        campaign=campaign, first_counter__lte=counter, last_counter__gte=counter
    ).first()
    if revealed is None:  # only a campaign older than seed rotation can get here
        return campaign.dice_seed
    return revealed.seed
