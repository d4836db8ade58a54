"""API for campaigns, invites and joining (API.md). Thin: access, services, selectors."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.access import access_campaign
from campaigns.models import Membership
from campaigns.selectors import clock_display, memberships_for_user
from campaigns.services import campaign_create, campaign_join, campaign_update, invite_create
from rules.engine.registry import ruleset_keys


class RulesetField(serializers.ChoiceField):
    """A registered ruleset's key. The choices are read whenever a serializer is built
    (DRF copies declared fields by calling ``__init__`` again)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=list(ruleset_keys()), **kwargs)


class CampaignOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    ruleset = serializers.CharField()
    clock = serializers.IntegerField(help_text="in-game minutes since the start (G-1)")
    clock_display = serializers.CharField(help_text='"Day N, HH:MM"')
    my_role = serializers.ChoiceField(choices=["referee", "player"])
    options = serializers.DictField()


def campaign_output(membership: Membership) -> dict[str, Any]:
    campaign = membership.campaign
    return {
        "id": campaign.pk,
        "name": campaign.name,
        "ruleset": campaign.ruleset,
        "clock": campaign.clock,
        "clock_display": clock_display(campaign.clock),
        "my_role": membership.role,
        "options": campaign.options,
    }


class CampaignListApi(APIView):
    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=120)
        ruleset = RulesetField()
        options = serializers.DictField(required=False)

    @extend_schema(responses={200: CampaignOutputSerializer(many=True)})
    def get(self, request: Request) -> Response:
        return Response([campaign_output(m) for m in memberships_for_user(request.user)])

    @extend_schema(request=InputSerializer, responses={201: CampaignOutputSerializer})
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        campaign = campaign_create(user=request.user, **data.validated_data)
        membership = access_campaign(request.user, campaign.pk)
        return Response(campaign_output(membership), status=status.HTTP_201_CREATED)


class CampaignDetailApi(APIView):
    class UpdateSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=120, required=False)
        ruleset = RulesetField(required=False)
        options = serializers.DictField(required=False)

    @extend_schema(responses={200: CampaignOutputSerializer})
    def get(self, request: Request, campaign_id: int) -> Response:
        return Response(campaign_output(access_campaign(request.user, campaign_id)))

    @extend_schema(
        request=UpdateSerializer,
        responses={200: CampaignOutputSerializer},
        description="Referee only. The ruleset can change only while no character exists.",
    )
    def patch(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        data = self.UpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        campaign_update(campaign_id=membership.campaign_id, **data.validated_data)
        return Response(campaign_output(access_campaign(request.user, campaign_id)))


class InviteCreateApi(APIView):
    class OutputSerializer(serializers.Serializer):
        code = serializers.CharField()

    @extend_schema(request=None, responses={201: OutputSerializer})
    def post(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        invite = invite_create(campaign=membership.campaign, user=request.user)
        return Response({"code": invite.code}, status=status.HTTP_201_CREATED)


class JoinApi(APIView):
    class InputSerializer(serializers.Serializer):
        code = serializers.CharField(max_length=32)

    @extend_schema(request=InputSerializer, responses={200: CampaignOutputSerializer})
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        membership = campaign_join(user=request.user, code=data.validated_data["code"])
        return Response(campaign_output(access_campaign(request.user, membership.campaign_id)))
