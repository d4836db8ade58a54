"""Writes of the rules app: every state change of a character is a resolution.

Each function locks the campaign row, then the character row (always in that order,
so two writers can never deadlock), runs the pure engine, and appends one
:class:`~rules.log.models.Resolution`. The campaign lock also guards its dice counter, so
every roll comes from a distinct, recorded stretch of the campaign's HMAC generator.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any, Unpack

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import connection, transaction
from django.db.models import BooleanField, QuerySet
from django.db.models.expressions import RawSQL
from django.http import Http404
from django.utils.translation import gettext

from campaigns.access import refuse_archived
from campaigns.models import Campaign, Membership
from campaigns.services import campaign_lock
from characters.access import CharacterAccess, access_read_character, may_act, mine_by_id
from characters.choices import stored_choice
from characters.models import Character
from characters.services import character_insert, character_new
from core.cleaning import reject_nul_characters, whole_numbers
from core.errors import NotAllowed, ResolutionConflict
from core.said import said
from rules.clock.action_time import action_time
from rules.engine.dice import Dice
from rules.engine.interface import (
    Context,
    PendingChoice,
    Result,
    RuleError,
    Ruleset,
)
from rules.engine.registry import get_ruleset
from rules.engine.words import lowered, say, text_said, word
from rules.log.context import campaign_context, campaign_dice
from rules.log.events import publish_resolutions
from rules.log.models import (
    CampaignTable,
    EffectState,
    Resolution,
    ResolutionKind,
    ScheduledEffect,
)
from rules.log.services import ResolutionStep, build_resolution, build_scheduled_effects
from rules.log.statements import CompiledQuery, write_action
from webhooks.models import WebhookEndpoint

User = AbstractBaseUser | AnonymousUser
Step = Callable[[Ruleset, dict[str, Any], Dice, Context], Result]


def lock_character(character_id: int) -> tuple[Campaign, Character]:
    """Lock the character's campaign row, then its row (the lock order of this module).

    One statement: the character joined to its campaign, ``FOR UPDATE OF`` the campaign
    then the character. PostgreSQL locks a join's rows in the order the ``OF`` list names
    them (checked by rules/play/tests/test_concurrency.py), so this keeps the lock order of
    two statements in one round trip; each row read is its newest version, once locked.
    """
    key = _key(character_id)
    character = None if key is None else _locked_row(key)
    if character is None:
        raise Character.DoesNotExist("Character matching query does not exist.")
    refuse_archived(character.campaign)  # no play in an archived campaign: 409
    return character.campaign, character


# S608: the table names come from the models; there is no value in it.
_WEBHOOKS = WebhookEndpoint._meta.db_table
_HAS_WEBHOOKS = f'EXISTS (SELECT 1 FROM "{_WEBHOOKS}" WHERE "campaign_id" = "{Character._meta.db_table}"."campaign_id")'  # noqa: S608, E501


def _locked_character(characters: QuerySet[Character], character_id: int) -> QuerySet[Character]:
    return (
        characters.select_related("campaign")
        .select_for_update(of=("campaign", "self"))
        # Whether the campaign has webhooks, read under the campaign's lock, which
        # webhooks.services.webhook_create takes too: exact, and an action in a campaign
        # without webhooks saves the query (rules.log.events). In SQL, as characters.access.mine.
        .annotate(webhooked=RawSQL(_HAS_WEBHOOKS, (), BooleanField()))  # noqa: S611
        .filter(pk=character_id)
        .order_by()
    )


def _key(character_id: Any) -> int | None:
    """``character_id`` as a row's key, or None where no row can have it: an id beyond
    the column's range finds nothing (as the ORM's lookup answers it), not a database
    error (a 500)."""
    pk = Character._meta.pk
    assert pk is not None
    key = pk.to_python(character_id)  # "12" -> 12; not a number: ValidationError, as before
    low, high = connection.ops.integer_field_range(pk.get_internal_type())
    in_range = (low is None or low <= key) and (high is None or key <= high)
    return key if in_range else None


# Compiled once (rules.log.statements.CompiledQuery): Django's compiling of this
# statement cost more CPU than running it, on every action (issue 39).
_LOCKED = CompiledQuery[Character]("character_id")
_LOCKED_FOR = CompiledQuery[Character]("character_id", "user_id")


def _locked_row(key: int) -> Character | None:
    """The character ``key`` locked with its campaign (:func:`_locked_character`)."""
    if not _LOCKED.ready():
        mark = _LOCKED.marks["character_id"]
        _LOCKED.compile(_locked_character(Character.objects.all(), mark))
    return _LOCKED.first(character_id=key)


def _locked_row_for(key: int, user_id: int | None) -> Character | None:
    """:func:`_locked_row` with the membership of ``user_id`` read beside it."""
    if not _LOCKED_FOR.ready():
        marks = _LOCKED_FOR.marks
        mine = Character.objects.annotate(**mine_by_id(marks["user_id"]))
        _LOCKED_FOR.compile(_locked_character(mine, marks["character_id"]))
    return _LOCKED_FOR.first(character_id=key, user_id=user_id)


def persist_result(
    *,
    undoes: Resolution | None = None,
    restored_choice: dict[str, Any] | None = None,
    batch: Any = None,
    time_passes: bool = False,
    **step: Unpack[ResolutionStep],
) -> Resolution:
    """Write the result: sheet, version, pending choice, dice counter, log, effects.

    Callers hold the campaign and character row locks. ``time_passes``: the time the
    action took moves the clock, if the campaign says so (rules.clock.action_time): the
    clock moved, or its job written, with the action's rows; a job is sent once they
    commit.
    """
    campaign, character, result = step["campaign"], step["character"], step["result"]
    counter_start, counter_end, actor = step["counter_start"], step["counter_end"], step["actor"]
    resolution = build_resolution(
        **step,
        pending_choice=restored_choice or stored_choice(result.pending_choice),
        undoes=undoes,
        batch=batch,
    )
    character.sheet = result.sheet
    character.version = resolution.version
    character.pending_choice = resolution.pending_choice
    if counter_end != counter_start:
        campaign.dice_counter = counter_end
    time = None
    if time_passes:
        due = [resolution.clock + max(0, effect.due_in) for effect in result.effects]
        time = action_time(
            campaign=campaign, minutes=resolution.elapsed_minutes, actor=actor, due=due
        )
    clock_after = write_action(
        campaign,
        character,
        resolution,
        dice_rolled=counter_end != counter_start,
        clock=time.clock if time is not None else None,
        job=time.job if time is not None else None,
    )
    if time is not None:
        time.written(clock_after)
    # Cancel before scheduling: a result may replace an effect under the same key. Each
    # names the resolution that cancelled it: undoing that one revives it (rules.play.undo).
    if result.cancel_effects:
        ScheduledEffect.objects.filter(
            character=character, key__in=result.cancel_effects, state=EffectState.PENDING
        ).update(state=EffectState.CANCELLED, cancelled_by=resolution)
    if result.effects:
        ScheduledEffect.objects.bulk_create(
            build_scheduled_effects(resolution=resolution, result=result)
        )
    webhooked = getattr(character, "webhooked", True)  # known from the lock (lock_character)
    if webhooked:
        publish_resolutions(campaign.pk, campaign.ruleset, [resolution])
    if time is not None:
        # After the action's effects: its job may run here, and applies them if due.
        time.send(webhooked=webhooked)
    return resolution


def run_step(
    *,
    campaign: Campaign,
    character: Character,
    step: Step,
    kind: str,
    action: str,
    params: Mapping[str, Any],
    actor: Any,
    by_referee: bool,
    clock: int | None = None,
    batch: Any = None,
    time_passes: bool = False,
) -> Resolution:
    """Run one engine step on locked rows and persist it. Callers hold the locks.

    ``step`` is given the stored sheet itself: every step is an engine call (``resolve``,
    ``choose``) that works on its own copy, so the sheet stays the resolution's sheet
    before (a copy here too was a second one, a tenth of a millisecond an action)."""
    ruleset = get_ruleset(campaign.ruleset)
    context = campaign_context(campaign, by_referee=by_referee, clock=clock)
    dice, generator = campaign_dice(campaign)
    counter_start = generator.counter
    result = step(ruleset, character.sheet, dice, context)
    return persist_result(
        campaign=campaign,
        character=character,
        result=result,
        kind=kind,
        action=action,
        params=params,
        actor=actor,
        counter_start=counter_start,
        counter_end=generator.counter,
        clock=context.clock,
        batch=batch,
        time_passes=time_passes,
    )


def check_version(character: Character, expected_version: int | None) -> None:
    """409 when the client's ``expected_version`` is not the character's (compare-and-set)."""
    if expected_version is not None and expected_version != character.version:
        raise ResolutionConflict(
            gettext(
                "%(name)s is at version %(version)s, not %(expected)s: "
                "reload the sheet and try again."
            )
            % {"name": character.name, "version": character.version, "expected": expected_version}
        )


def resolution_create_action(
    *,
    character_id: int,
    actor: Any,
    by_referee: bool,
    action: str,
    params: Mapping[str, Any],
    expected_version: int | None = None,
) -> Resolution:
    """Resolve ``action`` for a character under a row lock; the caller decided access."""
    params = whole_numbers(params)
    with transaction.atomic():
        campaign, character = lock_character(character_id)
        return _resolve_action(
            campaign, character, actor, by_referee, action, params, expected_version
        )


def lock_character_for(
    user: Any, character_id: int, *, referee: bool = False
) -> tuple[Campaign, Character, CharacterAccess]:
    """:func:`lock_character` with the access check (``characters.access``) made on the
    rows it locks, read with the user's membership in one statement, so no row is read
    twice: someone who may not see the character gets 404, a player where ``referee``
    is asked 403, and the campaign row they locked for that statement is released with
    the rollback. Callers hold a transaction."""
    # the rows of lock_character, with the user's membership read beside them
    key = _key(character_id)
    character = None if key is None else _locked_row_for(key, user.pk)
    if character is None:
        raise Http404("no such character")
    access = access_read_character(user, character, referee=referee)  # before anything: 404
    refuse_archived(character.campaign)
    return character.campaign, character, access


def resolution_create_action_checked(
    *,
    character_id: int,
    user: Any,
    action: str,
    params: Mapping[str, Any],
    expected_version: int | None = None,
) -> tuple[Resolution, CharacterAccess]:
    """The API's actions/: the access check (``characters.access``) is made on the rows
    the action locks, read with the user's membership in one statement, so no row is
    read twice. Someone who may not see the character gets 404 and nothing changes; the
    campaign row they locked for that statement is released with the rollback."""
    params = whole_numbers(params)
    with transaction.atomic():
        campaign, character, access = lock_character_for(user, character_id)
        resolution = _resolve_action(
            campaign, character, user, access.is_referee, action, params, expected_version
        )
        return resolution, access


def _resolve_action(
    campaign: Campaign,
    character: Character,
    actor: Any,
    by_referee: bool,
    action: str,
    params: Mapping[str, Any],
    expected_version: int | None,
) -> Resolution:
    """The action on rows the caller locked (:func:`lock_character`)."""
    check_version(character, expected_version)
    if character.retired_at is not None:
        raise ResolutionConflict(
            gettext("%(name)s is retired and takes no actions.") % {"name": character.name}
        )
    if character.pending_choice is not None:
        raise ResolutionConflict(
            gettext("%(name)s waits on a choice: %(prompt)s Answer it first.")
            % {
                "name": character.name,
                "prompt": said(text_said("prompt", character.pending_choice)),
            }
        )
    ruleset = get_ruleset(campaign.ruleset)
    spec = ruleset.action(action)
    if not may_act(spec.who, is_referee=by_referee):
        raise NotAllowed(
            gettext("only the referee may %(action)s") % {"action": said(lowered(spec.label))}
        )

    def step(rs: Ruleset, sheet: dict[str, Any], dice: Dice, ctx: Context) -> Result:
        return rs.resolve(sheet, action, params, dice, ctx)

    return run_step(
        campaign=campaign,
        character=character,
        step=step,
        kind=ResolutionKind.ACTION,
        action=action,
        params=params,
        actor=actor,
        by_referee=by_referee,
        time_passes=True,  # the time the action took moves the clock (docs/clock.md)
    )


def resolution_answer_choice(
    *, character_id: int, actor: Any, by_referee: bool, choice_id: str, option: str
) -> Resolution:
    """Answer the character's pending choice (ruling G-3) and finish its resolution."""
    with transaction.atomic():
        campaign, character = lock_character(character_id)
        stored = character.pending_choice
        if stored is None or stored.get("id") != choice_id:
            raise ResolutionConflict(gettext("that choice is no longer pending"))
        choice = PendingChoice.from_dict(stored)
        if not may_act(choice.who, is_referee=by_referee):
            raise NotAllowed(gettext("only the referee may answer this choice"))

        def step(rs: Ruleset, sheet: dict[str, Any], dice: Dice, ctx: Context) -> Result:
            return rs.choose(sheet, choice, option, dice, ctx)

        return run_step(
            campaign=campaign,
            character=character,
            step=step,
            kind=ResolutionKind.CHOICE,
            action=choice.kind,
            params={"choice_id": choice_id, "option": option},
            actor=actor,
            by_referee=by_referee,
        )


