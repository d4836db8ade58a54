"""API of the campaign clock (API.md, docs/clock.md): advance, jobs, live clock, effects.

Thin views: access from ``campaigns.access``, writes in ``rules.clock.services``, reads in
``rules.clock.selectors``.
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_EVEN, Decimal
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.access import access_campaign
from campaigns.api import DateSerializer
from campaigns.models import MAX_LIVE_RATIO, Campaign, Membership
from campaigns.rows_api import CampaignRowsApi, campaign_rows
from campaigns.selectors import clock_display, clock_minute_of
from core.cleaning import MAX_ID, JsonSerializer, QueryIntegerField, read_body
from core.openapi import (
    ARCHIVED,
    decimal_pattern,
    error_answer,
    json_schema_field,
    operation,
)
from core.pagination import PageSerializer
from rules.clock.live import clock_live_set
from rules.clock.models import ClockEntryKind, ClockJob, ClockJobKind, ClockJobState
from rules.clock.report import NOTABLE
from rules.clock.selectors import (
    clock_entry_view,
    clock_job_for_campaign,
    clock_job_view,
    clock_jobs_for_campaign,
    clock_log,
    clock_report_view,
    first_waiting_job,
    own_character_ids,
)
from rules.clock.services import MAX_ADVANCE_MINUTES, clock_advance_start, clock_job_resume
from rules.engine.calendar import MAX_MONTHS, MAX_NAME, MAX_YEAR
from rules.log.filters import BAD_FILTER, log_filters, log_page_query
from rules.log.models import EffectState
from rules.log.pagination import ResolutionPagination
from rules.log.selectors import effect_view, effects_for_viewer

if TYPE_CHECKING:  # DRF's error messages may be lazy texts (django-stubs' name for them)
    from django.utils.functional import _StrPromise as StrPromise


class _KeywordFields(serializers.Serializer):
    """Fields named after Python keywords (``from``) are declared with a trailing ``_``."""

    def get_fields(self) -> dict[str, serializers.Field]:
        return {name.removesuffix("_"): field for name, field in super().get_fields().items()}


class ClockJobSerializer(_KeywordFields):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(
        choices=ClockJobKind.values,
        help_text="advance (the referee), live (a live clock's tick) or action (the time "
        "an action or a party action took)",
    )
    from_ = serializers.IntegerField(
        allow_null=True, help_text="the clock when it started (null: queued)"
    )
    to = serializers.IntegerField(
        allow_null=True, help_text="the clock it has reached (its target once done)"
    )
    requested_by = serializers.IntegerField(
        allow_null=True, help_text="the user who asked (null: the live clock, or gone)"
    )
    requested_by_name = serializers.CharField(allow_null=True)
    state = serializers.ChoiceField(
        choices=ClockJobState.values,
        help_text="queued, running, waiting (on a choice: see reason), done or failed",
    )
    minutes = serializers.IntegerField(help_text="in-game minutes to advance")
    done = serializers.IntegerField(help_text="effects handled so far")
    total = serializers.IntegerField(
        help_text="done plus the effects known to be due before target; it grows when an "
        "effect schedules another inside the window: draw progress from minutes_done"
    )
    minutes_done = serializers.IntegerField(
        allow_null=True,
        help_text="in-game minutes covered so far (clock - clock_start); never goes back",
    )
    minutes_total = serializers.IntegerField(
        allow_null=True,
        help_text="in-game minutes the job covers (target - clock_start), known from its start",
    )
    clock_start = serializers.IntegerField(allow_null=True, help_text="the clock when it started")
    target = serializers.IntegerField(allow_null=True, help_text="the minute it advances to")
    clock = serializers.IntegerField(allow_null=True, help_text="the minute it has reached")
    clock_display = serializers.CharField(
        allow_null=True, help_text="the clock reached, in the campaign's calendar"
    )
    date = DateSerializer(allow_null=True, help_text="the clock reached, as a date")
    reason = serializers.CharField(help_text="why it waits or failed")
    waiting_on = serializers.IntegerField(
        allow_null=True, help_text="the character whose choice stops the clock (G-3)"
    )
    waits_for = serializers.IntegerField(
        allow_null=True,
        help_text="a queued job behind an earlier job stopped on a choice (G-3): that job's "
        "id; this one runs once that one is resumed and done (null: it waits for nothing)",
    )
    skipped = serializers.ListField(
        child=serializers.DictField(), help_text="effects the ruleset refused, and why"
    )
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class ReportEventSerializer(serializers.Serializer):
    clock = serializers.IntegerField(help_text="the in-game minute it happened at")
    resolution = serializers.IntegerField(help_text="its entry in the log")
    summary = serializers.CharField()
    notable = serializers.ListField(
        child=serializers.ChoiceField(choices=list(NOTABLE)),
        help_text="why a referee wants it first: " + ", ".join(NOTABLE),
    )


class ReportCharacterSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    state_before = serializers.CharField(help_text="the ruleset's state word before")
    state_after = serializers.CharField(help_text="and after the last event")
    events = ReportEventSerializer(many=True)


class ClockReportSerializer(_KeywordFields):
    id = serializers.IntegerField(allow_null=True)
    kind = serializers.CharField(allow_null=True)
    from_ = serializers.IntegerField(allow_null=True)
    to = serializers.IntegerField(allow_null=True)
    characters = ReportCharacterSerializer(
        many=True,
        help_text="only the characters something happened to, each event in time order; a "
        "player reads their own characters only, hidden rolls left out",
    )


class ClockJobDetailSerializer(ClockJobSerializer):
    report = ClockReportSerializer(
        help_text="what the job did (a live clock's ticks of one real hour share one)"
    )


class AdvanceOutputSerializer(ClockJobSerializer):
    job = serializers.IntegerField(help_text="the job's id, for clock/jobs/{job}/")


def advance_minutes(campaign: Campaign, data: dict[str, Any]) -> tuple[int, int | None]:
    """How far an advance goes: days, hours and minutes added up, or ``until`` a date
    (then also its minute). Plain 400s: nothing to advance, a date already past."""
    parts = ("days", "hours", "minutes")
    if "until" in data:
        if any(part in data for part in parts):
            raise ValidationError(
                {
                    "until": [
                        gettext("Advance until a date, or by days, hours and minutes: not both.")
                    ]
                }
            )
        until = clock_minute_of(campaign, data["until"])
        if until <= campaign.clock:
            raise ValidationError(
                {
                    "until": [
                        gettext("That date is already past: the clock is at %(now)s.")
                        % {"now": clock_display(campaign.clock, campaign)}
                    ]
                }
            )
        if until - campaign.clock > MAX_ADVANCE_MINUTES:
            raise ValidationError({"until": [gettext("That date is more than ten years ahead.")]})
        return until - campaign.clock, until
    minutes = data.get("days", 0) * 24 * 60 + data.get("hours", 0) * 60 + data.get("minutes", 0)
    if minutes < 1:
        raise ValidationError({"minutes": [gettext("Advance the clock by at least one minute.")]})
    if minutes > MAX_ADVANCE_MINUTES:
        raise ValidationError(
            {"minutes": [gettext("Advance the clock by at most ten years at once.")]}
        )
    return minutes, None


def _advance_output(job: ClockJob) -> Any:
    return AdvanceOutputSerializer({"job": job.pk, **clock_job_view(job)}).data


def _between(what: str, low: int, high: int) -> dict[str, str | StrPromise]:
    """A whole number field's refusals in words (the clock form shows them as they come,
    issue 34), not DRF's "Ensure this value is less than or equal to ..."."""
    said = f"{what} is a whole number from {low} to {high}."
    return {"min_value": said, "max_value": said, "invalid": said, "max_string_length": said}


