"""Campaigns take turns on the clock's queue (issue 28): a busy campaign's backlog never
holds a quiet campaign's advance back.

Only a campaign's oldest unfinished job has a message in the queue; the task that ends a
job sends the campaign's next one to the back of the queue. The broker is the boundary
here: its queue is a list the test drains in order, as one worker would.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import Any

import pytest
from celery import current_app

from rules.clock.models import ClockJob
from rules.clock.services import ADVANCE_CLOCK_TASK, clock_advance_run, clock_advance_start
from rules.clock.tests.clock_helpers import wounded


@pytest.fixture
def broker(monkeypatch) -> Iterator[deque[int]]:
    """The clock's queue: the job ids sent, in order, for the test to run one by one."""
    queue: deque[int] = deque()
    task = current_app.tasks[ADVANCE_CLOCK_TASK]
    monkeypatch.setattr(task, "delay", lambda job_id: queue.append(job_id))
    eager = task.app.conf.task_always_eager
    task.app.conf.task_always_eager = False  # a real queue: sent is not run
    try:
        yield queue
    finally:
        task.app.conf.task_always_eager = eager


def _drain(queue: deque[int], capture: Any) -> list[int]:
    """One worker: take each message in turn and run its job; the jobs finished, in order."""
    finished: list[int] = []
    while queue:
        job_id = queue.popleft()
        with capture(execute=True):
            job = clock_advance_run(job_id=job_id)
        if job is not None and job.state == "done" and job.pk not in finished:
            finished.append(job.pk)
    return finished


@pytest.mark.django_db(transaction=True)
def test_a_quiet_campaign_is_not_queued_behind_a_busy_ones_backlog(
    make_campaign, referee, player, broker, django_capture_on_commit_callbacks
):
    busy, quiet = make_campaign("hit_dice"), make_campaign("hit_dice")
    wounded(busy, player, "Aldo", every=60)
    wounded(quiet, player, "Bea", every=60)
    with django_capture_on_commit_callbacks(execute=True):
        backlog = [
            clock_advance_start(campaign_id=busy.pk, minutes=60, requested_by=referee)
            for _ in range(30)
        ]
    with django_capture_on_commit_callbacks(execute=True):
        advance = clock_advance_start(campaign_id=quiet.pk, minutes=60, requested_by=referee)

    # one message for the busy campaign, however many jobs it has; one for the quiet one
    assert list(broker) == [backlog[0].pk, advance.pk]

    finished = _drain(broker, django_capture_on_commit_callbacks)

    # the quiet campaign's advance ran second, not 31st; then the busy one's, in order
    assert finished == [backlog[0].pk, advance.pk, *(job.pk for job in backlog[1:])]
    assert set(ClockJob.objects.values_list("state", flat=True)) == {"done"}
    busy.refresh_from_db()
    assert busy.clock == 30 * 60


@pytest.mark.django_db(transaction=True)
def test_a_job_behind_an_unfinished_one_stays_alive_while_it_waits(
    make_campaign, referee, player, broker, django_capture_on_commit_callbacks
):
    """The watchdog sends a job whose heartbeat is stale: a job that waits its turn behind
    a long one is beaten by every batch of the one before it, so it is not sent twice."""
    campaign = make_campaign("hit_dice")
    wounded(campaign, player, "Aldo", every=60)
    with django_capture_on_commit_callbacks(execute=True):
        first = clock_advance_start(campaign_id=campaign.pk, minutes=60, requested_by=referee)
        second = clock_advance_start(campaign_id=campaign.pk, minutes=60, requested_by=referee)
    ClockJob.objects.filter(pk=second.pk).update(heartbeat_at=first.heartbeat_at.replace(year=2000))

    with django_capture_on_commit_callbacks(execute=True):
        clock_advance_run(job_id=first.pk)

    second.refresh_from_db()
    assert second.heartbeat_at.year != 2000
    assert list(broker) == [first.pk, second.pk]  # the first's end sent the second
