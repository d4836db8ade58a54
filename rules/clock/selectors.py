"""Reads of the campaign clock (docs/clock.md): its jobs, as the API shows them."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.http import Http404

from campaigns.models import Campaign
from campaigns.selectors import clock_display
from core.cleaning import valid_id
from rules.clock.models import ClockJob, ClockJobState
from rules.play.selectors import LatestRow

# The latest clock job's id and state in a live page's stamp (rules.play.selectors.live_witness).
LATEST_CLOCK_JOB: LatestRow = ("job", ClockJob, (("pk", "id"), ("state", "state")))


def clock_jobs_for_campaign(campaign: Campaign, *, limit: int = 50) -> list[ClockJob]:
    """The campaign's latest clock jobs, newest first."""
    return list(ClockJob.objects.filter(campaign=campaign).order_by("-id")[:limit])


def clock_job_for_campaign(campaign: Campaign, job_id: int | str) -> ClockJob:
    """One job of the campaign; a job of another campaign answers 404 like a missing one."""
    try:
        return ClockJob.objects.get(campaign=campaign, pk=valid_id(job_id))
    except (ClockJob.DoesNotExist, ValueError, TypeError):
        raise Http404("no such clock job") from None


def clock_jobs_health(now: datetime) -> dict[str, int]:
    """What to alert on (docs/operations.md): jobs whose task is lost for longer than the
    watchdog should ever let happen (two stale periods), and jobs failed in the last day."""
    stale = timedelta(seconds=float(settings.SAWBONES_CLOCK_STALE_SECONDS))
    return {
        "stuck_jobs": ClockJob.objects.filter(
            state__in=(ClockJobState.QUEUED, ClockJobState.RUNNING),
            heartbeat_at__lt=now - 2 * stale,
        ).count(),
        "failed_jobs_last_day": ClockJob.objects.filter(
            state=ClockJobState.FAILED, finished_at__gte=now - timedelta(days=1)
        ).count(),
    }


def clock_job_view(job: ClockJob) -> dict[str, Any]:
    """A job as the API shows it. Progress is the in-game time covered: known when the
    job starts and never going back, unlike the count of effects (an effect can schedule
    another inside the window, so ``total`` may grow while the job runs)."""
    clock = job.clock_reached
    minutes_total = None if job.target is None else job.target - (job.clock_start or 0)
    minutes_done = None if clock is None or job.clock_start is None else clock - job.clock_start
    return {
        "id": job.pk,
        "kind": job.kind,
        "state": job.state,
        "minutes": job.minutes,
        "done": job.done,
        "total": job.total,
        "minutes_done": minutes_done,
        "minutes_total": minutes_total,
        "clock_start": job.clock_start,
        "target": job.target,
        "clock": clock,
        "clock_display": None if clock is None else clock_display(clock),
        "reason": job.reason,
        "waiting_on": job.waiting_on_id,
        "skipped": job.skipped,
        "created_at": job.created_at,
        "started_at": job.started_at,
        "finished_at": job.finished_at,
    }


def last_failed_clock_job(now: datetime) -> dict[str, Any] | None:
    """The latest clock job that failed in the last day: which, in which campaign, why.

    Said, not a 503: a failed job waits for a person (its cause fixed, then resumed),
    while the workers may be perfectly well; /metrics' SawbonesClockJobFailed alerts.
    Shown by /health/worker/ (config/health.py).
    """
    job = (
        ClockJob.objects.filter(
            state=ClockJobState.FAILED, finished_at__gte=now - timedelta(days=1)
        )
        .order_by("-finished_at", "-id")
        .values("id", "campaign_id", "reason", "finished_at")
        .first()
    )
    if job is None:
        return None
    return {
        "id": job["id"],
        "campaign": job["campaign_id"],
        "reason": job["reason"][:300],
        "finished_at": job["finished_at"],
    }
