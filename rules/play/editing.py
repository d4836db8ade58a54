"""Editing characters after creation (issue 13): each change of a character a resolution.

Rename, level up, a referee's correction of any sheet field (with a reason), retire and
return, who plays the character (the referee's, issue 29): each is a resolution of kind
``edit`` in the character's log (``action`` says which), written under the lock order of
rules/play/services.py (campaign row, then the character row). Deleting a character
(the referee's, confirmed by its name) removes it with its log; it is the one edit that
leaves no entry, since the log goes with it.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext

from campaigns.models import Membership
from characters.models import Character
from characters.services import (
    character_name,
    character_name_set,
    character_player_set,
    character_retired_set,
)
from core.cleaning import reject_nul_characters, whole_numbers
from core.errors import ResolutionConflict
from core.said import said
from rules.engine.interface import CorrectionRefused, Result, RuleError
from rules.engine.registry import get_ruleset
from rules.engine.words import Message, listed, say, word
from rules.log.context import campaign_context, campaign_dice
from rules.log.models import Resolution as ResolutionModel
from rules.log.models import ResolutionKind
from rules.play.services import check_version, lock_character, lock_character_for, persist_result

MAX_REASON = 500
OWNER = "owner"  # the edit's ``action`` when who plays the character changes


def _edit(
    campaign: Any,
    character: Character,
    *,
    action: str,
    params: Mapping[str, Any],
    summary: str,
    actor: Any,
    sheet: dict[str, Any] | None = None,
    outcome: Mapping[str, Any] | None = None,
) -> ResolutionModel:
    """Log an edit that rolls nothing: the sheet after (default: unchanged)."""
    return persist_result(
        campaign=campaign,
        character=character,
        result=Result(
            sheet=copy.deepcopy(character.sheet) if sheet is None else sheet,
            summary=summary,
            outcome=outcome or {},
        ),
        kind=ResolutionKind.EDIT,
        action=action,
        params=params,
        actor=actor,
        counter_start=campaign.dice_counter,
        counter_end=campaign.dice_counter,
        clock=campaign.clock,
        restored_choice=character.pending_choice,
    )


def character_rename(*, character_id: int, actor: Any, name: str) -> ResolutionModel:
    new = character_name(name)
    with transaction.atomic():
        campaign, character = lock_character(character_id)
        old = character.name
        if new == old:
            raise ResolutionConflict(
                gettext("the character is already called %(name)s") % {"name": old}
            )
        character_name_set(character=character, name=new)
        return _edit(
            campaign,
            character,
            action="rename",
            params={"from": old, "to": new},
            summary=say("renamed from {name}.", name=old),
            actor=actor,
        )


def character_level_up(*, character_id: int, actor: Any) -> ResolutionModel:
    """A level more, as the ruleset says (hit dice follow level for player characters
    under hit_dice, ruling HD-1; wounds under old_school, OS-P18); its rolls recorded."""
    with transaction.atomic():
        campaign, character = lock_character(character_id)
        _refuse_retired(character)
        if character.pending_choice is not None:
            raise ResolutionConflict(
                gettext("%(name)s waits on a choice: answer it first.") % {"name": character.name}
            )
        ruleset = get_ruleset(campaign.ruleset)
        context = campaign_context(campaign, by_referee=True)
        dice, generator = campaign_dice(campaign)
        start = generator.counter
        referee_id = campaign.memberships.filter(role="referee").values_list("user_id", flat=True)
        result = ruleset.level_up(
            copy.deepcopy(character.sheet),
            dice,
            context,
            player_character=character.owner_id not in set(referee_id),
        )
        # Every die the level brought is recorded, as for an action (fresh dice here).
        result = dataclasses.replace(result, rolls=tuple(dice.rolls))
        return persist_result(
            campaign=campaign,
            character=character,
            result=result,
            kind=ResolutionKind.EDIT,
            action="level_up",
            params={},
            actor=actor,
            counter_start=start,
            counter_end=generator.counter,
            clock=campaign.clock,
            restored_choice=character.pending_choice,
        )


def _shown(value: Any) -> str:
    """A sheet value in a log sentence: "6", "alive", "true", short JSON otherwise."""
    if isinstance(value, str):
        return value
    text = json.dumps(value, separators=(", ", ": "))
    return text if len(text) <= 60 else text[:57] + "..."


def _changes_words(changes: Mapping[str, tuple[Any, Any]]) -> Message:
    return listed(
        say("{field} {old} -> {new}", field=key, old=_shown(old), new=_shown(new))
        for key, (old, new) in changes.items()
    )


def character_correct(
    *, character_id: int, actor: Any, changes: Mapping[str, Any], reason: str
) -> ResolutionModel:
    """The referee sets sheet fields by hand, as the ruleset takes it
    (``Ruleset.correct``): what follows from them by the rules is set too (a state the
    numbers decide), and the sheet must stay valid and within the ruleset's own bounds
    (``Ruleset.out_of_bounds``): else 400 naming the value and why, and nothing changes.
    A correction to the values the sheet has already is refused the same way (issue 34:
    it logged "corrected nothing"). The entry names each field with its old and new
    value, those that followed after "so"."""
    reason = reason.strip() if isinstance(reason, str) else ""
    if not reason:
        raise ValidationError({"reason": [gettext("say why the sheet is corrected")]})
    if len(reason) > MAX_REASON:
        raise ValidationError(
            {"reason": [gettext("at most %(count)s characters") % {"count": MAX_REASON}]}
        )
    if not isinstance(changes, Mapping) or not changes:
        raise ValidationError({"changes": [gettext("give at least one field and its new value")]})
    changes = whole_numbers(dict(changes))
    reject_nul_characters([changes, reason], "the correction")
    with transaction.atomic():
        campaign, character = lock_character(character_id)
        ruleset = get_ruleset(campaign.ruleset)
        try:
            correction = ruleset.correct(character.sheet, changes)
        except CorrectionRefused as refused:
            raise ValidationError({"changes": [said(p) for p in refused.problems]}) from None
        except RuleError as error:
            raise ValidationError({"changes": [said(error.args[0])]}) from None
        words = _changes_words(correction.asked)
        if correction.follows:
            words = say(
                "{asked}, so {follows}", asked=words, follows=_changes_words(correction.follows)
            )
        changed = {
            key: {"from": copy.deepcopy(old), "to": copy.deepcopy(new)}
            for key, (old, new) in {**correction.asked, **correction.follows}.items()
        }
        return _edit(
            campaign,
            character,
            action="correct",
            params={"changes": dict(changes), "reason": reason},
            summary=say("the referee corrected {changes}: {reason}", changes=words, reason=reason),
            actor=actor,
            sheet=correction.sheet,
            outcome={"changed": changed},
        )


def _refuse_retired(character: Character) -> None:
    if character.retired_at is not None:
        raise ResolutionConflict(
            gettext("%(name)s is retired: bring them back first") % {"name": character.name}
        )


def character_retire(*, character_id: int, actor: Any, retired: bool) -> ResolutionModel:
    """Retire (or bring back) a character: kept with its log and its sheet, it takes no
    actions while retired; the clock goes on for it (it still ages, its diseases run)."""
    with transaction.atomic():
        campaign, character = lock_character(character_id)
        if retired == (character.retired_at is not None):
            already = (
                gettext("%(name)s is already retired")
                if retired
                else gettext("%(name)s is already not retired")
            )
            raise ResolutionConflict(already % {"name": character.name})
        character_retired_set(character=character, retired=retired)
        return _edit(
            campaign,
            character,
            action="retire" if retired else "return",
            params={"retired": retired},
            summary=word("retires.") if retired else word("comes back from retirement."),
            actor=actor,
        )


def character_delete(*, character_id: int, confirm: str) -> None:
    """The referee deletes a character and its log, confirmed by typing its name."""
    with transaction.atomic():
        _, character = lock_character(character_id)
        if (confirm or "").strip() != character.name:
            raise ValidationError({"confirm": [gettext("type the character's name to delete it")]})
        # Its log goes with it: an undo keeps its entry from going alone, not with it
        # (``Resolution.undoes``: RESTRICT).
        character.delete()


def _member(campaign: Any, character: Character, player: int | str) -> Membership:
    """The campaign's member ``player`` names: a user id, or a username. 400 in plain
    words for anyone else (a stranger, or someone who left)."""
    members = Membership.objects.filter(campaign=campaign).select_related("user")
    if isinstance(player, str) and player.strip():
        found, who = members.filter(user__username=player.strip()).first(), player.strip()
    elif isinstance(player, int) and not isinstance(player, bool):
        found, who = members.filter(user_id=player).first(), gettext("That person")
    else:
        raise ValidationError(
            {OWNER: [gettext("Choose who plays %(name)s.") % {"name": character.name}]}
        )
    if found is None:
        not_in = gettext("%(who)s is not in %(campaign)s: invite them to the campaign first.")
        raise ValidationError({OWNER: [not_in % {"who": who, "campaign": campaign.name}]})
    return found


def _someone(user: Any) -> dict[str, Any]:
    return {"id": user.pk, "username": user.get_username()}


def character_owner_set(
    *, character_id: int, actor: Any, player: int | str, expected_version: int | None = None
) -> ResolutionModel:
    """The referee chooses who plays the character: any member of the campaign, a
    player or the referee themself. The access check is made on the rows it locks
    (outsiders 404, players 403); someone not in the campaign is a 400, a stale
    ``expected_version`` or the same player again a 409, and nothing changes. The entry
    names the player before and after (``params.from``, ``params.to``: id and username),
    so undo puts the one before back and redo the one after (:func:`played_by_again`)."""
    with transaction.atomic():
        campaign, character, _ = lock_character_for(actor, character_id, referee=True)
        check_version(character, expected_version)
        membership = _member(campaign, character, player)
        old, new = character.owner, membership.user
        if old.pk == new.pk:
            raise ResolutionConflict(
                gettext("%(name)s is already played by %(player)s.")
                % {"name": character.name, "player": new.get_username()}
            )
        return owner_handed_over(
            campaign,
            character,
            to=new,
            actor=actor,
            summary=say(
                "now played by {player}, no longer by {before}.",
                player=new.get_username(),
                before=old.get_username(),
            ),
        )


def owner_handed_over(
    campaign: Any,
    character: Character,
    *,
    to: Any,
    actor: Any,
    summary: str,
    invitation: int | None = None,
) -> ResolutionModel:
    """``to`` plays the character from now on, logged as an edit naming who played it
    before and after (``params.from``, ``params.to``; ``params.invitation``: the import
    invitation accepted, rules.logbook.invitations). The caller holds the row locks."""
    old = character.owner
    character_player_set(character=character, owner=to)
    params: dict[str, Any] = {"from": _someone(old), "to": _someone(to)}
    if invitation is not None:
        params["invitation"] = invitation
    return _edit(campaign, character, action=OWNER, params=params, summary=summary, actor=actor)


def played_by_again(character: Character, entry: ResolutionModel, side: str) -> None:
    """Undo and redo of who plays the character (rules.play.undo): undoing the edit
    (``side`` "from") puts the player before back, redoing it ("to") the player after;
    undoing a redo of it, the player before again. 409 when that person is no longer in
    the campaign (the referee chooses who plays the character instead)."""
    if entry.kind == ResolutionKind.REDO:
        redone = ResolutionModel.objects.filter(pk=entry.params.get("resolution")).first()
        if redone is None:
            return
        entry = redone
    if entry.kind != ResolutionKind.EDIT or entry.action != OWNER:
        return
    who = entry.params.get(side)
    who = who if isinstance(who, dict) else {}
    user_id = who.get("id")
    membership = (
        Membership.objects.filter(campaign_id=character.campaign_id, user_id=user_id)
        .select_related("user")
        .first()
        if isinstance(user_id, int)
        else None
    )
    if membership is None:
        name = who.get("username") or gettext("The player")
        raise ResolutionConflict(
            gettext(
                "%(player)s is no longer in the campaign, so this cannot be undone or "
                "redone: choose who plays %(name)s instead."
            )
            % {"player": name, "name": character.name}
        )
    if membership.user_id != character.owner_id:
        character_player_set(character=character, owner=membership.user)
