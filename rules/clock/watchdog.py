"""Celery beat's watchdog (docs/clock.md, docs/operations.md): a queued or running clock
job whose heartbeat went stale lost its task (its worker died, its message was lost with
the broker), and is sent again."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from rules.clock import queue
from rules.clock.models import ClockJob, ClockJobState

logger = logging.getLogger(__name__)

# A queued or running job whose heartbeat is older than this has lost its task (its
# worker died, its message was lost with the broker): the watchdog enqueues it again
# (``SAWBONES_CLOCK_STALE_SECONDS``). Every batch beats, and a batch takes a second or
# two, so a live job is never this quiet; re-running a job is harmless anyway.
STALE_JOB_AFTER = timedelta(seconds=30)


def _stale_after() -> timedelta:
    seconds = getattr(settings, "SAWBONES_CLOCK_STALE_SECONDS", None)
    return STALE_JOB_AFTER if seconds is None else timedelta(seconds=float(seconds))


def clock_watchdog(*, now: datetime | None = None) -> list[int]:
    """Celery beat's watchdog: enqueue again every queued or running job whose heartbeat
    is stale (its worker died, or its message was lost with the broker); their ids.

    The heartbeat moves by compare-and-set, so two watchdogs at once send a job once,
    and a job is sent again at most once per stale period while no worker takes it.
    A second delivery of a job that is in fact alive changes nothing: every batch
    re-reads the state under the campaign lock. Jobs of a campaign that waits on a
    choice are left alone (they wait their turn, ruling G-3).
    """
    now = now or timezone.now()
    cutoff = now - _stale_after()
    unfinished = (ClockJobState.QUEUED, ClockJobState.RUNNING)
    stale = (
        ClockJob.objects.filter(state__in=unfinished, heartbeat_at__lt=cutoff)
        .exclude(campaign__clock_jobs__state=ClockJobState.WAITING)
        .order_by("id")
        .values_list("pk", flat=True)
    )
    sent: list[int] = []
    for job_id in stale:
        with transaction.atomic():
            moved = ClockJob.objects.filter(
                pk=job_id, state__in=unfinished, heartbeat_at__lt=cutoff
            ).update(heartbeat_at=now)
            if moved:
                logger.warning("clock job %s: its heartbeat is stale; enqueued again", job_id)
                queue.enqueue(job_id)
                sent.append(job_id)
    return sent
