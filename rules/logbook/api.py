"""API of the logbook: the campaign's whole log (filters, pages), its export (JSON, CSV)
and import (rules.logbook.export, rules.logbook.importing), and the session recap
(rules.logbook.recap)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, cast

from django.http import HttpResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.access import access_campaign, may_import
from campaigns.api import campaign_answer, campaign_output
from core.cleaning import MAX_ID, JsonSerializer, read_body
from core.openapi import operation, refused
from core.query import QueryParameters
from rules.engine.registry import ruleset_keys
from rules.log.filters import BAD_FILTER, MINUTE_PARAMETERS, log_filters, log_page_query
from rules.log.models import EffectState, ResolutionKind
from rules.log.pagination import ResolutionPagination
from rules.log.selectors import resolution_view
from rules.logbook.export import (
    FORMAT,
    MAX_ROWS,
    USERNAME_LENGTH,
    VERSION,
    campaign_export,
    campaign_export_chunks,
    log_csv,
)
from rules.logbook.importing import campaign_import
from rules.logbook.recap import (
    campaign_recap,
    recap_file_name,
    recap_markdown,
    recap_window,
)
from rules.logbook.selectors import campaign_log
from rules.play.api import ResolutionPageSerializer


class ExportedCampaignSerializer(serializers.Serializer):
    name = serializers.CharField()
    ruleset = serializers.CharField()
    options = serializers.DictField()
    clock = serializers.IntegerField(help_text="in-game minutes (G-1)")
    dice_counter = serializers.IntegerField()
    actions_move_clock = serializers.BooleanField()
    calendar = serializers.DictField(
        help_text="how the clock reads, as `campaigns/{id}/calendar/` takes it ({}: Day N)"
    )


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
    said = serializers.DictField(
        allow_null=True,
        help_text="the summary as a message, to say it in another language (null: none)",
    )
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


# -- an export as the import takes it (issue 36: typed, the current version) ---------------
# What exports of version 1 made before a field existed lack is optional (the import's
# defaults, rules.logbook.importing); every bound the import checks is said.
class ImportedCampaignSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=120)
    ruleset = serializers.ChoiceField(choices=ruleset_keys())
    options = serializers.DictField(required=False)
    clock = serializers.IntegerField(min_value=0, max_value=MAX_ID, required=False)
    dice_counter = serializers.IntegerField(min_value=0, max_value=MAX_ID, required=False)
    actions_move_clock = serializers.BooleanField(required=False)
    calendar = serializers.DictField(required=False, help_text="exports from before have none")


class ImportedCharacterSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField(max_length=120)
    owner = serializers.CharField(
        max_length=USERNAME_LENGTH,
        required=False,
        help_text="who played it: a username of the old campaign (exports from before "
        "issue 29 have none); the import's `players` invites someone here to play it",
    )
    sheet = serializers.DictField()
    version = serializers.IntegerField(min_value=0, max_value=MAX_ID)
    pending_choice = serializers.DictField(allow_null=True, required=False)
    retired = serializers.BooleanField(required=False)


class ImportedEntrySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    character = serializers.IntegerField()
    actor = serializers.CharField(
        max_length=USERNAME_LENGTH,
        allow_null=True,
        required=False,
        help_text="a username of the old campaign, or null: the clock",
    )
    undoes = serializers.IntegerField(allow_null=True, required=False)
    batch = serializers.UUIDField(allow_null=True, required=False)
    kind = serializers.ChoiceField(choices=ResolutionKind.values)
    action = serializers.CharField(max_length=64)
    params = serializers.DictField()
    rolls = serializers.ListField(child=serializers.DictField())
    summary = serializers.CharField()
    said = serializers.DictField(
        allow_null=True, required=False, help_text="exports from before have none"
    )
    outcome = serializers.DictField()
    sheet_before = serializers.DictField()
    sheet_after = serializers.DictField()
    version = serializers.IntegerField(min_value=0, max_value=MAX_ID)
    pending_choice = serializers.DictField(allow_null=True)
    clock = serializers.IntegerField(min_value=0, max_value=MAX_ID)
    dice_counter_start = serializers.IntegerField(min_value=0, max_value=MAX_ID)
    dice_counter_end = serializers.IntegerField(min_value=0, max_value=MAX_ID)
    revealed = serializers.BooleanField()
    elapsed_minutes = serializers.IntegerField(min_value=0, max_value=MAX_ID)


class ImportedEffectSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    character = serializers.IntegerField()
    created_by = serializers.IntegerField(allow_null=True, required=False)
    resolution = serializers.IntegerField(allow_null=True, required=False)
    cancelled_by = serializers.IntegerField(
        allow_null=True, required=False, help_text="exports from before have none"
    )
    kind = serializers.CharField(max_length=64)
    key = serializers.CharField(max_length=128, allow_blank=True)
    due_at = serializers.IntegerField(min_value=0, max_value=MAX_ID)
    payload = serializers.DictField()
    hidden = serializers.BooleanField()
    state = serializers.ChoiceField(choices=EffectState.values)


class ImportedExportSerializer(serializers.Serializer):
    """An export of ``GET campaigns/{id}/export/`` as ``POST campaigns/import/`` takes it:
    this version of the format (older exports of it, lacking a later field, are taken)."""

    format = serializers.ChoiceField(choices=[FORMAT])
    version = serializers.ChoiceField(choices=[VERSION], help_text="the export format's version")
    campaign = ImportedCampaignSerializer()
    tables = serializers.DictField(
        required=False, help_text="table key -> the campaign's own table"
    )
    characters = serializers.ListField(child=ImportedCharacterSerializer(), max_length=MAX_ROWS)
    resolutions = serializers.ListField(
        child=ImportedEntrySerializer(), max_length=MAX_ROWS, help_text="oldest first"
    )
    effects = serializers.ListField(child=ImportedEffectSerializer(), max_length=MAX_ROWS)


@extend_schema_field(ImportedExportSerializer)
class ExportField(serializers.DictField):
    """The import's ``export``: drawn as :class:`ImportedExportSerializer` (a generated
    client gets the class), read as the JSON object it is; the import checks it whole
    (rules.logbook.importing: a bad one is a 400 in plain words, nothing imported)."""


class StreamedJson(StreamingHttpResponse):
    """A JSON answer sent as it is written; read whole (``content``, ``text``: Django's test
    client, a middleware), it is joined once and kept."""

    @property
    def content(self) -> bytes:  # type: ignore[override]
        joined = b"".join(cast(Iterator[bytes], self.streaming_content))  # not async
        self.streaming_content = [joined]
        return joined

    @property
    def text(self) -> str:  # type: ignore[override]
        return self.content.decode(self.charset)


class CampaignExportApi(APIView):
    @extend_schema(
        responses={200: CampaignExportSerializer},
        description="Referee only: everything needed to restore the campaign, as JSON: "
        "import it with `POST campaigns/import/`. The dice seed stays secret and is left "
        "out.",
    )
    def get(self, request: Request, campaign_id: int) -> Response | StreamedJson:
        membership = access_campaign(request.user, campaign_id, referee=True)
        renderer = request.accepted_renderer
        media_type = request.accepted_media_type
        context = self.get_renderer_context()
        indent = isinstance(renderer, JSONRenderer) and renderer.get_indent(media_type, context)
        if not isinstance(renderer, JSONRenderer) or indent is not None:
            return Response(campaign_export(membership.campaign))  # the browsable API's
        # Streamed (issue 39): a long log is never held whole, the bytes those the
        # renderer would write of the whole export.
        compact = bool(renderer.compact)

        def dumps(value: Any) -> bytes:
            return bytes(renderer.render(value, media_type, context))

        chunks = campaign_export_chunks(
            membership.campaign,
            dumps,
            b"," if compact else b", ",
            b":" if compact else b": ",
        )
        return StreamedJson(chunks, content_type=renderer.media_type)


class CampaignLogCsvApi(APIView):
    @extend_schema(
        responses={
            (200, "text/csv"): OpenApiResponse(
                OpenApiTypes.STR, description="The log as CSV, oldest first."
            )
        },
        description="Referee only: the campaign's whole log as CSV (text/csv).",
    )
    def get(self, request: Request, campaign_id: int) -> HttpResponse:
        membership = access_campaign(request.user, campaign_id, referee=True)
        response = HttpResponse(log_csv(membership.campaign), content_type="text/csv")
        response["Content-Disposition"] = f'attachment; filename="campaign-{campaign_id}-log.csv"'
        return response


class CampaignImportApi(APIView):
    class InputSerializer(JsonSerializer):
        export = ExportField(help_text="an export of GET campaigns/{id}/export/")
        players = serializers.DictField(
            child=serializers.CharField(max_length=150),
            required=False,
            help_text="the export's players (a character's `owner` there) -> a username "
            "here: each is sent an import invitation, and joins as a player and plays "
            "those characters again only once they accept it",
        )

    @operation(
        {201: campaign_answer()},
        request=InputSerializer,
        refuses="the export is not one this server can restore, or `players` names "
        "someone no character of the export is played by.",
        description="A new campaign from an export, with you as its referee; sheets, log "
        "and effects as exported. Every character is yours and every entry someone else "
        "made names them as the export did (`imported_actor`). Each username `players` "
        "gives is sent an import invitation (the answer is the same whether someone has "
        "it or not): who accepts joins as a player, plays the characters the export says "
        "they played and becomes the author of the entries they made "
        "(`GET campaigns/{id}/import-invitations/`). Needs a session or a `referee` "
        "token (403 otherwise). 400 for a bad export or mapping (nothing imported).",
    )
    def post(self, request: Request) -> Response:
        may_import(request.user)
        data = read_body(self.InputSerializer, request)
        campaign = campaign_import(
            user=request.user,
            data=data["export"],
            players=data.get("players"),
        )
        membership = access_campaign(request.user, campaign.pk)
        return Response(campaign_output(membership), status=status.HTTP_201_CREATED)


class CampaignLogApi(APIView):
    query_parameters = {
        "GET": log_page_query(
            action="an action key",
            who='a user id, or "clock" for what the clock applied',
            text="text of the summary",
        )
    }

    @extend_schema(
        responses={
            200: ResolutionPageSerializer,
            400: BAD_FILTER,
        },
        description="The whole log of the campaign, newest first (in-game time): every "
        "character's entries for the referee, a player's own characters' for a player. "
        "Hidden rolls only for the referee (G-4).",
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id)
        rows = campaign_log(membership, log_filters(request.query_params, exact=True))
        ruleset = membership.campaign.ruleset
        return ResolutionPagination.answer(
            rows,
            request,
            self,
            lambda page: [
                resolution_view(r, ruleset_key=ruleset, viewer_is_referee=membership.is_referee)
                for r in page
            ],
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
    by = serializers.CharField(
        help_text='who made it: a username, "alice (imported)" for someone of an imported '
        'campaign not shown as anyone here yet (issue 36), or "the clock"'
    )
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


RECAP_REFUSED = refused(
    "a bound cannot be: a date the calendar does not have, a bound given both as a minute "
    "and as a date, a real time that is not one (field errors in plain words)."
)


class RecapSpanQuery(QueryParameters):
    """The span of a recap: in-game minutes, dates of the calendar, real times
    (rules.logbook.recap.recap_window reads them)."""

    parameters = [
        *MINUTE_PARAMETERS,
        OpenApiParameter(
            "from_date",
            _text(
                "from this date of the campaign's calendar: 1000-Bloom-6 or 1000-2-6 "
                "(without a calendar: 3 or Day 3), with a time if wanted (08:30)"
            ),
        ),
        OpenApiParameter(
            "to_date", _text("up to this date (its end, without a time), as from_date")
        ),
        OpenApiParameter("real_from", _text("from this real time: an ISO 8601 date and time")),
        OpenApiParameter("real_to", _text("up to this real time: an ISO 8601 date and time")),
    ]


class RecapQuery(QueryParameters):
    """The span, and the recap's format (JSON or Markdown)."""

    parameters = [
        *RecapSpanQuery.parameters,
        OpenApiParameter(
            "format",
            {"type": "string", "enum": ["json", "md"]},
            description="md: the recap as Markdown (or send Accept: text/markdown; or "
            "ask `recap.md`); another format is a 400",
        ),
    ]


