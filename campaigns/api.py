"""API for campaigns, invites and joining (API.md). Thin: access, services, selectors."""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from django.http import Http404
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiResponse, PolymorphicProxySerializer, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.access import access_campaign, visible_memberships
from campaigns.models import Invite, Membership
from campaigns.rows_api import CampaignRowsApi, campaign_rows
from campaigns.selectors import (
    campaign_calendar,
    campaign_seed_periods,
    clock_date,
    clock_display,
    dice_commitment,
    invites_of,
)
from campaigns.services import (
    MAX_INVITE_HOURS,
    campaign_calendar_set,
    campaign_create,
    campaign_delete,
    campaign_join,
    campaign_unarchive,
    campaign_update,
    invite_create,
    invite_revoke,
    invite_usable,
)
from core.cleaning import JsonSerializer, confirm_parameter, confirmation, read_body, valid_id
from core.openapi import (
    AnyOfProxySerializer,
    ProxyMap,
    by_ruleset,
    const_field,
    json_schema_field,
    operation,
    options_component,
    pascal,
    per_ruleset,
    serializer_class,
)
from core.output import attributes
from core.query import QueryParameters
from core.said import said
from rules.engine.calendar import (
    MAX_MONTH_DAYS,
    MAX_MONTHS,
    MAX_NAME,
    MAX_WEEKDAYS,
    MAX_YEAR,
    PRESETS,
    calendar_data,
)
from rules.engine.registry import all_rulesets, get_ruleset, ruleset_keys


class RulesetField(serializers.ChoiceField):
    """A registered ruleset's key. The choices are read whenever a serializer is built
    (DRF copies declared fields by calling ``__init__`` again)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=list(ruleset_keys()), **kwargs)


class DateSerializer(serializers.Serializer):
    """An in-game minute in the campaign's calendar (``campaigns/{id}/calendar/``)."""

    year = serializers.IntegerField(allow_null=True, help_text="null without a calendar")
    month = serializers.IntegerField(allow_null=True, help_text="from 1; null without a calendar")
    month_name = serializers.CharField(allow_null=True)
    day = serializers.IntegerField(
        help_text="the day of the month; without a calendar, the day from the start (Day 1)"
    )
    weekday = serializers.CharField(allow_null=True, help_text="null without named week days")
    hour = serializers.IntegerField()
    minute = serializers.IntegerField()
    text = serializers.CharField(
        help_text='"Moonday 6 Bloom 1000, 01:30"; without a calendar "Day 6, 01:30"'
    )


class CampaignOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    ruleset = serializers.CharField()
    clock = serializers.IntegerField(help_text="in-game minutes since the start (G-1)")
    clock_display = serializers.CharField(
        help_text='the clock in the campaign\'s calendar (by default "Day N, HH:MM")'
    )
    date = DateSerializer(help_text="the clock in the campaign's calendar")
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


@cache
def _campaign_answers() -> ProxyMap:
    """One answer per ruleset: the campaign with its options in that ruleset's shape (a
    named component, ``HitDiceOptions``...)."""
    return per_ruleset(
        "CampaignOutput",
        CampaignOutputSerializer,
        lambda ruleset: {"options": options_component(ruleset)},
        "A {name} campaign.",
    )


def campaign_answer(*, many: bool = False) -> PolymorphicProxySerializer:
    """A campaign as the API answers it (``GET campaigns/{id}/``), typed by its ruleset;
    for the schema only (:func:`campaign_output` makes the answer)."""
    return by_ruleset("CampaignOutput", _campaign_answers(), many=many)


def campaign_output(membership: Membership) -> Any:
    return CampaignOutputSerializer(_campaign_view(membership)).data


def campaign_options(campaign: Any) -> dict[str, Any]:
    """The campaign's options as answered: every option of its ruleset, with its value
    (an option the ruleset gained since they were stored: its default)."""
    ruleset = get_ruleset(campaign.ruleset)
    return {key: campaign.options.get(key, value) for key, value in ruleset.options.items()}


def _campaign_view(membership: Membership) -> dict[str, Any]:
    campaign = membership.campaign
    return {
        "id": campaign.pk,
        "name": campaign.name,
        "ruleset": campaign.ruleset,
        "clock": campaign.clock,
        "clock_display": clock_display(campaign.clock, campaign),
        "date": clock_date(campaign.clock, campaign),
        "my_role": membership.role,
        "options": campaign_options(campaign),
        "actions_move_clock": campaign.actions_move_clock,
        "dice_commitment": dice_commitment(campaign.dice_seed),
        "archived_at": campaign.archived_at,
    }


NAME_MAX_LENGTH = 120


