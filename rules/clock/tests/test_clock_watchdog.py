"""A clock job whose task was lost finishes by itself; its progress never goes back.

In-process (the task runs when its transaction commits, as in embedded mode); the real
worker, beat, Redis and PostgreSQL versions of these are the drills in
``tests/drills/`` (docs/operations.md).
"""

from __future__ import annotations

import socket
from datetime import timedelta

import pytest
from django.utils import timezone

from config.celery_app import app as celery_app
from rules.clock.models import ClockJob
from rules.clock.selectors import clock_job_view
from rules.clock.services import _advance_batch, clock_advance_start
from rules.clock.tests.clock_helpers import assert_whole, wounded
from rules.clock.watchdog import clock_watchdog

pytestmark = pytest.mark.django_db


def _stale(job: ClockJob, seconds: float = 31) -> None:
    ClockJob.objects.filter(pk=job.pk).update(
        heartbeat_at=timezone.now() - timedelta(seconds=seconds)
    )


def test_every_batch_beats_and_the_job_asked_for_beats_while_an_earlier_one_runs(
    campaign, player, settings
):
    wounded(campaign, player, "Aldo", every=30)
    settings.SAWBONES_CLOCK_BATCH_SIZE = 1
    first = clock_advance_start(campaign_id=campaign.pk, minutes=120)
    second = clock_advance_start(campaign_id=campaign.pk, minutes=60)
    for job in (first, second):
        _stale(job, 3600)

    # when the second job's task runs a batch of the first (which must run first)
    assert _advance_batch(second.pk)

    # then both show a fresh heartbeat: neither looks lost to the watchdog
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.state == "running"
    assert second.state == "queued"
    recent = timezone.now() - timedelta(seconds=5)
    assert first.heartbeat_at > recent
    assert second.heartbeat_at > recent
    assert clock_watchdog() == []


def test_the_watchdog_sends_a_job_with_a_stale_heartbeat_again_once(
    campaign, player, settings, django_capture_on_commit_callbacks
):
    wounded(campaign, player, "Aldo", every=30)
    settings.SAWBONES_CLOCK_BATCH_SIZE = 1
    # given a job whose worker died after its first batch (its message is lost)
    lost = clock_advance_start(campaign_id=campaign.pk, minutes=180)
    assert _advance_batch(lost.pk)
    _stale(lost)
    # and a job of another campaign whose task is alive
    other = clock_advance_start(campaign_id=wounded_campaign(campaign).pk, minutes=60)

    # when beat's watchdog runs twice at the same moment
    now = timezone.now()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        sent = clock_watchdog(now=now)
        again = clock_watchdog(now=now)

    # then the lost job was sent once, and it finished (nobody pressed resume)
    assert sent == [lost.pk]
    assert again == []
    assert len(callbacks) == 1
    lost.refresh_from_db()
    assert (lost.state, lost.done, lost.clock_reached) == ("done", 6, 180)
    assert_whole(campaign)
    other.refresh_from_db()
    assert other.state == "queued"


def wounded_campaign(campaign):
    from campaigns.services import campaign_create

    referee = campaign.memberships.get(role="referee").user
    another = campaign_create(user=referee, name="Another", ruleset="hit_dice")
    # something falls due in its hour: its advance needs its task (an advance that
    # crosses nothing is done at once, docs/clock.md)
    wounded(another, referee, "Bo", every=30)
    return another


def test_the_watchdog_leaves_jobs_behind_a_choice_alone(campaign, player):
    # ruling G-3: the clock waits on the decision, and the jobs behind it wait their turn
    wounded(campaign, player, "Cato", every=60, dc=100, strength=10)
    waiting = clock_advance_start(campaign_id=campaign.pk, minutes=120)
    while _advance_batch(waiting.pk):
        pass
    waiting.refresh_from_db()
    assert waiting.state == "waiting"
    behind = clock_advance_start(campaign_id=campaign.pk, minutes=60)
    _stale(behind, 3600)
    assert clock_watchdog() == []


