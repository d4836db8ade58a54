"""What a drill asks of the app's database, run in the app's environment (JSON out).

``python -m tests.drills.tool setup <characters> <every> [<resting>]``: a hit_dice
campaign whose characters each have a major wound worsening every ``every`` minutes
(HD-7), and ``resting`` characters (2 unless told) for players' actions; the referee's
API token.

``python -m tests.drills.tool advance_all <minutes>``: every demo character takes the
session's blows (``rules.clock.tests.clock_helpers.play_session``), then every campaign is
advanced (in-process).

``python -m tests.drills.tool fingerprint``: counts and hashes of the rows that matter.

``python -m tests.drills.tool setup_fever <characters>...``: an old_school campaign for
each number, with that many characters and the same dice seed, each character with Green
River Fever (OS-6: a save every four hours once the week's incubation is over, as in
``bench/clock_advance.py``); the referee's API token.

``python -m tests.drills.tool settled <campaign>...``: whatever the clock and the players
did to each campaign (by id), checked whole: every due effect applied exactly once, each character's
versions contiguous, the dice counter ranges contiguous and the counter the dice used;
a hash of its effects' log (minutes, rolls, sheets) to compare campaigns by.

``python -m tests.drills.tool reference <minutes> <characters>...``: for each number, the
same campaign as ``setup_fever`` makes, advanced in this one process (no broker, no
worker, batches of 500): what a single process computes, to compare with what the
workers computed (``settled``, by number of characters).

``python -m tests.drills.tool setup_flood <campaigns> <dead-url-prefix> <working-url>
<actions-move-clock 0|1>``: campaigns whose webhooks point at a dead port (their actions
moving their clocks or not), and a quiet one whose webhook works, with five characters
whose wounds worsen every 30 minutes (``test_flood.py``); ``webhook_events
<webhook>...``: each webhook's deliveries in order; ``jobs_by_state``: every campaign's
clock jobs counted by state; ``turns_ahead <job>``: the other campaigns' jobs that started
while that job waited.

``python -m tests.drills.tool serve``: answer the commands above, one per line of stdin
(a JSON list of their words), one JSON line each on stdout (``App.tool`` keeps one such
process per app).

``python -m tests.drills.tool count <campaign> <minutes>``: what the clock applied up to
``minutes``, per character, against what it must have applied (exactly one worsening
per ``every`` minutes each): lost and doubled counted; the log, the sheets and the dice
counter checked to agree (``rules.clock.tests.clock_helpers.assert_whole``).
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections import Counter
from typing import Any

import django


def setup(characters: int, every: int, resting: int = 2) -> dict[str, Any]:
    from django.contrib.auth import get_user_model

    from accounts.services import token_create
    from campaigns.models import Membership, Role
    from campaigns.services import campaign_create
    from rules.clock.tests.clock_helpers import wounded
    from rules.play.services import character_create

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
        for i in range(resting)
    ]
    _, secret = token_create(user=referee, name="drill", scope="referee")
    return {
        "campaign": campaign.pk,
        "token": secret,
        "wounded": wounded_ids,
        "resting": resting_ids,
    }


def setup_flood(campaigns: int, dead: str, working: str, moves: bool) -> dict[str, Any]:
    """``campaigns`` hit_dice campaigns, each with a resting character and a webhook to
    ``dead`` + its number, their actions moving their clocks if ``moves``; a quiet one
    with a webhook to ``working`` and five wounded characters (its clock moved only by the
    referee, so each of its advances has the same work); the tokens."""
    from django.contrib.auth import get_user_model

    from accounts.services import token_create
    from campaigns.models import Membership, Role
    from campaigns.services import campaign_create
    from rules.clock.tests.clock_helpers import wounded
    from rules.play.services import character_create
    from webhooks.services import webhook_create

    users = get_user_model().objects
    referee = users.create_user(username="referee", password="drill-referee-pw")
    player = users.create_user(username="player", password="drill-player-pw")

    def campaign_with(name: str, url: str, moves: bool) -> tuple[Any, dict[str, int]]:
        campaign = campaign_create(user=referee, name=name, ruleset="hit_dice")
        campaign.actions_move_clock = moves
        campaign.save(update_fields=["actions_move_clock"])
        membership = Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)
        character = character_create(membership=membership, name="Rester", sheet={"level": 3})
        if moves:
            # a wound that worsens every 4 hours beside the rester: each 8-hour rest
            # crosses two worsenings, so each is a clock job (with nothing due, the
            # clock's fast path would move the clock with no job: issue 30)
            wounded(campaign, player, "Bleeder", every=240)
        hook = webhook_create(campaign=campaign, url=url, user=referee)
        return campaign, {"campaign": campaign.pk, "character": character.pk, "webhook": hook.pk}

    flooded = [campaign_with(f"Flooded {n}", f"{dead}{n}", moves)[1] for n in range(campaigns)]
    campaign, quiet = campaign_with("Quiet", working, False)
    for i in range(5):  # two worsenings each per hour: 10 effects an hour's advance
        wounded(campaign, player, f"Wounded{i}", every=30)
    _, secret = token_create(user=player, name="drill", scope="player")
    _, referee_secret = token_create(user=referee, name="drill", scope="referee")
    return {"flooded": flooded, "quiet": quiet, "token": secret, "referee": referee_secret}


def jobs_by_state() -> dict[str, int]:
    from rules.clock.models import ClockJob

    return dict(Counter(ClockJob.objects.values_list("state", flat=True)))


def webhook_events(webhook_ids: list[int]) -> dict[str, Any]:
    """For each webhook: its deliveries' event ids in delivery order, their states, and
    the attempts each delivery took."""
    from webhooks.models import WebhookDelivery

    answer: dict[str, Any] = {}
    for webhook_id in webhook_ids:
        rows = WebhookDelivery.objects.filter(endpoint_id=webhook_id).order_by("id")
        answer[str(webhook_id)] = {
            "events": [str(uuid) for uuid in rows.values_list("event__uuid", flat=True)],
            "states": dict(Counter(rows.values_list("state", flat=True))),
            "attempts": list(rows.values_list("attempts", flat=True)),
        }
    return answer


def turns_ahead(job_id: int) -> int:
    """The clock jobs of other campaigns that started while the job ``job_id`` waited
    (after it was created, before it started): how many turns it waited behind, counted
    in the queue's own work rather than in seconds. A job run in its own action's
    transaction took no turn of the queue (``started_in_action``)."""
    from rules.clock.models import ClockJob

    job = ClockJob.objects.get(pk=job_id)
    return (
        ClockJob.objects.exclude(campaign_id=job.campaign_id)
        .filter(started_at__gt=job.created_at, started_at__lt=job.started_at)
        .exclude(started_in_action=True)
        .count()
    )


FEVER = "Green River Fever"


def _fever_campaign(referee: Any, name: str, characters: int) -> Any:
    """An old_school campaign with a fixed seed whose characters all contract the fever."""
    from campaigns.models import Membership
    from campaigns.services import campaign_create
    from rules.clock.tests.clock_helpers import FIXED_SEED
    from rules.play.services import character_create, resolution_create_action

    # In bed: no sleep deprivation (OS-8) on top of the fever, as in bench/clock_advance.py.
    campaign = campaign_create(
        user=referee, name=name, ruleset="old_school", options={"track_sleep": False}
    )
    campaign.dice_seed = FIXED_SEED
    campaign.actions_move_clock = False
    campaign.save(update_fields=["dice_seed", "actions_move_clock"])
    membership = Membership.objects.get(campaign=campaign, user=referee)
    for i in range(characters):
        character = character_create(
            membership=membership,
            name=f"Patient {i + 1:03d}",
            sheet={"intelligence": 18, "resting": True},
        )
        resolution_create_action(
            character_id=character.pk,
            actor=referee,
            by_referee=True,
            action="contract_disease",
            params={"disease": FEVER, "hidden": False},
        )
    return campaign


def setup_fever(sizes: list[int]) -> dict[str, Any]:
    from django.contrib.auth import get_user_model

    from accounts.services import token_create

    referee = get_user_model().objects.create_user(username="referee", password="drill-pw")
    ids = [_fever_campaign(referee, f"Fever ward {n + 1}", size).pk for n, size in enumerate(sizes)]
    _, secret = token_create(user=referee, name="drill", scope="referee")
    return {"campaigns": ids, "token": secret}


def _digest(rows: Any) -> str:
    import hashlib

    return hashlib.sha256(json.dumps(rows, default=str, sort_keys=True).encode()).hexdigest()


def settled(campaign_id: int) -> dict[str, Any]:
    from django.db.models import F

    from campaigns.models import Campaign
    from characters.models import Character
    from rules.clock.models import ClockJob
    from rules.clock.tests.clock_helpers import assert_whole, effect_rows, log_of
    from rules.log.models import Resolution, ScheduledEffect

    campaign = Campaign.objects.get(pk=campaign_id)
    problems = []
    try:
        assert_whole(campaign)  # one resolution per done effect, versions 1..n, sheets
    except AssertionError as error:
        problems.append(f"log, sheets and dice counter disagree: {error!r}")
    effects = Resolution.objects.filter(campaign=campaign, kind="effect")
    per_effect = Counter(r.params["scheduled_effect"] for r in effects)
    doubled = sum(n - 1 for n in per_effect.values() if n > 1)
    # The campaign's dice: each resolution's counter range starts where the one before
    # ended, from 0 to the campaign's counter; no two resolutions drew the same dice.
    ranges = sorted(
        Resolution.objects.filter(campaign=campaign)
        .exclude(dice_counter_end=F("dice_counter_start"))
        .values_list("dice_counter_start", "dice_counter_end")
    )
    at = 0
    for start, end in ranges:
        if start != at:
            problems.append(f"dice counter range {start}..{end} does not start at {at}")
            break
        at = end
    if at != campaign.dice_counter:
        problems.append(f"dice used up to {at}, the campaign's counter is {campaign.dice_counter}")
    versions = {}
    for character in Character.objects.filter(campaign=campaign):
        logged = list(
            Resolution.objects.filter(character=character)
            .order_by("version")
            .values_list("version", flat=True)
        )
        if logged != list(range(1, character.version + 1)):
            problems.append(f"{character.name}: versions {logged}, at {character.version}")
        versions[character.pk] = character.version
    return {
        "problems": problems,
        "effects_applied": effects.count(),
        "doubled": doubled,
        "pending_due": ScheduledEffect.objects.filter(
            campaign=campaign, state="pending", due_at__lte=campaign.clock
        ).count(),
        "clock": campaign.clock,
        "dice_counter": campaign.dice_counter,
        "versions": versions,
        "jobs": list(
            ClockJob.objects.filter(campaign=campaign)
            .order_by("id")
            .values("id", "state", "done", "started_at", "finished_at", "reason")
        ),
        "actions": list(
            Resolution.objects.filter(campaign=campaign, kind="action").values_list("id", flat=True)
        ),
        "log": _digest(log_of(campaign)),
        "effects": _digest(effect_rows(campaign)),
    }


def reference(minutes: int, sizes: list[int]) -> dict[str, Any]:
    from django.contrib.auth import get_user_model
    from django.test import override_settings

    from rules.clock.models import ClockJob
    from rules.clock.services import clock_advance_run

    answer = {}
    for characters in sizes:
        referee = get_user_model().objects.create_user(
            username=f"reference-{characters}", password="drill-pw"
        )
        campaign = _fever_campaign(referee, f"Reference ward of {characters}", characters)
        # The job row the advance's API writes, run here as its task would (nothing sent);
        # in big batches: the batch size changes nothing but the speed (docs/clock.md).
        job = ClockJob.objects.create(campaign=campaign, kind="advance", minutes=minutes)
        with override_settings(SAWBONES_CLOCK_BATCH_SIZE=500):
            clock_advance_run(job_id=job.pk)
        answer[str(characters)] = settled(campaign.pk)
    return answer


def count(campaign_id: int, minutes: int) -> dict[str, Any]:
    from characters.models import Character
    from rules.clock.models import ClockJob
    from rules.clock.tests.clock_helpers import assert_whole
    from rules.log.models import Resolution, ScheduledEffect

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
    actions = list(
        Resolution.objects.filter(campaign_id=campaign_id, kind="action")
        .order_by("id")
        .values_list("id", "character_id")
    )
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
            .values("id", "kind", "minutes", "state", "done", "clock_reached", "target")
        ),
        "clock": Character.objects.get(pk=wounded[0].pk).campaign.clock,
        "problems": problems,
        "resolutions": list(
            Resolution.objects.filter(campaign_id=campaign_id).values_list("id", flat=True)
        ),
        # Each character's logged actions (a drill's client acts on its own character:
        # these are exactly the writes its requests made, answered or not).
        "actions": {
            str(character): [pk for pk, of in actions if of == character]
            for character in {of for _, of in actions}
        },
    }


def advance_all(minutes: int) -> dict[str, Any]:
    """Advance every campaign by ``minutes`` in-process (embedded mode); a choice on the
    way (G-3) is cancelled by the referee and the job resumed."""
    from campaigns.models import Campaign
    from rules.clock.services import clock_advance_run, clock_advance_start, clock_job_resume
    from rules.clock.tests.clock_helpers import play_session
    from rules.play.services import resolution_cancel_choice

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
    from rules.clock.models import ClockJob
    from rules.log.models import Resolution, ScheduledEffect

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


def answer_to(argv: list[str]) -> Any:
    command, *args = argv
    answer: Any
    if command == "setup":
        answer = setup(*(int(arg) for arg in args))
    elif command == "count":
        answer = count(int(args[0]), int(args[1]))
    elif command == "advance_all":
        answer = advance_all(int(args[0]))
    elif command == "fingerprint":
        answer = fingerprint()
    elif command == "setup_fever":
        answer = setup_fever([int(size) for size in args])
    elif command == "settled":
        answer = {arg: settled(int(arg)) for arg in args}
    elif command == "setup_flood":
        answer = setup_flood(int(args[0]), args[1], args[2], args[3] == "1")
    elif command == "turns_ahead":
        answer = turns_ahead(int(args[0]))
    elif command == "jobs_by_state":
        answer = jobs_by_state()
    elif command == "webhook_events":
        answer = webhook_events([int(arg) for arg in args])
    elif command == "reference":
        answer = reference(int(args[0]), [int(size) for size in args[1:]])
    else:
        raise SystemExit(f"unknown command {command}")
    return answer


def serve() -> None:
    """Answer one command per line on stdin (a JSON list of its words) with one JSON line
    on stdout, ``{"answer": ...}`` or ``{"error": ...}``, until stdin closes. The
    database connections are closed after each answer (the pool's too, where the app
    pools them): the drill may restart PostgreSQL, drop and restore the database, or
    count the app's connections between two questions."""
    from django.db import connections

    for line in sys.stdin:
        try:
            reply = {"answer": answer_to(json.loads(line))}
        except BaseException as error:  # noqa: BLE001 - told to the drill, which fails
            reply = {"error": f"{type(error).__name__}: {error}\n{traceback.format_exc()}"}
        finally:
            for connection in connections.all(initialized_only=True):
                connection.close()
                close_pool = getattr(connection, "close_pool", None)  # PostgreSQL's pool
                if close_pool is not None:
                    close_pool()  # a pool keeps its connections open otherwise
        sys.stdout.write(json.dumps(reply, default=str) + "\n")
        sys.stdout.flush()


def main(argv: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
    django.setup()
    if argv == ["serve"]:
        serve()
    else:
        print(json.dumps(answer_to(argv), default=str))


if __name__ == "__main__":
    main(sys.argv[1:])