@cache
def _campaign_bodies() -> ProxyMap:
    """One body per ruleset for ``POST campaigns/``: its key and its options' schema."""
    bodies: ProxyMap = {}
    for ruleset in all_rulesets():
        options = copy.deepcopy(dict(ruleset.options_schema))
        options["description"] = "Campaign options; the ones left out keep their default."
        name = pascal(ruleset.key)
        fields = {
            "name": serializers.CharField(max_length=NAME_MAX_LENGTH),
            "ruleset": const_field(ruleset.key),
            "options": json_schema_field(options, name=f"{name}CampaignOptions", required=False),
        }
        doc = f"A {ruleset.name} campaign."
        bodies[ruleset.key] = serializer_class(f"{name}Campaign", doc, fields)
    return bodies


def campaign_request() -> PolymorphicProxySerializer:
    return PolymorphicProxySerializer(
        component_name="Campaign",
        serializers=_campaign_bodies(),
        resource_type_field_name="ruleset",
    )


@cache
def _campaign_update_bodies() -> ProxyMap:
    """One body per ruleset for ``PATCH campaigns/{id}/``: the ruleset it is written for
    (the campaign's, or a new one while no character exists) and that ruleset's options."""
    bodies: ProxyMap = {}
    for ruleset in all_rulesets():
        options = copy.deepcopy(dict(ruleset.options_schema))
        options["description"] = (
            "Options of this ruleset; the ones left out keep their value (after a "
            "ruleset change, their default)."
        )
        name = pascal(ruleset.key)
        fields = {
            "ruleset": const_field(
                ruleset.key,
                required=False,
                help_text="the ruleset `options` are written for: the campaign's (the "
                "default), or a new one while the campaign has no character",
            ),
            "name": serializers.CharField(max_length=NAME_MAX_LENGTH, required=False),
            "options": json_schema_field(
                options, name=f"{name}CampaignUpdateOptions", required=False
            ),
            "actions_move_clock": serializers.BooleanField(
                required=False, help_text="an action that takes time moves the campaign clock"
            ),
        }
        doc = f"Changes to a {ruleset.name} campaign."
        bodies[ruleset.key] = serializer_class(f"{name}CampaignUpdate", doc, fields)
    return bodies


def campaign_update_request() -> AnyOfProxySerializer:
    """Any ruleset's changes: ``ruleset`` may be left out (the campaign's), so a body
    without it matches each (``anyOf``); the server reads ``options`` as the campaign's
    ruleset's, or the one the body names."""
    return AnyOfProxySerializer(
        component_name="CampaignUpdate", serializers=_campaign_update_bodies()
    )


class CampaignListApi(APIView):
    class InputSerializer(JsonSerializer):
        name = serializers.CharField(max_length=NAME_MAX_LENGTH)
        ruleset = RulesetField()
        options = serializers.DictField(required=False)

    @extend_schema(responses={200: campaign_answer(many=True)})
    def get(self, request: Request) -> Response:
        views = [_campaign_view(m) for m in visible_memberships(request.user)]
        return Response(CampaignOutputSerializer(views, many=True).data)

    @operation(
        {201: campaign_answer()},
        request=campaign_request(),
        refuses="the options together break a rule the schema cannot say.",
    )
    def post(self, request: Request) -> Response:
        data = read_body(self.InputSerializer, request)
        campaign = campaign_create(user=request.user, **data)
        membership = access_campaign(request.user, campaign.pk)
        return Response(campaign_output(membership), status=status.HTTP_201_CREATED)


