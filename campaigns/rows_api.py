"""A campaign's list endpoints, one view for all: read the campaign through
``access_campaign`` (the referee's alone where the list is), list its rows, answer them as
the list's serializer writes them. Each list says only its rows, its serializer and its
schema's description (:func:`campaign_rows`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar, TypeVar

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.access import access_campaign
from campaigns.models import Membership


class CampaignRowsApi(APIView):
    serializer: ClassVar[type[serializers.Serializer[Any]]]
    referee_only: ClassVar[bool] = False

    def rows(self, membership: Membership) -> Iterable[Any]:
        """What the list shows of the campaign (``membership.campaign``), in order."""
        raise NotImplementedError

    def get(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=self.referee_only)
        return Response(self.serializer(self.rows(membership), many=True).data)


ListView = TypeVar("ListView", bound=type[CampaignRowsApi])


def campaign_rows(
    serializer: type[serializers.Serializer[Any]], description: str, *, referee: bool = False
) -> Callable[[ListView], ListView]:
    """A :class:`CampaignRowsApi` answering its rows as ``serializer`` writes them, to the
    referee alone when ``referee``; its GET so described in the schema."""

    def made(view: ListView) -> ListView:
        view.serializer = serializer
        view.referee_only = referee
        schema = extend_schema(responses={200: serializer(many=True)}, description=description)
        listed: ListView = extend_schema_view(get=schema)(view)
        return listed

    return made
