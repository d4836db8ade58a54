"""Editing a campaign's people and the campaign itself (issue 13): a referee removes a
player, a player leaves (their characters stay, as the referee's), the referee deletes
the campaign confirmed by its name. Invite codes are in ``campaigns.editing``. Every
write locks the campaign row first, the lock order of rules/play/services.py.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from campaigns.models import Campaign, Membership, Role
from characters.models import Character
from core.errors import ResolutionConflict
from rules.log.models import Resolution


def _lock(campaign_id: int) -> Campaign:
    return Campaign.objects.select_for_update().get(pk=campaign_id)


def _hand_over(campaign: Campaign, user_id: int, referee: Any) -> int:
    """The leaving player's characters stay in the campaign as the referee's (NPCs)."""
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
    with transaction.atomic():
        campaign = _lock(campaign_id)
        if (confirm or "").strip() != campaign.name:
            raise ValidationError({"confirm": ["type the campaign's name to delete it"]})
        # An undo protects the entry it undid; the whole log goes, so untie them first.
        Resolution.objects.filter(campaign=campaign, undoes__isnull=False).update(undoes=None)
        campaign.delete()