class CampaignDetailApi(APIView):
    class DeleteQuery(QueryParameters):
        parameters = [confirm_parameter("The campaign's name")]

    query_parameters = {"DELETE": DeleteQuery}

    class UpdateSerializer(JsonSerializer):
        name = serializers.CharField(max_length=NAME_MAX_LENGTH, required=False)
        ruleset = RulesetField(required=False)
        options = serializers.JSONField(required=False)
        actions_move_clock = serializers.BooleanField(required=False)

        def validate_options(self, value: Any) -> Any:
            if not isinstance(value, dict):
                raise serializers.ValidationError(gettext("Expected a dictionary of items."))
            return value

    @extend_schema(responses={200: campaign_answer()})
    def get(self, request: Request, campaign_id: int) -> Response:
        return Response(campaign_output(access_campaign(request.user, campaign_id)))

    @operation(
        {200: campaign_answer()},
        request=campaign_update_request(),
        refuses="the options together break a rule the schema cannot say, `options` are not "
        "those of the ruleset they are read for (the campaign's, unless the body "
        "names another), or the name is blank once trimmed.",
        conflict="Conflict: the ruleset is fixed once the campaign has characters.",
        description="Referee only: rename the campaign, set its options, whether actions "
        "move its clock, or change its ruleset while no character exists. `ruleset` may "
        "be left out: `options` are then the campaign's ruleset's. A body that names a "
        "ruleset (the campaign's, or a new one) has that ruleset's `options` "
        "(`HitDiceCampaignUpdate`...); naming another ruleset changes the campaign's, "
        "409 once it has characters.",
    )
    def patch(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        data = read_body(self.UpdateSerializer, request)
        campaign_update(campaign_id=membership.campaign_id, **data)
        return Response(campaign_output(access_campaign(request.user, campaign_id)))

    @operation(
        {204: OpenApiResponse(description="deleted with everything in it")},
        refuses="`confirm` is not the campaign's name.",
        description="Referee only: delete the campaign, its characters and their logs. "
        "`?confirm=` must be its name (400 otherwise).",
    )
    def delete(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        campaign_delete(campaign_id=membership.campaign_id, confirm=confirmation(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class CalendarMonthSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=MAX_NAME)
    days = serializers.IntegerField(min_value=1, max_value=MAX_MONTH_DAYS)


class CalendarEpochSerializer(serializers.Serializer):
    year = serializers.IntegerField(min_value=-MAX_YEAR, max_value=MAX_YEAR)
    month = serializers.IntegerField(min_value=1, help_text="from 1")
    day = serializers.IntegerField(min_value=1, help_text="a day of that month, from 1")
    weekday = serializers.CharField(
        required=False,
        max_length=MAX_NAME,
        help_text="its week day, one of `weekdays` (default: the first)",
    )


class CalendarEpochInputSerializer(serializers.Serializer):
    """The date at clock 0 as a PUT sends it: each part may be left out (1)."""

    year = serializers.IntegerField(
        min_value=-MAX_YEAR, max_value=MAX_YEAR, required=False, help_text="default 1"
    )
    month = serializers.IntegerField(
        min_value=1,
        max_value=MAX_MONTHS,
        required=False,
        help_text="a month of `months`, from 1 (default 1)",
    )
    day = serializers.IntegerField(
        min_value=1,
        max_value=MAX_MONTH_DAYS,
        required=False,
        help_text="a day of that month, from 1 (default 1)",
    )
    weekday = serializers.CharField(
        required=False,
        max_length=MAX_NAME,
        help_text="its week day, one of `weekdays` (default: the first)",
    )


class CalendarSerializer(serializers.Serializer):
    """A calendar as a PUT sends it, with every bound the server checks (the engine's,
    rules.engine.calendar; config/tests/test_schema_bounds.py holds them equal)."""

    months = serializers.ListField(
        child=CalendarMonthSerializer(),
        required=False,
        min_length=1,
        max_length=MAX_MONTHS,
        help_text="each year's months, in order (at least one)",
    )
    weekdays = serializers.ListField(
        child=serializers.CharField(max_length=MAX_NAME),
        required=False,
        max_length=MAX_WEEKDAYS,
        help_text="may be none",
    )
    epoch = CalendarEpochInputSerializer(required=False, help_text="the date at clock 0")
    preset = serializers.ChoiceField(
        choices=list(PRESETS),
        required=False,
        help_text="instead of months, week days and epoch: a preset (`days`: no calendar)",
    )


class CalendarOutputSerializer(serializers.Serializer):
    default = serializers.BooleanField(help_text='no calendar: the clock reads "Day N, HH:MM"')
    months = CalendarMonthSerializer(many=True)
    weekdays = serializers.ListField(child=serializers.CharField())
    epoch = CalendarEpochSerializer(allow_null=True)
    date = DateSerializer(help_text="the clock now, in this calendar")
    presets = serializers.DictField(
        child=serializers.CharField(), help_text="the presets a PUT may name, with their words"
    )


class CalendarInputSerializer(serializers.Serializer):
    months = serializers.ListField(child=serializers.DictField(), required=False)
    weekdays = serializers.ListField(child=serializers.JSONField(), required=False)
    epoch = serializers.DictField(required=False)
    preset = serializers.ChoiceField(
        choices=list(PRESETS), required=False, help_text="instead of a calendar: a preset"
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # A preset replaces the whole calendar: one sent beside months, week days or an
        # epoch would leave them unread, so neither is taken for the other.
        if "preset" in attrs and attrs.keys() & {"months", "weekdays", "epoch"}:
            raise serializers.ValidationError(
                {"preset": [gettext("a preset or a calendar of your own, not both")]}
            )
        return attrs


def _calendar_output(campaign: Any) -> dict[str, Any]:
    data = calendar_data(campaign_calendar(campaign))
    return {
        "default": not data,
        "months": data.get("months", []),
        "weekdays": data.get("weekdays", []),
        "epoch": data.get("epoch"),
        "date": clock_date(campaign.clock, campaign),
        "presets": {key: said(words) for key, (words, _) in PRESETS.items()},
    }


class CampaignCalendarApi(APIView):
    @extend_schema(responses={200: CalendarOutputSerializer})
    def get(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id)
        return Response(CalendarOutputSerializer(_calendar_output(membership.campaign)).data)

    @operation(
        {200: CalendarOutputSerializer},
        request=CalendarSerializer,
        refuses="the calendar cannot be, said in plain words (`{calendar: [message]}`): no "
        "months, a month of 0 days, a name over 40 characters, an epoch day outside "
        "its month..., or a preset sent beside a calendar of your own.",
        description="Referee only: how the clock reads (months, week days, the date at "
        'clock 0), or `{"preset": ...}` (`days` is the default, "Day N"). The clock does '
        "not move: only how it is shown.",
    )
    def put(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        data = read_body(CalendarInputSerializer, request)
        body = dict(data)
        key = body.pop("preset", "")
        campaign = campaign_calendar_set(
            campaign_id=membership.campaign_id, calendar=body, preset_key=key
        )
        return Response(CalendarOutputSerializer(_calendar_output(campaign)).data)


class InviteSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    code = serializers.CharField()
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True, help_text="null: never expires")
    single_use = serializers.BooleanField(help_text="joins one new member, then stops")
    uses = serializers.IntegerField(help_text="new members it brought in")
    revoked = serializers.BooleanField()
    usable = serializers.BooleanField(help_text="joins someone now")


def invite_output(invite: Invite) -> dict[str, Any]:
    return {
        **attributes(invite, "id", "code", "created_at", "expires_at", "single_use", "uses"),
        "revoked": invite.revoked_at is not None,
        "usable": invite_usable(invite) is None,
    }


@campaign_rows(
    InviteSerializer, "Referee only: the campaign's invite codes, newest first.", referee=True
)
class InviteCreateApi(CampaignRowsApi):
    class InputSerializer(JsonSerializer):
        expires_in_hours = serializers.IntegerField(
            required=False, min_value=1, max_value=MAX_INVITE_HOURS
        )
        single_use = serializers.BooleanField(required=False, default=False)

    def rows(self, membership: Membership) -> list[dict[str, Any]]:
        return [invite_output(invite) for invite in invites_of(membership.campaign)]

    @extend_schema(
        request=InputSerializer,
        responses={201: InviteSerializer},
        description="Referee only: a new invite code, which may expire after "
        "`expires_in_hours` and may be `single_use`.",
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        data = read_body(self.InputSerializer, request)
        invite = invite_create(campaign=membership.campaign, user=request.user, **data)
        return Response(InviteSerializer(invite_output(invite)).data, status=201)


class InviteDetailApi(APIView):
    @operation(
        {200: InviteSerializer},
        conflict="Conflict: the invite is already revoked.",
        description="Referee only: revoke the invite code; it joins nobody from now on.",
    )
    def delete(self, request: Request, campaign_id: int, invite_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        try:
            invite = invite_revoke(
                campaign_id=membership.campaign_id, invite_id=valid_id(invite_id)
            )
        except (Invite.DoesNotExist, ValueError):
            raise Http404(gettext("no such invite")) from None
        return Response(InviteSerializer(invite_output(invite)).data)


class JoinApi(APIView):
    class InputSerializer(JsonSerializer):
        code = serializers.CharField(max_length=32)

    @operation(
        {200: campaign_answer()},
        request=InputSerializer,
        refuses="no campaign has this invite code, or it can no longer be used.",
    )
    def post(self, request: Request) -> Response:
        data = read_body(self.InputSerializer, request)
        membership = campaign_join(user=request.user, code=data["code"])
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


@campaign_rows(
    SeedPeriodSerializer,
    "Every seed period of the campaign's dice, oldest first; the last is the current one, "
    "whose seed stays secret until the referee rotates it.",
)
class DiceSeedListApi(CampaignRowsApi):
    def rows(self, membership: Membership) -> list[dict[str, Any]]:
        return campaign_seed_periods(membership.campaign)


class CampaignUnarchiveApi(APIView):
    @operation(
        {200: campaign_answer()},
        conflict="Conflict: the campaign is not archived.",
        description="Referee only. Brings an archived campaign back into play (409 if it is "
        "not archived); its clock stays stopped.",
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        campaign_unarchive(campaign_id=membership.campaign_id)
        return Response(campaign_output(access_campaign(request.user, campaign_id)))
