"""Who may see and act on a character: decided here and nowhere else.

* outsiders (and anonymous users): 404;
* players: the party's names and states (``characters.selectors.party``), their own
  characters in full; another player's character answers 404 like a stranger's;
* the referee: everything in their campaigns;
* API tokens narrow this as ``campaigns.access`` describes (scopes and one campaign).
Actions marked ``who: owner`` may be taken by the owner or the referee,
``who: referee`` only by the referee (checked in ``rules.play.services``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import CharField, IntegerField
from django.db.models.expressions import RawSQL
from django.http import Http404
from django.utils.translation import gettext

from campaigns.access import as_granted, outside_grant
from campaigns.models import Membership
from characters.models import Character
from core.cleaning import valid_id
from core.errors import NotAllowed


def may_act(who: str, *, is_referee: bool) -> bool:
    """An action or choice marked ``who: owner`` is the owner's or the referee's,
    ``who: referee`` only the referee's (ruling G-3). Callers already know the user is
    the owner or the referee: anyone else got 404 from :func:`access_character`."""
    return is_referee or who == "owner"


@dataclass(frozen=True)
class CharacterAccess:
    character: Character
    membership: Membership

    @property
    def is_referee(self) -> bool:
        return self.membership.is_referee

    def may_take(self, who: str) -> bool:
        return may_act(who, is_referee=self.is_referee)


def mine(user: Any) -> dict[str, RawSQL]:
    """:func:`mine_by_id` of the user."""
    return mine_by_id(user.pk)


def mine_by_id(user_id: int | None) -> dict[str, RawSQL]:
    """Annotations that read the user's membership in a character's campaign (one per
    campaign and user) beside the character, in the same statement.

    Written in SQL: Django spent more CPU compiling these two subqueries than the
    database spends running them (1 ms of an action's, bench/actions.py). The outer
    character row is the query's base table, which Django names after the table."""
    where = (
        f'FROM "{Membership._meta.db_table}" WHERE "campaign_id" = '
        f'"{Character._meta.db_table}"."campaign_id" AND "user_id" = %s'
    )
    # S611: the table names come from the models; the user's id is a parameter.
    membership_id = RawSQL(f'SELECT "id" {where}', (user_id,), IntegerField())  # noqa: S611
    role = RawSQL(f'SELECT "role" {where}', (user_id,), CharField())  # noqa: S611
    return {"my_membership_id": membership_id, "my_role": role}


def access_character(
    user: Any, character_id: int | str, *, referee: bool = False
) -> CharacterAccess:
    """The character with the user's membership, if the user may see it in full."""
    if not getattr(user, "is_authenticated", False):
        raise Http404(gettext("no such character"))
    try:
        character = (
            Character.objects.select_related("campaign", "owner")
            .annotate(**mine(user))
            .get(pk=valid_id(character_id))
        )
    except (Character.DoesNotExist, ValueError, TypeError):
        raise Http404(gettext("no such character")) from None
    return access_read_character(user, character, referee=referee)


def access_read_character(
    user: Any, character: Character, *, referee: bool = False
) -> CharacterAccess:
    """The decision of :func:`access_character` on a character already read with the
    :func:`mine` annotations: an action makes it on the rows it locks
    (``rules.play.services.resolution_create_action_checked``), so no row is read twice."""
    if not getattr(user, "is_authenticated", False):
        raise Http404(gettext("no such character"))
    membership_id = getattr(character, "my_membership_id", None)
    membership = None
    if membership_id is not None:
        membership = Membership(
            pk=membership_id,
            campaign=character.campaign,
            user_id=user.pk,
            role=getattr(character, "my_role", ""),
        )
    if membership is None or outside_grant(user, character.campaign_id):
        raise Http404(gettext("no such character"))
    # A player token of the referee sees and acts as a player (campaigns.access).
    membership = as_granted(membership, user)
    if not membership.is_referee and character.owner_id != user.pk:
        raise Http404(gettext("no such character"))
    if referee and not membership.is_referee:
        raise NotAllowed(gettext("only the campaign's referee may do this"))
    return CharacterAccess(character=character, membership=membership)
