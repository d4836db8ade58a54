"""API for resolving: rulesets, actions, choices, the log, undo (API.md)."""

from __future__ import annotations

from functools import cache
from typing import Any

from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.access import access_campaign
from campaigns.api import SeedPeriodSerializer
from campaigns.models import Membership
from campaigns.rows_api import CampaignRowsApi, campaign_rows
from characters.access import access_character
from core.cleaning import JsonIntegerField, JsonSerializer, read_body
from core.openapi import (
    PageQuery,
    ProxyMap,
    by_ruleset,
    const_field,
    error_answer,
    json_schema_field,
    operation,
    outcome_component,
    params_component,
    pascal,
    per_ruleset,
    refused,
    serializer_class,
    sheet_component,
)
from rules.engine.registry import all_rulesets
from rules.log.pagination import ResolutionPagination
from rules.log.selectors import (
    action_odds,
    campaign_tables_view,
    dice_export,
    resolution_view,
    resolutions_for_character,
)
from rules.play.api_schema import (
    RulesetSerializer,
    action_request,
    ruleset_answer,
    table_data_schema,
    table_schema,
)
from rules.play.character_api import PendingChoiceSerializer
from rules.play.services import (
    campaign_table_reset,
    campaign_table_set,
    resolution_answer_choice,
    resolution_cancel_choice,
    resolution_create_action_checked,
    resolution_reveal,
)
from rules.play.undo import resolution_redo, resolution_undo


# A roll as an answer says it: its ``label`` first, then its own fields. (A comment, not a
# docstring: the schema would take it as the description of every roll.)
class LabelledSerializer(serializers.Serializer):
    def get_fields(self) -> dict[str, serializers.Field]:
        # declared here: a class attribute "label" would hide the serializer's own label
        return {"label": serializers.CharField(), **super().get_fields()}


SIZES_HELP = "the size of each die drawn, in order"


class RollSerializer(LabelledSerializer):
    expression = serializers.CharField()
    dice = serializers.ListField(child=serializers.IntegerField())
    kept = serializers.ListField(child=serializers.IntegerField())
    total = serializers.IntegerField()
    hidden = serializers.BooleanField()
    kind = serializers.ChoiceField(choices=["dice", "pool", "shuffle"])
    sizes = serializers.ListField(child=serializers.IntegerField(), help_text=SIZES_HELP)


class ResolutionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    character = serializers.IntegerField()
    kind = serializers.ChoiceField(
        choices=[
            "create",
            "action",
            "choice",
            "undo",
            "redo",
            "edit",
            "effect",
            "cancel_choice",
            "battle",
        ]
    )
    ruleset = serializers.CharField(help_text="the campaign's: it says the outcome's shape")
    action = serializers.CharField()
    params = serializers.DictField(
        help_text="what the resolution was asked with: an action's params (the `params` of "
        "its request), a scheduled effect's payload, an edit's or a choice's fields"
    )
    rolls = RollSerializer(many=True)
    summary = serializers.CharField()
    outcome = serializers.DictField(help_text="the facts the rules found")
    sheet = serializers.DictField(help_text="the sheet after this resolution")
    version = serializers.IntegerField(help_text="the character's version after it")
    pending_choice = PendingChoiceSerializer(allow_null=True)
    clock = serializers.IntegerField(help_text="in-game minute (G-1)")
    elapsed_minutes = serializers.IntegerField(
        help_text="in-game minutes the action took; the campaign clock moves by them when "
        "it ends, unless the campaign's actions_move_clock is off (docs/clock.md)"
    )
    batch = serializers.UUIDField(
        allow_null=True, help_text="the party action this resolution is part of, if any"
    )
    actor = serializers.IntegerField(
        allow_null=True, help_text="who made it (a user id); null: the clock, or `imported_actor`"
    )
    imported_actor = serializers.CharField(
        allow_null=True,
        help_text="who made it as an imported campaign's export named them, while nobody "
        'here is shown as them (pages write "alice (imported)"); null otherwise',
    )
    undoes = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()
    dice_counter_start = serializers.IntegerField(
        help_text="the first dice counter this resolution used (docs/dice.md)"
    )
    dice_counter_end = serializers.IntegerField(
        help_text="the counter after its last die: it used [start, end)"
    )


