"""The campaign clock: scheduled effects applied in time order, exactly once (docs/clock.md).

A referee's advance (or a live campaign's tick) is a :class:`~rules.clock.models.ClockJob`
row; a Celery task (``rules.tasks.advance_clock``) runs :func:`clock_advance_run`,
which works through the campaign's jobs oldest first, in small batches:

* each batch is one transaction that locks the campaign row (so two advances, and
  any action in the campaign, are serialized), then the characters it touches, and
  applies the next pending effects in ``(due_at, id)`` order: every effect of the
  party in strict time order, with the campaign's HMAC dice, so one long advance and
  many short ones apply the same effects at the same minutes with the same rolls;
* an effect's state moves ``pending -> done`` by compare-and-set in the same
  transaction that writes its resolution, and the database holds one resolution per
  effect at most (``one_resolution_per_effect``): a retried, duplicated or concurrent
  task can never apply an effect twice, and a worker killed mid-advance leaves whole
  batches applied or not at all; the re-delivered task continues where it stopped;
* an effect that ends on a pending choice stops the clock at its minute (ruling G-3),
  as does an effect due for a character already waiting on one; the job says why and
  the referee resumes it once the choice is answered.

A batch is ``rules.clock.batch`` (applied in memory, written in bulk by
``rules.log.sql_writes``); sending jobs to the workers, in their campaign's turn, is
``rules.clock.queue``; live clocks ``rules.clock.live``; the watchdog
``rules.clock.watchdog``; the words ``rules.clock.text``. The result is the same as
applying each effect alone with :func:`rules.play.services.run_step` (a test compares
both). Effects scheduled during a batch are written at its end and join the queue in the
next batch, before any effect due after them.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Mapping
from datetime import datetime
from functools import cache, partial
from typing import Any

from django.core.exceptions import ValidationError
from django.db import (
    IntegrityError,
    InterfaceError,
    OperationalError,
    connection,
    transaction,
)
from django.db.models import BooleanField, PositiveBigIntegerField
from django.db.models.expressions import RawSQL
from django.utils import timezone, translation
from django.utils.translation import gettext

from campaigns.access import refuse_archived
from campaigns.models import Campaign
from campaigns.services import campaign_lock
from characters.models import Character
from core.collector import cycle_collector_paused
from core.errors import ResolutionConflict
from core.said import said
from core.savepoints import savepoint_left_to_commit
from rules.clock import queue
from rules.clock.batch import Batch, KnownSheets, job_apply_batch, job_end_written, job_start
from rules.clock.due import UNFINISHED_STATES_SQL, earlier_jobs, first_due
from rules.clock.events import publish_clock_job, publish_clock_report
from rules.clock.models import (
    UNFINISHED_JOB_STATES,
    ClockEntry,
    ClockEntryKind,
    ClockJob,
    ClockJobKind,
    ClockJobState,
    ClockReport,
)
from rules.clock.report import report_add_batch
from rules.clock.text import duration_words
from rules.engine.words import text_said
from rules.log.events import publish_resolutions
from rules.log.models import EffectState, ScheduledEffect
from rules.log.rows import EffectRow
from rules.log.statements import insert_row
from webhooks.services import endpoints_held

logger = logging.getLogger(__name__)

MAX_ADVANCE_MINUTES = 10 * 365 * 24 * 60  # ten years of in-game time at once (G-1)


# -- starting and resuming -------------------------------------------------------------------
def clock_job_unsaved(
    *,
    campaign_id: int,
    minutes: int,
    requested_by: Any = None,
    request_id: str = "",
    kind: str = ClockJobKind.ADVANCE,
) -> ClockJob:
    """The job row an advance starts with, checked and not yet saved: by
    :func:`clock_advance_start`, by the action's own statement (``rules.play.services``),
    or by :func:`clock_job_send`, which runs or sends an action's job."""
    if isinstance(minutes, bool) or not isinstance(minutes, int) or minutes < 1:
        raise ValidationError({"minutes": [gettext("advance the clock by at least one minute")]})
    if minutes > MAX_ADVANCE_MINUTES:
        raise ValidationError(
            {
                "minutes": [
                    gettext("advance the clock by at most %(count)s minutes")
                    % {"count": MAX_ADVANCE_MINUTES}
                ]
            }
        )
    user = requested_by if getattr(requested_by, "is_authenticated", False) else None
    return ClockJob(
        campaign_id=campaign_id,
        kind=kind,
        requested_by=user,
        request_id=request_id,
        minutes=minutes,
    )


