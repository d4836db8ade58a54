"""Concurrent advances on PostgreSQL: duplicated deliveries, two advances at once, and
players acting while the clock runs. Each effect applies exactly once, in time order.

Row locks need PostgreSQL (CI sets DATABASE_URL); SQLite locks the whole database.
"""

from __future__ import annotations

import threading
import time
from functools import partial

import pytest
from django.db import connection, transaction

from campaigns.models import Campaign, Membership
from characters.models import Character
from rules.clock import queue as clock
from rules.clock.models import ClockJob
from rules.clock.services import clock_advance_run, clock_advance_start
from rules.clock.tests.clock_helpers import (
    assert_whole,
    effect_rows,
    log_of,
    run_in_threads,
    run_job,
    twin_campaign,
    wounded,
)
from rules.log.models import Resolution, ScheduledEffect
from rules.play.services import character_create, resolution_create_action

pytestmark = [
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="row-lock concurrency needs PostgreSQL (CI sets DATABASE_URL)",
    ),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture(autouse=True)
def undelivered(monkeypatch):
    """Jobs are created but their tasks not delivered: the test's threads run them."""
    monkeypatch.setattr(clock, "enqueue", lambda job_id, backlog=False: None)


def _party(campaign, player, other_player):
    for i, every in enumerate((20, 30, 45, 50, 70, 110)):
        wounded(campaign, player if i % 2 else other_player, f"Char{i}", every=every)


def test_eight_deliveries_of_one_job_at_once_apply_each_effect_once(
    campaign, player, other_player, settings
):
    # given a reference campaign advanced by one worker, and its twin's job
    twin = twin_campaign(campaign)
    _party(campaign, player, other_player)
    _party(twin, player, other_player)
    run_job(twin, 600)
    settings.SAWBONES_CLOCK_BATCH_SIZE = 5
    job = clock_advance_start(campaign_id=campaign.pk, minutes=600)

    # when eight workers run the job at once (duplicated, retried deliveries)
    errors = run_in_threads([lambda: clock_advance_run(job_id=job.pk)] * 8)

    # then every effect applied exactly once, as in the single run
    assert errors == []
    job.refresh_from_db()
    assert (job.state, job.done, job.total) == ("done", 88, 88)
    assert log_of(campaign) == log_of(twin)
    assert effect_rows(campaign) == effect_rows(twin)
    assert_whole(campaign)


def test_two_advances_at_once_serialize_and_add_up(campaign, player, other_player, settings):
    twin = twin_campaign(campaign)
    _party(campaign, player, other_player)
    _party(twin, player, other_player)
    run_job(twin, 600)
    settings.SAWBONES_CLOCK_BATCH_SIZE = 4

    # given two 5-hour advances asked for at once, their tasks delivered twice each
    jobs = []
    asking = [lambda: jobs.append(clock_advance_start(campaign_id=campaign.pk, minutes=300))] * 2
    assert run_in_threads(asking) == []
    errors = run_in_threads([partial(clock_advance_run, job_id=job.pk) for job in jobs * 2])

    # then they ran one after the other: ten hours, the same as one ten-hour advance
    assert errors == []
    for job in jobs:
        job.refresh_from_db()
    campaign.refresh_from_db()
    assert [(j.state, j.clock_start, j.target) for j in sorted(jobs, key=lambda j: j.pk)] == [
        ("done", 0, 300),
        ("done", 300, 600),
    ]
    assert campaign.clock == 600
    assert log_of(campaign) == log_of(twin)
    assert_whole(campaign)


def test_players_acting_while_the_clock_runs_lose_nothing(campaign, player, other_player, settings):
    _party(campaign, player, other_player)
    hurt = wounded(campaign, player, "Hurt", every=25)
    settings.SAWBONES_CLOCK_BATCH_SIZE = 3
    job = clock_advance_start(campaign_id=campaign.pk, minutes=900)

    def act():
        for _ in range(10):
            resolution_create_action(
                character_id=hurt.pk,
                actor=player,
                by_referee=False,
                action="short_rest",
                params={"reroll": False},
            )

    errors = run_in_threads([lambda: clock_advance_run(job_id=job.pk), act])

    assert errors == []
    job.refresh_from_db()
    assert job.state == "done"
    assert Resolution.objects.filter(character=hurt, action="short_rest").count() == 10
    assert Resolution.objects.filter(character=hurt, kind="effect").count() == 900 // 25
    assert_whole(campaign)


