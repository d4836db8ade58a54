"""Webhooks (docs/webhooks.md): a referee's URLs per campaign, the events of the
campaign, and one delivery of each event to each URL with its log."""

from __future__ import annotations

import secrets

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy

from campaigns.models import Campaign
from core.fields import someone_or_nobody


def new_webhook_secret() -> str:
    return secrets.token_hex(32)


class WebhookFormat(models.TextChoices):
    """What a URL is sent: Sawbones' own signed JSON, or a message for a Discord channel's
    webhook (its body made by ``discord_play.feed`` when it is sent,
    ``webhook_delivery.services``)."""

    SAWBONES = "sawbones", gettext_lazy("Sawbones JSON, signed")
    DISCORD = "discord", gettext_lazy("A Discord channel's messages")


class WebhookEndpoint(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=500)
    format = models.CharField(
        max_length=16, choices=WebhookFormat.choices, default=WebhookFormat.SAWBONES
    )
    # Signs every delivery (HMAC-SHA256); shown to the referee once, when registered.
    secret = models.CharField(max_length=64, default=new_webhook_secret, editable=False)
    created_by = someone_or_nobody()
    created_at = models.DateTimeField(auto_now_add=True)
    # One worker at a time delivers to a URL, in event order: it claims the endpoint by
    # compare-and-set until this moment (webhook_delivery.services.webhook_deliver).
    lease_until = models.DateTimeField(null=True, blank=True)
    # At most one delivery task per URL is in the broker: whoever sends it sets this (the
    # moment it is due) by compare-and-set, and the worker that ran it clears it when it
    # lets the lease go (webhooks.services.webhook_schedule). NULL: none is outstanding.
    task_due_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.url} for {self.campaign}"


class WebhookEvent(models.Model):
    """Something that happened in a campaign, as the exact JSON body every URL gets."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    uuid = models.UUIDField(unique=True)
    type = models.CharField(max_length=40)
    body = models.TextField()  # signed as sent, the same bytes on every attempt
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.type} {self.uuid}"


class DeliveryState(models.TextChoices):
    PENDING = "pending", gettext_lazy("Pending")
    DELIVERED = "delivered", gettext_lazy("Delivered")
    FAILED = "failed", gettext_lazy("Failed")


class WebhookDelivery(models.Model):
    """One event to one URL: tried in event order until a 2xx answer, with backoff."""

    endpoint = models.ForeignKey(
        WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries"
    )
    event = models.ForeignKey(WebhookEvent, on_delete=models.CASCADE, related_name="deliveries")
    state = models.CharField(
        max_length=16, choices=DeliveryState.choices, default=DeliveryState.PENDING
    )
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    last_status = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")
    delivered_at = models.DateTimeField(null=True, blank=True)
    resend_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["endpoint", "state", "id"])]

    def __str__(self) -> str:
        return f"{self.event} to {self.endpoint.url}: {self.state}"
