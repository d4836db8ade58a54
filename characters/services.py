"""Writes for characters. Sheet changes after creation go through rules.services."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from campaigns.models import Campaign, Membership
from characters.models import Character
from rules.dice import campaign_dice
from rules.engine.interface import Result
from rules.engine.registry import get_ruleset
from rules.models import ResolutionKind
from rules.services import campaign_context, persist_result, whole_numbers


def character_create(
    *,
    membership: Membership,
    name: str,
    sheet: Mapping[str, Any] | None = None,
    owner_id: int | None = None,
) -> Character:
    """Create a character in the member's campaign.

    A player creates characters they own; the referee may name any member as owner
    (their own id for NPCs). The sheet is the ruleset's default with ``sheet``'s
    fields on top, validated against the ruleset's schema; its creation is the
    character's first resolution (a new Deckahedron deck is shuffled with the
    campaign's dice, so it is recorded like any roll).
    """
    user = membership.user
    if owner_id is None or owner_id == user.pk:
        owner = user
    elif not membership.is_referee:
        raise ValidationError({"owner": ["only the referee may create characters for others"]})
    else:
        owner_membership = (
            Membership.objects.filter(campaign_id=membership.campaign_id, user_id=owner_id)
            .select_related("user")
            .first()
        )
        if owner_membership is None:
            raise ValidationError({"owner": ["the owner must be a member of the campaign"]})
        owner = owner_membership.user
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": ["a character needs a name"]})

    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=membership.campaign_id)
        ruleset = get_ruleset(campaign.ruleset)
        dice, generator = campaign_dice(campaign)
        counter_start = generator.counter
        sheet = whole_numbers(dict(sheet or {}))
        new_sheet = ruleset.new_sheet(copy.deepcopy(sheet), dice)
        character = Character(campaign=campaign, owner=owner, name=name, sheet={}, version=0)
        character.full_clean(exclude=["sheet"])
        character.save()
        result = Result(
            sheet=new_sheet,
            summary="joins the party.",
            rolls=tuple(dice.rolls),
            effects=ruleset.initial_effects(new_sheet),
        )
        persist_result(
            campaign=campaign,
            character=character,
            result=result,
            kind=ResolutionKind.CREATE,
            action="create",
            params=dict(sheet or {}),
            actor=user,
            counter_start=counter_start,
            counter_end=generator.counter,
            clock=campaign_context(campaign, by_referee=membership.is_referee).clock,
        )
    return character


def character_rename(*, character: Character, name: str) -> Character:
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": ["a character needs a name"]})
    character.name = name
    character.full_clean(exclude=["sheet"])
    character.save(update_fields=["name", "updated_at"])
    return character
