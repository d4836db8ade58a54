"""A real Celery worker delivers webhooks while a URL is down: one task per URL however
many events wait, the failing URL backs off without multiplying its tasks, another
campaign's URL is served meanwhile, and once the URL comes back every event arrives,
in order, once."""

from __future__ import annotations

import json
import re
import time
import uuid
from typing import Any

import pytest
from celery.signals import before_task_publish

from webhooks.models import DeliveryState, WebhookDelivery, WebhookEndpoint
from webhooks.tests.test_delivery_tasks import dead_port, record
from webhooks.tests.test_webhooks import register
from webhooks.tests.worker import REDIS_URL, Worker, clear_queue, needs_worker, tasks_to, wait_for

pytestmark = [pytest.mark.celery_worker, needs_worker, pytest.mark.django_db(transaction=True)]

EVENTS = 300


def test_a_url_that_is_down_holds_one_task_and_gets_every_event_in_order_once_it_is_back(
    receiver, client_for, referee, campaign, make_campaign
):
    port = dead_port()
    down = register(client_for(referee), campaign, f"http://127.0.0.1:{port}/hook")["id"]
    other = make_campaign("hit_dice")
    working = receiver()
    register(client_for(referee), other, working.url)
    sent: list[Any] = []

    def count(sender: str | None = None, body: Any = None, **kwargs: Any) -> None:
        if sender == "webhooks.tasks.deliver_webhooks":
            sent.append(body[0][0])  # the endpoint id

    before_task_publish.connect(count, weak=False)
    queue = f"sawbones-test-{uuid.uuid4().hex}"
    worker = Worker(queue, "hooks", concurrency=2)
    try:
        with tasks_to(REDIS_URL, queue):
            # given 300 events, each committed on its own, for a URL that refuses them
            record(campaign.pk, EVENTS)
            # then this process sent a handful of tasks for it, not one per event: only
            # when the worker had just let the URL go (it then sends none itself)
            assert 1 <= sent.count(down) <= 5, sent

            # and another campaign's event is delivered meanwhile
            record(other.pk, 1)
            # (not behind the down URL's backlog: all its events still wait when it arrives;
            # no wall-clock bound, which a loaded machine would break)
            wait_for(lambda: len(working.received) == 1, 30, "the working URL", worker)
            waiting = WebhookDelivery.objects.filter(
                endpoint_id=down, state=DeliveryState.PENDING
            ).count()
            assert waiting == EVENTS

            # while the URL stays down its one task comes back after each backoff
            # (0.2 s doubling), never one per waiting event
            wait_for(
                lambda: WebhookDelivery.objects.filter(endpoint_id=down, attempts__gte=4).exists(),
                30,
                "four tries",
                worker,
            )
            runs = len(re.findall(r"deliver_webhooks\[[^]]+\] received", worker.output()))
            first = WebhookDelivery.objects.filter(endpoint_id=down).order_by("id").first()
            assert first is not None
            # every run is a task this process sent (a handful, counted above) or the one
            # the worker sent again after a try: never one per waiting event
            assert runs <= first.attempts + len(sent), worker.output()[-3000:]
            assert WebhookDelivery.objects.filter(endpoint_id=down, attempts__gt=0).count() == 1

            # when the URL comes back, every event arrives, in order, once
            back = receiver(port=port)
            wait_for(
                lambda: (
                    not WebhookDelivery.objects.filter(
                        endpoint_id=down, state=DeliveryState.PENDING
                    ).exists()
                ),
                60,
                "every event delivered",
                worker,
            )
            numbers = [json.loads(item["body"])["data"]["n"] for item in back.received]
            assert numbers == list(range(EVENTS))
            time.sleep(0.5)  # nothing else turns up
            assert len(back.received) == EVENTS
            assert WebhookEndpoint.objects.get(pk=down).task_due_at is None
            runs = len(re.findall(r"deliver_webhooks\[[^]]+\] received", worker.output()))
            assert runs < 30, f"{runs} delivery tasks for {EVENTS} events"
    finally:
        before_task_publish.disconnect(count)
        worker.stop()
        clear_queue(queue)
