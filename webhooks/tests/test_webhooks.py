"""Webhooks against a real HTTP receiver (http.server in a thread on 127.0.0.1):
signed events for resolutions, pending choices and clock jobs, in order per URL, at
least once with backoff, the delivery log, re-sending."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from campaigns.models import Membership
from rules.play.services import character_create
from webhook_delivery.services import backoff, webhook_deliver
from webhooks.models import DeliveryState, WebhookDelivery, WebhookEndpoint, WebhookEvent
from webhooks.services import events_record

pytestmark = pytest.mark.django_db


def register(client, campaign, url: str) -> dict[str, Any]:
    response = client.post(
        reverse("api-webhooks", kwargs={"campaign_id": campaign.pk}), {"url": url}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()


def damage(client, character, amount: int = 2):
    url = reverse("api-actions", kwargs={"character_id": character.pk})
    response = client.post(url, {"action": "damage", "params": {"amount": amount}}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def verify(item: dict[str, Any], secret: str) -> None:
    """What a receiver does: recompute the signature over timestamp and body."""
    headers = item["headers"]
    timestamp = headers["X-Sawbones-Timestamp"]
    expected = hmac.new(
        secret.encode(), f"{timestamp}.{item['body']}".encode(), hashlib.sha256
    ).hexdigest()
    assert hmac.compare_digest(headers["X-Sawbones-Signature"], f"sha256={expected}")
    assert abs(int(timestamp) - time.time()) < 60
    body = json.loads(item["body"])
    assert headers["X-Sawbones-Event-Id"] == body["id"]
    assert headers["X-Sawbones-Event"] == body["type"]
    assert headers["Content-Type"] == "application/json"


def test_an_action_posts_a_signed_event(
    receiver, client_for, referee, campaign, aldo, django_capture_on_commit_callbacks
):
    hook = receiver()
    client = client_for(referee)
    created = register(client, campaign, hook.url)
    assert set(created) == {"id", "url", "format", "created_at", "secret"}
    assert created["format"] == "sawbones"  # the default (issue 38)
    with django_capture_on_commit_callbacks(execute=True):
        resolution = damage(client, aldo)

    assert len(hook.received) == 1
    verify(hook.received[0], created["secret"])
    event = hook.events()[0]
    assert event["type"] == "resolution.created"
    assert event["campaign"] == campaign.pk
    assert event["data"]["id"] == resolution["id"]
    assert event["data"]["summary"] == resolution["summary"]
    assert event["data"]["sheet"]["hp"] == 8

    log = client.get(
        reverse(
            "api-webhook-deliveries",
            kwargs={"campaign_id": campaign.pk, "webhook_id": created["id"]},
        )
    ).json()
    assert log["count"] == 1
    entry = log["results"][0]
    assert (entry["state"], entry["attempts"], entry["last_status"]) == ("delivered", 1, 200)
    assert entry["event_id"] == event["id"]
    assert "secret" not in json.dumps(
        client.get(reverse("api-webhooks", kwargs={"campaign_id": campaign.pk})).json()
    )


def test_a_forged_signature_does_not_verify(
    receiver, client_for, referee, campaign, aldo, django_capture_on_commit_callbacks
):
    hook = receiver()
    created = register(client_for(referee), campaign, hook.url)
    with django_capture_on_commit_callbacks(execute=True):
        damage(client_for(referee), aldo)
    with pytest.raises(AssertionError):
        verify(hook.received[0], created["secret"][::-1])
    tampered = {**hook.received[0], "body": hook.received[0]["body"].replace('"hp":8', '"hp":80')}
    with pytest.raises(AssertionError):
        verify(tampered, created["secret"])


def test_failures_are_retried_with_backoff_and_later_events_wait(
    receiver, client_for, referee, campaign, aldo, django_capture_on_commit_callbacks
):
    hook = receiver([500, 503])
    client = client_for(referee)
    created = register(client, campaign, hook.url)
    with django_capture_on_commit_callbacks(execute=True):
        first = damage(client, aldo, 1)
    with django_capture_on_commit_callbacks(execute=True):
        second = damage(client, aldo, 1)
    # The first event failed once; the second waits behind it (order per URL).
    assert [e["data"]["id"] for e in hook.events()] == [first["id"]]
    early, late = WebhookDelivery.objects.order_by("id")
    assert (early.state, early.attempts, early.last_status) == ("pending", 1, 500)
    assert (late.state, late.attempts) == ("pending", 0)

    start = early.next_attempt_at - backoff(1)
    assert webhook_deliver(endpoint_id=created["id"], now=start + timedelta(seconds=5)) == 5
    assert len(hook.received) == 1  # not due yet: nothing sent

    webhook_deliver(endpoint_id=created["id"], now=start + timedelta(seconds=11))
    early.refresh_from_db()
    assert (early.attempts, early.last_status) == (2, 503)
    assert early.next_attempt_at - (start + timedelta(seconds=11)) == backoff(2)
    assert backoff(2) == 2 * backoff(1)

    assert webhook_deliver(endpoint_id=created["id"], now=start + timedelta(seconds=40)) is None
    ids = [e["data"]["id"] for e in hook.events()]
    assert ids == [first["id"], first["id"], first["id"], second["id"]]
    assert set(WebhookDelivery.objects.values_list("state", flat=True)) == {"delivered"}
    for item in hook.received:
        verify(item, created["secret"])


@override_settings(SAWBONES_WEBHOOK_MAX_ATTEMPTS=2)
def test_a_delivery_that_keeps_failing_is_given_up_and_can_be_resent(
    receiver, client_for, referee, campaign, aldo, django_capture_on_commit_callbacks
):
    hook = receiver([500, 500])
    client = client_for(referee)
    created = register(client, campaign, hook.url)
    with django_capture_on_commit_callbacks(execute=True):
        damage(client, aldo, 1)
    delivery = WebhookDelivery.objects.get()
    webhook_deliver(endpoint_id=created["id"], now=delivery.next_attempt_at)
    delivery.refresh_from_db()
    assert (delivery.state, delivery.attempts) == (DeliveryState.FAILED, 2)

    url = reverse(
        "api-webhook-resend",
        kwargs={
            "campaign_id": campaign.pk,
            "webhook_id": created["id"],
            "delivery_id": delivery.pk,
        },
    )
    with django_capture_on_commit_callbacks(execute=True):
        again = client.post(url)
    assert again.status_code == 202
    assert again.json()["resend_of"] == delivery.pk
    events = hook.events()
    assert len(events) == 3
    assert events[2]["id"] == events[0]["id"]  # the same event id: a receiver can dedupe
    assert WebhookDelivery.objects.get(pk=again.json()["id"]).state == DeliveryState.DELIVERED


def test_a_pending_choice_is_an_event(
    receiver, client_for, referee, campaign, aldo, scripted_dice, django_capture_on_commit_callbacks
):
    hook = receiver()
    register(client_for(referee), campaign, hook.url)
    # 12 damage on 10 hp: strength save fails, will save passes: a choice (HD-4, G-3).
    scripted_dice([1, 20])
    with django_capture_on_commit_callbacks(execute=True):
        damage(client_for(referee), aldo, 12)
    types = [e["type"] for e in hook.events()]
    assert types == ["resolution.created", "choice.pending"]
    choice = hook.events()[1]["data"]
    assert choice["character"] == aldo.pk
    assert {o["key"] for o in choice["choice"]["options"]} >= {"major_wound"}


def test_a_clock_advance_posts_its_effects_and_the_job(
    receiver, client_for, referee, make_campaign, player, django_capture_on_commit_callbacks
):
    campaign = make_campaign("old_school")
    membership = Membership.objects.get(campaign=campaign, user=player)
    character_create(membership=membership, name="Ida")
    hook = receiver()
    client = client_for(referee)
    register(client, campaign, hook.url)
    url = reverse("api-clock-advance", kwargs={"campaign_id": campaign.pk})
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(url, {"minutes": 60}, format="json").status_code == 202
    events = hook.events()
    assert events[-1]["type"] == "clock_job.updated"
    assert events[-1]["data"]["state"] == "done"
    assert events[-1]["data"]["clock"] == 60


@override_settings(SAWBONES_WEBHOOK_ALLOW_PRIVATE=False)
def test_private_addresses_are_refused_in_deployments(
    receiver, client_for, referee, campaign, aldo, django_capture_on_commit_callbacks
):
    hook = receiver()
    register(client_for(referee), campaign, hook.url)
    with django_capture_on_commit_callbacks(execute=True):
        damage(client_for(referee), aldo)
    assert hook.received == []
    delivery = WebhookDelivery.objects.get()
    assert "private or local address" in delivery.last_error


@pytest.mark.parametrize(
    "url",
    ["ftp://example.org/x", "not a url", "http://user:pw@example.org/", "", "http://" + "a" * 600],
    ids=["ftp", "garbage", "credentials", "empty", "too-long"],
)
def test_bad_urls_are_400(client_for, referee, campaign, url):
    response = client_for(referee).post(
        reverse("api-webhooks", kwargs={"campaign_id": campaign.pk}), {"url": url}, format="json"
    )
    assert response.status_code == 400
    assert not WebhookEndpoint.objects.exists()


def test_at_most_five_webhooks_per_campaign(client_for, referee, campaign):
    client = client_for(referee)
    for number in range(5):
        register(client, campaign, f"https://example.org/{number}")
    response = client.post(
        reverse("api-webhooks", kwargs={"campaign_id": campaign.pk}),
        {"url": "https://example.org/6"},
        format="json",
    )
    assert response.status_code == 400
    assert WebhookEndpoint.objects.count() == 5


def test_without_webhooks_no_event_is_built(campaign):
    def never() -> list[tuple[str, dict[str, Any]]]:
        raise AssertionError("built events for a campaign without webhooks")

    events_record(campaign_id=campaign.pk, events=never)
    assert not WebhookEvent.objects.exists()


def test_one_worker_at_a_time_per_url(client_for, referee, campaign):
    created = register(client_for(referee), campaign, "https://example.org/hook")
    now = timezone.now()
    WebhookEndpoint.objects.filter(pk=created["id"]).update(lease_until=now + timedelta(minutes=1))
    assert webhook_deliver(endpoint_id=created["id"], now=now) is None  # held by another


def test_removing_a_webhook_stops_deliveries(client_for, referee, campaign, aldo):
    client = client_for(referee)
    created = register(client, campaign, "https://example.org/hook")
    url = reverse("api-webhook", kwargs={"campaign_id": campaign.pk, "webhook_id": created["id"]})
    assert client.delete(url).status_code == 204
    damage(client, aldo)
    assert not WebhookEvent.objects.exists()
    assert client.delete(url).status_code == 404


def _two_events_pending(receiver, client_for, referee, campaign, aldo) -> tuple[Any, int]:
    """A receiver with two events waiting for it, as if never sent (the test settings
    deliver at once): the hook and the webhook's id."""
    hook = receiver()
    client = client_for(referee)
    endpoint_id = register(client, campaign, hook.url)["id"]
    damage(client, aldo)
    damage(client, aldo)
    WebhookDelivery.objects.filter(endpoint_id=endpoint_id).update(
        state=DeliveryState.PENDING, attempts=0, delivered_at=None
    )
    hook.received.clear()
    return hook, endpoint_id


