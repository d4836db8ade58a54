"""Party actions (issue 13): one action with one set of params for many characters.

The referee picks characters (all of the campaign's, not retired, by default); each
character's resolution is its own entry in the log, the entries share one ``batch`` id.
A character who waits on a choice (ruling G-3), or whom the rules refuse (dead, already
rested...), is skipped with the reason and does not block the others: each character is
resolved in a savepoint of its own. The clock moves once, by the longest time any of the
actions took (rules.clock.action_time), not once per character.

Lock order (rules/play/services.py): the campaign row, then the characters' rows in id order.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Model
from django.utils.translation import gettext

from campaigns.access import refuse_archived
from campaigns.models import Campaign
from characters.models import Character
from core.cleaning import whole_numbers
from core.errors import ResolutionConflict
from core.said import said, said_error
from rules.clock.action_time import action_time_pass
from rules.engine.dice import DiceError
from rules.engine.interface import ActionBlocked, Context, Result, RuleError, Ruleset
from rules.engine.registry import get_ruleset
from rules.engine.words import text_said
from rules.log.models import Resolution, ResolutionKind
from rules.play.services import run_step

MAX_PARTY = 200


@dataclass
class PartyOutcome:
    batch: uuid.UUID
    resolutions: list[Resolution] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    clock_job: Model | None = None  # the clock's job (rules.clock.services), moving it once


def party_action(
    *,
    campaign_id: int,
    actor: Any,
    action: str,
    params: Mapping[str, Any],
    character_ids: Sequence[int] | None = None,
) -> PartyOutcome:
    """Resolve ``action`` for each chosen character as the referee; see the module."""
    params = whole_numbers(dict(params))
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
        refuse_archived(campaign)  # no play in an archived campaign: 409
        ruleset = get_ruleset(campaign.ruleset)
        ruleset.action(action)  # an unknown action is a 400 before anything is locked
        characters = _chosen(campaign, character_ids)
        outcome = PartyOutcome(batch=uuid.uuid4())
        errors: list[Exception] = []

        def step(rs: Ruleset, sheet: dict[str, Any], dice: Any, ctx: Context) -> Result:
            return rs.resolve(sheet, action, params, dice, ctx)

        for character in characters:
            reason = _blocked(character)
            if reason is None:
                try:
                    with transaction.atomic():  # a savepoint: one refusal undoes one character
                        counter = campaign.dice_counter
                        outcome.resolutions.append(
                            run_step(
                                campaign=campaign,
                                character=character,
                                step=step,
                                kind=ResolutionKind.ACTION,
                                action=action,
                                params=params,
                                actor=actor,
                                by_referee=True,
                                batch=outcome.batch,
                            )
                        )
                        continue
                except (RuleError, DiceError, ActionBlocked, ValidationError) as error:
                    campaign.dice_counter = counter
                    errors.append(error)
                    reason = said_error(error)
            outcome.skipped.append(
                {"character": character.pk, "name": character.name, "reason": reason}
            )
        if not outcome.resolutions:
            # Nothing happened: the same refusal for everyone is the request's fault.
            if errors and all(isinstance(e, RuleError | DiceError) for e in errors):
                raise errors[0]
            reasons = "; ".join(f"{s['name']}: {s['reason']}" for s in outcome.skipped)
            raise ResolutionConflict(
                gettext("no character could take this action: %(reasons)s") % {"reasons": reasons}
            )
        outcome.clock_job = action_time_pass(
            campaign=campaign, resolutions=outcome.resolutions, actor=actor
        )
        return outcome


def _chosen(campaign: Campaign, character_ids: Sequence[int] | None) -> list[Character]:
    """The characters the party action is for, locked: every one not retired, or those
    ``character_ids`` names (400 for another campaign's or too many; 409 for none)."""
    chosen = Character.objects.select_for_update().filter(campaign=campaign).order_by("pk")
    if character_ids is None:
        chosen = chosen.filter(retired_at__isnull=True)
    else:
        wanted = set(character_ids)
        if not wanted or len(wanted) > MAX_PARTY:
            pick = gettext("pick 1 to %(count)s characters of the campaign")
            raise ValidationError({"characters": [pick % {"count": MAX_PARTY}]})
        chosen = chosen.filter(pk__in=wanted)
    characters = list(chosen)
    if character_ids is not None and len(characters) != len(set(character_ids)):
        raise ValidationError({"characters": [gettext("every character must be of this campaign")]})
    if not characters:
        raise ResolutionConflict(gettext("the campaign has no character to act"))
    return characters


def _blocked(character: Character) -> str | None:
    if character.retired_at is not None:
        return gettext("%(name)s is retired.") % {"name": character.name}
    if character.pending_choice is not None:
        prompt = said(text_said("prompt", character.pending_choice))
        return gettext("%(name)s waits on a choice: %(prompt)s") % {
            "name": character.name,
            "prompt": prompt,
        }
    return None