# What the log's entries other than actions and creations record in ``params`` (the
# writers: rules.play.editing, .services, .undo, .dice_rotation, rules.clock.services,
# rules.battles.services), published in each ruleset's ``HitDiceParams``...
RECORDED_PARAMS: dict[str, tuple[set[str], str]] = {
    "from": ({"string", "object"}, "an edit's value before: the old name, or who played"),
    "to": ({"string", "object"}, "an edit's value after: the new name, or who plays"),
    "changes": ({"object"}, "a correction's fields and their new values (`edit`)"),
    "reason": ({"string"}, "why the referee corrected the sheet (`edit`)"),
    "retired": ({"boolean"}, "retired or returned (`edit`)"),
    "invitation": ({"integer"}, "the import invitation whose acceptance handed it over (`edit`)"),
    "choice_id": ({"string"}, "the choice answered or cancelled (`choice`, `cancel_choice`)"),
    "option": ({"string"}, "the option chosen (`choice`)"),
    "scheduled_effect": ({"integer"}, "the scheduled effect the clock applied (`effect`)"),
    "payload": ({"object"}, "the scheduled effect's payload (`effect`)"),
    "moment": ({"string"}, "the battle's moment (`battle`)"),
    "resolution": ({"integer"}, "the entry undone or redone (`undo`, `redo`)"),
    "undo": ({"integer"}, "the undo a redo takes back (`redo`)"),
    "cancelled_effects": ({"array"}, "scheduled effects the undo cancelled (`undo`)"),
    "revived_effects": ({"array"}, "scheduled effects the undo brought back (`undo`)"),
    "revived_as": ({"array"}, "the brought-back effects' new ids (`undo`)"),
}


@cache
def _resolution_answers() -> ProxyMap:
    """One answer per ruleset: its outcome and sheet in that ruleset's shape
    (``HitDiceOutcome``, ``HitDiceSheet``...)."""
    return per_ruleset(
        "Resolution",
        ResolutionSerializer,
        lambda ruleset: {
            "params": params_component(ruleset, RECORDED_PARAMS),
            "outcome": outcome_component(ruleset, help_text="the facts the rules found"),
            "sheet": sheet_component(ruleset, help_text="the sheet after this resolution"),
        },
        "A resolution of a {name} character: an entry of its log.",
    )


# The answer's serializer made once: its fields, its rolls' and their children are built
# and bound once, not deep-copied for every answer (DRF copies a serializer's declared
# fields per instance); ``to_representation`` keeps no state between calls.
_RESOLUTION_OUT = ResolutionSerializer()


def resolution_data(view: dict[str, Any]) -> dict[str, Any]:
    """A resolution's view (``rules.log.selectors.resolution_view``) as the API answers it."""
    return dict(_RESOLUTION_OUT.to_representation(view))


def resolution_answer(*, many: bool = False, **kwargs: Any) -> PolymorphicProxySerializer:
    """A resolution as the API answers it, typed by its ruleset; for the schema only
    (:class:`ResolutionSerializer` makes the answer)."""
    return by_ruleset("Resolution", _resolution_answers(), many=many, **kwargs)


def _view(resolution: Any, access: Any) -> Any:
    """A resolution as this viewer may see it, through its output serializer."""
    view = resolution_view(
        resolution,
        ruleset_key=access.character.campaign.ruleset,
        viewer_is_referee=access.is_referee,
    )
    return resolution_data(view)


class RulesetListApi(APIView):
    @extend_schema(responses={200: ruleset_answer(many=True)})
    def get(self, request: Request) -> Response:
        described = [ruleset.describe() for ruleset in all_rulesets()]
        return Response(RulesetSerializer(described, many=True).data)


ACTION_LENGTH = 64  # the longest action name a body may give


class ActionInputSerializer(JsonSerializer):
    action = serializers.CharField(max_length=ACTION_LENGTH)
    params = serializers.DictField(required=False, default=dict)
    expected_version = JsonIntegerField(required=False, min_value=1)


def action_body(request: Request) -> dict[str, Any]:
    """An action's body as :class:`ActionInputSerializer` reads it. The usual body (an
    action's name as it is, its params an object, nothing else) is taken as it is: the
    serializer would give back the same, for a fifth of a millisecond of building its
    fields (issue 39). Any other, errors and all, is the serializer's."""
    data = request.data
    if type(data) is dict and data.keys() <= {"action", "params"}:
        action, params = data.get("action"), data.get("params", {})
        if (
            type(action) is str
            and 0 < len(action) <= ACTION_LENGTH
            and action.isascii()
            and action.isprintable()  # no NUL: the serializer's words for those
            and action.strip() == action  # the serializer trims
            and type(params) is dict
        ):
            return {"action": action, "params": dict(params)}
    return dict(read_body(ActionInputSerializer, request))


