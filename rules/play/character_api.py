"""API for characters: the party list, creation and one sheet (API.md). Creation is the
character's first resolution, so these endpoints live with the play logic."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from drf_spectacular.utils import (
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.access import access_campaign
from characters.access import access_character
from characters.choices import public_choice
from characters.models import Character
from characters.selectors import party, public_sheet
from core.cleaning import MAX_ID, JsonSerializer, confirm_parameter, confirmation, read_body
from core.openapi import (
    ARCHIVED,
    ProxyMap,
    by_ruleset,
    operation,
    per_ruleset,
    sheet_component,
)
from core.query import QueryParameters
from rules.log.models import Resolution
from rules.play.editing import (
    character_correct,
    character_delete,
    character_level_up,
    character_owner_set,
    character_rename,
    character_retire,
)
from rules.play.services import character_create


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
    retired = serializers.BooleanField()


@cache
def _character_answers() -> ProxyMap:
    """One answer per ruleset: the character with its sheet in that ruleset's shape
    (a named component, ``HitDiceSheet``...), told apart by ``ruleset``."""
    return per_ruleset(
        "Character",
        CharacterOutputSerializer,
        lambda ruleset: {"sheet": sheet_component(ruleset)},
        "A {name} character.",
    )


def character_answer() -> PolymorphicProxySerializer:
    """A character as ``GET characters/{id}/`` answers it, typed by its ruleset."""
    return by_ruleset("Character", _character_answers())


class PartyMemberSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    owner = serializers.IntegerField()
    owner_name = serializers.CharField()
    ruleset = serializers.CharField(help_text="the campaign's: it says the sheet's shape")
    status = serializers.CharField()
    sheet = serializers.DictField(allow_null=True, help_text="null for other players' characters")
    version = serializers.IntegerField(allow_null=True)
    pending_choice = PendingChoiceSerializer(allow_null=True)


@cache
def _party_members() -> ProxyMap:
    """One party member per ruleset, its sheet in that ruleset's shape (``HitDiceSheet``)."""
    return per_ruleset(
        "PartyMember",
        PartyMemberSerializer,
        lambda ruleset: {
            "sheet": sheet_component(
                ruleset, allow_null=True, help_text="null for other players' characters"
            )
        },
        "A character of a {name} campaign's party.",
    )


def party_answer() -> PolymorphicProxySerializer:
    """``GET campaigns/{id}/characters/``: the party, each typed by the campaign's ruleset."""
    return by_ruleset("PartyMember", _party_members(), many=True)


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
            "retired": character.retired_at is not None,
        }
    ).data


class CampaignCharactersApi(APIView):
    class InputSerializer(JsonSerializer):
        name = serializers.CharField(max_length=120)
        owner = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID)
        sheet = serializers.DictField(required=False)

    @extend_schema(responses={200: party_answer()})
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
                    "ruleset": membership.campaign.ruleset,
                    "status": member.status,
                    "sheet": public_sheet(character) if visible else None,
                    "version": character.version if visible else None,
                    "pending_choice": public_choice(character.pending_choice) if visible else None,
                }
            )
        return Response(PartyMemberSerializer(rows, many=True).data)

    @operation(
        {201: character_answer()},
        request=InputSerializer,
        refuses="the sheet's fields break the ruleset's rules, or `owner` is not a member "
        "(or you are not the referee).",
        conflict=ARCHIVED,
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id)
        data = read_body(self.InputSerializer, request)
        character = character_create(
            membership=membership,
            name=data["name"],
            sheet=data.get("sheet"),
            owner_id=data.get("owner"),
        )
        character.campaign = membership.campaign
        return Response(character_output(character), status=status.HTTP_201_CREATED)


class CharacterEditResultSerializer(serializers.Serializer):
    character = CharacterOutputSerializer()
    resolution = serializers.IntegerField(help_text="the edit's entry in the log")


def _edited(character_id: int, request: Request, resolution_id: int) -> Response:
    access = access_character(request.user, character_id)
    body = {"character": character_output(access.character), "resolution": resolution_id}
    return Response(CharacterEditResultSerializer(body).data, status=status.HTTP_200_OK)


def _edit(
    request: Request,
    character_id: int,
    change: Callable[..., Resolution],
    body: type[serializers.Serializer[Any]] | None = None,
    *,
    referee: bool = False,
) -> Response:
    """The edit ``change`` (a rules.play.editing function) of the character, by the
    request's person (the referee's alone when ``referee``) with the fields of ``body``;
    answered as every edit is (:func:`_edited`)."""
    access = access_character(request.user, character_id, referee=referee)
    fields = read_body(body, request) if body else {}
    edit = change(character_id=access.character.pk, actor=request.user, **fields)
    return _edited(character_id, request, edit.pk)


