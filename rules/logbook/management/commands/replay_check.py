"""``manage.py replay_check [campaign ids]``: replay every character's log (rules.logbook.replay).

Prints, per campaign, the characters and resolutions replayed, the rolls checked against
the seed, and the first divergence of each character that has one; exits with an error
when there is any (docs/operations.md: after a restore, after an upgrade).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from rules.logbook.replay import campaigns_to_replay, replay_campaign


class Command(BaseCommand):
    help = "Replay each character's logged resolutions and compare with the stored sheet."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaigns", nargs="*", type=int, help="campaign ids (default: all)")

    def handle(self, *args: Any, **options: Any) -> None:
        diverged = 0
        for campaign in campaigns_to_replay(options["campaigns"]):
            report = replay_campaign(campaign)
            divergences = report.divergences or []
            diverged += len(divergences)
            self.stdout.write(
                f"Campaign {campaign.pk} ({campaign.name}): {report.characters} characters, "
                f"{report.resolutions} resolutions replayed, {report.rolls_checked} rolls "
                f"checked, {len(divergences)} divergences"
            )
            for divergence in divergences:
                self.stdout.write(f"  first divergence: {divergence}")
        if diverged:
            raise CommandError(f"{diverged} characters diverge from their log")
