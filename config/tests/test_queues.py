"""A queue per kind of work (config/queues.py): every task of ours has its queue, the
clock's own is never shared with deliveries, a worker started without -Q takes them
all, and a real worker on the clock's queue runs an advance while thousands of
deliveries wait on theirs."""

from __future__ import annotations

import uuid

import pytest
from celery import Celery

from config.celery_app import app as celery_app
from config.queues import (
    CLOCK,
    DEFAULT,
    EMAIL,
    HOUSEKEEPING,
    QUEUES,
    WEBHOOKS,
    task_queues,
    task_routes,
)
from config.settings import base
from rules.clock.models import ClockJob
from rules.clock.services import clock_advance_start
from rules.clock.tests.clock_helpers import wounded
from webhooks.tests.worker import (
    REDIS_URL,
    Worker,
    clear_queue,
    needs_worker,
    tasks_to,
    wait_for,
)

OURS = (
    "rules.",
    "webhooks.",
    "accounts.",
    "campaigns.",
    "characters.",
    "web.",
    "core.",
    "discord_play.",
)


def routed(name: str) -> str:
    """The queue the production settings send the task ``name`` to."""
    app = Celery(set_as_current=False)
    app.conf.task_routes = base.CELERY_TASK_ROUTES
    app.conf.task_queues = base.CELERY_TASK_QUEUES
    return str(app.amqp.router.route({}, name)["queue"].name)


@pytest.mark.parametrize(
    ("task", "queue"),
    [
        ("rules.tasks.advance_clock", CLOCK),
        ("rules.tasks.tick_live_campaigns", HOUSEKEEPING),
        ("rules.tasks.watch_clock_jobs", HOUSEKEEPING),
        ("webhooks.tasks.deliver_webhooks", WEBHOOKS),
        ("webhooks.tasks.deliver_due_webhooks", HOUSEKEEPING),
        ("accounts.tasks.send_email", EMAIL),
        ("rules.clock.digest.send_email", EMAIL),
        ("rules.tasks.queue_digests", HOUSEKEEPING),
    ],
)
def test_each_kind_of_work_has_its_queue(task, queue):
    assert routed(task) == queue


def test_every_task_of_ours_is_routed_by_name_and_beat_sends_only_housekeeping():
    celery_app.loader.import_default_modules()  # the apps' tasks.py (autodiscovery)
    ours = sorted(name for name in celery_app.tasks if name.startswith(OURS))
    assert "rules.tasks.advance_clock" in ours
    assert "webhooks.tasks.deliver_webhooks" in ours
    unrouted = [name for name in ours if routed(name) == "celery"]
    assert unrouted == [], "route each new task in config/queues.py"
    for entry in base.CELERY_BEAT_SCHEDULE.values():
        assert routed(str(entry["task"])) == HOUSEKEEPING, entry


def test_a_worker_without_q_takes_every_queue_and_each_is_bound_by_its_own_key():
    assert [q.name for q in base.CELERY_TASK_QUEUES] == list(QUEUES)
    # a task goes to one queue: bound by the default key, each would get a copy
    assert [q.routing_key for q in base.CELERY_TASK_QUEUES] == list(QUEUES)


@needs_worker
@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_an_advance_runs_on_the_clocks_worker_while_deliveries_flood_their_queue(campaign, player):
    for number in range(5):
        wounded(campaign, player, f"Char{number}", every=10)
    prefix = f"sawbones-test-{uuid.uuid4().hex}-"
    routes, queues = task_routes(prefix), task_queues(prefix)
    worker = Worker(prefix + CLOCK, "clock", concurrency=1, SAWBONES_TEST_QUEUE_PREFIX=prefix)
    try:
        with tasks_to(REDIS_URL, prefix + DEFAULT, routes, queues):
            # given thousands of deliveries waiting on theirs (no worker takes them)
            for endpoint_id in range(3000):
                celery_app.send_task("webhooks.tasks.deliver_webhooks", (endpoint_id,))
            # when the referee advances the clock
            job = clock_advance_start(campaign_id=campaign.pk, minutes=60)
            # then the clock's worker runs it, not held behind them (no wall-clock bound,
            # which a loaded machine would break: the queue lengths below show it)
            wait_for(
                lambda: ClockJob.objects.get(pk=job.pk).state == "done", 60, "the advance", worker
            )
            with celery_app.connection_for_write() as broker:
                client = broker.default_channel.client  # type: ignore[attr-defined]
                # all still waiting on theirs, and nowhere else
                lengths = {name: client.llen(prefix + name) for name in QUEUES}
                assert lengths == {name: 3000 if name == WEBHOOKS else 0 for name in QUEUES}
    finally:
        worker.stop()
        clear_queue(prefix)
