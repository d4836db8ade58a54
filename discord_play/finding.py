"""Which campaign, character and action an interaction means: the channel's campaign,
a character by number or name, an action by key or label, each decided by the same
access functions as the API (``campaigns.access``, ``characters.access``); what the
person may not see is not found.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from campaigns.access import access_campaign
from campaigns.models import Membership
from characters.access import CharacterAccess, access_character
from discord_play.call import Call, Refused
from discord_play.selectors import (
    campaign_for_channel,
    characters_in_full,
)
from rules.engine.interface import ActionSpec
from rules.engine.registry import get_ruleset

NO_CHANNEL_CAMPAIGN = gettext_lazy(
    "No campaign of yours follows this channel. Name a character, or ask the campaign's "
    "referee to bind this channel with /sawbones campaign."
)
NOTHING_SEEN = gettext_lazy("There is nothing of that name or number that you may see.")
NO_SUCH_CHARACTER = gettext_lazy("You have no character of that name or number that you may see.")


def channel_membership(call: Call, user: Any) -> Membership:
    """The person's membership of the campaign this channel follows; an outsider is told
    the same as where no campaign is bound (they learn nothing of it)."""
    campaign = campaign_for_channel(call.channel_id)
    if campaign is None:
        raise Refused(NO_CHANNEL_CAMPAIGN)
    try:
        return access_campaign(user, campaign.pk)
    except Http404:
        raise Refused(NO_CHANNEL_CAMPAIGN) from None


def find_character(call: Call, user: Any, text: str) -> CharacterAccess:
    """The character ``text`` names (its number, as autocomplete gives it, or its exact
    name), decided by ``characters.access``: one the person may not see is not found."""
    text = text.strip()
    if not text:
        raise Refused(_("Name a character."))
    if text.isdigit():
        try:
            return access_character(user, text)
        except Http404:
            raise Refused(NO_SUCH_CHARACTER) from None
    named = [p for p in characters_in_full(user) if p.character.name.casefold() == text.casefold()]
    here = campaign_for_channel(call.channel_id)
    if len(named) > 1 and here is not None:
        named = [p for p in named if p.character.campaign_id == here.pk] or named
    if not named:
        raise Refused(NO_SUCH_CHARACTER)
    if len(named) > 1:
        raise Refused(
            _("Several of your characters are called %(name)s: pick one from the list.")
            % {"name": text}
        )
    try:
        return access_character(user, named[0].character.pk)
    except Http404:
        raise Refused(NO_SUCH_CHARACTER) from None


def find_action(access: CharacterAccess, text: str) -> ActionSpec:
    """The action ``text`` names (its key, as autocomplete gives it, or its label)."""
    ruleset = get_ruleset(access.character.campaign.ruleset)
    wanted = text.strip().casefold()
    for spec in ruleset.actions:
        if wanted in (spec.key.casefold(), spec.label.casefold()):
            return spec
    raise Refused(
        _("%(ruleset)s characters have no action called %(action)s.")
        % {"ruleset": ruleset.name, "action": text.strip() or _("that")}
    )