# An unsaved job's place among its campaign's: after all (the action holds its lock).
_UNSAVED = 2**63 - 1
# An action's job runs in the action's own transaction when it is its campaign's next and
# finds at most this many effects due by its target; a worker runs the others. Measured
# (docs/clock.md, "A clock job's fixed cost"): a job's fixed cost on a worker is several
# times what 16 effects cost applied where the action already holds the locks.
INLINE_EFFECTS = 16
# Effects the job's first batches schedule may fall due before its target too: the action
# runs at most this many batches and leaves the rest of the job to a worker.
INLINE_BATCHES = 2


def clock_job_send(job: ClockJob, campaign: Campaign, *, webhooked: bool = True) -> None:
    """An action's job: run it here if it is small enough, else send it once the
    transaction commits, in its campaign's turn. The caller holds ``campaign``'s row lock
    (its clock, read under it, is where the job starts) and wrote everything the action
    schedules. Run here, the job is the same job as on a worker (:func:`_run_inline`):
    the same rows, report, events, stop at a decision, in the action's transaction; the
    action's answer is the action's (what the job did reaches pages by its events). A job
    not saved yet is written once, as it ends here, else before it is sent.
    ``webhooked``: False when the caller read under the lock that the campaign has no
    webhook URL."""
    assert job.until is None  # an action's time: its target is the clock plus its minutes
    unsaved = job.pk is None
    before = _UNSAVED if unsaved else job.pk
    rows = first_due(job.campaign_id, campaign.clock + job.minutes, before, INLINE_EFFECTS + 1)
    # not its turn: the earlier job's task sends this one in its turn (rules.clock.queue)
    turn = not (rows[0][-2] if rows else earlier_jobs(job.campaign_id, before).exists())
    if turn and len(rows) <= INLINE_EFFECTS:
        due = [EffectRow.loaded(row[:-2]) for row in rows]
        # none edited: the ruleset's own tables (one edited meanwhile: as if just after)
        tables: dict[str, Any] | None = None if rows and rows[0][-1] else {}
        try:
            # One savepoint: a failure here leaves the action whole (released by its COMMIT)
            with savepoint_left_to_commit(), endpoints_held(job.campaign_id, none=not webhooked):
                if not _run_inline(job, campaign, due, tables):
                    return
        except (OperationalError, InterfaceError):
            raise
        except Exception:
            if unsaved:  # its row, if written, was rolled back with the savepoint
                job.pk, job._state.adding = None, True
            # The worker runs it again, and records the failure as it would have.
            logger.exception("clock job of campaign %s failed in its action", job.campaign_id)
    if job.pk is None:
        insert_row(job)
    if turn:
        queue.enqueue(job.pk)


# -- a move that crosses nothing (docs/clock.md, "A move that crosses nothing") ---------------
@cache
def _quiet_text(vendor: str) -> str:
    """SQL true while nothing of a campaign stands between its clock and a target: no
    pending effect due by then (the earliest pending one, first in the index's order, is
    later), no unfinished job (:func:`_quiet_sql` gives its parameters). Names from the
    models' metadata and the job states only; made once per database ``vendor``.

    Shaped for a prepared statement's generic plan, which does not know the campaign:
    ``EXISTS`` of a due effect, where one campaign held most effects, was planned as a scan
    of the whole table (rules/play/tests/test_action_queries.py)."""
    assert vendor == connection.vendor
    quote = connection.ops.quote_name
    effects, jobs = ScheduledEffect._meta, ClockJob._meta
    due_at = quote(effects.get_field("due_at").column)
    return (
        f"COALESCE((SELECT {due_at} FROM {quote(effects.db_table)} WHERE "  # noqa: S608
        f"{quote(effects.get_field('campaign').column)} = %s "
        f"AND {quote(effects.get_field('state').column)} = %s "
        f"ORDER BY {due_at} LIMIT 1) > %s, TRUE) "
        f"AND NOT EXISTS (SELECT 1 FROM {quote(jobs.db_table)} WHERE "
        f"{quote(jobs.get_field('campaign').column)} = %s "
        f"AND {quote(jobs.get_field('state').column)} IN ({UNFINISHED_STATES_SQL}))"
    )


