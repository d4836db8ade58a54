"""Accepting an import invitation (issue 36): the second half of an import's ``players``.

The import left the characters of an invited player with the importer and the entries
they made naming them as the export did (campaigns.invitations, rules.logbook.export).
Accepting hands it all to the person, in one transaction under the lock order of the
play (the campaign row, then each character's): they join the campaign as a player
(kept as they are if they joined meanwhile), each of those characters still the
importer's becomes theirs, logged as an edit of who plays it (``action`` ``owner``, as
the referee's "Played by", so undo puts the importer back), and the entries the export
says they made, and its edits naming them, name them. Declining is
``campaigns.invitations.invitation_decline``: nothing changes.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.http import Http404
from django.utils import timezone

from campaigns.invitations import invitation_for_user, refuse_answered
from campaigns.models import Campaign, InvitationState, Membership, PlayerInvitation, Role
from characters.models import Character
from rules.engine.words import say
from rules.log.models import Resolution, ResolutionKind
from rules.play.editing import OWNER, owner_handed_over
from rules.play.services import lock_character


def invitation_accept(*, user: Any, invitation_id: int | str) -> PlayerInvitation:
    """The person says yes (module docstring). 404 for another's invitation; 409 once
    answered, or while the campaign is archived (nothing can change in it then)."""
    invitation = invitation_for_user(user, invitation_id)
    refuse_answered(invitation)
    with transaction.atomic():
        # the lock order of the play: the campaign row first (then each character's)
        locked = Campaign.objects.select_for_update().filter(pk=invitation.campaign_id).first()
        found = PlayerInvitation.objects.select_for_update().filter(pk=invitation.pk).first()
        if locked is None or found is None:  # the campaign was deleted meanwhile
            raise Http404("no such invitation")
        refuse_answered(found)  # a decline or another accept got there first
        campaign_id, importer_id = found.campaign_id, found.invited_by_id
        Membership.objects.get_or_create(
            campaign_id=campaign_id, user=user, defaults={"role": Role.PLAYER}
        )
        handed = Character.objects.filter(
            pk__in=found.characters, campaign_id=campaign_id, owner_id=importer_id
        ).order_by("pk")
        for character_id in handed.values_list("pk", flat=True):
            campaign, character = lock_character(character_id)
            if character.owner_id != importer_id:
                continue  # the referee gave it to someone else meanwhile
            owner_handed_over(
                campaign,
                character,
                to=user,
                actor=user,
                summary=say(
                    "now played by {player}, who accepted the invitation to play {exported}'s "
                    "characters of the export, no longer by {before}.",
                    player=user.get_username(),
                    exported=found.player,
                    before=character.owner.get_username(),
                ),
                invitation=found.pk,
            )
        _name_the_author(campaign_id, found.player, user)
        found.state, found.answered_at = InvitationState.ACCEPTED, timezone.now()
        found.save(update_fields=["state", "answered_at"])
    return found


def _name_the_author(campaign_id: int, player: str, user: Any) -> None:
    """The entries the export says ``player`` made name ``user``; so do the edits of who
    played a character that named ``player`` without an id (so their undo works)."""
    Resolution.objects.filter(
        campaign_id=campaign_id, actor__isnull=True, imported_actor=player
    ).update(actor=user, imported_actor="")
    edits = Resolution.objects.filter(
        campaign_id=campaign_id, kind=ResolutionKind.EDIT, action=OWNER
    ).only("params")
    changed = []
    for edit in edits:
        params = dict(edit.params)
        for side in ("from", "to"):
            who = params.get(side)
            if isinstance(who, dict) and who.get("id") is None and who.get("username") == player:
                params[side] = {**who, "id": user.pk}
        if params != edit.params:
            edit.params = params
            changed.append(edit)
    Resolution.objects.bulk_update(changed, ["params"])


def invitation_views(invitations: list[PlayerInvitation]) -> list[dict[str, Any]]:
    """Invitations as the invited person reads them, with the names of the characters
    they are asked to play (one query for all)."""
    wanted = {pk for invitation in invitations for pk in invitation.characters}
    names = dict(Character.objects.filter(pk__in=wanted).values_list("pk", "name"))
    return [
        {
            "id": invitation.pk,
            "campaign": {
                "id": invitation.campaign_id,
                "name": invitation.campaign.name,
                "ruleset": invitation.campaign.ruleset,
            },
            "player": invitation.player,
            "invited_by": invitation.invited_by.get_username(),
            "characters": [
                {"id": pk, "name": names[pk]} for pk in invitation.characters if pk in names
            ],
            "state": invitation.state,
            "created_at": invitation.created_at,
            "answered_at": invitation.answered_at,
        }
        for invitation in invitations
    ]
