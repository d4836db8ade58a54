"""Autocomplete for the ``/sawbones`` options: campaigns, characters and actions, from
what the person typing may see; nothing for someone not linked.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404

from accounts.selectors import user_for_discord
from campaigns.access import access_campaign
from campaigns.models import Campaign
from characters.access import may_act
from discord_play import messages as m
from discord_play.call import Call, Refused
from discord_play.finding import find_character
from discord_play.selectors import (
    Pick,
    campaign_for_channel,
    characters_in_full,
    refereed_campaigns,
)
from rules.engine.interface import ActionSpec
from rules.engine.registry import get_ruleset


def autocomplete_for(call: Call) -> dict[str, Any]:
    """Choices for the option being typed, from what the person may see; none for someone
    not linked."""
    user = user_for_discord(call.discord_user_id) if call.discord_user_id else None
    if user is None:
        return m.autocomplete([])
    name, typed = call.focused
    typed = typed.strip().casefold()
    if name == "campaign":
        return m.autocomplete(
            (c.name, str(c.pk)) for c in refereed_campaigns(user) if typed in c.name.casefold()
        )
    if name == "character":
        here = campaign_for_channel(call.channel_id)
        picks = characters_in_full(user)
        picks.sort(key=lambda p: here is None or p.character.campaign_id != here.pk)
        return m.autocomplete(
            (_character_choice(pick, here), str(pick.character.pk))
            for pick in picks
            if typed in pick.character.name.casefold()
        )
    if name == "action":
        specs = _actions_for(call, user)
        return m.autocomplete(
            (spec.label, spec.key)
            for spec in specs
            if typed in spec.label.casefold() or typed in spec.key
        )
    return m.autocomplete([])


def _character_choice(pick: Pick, here: Campaign | None) -> str:
    if here is not None and pick.character.campaign_id == here.pk:
        return pick.character.name
    return f"{pick.character.name} ({pick.membership.campaign.name})"


def _actions_for(call: Call, user: Any) -> list[ActionSpec]:
    """The actions the person may take: the named character's, else those of the
    channel's campaign's ruleset."""
    try:
        access = find_character(call, user, call.text("character"))
    except Refused:
        campaign = campaign_for_channel(call.channel_id)
        if campaign is None:
            return []
        try:
            membership = access_campaign(user, campaign.pk)
        except Http404:
            return []
        ruleset = get_ruleset(campaign.ruleset)
        return [s for s in ruleset.actions if may_act(s.who, is_referee=membership.is_referee)]
    ruleset = get_ruleset(access.character.campaign.ruleset)
    return [spec for spec in ruleset.actions if access.may_take(spec.who)]
