"""What the Discord interface keeps: which campaign a channel follows, and each
interaction's first answer (its id is its idempotency key)."""

from __future__ import annotations

from django.db import models

from campaigns.models import Campaign
from core.fields import someone_or_nobody


class ChannelBinding(models.Model):
    """A Discord channel follows one campaign: its slash commands (``sheet``, ``advance``,
    ``recap``...) are about that campaign. Bound by the campaign's referee
    (``/sawbones campaign`` or ``PUT campaigns/{id}/discord/``); a channel bound again
    follows the new campaign."""

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="discord_channels"
    )
    # Discord snowflakes (64-bit numbers), kept as the decimal text Discord sends.
    guild_id = models.CharField(max_length=20)
    channel_id = models.CharField(max_length=20, unique=True)
    bound_by = someone_or_nobody()
    bound_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"channel {self.channel_id} follows {self.campaign}"


class InteractionState(models.TextChoices):
    RUNNING = "running", "Being answered"
    DONE = "done", "Answered"


class Interaction(models.Model):
    """One interaction Discord sent, by its id, and the answer it got: the same interaction
    sent again acts once and gets that answer (``discord_play.views``). Claimed by the
    insert of its row, as ``core.idempotency`` claims its keys; kept a day.

    Not ``core.models.IdempotencyKey``: those are a person's, and an interaction may be
    answered before anyone is known (``link``) or after the person is gone (``unlink``)."""

    id = models.CharField(primary_key=True, max_length=20)
    state = models.CharField(
        max_length=16, choices=InteractionState.choices, default=InteractionState.RUNNING
    )
    answer = models.JSONField(null=True, blank=True)
    claimed_at = models.DateTimeField()
    expires_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"Discord interaction {self.id}: {self.state}"