def _quiet_sql(campaign_id: int, target: int) -> tuple[str, list[Any]]:
    """:func:`_quiet_text` for the campaign and ``target``, with its parameters."""
    params = [campaign_id, EffectState.PENDING.value, target, campaign_id]
    return _quiet_text(connection.vendor), params


@cache
def _clock_value_text(vendor: str) -> str:
    """:func:`clock_quiet_value`'s text, the same for every campaign."""
    clock = connection.ops.quote_name(Campaign._meta.get_field("clock").column)
    return f"CASE WHEN {clock} = %s AND {_quiet_text(vendor)} THEN %s ELSE {clock} END"


def clock_quiet_value(campaign: Campaign, minutes: int) -> RawSQL:
    """The campaign's clock after ``minutes`` as an SQL value for an update of its row:
    moved by them when nothing stands in between (:func:`_quiet_text`), else unchanged (a
    job must move it). Compare-and-set on the clock the caller read under the campaign's
    lock; evaluated by the statement that writes it, after every writer of effects and
    jobs (each holds that lock) committed. Its text is the same for every campaign
    (compiled once: rules.log.statements)."""
    _, params = _quiet_sql(campaign.pk, campaign.clock + minutes)
    return RawSQL(  # noqa: S611 - names from the models, values as parameters
        _clock_value_text(connection.vendor),
        (campaign.clock, *params, campaign.clock + minutes),
        output_field=PositiveBigIntegerField(),
    )


def clock_move_quiet(campaign: Campaign, minutes: int) -> bool:
    """Move the clock by ``minutes`` at once, with no job, if nothing stands in between
    (:func:`_quiet_text`); whether it moved. The caller holds the campaign's row lock and
    has written everything it schedules; one statement, compare-and-set on the clock."""
    quiet, params = _quiet_sql(campaign.pk, campaign.clock + minutes)
    moved = (
        Campaign.objects.filter(pk=campaign.pk, clock=campaign.clock)
        .filter(RawSQL(quiet, params, output_field=BooleanField()))  # noqa: S611 - as above
        .update(clock=campaign.clock + minutes)
    )
    if moved:
        campaign.clock += minutes
    return bool(moved)


def clock_advance_start(
    *,
    campaign_id: int,
    minutes: int,
    requested_by: Any = None,
    request_id: str = "",
    kind: str = ClockJobKind.ADVANCE,
    locked: Campaign | None = None,
    until: int | None = None,
) -> ClockJob:
    """Create an advance job and enqueue its task; the same ``request_id`` gives the same job.
    ``locked``: the campaign row the caller's transaction holds locked already (not
    fetched and locked again); ``kind``: who asked, the referee (``advance``) or an action
    that took time (``action``, rules.clock.action_time).

    The job's target is fixed when it starts (the clock then, plus ``minutes``), after
    every earlier job of the campaign: two advances asked for at once add up. A
    referee's advance that crosses nothing (:func:`clock_move_quiet`) moves the clock in
    this transaction and its job is done when it is returned."""
    job = clock_job_unsaved(
        campaign_id=campaign_id,
        minutes=minutes,
        requested_by=requested_by,
        request_id=request_id,
        kind=kind,
    )
    job.until = until
    if request_id:
        existing = ClockJob.objects.filter(campaign_id=campaign_id, request_id=request_id).first()
        if existing is not None:
            return existing
    if kind == ClockJobKind.ADVANCE:
        # The referee asked: say so if it cannot run now. An action's job needs no broker:
        # it waits in the database for the watchdog instead.
        queue.require_broker()
    try:
        # In the caller's transaction and lock, no savepoint without a request id (no conflict)
        with transaction.atomic(savepoint=locked is None or bool(request_id)):
            # Under the campaign's lock, as archiving (rules.play.dice_rotation.campaign_archive).
            if locked is None or locked.pk != campaign_id:
                locked = campaign_lock(campaign_id)
            refuse_archived(locked)
            start = locked.clock
            if kind == ClockJobKind.ADVANCE and clock_move_quiet(locked, minutes):
                # Nothing falls due on the way: the clock moved at once, the job is
                # recorded done (its id answers the request), no task runs.
                now = timezone.now()
                job.state, job.clock_start = ClockJobState.DONE, start
                job.target = job.clock_reached = locked.clock
                job.started_at = job.finished_at = now
                job.save(force_insert=True)
                publish_clock_job(job)
            else:
                job.save(force_insert=True)
                queue.enqueue_in_turn(job)
            if kind == ClockJobKind.ADVANCE:  # the referee's: an entry of the campaign log
                ClockEntry.objects.create(
                    campaign_id=campaign_id,
                    kind=ClockEntryKind.ADVANCE,
                    actor=job.requested_by,
                    clock=start,
                    minutes=minutes,
                    words=_advance_words(minutes, until is None),
                    job=job,
                )
    except IntegrityError:  # the same request twice at once: the other one created it
        if not request_id:
            raise
        return ClockJob.objects.get(campaign_id=campaign_id, request_id=request_id)
    return job


