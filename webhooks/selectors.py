"""Reads of webhooks."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, Min, OuterRef, QuerySet, Subquery
from django.http import Http404
from django.utils.translation import gettext

from campaigns.models import Campaign
from core.cleaning import valid_id
from core.output import attributes
from webhooks.models import DeliveryState, WebhookDelivery, WebhookEndpoint


def webhooks_for_campaign(campaign: Campaign) -> QuerySet[WebhookEndpoint]:
    return WebhookEndpoint.objects.filter(campaign=campaign).order_by("id")


def webhook_for_campaign(campaign: Campaign, webhook_id: int | str) -> WebhookEndpoint:
    try:
        return WebhookEndpoint.objects.get(campaign=campaign, pk=valid_id(webhook_id))
    except (WebhookEndpoint.DoesNotExist, ValueError, TypeError):
        raise Http404(gettext("no such webhook")) from None


def deliveries_for_webhook(endpoint: WebhookEndpoint) -> QuerySet[WebhookDelivery]:
    """Newest first: the delivery log."""
    return WebhookDelivery.objects.filter(endpoint=endpoint).select_related("event").order_by("-id")


def delivery_view(delivery: WebhookDelivery) -> dict[str, Any]:
    return {
        **attributes(
            delivery,
            "id",
            "state",
            "attempts",
            "last_status",
            "last_error",
            "next_attempt_at",
            "delivered_at",
            "created_at",
            resend_of="resend_of_id",
        ),
        "event_id": delivery.event.uuid,
        "event": delivery.event.type,
    }


def deliveries_by_state() -> dict[str, int]:
    """How many deliveries are in each state (for /metrics)."""
    counts = dict.fromkeys(DeliveryState.values, 0)
    rows = WebhookDelivery.objects.order_by().values_list("state").annotate(n=Count("id"))
    for state, count in rows:
        counts[state] = count
    return counts


@dataclass(frozen=True)
class Backlog:
    """A URL's pending deliveries (for /metrics): how many, the oldest's age, and how
    many times the first in line was tried (0 while the URL answers)."""

    webhook: int
    campaign: int
    pending: int
    oldest_seconds: float
    first_attempts: int


def webhook_backlogs(now: datetime) -> list[Backlog]:
    """Every URL with a delivery pending."""
    first = WebhookDelivery.objects.filter(
        endpoint=OuterRef("pk"), state=DeliveryState.PENDING
    ).order_by("id")
    rows = (
        WebhookEndpoint.objects.filter(deliveries__state=DeliveryState.PENDING)
        .order_by()
        .values("pk", "campaign_id")
        .annotate(
            pending=Count("deliveries"),
            oldest=Min("deliveries__created_at"),
            first_attempts=Subquery(first.values("attempts")[:1]),
        )
    )
    return [
        Backlog(
            webhook=row["pk"],
            campaign=row["campaign_id"],
            pending=row["pending"],
            oldest_seconds=max((now - row["oldest"]).total_seconds(), 0.0),
            first_attempts=row["first_attempts"] or 0,
        )
        for row in rows
    ]
