"""Import invitations (issue 36, docs/api.md "Export and import: who plays what").

Importing a campaign, its importer may name people here for the export's players. Nobody
is added to a campaign, given a character or shown as the author of an entry without
saying yes: each person named gets an invitation (listed on their home and account pages
and by ``GET invitations/``, e-mailed when they have an address) and accepts it or
declines it. Accepting moves characters and log entries, which this layer does not own:
``rules.logbook.invitations.invitation_accept`` does it. Declining is this module's.

Whether a username belongs to anyone is never told apart: an invitation is made for
every name the importer gives, bound to the account that has it (``user``) or to nobody,
and the importer sees the same either way.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import timedelta
from functools import partial
from typing import Any

from celery import shared_task
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import InterfaceError, OperationalError, transaction
from django.db.models import QuerySet
from django.http import Http404
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext

from campaigns.access import grant_of
from campaigns.models import Campaign, InvitationState, Membership, PlayerInvitation
from core.cleaning import valid_id
from core.errors import BROKER_ERRORS, NotAllowed, ResolutionConflict

logger = logging.getLogger(__name__)

# Mail goes to the email queue by its name (config/queues.py: "*.send_email").
SEND_INVITATION_TASK = "campaigns.invitations.send_email"
# At most one invitation mail a day from one importer to one person.
MAIL_EVERY = timedelta(days=1)


def invitations_create(
    *, membership: Membership, named: Mapping[str, str], characters: Mapping[str, list[int]]
) -> list[PlayerInvitation]:
    """Invite the people ``named`` (the export's player -> a username here) to play in
    ``membership``'s campaign the characters ``characters`` lists for each player (ids).

    Only the campaign's referee invites (:class:`NotAllowed` otherwise: the importer is
    the referee of the campaign the import makes, and this holds them to it). Each name
    gets an invitation whether or not someone has it; those with an e-mail address are
    mailed once the caller's transaction commits, in the language of the request the
    referee invited from (the active one)."""
    if not membership.is_referee:
        raise NotAllowed(
            gettext("only the campaign's referee may invite people to play its characters")
        )
    wanted = {username.strip() for username in named.values()}
    accounts = {
        account.get_username(): account
        for account in get_user_model().objects.filter(username__in=wanted)
    }
    made = PlayerInvitation.objects.bulk_create(
        PlayerInvitation(
            campaign=membership.campaign,
            player=player,
            username=username.strip(),
            user=accounts.get(username.strip()),
            invited_by=membership.user,
            characters=sorted(characters.get(player, [])),
        )
        for player, username in named.items()
    )
    language = translation.get_language() or ""
    for invitation in made:
        if invitation.user is not None and invitation.user.email:
            transaction.on_commit(partial(_mail_after_commit, invitation.pk, language))
    return made


def invitations_for_user(user: Any) -> QuerySet[PlayerInvitation]:
    """The invitations waiting for the user's answer, newest first; a token limited to
    one campaign sees only that campaign's (campaigns.access)."""
    invitations = PlayerInvitation.objects.filter(user=user, state=InvitationState.PENDING)
    grant = grant_of(user)
    if grant is not None and grant.campaign_id is not None:
        invitations = invitations.filter(campaign_id=grant.campaign_id)
    return invitations.select_related("campaign", "invited_by")


def invitation_for_user(user: Any, invitation_id: int | str) -> PlayerInvitation:
    """One of the user's invitations, answered or not; 404 for anyone else's (whose
    existence is not told) and for a bad id."""
    try:
        number = valid_id(invitation_id)
    except (ValueError, TypeError):
        raise Http404(gettext("no such invitation")) from None
    invitation = (
        PlayerInvitation.objects.filter(pk=number, user=user)
        .select_related("campaign", "invited_by")
        .first()
    )
    grant = grant_of(user)
    if invitation is None or (
        grant is not None and grant.campaign_id not in (None, invitation.campaign_id)
    ):
        raise Http404(gettext("no such invitation"))
    return invitation


def invitations_of_campaign(campaign: Campaign) -> QuerySet[PlayerInvitation]:
    """Everyone the campaign's importer invited, oldest first (the referee's list)."""
    return PlayerInvitation.objects.filter(campaign=campaign).order_by("created_at", "id")