class ActionApi(APIView):
    InputSerializer = ActionInputSerializer

    @operation(
        {201: resolution_answer()},
        request=action_request(),
        refuses="the action or its `params` are another ruleset's, or the rules refuse "
        "them for this character (`detail`).",
        conflict="Conflict: `expected_version` is stale, a pending choice blocks the action "
        "(ruling G-3), the character cannot act (dead, incapacitated...), or the "
        "campaign is archived.",
        description="Resolve an action. `params` must match the action's JSON Schema from "
        "`GET rulesets/`: unknown params, wrong types and out-of-range numbers are a 400.",
    )
    def post(self, request: Request, character_id: int) -> Response:
        data = action_body(request)
        # The access check is made on the rows the action locks (no row read twice).
        resolution, access = resolution_create_action_checked(
            character_id=character_id,
            user=request.user,
            action=data["action"],
            params=data["params"],
            expected_version=data.get("expected_version"),
        )
        return Response(_view(resolution, access), status=status.HTTP_201_CREATED)


class OddsOutcomeSerializer(serializers.Serializer):
    key = serializers.CharField(
        help_text="stable, machine-readable: a state, a save's pass/fail, or a number"
    )
    probability = serializers.FloatField()
    fraction = serializers.CharField(help_text='the exact probability, e.g. "7/20"')

    def get_fields(self) -> dict[str, serializers.Field]:
        # declared here: a class attribute "label" would hide the serializer's own label
        fields = super().get_fields()
        return {
            "key": fields.pop("key"),
            "label": serializers.CharField(help_text="the outcome in words"),
            **fields,
        }


class OddsSerializer(serializers.Serializer):
    action = serializers.CharField()
    outcomes = OddsOutcomeSerializer(many=True, help_text="probabilities add up to exactly 1")
    notes = serializers.ListField(child=serializers.CharField())


class OddsApi(APIView):
    @operation(
        {200: OddsSerializer},
        request=action_request(),
        refuses="the action or its `params` are another ruleset's, the rules refuse them, "
        "or its odds are not computed yet (`detail`).",
        conflict="Conflict: the action would be refused (as `actions/`).",
        description="The exact odds of an action before it is taken, with the same body as "
        "`actions/`. Changes nothing, rolls nothing; 400 for bad params like the action.",
    )
    def post(self, request: Request, character_id: int) -> Response:
        access = access_character(request.user, character_id)
        data = read_body(ActionApi.InputSerializer, request)
        odds = action_odds(
            access=access,
            action=data["action"],
            params=data["params"],
        )
        return Response(OddsSerializer(odds.as_dict()).data)


class ChoiceApi(APIView):
    class InputSerializer(JsonSerializer):
        choice_id = serializers.CharField(max_length=64)
        option = serializers.CharField(max_length=64)

    @operation(
        {201: resolution_answer()},
        request=InputSerializer,
        refuses="`option` is not one of the pending choice's.",
        conflict="Conflict: `choice_id` is not the pending choice (stale or answered), or the "
        "campaign is archived.",
    )
    def post(self, request: Request, character_id: int) -> Response:
        access = access_character(request.user, character_id)
        data = read_body(self.InputSerializer, request)
        resolution = resolution_answer_choice(
            character_id=access.character.pk,
            actor=request.user,
            by_referee=access.is_referee,
            **data,
        )
        return Response(_view(resolution, access), status=status.HTTP_201_CREATED)


class ChoiceCancelApi(APIView):
    @operation(
        {201: resolution_answer()},
        conflict="No choice is pending, or the campaign is archived.",
        description="Referee only: cancel the character's pending choice (G-3); logged.",
    )
    def post(self, request: Request, character_id: int) -> Response:
        access = access_character(request.user, character_id, referee=True)
        resolution = resolution_cancel_choice(character_id=access.character.pk, actor=request.user)
        return Response(_view(resolution, access), status=status.HTTP_201_CREATED)


