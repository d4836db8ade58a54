"""Editing characters after creation (issue 13): each change of a character a resolution.

Rename, level up, a referee's correction of any sheet field (with a reason), retire and
return: each is a resolution of kind ``edit`` in the character's log (``action`` says
which), written under the lock order of rules/play/services.py (campaign row, then the
character row). Deleting a character (the referee's, confirmed by its name) removes it
with its log; it is the one edit that leaves no entry, since the log goes with it.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from characters.models import Character
from core.cleaning import reject_nul_characters, whole_numbers
from core.errors import ResolutionConflict
from rules.engine.interface import Result, RuleError, validate
from rules.engine.registry import get_ruleset
from rules.play.context import campaign_context
from rules.play.dice import campaign_dice
from rules.play.models import Resolution as ResolutionModel
from rules.play.models import ResolutionKind
from rules.play.services import lock_character, persist_result

MAX_REASON = 500


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


def _name(name: Any) -> str:
    text = name.strip() if isinstance(name, str) else ""
    if not text:
        raise ValidationError({"name": ["a character needs a name"]})
    if len(text) > 120:
        raise ValidationError({"name": ["a name has at most 120 characters"]})
    reject_nul_characters(text, "name")
    return text


def character_rename(*, character_id: int, actor: Any, name: str) -> ResolutionModel:
    new = _name(name)
    with transaction.atomic():
        campaign, character = lock_character(character_id)
        old = character.name
        if new == old:
            raise ResolutionConflict(f"the character is already called {old}")
        character.name = new
        character.save(update_fields=["name", "updated_at"])
        return _edit(
            campaign,
            character,
            action="rename",
            params={"from": old, "to": new},
            summary=f"renamed from {old}.",
            actor=actor,
        )


def character_level_up(*, character_id: int, actor: Any) -> ResolutionModel:
    """A level more, as the ruleset says (hit dice follow level for player characters
    under hit_dice, ruling HD-1; wounds under old_school, OS-P18); its rolls recorded."""
    with transaction.atomic():
        campaign, character = lock_character(character_id)
        _refuse_retired(character)
        if character.pending_choice is not None:
            raise ResolutionConflict(f"{character.name} waits on a choice: answer it first.")
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


def character_correct(
    *, character_id: int, actor: Any, changes: Mapping[str, Any], reason: str
) -> ResolutionModel:
    """The referee sets sheet fields by hand. The sheet must stay valid, and the fields
    set within the ruleset's own bounds (``Ruleset.out_of_bounds``: a current value above
    its maximum, a state the numbers contradict): else 400 naming the value and why, and
    nothing changes. The entry names each field with its old and new value."""
    reason = reason.strip() if isinstance(reason, str) else ""
    if not reason:
        raise ValidationError({"reason": ["say why the sheet is corrected"]})
    if len(reason) > MAX_REASON:
        raise ValidationError({"reason": [f"at most {MAX_REASON} characters"]})
    if not isinstance(changes, Mapping) or not changes:
        raise ValidationError({"changes": ["give at least one field and its new value"]})
    changes = whole_numbers(dict(changes))
    reject_nul_characters([changes, reason], "the correction")
    with transaction.atomic():
        campaign, character = lock_character(character_id)
        ruleset = get_ruleset(campaign.ruleset)
        unknown = sorted(set(changes) - set(character.sheet))
        if unknown:
            raise ValidationError(
                {"changes": [f"no such field on the sheet: {', '.join(unknown)}"]}
            )
        sheet = {**copy.deepcopy(character.sheet), **copy.deepcopy(dict(changes))}
        try:
            validate(sheet, ruleset.sheet_schema, "sheet")  # the shapes, before the bounds
            out = [p.why for p in ruleset.out_of_bounds(sheet) if set(p.fields) & set(changes)]
            if out:
                raise ValidationError({"changes": out})
            ruleset.validate_sheet(sheet)
        except RuleError as error:
            raise ValidationError({"changes": [str(error)]}) from None
        changed = {
            field: {"from": copy.deepcopy(character.sheet[field]), "to": copy.deepcopy(value)}
            for field, value in sorted(changes.items())
            if character.sheet[field] != value
        }
        words = ", ".join(
            f"{field} {_shown(change['from'])} -> {_shown(change['to'])}"
            for field, change in changed.items()
        )
        return _edit(
            campaign,
            character,
            action="correct",
            params={"changes": dict(changes), "reason": reason},
            summary=f"the referee corrected {words or 'nothing (the same values)'}: {reason}",
            actor=actor,
            sheet=sheet,
            outcome={"changed": changed},
        )


def _refuse_retired(character: Character) -> None:
    if character.retired_at is not None:
        raise ResolutionConflict(f"{character.name} is retired: bring them back first")


def character_retire(*, character_id: int, actor: Any, retired: bool) -> ResolutionModel:
    """Retire (or bring back) a character: kept with its log and its sheet, it takes no
    actions while retired; the clock goes on for it (it still ages, its diseases run)."""
    with transaction.atomic():
        campaign, character = lock_character(character_id)
        if retired == (character.retired_at is not None):
            state = "retired" if retired else "not retired"
            raise ResolutionConflict(f"{character.name} is already {state}")
        character.retired_at = timezone.now() if retired else None
        character.save(update_fields=["retired_at", "updated_at"])
        return _edit(
            campaign,
            character,
            action="retire" if retired else "return",
            params={"retired": retired},
            summary="retires." if retired else "comes back from retirement.",
            actor=actor,
        )


def character_delete(*, character_id: int, confirm: str) -> None:
    """The referee deletes a character and its log, confirmed by typing its name."""
    with transaction.atomic():
        _, character = lock_character(character_id)
        if (confirm or "").strip() != character.name:
            raise ValidationError({"confirm": ["type the character's name to delete it"]})
        # An undo protects the entry it undid: take undos and redos away newest first.
        for pk in (
            ResolutionModel.objects.filter(character=character, undoes__isnull=False)
            .order_by("-version")
            .values_list("pk", flat=True)
        ):
            ResolutionModel.objects.filter(pk=pk).delete()
        character.delete()
