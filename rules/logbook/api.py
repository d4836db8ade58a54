"""API of the logbook: the campaign's whole log (filters, pages), its export (JSON, CSV)
and import (rules.logbook.export), and the session recap (rules.logbook.recap)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.access import access_campaign
from campaigns.api import campaign_answer, campaign_output
from core.api_input import JsonSerializer
from core.openapi import PAGE_PARAMETERS, error_answer, refused
from rules.logbook.export import FORMAT, campaign_export, campaign_import, log_csv
from rules.logbook.recap import (
    campaign_recap,
    recap_file_name,
    recap_markdown,
    recap_window,
)
from rules.logbook.selectors import campaign_log
from rules.play.api import ResolutionPageSerializer, ResolutionPagination
from rules.play.log_filters import MINUTE_PARAMETERS, log_filter_parameters, log_filters
from rules.play.selectors import resolution_view


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
    owner = serializers.CharField(
        required=False,
        help_text="who played it: a username of the old campaign (exports from before "
        "issue 29 have none); the import's `players` maps it to someone here",
    )
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
    cancelled_by = serializers.IntegerField(
        allow_null=True, help_text="the entry that cancelled it, if one did (an undo revives it)"
    )
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
        players = serializers.DictField(
            child=serializers.CharField(max_length=150),
            required=False,
            help_text="the export's players (a character's `owner` there) -> a username "
            "here: they join as players and play those characters again",
        )

    @extend_schema(
        request=InputSerializer,
        responses={
            201: campaign_answer(),
            400: refused(
                "the export is not one this server can restore, or `players` names "
                "someone no character of the export is played by, or no one here."
            ),
        },
        description="A new campaign from an export, with you as its referee; sheets, log "
        "and effects as exported. Every character is yours, but those of the players "
        "`players` maps to people here: they join the campaign as players, play the "
        "characters the export says they played, and the entries they made name them. "
        "400 for a bad export or mapping (nothing imported).",
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        campaign = campaign_import(
            user=request.user,
            data=data.validated_data["export"],
            players=data.validated_data.get("players"),
        )
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
            *log_filter_parameters(
                action="an action key",
                who='a user id, or "clock" for what the clock applied',
                text="text of the summary",
            ),
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


# -- the session recap --------------------------------------------------------------------------
class MarkdownRenderer(BaseRenderer):
    """The recap as Markdown (``?format=md`` or ``Accept: text/markdown``)."""

    media_type = "text/markdown"
    format = "md"
    charset = "utf-8"

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        return recap_markdown(data).encode(self.charset)


class RecapDateSerializer(serializers.Serializer):
    year = serializers.IntegerField(allow_null=True)
    month = serializers.IntegerField(allow_null=True)
    month_name = serializers.CharField(allow_null=True)
    day = serializers.IntegerField()
    weekday = serializers.CharField(allow_null=True)
    hour = serializers.IntegerField()
    minute = serializers.IntegerField()
    text = serializers.CharField()


class RecapClockEntrySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    clock = serializers.IntegerField()
    date = serializers.CharField(help_text="the minute in the campaign's calendar")
    summary = serializers.CharField()
    actor = serializers.IntegerField(allow_null=True)
    job = serializers.IntegerField(allow_null=True)
    from_ = serializers.IntegerField(allow_null=True, help_text="the job's clock at its start")
    to = serializers.IntegerField(allow_null=True, help_text="the clock the job reached")
    created_at = serializers.DateTimeField()

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        fields["from"] = fields.pop("from_")
        return fields


class RecapClockSerializer(serializers.Serializer):
    from_ = serializers.IntegerField(allow_null=True, help_text="in-game minute")
    to = serializers.IntegerField(allow_null=True, help_text="in-game minute")
    from_date = RecapDateSerializer(allow_null=True)
    to_date = RecapDateSerializer(allow_null=True)
    passed = serializers.IntegerField(allow_null=True, help_text="in-game minutes")
    entries = RecapClockEntrySerializer(many=True)

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        fields["from"] = fields.pop("from_")
        return fields


class RecapRollSerializer(serializers.Serializer):
    expression = serializers.CharField(allow_blank=True)
    dice = serializers.ListField(child=serializers.IntegerField())
    kept = serializers.ListField(child=serializers.IntegerField())
    total = serializers.IntegerField()

    def get_fields(self) -> dict[str, serializers.Field]:
        # declared here: a class attribute "label" would hide the serializer's own label
        return {"label": serializers.CharField(allow_blank=True), **super().get_fields()}


class RecapEntrySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    clock = serializers.IntegerField()
    date = serializers.CharField()
    kind = serializers.CharField()
    action = serializers.CharField()
    title = serializers.CharField()
    actor = serializers.IntegerField(allow_null=True, help_text="null: the clock applied it")
    by = serializers.CharField()
    summary = serializers.CharField()
    undoes = serializers.IntegerField(allow_null=True)
    choice = serializers.BooleanField(help_text="it asked for a choice")
    dice = RecapRollSerializer(many=True, help_text="the rolls that decided something")


class RecapCharacterSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    state_before = serializers.CharField()
    state_after = serializers.CharField()
    entries = RecapEntrySerializer(many=True)


class RecapWindowSerializer(serializers.Serializer):
    from_ = serializers.IntegerField(allow_null=True)
    to = serializers.IntegerField(allow_null=True)
    real_from = serializers.DateTimeField(allow_null=True)
    real_to = serializers.DateTimeField(allow_null=True)

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        fields["from"] = fields.pop("from_")
        return fields


class RecapCampaignSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class RecapSerializer(serializers.Serializer):
    campaign = RecapCampaignSerializer()
    window = RecapWindowSerializer(help_text="the span asked for, in in-game minutes and real time")
    clock = RecapClockSerializer(help_text="where the clock went")
    characters = RecapCharacterSerializer(many=True)
    truncated = serializers.BooleanField(help_text="more entries than one recap holds")


def _text(description: str) -> dict[str, Any]:
    return {"type": "string", "maxLength": 100, "description": description}


class CampaignRecapApi(APIView):
    renderer_classes = [JSONRenderer, MarkdownRenderer]

    @extend_schema(
        responses={
            (200, "application/json"): RecapSerializer,
            (200, "text/markdown"): OpenApiResponse(
                OpenApiTypes.STR, description="The recap as Markdown."
            ),
            (400, "application/json"): refused(
                "a bound cannot be: a date the calendar does not have, a bound given both "
                "as a minute and as a date, a real time that is not one (field errors in "
                "plain words)."
            ),
        },
        parameters=[
            *MINUTE_PARAMETERS,
            OpenApiParameter(
                "from_date",
                _text(
                    "from this date of the campaign's calendar: 1000-Bloom-6 or 1000-2-6 "
                    "(without a calendar: 3 or Day 3), with a time if wanted (08:30)"
                ),
            ),
            OpenApiParameter(
                "to_date",
                _text("up to this date (its end, without a time), as from_date"),
            ),
            OpenApiParameter("real_from", _text("from this real time: an ISO 8601 date and time")),
            OpenApiParameter("real_to", _text("up to this real time: an ISO 8601 date and time")),
            OpenApiParameter(
                "format",
                {"type": "string", "enum": ["json", "md"]},
                description="md: the recap as Markdown (or send Accept: text/markdown)",
            ),
        ],
        description="The session recap: per character what happened in order, the dice "
        "that mattered and where the clock went, over in-game time, real time or both. "
        "A player's holds their own characters, without what the referee keeps hidden (G-4).",
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id)
        campaign = membership.campaign
        recap = campaign_recap(membership, recap_window(campaign, request.query_params))
        if isinstance(request.accepted_renderer, MarkdownRenderer):
            name = recap_file_name(campaign, recap)
            return Response(recap, headers={"Content-Disposition": f'inline; filename="{name}"'})
        return Response(RecapSerializer(recap).data)

    def handle_exception(self, exc: Exception) -> Response:
        # Refusals are JSON, whatever was asked for: the error answers are documented so.
        self.request.accepted_renderer = JSONRenderer()
        self.request.accepted_media_type = JSONRenderer.media_type
        return super().handle_exception(exc)
