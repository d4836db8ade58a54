"""Writes of webhooks: register and remove URLs, record events, deliver, re-send.

Events are recorded in the transaction that changed the campaign (under its row lock,
so their ids follow the campaign's order of changes); their delivery is sent once
that transaction commits. Each URL gets its events in id order, one worker at a time
(a compare-and-set lease on the endpoint), at least once: a delivery counts only after
a 2xx answer, and a failed one is tried again with exponential backoff before any
later event goes to that URL.

Each URL has at most one delivery task in the broker, however many events wait: the
task is sent only by whoever sets ``task_due_at`` by compare-and-set, and the worker
that ran it clears it and sends the next one when work remains (after the backoff of a
failing URL, or at once when its run used up its time, so other URLs get their turn).
A broker that cannot be reached loses nothing: the commit stands, and beat's sweep
(:func:`endpoints_due`) sends the task once the broker is back.

A URL of another format than Sawbones' own (``WebhookFormat``) gets each event as that
format's formatter makes it when it is sent (:func:`register_format`: ``discord_play``
registers Discord's, as messages for a channel); an event the formatter has nothing to
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
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any
from urllib import error as urlerror
from urllib import request as urlrequest
from urllib.parse import urlsplit

from celery import current_app
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.http import Http404
from django.utils import timezone

from campaigns.models import Campaign
from core.cleaning import valid_id
from core.errors import UNAVAILABLE_ERRORS
from webhooks.models import (
    DeliveryState,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
    WebhookFormat,
    new_webhook_secret,
)

logger = logging.getLogger(__name__)

MAX_WEBHOOKS_PER_CAMPAIGN = 5
LEASE = timedelta(minutes=2)  # a worker that dies lets another deliver after this
# A delivery task this late (its message lost with the broker, or never sent) is sent
# again by beat's sweep (SAWBONES_WEBHOOK_LOST_TASK_SECONDS overrides it).
LOST_TASK = timedelta(minutes=2)
# A run stops starting new sends after this long and queues the URL again behind the
# others: a long backlog of one URL never holds a worker away from the other URLs.
RUN_SECONDS = 10.0
# A task's countdown is kept under Redis's visibility timeout (an hour), past which the
# broker would hand the waiting message out a second time; a longer backoff waits in steps.
MAX_COUNTDOWN_SECONDS = 300.0
# The delivery task, sent by name: this module must not import the task module (which
# imports this one). Its queue comes from CELERY_TASK_ROUTES.
DELIVER_TASK = "webhooks.tasks.deliver_webhooks"
USER_AGENT = "Sawbones-Webhooks/1"
SIGNATURE_HEADER = "X-Sawbones-Signature"
TIMESTAMP_HEADER = "X-Sawbones-Timestamp"
EVENT_ID_HEADER = "X-Sawbones-Event-Id"
EVENT_TYPE_HEADER = "X-Sawbones-Event"


def _setting(name: str, default: Any) -> Any:
    return getattr(settings, name, default)


def _lost_task() -> timedelta:
    """How late a delivery task may be before it counts as lost (its message went with
    the broker): the deployment's setting, else LOST_TASK."""
    seconds = _setting("SAWBONES_WEBHOOK_LOST_TASK_SECONDS", None)
    return LOST_TASK if seconds is None else timedelta(seconds=float(seconds))


# -- URLs ------------------------------------------------------------------------------
def webhook_create(
    *, campaign: Campaign, url: str, user: Any, format: str = WebhookFormat.SAWBONES
) -> WebhookEndpoint:
    """Register a URL for the campaign's events, in ``format`` (``WebhookFormat``);
    http(s) only, a few per campaign."""
    if format not in WebhookFormat.values:
        raise ValidationError({"format": [f"a webhook's format is one of {WebhookFormat.values}"]})
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
        return WebhookEndpoint.objects.create(
            campaign=campaign, url=url, created_by=user, format=format
        )


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
        transaction.on_commit(partial(_send_after_commit, endpoint_id))


