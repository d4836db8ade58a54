"""Writes of webhooks: register and remove URLs, record events, deliver, re-send.

Events are recorded in the transaction that changed the campaign (under its row lock,
so their ids follow the campaign's order of changes); their delivery is enqueued once
that transaction commits. Each URL gets its events in id order, one worker at a time
(a compare-and-set lease on the endpoint), at least once: a delivery counts only after
a 2xx answer, and a failed one is tried again with exponential backoff before any
later event goes to that URL.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import socket
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any
from urllib import error as urlerror
from urllib import request as urlrequest
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.db.models import Q
from django.http import Http404
from django.utils import timezone

from campaigns.models import Campaign
from core.cleaning import valid_id
from webhooks.models import (
    DeliveryState,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
    new_webhook_secret,
)

MAX_WEBHOOKS_PER_CAMPAIGN = 5
LEASE = timedelta(minutes=2)  # a worker that dies lets another deliver after this
USER_AGENT = "Sawbones-Webhooks/1"
SIGNATURE_HEADER = "X-Sawbones-Signature"
TIMESTAMP_HEADER = "X-Sawbones-Timestamp"
EVENT_ID_HEADER = "X-Sawbones-Event-Id"
EVENT_TYPE_HEADER = "X-Sawbones-Event"


def _setting(name: str, default: Any) -> Any:
    return getattr(settings, name, default)


# -- URLs ------------------------------------------------------------------------------
def webhook_create(*, campaign: Campaign, url: str, user: Any) -> WebhookEndpoint:
    """Register a URL for the campaign's events; http(s) only, a few per campaign."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValidationError({"url": ["give an http:// or https:// address"]})
    if parts.username or parts.password:
        raise ValidationError({"url": ["put no user name or password in the address"]})
    with transaction.atomic():
        Campaign.objects.select_for_update().get(pk=campaign.pk)
        if WebhookEndpoint.objects.filter(campaign=campaign).count() >= MAX_WEBHOOKS_PER_CAMPAIGN:
            raise ValidationError(
                {"url": [f"a campaign has at most {MAX_WEBHOOKS_PER_CAMPAIGN} webhooks"]}
            )
        return WebhookEndpoint.objects.create(campaign=campaign, url=url, created_by=user)


def webhook_delete(*, campaign: Campaign, webhook_id: int) -> None:
    """Remove a URL with its delivery log; nothing more is sent to it."""
    deleted, _ = WebhookEndpoint.objects.filter(campaign=campaign, pk=webhook_id).delete()
    if not deleted:
        raise Http404("no such webhook")


def webhook_rotate_secret(*, campaign: Campaign, webhook_id: int) -> WebhookEndpoint:
    """A new signing secret for the URL: every delivery from now on, the ones still
    pending included, is signed with it; the old secret signs nothing more."""
    with transaction.atomic():
        endpoint = (
            WebhookEndpoint.objects.select_for_update()
            .filter(campaign=campaign, pk=webhook_id)
            .first()
        )
        if endpoint is None:
            raise Http404("no such webhook")
        endpoint.secret = new_webhook_secret()
        endpoint.save(update_fields=["secret"])
        return endpoint


# -- events ----------------------------------------------------------------------------
Events = Sequence[tuple[str, dict[str, Any]]]


def events_record(*, campaign_id: int, events: Callable[[], Events]) -> None:
    """Record the ``(type, data)`` events ``events()`` builds for each of the campaign's
    URLs, and deliver them once the caller's transaction commits. With no URL this is
    one query and ``events`` is not called."""
    endpoint_ids = list(
        WebhookEndpoint.objects.filter(campaign_id=campaign_id).values_list("pk", flat=True)
    )
    if not endpoint_ids:
        return
    now = timezone.now()
    rows = []
    for event_type, data in events():
        event_id = uuid.uuid4()
        body = {
            "id": str(event_id),
            "type": event_type,
            "campaign": campaign_id,
            "created_at": now,
            "data": data,
        }
        rows.append(
            WebhookEvent(
                campaign_id=campaign_id,
                uuid=event_id,
                type=event_type,
                body=json.dumps(body, cls=DjangoJSONEncoder, separators=(",", ":")),
            )
        )
    if not rows:
        return
    WebhookEvent.objects.bulk_create(rows)
    WebhookDelivery.objects.bulk_create(
        WebhookDelivery(endpoint_id=endpoint_id, event=event, next_attempt_at=now)
        for event in rows
        for endpoint_id in endpoint_ids
    )
    for endpoint_id in endpoint_ids:
        transaction.on_commit(partial(_enqueue, endpoint_id))


def _enqueue(endpoint_id: int, countdown: float = 0) -> None:
    from webhooks.tasks import deliver_webhooks  # the task module imports this one

    deliver_webhooks.apply_async((endpoint_id,), countdown=countdown)


def delivery_resend(*, endpoint: WebhookEndpoint, delivery_id: int) -> WebhookDelivery:
    """Send a delivered or failed event again: a new delivery after the URL's others
    (the same event id, so a receiver can tell it has seen it)."""
    try:
        original = WebhookDelivery.objects.filter(
            endpoint=endpoint, pk=valid_id(delivery_id)
        ).first()
    except (ValueError, TypeError):
        original = None
    if original is None:
        raise Http404("no such delivery")
    with transaction.atomic():
        again = WebhookDelivery.objects.create(
            endpoint=endpoint, event_id=original.event_id, resend_of=original
        )
        transaction.on_commit(partial(_enqueue, endpoint.pk))
    return again


