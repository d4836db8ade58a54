"""Live campaigns: Celery beat moves the clock with real time at the referee's ratio."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import QuerySet
from django.test.utils import CaptureQueriesContext
from hypothesis import given
from hypothesis import strategies as st

from campaigns.models import MAX_LIVE_RATIO, Campaign, live_next_tick
from campaigns.services import campaign_create
from config.celery_app import app as celery_app
from rules.clock import live as live_module
from rules.clock.live import (
    _due_a_tick,
    _live_minutes,
    _tick_campaign,
    clock_live_set,
    clock_live_tick,
)
from rules.clock.models import ClockJob, ClockReport
from rules.clock.services import clock_advance_run, clock_job_resume
from rules.clock.tests.clock_helpers import wounded
from rules.play.services import resolution_answer_choice

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def ticked(campaigns: QuerySet[Campaign], at: datetime) -> None:
    """Live clocks at 1 minute a minute that last ticked ``at``, as a tick writes them."""
    campaigns.update(live_last_tick=at, live_next_tick=live_next_tick(Decimal(1), at))


@pytest.fixture
def tick(django_capture_on_commit_callbacks):
    """Beat's tick at a given real moment, its jobs run in-process as in embedded mode."""

    def run(minutes: float) -> list[ClockJob]:
        with django_capture_on_commit_callbacks(execute=True):
            jobs = clock_live_tick(now=T0 + timedelta(minutes=minutes))
        for job in jobs:
            job.refresh_from_db()
        return jobs

    return run


def test_a_tick_advances_by_real_time_elapsed_times_the_ratio_with_nobody_logged_in(
    campaign, player, tick
):
    wounded(campaign, player, "Aldo", every=5)
    clock_live_set(campaign_id=campaign.pk, ratio=Decimal(1), now=T0)

    (job,) = tick(10)

    campaign.refresh_from_db()
    assert (job.kind, job.minutes, job.state, job.done) == ("live", 10, "done", 2)
    assert job.requested_by is None
    assert campaign.clock == 10
    assert campaign.live_last_tick == T0 + timedelta(minutes=10)


def test_a_duplicated_tick_does_nothing(campaign, tick):
    clock_live_set(campaign_id=campaign.pk, ratio=Decimal(1), now=T0)
    assert len(tick(10)) == 1
    assert tick(10) == []
    assert ClockJob.objects.count() == 1


def test_a_tick_racing_another_loses_the_compare_and_set(campaign):
    clock_live_set(campaign_id=campaign.pk, ratio=Decimal(1), now=T0)
    stale = type(campaign).objects.get(pk=campaign.pk)  # read before the other tick moved
    clock_live_tick(now=T0 + timedelta(minutes=10))

    assert _tick_campaign(stale, T0 + timedelta(minutes=10), force=True) is None
    assert ClockJob.objects.count() == 1


def test_fractions_of_a_minute_carry_over_to_the_next_tick(campaign, tick):
    clock_live_set(campaign_id=campaign.pk, ratio=Decimal("0.5"), now=T0)

    (first,) = tick(3)  # 1.5 in-game minutes: one now, the half kept
    campaign.refresh_from_db()
    assert first.minutes == 1
    assert campaign.live_last_tick == T0 + timedelta(minutes=2)

    (second,) = tick(4)
    campaign.refresh_from_db()
    assert second.minutes == 1
    assert campaign.live_last_tick == T0 + timedelta(minutes=4)
    assert campaign.clock == 2


def test_an_hour_per_real_minute(campaign, tick):
    clock_live_set(campaign_id=campaign.pk, ratio=Decimal(60), now=T0)
    (job,) = tick(1.5)
    campaign.refresh_from_db()
    assert (job.minutes, campaign.clock) == (90, 90)


def test_changing_the_ratio_first_advances_the_time_run_at_the_old_one(
    campaign, django_capture_on_commit_callbacks, tick
):
    clock_live_set(campaign_id=campaign.pk, ratio=Decimal(1), now=T0)
    with django_capture_on_commit_callbacks(execute=True):
        clock_live_set(campaign_id=campaign.pk, ratio=Decimal(2), now=T0 + timedelta(minutes=30))
    campaign.refresh_from_db()
    assert campaign.clock == 30
    assert campaign.live_last_tick == T0 + timedelta(minutes=30)

    (job,) = tick(40)
    campaign.refresh_from_db()
    assert (job.minutes, campaign.clock) == (20, 50)


def test_a_stopped_clock_does_not_tick(campaign, tick):
    clock_live_set(campaign_id=campaign.pk, ratio=Decimal(1), now=T0)
    clock_live_set(campaign_id=campaign.pk, ratio=Decimal(0), now=T0)
    assert tick(60) == []
    campaign.refresh_from_db()
    assert (campaign.clock, campaign.live_last_tick) == (0, None)


