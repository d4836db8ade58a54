"""The webhooks section of the referee's campaign page."""

from __future__ import annotations

from typing import Any

from django import template

from webhooks.selectors import deliveries_for_webhook, webhooks_for_campaign

register = template.Library()

NEW_SECRET = "sawbones_new_webhook"  # noqa: S105 - the session key of a secret shown once
RECENT_DELIVERIES = 5


@register.inclusion_tag("webhooks/_section.html", takes_context=True)
def webhooks_section(context: dict[str, Any], campaign: Any) -> dict[str, Any]:
    request = context["request"]
    shown = request.session.get(NEW_SECRET)
    new_webhook = None
    if shown and shown.get("campaign") == campaign.pk:
        new_webhook = request.session.pop(NEW_SECRET)
    return {
        "campaign": campaign,
        "csrf_token": context.get("csrf_token"),
        "new_webhook": new_webhook,
        "webhooks": [
            {"webhook": w, "deliveries": list(deliveries_for_webhook(w)[:RECENT_DELIVERIES])}
            for w in webhooks_for_campaign(campaign)
        ],
    }
