"""Sending webhooks (issue 35): each URL's due events, in order, in its format.

A URL's events are recorded and its delivery task sent by ``webhooks.services`` (in the
transaction that changed the campaign, then after it commits); the task runs here
(``webhook_delivery.tasks``). Each URL gets its events in id order, one worker at a time
(a compare-and-set lease on the endpoint), at least once: a delivery counts only after a
2xx answer, and a failed one is tried again with exponential backoff before any later
event goes to that URL. The worker that ran the task clears the URL's task slot and
sends the next one when work remains (after the backoff of a failing URL, or at once
when its run used up its time, so other URLs get their turn).

A URL of Sawbones' own format gets the event's JSON, signed; one of format ``discord``
gets each event as a message for a Discord channel (``discord_play.feed``, a plain
import: this app sits above the play from Discord); an event that format has nothing to
say about counts as delivered without a request. A receiver that answers ``429`` with
``retry_after`` (Discord's rate limits) is tried again after that long, and that try is
not counted against the URL's tries.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import socket
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib import error as urlerror
from urllib import request as urlrequest
from urllib.parse import urlsplit

from celery import current_app
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Q
from django.utils import timezone

from discord_play.feed import discord_message
from webhooks.models import (
    DeliveryState,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
    WebhookFormat,
)
from webhooks.services import retry_after, webhook_schedule

# The delivery log keeps the logger name it had before delivery had its own app: a
# deployment's searches of its JSON logs name it (docs/operations.md, LOG_FORMAT=json).
logger = logging.getLogger("webhooks.services")

LEASE = timedelta(minutes=2)  # a worker that dies lets another deliver after this
# A run stops starting new sends after this long and queues the URL again behind the
# others: a long backlog of one URL never holds a worker away from the other URLs.
RUN_SECONDS = 10.0
USER_AGENT = "Sawbones-Webhooks/1"
SIGNATURE_HEADER = "X-Sawbones-Signature"
TIMESTAMP_HEADER = "X-Sawbones-Timestamp"
EVENT_ID_HEADER = "X-Sawbones-Event-Id"
EVENT_TYPE_HEADER = "X-Sawbones-Event"


def _setting(name: str, default: Any) -> Any:
    return getattr(settings, name, default)


# -- signing and sending ---------------------------------------------------------------
@dataclass(frozen=True)
class Sent:
    """What one try came to: the receiver's status (None: no answer, or nothing sent),
    an error or a note for the delivery log, the seconds a ``429`` asked to wait, and
    whether nothing was to be sent (the format had nothing to say)."""

    status: int | None
    error: str = ""
    retry_after: float | None = None
    nothing_to_send: bool = False


MIN_RETRY_AFTER_SECONDS = 0.1  # "0": still not at once, or a run would ask again and again


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


def _body_for(endpoint: WebhookEndpoint, event: WebhookEvent) -> tuple[str | None, str]:
    """The body the URL gets for the event, in its format, or None and why not."""
    if endpoint.format == WebhookFormat.SAWBONES:
        return event.body, ""
    if endpoint.format != WebhookFormat.DISCORD:
        return None, f"no formatter for the {endpoint.format} format is installed"
    try:
        made = discord_message(event)
    except Exception as error:  # a failed try, as a receiver's error: later events go on
        logger.exception(
            "webhook %s: the %s message of event %s", endpoint.pk, endpoint.format, event.uuid
        )
        return None, f"could not make the {endpoint.format} message: {error}"[:500]
    if made is None:
        return None, ""
    return json.dumps(made, cls=DjangoJSONEncoder, separators=(",", ":")), ""


def _post(endpoint: WebhookEndpoint, event: WebhookEvent) -> Sent:
    """Send once, in the URL's format."""
    body, problem = _body_for(endpoint, event)
    if problem:
        return Sent(None, problem)
    if body is None:
        return Sent(None, f"nothing to send in the {endpoint.format} format", nothing_to_send=True)
    refused = _refused_address(endpoint.url)
    if refused:
        return Sent(None, refused)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        EVENT_TYPE_HEADER: event.type,
        EVENT_ID_HEADER: str(event.uuid),
    }
    if endpoint.format == WebhookFormat.SAWBONES:  # signed with the secret shown to its owner
        timestamp = int(time.time())
        headers[TIMESTAMP_HEADER] = str(timestamp)
        headers[SIGNATURE_HEADER] = signature(endpoint.secret, timestamp, body)
    request = urlrequest.Request(  # noqa: S310 - http(s) only, checked at registration
        endpoint.url, data=body.encode(), method="POST", headers=headers
    )
    try:
        with _OPENER.open(request, timeout=_setting("SAWBONES_WEBHOOK_TIMEOUT", 5)) as answer:
            answer.read(1024)
            return Sent(int(answer.status))
    except urlerror.HTTPError as error:
        wait = retry_after(error.read(4096), error.headers) if error.code == 429 else None
        return Sent(int(error.code), f"answered {error.code}", retry_after=wait)
    except (urlerror.URLError, OSError, ValueError) as error:
        return Sent(None, f"could not send: {error}"[:500])


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


