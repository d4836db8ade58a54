"""API for party actions (rules.play.party): thin."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.access import access_campaign
from core.cleaning import MAX_ID, JsonSerializer, read_body
from core.openapi import operation
from rules.engine.registry import all_rulesets
from rules.log.selectors import resolution_view
from rules.play.api import resolution_answer, resolution_data
from rules.play.party import MAX_PARTY, party_action


class SkippedSerializer(serializers.Serializer):
    character = serializers.IntegerField()
    name = serializers.CharField()
    reason = serializers.CharField(help_text="why this character did not act")


class PartyOutcomeSerializer(serializers.Serializer):
    batch = serializers.UUIDField(help_text="shared by every resolution of this party action")
    # for the schema each typed by its ruleset (resolution_answer); the answer is made
    # with ResolutionSerializer (resolution_data)
    resolutions = resolution_answer(many=True, help_text="one per character, in id order")
    skipped = SkippedSerializer(many=True)
    clock_job = serializers.IntegerField(
        allow_null=True,
        help_text="the clock job moving the clock once by the longest time; null when the "
        "clock stays or moved at once (nothing fell due in that time)",
    )


@extend_schema_field(
    {
        "type": "string",
        "enum": sorted({spec.key for ruleset in all_rulesets() for spec in ruleset.actions}),
        "description": "an action of the campaign's ruleset (another ruleset's is a 400)",
    }
)
class ActionNameField(serializers.CharField):
    """An action's key: one of the registered rulesets' actions, as the schema lists them;
    whether the campaign's ruleset has it is the party action's to say (a 400 naming it)."""


class PartyActionApi(APIView):
    class InputSerializer(JsonSerializer):
        action = ActionNameField(max_length=64)
        params = serializers.DictField(required=False, default=dict)
        characters = serializers.ListField(
            child=serializers.IntegerField(min_value=1, max_value=MAX_ID),
            required=False,
            max_length=MAX_PARTY,
            help_text="the characters who act; all of the campaign's (not retired) if left out",
        )

    @operation(
        {201: PartyOutcomeSerializer},
        request=InputSerializer,
        refuses="the action is not one of the campaign's ruleset, or its params.",
        conflict="Conflict: no character could take the action.",
        description="Referee only: one action with one set of params for many characters. "
        "Each character's resolution is its own log entry, all sharing one `batch` id; a "
        "character waiting on a choice or refused by the rules is listed in `skipped` and "
        "the others act. The clock moves once, by the longest time the action took.",
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        data = read_body(self.InputSerializer, request)
        outcome = party_action(
            campaign_id=membership.campaign_id,
            actor=request.user,
            action=data["action"],
            params=data["params"],
            character_ids=data.get("characters"),
        )
        ruleset = membership.campaign.ruleset
        views = [
            resolution_view(r, ruleset_key=ruleset, viewer_is_referee=True)
            for r in outcome.resolutions
        ]
        body: dict[str, Any] = {
            "batch": str(outcome.batch),
            "resolutions": [resolution_data(view) for view in views],
            "skipped": SkippedSerializer(outcome.skipped, many=True).data,
            "clock_job": outcome.clock_job.pk if outcome.clock_job else None,
        }
        return Response(body, status=status.HTTP_201_CREATED)