def _whole(what: str, low: int, high: int, **kwargs: Any) -> serializers.IntegerField:
    """A whole number field from ``low`` to ``high`` whose refusals say so (:func:`_between`)."""
    return serializers.IntegerField(
        min_value=low, max_value=high, error_messages=_between(what, low, high), **kwargs
    )


MAX_DAY = 10**9


class UntilSerializer(serializers.Serializer):
    """A date of the campaign's calendar (``campaigns/{id}/calendar/``)."""

    year = _whole("The year", -MAX_YEAR, MAX_YEAR, required=False, help_text="with a calendar")
    month = json_schema_field(
        {
            "anyOf": [
                {"type": "integer", "minimum": 1, "maximum": MAX_MONTHS},
                {"type": "string", "minLength": 1, "maxLength": MAX_NAME},
            ]
        },
        name="MonthNumberOrNameField",
        required=False,
        help_text="with a calendar: its number (from 1) or its name",
    )
    day = _whole(
        "The day",
        1,
        MAX_DAY,
        help_text="the day of the month; without a calendar, the day from the start",
    )
    hour = _whole("The hour", 0, 23, required=False, default=0)
    minute = _whole("The minute", 0, 59, required=False, default=0)

    def validate_month(self, value: Any) -> int | str:
        """A number or a name, as the schema says (whether the calendar has it is the
        calendar's to say: a 400 in plain words)."""
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise serializers.ValidationError(
                gettext("A month is its number (from 1) or its name.")
            )
        return value


