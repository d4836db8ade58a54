"""Writes of webhooks: register and remove URLs, record events, send their delivery
task, re-send.

Events are recorded in the transaction that changed the campaign (under its row lock,
so their ids follow the campaign's order of changes); their delivery is sent once
that transaction commits, and each URL gets them in id order (``webhook_delivery``).

Each URL has at most one delivery task in the broker, however many events wait: the
task is sent only by whoever sets ``task_due_at`` by compare-and-set, and the worker
that ran it clears it and sends the next one when work remains (after the backoff of a
failing URL, or at once when its run used up its time, so other URLs get their turn).
A broker that cannot be reached loses nothing: the commit stands, and beat's sweep
(:func:`endpoints_due`) sends the task once the broker is back.

The delivery task runs in ``webhook_delivery`` (its services send each URL's events in
order, in the URL's format, and hand the URL on), an app above everything a format tells
of; this module sends it by name.
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from functools import partial
from typing import Any
from urllib.parse import urlsplit

from celery import current_app
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext

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
# A delivery task this late (its message lost with the broker, or never sent) is sent
# again by beat's sweep (SAWBONES_WEBHOOK_LOST_TASK_SECONDS overrides it).
LOST_TASK = timedelta(minutes=2)
# A task's countdown is kept under Redis's visibility timeout (an hour), past which the
# broker would hand the waiting message out a second time; a longer backoff waits in steps.
MAX_COUNTDOWN_SECONDS = 300.0
# The delivery task, sent by name (webhook_delivery.tasks, which keeps the name it had
# when it lived in this app: messages queued by an older release still find it). Its
# queue comes from CELERY_TASK_ROUTES.
DELIVER_TASK = "webhooks.tasks.deliver_webhooks"


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
        why = gettext("a webhook's format is one of %(formats)s")
        raise ValidationError({"format": [why % {"formats": WebhookFormat.values}]})
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValidationError({"url": [gettext("give an http:// or https:// address")]})
    if parts.username or parts.password:
        raise ValidationError({"url": [gettext("put no user name or password in the address")]})
    with transaction.atomic():
        Campaign.objects.select_for_update().get(pk=campaign.pk)
        if WebhookEndpoint.objects.filter(campaign=campaign).count() >= MAX_WEBHOOKS_PER_CAMPAIGN:
            raise ValidationError(
                {
                    "url": [
                        gettext("a campaign has at most %(count)s webhooks")
                        % {"count": MAX_WEBHOOKS_PER_CAMPAIGN}
                    ]
                }
            )
        return WebhookEndpoint.objects.create(
            campaign=campaign, url=url, created_by=user, format=format
        )


def webhook_delete(*, campaign: Campaign, webhook_id: int) -> None:
    """Remove a URL with its delivery log; nothing more is sent to it."""
    deleted, _ = WebhookEndpoint.objects.filter(campaign=campaign, pk=webhook_id).delete()
    if not deleted:
        raise Http404(gettext("no such webhook"))


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
            raise Http404(gettext("no such webhook"))
        endpoint.secret = new_webhook_secret()
        endpoint.save(update_fields=["secret"])
        return endpoint


# -- events ----------------------------------------------------------------------------
Events = Sequence[tuple[str, dict[str, Any]]]


# The campaign whose URLs :func:`endpoints_held` looked up, and those URLs' ids.
_held = threading.local()


@contextmanager
def endpoints_held(campaign_id: int, *, none: bool = False) -> Iterator[None]:
    """Within: every event of the campaign recorded goes to the URLs it had when the
    first was recorded, looked up once (a clock job run in an action records its
    resolutions', report's and state's events, which looked the URLs up once each). For
    a caller that holds the campaign's row lock in one transaction. ``none``: the caller
    read under that lock that the campaign has no URL (rules.play.services), so none is
    looked up."""
    outer = getattr(_held, "campaign", None)
    _held.campaign, _held.ids = campaign_id, ([] if none else None)
    try:
        yield
    finally:
        _held.campaign, _held.ids = outer, None


def _endpoint_ids(campaign_id: int) -> list[int]:
    held = getattr(_held, "campaign", None) == campaign_id
    if held and _held.ids is not None:
        ids: list[int] = _held.ids
        return ids
    ids = list(WebhookEndpoint.objects.filter(campaign_id=campaign_id).values_list("pk", flat=True))
    if held:
        _held.ids = ids
    return ids


def events_record(*, campaign_id: int, events: Callable[[], Events]) -> None:
    """Record the ``(type, data)`` events ``events()`` builds for each of the campaign's
    URLs, and deliver them once the caller's transaction commits. With no URL this is
    one query and ``events`` is not called."""
    endpoint_ids = _endpoint_ids(campaign_id)
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
        raise Http404(gettext("no such delivery"))
    with transaction.atomic():
        again = WebhookDelivery.objects.create(
            endpoint=endpoint, event_id=original.event_id, resend_of=original
        )
        transaction.on_commit(partial(_send_after_commit, endpoint.pk))
    return again


# -- a receiver's rate limit (webhook_delivery.services, discord_play.discord_api) ---------
MAX_RETRY_AFTER_SECONDS = 3600.0


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
    if eager:  # the task the worker would run, here, by the name it is sent by
        current_app.tasks[DELIVER_TASK](endpoint_id)
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