def test_progress_is_the_time_covered_known_at_the_start_and_never_going_back(
    campaign, player, settings
):
    # given wounds that worsen every 30 minutes: each worsening schedules the next
    # inside the window, so the count of effects grows as the job runs
    for name in ("Aldo", "Bea", "Cato"):
        wounded(campaign, player, name, every=30)
    settings.SAWBONES_CLOCK_BATCH_SIZE = 2
    job = clock_advance_start(campaign_id=campaign.pk, minutes=600)
    assert clock_job_view(job)["minutes_done"] is None  # queued: nothing covered yet

    views = []
    while _advance_batch(job.pk):
        job.refresh_from_db()
        views.append(clock_job_view(job))
    job.refresh_from_db()
    views.append(clock_job_view(job))

    # the effect count grew (the old bar went back) ...
    totals = [v["total"] for v in views]
    assert totals[0] < totals[-1] == 60
    # ... the time covered is known from the first batch and only moves forward
    assert {v["minutes_total"] for v in views} == {600}
    covered = [v["minutes_done"] for v in views]
    assert covered == sorted(covered)
    assert covered[-1] == 600
    assert all(v["done"] <= v["total"] for v in views)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def broker_down():
    """Tasks go to a broker nobody listens on (a closed port), as while Redis restarts."""
    conf = celery_app.conf  # read from Django settings: its keys carry the CELERY_ prefix
    keys = ("CELERY_TASK_ALWAYS_EAGER", "CELERY_BROKER_URL")
    # the values in effect (a key Django's settings leave out reads None with its prefix,
    # and writing that None back would leave Celery without, say, a default queue)
    saved = {key: conf[key.removeprefix("CELERY_").lower()] for key in keys}
    conf.update({keys[0]: False, keys[1]: f"redis://127.0.0.1:{_closed_port()}/0"})
    assert not conf.task_always_eager
    celery_app._pool = None  # type: ignore[attr-defined]
    yield
    conf.update(saved)
    celery_app._pool = None  # type: ignore[attr-defined]


def test_an_advance_while_the_broker_is_down_is_a_clear_503_and_changes_nothing(
    campaign, referee, client_for, broker_down
):
    response = client_for(referee).post(
        f"/api/v1/campaigns/{campaign.pk}/clock/advance/", {"minutes": 60}, format="json"
    )
    assert response.status_code == 503
    assert response.json()["detail"] == (
        "The clock's task queue cannot be reached just now; nothing was changed. "
        "Try again in a minute."
    )
    assert int(response["Retry-After"]) > 0
    assert not ClockJob.objects.exists()


def test_a_job_whose_message_could_not_be_sent_is_kept_for_the_watchdog(
    campaign, player, broker_down, django_capture_on_commit_callbacks
):
    # the broker went down between the check and the send: the job stays queued in the
    # database, and no error reaches the referee (the watchdog sends it later)
    wounded(campaign, player, "Aldo", every=60)
    job = ClockJob.objects.create(campaign=campaign, minutes=60)
    _stale(job)
    with django_capture_on_commit_callbacks(execute=True):
        assert clock_watchdog() == [job.pk]
    job.refresh_from_db()
    assert job.state == "queued"
    assert job.heartbeat_at > timezone.now() - timedelta(seconds=5)


def test_beat_runs_the_watchdog_every_ten_seconds(settings):
    entry = settings.CELERY_BEAT_SCHEDULE["watch-clock-jobs"]
    assert (entry["task"], entry["schedule"]) == ("rules.tasks.watch_clock_jobs", 10.0)
    assert celery_app.conf.beat_schedule["watch-clock-jobs"]["task"] == entry["task"]
    assert "rules.tasks.watch_clock_jobs" in celery_app.tasks
    assert settings.SAWBONES_CLOCK_STALE_SECONDS == 30
