"""How clock jobs reach the workers (docs/clock.md): a job's task sent once its transaction
commits, a campaign's jobs taking turns in the queue, in-process in embedded mode, and a
broker that is down refused up front (503) or, for work recorded already, left to the
watchdog (rules.clock.watchdog).

The other modules of the clock call these through the module (``queue.enqueue(...)``),
so a test may replace one in one place.
"""

from __future__ import annotations

import logging
import threading
from functools import partial

from celery import Task, current_app
from django.db import transaction

from core.errors import BROKER_ERRORS, ServiceUnavailable
from rules.clock.models import UNFINISHED_JOB_STATES, ClockJob, ClockJobState

logger = logging.getLogger(__name__)

# The advance task's name: it keeps the name it had before the clock had its own package,
# so messages queued by an older release still find it (rules.clock.tasks).
ADVANCE_CLOCK_TASK = "rules.tasks.advance_clock"


def advance_task() -> Task:
    """The advance task, found by its name in Celery's registry: the task module
    (rules.clock.tasks) calls the clock's services, so they do not import it."""
    return current_app.tasks[ADVANCE_CLOCK_TASK]


# In-process (embedded mode, tests) a task runs where it is sent: a job that sends its
# campaign's next one would run it inside itself, and a long line of jobs would nest that
# deep. The jobs sent while one runs wait here and run after it, one after the other.
_in_process = threading.local()


def _run_in_process(task: Task, job_id: int) -> None:
    waiting: list[int] | None = getattr(_in_process, "waiting", None)
    if waiting is not None:
        waiting.append(job_id)
        return
    _in_process.waiting = waiting = [job_id]
    try:
        while waiting:
            task.delay(waiting.pop(0))
    finally:
        _in_process.waiting = None


# A campaign's backlog (a job sent by the task that ended the one before it) goes at a
# lower priority than a campaign's first job: on Redis a worker takes every message of
# priority 0 before any of 6 (kombu's priority steps), so a quiet campaign's advance
# waits for no busy campaign's turn, and the busy ones take turns among themselves.
BACKLOG_PRIORITY = 6


def send(job_id: int, *, backlog: bool = False) -> None:
    """Send the job's task; a broker that is down loses nothing (the watchdog sends it)."""
    task = advance_task()
    if task.app.conf.task_always_eager:
        _run_in_process(task, job_id)
        return
    try:
        if backlog:
            task.apply_async((job_id,), priority=BACKLOG_PRIORITY)
        else:
            task.delay(job_id)
    except BROKER_ERRORS:
        # The job is in the database, queued or running, and its heartbeat goes stale:
        # the watchdog enqueues it once the broker is back.
        logger.warning("clock job %s: the broker is unreachable; the watchdog will send it", job_id)


def enqueue(job_id: int, *, backlog: bool = False) -> None:
    """Run the job's task once the current transaction commits (in-process when embedded)."""
    transaction.on_commit(partial(send, job_id, backlog=backlog))


# -- taking turns: one message per campaign in the queue ----------------------------------
# A campaign's jobs run one after the other in id order. So that a busy campaign (a
# thousand actions that took time) never holds a quiet one back, only a campaign's
# oldest unfinished job has a message in the queue: a new job behind an unfinished one is
# not sent, and the task that finishes a job sends the campaign's next one, to the back
# of the queue. Every campaign with work thus has at most one message waiting, and each
# takes its turn (issue 28). Both decisions are made under the campaign row lock, so a
# job is never left unsent; a job sent twice runs once (every batch re-reads the state).


def enqueue_in_turn(job: ClockJob) -> None:
    """Send a new job (its transaction holds the campaign lock) unless an earlier job of
    its campaign is unfinished: that one's task sends it when its turn comes."""
    earlier = ClockJob.objects.filter(
        campaign_id=job.campaign_id, state__in=UNFINISHED_JOB_STATES, pk__lt=job.pk
    )
    if not earlier.exists():
        enqueue(job.pk)


def enqueue_next(campaign_id: int, after: int) -> None:
    """Send the campaign's next unfinished job once ``after`` is finished (caller holds the
    campaign lock); a job behind a decision waits for it (ruling G-3)."""
    following = (
        ClockJob.objects.filter(campaign_id=campaign_id, state__in=UNFINISHED_JOB_STATES)
        .order_by("id")
        .values_list("pk", "state")
        .first()
    )
    if following is not None and following[1] != ClockJobState.WAITING and following[0] != after:
        enqueue(following[0], backlog=True)


def require_broker() -> None:
    """Refuse (503) to start work while the broker cannot be reached: nothing is written.

    A job recorded while the broker is down would still run (the watchdog sends it once
    the broker is back), but its requester could not know: they are told to try again
    later instead, and ``request_id`` makes that retry safe.
    """
    app = advance_task().app
    if app.conf.task_always_eager:
        return  # embedded mode: no broker
    try:
        with app.connection_for_write() as broker:
            broker.ensure_connection(max_retries=1, timeout=2)
    except BROKER_ERRORS as error:
        raise ServiceUnavailable(
            "The clock's task queue cannot be reached just now; nothing was changed. "
            "Try again in a minute."
        ) from error