def clock_catch_up_start(*, campaign: Campaign, requested_by: Any = None) -> ClockJob:
    """Queue a job that applies the campaign's overdue effects without moving the clock.

    An undo or a redo brings back effects as they were (rules.play.undo), some of them
    due already: this job applies them at once, in time order, each at its own minute,
    as any advance would, behind the campaign's earlier jobs. Its target is the clock
    when it starts; a decision on the way stops it (ruling G-3). The caller holds the
    campaign row lock; the task runs once the transaction commits, or, while the broker
    is down, once the watchdog sends it."""
    user = requested_by if getattr(requested_by, "is_authenticated", False) else None
    job = ClockJob(campaign=campaign, kind=ClockJobKind.CATCH_UP, requested_by=user, minutes=0)
    job.save(force_insert=True)
    queue.enqueue_in_turn(job)
    return job


def clock_job_resume(*, job_id: int, actor: Any = None) -> ClockJob:
    """Enqueue a job again: after its choice is answered, after a failure, or a lost task.

    ``actor``: who resumed it, for the campaign log (a ``resume`` entry)."""
    queue.require_broker()
    with transaction.atomic():
        campaign_id = ClockJob.objects.values_list("campaign_id", flat=True).get(pk=job_id)
        campaign = campaign_lock(campaign_id)  # lock first
        refuse_archived(campaign)
        job = ClockJob.objects.select_for_update().get(pk=job_id)
        if job.state == ClockJobState.DONE:
            raise ResolutionConflict(gettext("clock job %(job)s is already done") % {"job": job.pk})
        if job.state == ClockJobState.QUEUED:
            ahead = (
                ClockJob.objects.filter(
                    campaign=campaign, pk__lt=job.pk, state=ClockJobState.WAITING
                )
                .values_list("pk", flat=True)
                .first()
            )
            if ahead is not None:  # issue 34: queued behind a decision, not lost
                raise ResolutionConflict(
                    gettext(
                        "Clock job %(job)s waits its turn behind clock job %(ahead)s, which "
                        "stopped on a choice: answer it, then resume that one; this one follows."
                    )
                    % {"job": job.pk, "ahead": ahead}
                )
        if job.state == ClockJobState.WAITING and job.waiting_on_id is not None:
            character = Character.objects.get(pk=job.waiting_on_id)
            if character.pending_choice is not None:
                raise ResolutionConflict(  # ruling G-3: the clock waits on the decision
                    gettext("%(name)s still waits on a choice: %(prompt)s Answer it first.")
                    % {
                        "name": character.name,
                        "prompt": said(text_said("prompt", character.pending_choice)),
                    }
                )
        if job.state in (ClockJobState.WAITING, ClockJobState.FAILED):
            job.state = ClockJobState.RUNNING if job.target is not None else ClockJobState.QUEUED
            job.reason = ""
            job.waiting_on = None
            job.finished_at = None
            job.heartbeat_at = timezone.now()
            job.save(
                update_fields=[
                    "state",
                    "reason",
                    "waiting_on",
                    "finished_at",
                    "heartbeat_at",
                    "updated_at",
                ]
            )
        ClockEntry.objects.create(
            campaign=campaign,
            kind=ClockEntryKind.RESUME,
            actor=actor if getattr(actor, "is_authenticated", False) else None,
            clock=campaign.clock,
            words="resumed the clock",
            job=job,
        )
        queue.enqueue(job.pk)
    return job


