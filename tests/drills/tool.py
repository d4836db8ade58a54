"""What a drill asks of the app's database, run in the app's environment (JSON out).

``python -m tests.drills.tool setup <characters> <every>``: a hit_dice campaign whose
characters each have a major wound worsening every ``every`` minutes (HD-7), and two
resting characters for players' actions; the referee's API token.

``python -m tests.drills.tool count <campaign> <minutes>``: what the clock applied up to
``minutes``, per character, against what it must have applied (exactly one worsening
per ``every`` minutes each): lost and doubled counted; the log, the sheets and the dice
counter checked to agree (``rules.tests.clock_helpers.assert_whole``).
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from typing import Any

import django


def setup(characters: int, every: int) -> dict[str, Any]:
    from django.contrib.auth import get_user_model

    from accounts.services import token_create
    from campaigns.models import Membership, Role
    from campaigns.services import campaign_create
    from rules.services import character_create
    from rules.tests.clock_helpers import wounded

    users = get_user_model().objects
    referee = users.create_user(username="referee", password="drill-referee-pw")
    player = users.create_user(username="player", password="drill-player-pw")
    campaign = campaign_create(user=referee, name="The drill", ruleset="hit_dice")
    # Only the referee's advances move the clock: the drill counts their effects exactly.
    campaign.actions_move_clock = False
    campaign.save(update_fields=["actions_move_clock"])
    membership = Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)
    wounded_ids = [
        wounded(campaign, player, f"Wounded{i:02d}", every=every).pk for i in range(characters)
    ]
    resting_ids = [
        character_create(membership=membership, name=f"Rester{i}", sheet={"level": 3}).pk
        for i in range(2)
    ]
    _, secret = token_create(user=referee, name="drill", scope="referee")
    return {
        "campaign": campaign.pk,
        "token": secret,
        "wounded": wounded_ids,
        "resting": resting_ids,
    }


def count(campaign_id: int, minutes: int) -> dict[str, Any]:
    from characters.models import Character
    from rules.models import ClockJob, Resolution, ScheduledEffect
    from rules.tests.clock_helpers import assert_whole

    wounded = Character.objects.filter(campaign_id=campaign_id, name__startswith="Wounded")
    effects = Resolution.objects.filter(campaign_id=campaign_id, kind="effect")
    per_effect = Counter(r.params["scheduled_effect"] for r in effects)
    lost = 0
    extra = 0
    for character in wounded:
        every = character.sheet["wounds"][0]["worsens_every"]
        expected = minutes // every
        applied = effects.filter(character=character).count()
        lost += max(0, expected - applied)
        extra += max(0, applied - expected)
    problems = ""
    try:
        from campaigns.models import Campaign

        assert_whole(Campaign.objects.get(pk=campaign_id))
    except AssertionError as error:
        problems = f"log, sheets and dice counter disagree: {error!r}"
    return {
        "lost": lost,
        "doubled": sum(n - 1 for n in per_effect.values() if n > 1) + extra,
        "effects_applied": effects.count(),
        "pending_due": ScheduledEffect.objects.filter(
            campaign_id=campaign_id, state="pending", due_at__lte=minutes
        ).count(),
        "jobs": list(
            ClockJob.objects.filter(campaign_id=campaign_id)
            .order_by("id")
            .values("id", "state", "done", "clock_reached", "target")
        ),
        "clock": Character.objects.get(pk=wounded[0].pk).campaign.clock,
        "problems": problems,
        "resolutions": list(
            Resolution.objects.filter(campaign_id=campaign_id).values_list("id", flat=True)
        ),
    }


def main(argv: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
    django.setup()
    command, *args = argv
    if command == "setup":
        answer = setup(int(args[0]), int(args[1]))
    elif command == "count":
        answer = count(int(args[0]), int(args[1]))
    else:
        raise SystemExit(f"unknown command {command}")
    print(json.dumps(answer, default=str))


if __name__ == "__main__":
    main(sys.argv[1:])
