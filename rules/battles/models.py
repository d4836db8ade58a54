"""A warband battle's record. Its table keeps its first name, ``rules_battle``."""

from __future__ import annotations

from django.db import models

from campaigns.models import Campaign
from core.fields import someone_or_nobody


class Battle(models.Model):
    """A warband battle of a campaign (rulings WB-3, WB-6): turns, not minutes (G-1).

    ``warbands`` are the warbands' names in turn order; ``active`` is an index into
    it. At most one battle of a campaign runs at a time (``ended_at`` null). Writes go
    through ``rules.battles`` under the campaign row lock.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="battles")
    warbands = models.JSONField()
    turn = models.PositiveIntegerField(default=1)
    active = models.PositiveSmallIntegerField(default=0)
    phase = models.CharField(max_length=32)
    started_by = someone_or_nobody()
    started_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "rules_battle"  # its first name: the move kept the data in place
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign"],
                condition=models.Q(ended_at__isnull=True),
                name="one_running_battle_per_campaign",
            ),
            models.CheckConstraint(condition=models.Q(turn__gte=1), name="battle_turn_from_one"),
        ]

    def __str__(self) -> str:
        return f"battle of {self.campaign}, turn {self.turn}"
