"""Who may see and do what in a campaign: decided here and nowhere else.

Outsiders get 404 (``Http404``), never a hint that the campaign exists.

API tokens (``accounts.models.ApiToken``) narrow what their user may do, and that too
is decided here: the token's authentication attaches a :class:`Grant` to the user of
the request, and every access function reads it.

* ``read``: GET only (:class:`TokenScopePermission`), with all the user may see;
* ``player``: what the user may do as a player; in a campaign they referee the token
  acts as a player would (their own characters, the party list, no referee powers);
* ``referee``: all the user may do;
* a token limited to one campaign reaches nothing else: other campaigns and their
  characters answer 404 as to an outsider, and it may not create or join campaigns.
Only a signed-in person or an unlimited ``referee`` token may manage tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db import models
from django.http import Http404
from django.utils.translation import gettext, gettext_lazy
from rest_framework.permissions import SAFE_METHODS, BasePermission

from campaigns.models import Campaign, Membership, Role
from campaigns.selectors import memberships_for_user
from core.cleaning import valid_id
from core.errors import NotAllowed, ResolutionConflict

if TYPE_CHECKING:  # the API settings import this module's permission: no cycle at run time
    from django_stubs_ext import StrPromise
    from rest_framework.request import Request
    from rest_framework.views import APIView


class TokenScope(models.TextChoices):
    READ = "read", gettext_lazy("Read only")
    PLAYER = "player", gettext_lazy("As a player")
    REFEREE = "referee", gettext_lazy("Everything I may do")


@dataclass(frozen=True)
class Grant:
    """What the credential of a request allows: attached to its user by the token's
    authentication (``accounts.authentication``); a session carries none."""

    scope: str
    campaign_id: int | None = None


_GRANT = "sawbones_grant"


def attach_grant(user: Any, grant: Grant) -> None:
    """Mark ``user`` (this request's own instance) as acting through a token."""
    setattr(user, _GRANT, grant)


def grant_of(user: Any) -> Grant | None:
    return getattr(user, _GRANT, None)


def outside_grant(user: Any, campaign_id: int) -> bool:
    """The request's token is limited to another campaign: this one is out of reach."""
    grant = grant_of(user)
    return grant is not None and grant.campaign_id not in (None, campaign_id)


def as_granted(membership: Membership, user: Any) -> Membership:
    """The membership as the request's credential may use it: a ``player`` token of
    the referee acts as a player. The instance is this request's own and never saved."""
    grant = grant_of(user)
    if grant is not None and grant.scope == TokenScope.PLAYER and membership.is_referee:
        membership.role = Role.PLAYER
    return membership


def token_refusal(grant: Grant | None, *, method: str, campaign_bound: bool) -> str | None:
    """Why the credential may not send this request at all, or None."""
    if grant is None:
        return None
    if grant.scope == TokenScope.READ and method not in SAFE_METHODS:
        return gettext("this token may only read")
    if grant.campaign_id is not None and not campaign_bound and method not in SAFE_METHODS:
        return gettext("this token is limited to one campaign")
    return None


class TokenScopePermission(BasePermission):
    """The method-level half of a token's scope, for every API view (403)."""

    message: str | StrPromise = gettext_lazy("this token may not do this")

    def has_permission(self, request: Request, view: APIView) -> bool:
        kwargs = getattr(view, "kwargs", {}) or {}
        refusal = token_refusal(
            grant_of(request.user),
            method=request.method or "GET",
            campaign_bound="campaign_id" in kwargs or "character_id" in kwargs,
        )
        if refusal is not None:
            self.message = refusal
        return refusal is None


def may_manage_tokens(user: Any) -> None:
    """Tokens are made and revoked by the person (session) or a full-power token."""
    grant = grant_of(user)
    if grant is not None and (grant.scope != TokenScope.REFEREE or grant.campaign_id):
        raise NotAllowed(
            gettext("only a signed-in person or an unlimited referee token may do this")
        )


def may_import(user: Any) -> None:
    """Importing makes a campaign the importer referees and invites people to it (issue
    36): a signed-in person or a ``referee`` token (403 for a ``player`` one; a ``read``
    or one-campaign token is refused before, by :class:`TokenScopePermission`)."""
    grant = grant_of(user)
    if grant is not None and grant.scope != TokenScope.REFEREE:
        raise NotAllowed(gettext("importing a campaign needs a token with the referee scope"))


def visible_memberships(user: Any) -> list[Membership]:
    """The user's memberships that the request's credential reaches."""
    grant = grant_of(user)
    memberships = memberships_for_user(user)
    if grant is not None and grant.campaign_id is not None:
        memberships = memberships.filter(campaign_id=grant.campaign_id)
    return [as_granted(membership, user) for membership in memberships]


def access_campaign(user: Any, campaign_id: int | str, *, referee: bool = False) -> Membership:
    """The user's membership of the campaign; 404 for outsiders.

    With ``referee=True`` a player gets :class:`NotAllowed` (403): they can see the
    campaign, so hiding it would be a lie.
    """
    if not getattr(user, "is_authenticated", False):
        raise Http404(gettext("no such campaign"))
    try:
        number = valid_id(campaign_id)
        if outside_grant(user, number):
            raise Membership.DoesNotExist
        membership = Membership.objects.select_related("campaign").get(
            campaign_id=number, user=user
        )
    except (Membership.DoesNotExist, ValueError, TypeError):
        raise Http404(gettext("no such campaign")) from None
    membership = as_granted(membership, user)
    if referee and not membership.is_referee:
        raise NotAllowed(gettext("only the campaign's referee may do this"))
    return membership


def refuse_archived(campaign: Campaign) -> None:
    """Nobody plays in an archived campaign: actions, choices, new characters, battles and
    clock advances answer 409 (reads still work). Call it on the campaign row as locked."""
    if campaign.archived_at is not None:
        raise ResolutionConflict(
            gettext(
                "The campaign %(campaign)s is archived: nothing can happen in it until the "
                "referee brings it back."
            )
            % {"campaign": campaign.name}
        )
