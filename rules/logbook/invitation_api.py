"""API of import invitations (issue 36, docs/api.md "Export and import: who plays what"):
the invited person lists theirs and accepts or declines each; the referee of an imported
campaign lists whom the import invited and what they answered."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.invitations import invitation_decline, invitations_for_user, invitations_of_campaign
from campaigns.models import InvitationState, Membership, PlayerInvitation
from campaigns.rows_api import CampaignRowsApi, campaign_rows
from core.openapi import error_answer, operation
from rules.logbook.invitations import invitation_accept, invitation_views

ANSWERED = error_answer(
    409,
    "The invitation was answered already, or its campaign is archived (nothing can "
    "change in it until the referee brings it back).",
)


class InvitedCampaignSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    ruleset = serializers.CharField()


class InvitedCharacterSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class InvitationSerializer(serializers.Serializer):
    """An import invitation as the invited person reads it."""

    id = serializers.IntegerField()
    campaign = InvitedCampaignSerializer()
    player = serializers.CharField(
        help_text="who the importer thinks you are: a player's name in the export"
    )
    invited_by = serializers.CharField(
        help_text="the importer, the campaign's referee (a username)"
    )
    characters = InvitedCharacterSerializer(
        many=True, help_text="the characters that become yours when you accept"
    )
    state = serializers.ChoiceField(choices=InvitationState.values)
    created_at = serializers.DateTimeField()
    answered_at = serializers.DateTimeField(allow_null=True)


class ImportInvitationSerializer(serializers.Serializer):
    """Whom an import invited, as its referee reads it."""

    id = serializers.IntegerField()
    player = serializers.CharField(help_text="the player's name in the export")
    username = serializers.CharField(help_text="whom you named here, as you wrote it")
    state = serializers.ChoiceField(
        choices=InvitationState.values,
        help_text="pending until the person answers: the same whether or not anyone has "
        "that username",
    )
    created_at = serializers.DateTimeField()
    answered_at = serializers.DateTimeField(allow_null=True)


class InvitationListApi(APIView):
    @extend_schema(
        responses={200: InvitationSerializer(many=True)},
        description="Your import invitations waiting for an answer, newest first: someone "
        "imported a campaign and named you as one of its players. Accept to join it and "
        "play those characters; until then nothing of it is yours.",
    )
    def get(self, request: Request) -> Response:
        views = invitation_views(list(invitations_for_user(request.user)))
        return Response(InvitationSerializer(views, many=True).data)


class _InvitationAnswerApi(APIView):
    """The invited person's answer, given by the subclass's ``answer`` (accept or decline):
    the invitation as it stands after it."""

    answer: ClassVar[Callable[..., PlayerInvitation]]

    def post(self, request: Request, invitation_id: int) -> Response:
        invitation = self.answer(user=request.user, invitation_id=invitation_id)
        return Response(InvitationSerializer(invitation_views([invitation])[0]).data)


def _answer_schema(description: str) -> Any:
    return extend_schema_view(
        post=operation({200: InvitationSerializer}, conflict=ANSWERED, description=description)
    )


@_answer_schema(
    "Accept: you join the campaign as a player, the characters the export says you played "
    "become yours (each handover logged as an edit of who plays it) and the entries you made "
    "show your name; all at once. 404 for anyone else's."
)
class InvitationAcceptApi(_InvitationAnswerApi):
    answer = staticmethod(invitation_accept)


@_answer_schema(
    "Decline: nothing changes; the characters stay the importer's and the entries keep the "
    "export's name. 404 for anyone else's."
)
class InvitationDeclineApi(_InvitationAnswerApi):
    answer = staticmethod(invitation_decline)


@campaign_rows(
    ImportInvitationSerializer,
    "Referee only: whom the import of this campaign invited to play its characters, oldest "
    "first, and what each answered.",
    referee=True,
)
class ImportInvitationListApi(CampaignRowsApi):
    def rows(self, membership: Membership) -> QuerySet[PlayerInvitation]:
        return invitations_of_campaign(membership.campaign)