def _deliver(
    endpoint_id: int, now: datetime, run_seconds: float | None
) -> tuple[bool, float | None]:
    """Deliver the URL's due events in order under the lease, for at most
    ``run_seconds`` (None: until nothing is due). Whether this worker held the lease,
    and the seconds until the next try is due (None: nothing waits)."""
    if not _claim(endpoint_id, now):
        return False, None
    held: datetime | None = now + LEASE  # the lease this worker set (_claim)
    started = time.monotonic()
    wait: float | None = None
    try:
        while (delivery := _next_delivery(endpoint_id)) is not None:
            if delivery.next_attempt_at > now:
                wait = (delivery.next_attempt_at - now).total_seconds()
                break
            if run_seconds is not None and time.monotonic() - started >= run_seconds:
                wait = 0.0  # due now, after the other URLs' turn
                break
            sent = _post(delivery.endpoint, delivery.event)
            status, error = sent.status, sent.error
            delivery.last_status = status
            delivery.last_error = error
            if sent.nothing_to_send:  # the URL's format has nothing to say about it
                delivery.state = DeliveryState.DELIVERED
                delivery.delivered_at = timezone.now()
            elif status == 429 and sent.retry_after is not None:
                # Wait as long as the receiver says (Discord's rate limits); the try does
                # not count against the URL: the receiver is there, only busy.
                wait_for = max(sent.retry_after, MIN_RETRY_AFTER_SECONDS)
                delivery.next_attempt_at = timezone.now() + timedelta(seconds=wait_for)
            else:
                delivery.attempts += 1
                if status is not None and 200 <= status < 300:
                    delivery.state = DeliveryState.DELIVERED
                    delivery.delivered_at = timezone.now()
                elif delivery.attempts >= _setting("SAWBONES_WEBHOOK_MAX_ATTEMPTS", 10):
                    delivery.state = DeliveryState.FAILED  # the referee may re-send it
                else:
                    delivery.next_attempt_at = now + backoff(delivery.attempts)
            if delivery.state != DeliveryState.DELIVERED and not sent.nothing_to_send:
                logger.info(
                    "webhook %s: delivery %s, try %s: %s",
                    endpoint_id,
                    delivery.pk,
                    delivery.attempts,
                    error or f"answered {status}",
                )
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
                return False, None
            held = renewed
    finally:
        if held is not None:  # release it only if it is still this worker's
            WebhookEndpoint.objects.filter(pk=endpoint_id, lease_until=held).update(
                lease_until=None
            )
    return True, wait


def webhook_deliver(*, endpoint_id: int, now: datetime | None = None) -> float | None:
    """Deliver the URL's pending events in order; the seconds until the next try is
    due, or None when nothing waits (or another worker holds the URL)."""
    now = now or timezone.now()
    owned, wait = _deliver(endpoint_id, now, run_seconds=None)
    if owned and wait is None and _next_delivery(endpoint_id) is not None:
        wait = 0.0  # recorded while this worker held the lease
    return wait


def _due_in(endpoint_id: int, now: datetime) -> float | None:
    """Seconds until the URL's next pending delivery is due (0 if it is), or None."""
    first = (
        WebhookDelivery.objects.filter(endpoint_id=endpoint_id, state=DeliveryState.PENDING)
        .order_by("id")
        .values_list("next_attempt_at", flat=True)
        .first()
    )
    return None if first is None else max((first - now).total_seconds(), 0.0)


def webhook_run(*, endpoint_id: int) -> None:
    """The delivery task: deliver what is due, then hand the URL on. Only the worker
    that held the lease touches the task slot, after it let the lease go: it frees the
    slot, then looks for work again and sends the next task if some waits, so an event
    committed meanwhile is never left without a task (its own send, or this one, wins
    the compare-and-set). A duplicate message changes nothing: it finds the lease
    taken, or nothing due."""
    eager = bool(current_app.conf.task_always_eager)
    owned, _ = _deliver(
        endpoint_id,
        timezone.now(),
        None if eager else _setting("SAWBONES_WEBHOOK_RUN_SECONDS", RUN_SECONDS),
    )
    if not owned:
        return  # another worker delivers to the URL and hands it on
    WebhookEndpoint.objects.filter(pk=endpoint_id).update(task_due_at=None)
    wait = _due_in(endpoint_id, timezone.now())
    if wait is not None and not eager:
        webhook_schedule(endpoint_id=endpoint_id, delay=wait)
