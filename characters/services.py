"""Writes of character rows (issue 35): a new character's row, its name, retirement and
player, and a leaving member's characters handed over. A change to a sheet, and the log
entry every one of these writes beside it, are the play's (``rules.play.services``,
``rules.play.editing``), which calls these under its locks. A member removed or leaving
is here too: their characters change hands in the same transaction.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from campaigns.models import Campaign, Membership, Role
from campaigns.services import campaign_lock
from characters.models import Character
from core.cleaning import reject_nul_characters
from core.errors import ResolutionConflict


def character_new(*, membership: Membership, name: str, owner_id: int | None) -> tuple[Any, str]:
    """Who owns a character the member creates, and its name, checked before anything is
    locked: a player creates their own; the referee may name any member (their own id
    for NPCs)."""
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": [gettext("a character needs a name")]})
    user = membership.user
    if owner_id is None or owner_id == user.pk:
        return user, name
    if not membership.is_referee:
        raise ValidationError(
            {"owner": [gettext("only the referee may create characters for others")]}
        )
    owner_membership = (
        Membership.objects.filter(campaign_id=membership.campaign_id, user_id=owner_id)
        .select_related("user")
        .first()
    )
    if owner_membership is None:
        raise ValidationError({"owner": [gettext("the owner must be a member of the campaign")]})
    return owner_membership.user, name


def character_insert(
    *,
    campaign: Campaign,
    owner: Any,
    name: str,
    sheet: dict[str, Any] | None = None,
    version: int = 0,
    pending_choice: dict[str, Any] | None = None,
    retired: bool = False,
) -> Character:
    """The new character's row (owner and name from :func:`character_new`), with no sheet
    yet (version 0): the play writes its sheet with its first resolution. The caller
    holds the campaign's lock.

    An import (``rules.logbook.importing.campaign_import``) gives the character as it was
    exported instead: its sheet (checked by the ruleset), version, pending choice, and
    whether it was retired (now, as far as this campaign knows)."""
    character = Character(
        campaign=campaign,
        owner=owner,
        name=name,
        sheet={} if sheet is None else sheet,
        version=version,
        pending_choice=pending_choice,
    )
    character.full_clean(exclude=["sheet"])
    character.save()
    if retired:
        character.retired_at = timezone.now()
        character.save(update_fields=["retired_at"])
    return character


def character_name(name: Any) -> str:
    """A character's name as given, trimmed and checked (400 in plain words)."""
    text = name.strip() if isinstance(name, str) else ""
    if not text:
        raise ValidationError({"name": [gettext("a character needs a name")]})
    if len(text) > 120:
        raise ValidationError({"name": [gettext("a name has at most 120 characters")]})
    reject_nul_characters(text, gettext("name"))
    return text


def character_name_set(*, character: Character, name: str) -> Character:
    """Rename the character (the name checked by :func:`character_name`); the caller
    holds the row locks."""
    character.name = character_name(name)
    character.save(update_fields=["name", "updated_at"])
    return character


def character_retired_set(*, character: Character, retired: bool) -> Character:
    """Retire the character now, or bring it back; the caller holds the row locks."""
    character.retired_at = timezone.now() if retired else None
    character.save(update_fields=["retired_at", "updated_at"])
    return character


def character_player_set(*, character: Character, owner: Any) -> Character:
    """``owner`` plays the character from now on; the caller holds the row locks."""
    character.owner = owner
    character.save(update_fields=["owner", "updated_at"])
    return character


def _hand_over(campaign: Campaign, user_id: int, referee: Any) -> int:
    """The leaving player's characters stay in the campaign as the referee's (NPCs)."""
    return Character.objects.filter(campaign=campaign, owner_id=user_id).update(owner=referee)


def member_remove(*, campaign_id: int, user_id: int, referee: Any) -> None:
    """The referee removes a player; their characters become the referee's."""
    with transaction.atomic():
        campaign = campaign_lock(campaign_id)
        membership = Membership.objects.filter(campaign=campaign, user_id=user_id).first()
        if membership is None:
            raise ResolutionConflict(gettext("that person is not a member of the campaign"))
        if membership.role == Role.REFEREE:
            raise ResolutionConflict(gettext("a referee cannot be removed from their campaign"))
        _hand_over(campaign, user_id, referee)
        membership.delete()


def campaign_leave(*, campaign_id: int, user: Any) -> None:
    """A player leaves; their characters stay, as the referee's."""
    with transaction.atomic():
        campaign = campaign_lock(campaign_id)
        membership = Membership.objects.get(campaign=campaign, user=user)
        if membership.role == Role.REFEREE:
            raise ResolutionConflict(
                gettext("the referee cannot leave their campaign: delete it instead")
            )
        referee = (
            Membership.objects.filter(campaign=campaign, role=Role.REFEREE)
            .select_related("user")
            .order_by("id")
            .first()
        )
        owner = referee.user if referee is not None else campaign.created_by
        _hand_over(campaign, user.pk, owner)
        membership.delete()
