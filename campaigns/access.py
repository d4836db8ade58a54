"""Who may see and do what in a campaign: decided here and nowhere else.

Outsiders get 404 (``Http404``), never a hint that the campaign exists.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404

from campaigns.models import Membership
from core.cleaning import valid_id
from core.errors import NotAllowed


def access_campaign(user: Any, campaign_id: int | str, *, referee: bool = False) -> Membership:
    """The user's membership of the campaign; 404 for outsiders.

    With ``referee=True`` a player gets :class:`NotAllowed` (403): they can see the
    campaign, so hiding it would be a lie.
    """
    if not getattr(user, "is_authenticated", False):
        raise Http404("no such campaign")
    try:
        membership = Membership.objects.select_related("campaign").get(
            campaign_id=valid_id(campaign_id), user=user
        )
    except (Membership.DoesNotExist, ValueError, TypeError):
        raise Http404("no such campaign") from None
    if referee and not membership.is_referee:
        raise NotAllowed("only the campaign's referee may do this")
    return membership