def test_the_live_clock_waits_on_a_choice_then_catches_up(campaign, player, tick):
    # given Cato's wound worsens every hour and each worsening fails (a choice, G-3)
    cato = wounded(campaign, player, "Cato", every=60, dc=100, strength=10)
    clock_live_set(campaign_id=campaign.pk, ratio=Decimal(1), now=T0)

    # when 90 real minutes pass: the clock stops at 60 on Cato's choice
    (job,) = tick(90)
    assert (job.state, job.clock_reached) == ("waiting", 60)

    # while it waits, ticks start nothing and real time keeps counting
    assert tick(120) == []
    campaign.refresh_from_db()
    assert campaign.live_last_tick == T0 + timedelta(minutes=90)

    # once answered and resumed, the job finishes, and the next tick catches up
    cato.refresh_from_db()
    assert cato.pending_choice is not None
    resolution_answer_choice(
        character_id=cato.pk,
        actor=player,
        by_referee=False,
        choice_id=cato.pending_choice["id"],
        option="death",
    )
    clock_job_resume(job_id=job.pk)
    clock_advance_run(job_id=job.pk)
    (catch_up,) = tick(180)
    campaign.refresh_from_db()
    assert (catch_up.minutes, catch_up.state) == (90, "done")
    assert campaign.clock == 180


def test_the_tick_re_enqueues_a_job_whose_task_was_lost(
    campaign, player, django_capture_on_commit_callbacks
):
    wounded(campaign, player, "Aldo", every=60)
    lost = ClockJob.objects.create(campaign=campaign, minutes=60)
    ClockJob.objects.filter(pk=lost.pk).update(heartbeat_at=T0 - timedelta(minutes=11))
    fresh = ClockJob.objects.create(campaign=campaign, minutes=60)

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        clock_live_tick(now=T0)

    lost.refresh_from_db()
    fresh.refresh_from_db()
    # the lost job is sent again; its end sends the campaign's next job, in its turn
    # (a job behind an unfinished one has no message of its own: issue 28)
    assert [callback.args for callback in callbacks] == [(lost.pk,), (fresh.pk,)]
    assert (lost.state, lost.done) == ("done", 1)
    assert fresh.state == "done"


def test_beat_runs_the_tick_every_minute():
    entry = settings.CELERY_BEAT_SCHEDULE["tick-live-campaigns"]
    assert entry["task"] == "rules.tasks.tick_live_campaigns"
    assert entry["schedule"] == 60.0
    assert celery_app.conf.beat_schedule["tick-live-campaigns"]["task"] == entry["task"]
    assert "rules.tasks.tick_live_campaigns" in celery_app.tasks
    assert "rules.tasks.advance_clock" in celery_app.tasks


def test_the_beat_task_ticks_live_campaigns(campaign, django_capture_on_commit_callbacks):
    clock_live_set(campaign_id=campaign.pk, ratio=Decimal(1), now=datetime.now(UTC))
    ticked(
        type(campaign).objects.filter(pk=campaign.pk),
        datetime.now(UTC) - timedelta(minutes=5, seconds=1),
    )
    with django_capture_on_commit_callbacks(execute=True):
        started = celery_app.tasks["rules.tasks.tick_live_campaigns"].apply().get()
    campaign.refresh_from_db()
    assert started == 1
    assert campaign.clock == 5


def test_a_tick_costs_the_campaigns_with_a_minute_to_move_not_every_live_one(
    make_campaign, referee, django_assert_max_num_queries
):
    """Issue 39: live campaigns that ticked a moment ago cost the tick nothing but a row of
    its one read (bench/scale.py measures it at 10,000): the queries are the same with 3
    idle live campaigns as with 30."""
    due = make_campaign("hit_dice")
    clock_live_set(campaign_id=due.pk, ratio=Decimal(1), now=T0)
    clock_live_tick(now=T0)  # nothing due yet; what is read once per process is read
    counts = []
    for idle in (3, 30):
        while Campaign.objects.count() < idle + 1:
            other = campaign_create(user=referee, name="Idle", ruleset="hit_dice")
            clock_live_set(campaign_id=other.pk, ratio=Decimal(1), now=T0)
        # the idle ones ticked half a minute ago, the due one ten minutes and a half
        ticked(Campaign.objects.exclude(pk=due.pk), T0 + timedelta(minutes=10))
        ticked(Campaign.objects.filter(pk=due.pk), T0)
        ClockJob.objects.all().delete()
        ClockReport.objects.all().delete()  # the hour's report: made by its first tick
        with django_assert_max_num_queries(1000) as captured:
            (job,) = clock_live_tick(now=T0 + timedelta(minutes=10, seconds=30))
        assert job.campaign_id == due.pk
        counts.append(len(captured))
    assert counts[0] == counts[1], counts