# -- the advance -----------------------------------------------------------------------------
def clock_advance_run(*, job_id: int) -> ClockJob | None:
    """Run the campaign's unfinished jobs, oldest first, until ``job_id`` is finished or waits.

    Safe to call any number of times, at once or one after the other (retries,
    duplicated deliveries, a second worker): every batch re-reads the state under the
    campaign lock and moves effects by compare-and-set.
    """
    known: KnownSheets = {}  # the sheets each batch left, for the next (rules.clock.batch)
    try:
        more = True
        while more:
            with cycle_collector_paused():  # until the batch's objects are freed
                more = _advance_batch(job_id, known)
    except ClockJob.DoesNotExist:
        return None  # its campaign was deleted
    except (OperationalError, InterfaceError):
        raise  # the database went away: the task retries, the job stays as it was
    except Exception as error:
        logger.exception("clock job %s failed", job_id)
        with transaction.atomic():
            # the campaign's lock first (the lock order), as for every job's next turn
            Campaign.objects.select_for_update().filter(clock_jobs=job_id).first()
            failed = ClockJob.objects.filter(pk=job_id, state__in=UNFINISHED_JOB_STATES).update(
                state=ClockJobState.FAILED,
                reason=f"failed: {type(error).__name__}: {error}"[:2000],
                finished_at=timezone.now(),
                updated_at=timezone.now(),
            )
            job = ClockJob.objects.filter(pk=job_id).first()
            if failed and job is not None:
                publish_clock_job(job)
                queue.enqueue_next(job.campaign_id, after=job.pk)  # the campaign's clock goes on
    return ClockJob.objects.filter(pk=job_id).first()


def _advance_batch(job_id: int, known: KnownSheets | None = None) -> bool:
    """One transaction of the advance; True when there is more to do for ``job_id``.
    ``known``: the sheets the run's earlier batches left, brought up to date here (a
    failure raises, and the run and what it knew end with it)."""
    with transaction.atomic():
        campaign_id = ClockJob.objects.values_list("campaign_id", flat=True).get(pk=job_id)
        campaign = campaign_lock(campaign_id)
        jobs = list(
            ClockJob.objects.select_for_update()
            .filter(campaign=campaign, state__in=UNFINISHED_JOB_STATES, pk__lte=job_id)
            .order_by("id")[:1]
        )
        # Ours is finished (a duplicated delivery), or the clock waits on a choice.
        if not jobs or jobs[0].state == ClockJobState.WAITING:
            return False
        job = jobs[0]  # ours, or an earlier job of the campaign that must run first
        now = timezone.now()
        job.heartbeat_at = now
        # The campaign's later jobs wait their turn (not sent yet, or ours): alive too.
        ClockJob.objects.filter(
            campaign=campaign, state=ClockJobState.QUEUED, pk__gt=job.pk
        ).update(heartbeat_at=now)
        job_start(job, campaign, now)
        report = _job_report(job, campaign, now)
        batch = job_apply_batch(campaign, job, known=known)
        if known is not None:
            known.update(batch.sheets)
        campaign.save(update_fields=["clock", "dice_counter"])
        _report_batch(report, job, batch, campaign, now)
        job.save()
        if batch.resolutions:  # made as models only for a campaign with webhooks
            publish_resolutions(
                campaign.pk, campaign.ruleset, lambda: batch.resolution_models(campaign)
            )
        if job.state != ClockJobState.RUNNING:
            # What it did, then its state (``clock_job.updated`` stays the last word). A
            # live tick's report gathers the hour: sent when the tick changed someone.
            if job.kind != ClockJobKind.LIVE or batch.report.entries:
                publish_clock_report(job, report)
            publish_clock_job(job)
        if job.state == ClockJobState.DONE and job.pk == job_id:
            queue.enqueue_next(campaign.pk, after=job.pk)  # the campaign's next job, in its turn
        return job.pk != job_id or job.state == ClockJobState.RUNNING


