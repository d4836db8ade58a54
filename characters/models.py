"""Characters: a sheet (JSON, validated by the campaign's ruleset) and its version."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from campaigns.models import Campaign


class Character(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="characters")
    # A player, or the referee for NPCs.
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="characters"
    )
    name = models.CharField(max_length=120)
    sheet = models.JSONField(default=dict)
    # Increases by one with every resolution (compare-and-set for clients).
    version = models.PositiveIntegerField(default=1)
    # Null, or the question a resolution stopped on (ruling G-3):
    # {id, kind, prompt, options, state, who}.
    pending_choice = models.JSONField(null=True, blank=True)
    # Set when the character retires (rules.play.editing): kept with its log, takes no actions.
    retired_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name