class UndoApi(APIView):
    class InputSerializer(JsonSerializer):
        to = JsonIntegerField(
            required=False,
            min_value=1,
            help_text="undo back to this entry of the log, itself included",
        )
        steps = JsonIntegerField(
            required=False, min_value=1, max_value=500, help_text="undo this many entries"
        )

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            if "to" in attrs and "steps" in attrs:
                raise serializers.ValidationError(gettext("give to or steps, not both"))
            return attrs

    @extend_schema(
        request=InputSerializer,
        responses={
            201: resolution_answer(),
            400: refused("`to` and `steps` are both given."),
            404: error_answer(
                404,
                "No such character (or not visible to you), or `to` is no entry of this "
                "character's log.",
            ),
            409: error_answer(
                409,
                "Conflict: nothing to undo, `to` is an entry no longer in force (already "
                "undone, an undo, the creation), or the campaign is archived.",
            ),
        },
        description="Referee only: undo the character's newest entry in force (no body), "
        "`steps` of them, or every entry back to `to` (included). Each step is an undo "
        "resolution of its own in the log (nothing deleted); the answer is the last one.",
    )
    def post(self, request: Request, character_id: int) -> Response:
        access = access_character(request.user, character_id, referee=True)
        data = read_body(self.InputSerializer, request)
        undos = resolution_undo(
            character_id=access.character.pk,
            actor=request.user,
            to=data.get("to"),
            steps=data.get("steps"),
        )
        return Response(_view(undos[-1], access), status=status.HTTP_201_CREATED)


class RedoApi(APIView):
    @operation(
        {201: resolution_answer()},
        conflict="Conflict: no undo to take back, something happened since, or the campaign is "
        "archived.",
        description="Referee only: take back the newest undo, a redo resolution in the log.",
    )
    def post(self, request: Request, character_id: int) -> Response:
        access = access_character(request.user, character_id, referee=True)
        resolution = resolution_redo(character_id=access.character.pk, actor=request.user)
        return Response(_view(resolution, access), status=status.HTTP_201_CREATED)


class ResolutionPageSerializer(serializers.Serializer):
    """One page of the log (``ResolutionPagination``'s envelope)."""

    count = serializers.IntegerField(help_text="resolutions in the whole log")
    next = serializers.URLField(allow_null=True, help_text="the next page, or null")
    previous = serializers.URLField(allow_null=True, help_text="the previous page, or null")
    results = resolution_answer(many=True, help_text="newest first")


class ResolutionListApi(APIView):
    query_parameters = {"GET": PageQuery}

    @extend_schema(responses={200: ResolutionPageSerializer})
    def get(self, request: Request, character_id: int) -> Response:
        access = access_character(request.user, character_id)
        return ResolutionPagination.answer(
            resolutions_for_character(access.character),
            request,
            self,
            lambda page: [_view(r, access) for r in page],
        )


class TableSerializer(serializers.Serializer):
    key = serializers.CharField()
    edited = serializers.BooleanField(help_text="false while the ruleset's default is used")

    def get_fields(self) -> dict[str, serializers.Field]:
        # declared here: a class attribute "data" would hide Serializer.data
        table = json_schema_field(table_data_schema(), name="TableDataField")
        return {**super().get_fields(), "data": table}


@campaign_rows(
    TableSerializer,
    "Referee only: the campaign's editable tables (critical injuries, diseases...), its own "
    "copy or the ruleset's default.",
    referee=True,
)
class CampaignTableListApi(CampaignRowsApi):
    def rows(self, membership: Membership) -> list[dict[str, Any]]:
        return campaign_tables_view(membership.campaign)


class CampaignTableDetailApi(APIView):
    """One editable table of the campaign; served at one path per table key
    (:func:`table_detail_view`), so each path's schema has that table's shape."""

    table_key = ""

    class InputSerializer(JsonSerializer):
        def get_fields(self) -> dict[str, serializers.Field]:
            # declared here: a class attribute "data" would hide Serializer.data
            return {"data": json_schema_field(table_data_schema(), name="TableDataField")}

    def _table(self, membership: Any, key: str) -> Any:
        for table in campaign_tables_view(membership.campaign):
            if table["key"] == key:
                return TableSerializer(table).data
        raise Http404("no such table in this campaign's ruleset")

    def get(self, request: Request, campaign_id: int, key: str) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        return Response(self._table(membership, key))

    def put(self, request: Request, campaign_id: int, key: str) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        self._table(membership, key)
        data = read_body(self.InputSerializer, request)
        campaign_table_set(campaign=membership.campaign, key=key, data=data["data"])
        return Response(self._table(membership, key))

    def delete(self, request: Request, campaign_id: int, key: str) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        self._table(membership, key)
        campaign_table_reset(campaign=membership.campaign, key=key)
        return Response(self._table(membership, key))