# -- signing and sending ---------------------------------------------------------------
def signature(secret: str, timestamp: int, body: str) -> str:
    """``sha256=`` and the hex HMAC-SHA256 of ``"<timestamp>.<body>"`` under the secret."""
    message = f"{timestamp}.{body}".encode()
    return "sha256=" + hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


class _NoRedirects(urlrequest.HTTPRedirectHandler):
    """A redirect is an answer that is not 2xx: never follow one elsewhere."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urlrequest.build_opener(_NoRedirects)


def _refused_address(url: str) -> str | None:
    """Why the URL's host may not be called (a private or local address), or None.

    Deployments keep webhooks off their own network unless
    ``SAWBONES_WEBHOOK_ALLOW_PRIVATE`` is set (tests and the embedded mode set it).
    """
    if _setting("SAWBONES_WEBHOOK_ALLOW_PRIVATE", False):
        return None
    host = urlsplit(url).hostname or ""
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except OSError as error:
        return f"cannot resolve {host}: {error}"
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]))
        if not address.is_global:
            return f"{host} is a private or local address ({address})"
    return None


def _post(endpoint: WebhookEndpoint, event: WebhookEvent) -> tuple[int | None, str]:
    """Send once: (HTTP status or None, error text or "")."""
    refused = _refused_address(endpoint.url)
    if refused:
        return None, refused
    timestamp = int(time.time())
    request = urlrequest.Request(  # noqa: S310 - http(s) only, checked at registration
        endpoint.url,
        data=event.body.encode(),
        method="POST",
        headers={
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            EVENT_TYPE_HEADER: event.type,
            EVENT_ID_HEADER: str(event.uuid),
            TIMESTAMP_HEADER: str(timestamp),
            SIGNATURE_HEADER: signature(endpoint.secret, timestamp, event.body),
        },
    )
    try:
        with _OPENER.open(request, timeout=_setting("SAWBONES_WEBHOOK_TIMEOUT", 5)) as answer:
            answer.read(1024)
            return int(answer.status), ""
    except urlerror.HTTPError as error:
        return int(error.code), f"answered {error.code}"
    except (urlerror.URLError, OSError, ValueError) as error:
        return None, f"could not send: {error}"[:500]


def backoff(attempts: int) -> timedelta:
    """Wait before try ``attempts + 1``: doubling from the base, at most an hour."""
    base = float(_setting("SAWBONES_WEBHOOK_BACKOFF_SECONDS", 10))
    return timedelta(seconds=min(base * 2 ** (attempts - 1), 3600))


def _claim(endpoint_id: int, now: datetime) -> bool:
    """Compare-and-set: this worker delivers to the URL until the lease ends."""
    return (
        WebhookEndpoint.objects.filter(pk=endpoint_id)
        .filter(Q(lease_until__isnull=True) | Q(lease_until__lt=now))
        .update(lease_until=now + LEASE)
        == 1
    )


def _next_delivery(endpoint_id: int) -> WebhookDelivery | None:
    return (
        WebhookDelivery.objects.filter(endpoint_id=endpoint_id, state=DeliveryState.PENDING)
        .select_related("endpoint", "event")
        .order_by("id")
        .first()
    )


def webhook_deliver(*, endpoint_id: int, now: datetime | None = None) -> float | None:
    """Deliver the URL's pending events in order; the seconds until the next try is
    due, or None when nothing waits (or another worker holds the URL)."""
    now = now or timezone.now()
    if not _claim(endpoint_id, now):
        return None
    held: datetime | None = now + LEASE  # the lease this worker set (_claim)
    started = time.monotonic()
    wait: float | None = None
    try:
        while (delivery := _next_delivery(endpoint_id)) is not None:
            if delivery.next_attempt_at > now:
                wait = (delivery.next_attempt_at - now).total_seconds()
                break
            status, error = _post(delivery.endpoint, delivery.event)
            delivery.attempts += 1
            delivery.last_status = status
            delivery.last_error = error
            if status is not None and 200 <= status < 300:
                delivery.state = DeliveryState.DELIVERED
                delivery.delivered_at = timezone.now()
            elif delivery.attempts >= _setting("SAWBONES_WEBHOOK_MAX_ATTEMPTS", 10):
                delivery.state = DeliveryState.FAILED  # the referee may re-send it
            else:
                delivery.next_attempt_at = now + backoff(delivery.attempts)
            delivery.save(
                update_fields=[
                    "attempts",
                    "last_status",
                    "last_error",
                    "state",
                    "delivered_at",
                    "next_attempt_at",
                ]
            )
            # Renew the lease from the time it is now, by compare-and-set on the lease
            # this worker holds: a worker whose lease ran out (a long backlog of slow
            # answers) and was taken by another stops, so no URL gets two senders.
            renewed = now + timedelta(seconds=time.monotonic() - started) + LEASE
            if not WebhookEndpoint.objects.filter(pk=endpoint_id, lease_until=held).update(
                lease_until=renewed
            ):
                held = None
                return None
            held = renewed
    finally:
        if held is not None:  # release it only if it is still this worker's
            WebhookEndpoint.objects.filter(pk=endpoint_id, lease_until=held).update(
                lease_until=None
            )
    if wait is None and _next_delivery(endpoint_id) is not None:
        wait = 0.0  # recorded while this worker held the lease
    return wait


def endpoints_due(now: datetime | None = None) -> list[int]:
    """URLs with a delivery due: the beat sweep enqueues them (after a lost task)."""
    now = now or timezone.now()
    return list(
        WebhookDelivery.objects.filter(state=DeliveryState.PENDING, next_attempt_at__lte=now)
        .values_list("endpoint_id", flat=True)
        .distinct()
    )
