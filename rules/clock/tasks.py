"""Celery tasks of the clock: ids in, one service call (docs/clock.md).

The tasks keep the names they had before the clock had its own package
(``rules.tasks.*``): messages queued by an older release, and beat's schedule, still
find them.

The advance task acknowledges late (``CELERY_TASK_ACKS_LATE``) and is rejected back to
the queue when its worker process dies (``CELERY_TASK_REJECT_ON_WORKER_LOST``); with
Redis a message whose whole worker was killed comes back only after the broker's
visibility timeout (an hour), so beat's watchdog (:func:`watch_clock_jobs`, every
``SAWBONES_CLOCK_WATCHDOG_SECONDS``) sends again any job whose heartbeat is stale.
Running a job again is always safe: see ``rules.clock.services``.
"""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from core.health import mark_worker_seen
from rules.clock.digest import digest_send, digests_due
from rules.clock.live import clock_live_tick
from rules.clock.queue import ADVANCE_CLOCK_TASK
from rules.clock.services import clock_advance_run
from rules.clock.watchdog import clock_watchdog


@shared_task(
    name=ADVANCE_CLOCK_TASK,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=8,
)
def advance_clock(job_id: int) -> str | None:
    """Run a clock job (and any earlier job of its campaign) until it is done or waits."""
    job = clock_advance_run(job_id=job_id)
    return None if job is None else job.state


@shared_task(name="rules.tasks.tick_live_campaigns")
def tick_live_campaigns() -> int:
    """Celery beat, every minute: advance live campaigns by the real time elapsed."""
    return len(clock_live_tick())


@shared_task(name="rules.tasks.watch_clock_jobs")
def watch_clock_jobs() -> int:
    """Celery beat, every few seconds: send again the clock jobs whose task was lost.

    Also the workers' sign of life for the health endpoint (``core.health``).
    """
    mark_worker_seen()
    return len(clock_watchdog())


# Mail goes to the email queue by its name (config/queues.py: "*.send_email").
SEND_DIGEST_TASK = "rules.clock.digest.send_email"


@shared_task(
    name=SEND_DIGEST_TASK,
    acks_late=True,
    autoretry_for=(OSError, OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=5,
)
def send_digest(membership_id: int) -> bool:
    """One player's e-mail digest, if due and something happened (rules.clock.digest);
    sent once however often the task runs."""
    return digest_send(membership_id=membership_id)


@shared_task(name="rules.tasks.queue_digests")
def queue_digests() -> int:
    """Celery beat, every few minutes: a send task per player whose digest may be due."""
    due = digests_due()
    for membership_id in due:
        send_digest.delay(membership_id)
    return len(due)
