"""One batch of a clock job (docs/clock.md, "How a batch works"): the next pending
effects applied in memory, in time order, with the campaign's dice, then written in bulk
(rules.log.sql_writes). The job machine (rules.clock.services) runs a batch per
transaction under the campaign's lock.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection
from django.db.models import (
    BooleanField,
    Field,
    TextField,
)
from django.db.models.expressions import RawSQL
from django.db.models.functions import Cast
from django.utils import timezone

from campaigns.models import Campaign
from characters.choices import stored_choice
from characters.models import Character
from core.collector import cycle_collector_paused
from rules.clock.due import due_effects
from rules.clock.models import ClockJob, ClockJobState
from rules.clock.report import ReportBuilder, notable_marks
from rules.clock.text import effect_words
from rules.engine.interface import ActionBlocked, Context, RuleError
from rules.engine.registry import get_ruleset
from rules.log.context import campaign_dice, campaign_tables
from rules.log.models import (
    EffectState,
    Resolution,
    ResolutionKind,
    ScheduledEffect,
)
from rules.log.redaction import entry_told
from rules.log.rows import EffectRow, LogRow
from rules.log.services import build_log_row, scheduled_effect_rows
from rules.log.sql_writes import (
    ResolutionWriter,
    bulk_set,
    copy_rows,
    counted_run,
    effects_and_sheets,
    effects_and_sheets_ctes,
    ids_column,
    sheets_from_log,
    use_copy,
)
from rules.log.statements import CompiledQuery, Preceding, write_job_end

DEFAULT_BATCH_SIZE = 500
# What a batch reads of a character on PostgreSQL (its sheet as JSON text beside them).
_CHARACTER_COLUMNS = ("id", "campaign_id", "name", "version", "pending_choice")


@dataclass(frozen=True)
class KnownSheet:
    """A character's sheet as a job's last batch wrote it: at ``version``, with its JSON
    text (None off PostgreSQL, where nothing reuses it)."""

    version: int
    sheet: Any
    text: str | None


# The sheets a job's batches left, by character id, kept while one process runs the
# job's batches one after the other (rules.clock.services.clock_advance_run): the next
# batch still locks each row, but reads its sheet only where the version moved since.
KnownSheets = dict[int, KnownSheet]


class ClockConflict(RuntimeError):
    """An effect changed under a batch that held the campaign lock: roll the batch back."""


def batch_size() -> int:
    return int(getattr(settings, "SAWBONES_CLOCK_BATCH_SIZE", DEFAULT_BATCH_SIZE))


@dataclass
class Batch:
    """What one batch did, written in bulk at its end. Its log rows and effects are plain
    rows (rules.log.rows), not model instances: :meth:`resolution_models` makes those
    of its resolutions when something needs them (webhooks)."""

    resolutions: list[LogRow] = field(default_factory=list)
    # Loaded effects whose state changed (done or cancelled), in order.
    touched: list[EffectRow] = field(default_factory=list)
    # (resolution, effect) for each applied effect, to link them once ids exist.
    applied: list[tuple[LogRow, EffectRow]] = field(default_factory=list)
    new_effects: list[EffectRow] = field(default_factory=list)
    # Effects that existed before the batch but were not loaded, cancelled by key:
    # (character id, keys, the resolution that cancelled them), in order.
    cancelled_keys: list[tuple[int, set[str], LogRow]] = field(default_factory=list)
    changed_characters: dict[int, Character] = field(default_factory=dict)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    handled: int = 0
    last_minute: int | None = None
    # The earliest due minute of the effects scheduled in this batch (cancelled or not:
    # stopping early is always safe).
    earliest_new: int | None = None
    stop: tuple[str, Character, int] | None = None  # reason, character, minute
    # What happened to whom, for the job's report (rules.clock.report).
    report: ReportBuilder = field(default_factory=ReportBuilder)
    # Each character's sheet as the batch leaves it, for the job's next batch: valid once
    # the batch is committed.
    sheets: KnownSheets = field(default_factory=dict)
    # Its effects' and sheets' update, not run yet, and the characters it sets: run with
    # the job's end (job_end_written), or when the job goes on (write_deferred).
    deferred: tuple[Preceding, int] | None = None

    def resolution_models(self, campaign: Campaign) -> list[Resolution]:
        """The batch's resolutions as models (written already), their campaign and
        character set."""
        return [
            row.model(campaign=campaign, character=self.changed_characters[row.character_id])
            for row in self.resolutions
        ]

    def refused(self, effect: EffectRow, character: Character, error: Exception) -> None:
        """The ruleset refuses ``effect`` now (its wound was undone...): it is cancelled and
        listed on the job for the referee; its dice are not used."""
        effect.state = EffectState.CANCELLED
        self.touched.append(effect)
        self.skipped.append(
            {
                "effect": effect.pk,
                "kind": effect.kind,
                "character": character.pk,
                "due_at": effect.due_at,
                "error": str(error),
            }
        )
        self.handled += 1
        self.last_minute = effect.due_at

    def cancel(
        self,
        character_id: int,
        keys: Iterable[str],
        loaded: list[EffectRow],
        by: LogRow,
    ) -> None:
        """Cancel the character's pending effects under ``keys``, each naming ``by``, the
        resolution that cancelled it (undoing it revives them: rules.play.undo)."""
        keys = set(keys)
        if not keys:
            return
        for effect in (*loaded, *self.new_effects):
            if (
                effect.character_id == character_id
                and effect.key in keys
                and effect.state == EffectState.PENDING
            ):
                effect.state = EffectState.CANCELLED
                effect.cancelled_by = by
                if effect.pk is not None:
                    self.touched.append(effect)
        self.cancelled_keys.append((character_id, keys, by))


# The columns a batch reads of a character on PostgreSQL, in the model's order (as
# ``Model.from_db`` takes them).
_LOCK_COLUMNS = [
    f.attname for f in Character._meta.concrete_fields if f.attname in _CHARACTER_COLUMNS
]
# The characters' lock on PostgreSQL, compiled once (issue 39: Django compiled it on every
# batch): each sheet as JSON text beside the columns (a job's first batch), or no sheet
# (the job's sheets known: KnownSheets); on the first row, the new ids for the batch's
# log, taken by the same statement (rules.log.sql_writes.ids_column).
_LOCKED_WITH_SHEETS = CompiledQuery[Character]("ids", "first", "log_ids")
_LOCKED = CompiledQuery[Character]("ids", "first", "log_ids")


def _lock_rows(ids: set[int], *, with_sheets: bool, log_ids: int) -> list[tuple[Any, ...]]:
    """The characters ``ids`` locked in id order (PostgreSQL): :data:`_LOCK_COLUMNS`, then
    the sheet as JSON text if ``with_sheets``, then ``log_ids`` new log ids (a list) on the
    first row, NULL on the others (none at all if the first id's row is gone)."""
    query = _LOCKED_WITH_SHEETS if with_sheets else _LOCKED
    if not query.ready():
        quote = connection.ops.quote_name
        column = f"{quote(Character._meta.db_table)}.{quote(Character._meta.pk.column)}"
        # one parameter, an array, for any number of ids: one text to compile
        any_id = RawSQL(f"{column} = ANY(%s)", (query.marks["ids"],), BooleanField())  # noqa: S611
        rows = Character.objects.select_for_update().filter(any_id).order_by("pk")
        columns = list(_LOCK_COLUMNS)
        if with_sheets:
            rows = rows.annotate(sheet_json=Cast("sheet", TextField()))
            columns.append("sheet_json")
        # On the first row only (an init plan, run when that row asks): on every row, a
        # catch-up's 500 rows carried 500 ids each, 250,000 numbers a batch (issue 39).
        new_ids = RawSQL(  # noqa: S611 - names of ours, values are parameters
            f"CASE WHEN {column} = %s THEN {ids_column(Resolution)} END",
            (query.marks["first"], query.marks["log_ids"]),
            Field(),
        )
        query.compile(rows.annotate(log_ids=new_ids).values_list(*columns, "log_ids"))
    ordered = sorted(ids)
    return query.rows(ids=ordered, first=ordered[0] if ordered else 0, log_ids=log_ids)


def _locked_characters(
    ids: set[int], known: KnownSheets | None, log_ids: int
) -> tuple[dict[int, Character], dict[int, str], list[int] | None]:
    """The characters ``ids``, locked in id order, with their sheets; the JSON text of
    each sheet read as text (PostgreSQL), which its first resolution's COPY sends as it
    came (ResolutionWriter); and ``log_ids`` new ids of the log (PostgreSQL, else None).

    Only the columns the batch reads: the sheet, version and pending choice are set from
    the log (sheets_from_log); a resolution's webhook reads the character's id; the job,
    the id of the character it waits on. A sheet in ``known`` at the row's version is
    taken as it is, not read again (issue 39: 28 reads of 500 sheets in a catch-up)."""
    copy = use_copy()
    texts: dict[int, str] = {}
    characters: dict[int, Character] = {}
    new_ids: list[int] | None = None
    if not copy:  # elsewhere (SQLite): whole rows, the sheets parsed by their field
        locked = Character.objects.select_for_update().filter(pk__in=ids).order_by("pk")
        if not known:
            return {c.pk: c for c in locked}, texts, None
        characters = {c.pk: c for c in locked.only(*_CHARACTER_COLUMNS)}
    else:
        width = len(_LOCK_COLUMNS)
        for row in _lock_rows(ids, with_sheets=not known, log_ids=log_ids):
            character = Character.from_db(DEFAULT_DB_ALIAS, _LOCK_COLUMNS, row[:width])
            characters[character.pk] = character
            if not known:
                texts[character.pk] = text = row[width]
                character.sheet = json.loads(text)  # what JSONField.from_db_value does
            if row[-1] is not None:  # the first row's
                new_ids = row[-1]
        if not known:
            return characters, texts, new_ids
    unread = []
    for character in characters.values():
        sheet = known.get(character.pk)
        if sheet is None or sheet.version != character.version:
            unread.append(character.pk)
            continue
        character.sheet = sheet.sheet
        if sheet.text is not None:
            texts[character.pk] = sheet.text
    if unread:  # rows locked above: read under the same lock
        rows = Character.objects.filter(pk__in=unread)
        if copy:
            with_text = rows.annotate(sheet_json=Cast("sheet", TextField()))
            for pk, text in with_text.values_list("pk", "sheet_json"):
                characters[pk].sheet, texts[pk] = json.loads(text), text
        else:
            for pk, sheet in rows.values_list("pk", "sheet"):
                characters[pk].sheet = sheet
    return characters, texts, new_ids


def run_effects(
    campaign: Campaign,
    loaded: list[EffectRow],
    known: KnownSheets | None = None,
    tables: Mapping[str, Any] | None = None,
) -> Batch:
    """Apply the loaded effects in order, in memory; stop where the rules say so.
    ``known``: sheets the job's earlier batches left (:data:`KnownSheets`); ``tables``:
    the campaign's edited tables if the caller knows them (none: read here)."""
    ruleset = get_ruleset(campaign.ruleset)
    options = {**ruleset.options, **campaign.options}
    if tables is None:
        tables = campaign_tables(campaign)
    characters, texts, log_ids = _locked_characters(
        {e.character_id for e in loaded}, known, len(loaded)
    )
    batch = Batch()
    # The resolutions go to the database as they are made (ResolutionWriter).
    with ResolutionWriter(len(loaded), log_ids) as writer:
        for character in characters.values():
            writer.known_text(character.sheet, texts.get(character.pk))
        for effect in loaded:
            if effect.state != EffectState.PENDING:
                continue  # cancelled by an earlier effect of this batch
            # An effect scheduled in this batch and due before this one goes first: write
            # the batch and let the next one load it in order.
            if batch.earliest_new is not None and batch.earliest_new < effect.due_at:
                break
            character = characters[effect.character_id]
            if character.pending_choice is not None:  # ruling G-3
                batch.stop = (  # the page says where the clock stopped; the reason says why
                    f"{character.name} waits on a choice ({character.pending_choice['prompt']}) "
                    f"before “{effect_words(effect)}” can happen. Answer it, then resume.",
                    character,
                    effect.due_at,
                )
                break
            context = Context(clock=effect.due_at, options=options, by_referee=True, tables=tables)
            dice, generator = campaign_dice(campaign)
            counter_start = generator.counter
            try:
                # The engine works on its own deep copy of the sheet (Ruleset.apply_effect):
                # the sheet it is given stays the resolution's sheet before, untouched.
                result = ruleset.apply_effect(
                    character.sheet, effect.kind, effect.payload, dice, context
                )
                choice = stored_choice(result.pending_choice)
                resolution = build_log_row(
                    campaign=campaign,
                    character=character,
                    result=result,
                    kind=ResolutionKind.EFFECT,
                    action=effect.kind,
                    params={"scheduled_effect": effect.pk, "payload": effect.payload},
                    actor=None,
                    counter_start=counter_start,
                    counter_end=generator.counter,
                    clock=effect.due_at,
                    pending_choice=choice,
                )
            except (RuleError, ActionBlocked) as error:
                batch.refused(effect, character, error)
                continue
            campaign.dice_counter = generator.counter
            _record(batch, ruleset, character, effect, result, resolution, loaded, writer, texts)
            if resolution.pending_choice is not None:  # ruling G-3: catch-up stops at a decision
                batch.stop = (
                    f"{character.name} has a choice to make after “{effect_words(effect)}” "
                    f"({resolution.pending_choice['prompt']}). Answer it, then resume.",
                    character,
                    effect.due_at,
                )
                break
    for character in characters.values():
        text = texts.get(character.pk)
        batch.sheets[character.pk] = KnownSheet(character.version, character.sheet, text)
    return batch


def _record(
    batch: Batch,
    ruleset: Any,
    character: Character,
    effect: EffectRow,
    result: Any,
    resolution: LogRow,
    loaded: list[EffectRow],
    writer: ResolutionWriter,
    texts: dict[int, str],
) -> None:
    """What applying ``effect`` did, in the batch: the report's line, the character's new
    state in memory, its resolution (to the writer) and its sheet's text, the effect
    done, the effects it cancels, then those it schedules (in that order: a result may
    replace an effect under the same key)."""
    choice = resolution.pending_choice
    state_before = ruleset.status(character.sheet)
    state_after = ruleset.status(result.sheet)
    batch.report.add(
        character_id=character.pk,
        name=character.name,
        state_before=state_before,
        state_after=state_after,
        clock=effect.due_at,
        resolution=resolution,
        summary=resolution.summary,
        notable=notable_marks(
            effect_kind=effect.kind,
            state_before=state_before,
            state_after=state_after,
            sheet_before=character.sheet,
            sheet_after=result.sheet,
            outcome=result.outcome,
            choice=choice is not None,
        ),
        # not told to players until revealed (G-4, rules.log.redaction)
        hidden=not entry_told(resolution, applies_hidden_effect=effect.hidden),
    )
    character.sheet = result.sheet
    character.version = resolution.version
    character.pending_choice = choice
    batch.changed_characters[character.pk] = character
    batch.resolutions.append(resolution)
    writer.add(resolution)
    if (text := resolution.texts.get("sheet_after")) is not None:
        texts[character.pk] = text
    effect.state = EffectState.DONE
    batch.touched.append(effect)
    batch.applied.append((resolution, effect))
    batch.cancel(character.pk, result.cancel_effects, loaded, resolution)
    new_effects = scheduled_effect_rows(resolution=resolution, result=result)
    batch.new_effects.extend(new_effects)
    if new_effects:
        earliest = min(e.due_at for e in new_effects)
        if batch.earliest_new is None or earliest < batch.earliest_new:
            batch.earliest_new = earliest
    batch.handled += 1
    batch.last_minute = effect.due_at


def write_batch(batch: Batch, defer: bool = False) -> None:
    """Write a batch in bulk: the same rows ``rules.play.services.persist_result``
    writes one by one. ``defer``: its effects' and sheets' update is left to run with
    the job's end (``batch.deferred``), when nothing else of it must follow that."""
    # The resolutions are in already (ResolutionWriter): link each applied effect to its
    # own (its id, and those of the resolutions that cancelled or scheduled effects, are
    # read from the rows as the effects are written: EffectRow).
    for resolution, effect in batch.applied:
        effect.resolution = resolution
    copy = use_copy()
    now = timezone.now()
    for character in batch.changed_characters.values():
        character.updated_at = now
    # What each effect the batch touched becomes; on PostgreSQL the sheets too, in the
    # same statement (rules.log.sql_writes.effects_and_sheets), as the log sets them.
    effect_columns = ["state", "resolution", "cancelled_by"]
    sheets_set = copy and bool(batch.touched) and bool(batch.changed_characters)
    changed, missing = len(batch.touched), 0
    if sheets_set and defer and not batch.cancelled_keys:  # which must find them written
        batch.deferred = effects_and_sheets_ctes(
            batch.touched, effect_columns, batch.resolutions, now
        )
    elif sheets_set:
        changed, missing = effects_and_sheets(batch.touched, effect_columns, batch.resolutions, now)
    elif batch.touched:
        changed = bulk_set(
            ScheduledEffect,
            batch.touched if copy else [effect.model() for effect in batch.touched],
            effect_columns,
            where_pending=True,
        )
    _written_whole(batch, changed, missing)
    for character_id, keys, by in batch.cancelled_keys:
        ScheduledEffect.objects.filter(
            character_id=character_id, key__in=keys, state=EffectState.PENDING
        ).update(state=EffectState.CANCELLED, cancelled_by_id=by.pk)
    if batch.new_effects:
        if copy:
            copy_rows(ScheduledEffect, batch.new_effects, with_pk=False)
        else:
            ScheduledEffect.objects.bulk_create([effect.model() for effect in batch.new_effects])
    if batch.changed_characters and not sheets_set:
        if copy:
            if missing := sheets_from_log(batch.resolutions, now):
                raise ClockConflict(f"{missing} characters' sheets were not set; batch undone")
        else:
            characters = list(batch.changed_characters.values())
            bulk_set(Character, characters, ["sheet", "version", "pending_choice", "updated_at"])


def _written_whole(batch: Batch, changed: int, missing: int) -> None:
    """Compare-and-set: every effect the batch applied or cancelled was still pending
    (``changed`` of them), and every character's row was there."""
    if changed != len(batch.touched):
        raise ClockConflict(
            f"{len(batch.touched) - changed} effects were no longer pending; batch undone"
        )
    if missing:
        raise ClockConflict(f"{missing} characters' sheets were not set; batch undone")


def write_deferred(batch: Batch, counts: tuple[int, ...] | None = None) -> None:
    """The batch's deferred update (write_batch): ``counts`` as the statement it ran in
    returned them (job_end_written), else run now; checked as write_batch checks it."""
    assert batch.deferred is not None
    (ctes, characters), batch.deferred = batch.deferred, None
    changed, sheets = counts if counts is not None else counted_run(ctes)
    _written_whole(batch, changed, characters - sheets)


def job_end_written(
    campaign: Campaign, job: ClockJob, fields: list[str], report: Any, batch: Batch
) -> None:
    """``rules.log.statements.write_job_end``, the last batch's deferred update ahead of
    it in its statement (a round trip fewer, issue 39)."""
    ahead = batch.deferred[0] if batch.deferred is not None else None
    counts = write_job_end(campaign, job, fields, report, ahead)
    if ahead is not None:
        write_deferred(batch, counts)


def job_start(job: ClockJob, campaign: Campaign, now: datetime) -> None:
    """A job's target and start, fixed in its first batch (at the campaign's clock then)."""
    if job.target is None:
        # "until <date>": the date, or where the clock is if an earlier job passed it
        until = job.until
        job.target = campaign.clock + job.minutes if until is None else max(until, campaign.clock)
        job.clock_start = campaign.clock
        job.state = ClockJobState.RUNNING
        job.started_at = now


def job_apply_batch(
    campaign: Campaign,
    job: ClockJob,
    due: list[EffectRow] | None = None,
    known: KnownSheets | None = None,
    tables: Mapping[str, Any] | None = None,
    defer: bool = False,
) -> Batch:
    """Apply and write the job's next batch of due effects; move ``campaign`` and ``job``
    in memory (the caller writes them: the clock, the dice counter, the job's state).

    ``due``: every effect due by the job's target, read already under the campaign's
    lock (an action's job, rules.clock.services.clock_job_send): not read again.
    ``known``: the sheets the job's earlier batches left (:data:`KnownSheets`);
    ``tables``: the campaign's edited tables, if the caller knows them; ``defer``: the
    caller writes the job's end with :func:`job_end_written` (write_batch)."""
    target = job.target
    assert target is not None  # set by job_start
    limit = batch_size()
    if due is not None and len(due) <= limit:
        loaded, complete = due, True
    else:
        # As plain rows, not models (rules.log.rows: issue 39).
        loaded = [
            EffectRow.loaded(values)
            for values in due_effects(campaign.pk, target).values_list(*EffectRow.COLUMNS)[:limit]
        ]
        # fewer than asked for: every effect due by the target is in this batch
        complete = len(loaded) < limit
    with cycle_collector_paused():
        batch = run_effects(campaign, loaded, known, tables) if loaded else Batch()
        # deferred only if nothing below reads what it writes (no count of what is left)
        write_batch(batch, defer=defer and complete)
    if batch.last_minute is not None:
        campaign.clock = max(campaign.clock, batch.last_minute)
    # What is still due by the target once this batch is written (the effects it
    # scheduled included): nothing, and the job ends here rather than in a batch of
    # its own that would find nothing (docs/clock.md, "A clock job's fixed cost").
    remaining = 0
    if complete:
        # Nothing due by the target was left unread: what is still due is what this batch
        # left pending (after a stop) or scheduled, known here without a count (issue 39).
        remaining = sum(
            1
            for effect in (*loaded, *batch.new_effects)
            if effect.state == EffectState.PENDING and effect.due_at <= target
        )
    elif loaded:
        remaining = due_effects(campaign.pk, target).count()
    if batch.stop is not None:
        reason, character, minute = batch.stop
        campaign.clock = max(campaign.clock, minute)
        job.state = ClockJobState.WAITING
        job.reason = reason
        job.waiting_on = character
    elif not remaining:
        campaign.clock = max(campaign.clock, target)
        job.state = ClockJobState.DONE
        job.finished_at = job.heartbeat_at
    job.done += batch.handled
    job.total = job.done + remaining
    job.skipped = [*job.skipped, *batch.skipped]
    job.clock_reached = campaign.clock
    if batch.deferred is not None and job.state == ClockJobState.RUNNING:
        write_deferred(batch)  # the job's next batch reads what this one wrote
    return batch
