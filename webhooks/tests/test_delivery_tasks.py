"""How delivery tasks are sent: one per URL with a delivery due (beat's sweep), and
never an error for a write already committed when the broker cannot be reached."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from rules.clock.models import ClockJobKind
from rules.clock.services import clock_advance_run, clock_advance_start
from rules.clock.tests.clock_helpers import wounded
from webhooks.models import DeliveryState, WebhookDelivery, WebhookEndpoint
from webhooks.services import LOST_TASK, Events, endpoints_due, events_record
from webhooks.tasks import deliver_due_webhooks
from webhooks.tests.test_webhooks import damage, register
from webhooks.tests.worker import tasks_to


def dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def broker_down() -> Iterator[None]:
    """Tasks go to a Redis that is not there (a restart, a network cut)."""
    with tasks_to(f"redis://127.0.0.1:{dead_port()}/0"):
        yield


def numbered(number: int) -> Callable[[], Events]:
    """The events builder of one event ``{"n": number}``."""
    return lambda: [("test.event", {"n": number})]


def record(campaign_id: int, count: int) -> None:
    """``count`` events, each committed on its own."""
    for number in range(count):
        with transaction.atomic():
            events_record(campaign_id=campaign_id, events=numbered(number))


@pytest.mark.django_db
def test_the_sweep_lists_each_url_once_however_many_deliveries_wait(
    client_for, referee, campaign, make_campaign
):
    """A URL with many deliveries due is one task, not one per delivery (the ordering of
    WebhookDelivery once turned the sweep's DISTINCT into DISTINCT endpoint_id, id)."""
    first = register(client_for(referee), campaign, "https://example.org/a")["id"]
    second = register(client_for(referee), campaign, "https://example.org/b")["id"]
    other = make_campaign("hit_dice")
    quiet = register(client_for(referee), other, "https://example.org/c")["id"]
    record(campaign.pk, 5)  # on-commit sends never run here: all 10 stay pending
    assert WebhookDelivery.objects.filter(state=DeliveryState.PENDING).count() == 10

    assert endpoints_due() == [first, second]
    assert quiet not in endpoints_due()
    # a URL whose task is on its way is left to it, until that task is overdue (lost)
    now = timezone.now()
    WebhookEndpoint.objects.filter(pk=first).update(task_due_at=now)
    assert endpoints_due(now) == [second]
    assert endpoints_due(now + LOST_TASK + timedelta(seconds=1)) == [first, second]
    # as is a URL a worker is delivering to
    WebhookEndpoint.objects.filter(pk=second).update(lease_until=now + timedelta(minutes=1))
    assert endpoints_due(now) == []


@pytest.mark.django_db(transaction=True)
def test_an_action_is_answered_201_when_the_broker_is_down_and_the_sweep_delivers_it(
    receiver, client_for, referee, campaign, aldo, broker_down
):
    hook = receiver()
    endpoint = register(client_for(referee), campaign, hook.url)["id"]

    damage(client_for(referee), aldo)  # asserts 201

    delivery = WebhookDelivery.objects.get()
    assert (delivery.state, delivery.attempts) == (DeliveryState.PENDING, 0)
    assert WebhookEndpoint.objects.get(pk=endpoint).task_due_at is None  # for the sweep
    assert endpoints_due() == [endpoint]
    assert deliver_due_webhooks() == 0  # the broker is still down: nothing sent, no error


@pytest.mark.django_db(transaction=True)
def test_the_sweep_delivers_what_a_broker_outage_left_behind(
    receiver, client_for, referee, campaign, aldo
):
    hook = receiver()
    register(client_for(referee), campaign, hook.url)
    with tasks_to(f"redis://127.0.0.1:{dead_port()}/0"):
        resolution = damage(client_for(referee), aldo)
    assert hook.received == []

    assert deliver_due_webhooks() == 1  # the broker is back (in-process here)
    assert [e["data"]["id"] for e in hook.events()] == [resolution["id"]]
    assert WebhookDelivery.objects.get().state == DeliveryState.DELIVERED


@pytest.mark.django_db(transaction=True)
def test_a_clock_job_with_a_webhook_is_done_not_failed_when_the_broker_is_down(
    client_for, referee, campaign, player, broker_down
):
    wounded(campaign, player, "Aldo", every=10)
    register(client_for(referee), campaign, f"http://127.0.0.1:{dead_port()}/hook")
    # an action's time needs no broker: its job waits in the database (rules.clock.services)
    job = clock_advance_start(campaign_id=campaign.pk, minutes=60, kind=ClockJobKind.ACTION)

    done = clock_advance_run(job_id=job.pk)  # as the task would, once a worker takes it

    assert done is not None
    assert (done.state, done.reason) == ("done", "")
    assert WebhookDelivery.objects.filter(state=DeliveryState.PENDING).count() >= 7