def _send_after_commit(endpoint_id: int) -> None:
    """Send the URL's delivery task once the events are committed. Never raises: the
    events are durable, and what the caller committed (an action, a clock batch) must
    not be reported as failed because Redis or the database blinked; the sweep sends
    the task later."""
    try:
        webhook_schedule(endpoint_id=endpoint_id)
    except UNAVAILABLE_ERRORS as error:
        logger.warning(
            "webhook %s: could not send its delivery task (%s: %s); the sweep will",
            endpoint_id,
            type(error).__name__,
            error,
        )


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
        transaction.on_commit(partial(_send_after_commit, endpoint.pk))
    return again


# -- formats: what a URL of another format is sent ---------------------------------------
# A formatter makes the JSON body of one event for its format, or None when that format
# has nothing to say about it (Discord's channel is told an advance by its report, not by
# each effect it applied). Registered at start by the app that knows the format.
Formatter = Callable[[WebhookEvent], dict[str, Any] | None]
_FORMATTERS: dict[str, Formatter] = {}


def register_format(name: str, formatter: Formatter) -> None:
    """Make ``formatter`` the maker of the bodies sent to URLs of format ``name``."""
    _FORMATTERS[name] = formatter


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


MAX_RETRY_AFTER_SECONDS = 3600.0
MIN_RETRY_AFTER_SECONDS = 0.1  # "0": still not at once, or a run would ask again and again


def retry_after(body: bytes, headers: Any) -> float | None:
    """The seconds a ``429`` asks to wait: Discord's ``retry_after`` in the JSON body, else
    the ``Retry-After`` header; None when neither says a number."""
    seconds: Any = None
    try:
        answer = json.loads(body or b"null")
        if isinstance(answer, dict):
            seconds = answer.get("retry_after")
    except ValueError:
        pass
    if seconds is None and headers is not None:
        seconds = headers.get("Retry-After")
    try:
        value = float(seconds)
    except (TypeError, ValueError):
        return None
    if value != value or value < 0:  # NaN or negative: no number to wait by
        return None
    return min(value, MAX_RETRY_AFTER_SECONDS)


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
    formatter = _FORMATTERS.get(endpoint.format)
    if formatter is None:
        return None, f"no formatter for the {endpoint.format} format is installed"
    try:
        made = formatter(event)
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


def webhook_schedule(*, endpoint_id: int, delay: float = 0.0) -> bool:
    """Send the URL's delivery task, due in ``delay`` seconds, unless one is already
    outstanding or a worker is delivering to the URL (it hands the URL on when done):
    the compare-and-set on ``task_due_at`` lets one sender through. Whether it sent.

    In-process (embedded mode, tests) the run happens here, and a countdown would run
    at once: a later try waits for the next event or the sweep.
    """
    eager = bool(current_app.conf.task_always_eager)
    if eager and delay > 0:
        return False
    delay = min(delay, MAX_COUNTDOWN_SECONDS)
    now = timezone.now()
    due = now + timedelta(seconds=delay)
    taken = (
        WebhookEndpoint.objects.filter(pk=endpoint_id)
        .filter(Q(task_due_at__isnull=True) | Q(task_due_at__lt=now - _lost_task()))
        .filter(Q(lease_until__isnull=True) | Q(lease_until__lt=now))
        .update(task_due_at=due)
    )
    if not taken:
        return False
    if eager:
        webhook_run(endpoint_id=endpoint_id)
        return True
    try:
        current_app.send_task(DELIVER_TASK, (endpoint_id,), countdown=delay or None)
    except UNAVAILABLE_ERRORS:
        # Nothing was sent: free the slot (if still this sender's) so the sweep sends it.
        WebhookEndpoint.objects.filter(pk=endpoint_id, task_due_at=due).update(task_due_at=None)
        raise
    return True


def endpoints_due(now: datetime | None = None) -> list[int]:
    """URLs with a delivery due and no task on its way (none sent, or one lost with the
    broker) nor a worker delivering: beat's sweep sends their task."""
    now = now or timezone.now()
    due = WebhookDelivery.objects.filter(
        endpoint=OuterRef("pk"), state=DeliveryState.PENDING, next_attempt_at__lte=now
    )
    return list(
        WebhookEndpoint.objects.filter(Exists(due))
        .filter(Q(task_due_at__isnull=True) | Q(task_due_at__lt=now - _lost_task()))
        .filter(Q(lease_until__isnull=True) | Q(lease_until__lt=now))
        .order_by("id")
        .values_list("pk", flat=True)
    )
