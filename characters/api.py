"""API for a campaign's people leaving (issue 13): thin over ``characters.services``,
since their characters change hands (the campaign's other endpoints are campaigns.api)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.access import access_campaign
from characters.services import campaign_leave, member_remove
from core.cleaning import valid_id
from core.openapi import operation


class MemberDetailApi(APIView):
    @operation(
        {204: OpenApiResponse(description="removed; their characters are the referee's")},
        conflict="Conflict: a referee, or not a member.",
        description="Referee only: remove a player from the campaign. Their characters "
        "stay, as the referee's.",
    )
    def delete(self, request: Request, campaign_id: int, user_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        member_remove(
            campaign_id=membership.campaign_id, user_id=valid_id(user_id), referee=request.user
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class LeaveApi(APIView):
    @operation(
        {204: OpenApiResponse(description="left; your characters are the referee's")},
        conflict="Conflict: the referee cannot leave.",
        description="A player leaves the campaign; their characters stay, as the "
        "referee's (the referee deletes the campaign instead).",
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id)
        campaign_leave(campaign_id=membership.campaign_id, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
