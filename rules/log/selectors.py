"""Reads of the rules app: the resolution log as each viewer may see it."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from django.db import connection
from django.db.models import Model, QuerySet
from django.utils.translation import gettext, ngettext

from campaigns.models import Campaign, Membership
from campaigns.selectors import campaign_seed_periods, clock_display, seed_for_counter
from characters.access import CharacterAccess
from characters.choices import public_choice
from characters.models import Character
from core.cleaning import reject_nul_characters, whole_numbers
from core.errors import NotAllowed
from rules.engine.dice import HmacGenerator, Roll
from rules.engine.odds import Odds
from rules.engine.registry import get_ruleset
from rules.engine.words import stored_text
from rules.log.context import campaign_context
from rules.log.models import EffectState, Resolution, ResolutionKind, ScheduledEffect
from rules.log.redaction import entry_seen

# The newest row of a campaign's table a live page's stamp includes: the columns'
# prefix, the model (its ``campaign_id`` column) and (name, column) pairs. The clock and
# the battles, above the play, offer theirs (rules.clock.selectors.LATEST_CLOCK_JOB,
# rules.battles.selectors.LATEST_BATTLE); the page that shows them asks for them.
LatestRow = tuple[str, type[Model], tuple[tuple[str, str], ...]]


def live_witness(
    campaign_id: int, *, latest: tuple[LatestRow, ...] = (), viewer: int | None = None
) -> dict[str, Any] | None:
    """What a live page's stamp is made of, in one indexed query: the clock, the party's
    size and the sum of its versions (versions only grow: every change is a resolution),
    for each of ``latest`` the newest row's columns (``job_state``: the latest clock
    job's state), with ``viewer`` (a user id) that user's ``role`` in the campaign (None: not a
    member), so a poll checks its access in the same query; and the campaign's ruleset.
    None when there is no such campaign. The live polls answer 304 from it while nothing
    changed (web/live.py)."""
    names, sql = _witness_sql(latest, viewer is not None)
    params = [campaign_id] if viewer is None else [viewer, campaign_id]
    row = _one(sql, params, names)
    if row is not None:
        row["count"] = int(row["count"] or 0)
        row["versions"] = int(row["versions"] or 0)
    return row


def sheet_witness(character_id: int, viewer: int) -> dict[str, Any] | None:
    """A sheet's stamp (the character's version, the clock) with what its access needs
    (the owner, the viewer's ``role`` in the campaign, None: not a member), in one
    query; None when there is no such character (web/live.py)."""
    character, campaign = _table(Character), _table(Campaign)
    names = ["version", "owner_id", "campaign_id", "clock", "role"]
    sql = (
        f"SELECT c.{_q('version')}, c.{_q('owner_id')}, c.{_q('campaign_id')}, "  # noqa: S608
        f"p.{_q('clock')}, {_role_sql('c.' + _q('campaign_id'))} "
        f"FROM {character} c JOIN {campaign} p ON p.{_q('id')} = c.{_q('campaign_id')} "
        f"WHERE c.{_q('id')} = %s"
    )
    return _one(sql, [viewer, character_id], names)


def sheets_versions(character_ids: list[int]) -> list[tuple[int, int, int]]:
    """(id, version, the campaign's clock) of each of these characters that exists, in one
    query: what their sheets' stamps are made of (web/streams.py's watcher)."""
    rows = Character.objects.filter(pk__in=character_ids).values_list(
        "pk", "version", "campaign__clock"
    )
    return [(pk, version, clock) for pk, version, clock in rows]


# The polls' one query is written in SQL (portable: scalar subqueries only): built with
# the ORM it cost 2 to 5 ms of CPU a poll to compile, the query itself 0.3 ms
# (docs/performance.md). rules/play/tests/test_live_witness.py holds it to the ORM's answer.


def _q(name: str) -> str:
    return str(connection.ops.quote_name(name))


def _table(model: type[Model]) -> str:
    return _q(model._meta.db_table)


def _role_sql(campaign: str) -> str:
    return (
        f"(SELECT m.{_q('role')} FROM {_table(Membership)} m "  # noqa: S608
        f"WHERE m.{_q('campaign_id')} = {campaign} AND m.{_q('user_id')} = %s LIMIT 1)"
    )


@cache
def _witness_sql(latest: tuple[LatestRow, ...], viewer: bool) -> tuple[list[str], str]:
    def newest(model: type[Model], column: str) -> str:
        return (
            f"(SELECT x.{_q(column)} FROM {_table(model)} x "  # noqa: S608
            f"WHERE x.{_q('campaign_id')} = p.{_q('id')} ORDER BY x.{_q('id')} DESC LIMIT 1)"
        )

    party = f"FROM {_table(Character)} c WHERE c.{_q('campaign_id')} = p.{_q('id')}"
    columns = {
        "clock": f"p.{_q('clock')}",
        "ruleset": f"p.{_q('ruleset')}",
        "count": f"(SELECT COUNT(*) {party})",
        "versions": f"(SELECT SUM(c.{_q('version')}) {party})",
    }
    for prefix, model, fields in latest:
        columns |= {f"{prefix}_{name}": newest(model, column) for name, column in fields}
    if viewer:
        columns["role"] = _role_sql(f"p.{_q('id')}")
    select = ", ".join(columns.values())
    sql = f"SELECT {select} FROM {_table(Campaign)} p WHERE p.{_q('id')} = %s"  # noqa: S608
    return list(columns), sql


def _one(sql: str, params: list[Any], names: list[str]) -> dict[str, Any] | None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        found = cursor.fetchone()
    return None if found is None else dict(zip(names, found, strict=True))


def resolutions_for_character(character: Character) -> QuerySet[Resolution]:
    """Newest first (the API's log order)."""
    return Resolution.objects.filter(character=character).order_by("-version", "-id")


def resolution_of(character: Character, resolution_id: int) -> Resolution | None:
    """One resolution of the character's log (with its campaign), or None."""
    return (
        Resolution.objects.select_related("character__campaign")
        .filter(pk=resolution_id, character=character)
        .first()
    )


def resolution_log(character: Character, *, before: int | None, length: int) -> list[Resolution]:
    """The character's log, newest first, from before version ``before`` (all when None):
    ``length`` entries and one more if there are (to tell whether more follow)."""
    query = resolutions_for_character(character).select_related("actor")
    if before is not None:
        query = query.filter(version__lt=before)
    return list(query[: length + 1])


def entry_author(resolution: Resolution) -> str | None:
    """Who made the entry, as an export names them: the account's username, or the
    export's name for someone of an imported campaign not shown as anyone here yet; None:
    the clock."""
    if resolution.actor is not None:
        return str(resolution.actor.get_username())
    return resolution.imported_actor or None


def entry_author_words(resolution: Resolution) -> str:
    """Who made the entry, for people: "alice", "alice (imported)" or "the clock"."""
    if resolution.actor is not None:
        return str(resolution.actor.get_username())
    if resolution.imported_actor:
        return gettext("%(name)s (imported)") % {"name": resolution.imported_actor}
    return gettext("the clock")


def _roll_view(stored: dict[str, Any], english: bool) -> dict[str, Any]:
    """A logged roll as the API shows it: its label in the reader's language (or the
    English the log keeps), without the message data it is said from."""
    shown = Roll.from_dict(stored).as_dict()
    said_label = shown.pop("label_said", None)
    if not english and isinstance(said_label, dict):
        shown["label"] = stored_text(str(shown["label"]), said_label, gettext, ngettext)
    return shown


def resolution_view(
    resolution: Resolution, *, ruleset_key: str, viewer_is_referee: bool, english: bool = False
) -> dict[str, Any]:
    """A resolution as the viewer may see it: what the referee keeps secret (hidden rolls,
    ``referee_only`` and the params that name it, G-4) only for referees, as
    rules.log.redaction decides; the sheet as the ruleset shows it. The summary is in
    the active language, or ``english`` as the log keeps it (a webhook's payload)."""
    ruleset = get_ruleset(ruleset_key)
    seen = entry_seen(resolution, referee=viewer_is_referee)
    return {
        "id": resolution.pk,
        "character": resolution.character_id,
        "kind": resolution.kind,
        "ruleset": ruleset_key,
        "action": resolution.action,
        "params": seen.params,
        # Read through the engine's Roll: rows logged before rolls carried their kind and
        # die sizes are shown with them too.
        "rolls": [_roll_view(roll, english) for roll in seen.rolls],
        # the reader's language, said by the engine's words with gettext (core.said's way,
        # one call fewer on every action's answer: tests/test_action_walk.py)
        "summary": (
            resolution.summary
            if english
            else stored_text(resolution.summary, resolution.said, gettext, ngettext)
        ),
        "outcome": seen.outcome,
        "sheet": ruleset.public_sheet(resolution.sheet_after),
        "version": resolution.version,
        "pending_choice": public_choice(resolution.pending_choice, english=english),
        "clock": resolution.clock,
        "elapsed_minutes": resolution.elapsed_minutes,
        "batch": str(resolution.batch) if resolution.batch else None,
        "actor": resolution.actor_id,
        # someone of an imported campaign, as the export named them (issue 36)
        "imported_actor": resolution.imported_actor or None,
        "undoes": resolution.undoes_id,
        "created_at": resolution.created_at,
        # The campaign's dice counters this resolution used: [start, end) (docs/dice.md).
        "dice_counter_start": resolution.dice_counter_start,
        "dice_counter_end": resolution.dice_counter_end,
    }


def action_odds(*, access: CharacterAccess, action: str, params: dict[str, Any]) -> Odds:
    """The exact odds of an action for this viewer, from the sheet as it is now.

    Reads only: nothing is rolled, no dice counter moves, nothing is locked. Who may
    ask is who may take the action; bad params are refused as the action refuses them.
    """
    character = access.character
    campaign = character.campaign
    ruleset = get_ruleset(campaign.ruleset)
    spec = ruleset.action(action)
    if not access.may_take(spec.who):
        raise NotAllowed("only the campaign's referee may take this action")
    reject_nul_characters(params, "params")
    context = campaign_context(campaign, by_referee=access.is_referee)
    return ruleset.odds(character.sheet, action, whole_numbers(params), context)


def roll_die_sizes(roll: dict[str, Any]) -> list[int]:
    """The size of each die a recorded roll drew, in order (docs/dice.md).

    A shuffle of n items draws one die of each size n, n-1, ..., 2 (Fisher-Yates).
    """
    return list(Roll.from_dict(roll).sizes)


def verify_resolution_rolls(resolution: Resolution, campaign: Campaign) -> bool:
    """Recompute every die of the resolution from its seed and counter range.

    True when the recorded dice are exactly what the HMAC generator gives: proof that
    no roll was altered after the fact. The seed is the one that owned the counter
    (the current one, or a revealed one after a rotation).
    """
    seed = seed_for_counter(campaign, resolution.dice_counter_start)
    generator = HmacGenerator(bytes.fromhex(seed), resolution.dice_counter_start)
    for roll in resolution.rolls:
        recomputed = [generator.randbelow(sides) + 1 for sides in roll_die_sizes(roll)]
        if recomputed != list(roll["dice"]):
            return False
    return generator.counter == resolution.dice_counter_end


def resolution_dice_check(resolution: Resolution, *, viewer_is_referee: bool) -> dict[str, Any]:
    """What a member sees when checking one resolution's dice (docs/dice.md)."""
    campaign = resolution.character.campaign
    start = resolution.dice_counter_start
    draws = resolution.dice_counter_end - start
    period = next(
        (
            p
            for p in campaign_seed_periods(campaign)
            if p["last_counter"] is not None and p["first_counter"] <= start <= p["last_counter"]
        ),
        None,
    )
    seen = entry_seen(resolution, referee=viewer_is_referee)
    return {
        "resolution": resolution,
        "counter_start": start,
        "counter_end": resolution.dice_counter_end,
        "draws": draws,
        "period": period if draws else None,
        "rolls": seen.rolls,
        "withheld": seen.withheld_rolls,
        "matches": verify_resolution_rolls(resolution, campaign),
    }


def dice_export(membership: Membership) -> dict[str, Any]:
    """The campaign's dice as this member may check them (docs/dice.md), oldest first.

    A referee gets every resolution with every roll. A player gets the resolutions of
    their own characters; rolls still hidden from them (G-4) are withheld and counted,
    so the gap in the counters shows that a roll happened, never what it was.
    """
    campaign = membership.campaign
    resolutions = Resolution.objects.filter(character__campaign=campaign)
    if not membership.is_referee:
        resolutions = resolutions.filter(character__owner=membership.user)
    exported = []
    for resolution in resolutions.order_by("dice_counter_start", "id"):
        seen = entry_seen(resolution, referee=membership.is_referee)
        exported.append(
            {
                "id": resolution.pk,
                "character": resolution.character_id,
                "action": resolution.action,
                "dice_counter_start": resolution.dice_counter_start,
                "dice_counter_end": resolution.dice_counter_end,
                "rolls": [
                    {
                        "label": r["label"],
                        "expression": r["expression"],
                        "dice": r["dice"],
                        "sizes": roll_die_sizes(r),
                    }
                    for r in seen.rolls
                ],
                "withheld_rolls": seen.withheld_rolls,
            }
        )
    return {
        "campaign": campaign.pk,
        "seeds": campaign_seed_periods(campaign),
        "resolutions": exported,
    }


def campaign_tables_view(campaign: Campaign) -> list[dict[str, Any]]:
    """Each editable table of the campaign's ruleset: the campaign's copy or the default."""
    ruleset = get_ruleset(campaign.ruleset)
    edited = {table.key: table.data for table in campaign.tables.all()}
    return [
        {"key": key, "data": edited.get(key, default), "edited": key in edited}
        for key, default in ruleset.tables.items()
    ]


def effects_for_viewer(
    campaign: Campaign,
    *,
    viewer_id: int,
    viewer_is_referee: bool,
    state: str | None = None,
    character_id: int | None = None,
) -> QuerySet[ScheduledEffect]:
    """Scheduled effects in due order: referees see all; players their own characters'
    effects, hidden ones left out (ruling G-4)."""
    effects = ScheduledEffect.objects.filter(campaign=campaign).select_related("character")
    if not viewer_is_referee:
        effects = effects.filter(character__owner_id=viewer_id, hidden=False)
    if state is not None:
        effects = effects.filter(state=state)
    if character_id is not None:
        effects = effects.filter(character_id=character_id)
    return effects.order_by("due_at", "id")


def effect_view(effect: ScheduledEffect, *, viewer_is_referee: bool) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": effect.pk,
        "character": effect.character_id,
        "kind": effect.kind,
        "due_at": effect.due_at,
        "due_display": clock_display(effect.due_at),
        "state": effect.state,
        "payload": effect.payload,
        "resolution": effect.resolution_id,
    }
    if viewer_is_referee:
        view["key"] = effect.key
        view["hidden"] = effect.hidden
    return view


# -- what an undo brought back that was due already (issue 34) ---------------------------------
def overdue_revived(undos: Iterable[Resolution]) -> list[ScheduledEffect]:
    """The effects these undos brought back that were due already when they were undone
    (ruling G-6): the clock applies them again at once, through a catch-up job
    (rules.play.undo), whatever the undo meant to take back. In due order, each with the
    entry that scheduled it (``created_by``): undoing that one as well takes it away."""
    clock_of: dict[int, int] = {}
    for undo in undos:
        for pk in (undo.params or {}).get("revived_as") or []:
            clock_of[int(pk)] = undo.clock
    if not clock_of:
        return []
    rows = ScheduledEffect.objects.filter(pk__in=clock_of).select_related("created_by")
    return [e for e in rows.order_by("due_at", "id") if e.due_at <= clock_of[e.pk]]


def applied_again_after_undo(character: Character) -> list[ScheduledEffect]:
    """While the character's newest entries are the clock applying again what their
    newest undo brought back overdue (:func:`overdue_revived`): those effects. Empty once
    anything else happened to the character (the sheet then says nothing about it)."""
    newest = Resolution.objects.filter(character=character).order_by("-version").first()
    if newest is None or newest.kind != ResolutionKind.EFFECT:
        return []
    undo = (
        Resolution.objects.filter(
            character=character, kind=ResolutionKind.UNDO, version__lt=newest.version
        )
        .order_by("-version")
        .first()
    )
    if undo is None:
        return []
    since = Resolution.objects.filter(character=character, version__gt=undo.version)
    if since.exclude(kind=ResolutionKind.EFFECT).exists():
        return []
    return [e for e in overdue_revived([undo]) if e.state == EffectState.DONE]