def refuse_answered(invitation: PlayerInvitation) -> None:
    """409 for an invitation already accepted or declined."""
    if invitation.state != InvitationState.PENDING:
        if invitation.state == InvitationState.ACCEPTED:
            text = gettext("You have already accepted this invitation to %(campaign)s.")
        else:
            text = gettext("You have already declined this invitation to %(campaign)s.")
        raise ResolutionConflict(text % {"campaign": invitation.campaign.name})


def invitation_decline(*, user: Any, invitation_id: int | str) -> PlayerInvitation:
    """The person says no: nothing of the campaign changes (the characters stay the
    importer's, the entries keep the export's name). 404 for another's invitation, 409
    once answered; by compare-and-set, so an accept racing it wins or loses whole."""
    invitation = invitation_for_user(user, invitation_id)
    refuse_answered(invitation)
    now = timezone.now()
    declined = PlayerInvitation.objects.filter(
        pk=invitation.pk, state=InvitationState.PENDING
    ).update(state=InvitationState.DECLINED, answered_at=now)
    if not declined:
        invitation.refresh_from_db()
        refuse_answered(invitation)
    invitation.state, invitation.answered_at = InvitationState.DECLINED, now
    return invitation


# -- the e-mail -----------------------------------------------------------------------------
def _mail_after_commit(invitation_id: int, language: str) -> None:
    """Send the mail's task; never raises (the import is committed whatever the broker
    does: the invitation is on the person's pages all the same)."""
    try:
        send_invitation_email.delay(invitation_id, language)
    except BROKER_ERRORS as error:
        logger.warning(
            "invitation %s: its e-mail task could not be sent (%s)", invitation_id, error
        )


def _home_url() -> str:
    path = reverse("home") + "#invitations"
    site = str(getattr(settings, "SAWBONES_SITE_URL", "") or "").rstrip("/")
    return f"{site}{path}"


def _mail_language(language: str) -> str:
    """``language`` if the site speaks it, else English (``LANGUAGE_CODE``)."""
    if language in dict(settings.LANGUAGES):
        return language
    return str(settings.LANGUAGE_CODE)


def invitation_mail_send(*, invitation_id: int, language: str = "") -> bool:
    """E-mail the invited person, once: ``emailed_at`` is claimed by compare-and-set
    before sending and put back if the mail fails (the task's retry sends it); and not
    when the same importer mailed them in the last day (the invitation waits on their
    pages all the same). Written in ``language`` (the referee's page or request when
    they imported; English when none is given). True when a mail went out."""
    invitation = (
        PlayerInvitation.objects.select_related("user", "campaign", "invited_by")
        .filter(pk=invitation_id, state=InvitationState.PENDING, emailed_at__isnull=True)
        .first()
    )
    if invitation is None or invitation.user is None or not invitation.user.email:
        return False
    now = timezone.now()
    mailed_lately = PlayerInvitation.objects.filter(
        user=invitation.user,
        invited_by=invitation.invited_by,
        emailed_at__gt=now - MAIL_EVERY,
    ).exclude(pk=invitation.pk)
    if mailed_lately.exists():
        return False  # one mail a day from one importer: imports again are no mail flood
    claimed = PlayerInvitation.objects.filter(pk=invitation.pk, emailed_at__isnull=True)
    if not claimed.update(emailed_at=now):
        return False  # another task sent it
    with translation.override(_mail_language(language)):
        body = render_to_string(
            "campaigns/invitation_email.txt", {"invitation": invitation, "url": _home_url()}
        )
        subject = gettext("%(importer)s invites you to play in %(campaign)s") % {
            "importer": invitation.invited_by.get_username(),
            "campaign": invitation.campaign.name,
        }
    try:
        send_mail(
            subject,
            body,
            None,
            [invitation.user.email],
        )
    except Exception:
        PlayerInvitation.objects.filter(pk=invitation.pk, emailed_at=now).update(emailed_at=None)
        logger.exception("invitation %s: e-mail not sent; the task's retry sends it", invitation_id)
        raise
    return True


@shared_task(
    name=SEND_INVITATION_TASK,
    acks_late=True,
    autoretry_for=(OSError, OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=5,
)
def send_invitation_email(invitation_id: int, language: str = "") -> bool:
    """The invitation's one e-mail (:func:`invitation_mail_send`), in ``language`` (a
    task queued before it was given is sent in English)."""
    return invitation_mail_send(invitation_id=invitation_id, language=language)