# The advance's amounts refused in the words of advance_minutes (the page shows them).
_TEN_YEARS: dict[str, str | StrPromise] = {
    key: "Advance the clock by a whole number of minutes, hours or days, at most ten years at once."
    for key in ("min_value", "max_value", "invalid", "max_string_length")
}


class ClockAdvanceApi(APIView):
    class InputSerializer(JsonSerializer):
        minutes = serializers.IntegerField(
            min_value=0,
            max_value=MAX_ADVANCE_MINUTES,
            required=False,
            error_messages=_TEN_YEARS,
        )
        hours = serializers.IntegerField(
            min_value=0,
            max_value=MAX_ADVANCE_MINUTES // 60,
            required=False,
            error_messages=_TEN_YEARS,
        )
        days = serializers.IntegerField(
            min_value=0,
            max_value=MAX_ADVANCE_MINUTES // (24 * 60),
            required=False,
            error_messages=_TEN_YEARS,
        )
        until = UntilSerializer(
            required=False,
            help_text="instead of days, hours and minutes: advance to this date (in the "
            "future: a date already past is a 400)",
        )
        request_id = serializers.CharField(
            max_length=64,
            required=False,
            help_text="your key for this request: sending it again returns the same job",
        )

    @operation(
        {202: AdvanceOutputSerializer},
        request=InputSerializer,
        refuses="the time asked for adds up to no minute or to more than ten years, or "
        "`until` names a date already past.",
        conflict=ARCHIVED,
        description="Referee only. Moves the campaign clock forward by `days`, `hours` and "
        "`minutes` (added up: at least a minute, at most ten years), or `until` a date of "
        "the campaign's calendar, applying every scheduled effect that falls due in time "
        "order, in the background. Follow the job at `clock/jobs/{job}/`.",
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        data = read_body(self.InputSerializer, request)
        minutes, until = advance_minutes(membership.campaign, data)
        job = clock_advance_start(
            campaign_id=membership.campaign_id,
            minutes=minutes,
            requested_by=request.user,
            request_id=data.get("request_id", ""),
            until=until,
        )
        job.refresh_from_db()  # in embedded mode it has already run
        return Response(_advance_output(job), status=status.HTTP_202_ACCEPTED)


@campaign_rows(
    ClockJobSerializer,
    "Referee only: the campaign's latest 50 clock jobs, newest first.",
    referee=True,
)
class ClockJobListApi(CampaignRowsApi):
    def rows(self, membership: Membership) -> list[dict[str, Any]]:
        campaign = membership.campaign
        jobs = clock_jobs_for_campaign(campaign)
        waiting = first_waiting_job(campaign.pk)
        return [clock_job_view(job, campaign=campaign, first_waiting=waiting) for job in jobs]


class ClockJobDetailApi(APIView):
    @extend_schema(
        responses={200: ClockJobDetailSerializer},
        description="A job's state, progress (`done` of `total`) and `report`: what it did, "
        "per character. Every member may read it; a player's report holds their own "
        "characters only, and the reason and skipped effects are the referee's.",
    )
    def get(self, request: Request, campaign_id: int, job_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id)
        job = clock_job_for_campaign(membership.campaign, job_id)
        own = (
            None
            if membership.is_referee
            else own_character_ids(membership.campaign, membership.user_id)
        )
        view = clock_job_view(job, viewer_own=own, campaign=membership.campaign)
        view["report"] = clock_report_view(job.report, own=own, job=job)
        return Response(ClockJobDetailSerializer(view).data)


class ClockJobResumeApi(APIView):
    @operation(
        {202: ClockJobSerializer},
        conflict="Conflict: the choice the job waits on is still open, the job is done, or "
        "it is queued behind an earlier job stopped on a choice (resume that one).",
        description="Referee only: continue a job that waits on an answered choice, failed, "
        "or lost its task.",
    )
    def post(self, request: Request, campaign_id: int, job_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        job = clock_job_for_campaign(membership.campaign, job_id)
        job = clock_job_resume(job_id=job.pk, actor=request.user)
        job.refresh_from_db()
        return Response(
            ClockJobSerializer(clock_job_view(job)).data, status=status.HTTP_202_ACCEPTED
        )


RATIO_PLACES = 3
RATIO_PATTERN = decimal_pattern(MAX_LIVE_RATIO, RATIO_PLACES)


@extend_schema_field(
    {
        "anyOf": [
            {"type": "string", "pattern": RATIO_PATTERN},
            {"type": "number", "minimum": 0, "maximum": MAX_LIVE_RATIO},
        ],
        "description": f"in-game minutes per real minute, 0 to {MAX_LIVE_RATIO}: as text "
        f'with at most {RATIO_PLACES} decimals ("2.5"), or as a JSON number, rounded to '
        f"{RATIO_PLACES} decimals (a binary number has no exact decimals to count); "
        'answered as text ("2.500"); 0 stops the live clock',
    }
)
class RatioField(serializers.DecimalField):
    """A decimal as text ("2.5") or a JSON number, from 0 to MAX_LIVE_RATIO: the text
    exactly as ``RATIO_PATTERN`` says (no sign, no exponent, no blank); a number within
    the bounds is rounded to RATIO_PLACES decimals (issue 27: the schema's bounds on a
    number are its minimum and maximum, nothing about its decimals)."""

    def to_internal_value(self, data: Any) -> Decimal:
        if isinstance(data, str) and not re.fullmatch(RATIO_PATTERN, data):
            self.fail("invalid")
        if isinstance(data, bool) or not isinstance(data, str | int | float):
            self.fail("invalid")
        if isinstance(data, int | float):
            if not (math.isfinite(data) and 0 <= data <= MAX_LIVE_RATIO):
                self.fail("invalid")
            data = Decimal(repr(data)).quantize(Decimal(1).scaleb(-RATIO_PLACES), ROUND_HALF_EVEN)
        value: Decimal = super().to_internal_value(data)
        return value


class LiveClockSerializer(JsonSerializer):
    ratio = RatioField(
        max_digits=9,
        decimal_places=RATIO_PLACES,
        min_value=Decimal(0),
        max_value=Decimal(MAX_LIVE_RATIO),
    )
    running = serializers.BooleanField(read_only=True)
    last_tick = serializers.DateTimeField(read_only=True, allow_null=True)


def _live_output(campaign: Campaign) -> dict[str, Any]:
    return {
        "ratio": campaign.live_ratio,
        "running": campaign.live_ratio > 0,
        "last_tick": campaign.live_last_tick,
    }


class LiveClockApi(APIView):
    @extend_schema(responses={200: LiveClockSerializer})
    def get(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id)
        return Response(LiveClockSerializer(_live_output(membership.campaign)).data)

    @operation(
        {200: LiveClockSerializer},
        request=LiveClockSerializer,
        conflict=ARCHIVED,
        description="Referee only: run the clock with real time at `ratio` in-game minutes "
        "per real minute (0 stops it). Celery beat advances the campaign every minute.",
    )
    def put(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        data = read_body(LiveClockSerializer, request)
        campaign = clock_live_set(
            campaign_id=membership.campaign_id,
            ratio=data["ratio"],
            actor=request.user,
        )
        return Response(LiveClockSerializer(_live_output(campaign)).data)


class EffectSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    character = serializers.IntegerField()
    kind = serializers.CharField()
    due_at = serializers.IntegerField(help_text="in-game minute (G-1)")
    due_display = serializers.CharField(help_text='"Day N, HH:MM"')
    state = serializers.ChoiceField(choices=EffectState.values)
    payload = serializers.DictField()
    resolution = serializers.IntegerField(allow_null=True, help_text="the resolution it made")
    key = serializers.CharField(required=False, help_text="referees only")
    hidden = serializers.BooleanField(required=False, help_text="referees only (G-4)")


class CampaignEffectsApi(APIView):
    class FilterSerializer(serializers.Serializer):
        state = serializers.ChoiceField(
            choices=EffectState.values, required=False, help_text="only these"
        )
        character = QueryIntegerField(
            min_value=1, max_value=MAX_ID, required=False, help_text="only this character's"
        )

    query_parameters = {"GET": FilterSerializer}

    @extend_schema(
        responses={
            200: EffectSerializer(many=True),
            400: error_answer(400, "Bad filter: an unknown `state` or a bad `character` id."),
        },
        description="Scheduled effects in due order. Referees see all; players see those "
        "of their own characters, hidden ones left out (ruling G-4).",
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id)
        # a plain dict: DRF reads a blank value of a QueryDict as "not sent"
        filters = self.FilterSerializer(data=request.query_params.dict())
        filters.is_valid(raise_exception=True)
        effects = effects_for_viewer(
            membership.campaign,
            viewer_id=membership.user_id,
            viewer_is_referee=membership.is_referee,
            state=filters.validated_data.get("state"),
            character_id=filters.validated_data.get("character"),
        )
        views = [effect_view(e, viewer_is_referee=membership.is_referee) for e in effects]
        return Response(EffectSerializer(views, many=True).data)


class ClockEntrySerializer(_KeywordFields):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=ClockEntryKind.values)
    actor = serializers.IntegerField(allow_null=True, help_text="who did it (a user id)")
    actor_name = serializers.CharField(allow_null=True)
    clock = serializers.IntegerField(help_text="the in-game minute it was done at")
    clock_display = serializers.CharField()
    date = DateSerializer()
    summary = serializers.CharField(help_text="one sentence for people")
    minutes = serializers.IntegerField(allow_null=True, help_text="an advance's minutes")
    ratio_before = serializers.DecimalField(max_digits=9, decimal_places=3, allow_null=True)
    ratio_after = serializers.DecimalField(max_digits=9, decimal_places=3, allow_null=True)
    job = serializers.IntegerField(
        allow_null=True, help_text="the clock job (advance, resume): its report"
    )
    from_ = serializers.IntegerField(allow_null=True, help_text="the job's start")
    to = serializers.IntegerField(allow_null=True, help_text="the clock the job reached")
    created_at = serializers.DateTimeField()


class ClockEntryPageSerializer(PageSerializer):
    results = ClockEntrySerializer(many=True, help_text="newest first (in-game time)")


class ClockLogApi(APIView):
    query_parameters = {
        "GET": log_page_query(
            action="the entry's kind: advance, live_on, live_off, live_rate or resume",
            who='a user id (who did it), or "clock" for entries of no one',
            text="text",
        )
    }

    @extend_schema(
        responses={
            200: ClockEntryPageSerializer,
            400: BAD_FILTER,
        },
        description="The clock in the campaign log: advances asked for, the live clock "
        "switched on or off or its rate changed, stopped advances resumed, and who did each; "
        "newest first, with the same filters as `resolutions/` (an entry is about no "
        "character and no roll: those filters leave none). Every member reads it.",
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id)
        rows = clock_log(membership.campaign, log_filters(request.query_params, exact=True))
        return ResolutionPagination.answer(
            rows,
            request,
            self,
            lambda page: ClockEntrySerializer([clock_entry_view(e) for e in page], many=True).data,
        )
