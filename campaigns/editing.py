"""A campaign's invite codes after creation (issue 13): listed, revoked, expiring,
single use. Rename and options are ``campaigns.services.campaign_update``; removing a
player, leaving and deleting the campaign touch characters and logs, so they are in
``rules.play.campaign_editing``. Every write locks the campaign row first (rules/play/services.py).
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from campaigns.models import Campaign, Invite, Membership
from core.errors import ResolutionConflict


def _lock(campaign_id: int) -> Campaign:
    return Campaign.objects.select_for_update().get(pk=campaign_id)


def invite_usable(invite: Invite) -> str | None:
    """Why the code joins nobody now, or None."""
    if invite.revoked_at is not None:
        return "This invite link was revoked. Ask your referee for a new one."
    if invite.expires_at is not None and invite.expires_at <= timezone.now():
        return "This invite link has expired. Ask your referee for a new one."
    if invite.single_use and invite.uses >= 1:
        return "This invite link was for one person and has been used."
    return None


def invite_revoke(*, campaign_id: int, invite_id: int) -> Invite:
    """Revoke an invite code (compare-and-set: revoked once)."""
    with transaction.atomic():
        _lock(campaign_id)
        invite = Invite.objects.filter(campaign_id=campaign_id, pk=invite_id).first()
        if invite is None:
            raise Invite.DoesNotExist("no such invite")
        changed = Invite.objects.filter(pk=invite.pk, revoked_at__isnull=True).update(
            revoked_at=timezone.now()
        )
        if not changed:
            raise ResolutionConflict("this invite link is already revoked")
        invite.refresh_from_db()
        return invite


def invites_of(campaign: Campaign) -> list[Invite]:
    return list(Invite.objects.filter(campaign=campaign).order_by("-id"))


def members_of(campaign: Campaign) -> list[Membership]:
    """The campaign's people, the referee first, with their users."""
    return list(campaign.memberships.select_related("user").order_by("-role", "id"))