class CharacterDetailApi(APIView):
    """The sheet (GET), rename (owner or referee), delete (referee, confirmed by the name)."""

    class DeleteQuery(QueryParameters):
        parameters = [confirm_parameter("The character's name")]

    query_parameters = {"DELETE": DeleteQuery}

    @extend_schema(responses={200: character_answer()})
    def get(self, request: Request, character_id: int) -> Response:
        access = access_character(request.user, character_id)
        return Response(character_output(access.character))

    class RenameSerializer(JsonSerializer):
        name = serializers.CharField(max_length=120)

    @operation(
        {200: CharacterEditResultSerializer},
        request=RenameSerializer,
        refuses="the name is blank once trimmed.",
        conflict="Conflict: the character already has that name, or the campaign is archived.",
        description="Rename the character (its owner or the referee); logged as an edit.",
    )
    def patch(self, request: Request, character_id: int) -> Response:
        return _edit(request, character_id, character_rename, self.RenameSerializer)

    @operation(
        {204: OpenApiResponse(description="deleted with its log")},
        refuses="`confirm` is not the character's name.",
        conflict=ARCHIVED,
        description="Referee only: delete the character with its log. `?confirm=` must be "
        "its name (400 otherwise).",
    )
    def delete(self, request: Request, character_id: int) -> Response:
        access = access_character(request.user, character_id, referee=True)
        character_delete(character_id=access.character.pk, confirm=confirmation(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class LevelUpApi(APIView):
    @operation(
        {200: CharacterEditResultSerializer},
        refuses="the ruleset has no levels (deckahedron, condition_monitor, warband), or "
        "the character is at its highest level (`detail`).",
        conflict="Conflict: a choice is pending, the character is retired, or the campaign is "
        "archived.",
        description="Referee only: one level more, as the ruleset says (hit_dice: a player "
        "character's hit dice follow the level; old_school: 1d6 + Constitution modifier "
        "wounds). 400 for a ruleset without levels or at the highest level.",
    )
    def post(self, request: Request, character_id: int) -> Response:
        return _edit(request, character_id, character_level_up, referee=True)


@extend_schema_field({"type": "object", "minProperties": 1, "additionalProperties": {}})
class ChangesField(serializers.DictField):
    """A correction's fields: at least one (the service says so in plain words, 400)."""


class CorrectApi(APIView):
    class InputSerializer(JsonSerializer):
        changes = ChangesField(help_text="sheet field -> its corrected value")
        reason = serializers.CharField(max_length=500)

    @operation(
        {200: CharacterEditResultSerializer},
        request=InputSerializer,
        refuses="the corrected sheet would break the ruleset's rules.",
        conflict=ARCHIVED,
        description="Referee only: set any sheet fields by hand, with a reason; the sheet "
        "must stay valid for the ruleset (400 otherwise). Logged as an edit.",
    )
    def post(self, request: Request, character_id: int) -> Response:
        return _edit(request, character_id, character_correct, self.InputSerializer, referee=True)


class RetireApi(APIView):
    class InputSerializer(JsonSerializer):
        retired = serializers.BooleanField(default=True)

    @operation(
        {200: CharacterEditResultSerializer},
        request=InputSerializer,
        conflict="Conflict: already retired, not retired, or the campaign is archived.",
        description="Retire the character (its owner or the referee), or bring it back "
        "with `retired: false`. A retired character takes no actions (409). Logged.",
    )
    def post(self, request: Request, character_id: int) -> Response:
        return _edit(request, character_id, character_retire, self.InputSerializer)


USERNAME_MAX = 150  # django.contrib.auth's


@extend_schema_field(
    {
        "anyOf": [
            {"type": "integer", "minimum": 1, "maximum": MAX_ID},
            {
                "type": "string",
                "minLength": 1,
                "maxLength": USERNAME_MAX,
                "pattern": "^[^\\u0000]*$",
            },
        ],
        "description": "who plays the character from now on: a member of the campaign (a "
        "player, or the referee), by user id or by username",
    }
)
class PlayerField(serializers.Field):
    """A user id (a JSON whole number) or a username (JSON text): told apart by type."""

    default_error_messages = {"invalid": "Must be a user id or a username."}

    def to_internal_value(self, data: Any) -> int | str:
        if isinstance(data, str) and 0 < len(data) <= USERNAME_MAX and "\x00" not in data:
            return data
        if isinstance(data, int) and not isinstance(data, bool) and 1 <= data <= MAX_ID:
            return data
        self.fail("invalid")
        raise AssertionError  # fail raises

    def to_representation(self, value: Any) -> Any:
        return value


class OwnerApi(APIView):
    class InputSerializer(JsonSerializer):
        owner = PlayerField()
        expected_version = serializers.IntegerField(
            required=False,
            min_value=0,
            max_value=MAX_ID,
            help_text="the character's version the change is meant for (409 if it moved on)",
        )

    @operation(
        {200: CharacterEditResultSerializer},
        request=InputSerializer,
        refuses="`owner` is not a member of the campaign.",
        conflict="Conflict: the character is already played by them, `expected_version` is "
        "not the character's, or the campaign is archived.",
        description='Referee only: change who plays the character ("Played by") to any '
        "member of the campaign, a player or the referee themself. Logged as an edit "
        "(`action` `owner`, `params.from` and `params.to`: id and username); undo puts "
        "the player before back, redo the one after (409 if that person left).",
    )
    def post(self, request: Request, character_id: int) -> Response:
        access_character(request.user, character_id, referee=True)  # 404, 403 before 400
        data = read_body(self.InputSerializer, request)
        edit = character_owner_set(
            character_id=character_id,
            actor=request.user,
            player=data["owner"],
            expected_version=data.get("expected_version"),
        )
        return _edited(character_id, request, edit.pk)
