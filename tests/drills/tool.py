"""What a drill asks of the app's database, run in the app's environment (JSON out).

``python -m tests.drills.tool setup <characters> <every>``: a hit_dice campaign whose
characters each have a major wound worsening every ``every`` minutes (HD-7), and two
resting characters for players' actions; the referee's API token.

``python -m tests.drills.tool advance_all <minutes>``: every demo character takes the
session's blows (``rules.tests.clock_helpers.play_session``), then every campaign is
advanced (in-process).

``python -m tests.drills.tool fingerprint``: counts and hashes of the rows that matter.

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


def advance_all(minutes: int) -> dict[str, Any]:
    """Advance every campaign by ``minutes`` in-process (embedded mode); a choice on the
    way (G-3) is cancelled by the referee and the job resumed."""
    from campaigns.models import Campaign
    from rules.clock import clock_advance_run, clock_advance_start, clock_job_resume
    from rules.services import resolution_cancel_choice
    from rules.tests.clock_helpers import play_session

    play_session()
    states = {}
    for campaign in Campaign.objects.order_by("pk"):
        job = clock_advance_start(campaign_id=campaign.pk, minutes=minutes)
        clock_advance_run(job_id=job.pk)
        job.refresh_from_db()
        while job.state == "waiting" and job.waiting_on_id is not None:
            resolution_cancel_choice(character_id=job.waiting_on_id, actor=None)
            clock_job_resume(job_id=job.pk)
            clock_advance_run(job_id=job.pk)
            job.refresh_from_db()
        states[campaign.pk] = job.state
    return {"jobs": states}


def fingerprint() -> dict[str, Any]:
    """Every row that matters, hashed: the same after a restore as before the backup."""
    import hashlib

    from campaigns.models import Campaign
    from characters.models import Character
    from rules.models import ClockJob, Resolution, ScheduledEffect

    tables = {
        "campaigns": Campaign.objects.order_by("pk").values_list(
            "pk", "clock", "dice_seed", "dice_counter"
        ),
        "characters": Character.objects.order_by("pk").values_list(
            "pk", "sheet", "version", "pending_choice"
        ),
        "resolutions": Resolution.objects.order_by("pk").values_list(
            "pk", "character_id", "version", "rolls", "sheet_after", "dice_counter_end"
        ),
        "effects": ScheduledEffect.objects.order_by("pk").values_list(
            "pk", "due_at", "state", "resolution_id"
        ),
        "jobs": ClockJob.objects.order_by("pk").values_list("pk", "state", "done"),
    }
    answer: dict[str, Any] = {}
    for name, rows in tables.items():
        listed = list(rows)
        digest = hashlib.sha256(json.dumps(listed, default=str, sort_keys=True).encode())
        answer[name] = [len(listed), digest.hexdigest()]
    return answer


def main(argv: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
    django.setup()
    command, *args = argv
    if command == "setup":
        answer = setup(int(args[0]), int(args[1]))
    elif command == "count":
        answer = count(int(args[0]), int(args[1]))
    elif command == "advance_all":
        answer = advance_all(int(args[0]))
    elif command == "fingerprint":
        answer = fingerprint()
    else:
        raise SystemExit(f"unknown command {command}")
    print(json.dumps(answer, default=str))


if __name__ == "__main__":
    main(sys.argv[1:])
