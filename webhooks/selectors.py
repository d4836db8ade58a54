"""Reads of webhooks."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import Http404

from campaigns.models import Campaign
from core.cleaning import valid_id
from webhooks.models import WebhookDelivery, WebhookEndpoint


def webhooks_for_campaign(campaign: Campaign) -> QuerySet[WebhookEndpoint]:
    return WebhookEndpoint.objects.filter(campaign=campaign).order_by("id")


def webhook_for_campaign(campaign: Campaign, webhook_id: int | str) -> WebhookEndpoint:
    try:
        return WebhookEndpoint.objects.get(campaign=campaign, pk=valid_id(webhook_id))
    except (WebhookEndpoint.DoesNotExist, ValueError, TypeError):
        raise Http404("no such webhook") from None


def deliveries_for_webhook(endpoint: WebhookEndpoint) -> QuerySet[WebhookDelivery]:
    """Newest first: the delivery log."""
    return WebhookDelivery.objects.filter(endpoint=endpoint).select_related("event").order_by("-id")


def webhook_view(endpoint: WebhookEndpoint) -> dict[str, Any]:
    return {"id": endpoint.pk, "url": endpoint.url, "created_at": endpoint.created_at}


def delivery_view(delivery: WebhookDelivery) -> dict[str, Any]:
    return {
        "id": delivery.pk,
        "event_id": delivery.event.uuid,
        "event": delivery.event.type,
        "state": delivery.state,
        "attempts": delivery.attempts,
        "last_status": delivery.last_status,
        "last_error": delivery.last_error,
        "next_attempt_at": delivery.next_attempt_at,
        "delivered_at": delivery.delivered_at,
        "created_at": delivery.created_at,
        "resend_of": delivery.resend_of_id,
    }
