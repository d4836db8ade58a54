"""Campaigns take turns on the clock's queue (issue 28): a busy campaign's backlog never
holds a quiet campaign's advance back.

Only a campaign's oldest unfinished job has a message in the queue; the task that ends a
job sends the campaign's next one, at the backlog's lower priority. The broker is the
boundary here: its queue is two lists (priority 0, then the backlog's) the test drains
in order, as one worker would from Redis.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from rules.clock import queue as clock_queue
from rules.clock.models import ClockJob
from rules.clock.services import clock_advance_run, clock_advance_start
from rules.clock.tests.clock_helpers import wounded


class Broker:
    """Redis' priority steps for one queue: every message of priority 0 is taken before
    any of the backlog's (rules.clock.queue.BACKLOG_PRIORITY)."""

    def __init__(self) -> None:
        self.fresh: deque[int] = deque()
        self.backlog: deque[int] = deque()

    def __bool__(self) -> bool:
        return bool(self.fresh or self.backlog)

    def __iter__(self) -> Iterator[int]:
        return iter([*self.fresh, *self.backlog])

    def take(self) -> int:
        return self.fresh.popleft() if self.fresh else self.backlog.popleft()


class QueueTask:
    """The advance task as a broker sees it: sending puts the job id in its queue."""

    def __init__(self, queue: Broker) -> None:
        self.queue = queue
        self.app = SimpleNamespace(conf=SimpleNamespace(task_always_eager=False))

    def delay(self, job_id: int) -> None:
        self.queue.fresh.append(job_id)

    def apply_async(self, args: tuple[int], priority: int = 0) -> None:
        (self.queue.backlog if priority else self.queue.fresh).append(args[0])


@pytest.fixture
def broker(monkeypatch) -> Broker:
    """The clock's queue: the job ids sent, in order, for the test to run one by one."""
    queue = Broker()
    monkeypatch.setattr(clock_queue, "advance_task", lambda: QueueTask(queue))
    monkeypatch.setattr(clock_queue, "require_broker", lambda: None)  # it is up
    return queue


def _drain(queue: Broker, capture: Any, *, messages: int | None = None) -> list[int]:
    """One worker: take each message in turn and run its job (all, or the first
    ``messages``); the jobs finished, in order."""
    finished: list[int] = []
    while queue and (messages is None or messages > 0):
        if messages is not None:
            messages -= 1
        job_id = queue.take()
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
    assert list(broker.backlog) == [second.pk]  # at the backlog's priority


@pytest.mark.django_db(transaction=True)
def test_a_quiet_campaign_goes_before_busy_ones_already_taking_turns(
    make_campaign, referee, player, broker, django_capture_on_commit_callbacks
):
    """Three busy campaigns are well into their backlogs when a quiet one asks: its
    advance is the next job run, not after one turn of each busy campaign."""
    busy = [make_campaign("hit_dice") for _ in range(3)]
    for number, campaign in enumerate(busy):
        wounded(campaign, player, f"Busy {number}", every=60)
        with django_capture_on_commit_callbacks(execute=True):
            for _ in range(5):
                clock_advance_start(campaign_id=campaign.pk, minutes=60, requested_by=referee)
    _drain(broker, django_capture_on_commit_callbacks, messages=4)
    assert len(broker.backlog) == 3  # each busy campaign has its next turn waiting
    quiet = make_campaign("hit_dice")
    wounded(quiet, player, "Bea", every=60)
    with django_capture_on_commit_callbacks(execute=True):
        advance = clock_advance_start(campaign_id=quiet.pk, minutes=60, requested_by=referee)

    finished = _drain(broker, django_capture_on_commit_callbacks)

    assert finished[0] == advance.pk
    assert set(ClockJob.objects.values_list("state", flat=True)) == {"done"}
