"""API for campaigns, invites and joining (API.md). Thin: access, services, selectors."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.access import access_campaign, visible_memberships
from campaigns.models import Membership
from campaigns.selectors import (
    campaign_seed_periods,
    clock_display,
    dice_commitment,
)
from campaigns.services import (
    campaign_archive,
    campaign_create,
    campaign_dice_rotate,
    campaign_join,
    campaign_unarchive,
    campaign_update,
    invite_create,
)
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
    actions_move_clock = serializers.BooleanField(
        help_text="an action that takes time moves the campaign clock by it (docs/clock.md)"
    )
    dice_commitment = serializers.CharField(
        help_text="SHA-256 (lower-case hex) of the current dice seed's bytes (docs/dice.md)"
    )
    archived_at = serializers.DateTimeField(
        allow_null=True,
        help_text="when the referee archived the campaign (null: in play); an archived "
        "campaign answers 409 to actions and clock advances, reads still work",
    )


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
        "actions_move_clock": campaign.actions_move_clock,
        "dice_commitment": dice_commitment(campaign.dice_seed),
        "archived_at": campaign.archived_at,
    }


class CampaignListApi(APIView):
    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=120)
        ruleset = RulesetField()
        options = serializers.DictField(required=False)

    @extend_schema(responses={200: CampaignOutputSerializer(many=True)})
    def get(self, request: Request) -> Response:
        return Response([campaign_output(m) for m in visible_memberships(request.user)])

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
        actions_move_clock = serializers.BooleanField(required=False)

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


class SeedPeriodSerializer(serializers.Serializer):
    commitment = serializers.CharField(help_text="SHA-256 (lower-case hex) of the seed's bytes")
    seed = serializers.CharField(
        allow_null=True, help_text="the seed as lower-case hex; null until revealed"
    )
    first_counter = serializers.IntegerField()
    last_counter = serializers.IntegerField(
        allow_null=True, help_text="the last counter this seed drew; null if none"
    )
    revealed_at = serializers.DateTimeField(allow_null=True)


class DiceSeedListApi(APIView):
    @extend_schema(
        responses={200: SeedPeriodSerializer(many=True)},
        description="Every seed period of the campaign's dice, oldest first; the last is "
        "the current one, whose seed stays secret until the referee rotates it.",
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id)
        periods = campaign_seed_periods(membership.campaign)
        return Response(SeedPeriodSerializer(periods, many=True).data)


class DiceRotateApi(APIView):
    class OutputSerializer(serializers.Serializer):
        revealed = SeedPeriodSerializer(help_text="the seed just revealed")
        dice_commitment = serializers.CharField(help_text="the commitment to the new seed")

    @extend_schema(
        request=None,
        responses={201: OutputSerializer},
        description="Referee only. Reveals the current dice seed and commits to a new one.",
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        revealed = campaign_dice_rotate(campaign_id=membership.campaign_id)
        periods = campaign_seed_periods(revealed.campaign)
        answer = {
            "revealed": next(p for p in periods if p["seed"] == revealed.seed),
            "dice_commitment": periods[-1]["commitment"],
        }
        return Response(self.OutputSerializer(answer).data, status=status.HTTP_201_CREATED)


class CampaignArchiveApi(APIView):
    class OutputSerializer(serializers.Serializer):
        campaign = CampaignOutputSerializer()
        revealed = SeedPeriodSerializer(help_text="the dice seed revealed by archiving")

    @extend_schema(
        request=None,
        responses={200: OutputSerializer},
        description=(
            "Referee only. Archives the campaign: from now on actions, choices, new "
            "characters, battles and clock advances answer 409 (reads still work); a live "
            "clock stops; in the same transaction the dice seed is rotated, revealing every "
            "roll made with it (docs/dice.md). 409 when already archived or while the clock "
            "still advances."
        ),
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        campaign, revealed = campaign_archive(campaign_id=membership.campaign_id)
        periods = campaign_seed_periods(campaign)
        answer = {
            "campaign": campaign_output(access_campaign(request.user, campaign_id)),
            "revealed": next(p for p in periods if p["seed"] == revealed.seed),
        }
        return Response(self.OutputSerializer(answer).data)


class CampaignUnarchiveApi(APIView):
    @extend_schema(
        request=None,
        responses={200: CampaignOutputSerializer},
        description="Referee only. Brings an archived campaign back into play (409 if it is "
        "not archived); its clock stays stopped.",
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        campaign_unarchive(campaign_id=membership.campaign_id)
        return Response(campaign_output(access_campaign(request.user, campaign_id)))
