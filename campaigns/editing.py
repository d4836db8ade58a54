"""Editing a campaign after creation (issue 13): members, invites, deletion.

Rename and options are ``campaigns.services.campaign_update``. Here: a referee removes a
player, a player leaves, the referee revokes invite codes (which may expire or be single
use) and deletes the campaign, confirmed by its name. Every write locks the campaign row
first, the lock order of rules/services.py.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from campaigns.models import Campaign, Invite, Membership, Role
from core.errors import ResolutionConflict


def _lock(campaign_id: int) -> Campaign:
    return Campaign.objects.select_for_update().get(pk=campaign_id)


def _hand_over(campaign: Campaign, user_id: int, referee: Any) -> int:
    """The leaving player's characters stay in the campaign as the referee's (NPCs)."""
    from characters.models import Character  # characters imports campaigns

    return Character.objects.filter(campaign=campaign, owner_id=user_id).update(owner=referee)


def member_remove(*, campaign_id: int, user_id: int, referee: Any) -> None:
    """The referee removes a player; their characters become the referee's."""
    with transaction.atomic():
        campaign = _lock(campaign_id)
        membership = Membership.objects.filter(campaign=campaign, user_id=user_id).first()
        if membership is None:
            raise ResolutionConflict("that person is not a member of the campaign")
        if membership.role == Role.REFEREE:
            raise ResolutionConflict("a referee cannot be removed from their campaign")
        _hand_over(campaign, user_id, referee)
        membership.delete()


def campaign_leave(*, campaign_id: int, user: Any) -> None:
    """A player leaves; their characters stay, as the referee's."""
    with transaction.atomic():
        campaign = _lock(campaign_id)
        membership = Membership.objects.get(campaign=campaign, user=user)
        if membership.role == Role.REFEREE:
            raise ResolutionConflict("the referee cannot leave their campaign: delete it instead")
        referee = (
            Membership.objects.filter(campaign=campaign, role=Role.REFEREE)
            .select_related("user")
            .order_by("id")
            .first()
        )
        owner = referee.user if referee is not None else campaign.created_by
        _hand_over(campaign, user.pk, owner)
        membership.delete()


def campaign_delete(*, campaign_id: int, confirm: str) -> None:
    """Delete the campaign with everything in it, confirmed by typing its name."""
    from rules.models import Resolution  # rules imports campaigns

    with transaction.atomic():
        campaign = _lock(campaign_id)
        if (confirm or "").strip() != campaign.name:
            raise ValidationError({"confirm": ["type the campaign's name to delete it"]})
        # An undo protects the entry it undid; the whole log goes, so untie them first.
        Resolution.objects.filter(campaign=campaign, undoes__isnull=False).update(undoes=None)
        campaign.delete()


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
