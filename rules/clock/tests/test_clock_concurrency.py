"""Concurrent advances on PostgreSQL: duplicated deliveries, two advances at once, and
players acting while the clock runs. Each effect applies exactly once, in time order.

Row locks need PostgreSQL (CI sets DATABASE_URL); SQLite locks the whole database.
"""

from __future__ import annotations

from functools import partial

import pytest
from django.db import connection

from rules.clock import services as clock
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
from rules.play.models import Resolution
from rules.play.services import resolution_create_action

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
    monkeypatch.setattr(clock, "_enqueue", lambda job_id: None)


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
