"""The referee's pages: the membership that lets a person open one, or a 403 in words."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest

from campaigns.access import access_campaign
from campaigns.models import Membership
from core.errors import NotAllowed


def referee_membership(request: HttpRequest, campaign_id: int) -> Membership:
    """The referee's membership of the campaign (a 404 for an outsider, from the access
    function); a player is refused with the reason (403)."""
    try:
        return access_campaign(request.user, campaign_id, referee=True)
    except NotAllowed as error:
        raise PermissionDenied(str(error)) from None
