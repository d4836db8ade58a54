"""Reads of the Discord interface: which campaign a channel follows, and what a person may
pick in a command (autocomplete), each decided by the rules the API's lists follow."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from campaigns.access import visible_memberships
from campaigns.models import Campaign, Membership
from characters.models import Character
from characters.selectors import party
from discord_play.models import ChannelBinding, Interaction, InteractionState
from rules.clock.models import ClockEntry, ClockEntryKind


def campaign_for_channel(channel_id: str | None) -> Campaign | None:
    """The campaign a channel follows, or None."""
    if not channel_id:
        return None
    binding = ChannelBinding.objects.select_related("campaign").filter(channel_id=channel_id)
    found = binding.first()
    return None if found is None else found.campaign


def channels_of(campaign: Campaign) -> list[ChannelBinding]:
    return list(ChannelBinding.objects.filter(campaign=campaign).order_by("pk"))


@dataclass(frozen=True)
class Pick:
    """A character a person may see in full (their own, or any in a campaign they
    referee), with the membership that lets them."""

    character: Character
    membership: Membership


def characters_in_full(user: Any, campaign: Campaign | None = None) -> list[Pick]:
    """The characters the person sees in full, as the party list of the API shows them
    (``GET campaigns/{id}/characters/``: their own, or all of a campaign they referee), in
    ``campaign`` only when given; by campaign, then name."""
    picks = []
    for membership in visible_memberships(user):
        if campaign is not None and membership.campaign_id != campaign.pk:
            continue
        for member in party(membership.campaign, viewer_id=membership.user_id):
            if member.is_own or membership.is_referee:
                member.character.campaign = membership.campaign
                picks.append(Pick(member.character, membership))
    return picks


def refereed_campaigns(user: Any) -> list[Campaign]:
    """The campaigns the person referees (the ones they may bind a channel to)."""
    return [m.campaign for m in visible_memberships(user) if m.is_referee]


def last_advance_clock(campaign: Campaign) -> int | None:
    """The in-game minute the campaign's latest advance started from, or None if the
    referee never advanced its clock."""
    entry = (
        ClockEntry.objects.filter(campaign=campaign, kind=ClockEntryKind.ADVANCE)
        .order_by("-id")
        .values_list("clock", flat=True)
        .first()
    )
    return None if entry is None else int(entry)


def interaction_answer_of(interaction_id: str) -> dict[str, Any] | None:
    """The first answer of an interaction answered already, or None (not yet)."""
    found = Interaction.objects.filter(pk=interaction_id, state=InteractionState.DONE).first()
    return None if found is None else found.answer
