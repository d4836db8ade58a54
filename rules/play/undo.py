"""Undo and redo (the referee's): any number of steps back, each step a resolution.

The log is append-only (rules/play/services.py): an undo is a resolution of kind ``undo``
whose ``undoes`` is the entry it takes back, and whose sheet is that entry's sheet
before. A redo is a resolution of kind ``redo`` whose ``undoes`` is an undo: it puts the
undone entry's sheet after back.

* An entry is *in force* while nothing undid it: kinds other than ``create`` and ``undo``,
  with no ``undone_by``. A redo is in force like an action (undoing it again undoes the
  redo, so each entry is undone at most once: ``undoes`` is one-to-one).
* Undo takes back the newest entry in force; every entry newer than it is an undo or
  was undone, so its sheet before is the sheet as the log stands without it. "Back to a
  point" repeats that until the chosen entry is undone: one undo resolution per step.
* Redo takes back the newest undo that is not redone, and only while nothing newer than
  that undo exists but undos and redos: once anything else happened (an action, an
  effect the clock applied), the undone entries stay undone.

An undo puts the character back exactly where it was before the entry (ruling G-6,
docs/rulesets/README.md): the sheet, the pending choice, and every scheduled effect; an
edit of who plays the character, the player before (a redo, the player after; 409 when
that person has left the campaign: ``rules.play.editing.played_by_again``).
Effects the undone entry scheduled and still pending are cancelled (the undo lists them,
``params.cancelled_effects``); effects it cancelled, and the effect it applied if the
clock made it, are pending again as they were, kind, key, due minute, payload and
secrecy (new rows under the entry that scheduled the originals, so undoing that one
takes them away too; ``params.revived_effects`` lists the originals, ``revived_as``
the copies).
Those due already apply at once, in time order, through the clock (a catch-up job:
``rules.clock.services.clock_catch_up_start``), as an advance would have applied them. A redo
schedules again what the undo cancelled and cancels what it revived. Every cancellation
names the resolution that made it (``ScheduledEffect.cancelled_by``), so an entry knows
what it took away.
"""

from __future__ import annotations

import copy
from typing import Any

from django.db import models, transaction
from django.http import Http404
from django.utils.translation import gettext

from characters.models import Character
from core.errors import ResolutionConflict
from rules.clock.services import clock_catch_up_start
from rules.engine.interface import RESEAL_EFFECT, Result
from rules.engine.words import Message, say
from rules.log.models import EffectState, Resolution, ResolutionKind, ScheduledEffect
from rules.log.services import entry_summary
from rules.play.editing import played_by_again
from rules.play.services import lock_character, persist_result

MAX_UNDO_STEPS = 500
_NOT_IN_FORCE = (ResolutionKind.CREATE, ResolutionKind.UNDO)


# The redo's message template (a redo of a redo says what was done, not "redid" twice).
REDID = "Referee redid: {what}"


def _what_happened(character: Character, entry: Resolution) -> str:
    """What ``entry`` said, without the character's name the log puts in front (said
    once) and without "Referee redid: " (a redo of a redo says what was done)."""
    what = entry_summary(entry, character.name)
    if isinstance(what, Message) and what.template == REDID:
        inner = what.values.get("what")
        return inner if isinstance(inner, str) else what
    return what.removeprefix("Referee redid: ")


def _newest_in_force(character: Character) -> Resolution | None:
    return (
        Resolution.objects.filter(character=character, undone_by__isnull=True)
        .exclude(kind__in=_NOT_IN_FORCE)
        .order_by("-version")
        .first()
    )


def _copies(effects: Any, created_by: Resolution | None = None) -> list[int]:
    """Pending copies of ``effects``, in the order they were scheduled: the same kind,
    key, due minute, payload and secrecy, scheduled by ``created_by`` or, by default, by
    the entry that scheduled the original (undoing that entry cancels them too). Their
    ids, in order."""
    copies = ScheduledEffect.objects.bulk_create(
        [
            ScheduledEffect(
                campaign_id=effect.campaign_id,
                character_id=effect.character_id,
                kind=effect.kind,
                key=effect.key,
                due_at=effect.due_at,
                payload=copy.deepcopy(effect.payload),
                hidden=effect.hidden,
                created_by_id=effect.created_by_id if created_by is None else created_by.pk,
            )
            for effect in effects.order_by("pk")
        ]
    )
    return [effect.pk for effect in copies]