class CampaignRecapApi(APIView):
    renderer_classes = [JSONRenderer, MarkdownRenderer]
    query_parameters: dict[str, type[QueryParameters]] = {"GET": RecapQuery}

    @extend_schema(
        responses={
            (200, "application/json"): RecapSerializer,
            (200, "text/markdown"): OpenApiResponse(
                OpenApiTypes.STR,
                description="The recap as Markdown (a generated client reads it from "
                "`recap.md`, which answers nothing else).",
            ),
            (400, "application/json"): RECAP_REFUSED,
        },
        description="The session recap: per character what happened in order, the dice "
        "that mattered and where the clock went, over in-game time, real time or both. "
        "A player's holds their own characters, without what the referee keeps hidden (G-4).",
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id)
        campaign = membership.campaign
        window = recap_window(campaign, request.query_params, exact=True)
        recap = campaign_recap(membership, window)
        if isinstance(request.accepted_renderer, MarkdownRenderer):
            name = recap_file_name(campaign, recap)
            return Response(recap, headers={"Content-Disposition": f'inline; filename="{name}"'})
        return Response(RecapSerializer(recap).data)

    def handle_exception(self, exc: Exception) -> Response:
        # Refusals are JSON, whatever was asked for: the error answers are documented so.
        self.request.accepted_renderer = JSONRenderer()
        self.request.accepted_media_type = JSONRenderer.media_type
        return super().handle_exception(exc)


class CampaignRecapMarkdownApi(CampaignRecapApi):
    """The recap as Markdown alone (issue 36): one answer of one content type, which a
    generated client reads as text (``recap/`` answers JSON or Markdown as asked)."""

    renderer_classes = [MarkdownRenderer]
    query_parameters = {"GET": RecapSpanQuery}

    @extend_schema(
        responses={
            (200, "text/markdown"): OpenApiResponse(
                OpenApiTypes.STR, description="The recap as Markdown."
            ),
            (400, "application/json"): RECAP_REFUSED,
        },
        description="The session recap as Markdown (text/markdown), to paste into a journal "
        "or a chat: what `recap/?format=md` answers.",
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        return super().get(request, campaign_id)