def _describe(character, referee, every):
    resolution_create_action(
        character_id=character.pk,
        actor=referee,
        by_referee=True,
        action="describe_wound",
        params={"wound": 1, "description": "Gut wound", "worsens_every": every, "worsen_dc": 1},
    )


def _short_rest(character, player):
    resolution_create_action(
        character_id=character.pk,
        actor=player,
        by_referee=False,
        action="short_rest",  # 10 minutes (HD-2)
        params={"reroll": False},
    )


def _nothing_skipped(campaign):
    """Every effect due by the clock was handled, each character's log is in time order,
    and every job finished."""
    campaign.refresh_from_db()
    assert not ScheduledEffect.objects.filter(
        campaign=campaign, state="pending", due_at__lte=campaign.clock
    ).exists()
    for character in Character.objects.filter(campaign=campaign):
        clocks = list(
            Resolution.objects.filter(character=character)
            .order_by("version")
            .values_list("clock", flat=True)
        )
        assert clocks == sorted(clocks), character.name
    assert set(ClockJob.objects.filter(campaign=campaign).values_list("state", flat=True)) <= {
        "done"
    }
    assert_whole(campaign)


def test_an_effect_scheduled_while_an_action_waits_for_the_lock_is_not_skipped(
    campaign, player, other_player, referee, monkeypatch
):
    """Issue 30: an action that takes time moves the clock at once only when nothing is
    due in its time, decided under the campaign's lock by the statement that writes it.
    Here the effect due inside the rest is written, and committed, while the rest waits
    for the lock: the rest must see it and take the job, which applies it on its minute."""
    monkeypatch.setattr(clock, "enqueue", clock_job_send_now)
    resting = character_create(
        membership=Membership.objects.get(campaign=campaign, user=player),
        name="Resting",
        sheet={"level": 2, "hit_dice": 2, "hp": 10},
    )
    bleeding = wounded(campaign, other_player, "Bleeding", every=600)
    holding = threading.Event()

    def schedule_while_holding_the_lock():
        with transaction.atomic():
            _describe(bleeding, referee, 5)  # the next worsening at 00:05, in the rest
            holding.set()
            time.sleep(0.5)  # the rest is asked for meanwhile, and waits for the lock

    def rest():
        assert holding.wait(10)
        _short_rest(resting, player)

    assert run_in_threads([schedule_while_holding_the_lock, rest]) == []

    campaign.refresh_from_db()
    assert campaign.clock == 10
    [job] = ClockJob.objects.filter(campaign=campaign)
    assert (job.kind, job.state, job.clock_start, job.target) == ("action", "done", 0, 10)
    worsened = Resolution.objects.filter(character=bleeding, kind="effect").order_by("version")
    assert [r.clock for r in worsened] == [5, 10]
    _nothing_skipped(campaign)


def test_actions_taking_time_while_effects_are_scheduled_skip_nothing(
    campaign, player, other_player, referee, monkeypatch
):
    """Rests (each may move the clock at once, or need a job) against a referee changing
    how often a wound worsens (each reschedules it a few minutes ahead), at once."""
    monkeypatch.setattr(clock, "enqueue", clock_job_send_now)
    resting = character_create(
        membership=Membership.objects.get(campaign=campaign, user=player),
        name="Resting",
        sheet={"level": 2, "hit_dice": 2, "hp": 10},
    )
    bleeding = wounded(campaign, other_player, "Bleeding", every=600)

    def rests():
        for _ in range(15):
            _short_rest(resting, player)

    overdue: list[int] = []

    def reschedules():
        for n in range(15):
            with transaction.atomic():
                # under the campaign's lock, before the rescheduling cancels it: the
                # pending worsening is not behind the clock (nothing moved past it)
                now = Campaign.objects.select_for_update().get(pk=campaign.pk).clock
                overdue.extend(
                    ScheduledEffect.objects.filter(
                        campaign=campaign, state="pending", due_at__lt=now
                    ).values_list("due_at", flat=True)
                )
                _describe(bleeding, referee, 3 if n % 2 else 7)  # due within the next rest

    assert run_in_threads([rests, reschedules]) == []

    assert overdue == []
    campaign.refresh_from_db()
    assert campaign.clock == 150  # every rest moved it, at once or by its job
    _nothing_skipped(campaign)


def clock_job_send_now(job_id, backlog=False):
    """The job's task, run in this thread once its transaction commits (as the eager
    task does: one worker per thread)."""
    transaction.on_commit(partial(clock_advance_run, job_id=job_id))
