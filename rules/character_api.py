"""API for characters: the party list, creation and one sheet (API.md). Creation is the
character's first resolution, so these endpoints live with the play logic."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.access import access_campaign
from characters.access import access_character
from characters.choices import public_choice
from characters.models import Character
from characters.selectors import party, public_sheet
from core.cleaning import MAX_ID
from rules.services import character_create


class ChoiceOptionSerializer(serializers.Serializer):
    key = serializers.CharField()
    confirm = serializers.CharField(
        required=False,
        help_text="Only on a lethal or irreversible option: the question to ask before it.",
    )

    def get_fields(self) -> dict[str, serializers.Field]:
        # declared here: a class attribute "label" would hide the serializer's own label
        return {**super().get_fields(), "label": serializers.CharField()}


class PendingChoiceSerializer(serializers.Serializer):
    id = serializers.CharField()
    kind = serializers.CharField()
    prompt = serializers.CharField()
    options = ChoiceOptionSerializer(many=True)
    who = serializers.ChoiceField(choices=["owner", "referee"])


class CharacterOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    campaign = serializers.IntegerField()
    owner = serializers.IntegerField()
    ruleset = serializers.CharField()
    status = serializers.CharField(help_text="one word for the party list")
    sheet = serializers.DictField(help_text="the sheet as the ruleset's schema describes it")
    version = serializers.IntegerField()
    pending_choice = PendingChoiceSerializer(allow_null=True)


class PartyMemberSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    owner = serializers.IntegerField()
    owner_name = serializers.CharField()
    status = serializers.CharField()
    sheet = serializers.DictField(allow_null=True, help_text="null for other players' characters")
    version = serializers.IntegerField(allow_null=True)
    pending_choice = PendingChoiceSerializer(allow_null=True)


def character_output(character: Character, status_word: str | None = None) -> Any:
    """A character as its owner or the referee sees it, through its output serializer."""
    from rules.engine.registry import get_ruleset

    ruleset = get_ruleset(character.campaign.ruleset)
    return CharacterOutputSerializer(
        {
            "id": character.pk,
            "name": character.name,
            "campaign": character.campaign_id,
            "owner": character.owner_id,
            "ruleset": character.campaign.ruleset,
            "status": status_word or ruleset.status(character.sheet),
            "sheet": public_sheet(character),
            "version": character.version,
            "pending_choice": public_choice(character.pending_choice),
        }
    ).data


class CampaignCharactersApi(APIView):
    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=120)
        owner = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID)
        sheet = serializers.DictField(required=False)

    @extend_schema(responses={200: PartyMemberSerializer(many=True)})
    def get(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id)
        rows = []
        for member in party(membership.campaign, viewer_id=membership.user_id):
            visible = member.is_own or membership.is_referee
            character = member.character
            character.campaign = membership.campaign  # avoid a query per row
            rows.append(
                {
                    "id": character.pk,
                    "name": character.name,
                    "owner": character.owner_id,
                    "owner_name": character.owner.get_username(),
                    "status": member.status,
                    "sheet": public_sheet(character) if visible else None,
                    "version": character.version if visible else None,
                    "pending_choice": public_choice(character.pending_choice) if visible else None,
                }
            )
        return Response(PartyMemberSerializer(rows, many=True).data)

    @extend_schema(request=InputSerializer, responses={201: CharacterOutputSerializer})
    def post(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        character = character_create(
            membership=membership,
            name=data.validated_data["name"],
            sheet=data.validated_data.get("sheet"),
            owner_id=data.validated_data.get("owner"),
        )
        character.campaign = membership.campaign
        return Response(character_output(character), status=status.HTTP_201_CREATED)


class CharacterDetailApi(APIView):
    @extend_schema(responses={200: CharacterOutputSerializer})
    def get(self, request: Request, character_id: int) -> Response:
        access = access_character(request.user, character_id)
        return Response(character_output(access.character))
