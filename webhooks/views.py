"""The campaign page's webhooks section: register a URL, remove it, send an event
again. Referee only (campaigns.access); the API does the same (webhooks.api)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from campaigns.access import access_campaign
from campaigns.models import Membership
from core.errors import NotAllowed
from webhooks.models import WebhookFormat
from webhooks.selectors import webhook_for_campaign
from webhooks.services import delivery_resend, webhook_create, webhook_delete
from webhooks.templatetags.webhooks_tags import NEW_SECRET


def _referee(request: HttpRequest, campaign_id: int) -> Membership:
    try:
        return access_campaign(request.user, campaign_id, referee=True)
    except NotAllowed as error:
        raise PermissionDenied(str(error)) from None


def _back(campaign_id: int) -> HttpResponse:
    return redirect(reverse("campaign", args=[campaign_id]) + "#webhooks")


@login_required
@require_POST
def webhook_new(request: HttpRequest, campaign_id: int) -> HttpResponse:
    membership = _referee(request, campaign_id)
    url = request.POST.get("url", "").strip()
    kind = request.POST.get("format", "") or WebhookFormat.SAWBONES
    try:
        if len(url) > 500:
            raise ValidationError({"url": [gettext("keep the address under 500 characters")]})
        if kind not in WebhookFormat.values:
            raise ValidationError({"format": [gettext("pick what the address gets from the list")]})
        endpoint = webhook_create(
            campaign=membership.campaign, url=url, user=request.user, format=kind
        )
    except ValidationError as error:
        messages.error(
            request,
            gettext("That address cannot take webhooks: %(reasons)s.")
            % {"reasons": "; ".join(error.messages)},
        )
    else:
        request.session[NEW_SECRET] = {
            "campaign": membership.campaign_id,
            "url": endpoint.url,
            "secret": endpoint.secret,
        }
    return _back(campaign_id)


@login_required
@require_POST
def webhook_remove(request: HttpRequest, campaign_id: int, webhook_id: int) -> HttpResponse:
    membership = _referee(request, campaign_id)
    endpoint = webhook_for_campaign(membership.campaign, webhook_id)
    webhook_delete(campaign=membership.campaign, webhook_id=endpoint.pk)
    messages.success(request, gettext("Webhook removed: nothing more is sent to it."))
    return _back(campaign_id)


@login_required
@require_POST
def webhook_resend(
    request: HttpRequest, campaign_id: int, webhook_id: int, delivery_id: int
) -> HttpResponse:
    membership = _referee(request, campaign_id)
    endpoint = webhook_for_campaign(membership.campaign, webhook_id)
    delivery_resend(endpoint=endpoint, delivery_id=delivery_id)
    messages.success(request, gettext("The event is on its way again."))
    return _back(campaign_id)