def table_detail_view(key: str) -> type[CampaignTableDetailApi]:
    """The view of table ``key``, its body and answer drawn in that table's shape (a
    body schema cannot see the path's key: one path per key, issue 27)."""
    shape = table_schema(key)
    name = pascal(key)
    body = serializer_class(
        f"{name}TableInput",
        f"The {key} table, whole.",
        {"data": json_schema_field(shape, name=f"{name}TableData")},
    )
    answer = serializer_class(
        f"{name}Table",
        f"The campaign's {key} table.",
        {
            "key": const_field(key),
            "edited": serializers.BooleanField(
                help_text="false while the ruleset's default is used"
            ),
            "data": json_schema_field(shape, name=f"{name}TableDataAnswer"),
        },
    )
    not_here = error_answer(404, "No such campaign, or its ruleset has no such table.")

    # methods of this class's own, each with its schema (the base's are shared)
    @extend_schema(
        responses={200: answer, 404: not_here},
        description=f"Referee only: the campaign's {key} table (its own or the default).",
    )
    def get(self: CampaignTableDetailApi, request: Request, campaign_id: int, key: str) -> Response:
        return CampaignTableDetailApi.get(self, request, campaign_id, key)

    @extend_schema(
        request=body,
        responses={
            200: answer,
            400: refused("the rows break a rule of the table the schema cannot say."),
            404: not_here,
        },
        description=f"Referee only: replace the campaign's {key} table.",
    )
    def put(self: CampaignTableDetailApi, request: Request, campaign_id: int, key: str) -> Response:
        return CampaignTableDetailApi.put(self, request, campaign_id, key)

    @extend_schema(
        request=None,
        responses={200: answer, 404: not_here},
        description=f"Referee only: put the ruleset's default {key} table back.",
    )
    def delete(
        self: CampaignTableDetailApi, request: Request, campaign_id: int, key: str
    ) -> Response:
        return CampaignTableDetailApi.delete(self, request, campaign_id, key)

    methods = {"table_key": key, "get": get, "put": put, "delete": delete}
    return type(f"{name}TableApi", (CampaignTableDetailApi,), methods)


class RevealApi(APIView):
    @extend_schema(
        request=None,
        responses={200: resolution_answer()},
        description="Referee only: show a resolution's hidden rolls to players (G-4).",
    )
    def post(self, request: Request, character_id: int, resolution_id: int) -> Response:
        access = access_character(request.user, character_id, referee=True)
        resolution = get_object_or_404(
            resolutions_for_character(access.character), pk=resolution_id
        )
        return Response(_view(resolution_reveal(resolution=resolution), access))


class ExportedRollSerializer(LabelledSerializer):
    expression = serializers.CharField(help_text='"4d6kl2", "1d20", or "shuffle(N)"')
    dice = serializers.ListField(child=serializers.IntegerField(), help_text="every die, in order")
    sizes = serializers.ListField(child=serializers.IntegerField(), help_text=SIZES_HELP)


class ExportedResolutionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    character = serializers.IntegerField()
    action = serializers.CharField()
    dice_counter_start = serializers.IntegerField()
    dice_counter_end = serializers.IntegerField()
    rolls = ExportedRollSerializer(many=True)
    withheld_rolls = serializers.IntegerField(help_text="rolls still hidden from this viewer")


class DiceExportApi(APIView):
    class OutputSerializer(serializers.Serializer):
        campaign = serializers.IntegerField()
        seeds = SeedPeriodSerializer(many=True)
        resolutions = ExportedResolutionSerializer(many=True, help_text="in counter order")

    @extend_schema(
        responses={200: OutputSerializer},
        description="The campaign's dice as this member may check them with "
        "scripts/verify_dice.py (docs/dice.md): the referee gets every roll, a player the "
        "rolls of their own characters that are not hidden from them.",
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id)
        return Response(self.OutputSerializer(dice_export(membership)).data)