@pytest.mark.django_db(transaction=True)
def test_a_worker_whose_lease_was_taken_stops_and_leaves_the_other_workers_lease(
    receiver, client_for, referee, campaign, aldo, settings
):
    """Two workers never send to one URL at once (docs/deployment.md): the lease is
    renewed by compare-and-set as deliveries go, and released only by its holder. Here
    the first POST takes so long that another worker claims the URL meanwhile."""
    settings.SAWBONES_WEBHOOK_ALLOW_PRIVATE = True
    hook, endpoint_id = _two_events_pending(receiver, client_for, referee, campaign, aldo)
    assert WebhookDelivery.objects.filter(endpoint_id=endpoint_id).count() == 2
    other_workers_lease = timezone.now() + timedelta(hours=1)
    answer_first = hook.server.RequestHandlerClass.do_POST

    def slow_first_answer(handler: Any) -> None:
        if not hook.received:  # the other worker claims the URL while this one waits
            WebhookEndpoint.objects.filter(pk=endpoint_id).update(lease_until=other_workers_lease)
            connection.close()
        answer_first(handler)

    hook.server.RequestHandlerClass.do_POST = slow_first_answer
    assert webhook_deliver(endpoint_id=endpoint_id) is None
    assert len(hook.received) == 1  # the second event is left to the lease's holder
    endpoint = WebhookEndpoint.objects.get(pk=endpoint_id)
    assert endpoint.lease_until == other_workers_lease  # not released by the first worker
    states = WebhookDelivery.objects.filter(endpoint_id=endpoint_id).order_by("id")
    assert [d.state for d in states] == [DeliveryState.DELIVERED, DeliveryState.PENDING]


