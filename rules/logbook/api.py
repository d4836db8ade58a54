"""API of the logbook: the campaign's whole log (filters, pages), its export (JSON, CSV)
and import (rules.logbook.export)."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.access import access_campaign
from campaigns.api import CampaignOutputSerializer, campaign_output
from core.api_input import JsonSerializer
from core.cleaning import MAX_ID
from core.openapi import PAGE_PARAMETERS, error_answer, refused
from rules.logbook.export import FORMAT, campaign_export, campaign_import, log_csv
from rules.logbook.selectors import campaign_log
from rules.play.api import ResolutionPageSerializer, ResolutionPagination
from rules.play.log_filters import CLOCK_MAX, TEXT_MAX, WHO_PATTERN, log_filters
from rules.play.selectors import resolution_view


def text_schema(longest: int) -> dict[str, Any]:
    """Text of a filter: up to ``longest`` characters, none of them NUL."""
    return {"type": "string", "maxLength": longest, "pattern": "^[^\\u0000]*$"}


class ExportedCampaignSerializer(serializers.Serializer):
    name = serializers.CharField()
    ruleset = serializers.CharField()
    options = serializers.DictField()
    clock = serializers.IntegerField(help_text="in-game minutes (G-1)")
    dice_counter = serializers.IntegerField()
    actions_move_clock = serializers.BooleanField()


class ExportedCharacterSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    sheet = serializers.DictField()
    version = serializers.IntegerField()
    pending_choice = serializers.DictField(allow_null=True)
    retired = serializers.BooleanField()


class ExportedEntrySerializer(serializers.Serializer):
    """One resolution of the log, whole (hidden rolls included: the export is the
    referee's)."""

    id = serializers.IntegerField()
    character = serializers.IntegerField()
    actor = serializers.CharField(allow_null=True, help_text="a username, or null: the clock")
    undoes = serializers.IntegerField(allow_null=True)
    batch = serializers.CharField(allow_null=True)
    kind = serializers.CharField()
    action = serializers.CharField()
    params = serializers.DictField()
    rolls = serializers.ListField(child=serializers.DictField())
    summary = serializers.CharField()
    outcome = serializers.DictField()
    sheet_before = serializers.DictField()
    sheet_after = serializers.DictField()
    version = serializers.IntegerField()
    pending_choice = serializers.DictField(allow_null=True)
    clock = serializers.IntegerField()
    dice_counter_start = serializers.IntegerField()
    dice_counter_end = serializers.IntegerField()
    revealed = serializers.BooleanField()
    elapsed_minutes = serializers.IntegerField()


class ExportedEffectSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    character = serializers.IntegerField()
    created_by = serializers.IntegerField(allow_null=True)
    resolution = serializers.IntegerField(allow_null=True)
    kind = serializers.CharField()
    key = serializers.CharField()
    due_at = serializers.IntegerField()
    payload = serializers.DictField()
    hidden = serializers.BooleanField()
    state = serializers.CharField()


class CampaignExportSerializer(serializers.Serializer):
    """A campaign as ``GET campaigns/{id}/export/`` answers it and ``POST
    campaigns/import/`` takes it (rules.logbook.export)."""

    format = serializers.ChoiceField(choices=[FORMAT])
    version = serializers.IntegerField()
    campaign = ExportedCampaignSerializer()
    tables = serializers.DictField(help_text="table key -> the campaign's own table")
    characters = ExportedCharacterSerializer(many=True)
    resolutions = ExportedEntrySerializer(many=True, help_text="oldest first")
    effects = ExportedEffectSerializer(many=True)


class CampaignExportApi(APIView):
    @extend_schema(
        responses={200: CampaignExportSerializer},
        description="Referee only: everything needed to restore the campaign, as JSON: "
        "import it with `POST campaigns/import/`. The dice seed stays secret and is left "
        "out.",
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        return Response(campaign_export(membership.campaign))


class CampaignLogCsvApi(APIView):
    @extend_schema(
        responses={200: OpenApiResponse(description="The log as CSV, oldest first.")},
        description="Referee only: the campaign's whole log as CSV (text/csv).",
    )
    def get(self, request: Request, campaign_id: int) -> HttpResponse:
        membership = access_campaign(request.user, campaign_id, referee=True)
        response = HttpResponse(log_csv(membership.campaign), content_type="text/csv")
        response["Content-Disposition"] = f'attachment; filename="campaign-{campaign_id}-log.csv"'
        return response


class CampaignImportApi(APIView):
    class InputSerializer(JsonSerializer):
        export = serializers.DictField(help_text="an export of GET campaigns/{id}/export/")

    @extend_schema(
        request=InputSerializer,
        responses={
            201: CampaignOutputSerializer,
            400: refused("the export is not one this server can restore."),
        },
        description="A new campaign from an export, with you as its referee and the owner "
        "of every character; sheets, log and effects as exported. 400 for a bad export.",
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        campaign = campaign_import(user=request.user, data=data.validated_data["export"])
        membership = access_campaign(request.user, campaign.pk)
        return Response(campaign_output(membership), status=status.HTTP_201_CREATED)


class CampaignLogApi(APIView):
    @extend_schema(
        responses={
            200: ResolutionPageSerializer,
            400: error_answer(400, "Bad filter: field errors (`{filter: [messages]}`)."),
        },
        parameters=[
            *PAGE_PARAMETERS,
            OpenApiParameter(
                "character",
                {"type": "integer", "minimum": 1, "maximum": MAX_ID},
                description="one character's entries",
            ),
            OpenApiParameter(
                "action", text_schema(TEXT_MAX["action"]), description="an action key"
            ),
            OpenApiParameter(
                "who",
                {"type": "string", "pattern": f"^(?:{WHO_PATTERN})$"},
                description='a user id, or "clock" for what the clock applied',
            ),
            OpenApiParameter(
                "roll", text_schema(TEXT_MAX["roll"]), description="text of a roll's label"
            ),
            OpenApiParameter(
                "from",
                {"type": "integer", "minimum": 0, "maximum": CLOCK_MAX},
                description="from this in-game minute",
            ),
            OpenApiParameter(
                "to",
                {"type": "integer", "minimum": 0, "maximum": CLOCK_MAX},
                description="up to this in-game minute",
            ),
            OpenApiParameter("q", text_schema(TEXT_MAX["q"]), description="text of the summary"),
        ],
        description="The whole log of the campaign, newest first (in-game time): every "
        "character's entries for the referee, a player's own characters' for a player. "
        "Hidden rolls only for the referee (G-4).",
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id)
        rows = campaign_log(membership, log_filters(request.query_params, exact=True))
        paginator = ResolutionPagination()
        page = paginator.paginate_queryset(rows, request, view=self)
        ruleset = membership.campaign.ruleset
        return paginator.get_paginated_response(
            [
                resolution_view(r, ruleset_key=ruleset, viewer_is_referee=membership.is_referee)
                for r in page or []
            ]
        )