def resolution_cancel_choice(*, character_id: int, actor: Any) -> Resolution:
    """Referee cancels the pending choice (ruling G-3); the sheet stays as it is."""
    with transaction.atomic():
        campaign, character = lock_character(character_id)
        if character.pending_choice is None:
            raise ResolutionConflict(
                gettext("%(name)s has no pending choice") % {"name": character.name}
            )
        prompt = text_said("prompt", character.pending_choice)
        result = Result(
            sheet=copy.deepcopy(character.sheet),
            summary=say("Referee cancelled the pending choice: {prompt}", prompt=prompt),
        )
        return persist_result(
            campaign=campaign,
            character=character,
            result=result,
            kind=ResolutionKind.CANCEL_CHOICE,
            action="cancel_choice",
            params={"choice_id": character.pending_choice["id"]},
            actor=actor,
            counter_start=campaign.dice_counter,
            counter_end=campaign.dice_counter,
            clock=campaign.clock,
        )


def character_create(
    *,
    membership: Membership,
    name: str,
    sheet: Mapping[str, Any] | None = None,
    owner_id: int | None = None,
) -> Character:
    """Create a character in the member's campaign.

    A player creates characters they own; the referee may name any member as owner
    (their own id for NPCs): the row is the characters' (``characters.services``). The
    sheet is the ruleset's default with ``sheet``'s
    fields on top, validated against the ruleset's schema; its creation is the
    character's first resolution (a new Deckahedron deck is shuffled with the
    campaign's dice, so it is recorded like any roll).
    """
    user = membership.user
    owner, name = character_new(membership=membership, name=name, owner_id=owner_id)

    with transaction.atomic():
        campaign = campaign_lock(membership.campaign_id)
        refuse_archived(campaign)
        ruleset = get_ruleset(campaign.ruleset)
        dice, generator = campaign_dice(campaign)
        counter_start = generator.counter
        sheet = whole_numbers(dict(sheet or {}))
        new_sheet = ruleset.new_sheet(copy.deepcopy(sheet), dice)
        character = character_insert(campaign=campaign, owner=owner, name=name)
        result = Result(
            sheet=new_sheet,
            summary=word("joins the party."),
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


def campaign_table_set(*, campaign: Campaign, key: str, data: Any) -> CampaignTable:
    """Replace the campaign's copy of one of its ruleset's editable tables; a whole number
    written ``1.0`` is stored as the whole number (issue 36)."""
    data = whole_numbers(data)
    get_ruleset(campaign.ruleset).validate_table(key, data)
    reject_nul_characters(data, "the table")
    table, _ = CampaignTable.objects.update_or_create(
        campaign=campaign, key=key, defaults={"data": copy.deepcopy(data)}
    )
    return table


def campaign_table_reset(*, campaign: Campaign, key: str) -> None:
    """Back to the ruleset's default table."""
    ruleset = get_ruleset(campaign.ruleset)
    if key not in ruleset.tables:
        raise RuleError(f"ruleset {ruleset.key} has no table {key!r}")
    CampaignTable.objects.filter(campaign=campaign, key=key).delete()


def resolution_reveal(*, resolution: Resolution) -> Resolution:
    """Ruling G-4: the referee shows a resolution's hidden rolls to players.

    The only change ever made to a logged resolution: it alters who may see it,
    never what happened.
    """
    Resolution.objects.filter(pk=resolution.pk).update(revealed=True)
    resolution.revealed = True
    return resolution