def _catch_up(campaign: Any, effect_ids: list[int], actor: Any) -> None:
    """Effects an undo or a redo brought back that are due already apply at once,
    through the clock (a catch-up job, run once the transaction commits)."""
    overdue = ScheduledEffect.objects.filter(
        pk__in=effect_ids, state=EffectState.PENDING, due_at__lte=campaign.clock
    )
    if effect_ids and overdue.exists():
        clock_catch_up_start(campaign=campaign, requested_by=actor)


def _undo_one(campaign: Any, character: Character, entry: Resolution, actor: Any) -> Resolution:
    if entry.kind == ResolutionKind.EFFECT and entry.action == RESEAL_EFFECT:  # docs/dice.md
        raise ResolutionConflict(
            gettext(
                "The deck of %(name)s was shuffled again when the dice seed was revealed; "
                "undoing that would bring back an order anyone can now work out, so nothing "
                "before it can be undone."
            )
            % {"name": character.name}
        )
    played_by_again(character, entry, "from")  # an edit of who plays them: the one before
    previous_choice = (
        Resolution.objects.filter(character=character, version=entry.version - 1)
        .values_list("pending_choice", flat=True)
        .first()
    )
    pending = ScheduledEffect.objects.filter(created_by=entry, state=EffectState.PENDING)
    cancelled = list(pending.values_list("pk", flat=True))
    # Cancel before reviving: the entry may have replaced an effect under the same key.
    pending.update(state=EffectState.CANCELLED)
    # What the entry took away: the effects its result cancelled, and the one it applied.
    taken = ScheduledEffect.objects.filter(
        models.Q(cancelled_by=entry, state=EffectState.CANCELLED)
        | models.Q(resolution=entry, state=EffectState.DONE)
    )
    revived = list(taken.order_by("pk").values_list("pk", flat=True))
    revived_as = _copies(taken)
    what = _what_happened(character, entry)
    resolution = persist_result(
        campaign=campaign,
        character=character,
        result=Result(
            sheet=copy.deepcopy(entry.sheet_before), summary=say("Referee undid: {what}", what=what)
        ),
        kind=ResolutionKind.UNDO,
        action="undo",
        params={
            "resolution": entry.pk,
            "cancelled_effects": cancelled,
            "revived_effects": revived,
            "revived_as": revived_as,
        },
        actor=actor,
        counter_start=campaign.dice_counter,
        counter_end=campaign.dice_counter,
        clock=campaign.clock,
        undoes=entry,
        # The choice that was pending before the undone entry is pending again.
        restored_choice=previous_choice,
    )
    ScheduledEffect.objects.filter(pk__in=cancelled).update(cancelled_by=resolution)
    return resolution


def resolution_undo(
    *, character_id: int, actor: Any, to: int | None = None, steps: int | None = None
) -> list[Resolution]:
    """Undo the newest entry in force, ``steps`` of them, or back to entry ``to`` (included).

    Returns the undo resolutions, oldest first. 409 when there is nothing (left) to undo
    or ``to`` is an entry of this character no longer in force; 404 when ``to`` is no
    entry of this character's log (another's, or none).
    """
    with transaction.atomic():
        campaign, character = lock_character(character_id)
        if to is not None:
            target = (
                Resolution.objects.filter(character=character, pk=to, undone_by__isnull=True)
                .exclude(kind__in=_NOT_IN_FORCE)
                .first()
            )
            if (
                target is None
                and not Resolution.objects.filter(character=character, pk=to).exists()
            ):
                # another character's entry, or none at all: nothing here to conflict with
                raise Http404(
                    gettext("no entry %(entry)s in the log of %(name)s")
                    % {"entry": to, "name": character.name}
                )
            if target is None:
                raise ResolutionConflict(
                    gettext(
                        "that entry of the log of %(name)s cannot be undone: it is the "
                        "creation, an undo, or already undone"
                    )
                    % {"name": character.name}
                )
        count = 1 if steps is None else steps
        if not 1 <= count <= MAX_UNDO_STEPS:
            raise ResolutionConflict(
                gettext("undo 1 to %(count)s steps at a time") % {"count": MAX_UNDO_STEPS}
            )
        undos: list[Resolution] = []
        while True:
            entry = _newest_in_force(character)
            if entry is None:
                if undos:
                    break
                raise ResolutionConflict(gettext("there is nothing to undo"))
            undos.append(_undo_one(campaign, character, entry, actor))
            if to is not None:
                if entry.pk == to:
                    break
                if len(undos) >= MAX_UNDO_STEPS:
                    raise ResolutionConflict(
                        gettext("that is more than %(count)s steps back: undo in parts")
                        % {"count": MAX_UNDO_STEPS}
                    )
            elif len(undos) >= count:
                break
        _catch_up(campaign, [pk for u in undos for pk in u.params["revived_as"]], actor)
        return undos


