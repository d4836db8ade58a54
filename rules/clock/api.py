"""API of the campaign clock (API.md, docs/clock.md): advance, jobs, live clock, effects.

Thin views: access from ``campaigns.access``, writes in ``rules.clock.services``, reads in
``rules.selectors``.
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.access import access_campaign
from campaigns.models import MAX_LIVE_RATIO, Campaign
from core.api_input import JsonSerializer, QueryIntegerField
from core.cleaning import MAX_ID
from core.openapi import decimal_pattern, error_answer
from rules.clock.models import ClockJob, ClockJobKind, ClockJobState
from rules.clock.selectors import clock_job_for_campaign, clock_job_view, clock_jobs_for_campaign
from rules.clock.services import (
    MAX_ADVANCE_MINUTES,
    clock_advance_start,
    clock_job_resume,
    clock_live_set,
)
from rules.play.models import EffectState
from rules.play.selectors import effect_view, effects_for_viewer


class ClockJobSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=ClockJobKind.values)
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
    clock_display = serializers.CharField(allow_null=True, help_text='"Day N, HH:MM" (G-1)')
    reason = serializers.CharField(help_text="why it waits or failed")
    waiting_on = serializers.IntegerField(
        allow_null=True, help_text="the character whose choice stops the clock (G-3)"
    )
    skipped = serializers.ListField(
        child=serializers.DictField(), help_text="effects the ruleset refused, and why"
    )
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class AdvanceOutputSerializer(ClockJobSerializer):
    job = serializers.IntegerField(help_text="the job's id, for clock/jobs/{job}/")


def _advance_output(job: ClockJob) -> Any:
    return AdvanceOutputSerializer({"job": job.pk, **clock_job_view(job)}).data


class ClockAdvanceApi(APIView):
    class InputSerializer(JsonSerializer):
        minutes = serializers.IntegerField(min_value=1, max_value=MAX_ADVANCE_MINUTES)
        request_id = serializers.CharField(
            max_length=64,
            required=False,
            help_text="your key for this request: sending it again returns the same job",
        )

    @extend_schema(
        request=InputSerializer,
        responses={
            202: AdvanceOutputSerializer,
            409: error_answer(409, "Conflict: the campaign is archived."),
        },
        description="Referee only. Moves the campaign clock forward by `minutes`, applying "
        "every scheduled effect that falls due in time order, in the background. Follow "
        "the job at `clock/jobs/{job}/`.",
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = clock_advance_start(
            campaign_id=membership.campaign_id,
            minutes=data.validated_data["minutes"],
            requested_by=request.user,
            request_id=data.validated_data.get("request_id", ""),
        )
        job.refresh_from_db()  # in embedded mode it has already run
        return Response(_advance_output(job), status=status.HTTP_202_ACCEPTED)


class ClockJobListApi(APIView):
    @extend_schema(
        responses={200: ClockJobSerializer(many=True)},
        description="Referee only: the campaign's latest 50 clock jobs, newest first.",
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        jobs = clock_jobs_for_campaign(membership.campaign)
        return Response(ClockJobSerializer([clock_job_view(job) for job in jobs], many=True).data)


class ClockJobDetailApi(APIView):
    @extend_schema(
        responses={200: ClockJobSerializer},
        description="Referee only: a job's state and progress (`done` of `total`).",
    )
    def get(self, request: Request, campaign_id: int, job_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        job = clock_job_for_campaign(membership.campaign, job_id)
        return Response(ClockJobSerializer(clock_job_view(job)).data)


class ClockJobResumeApi(APIView):
    @extend_schema(
        request=None,
        responses={
            202: ClockJobSerializer,
            409: error_answer(
                409, "Conflict: the choice the job waits on is still open, or the job is done."
            ),
        },
        description="Referee only: continue a job that waits on an answered choice, failed, "
        "or lost its task.",
    )
    def post(self, request: Request, campaign_id: int, job_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        job = clock_job_for_campaign(membership.campaign, job_id)
        job = clock_job_resume(job_id=job.pk)
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

    @extend_schema(
        request=LiveClockSerializer,
        responses={
            200: LiveClockSerializer,
            409: error_answer(409, "Conflict: the campaign is archived."),
        },
        description="Referee only: run the clock with real time at `ratio` in-game minutes "
        "per real minute (0 stops it). Celery beat advances the campaign every minute.",
    )
    def put(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        data = LiveClockSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        campaign = clock_live_set(
            campaign_id=membership.campaign_id, ratio=data.validated_data["ratio"]
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

    @extend_schema(
        parameters=[FilterSerializer],
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