@pytest.mark.django_db(transaction=True)
def test_the_lease_is_renewed_from_the_time_it_is_and_released_at_the_end(
    receiver, client_for, referee, campaign, aldo, settings
):
    """A long backlog keeps its lease: each renewal counts from the time it is, not
    from when the run began (then a run over two minutes would lose it unawares)."""
    settings.SAWBONES_WEBHOOK_ALLOW_PRIVATE = True
    hook, endpoint_id = _two_events_pending(receiver, client_for, referee, campaign, aldo)
    leases: list[Any] = []
    answer = hook.server.RequestHandlerClass.do_POST

    def slow_answer(handler: Any) -> None:
        leases.append(WebhookEndpoint.objects.get(pk=endpoint_id).lease_until)
        connection.close()
        time.sleep(0.2)
        answer(handler)

    hook.server.RequestHandlerClass.do_POST = slow_answer
    assert webhook_deliver(endpoint_id=endpoint_id) is None
    assert len(hook.received) == 2
    assert leases[1] - leases[0] >= timedelta(seconds=0.2)  # renewed after the first answer
    assert WebhookEndpoint.objects.get(pk=endpoint_id).lease_until is None  # released


def test_a_clock_batch_posts_each_effects_resolution_as_the_log_has_it(
    receiver, client_for, referee, campaign, player, django_capture_on_commit_callbacks
):
    # the batch holds plain rows (rules.log.rows): the events are made from their models
    from rules.clock.tests.clock_helpers import run_job, wounded
    from rules.log.models import Resolution

    wounded(campaign, player, "Aldo", every=60)
    hook = receiver()
    register(client_for(referee), campaign, hook.url)
    with django_capture_on_commit_callbacks(execute=True):
        run_job(campaign, 2 * 60)
    posted = [e["data"] for e in hook.events() if e["type"] == "resolution.created"]
    logged = Resolution.objects.filter(campaign=campaign, kind="effect").order_by("id")
    assert [(d["id"], d["summary"], d["clock"]) for d in posted] == [
        (r.pk, r.summary, r.clock) for r in logged
    ]
    assert len(posted) == 2
