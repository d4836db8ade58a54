"""The invited person's answer to an import invitation, from their home or account page
(issue 36; campaigns.invitations, rules.logbook.invitations)."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaigns.invitations import invitation_decline
from campaigns.models import PlayerInvitation
from core.errors import ResolutionConflict
from rules.logbook.invitations import invitation_accept


@login_required
@require_POST
def invitation_accept_page(request: HttpRequest, invitation_id: int) -> HttpResponse:
    invitation = _answered(request, invitation_accept, invitation_id)
    if invitation is None:
        return redirect("home")
    messages.success(
        request,
        _(
            "You play in %(campaign)s now: the characters %(player)s played there are yours, "
            "and the entries they made show your name."
        )
        % {"campaign": invitation.campaign.name, "player": invitation.player},
    )
    return redirect("campaign", campaign_id=invitation.campaign_id)


@login_required
@require_POST
def invitation_decline_page(request: HttpRequest, invitation_id: int) -> HttpResponse:
    invitation = _answered(request, invitation_decline, invitation_id)
    if invitation is None:
        return redirect("home")
    messages.success(
        request,
        _("You declined the invitation to %(campaign)s: nothing changed.")
        % {"campaign": invitation.campaign.name},
    )
    return redirect("home")


def _answered(
    request: HttpRequest, answer: Callable[..., PlayerInvitation], invitation_id: int
) -> PlayerInvitation | None:
    """The invitation ``answer`` (accept or decline) answered, or None once the page says
    why it could not be."""
    try:
        return answer(user=request.user, invitation_id=invitation_id)
    except ResolutionConflict as refused:
        messages.error(request, str(refused))
        return None