# The job's columns its batches move (with its report and ``updated_at``).
_JOB_PROGRESS = [
    "state",
    "started_in_action",
    "clock_start",
    "target",
    "clock_reached",
    "done",
    "total",
    "reason",
    "waiting_on",
    "skipped",
    "started_at",
    "finished_at",
    "heartbeat_at",
]


def _run_inline(
    action_job: ClockJob,
    locked: Campaign,
    due: list[EffectRow],
    tables: Mapping[str, Any] | None = None,
) -> bool:
    """Run an action's job (:func:`clock_job_send`) for up to ``INLINE_BATCHES`` batches;
    True when a worker must finish it. The same batches as :func:`_advance_batch`, the
    same rows and events, without what the held lock already answers: the campaign is
    the action's, locked and current; the job is this transaction's (unsaved, or saved
    under that lock), so no one else holds or runs it, and no later job of the campaign
    exists to keep alive or send next. Its report is built in memory and written once,
    whole, with the campaign's and the job's rows (inserted if unsaved) in one statement
    (``rules.log.statements.write_job_end``), when the job stops or leaves. ``tables``:
    the campaign's edited tables as read with ``due`` (None: each batch reads them).
    Copies of the caller's rows (the job gets its id back): the action's answer is the
    action's, and a failure rolled back leaves them as they were."""
    job, campaign = copy.copy(action_job), copy.copy(locked)
    job.started_in_action = True
    start = campaign.clock
    report = ClockReport(
        campaign=campaign,
        kind=job.kind,
        requested_by_id=job.requested_by_id,
        clock_from=start,
        clock_to=start,
    )
    characters: list[dict[str, Any]] = []
    first: list[EffectRow] | None = due  # read by clock_job_send: its first batch
    for _ in range(INLINE_BATCHES):
        now = timezone.now()
        job.heartbeat_at = now
        if report.updated_at is None:
            report.updated_at = now  # as made by the first batch
        job_start(job, campaign, now)
        batch = job_apply_batch(campaign, job, first, tables=tables, defer=True)
        first = None
        report.clock_to = max(report.clock_to, campaign.clock)
        if batch.report.entries:
            characters = batch.report.merged_into(characters)
            report.updated_at = now
        if batch.resolutions:  # made as models only for a campaign with webhooks
            publish_resolutions(
                campaign.pk, campaign.ruleset, partial(batch.resolution_models, campaign)
            )
        if job.state != ClockJobState.RUNNING:
            break
    report.characters = characters
    job_end_written(campaign, job, _JOB_PROGRESS, report, batch)  # inserted if unsaved
    action_job.pk, action_job._state.adding = job.pk, False
    if job.state == ClockJobState.RUNNING:
        return True
    publish_clock_report(job, report)  # then its state, the last word, as a worker's
    publish_clock_job(job)
    return False


def _report_batch(
    report: ClockReport, job: ClockJob, batch: Batch, campaign: Campaign, now: datetime
) -> None:
    """Add what the batch did to the job's report, and the span of the clock it covers."""
    report_add_batch(
        report,
        batch.report,
        catch_up=job.kind == ClockJobKind.CATCH_UP,
        clock=campaign.clock,
        now=now,
    )


def _job_report(job: ClockJob, campaign: Campaign, now: datetime) -> ClockReport:
    """The job's report (caller holds the campaign's lock): made when the job starts, or
    the hour's report a live tick was given (``rules.clock.live``)."""
    report = None
    if job.report_id is not None:
        # Not its events: a batch adds its own as a part (rules.clock.report).
        report = ClockReport.objects.filter(pk=job.report_id).defer("characters").first()
    start = job.clock_start if job.clock_start is not None else campaign.clock
    if report is None:
        report = ClockReport.objects.create(
            campaign=campaign,
            kind=job.kind,
            requested_by_id=job.requested_by_id,
            clock_from=start,
            clock_to=start,
            updated_at=now,
        )
        job.report = report
    elif start < report.clock_from:
        report.clock_from = start
        report.save(update_fields=["clock_from"])
    return report


def _advance_words(minutes: int, by: bool) -> str:
    """An advance's entry in English, as the row keeps it (rules.clock.text.entry_words
    says it in the reader's language)."""
    with translation.override("en"):
        ahead = duration_words(minutes)
    if by:
        return f"advanced the clock by {ahead}"
    return f"advanced the clock to a date, {ahead} ahead"