def redo_target(character: Character) -> Resolution | None:
    """The undo a redo would take back now, or None (the page offers "Redo" on it)."""
    undo = (
        Resolution.objects.filter(
            character=character, kind=ResolutionKind.UNDO, undone_by__isnull=True
        )
        .select_related("undoes")
        .order_by("-version")
        .first()
    )
    if undo is None:
        return None
    newer = Resolution.objects.filter(character=character, version__gt=undo.version).exclude(
        kind__in=(ResolutionKind.UNDO, ResolutionKind.REDO)
    )
    return None if newer.exists() else undo


def resolution_redo(*, character_id: int, actor: Any) -> Resolution:
    """Take back the newest undo while nothing newer than it but undos and redos exists."""
    with transaction.atomic():
        campaign, character = lock_character(character_id)
        undo = redo_target(character)
        if undo is None or undo.undoes is None:
            raise ResolutionConflict(
                gettext("there is nothing to redo: no undo, or something happened since")
            )
        entry = undo.undoes
        played_by_again(character, entry, "to")  # an edit of who plays them: the one after
        what = _what_happened(character, entry)
        resolution = persist_result(
            campaign=campaign,
            character=character,
            result=Result(
                sheet=copy.deepcopy(entry.sheet_after),
                summary=say("Referee redid: {what}", what=what),
            ),
            kind=ResolutionKind.REDO,
            action="redo",
            params={"resolution": entry.pk, "undo": undo.pk},
            actor=actor,
            counter_start=campaign.dice_counter,
            counter_end=campaign.dice_counter,
            clock=campaign.clock,
            undoes=undo,
            restored_choice=entry.pending_choice,
        )
        # What the undo revived is taken away again; what it cancelled is scheduled again.
        # A revived effect may have been cancelled since and scheduled again as a copy
        # (an older entry's redo copies what its undo cancelled): the copy, pending under
        # the same key at the same time, goes too (the property test found a wound's
        # worsening redone twice left pending).
        revived_ids = undo.params.get("revived_as", [])
        revived = models.Q(pk__in=revived_ids)
        for key, due_at in ScheduledEffect.objects.filter(pk__in=revived_ids).values_list(
            "key", "due_at"
        ):
            revived |= models.Q(character=character, key=key, due_at=due_at)
        ScheduledEffect.objects.filter(revived, state=EffectState.PENDING).update(
            state=EffectState.CANCELLED, cancelled_by=resolution
        )
        # And as the entry itself cancelled by key, whatever is pending under the keys it
        # cancelled: an entry redone in between may have scheduled them again (ruling G-6;
        # the property test found a stabilize redone after a heal redone kept its timer).
        keys = set(ScheduledEffect.objects.filter(cancelled_by=entry).values_list("key", flat=True))
        if keys:
            ScheduledEffect.objects.filter(
                character=character, key__in=keys, state=EffectState.PENDING
            ).update(state=EffectState.CANCELLED, cancelled_by=resolution)
        again = _copies(
            ScheduledEffect.objects.filter(
                pk__in=undo.params.get("cancelled_effects", []), state=EffectState.CANCELLED
            ),
            resolution,
        )
        _catch_up(campaign, again, actor)
        return resolution


def undo_marks(resolutions: list[Resolution]) -> dict[int, str]:
    """Entries of these that an undo took back, in one query: id -> ``"undone"`` (still
    undone) or ``"redone"`` (its undo was taken back by a redo, which is in force now)."""
    ids = [r.pk for r in resolutions]
    undos = Resolution.objects.filter(undoes_id__in=ids, kind=ResolutionKind.UNDO).values_list(
        "undoes_id", "undone_by"
    )
    return {entry: "undone" if redo is None else "redone" for entry, redo in undos}


def resolution_undo_latest(*, character_id: int, actor: Any) -> Resolution:
    """Referee's undo of the newest entry in force (any number of steps: resolution_undo)."""
    return resolution_undo(character_id=character_id, actor=actor)[-1]
