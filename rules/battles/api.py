"""API of warband battles (API.md "Additions promised next", rulings WB-3, WB-6).

``campaigns/{id}/battle/`` (GET, POST), ``battle/next/`` and ``battle/end/`` (POST).
Warband campaigns only: other campaigns answer 404, as does a campaign with no battle
under way. Writes are the referee's. Thin views: access and writes in ``rules.battles``.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.models import Membership
from core.cleaning import JsonSerializer, read_body
from core.openapi import ARCHIVED, operation
from rules.battles.models import Battle
from rules.battles.selectors import NO_BATTLE, access_battles, battle_view, running_battle
from rules.battles.services import (
    MAX_WARBANDS,
    MIN_WARBANDS,
    battle_advance,
    battle_begin,
    battle_finish,
)


class BattleUnitSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="the unit's character id")
    name = serializers.CharField()
    owner = serializers.IntegerField()
    injury = serializers.ChoiceField(
        choices=["none", "staggered", "dazed", "stunned", "incapacitated"]
    )
    wounds = serializers.IntegerField(
        allow_null=True, help_text="null on another player's unit: players see its state only"
    )
    max_wounds = serializers.IntegerField(allow_null=True)


class BattleWarbandSerializer(serializers.Serializer):
    name = serializers.CharField()
    units = serializers.IntegerField(help_text="how many units the warband has")
    incapacitated = serializers.IntegerField(help_text="how many of them are incapacitated")
    rout_threshold = serializers.IntegerField(
        help_text="incapacitated units at which rout checks are due (WB-6)"
    )
    rout_checks_due = serializers.BooleanField()
    members = BattleUnitSerializer(many=True, help_text="the units, in id order")


class BattleSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    turn = serializers.IntegerField(help_text="from 1; battles count turns, not minutes (G-1)")
    active = serializers.CharField(help_text="the name of the warband whose turn it is")
    active_index = serializers.IntegerField(help_text="its index in `warbands`")
    phase = serializers.CharField(help_text="the current phase, one of `phases`")
    phases = serializers.ListField(
        child=serializers.CharField(), help_text="the campaign's phases, upkeep to end"
    )
    warbands = BattleWarbandSerializer(many=True, help_text="in turn order")
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)


class ScarsDueSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    warband = serializers.CharField()


class BattleEndSerializer(BattleSerializer):
    scars_due = ScarsDueSerializer(
        many=True, help_text="the incapacitated units, each due a roll on the Scars table"
    )


def _answer(battle: Battle, membership: Membership, **extra: Any) -> dict[str, Any]:
    battle.refresh_from_db()
    return {**battle_view(battle, membership), **extra}


class BattleApi(APIView):
    class InputSerializer(JsonSerializer):
        warbands = serializers.ListField(
            child=serializers.CharField(max_length=60),
            min_length=MIN_WARBANDS,
            max_length=MAX_WARBANDS,
            help_text="the warbands' names, in turn order; each must have a unit",
        )

    @extend_schema(
        responses={200: BattleSerializer},
        description="The battle under way: turn, active warband, phase, and each warband's "
        "units and rout threshold. 404 when none runs or the campaign is not a warband one.",
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        membership = access_battles(request.user, campaign_id)
        battle = running_battle(membership.campaign)
        if battle is None:
            raise Http404(NO_BATTLE)
        return Response(BattleSerializer(battle_view(battle, membership)).data)

    @operation(
        {201: BattleSerializer},
        request=InputSerializer,
        refuses="a warband has no unit in the campaign, or a name appears twice.",
        conflict="Conflict: a battle is already under way in the campaign.",
        description="Referee only: start a battle. Turn 1, the first warband active, in its "
        "upkeep. 409 when a battle is already under way.",
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        membership = access_battles(request.user, campaign_id, referee=True)
        battle = battle_begin(
            campaign_id=membership.campaign_id,
            actor=request.user,
            **read_body(self.InputSerializer, request),  # warbands
        )
        return Response(
            BattleSerializer(_answer(battle, membership)).data, status=status.HTTP_201_CREATED
        )


class BattleNextApi(APIView):
    @operation(
        {200: BattleSerializer},
        conflict=ARCHIVED,
        description="Referee only: the next phase. After the active warband's last phase "
        "comes the next warband's upkeep; after the last warband, the next turn. Entering a "
        "warband's upkeep recovers its stunned and dazed units one step, leaving its end "
        "phase its staggered ones (WB-3); each recovery is a resolution of that unit.",
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        membership = access_battles(request.user, campaign_id, referee=True)
        battle = battle_advance(campaign_id=membership.campaign_id, actor=request.user)
        return Response(BattleSerializer(_answer(battle, membership)).data)


class BattleEndApi(APIView):
    @operation(
        {200: BattleEndSerializer},
        conflict=ARCHIVED,
        description="Referee only: the battle is over. Answers its last state and the "
        "incapacitated units, each due a roll on the Scars table (WB-6).",
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        membership = access_battles(request.user, campaign_id, referee=True)
        battle, due = battle_finish(campaign_id=membership.campaign_id)
        return Response(BattleEndSerializer(_answer(battle, membership, scars_due=due)).data)
