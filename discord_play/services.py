"""Writes of the Discord interface: a channel bound to a campaign, an interaction
claimed and answered once."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from campaigns.models import Campaign
from discord_play.models import ChannelBinding, Interaction, InteractionState

SNOWFLAKE = re.compile(r"^[0-9]{1,20}$")
INTERACTION_LIFETIME = timedelta(days=1)
# A claim whose request died without answering may be taken over after this long (Discord
# waits three seconds for an answer, then gives up on it).
STALE_CLAIM = timedelta(seconds=30)


def channel_bind(
    *, campaign: Campaign, guild_id: str, channel_id: str, user: Any
) -> ChannelBinding:
    """The channel follows ``campaign`` from now on (the caller checked the user referees
    it); a channel that followed another campaign follows this one."""
    for name, value in (("guild_id", guild_id), ("channel_id", channel_id)):
        if not SNOWFLAKE.match(value or ""):
            raise ValidationError({name: ["A Discord id is a number of 1 to 20 digits."]})
    binding, _ = ChannelBinding.objects.update_or_create(
        channel_id=channel_id,
        defaults={"campaign": campaign, "guild_id": guild_id, "bound_by": user},
    )
    return binding


def interaction_claim(interaction_id: str, *, now: datetime | None = None) -> Interaction | None:
    """Claim the interaction for this request: the new claim, or None when it is claimed
    already (answered, or still being answered: :func:`interaction_answer_of`)."""
    now = now or timezone.now()
    Interaction.objects.filter(expires_at__lte=now).delete()
    try:
        with transaction.atomic():
            return Interaction.objects.create(
                id=interaction_id, claimed_at=now, expires_at=now + INTERACTION_LIFETIME
            )
    except IntegrityError:
        pass
    # A claim whose request died (its process killed) is taken over, by compare-and-set.
    stale = Interaction.objects.filter(
        pk=interaction_id, state=InteractionState.RUNNING, claimed_at__lt=now - STALE_CLAIM
    )
    if stale.update(claimed_at=now):
        return Interaction.objects.get(pk=interaction_id)
    return None


def interaction_answered(claim: Interaction, answer: dict[str, Any]) -> None:
    """Keep the first answer of the claimed interaction, to give it again."""
    Interaction.objects.filter(
        pk=claim.pk, state=InteractionState.RUNNING, claimed_at=claim.claimed_at
    ).update(state=InteractionState.DONE, answer=answer)


def interaction_release(claim: Interaction) -> None:
    """Give the claim up (the request failed): the same interaction sent again acts."""
    Interaction.objects.filter(
        pk=claim.pk, state=InteractionState.RUNNING, claimed_at=claim.claimed_at
    ).delete()
