"""API for what a campaign's dice seed rotation and archiving do to the play still under
way (docs/dice.md): thin over ``rules.play.dice_rotation`` (the campaign's other endpoints
are campaigns.api)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.access import access_campaign
from campaigns.api import SeedPeriodSerializer, campaign_answer, campaign_output
from campaigns.selectors import campaign_seed_periods
from core.openapi import operation
from rules.play.dice_rotation import campaign_archive, campaign_dice_rotate


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
        """The campaign archived, and the dice seed archiving revealed."""

        campaign = campaign_answer()
        revealed = SeedPeriodSerializer(help_text="the dice seed revealed by archiving")

    @operation(
        {200: OutputSerializer},
        conflict="Conflict: already archived, or the clock still advances.",
        description="Referee only. Archives the campaign: from now on actions, choices, new "
        "characters, battles and clock advances answer 409 (reads still work); a live "
        "clock stops; in the same transaction the dice seed is rotated, revealing every "
        "roll made with it (docs/dice.md). 409 when already archived or while the clock "
        "still advances.",
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        campaign, revealed = campaign_archive(campaign_id=membership.campaign_id)
        periods = campaign_seed_periods(campaign)
        answer = {
            "campaign": campaign_output(access_campaign(request.user, campaign_id)),
            "revealed": SeedPeriodSerializer(
                next(p for p in periods if p["seed"] == revealed.seed)
            ).data,
        }
        return Response(answer)
