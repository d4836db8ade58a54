"""API of the Discord interface: a campaign's channel, bound by its referee (a bot does
what ``/sawbones campaign`` does). Thin: access, service."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.access import access_campaign
from core.cleaning import JsonSerializer, read_body
from discord_play.services import SNOWFLAKE, channel_bind

SNOWFLAKE_HELP = "a Discord id (a snowflake): its decimal digits, as text"


class CampaignDiscordApi(APIView):
    class InputSerializer(JsonSerializer):
        guild_id = serializers.RegexField(
            SNOWFLAKE.pattern, max_length=20, help_text=SNOWFLAKE_HELP
        )
        channel_id = serializers.RegexField(
            SNOWFLAKE.pattern, max_length=20, help_text=SNOWFLAKE_HELP
        )

    class OutputSerializer(serializers.Serializer):
        campaign = serializers.IntegerField(source="campaign_id")
        guild_id = serializers.CharField(help_text="the Discord server")
        channel_id = serializers.CharField(help_text="the channel that follows the campaign")

    @extend_schema(
        request=InputSerializer,
        responses={200: OutputSerializer},
        description="Referee only: the Discord channel follows this campaign from now on, as "
        "`/sawbones campaign` in it does: its `/sawbones` commands are about this campaign "
        "(docs/discord.md). A channel that followed another campaign follows this one.",
    )
    def put(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        binding = channel_bind(
            campaign=membership.campaign,
            user=request.user,
            **read_body(self.InputSerializer, request),  # guild_id, channel_id
        )
        return Response(self.OutputSerializer(binding).data)
