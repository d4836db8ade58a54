"""API for a campaign's webhooks (docs/webhooks.md): the referee's URLs, their
delivery log, re-sending. Referee only; thin: access, services, selectors."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.access import access_campaign
from campaigns.models import Membership
from campaigns.rows_api import CampaignRowsApi, campaign_rows
from core.cleaning import JsonSerializer, read_body
from core.openapi import PageQuery, operation
from core.pagination import PageSerializer, StrictPagination
from webhooks.models import DeliveryState, WebhookEndpoint, WebhookFormat
from webhooks.selectors import (
    deliveries_for_webhook,
    delivery_view,
    webhook_for_campaign,
    webhooks_for_campaign,
)
from webhooks.services import (
    delivery_resend,
    webhook_create,
    webhook_delete,
    webhook_rotate_secret,
)

EVENTS_HELP = (
    "Each event is POSTed as JSON `{id, type, campaign, created_at, data}` with the "
    "headers `X-Sawbones-Event`, `X-Sawbones-Event-Id`, `X-Sawbones-Timestamp` and "
    '`X-Sawbones-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>" under the '
    "secret>`. Types: `resolution.created` (data: the resolution as the referee sees "
    "it), `choice.pending` (data: `{character, resolution, choice}`), "
    "`clock_job.updated` (data: the clock job when it is done, waits or failed). With "
    '`format: "discord"` the URL (a Discord channel\'s webhook) gets Discord messages '
    "instead, unsigned: each action and choice, and each clock report with its notable "
    "events first; hidden rolls never (docs/discord.md)."
)
FORMAT_HELP = (
    "`sawbones` (the default): the signed JSON events; `discord`: messages for a Discord "
    "channel's webhook URL (docs/discord.md)"
)


class WebhookSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.URLField()
    format = serializers.ChoiceField(choices=WebhookFormat.values, help_text=FORMAT_HELP)
    created_at = serializers.DateTimeField()


class WebhookCreatedSerializer(WebhookSerializer):
    secret = serializers.CharField(help_text="signs every delivery; shown this once")


class DeliverySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    event_id = serializers.UUIDField()
    event = serializers.CharField(help_text="the event's type")
    state = serializers.ChoiceField(choices=DeliveryState.choices)
    attempts = serializers.IntegerField()
    last_status = serializers.IntegerField(allow_null=True, help_text="the receiver's answer")
    last_error = serializers.CharField()
    next_attempt_at = serializers.DateTimeField()
    delivered_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    resend_of = serializers.IntegerField(allow_null=True)


class DeliveryPageSerializer(PageSerializer):
    results = DeliverySerializer(many=True, help_text="newest first")


class DeliveryPagination(StrictPagination):
    """The delivery log's pages: 50 unless ``page_size`` says up to 200."""


@campaign_rows(WebhookSerializer, "Referee only.", referee=True)
class WebhookListApi(CampaignRowsApi):
    class InputSerializer(JsonSerializer):
        url = serializers.URLField(max_length=500, help_text="http:// or https://")
        format = serializers.ChoiceField(
            choices=WebhookFormat.values,
            default=WebhookFormat.SAWBONES,
            help_text=FORMAT_HELP,
        )

    def rows(self, membership: Membership) -> QuerySet[WebhookEndpoint]:
        return webhooks_for_campaign(membership.campaign)

    @operation(
        {201: WebhookCreatedSerializer},
        request=InputSerializer,
        refuses="the URL is not a public http(s) address, or the campaign has all its webhooks.",
        description="Referee only: events of this campaign go to the URL from now on. "
        + EVENTS_HELP,
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        data = read_body(self.InputSerializer, request)
        endpoint = webhook_create(
            campaign=membership.campaign,
            url=data["url"],
            user=request.user,
            format=data["format"],
        )
        return Response(WebhookCreatedSerializer(endpoint).data, status=status.HTTP_201_CREATED)


class WebhookDetailApi(APIView):
    @extend_schema(
        request=None,
        responses={204: OpenApiResponse(description="removed with its delivery log")},
        description="Referee only.",
    )
    def delete(self, request: Request, campaign_id: int, webhook_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        endpoint = webhook_for_campaign(membership.campaign, webhook_id)
        webhook_delete(campaign=membership.campaign, webhook_id=endpoint.pk)
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookSecretRotateApi(APIView):
    @extend_schema(
        request=None,
        responses={200: WebhookCreatedSerializer},
        description="Referee only: a new signing secret for the webhook, in the answer "
        "(shown this once). Every delivery from now on, pending ones included, is signed "
        "with it; the old secret signs nothing more.",
    )
    def post(self, request: Request, campaign_id: int, webhook_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        endpoint = webhook_for_campaign(membership.campaign, webhook_id)
        endpoint = webhook_rotate_secret(campaign=membership.campaign, webhook_id=endpoint.pk)
        return Response(WebhookCreatedSerializer(endpoint).data)


class WebhookDeliveriesApi(APIView):
    query_parameters = {"GET": PageQuery}

    @extend_schema(
        responses={200: DeliveryPageSerializer},
        description="Referee only: the delivery log, newest first.",
    )
    def get(self, request: Request, campaign_id: int, webhook_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        endpoint = webhook_for_campaign(membership.campaign, webhook_id)
        return DeliveryPagination.answer(
            deliveries_for_webhook(endpoint),
            request,
            self,
            lambda page: DeliverySerializer([delivery_view(d) for d in page], many=True).data,
        )


class WebhookResendApi(APIView):
    @extend_schema(
        request=None,
        responses={202: DeliverySerializer},
        description="Referee only: send the delivery's event again (same event id), after "
        "the URL's other pending events.",
    )
    def post(
        self, request: Request, campaign_id: int, webhook_id: int, delivery_id: int
    ) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        endpoint = webhook_for_campaign(membership.campaign, webhook_id)
        delivery = delivery_resend(endpoint=endpoint, delivery_id=delivery_id)
        return Response(
            DeliverySerializer(delivery_view(delivery)).data, status=status.HTTP_202_ACCEPTED
        )