@given(
    ratio=st.decimals(min_value="0.001", max_value=MAX_LIVE_RATIO, places=3),
    last_tick=st.datetimes(
        min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
    ),
)
def test_the_stored_next_tick_is_the_first_moment_a_whole_minute_has_passed(ratio, last_tick):
    """Issue 39: beat reads the campaigns due by ``live_next_tick``; it must agree, to the
    microsecond, with the minutes a tick counts."""
    at = live_next_tick(ratio, last_tick)
    assert at is not None
    assert _live_minutes(ratio, last_tick, at - timedelta(microseconds=1))[0] == 0
    assert _live_minutes(ratio, last_tick, at)[0] == 1
    assert live_next_tick(Decimal(0), last_tick) is None
    assert live_next_tick(ratio, None) is None


def test_the_next_tick_is_written_with_every_change_of_the_live_clock(
    campaign, tick, django_capture_on_commit_callbacks
):
    clock_live_set(campaign_id=campaign.pk, ratio=Decimal("2.5"), now=T0)
    campaign.refresh_from_db()
    assert campaign.live_next_tick == T0 + timedelta(seconds=24)
    assert _due_a_tick(T0 + timedelta(seconds=23)) == []
    assert _due_a_tick(T0 + timedelta(seconds=24)) == [campaign.pk]
    tick(1)  # 2 minutes, real time used to 00:48; the next one 24 s after
    campaign.refresh_from_db()
    assert (campaign.clock, campaign.live_next_tick) == (2, T0 + timedelta(seconds=72))
    with django_capture_on_commit_callbacks(execute=True):  # the time up to the stop
        clock_live_set(campaign_id=campaign.pk, ratio=Decimal(0), now=T0 + timedelta(minutes=2))
    campaign.refresh_from_db()
    assert (campaign.clock, campaign.live_next_tick) == (5, None)
    assert _due_a_tick(T0 + timedelta(days=1)) == []


def test_a_running_clock_without_its_next_tick_is_refused_by_the_database(campaign):
    """Whatever writes the live clock writes its next tick, or beat would never find it."""
    with pytest.raises(IntegrityError), transaction.atomic():
        Campaign.objects.filter(pk=campaign.pk).update(live_ratio=1, live_last_tick=T0)
    with pytest.raises(IntegrityError), transaction.atomic():
        Campaign.objects.filter(pk=campaign.pk).update(live_next_tick=T0)


def _live_campaigns(referee, count: int) -> list[Campaign]:
    """``count`` live campaigns (ratio 1) that ticked at T0, their next tick a minute on."""
    return Campaign.objects.bulk_create(
        Campaign(
            name=f"Live {n}",
            ruleset="hit_dice",
            created_by=referee,
            live_ratio=Decimal(1),
            live_last_tick=T0,
            live_next_tick=live_next_tick(Decimal(1), T0),
        )
        for n in range(count)
    )


def test_the_campaigns_due_a_tick_are_read_page_by_page_and_ticked_newest_first(
    referee, monkeypatch
):
    monkeypatch.setattr(live_module, "_DUE_PAGE", 2)
    campaigns = _live_campaigns(referee, 9)
    due = campaigns[1::2]  # four of them, two pages and the end of a third's
    ticked(Campaign.objects.exclude(pk__in=[c.pk for c in due]), T0 + timedelta(minutes=5))
    newest_first = Campaign.objects.filter(pk__in=[c.pk for c in due]).order_by(
        "-created_at", "-id"
    )
    assert _due_a_tick(T0 + timedelta(minutes=1)) == [c.pk for c in newest_first]
    assert _due_a_tick(T0 + timedelta(minutes=6)) == [
        c.pk for c in Campaign.objects.order_by("-created_at", "-id")
    ]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plans")
def test_beat_reads_the_campaigns_due_a_tick_by_their_index_whatever_the_statistics_say(
    referee, monkeypatch
):
    """The planner's statistics, taken while every clock was due, judge them all due long
    after: the tick's reads must take the index all the same, page by page."""
    monkeypatch.setattr(live_module, "_DUE_PAGE", 5)
    campaigns = _live_campaigns(referee, 600)
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {Campaign._meta.db_table}")
    due = [c.pk for c in campaigns[:7]]
    ticked(Campaign.objects.exclude(pk__in=due), T0 + timedelta(minutes=30))
    with CaptureQueriesContext(connection) as reads:
        assert sorted(_due_a_tick(T0 + timedelta(minutes=2))) == due
    assert len(reads) == 2
    with connection.cursor() as cursor:
        for read in reads:
            cursor.execute(f"EXPLAIN {read['sql']}")
            plan = "\n".join(row[0] for row in cursor.fetchall())
            assert "campaign_live_due" in plan and "Seq Scan" not in plan, plan
