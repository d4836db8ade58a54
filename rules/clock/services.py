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

The batch writes in bulk (a few queries per batch, not per effect): resolutions,
effect states, new effects, sheets. On PostgreSQL the resolutions stream into a COPY
while the batch applies its effects, and the new effects go in with COPY at its end.
The result is the same as applying each effect alone with
:func:`rules.play.services.run_step` (a test compares both). Effects scheduled
during a batch are written at its end and join the queue in the next batch, before
any effect due after them.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import ROUND_FLOOR, Decimal
from functools import partial
from typing import Any

from celery import Task, current_app
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import (
    IntegrityError,
    InterfaceError,
    OperationalError,
    connection,
    transaction,
)
from django.db.models import (
    BooleanField,
    PositiveBigIntegerField,
    TextField,
)
from django.db.models.expressions import RawSQL
from django.db.models.functions import Cast
from django.utils import timezone

from campaigns.access import refuse_archived
from campaigns.models import MAX_LIVE_RATIO, Campaign
from characters.choices import stored_choice
from characters.models import Character
from core.errors import BROKER_ERRORS, ResolutionConflict, ServiceUnavailable
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
from rules.clock.report import ReportBuilder, notable_marks
from rules.engine.interface import ActionBlocked, Context, RuleError
from rules.engine.registry import get_ruleset
from rules.log.context import campaign_tables
from rules.log.dice import campaign_dice
from rules.log.events import publish_resolutions
from rules.log.models import EffectState, Resolution, ResolutionKind, ScheduledEffect
from rules.log.redaction import entry_seen
from rules.log.services import build_resolution, build_scheduled_effects
from rules.log.sql_writes import ResolutionWriter, bulk_set, copy_rows, sheets_from_log, use_copy

logger = logging.getLogger(__name__)

# The advance task's name: it keeps the name it had before the clock had its own package,
# so messages queued by an older release still find it (rules.clock.tasks).
ADVANCE_CLOCK_TASK = "rules.tasks.advance_clock"

DEFAULT_BATCH_SIZE = 500
MAX_ADVANCE_MINUTES = 10 * 365 * 24 * 60  # ten years of in-game time at once (G-1)
# A queued or running job whose heartbeat is older than this has lost its task (its
# worker died, its message was lost with the broker): the watchdog enqueues it again
# (``SAWBONES_CLOCK_STALE_SECONDS``). Every batch beats, and a batch takes a second or
# two, so a live job is never this quiet; re-running a job is harmless anyway.
STALE_JOB_AFTER = timedelta(seconds=30)
_MICROSECONDS_PER_MINUTE = 60_000_000


class ClockConflict(RuntimeError):
    """An effect changed under a batch that held the campaign lock: roll the batch back."""


def effect_words(effect: ScheduledEffect) -> str:
    """A scheduled effect in words, for the reason the clock stopped: "wound 2 worsens"."""
    words = effect.kind.replace("_", " ")
    payload = effect.payload or {}
    if payload.get("wound") is not None and words.startswith("wound "):
        return f"wound {payload['wound']} {words.removeprefix('wound ')}"
    if payload.get("disease"):
        return f"{words} ({payload['disease']})"
    return words


def _batch_size() -> int:
    return int(getattr(settings, "SAWBONES_CLOCK_BATCH_SIZE", DEFAULT_BATCH_SIZE))


def _stale_after() -> timedelta:
    seconds = getattr(settings, "SAWBONES_CLOCK_STALE_SECONDS", None)
    return STALE_JOB_AFTER if seconds is None else timedelta(seconds=float(seconds))


def _advance_task() -> Task:
    """The advance task, found by its name in Celery's registry: the task module
    (rules.clock.tasks) calls this one, so this one does not import it."""
    return current_app.tasks[ADVANCE_CLOCK_TASK]


# In-process (embedded mode, tests) a task runs where it is sent: a job that sends its
# campaign's next one would run it inside itself, and a long line of jobs would nest that
# deep. The jobs sent while one runs wait here and run after it, one after the other.
_in_process = threading.local()


def _run_in_process(task: Task, job_id: int) -> None:
    waiting: list[int] | None = getattr(_in_process, "waiting", None)
    if waiting is not None:
        waiting.append(job_id)
        return
    _in_process.waiting = waiting = [job_id]
    try:
        while waiting:
            task.delay(waiting.pop(0))
    finally:
        _in_process.waiting = None


# A campaign's backlog (a job sent by the task that ended the one before it) goes at a
# lower priority than a campaign's first job: on Redis a worker takes every message of
# priority 0 before any of 6 (kombu's priority steps), so a quiet campaign's advance
# waits for no busy campaign's turn, and the busy ones take turns among themselves.
BACKLOG_PRIORITY = 6


def _send(job_id: int, *, backlog: bool = False) -> None:
    """Send the job's task; a broker that is down loses nothing (the watchdog sends it)."""
    task = _advance_task()
    if task.app.conf.task_always_eager:
        _run_in_process(task, job_id)
        return
    try:
        if backlog:
            task.apply_async((job_id,), priority=BACKLOG_PRIORITY)
        else:
            task.delay(job_id)
    except BROKER_ERRORS:
        # The job is in the database, queued or running, and its heartbeat goes stale:
        # the watchdog enqueues it once the broker is back.
        logger.warning("clock job %s: the broker is unreachable; the watchdog will send it", job_id)


def _enqueue(job_id: int, *, backlog: bool = False) -> None:
    """Run the job's task once the current transaction commits (in-process when embedded)."""
    transaction.on_commit(partial(_send, job_id, backlog=backlog))


# -- taking turns: one message per campaign in the queue ----------------------------------
# A campaign's jobs run one after the other in id order. So that a busy campaign (a
# thousand actions that took time) never holds a quiet one back, only a campaign's
# oldest unfinished job has a message in the queue: a new job behind an unfinished one is
# not sent, and the task that finishes a job sends the campaign's next one, to the back
# of the queue. Every campaign with work thus has at most one message waiting, and each
# takes its turn (issue 28). Both decisions are made under the campaign row lock, so a
# job is never left unsent; a job sent twice runs once (every batch re-reads the state).


def _enqueue_in_turn(job: ClockJob) -> None:
    """Send a new job (its transaction holds the campaign lock) unless an earlier job of
    its campaign is unfinished: that one's task sends it when its turn comes."""
    earlier = ClockJob.objects.filter(
        campaign_id=job.campaign_id, state__in=UNFINISHED_JOB_STATES, pk__lt=job.pk
    )
    if not earlier.exists():
        _enqueue(job.pk)


def _enqueue_next(campaign_id: int, after: int) -> None:
    """Send the campaign's next unfinished job once ``after`` is finished (caller holds the
    campaign lock); a job behind a decision waits for it (ruling G-3)."""
    following = (
        ClockJob.objects.filter(campaign_id=campaign_id, state__in=UNFINISHED_JOB_STATES)
        .order_by("id")
        .values_list("pk", "state")
        .first()
    )
    if following is not None and following[1] != ClockJobState.WAITING and following[0] != after:
        _enqueue(following[0], backlog=True)


def _require_broker() -> None:
    """Refuse (503) to start work while the broker cannot be reached: nothing is written.

    A job recorded while the broker is down would still run (the watchdog sends it once
    the broker is back), but its requester could not know: they are told to try again
    later instead, and ``request_id`` makes that retry safe.
    """
    app = _advance_task().app
    if app.conf.task_always_eager:
        return  # embedded mode: no broker
    try:
        with app.connection_for_write() as broker:
            broker.ensure_connection(max_retries=1, timeout=2)
    except BROKER_ERRORS as error:
        raise ServiceUnavailable(
            "The clock's task queue cannot be reached just now; nothing was changed. "
            "Try again in a minute."
        ) from error


# -- starting and resuming -------------------------------------------------------------------
def clock_job_unsaved(
    *,
    campaign_id: int,
    minutes: int,
    requested_by: Any = None,
    request_id: str = "",
    kind: str = ClockJobKind.ADVANCE,
) -> ClockJob:
    """The job row an advance starts with, checked and not yet saved.

    :func:`clock_advance_start` saves it; an action's time (``rules.clock.action_time``) is
    written with the action's own rows (``rules.play.services``) and sent with
    :func:`clock_job_send` once they are."""
    if isinstance(minutes, bool) or not isinstance(minutes, int) or minutes < 1:
        raise ValidationError({"minutes": ["advance the clock by at least one minute"]})
    if minutes > MAX_ADVANCE_MINUTES:
        raise ValidationError(
            {"minutes": [f"advance the clock by at most {MAX_ADVANCE_MINUTES} minutes"]}
        )
    user = requested_by if getattr(requested_by, "is_authenticated", False) else None
    return ClockJob(
        campaign_id=campaign_id,
        kind=kind,
        requested_by=user,
        request_id=request_id,
        minutes=minutes,
    )


def clock_job_send(job: ClockJob) -> None:
    """Run a job saved in the current transaction once it commits, in its campaign's turn
    (:func:`_enqueue_in_turn`)."""
    _enqueue_in_turn(job)


# -- a move that crosses nothing (docs/clock.md, "A move that crosses nothing") ---------------
def _quiet_sql(campaign_id: int, target: int) -> tuple[str, list[Any]]:
    """SQL true while nothing of the campaign stands between its clock and ``target``: no
    pending effect due by then, no unfinished job. Only names from the models' metadata
    go into the text; values are parameters."""
    quote = connection.ops.quote_name
    effects, jobs = ScheduledEffect._meta, ClockJob._meta
    states = ", ".join(["%s"] * len(UNFINISHED_JOB_STATES))
    sql = (
        f"NOT EXISTS (SELECT 1 FROM {quote(effects.db_table)} WHERE "  # noqa: S608
        f"{quote(effects.get_field('campaign').column)} = %s "
        f"AND {quote(effects.get_field('state').column)} = %s "
        f"AND {quote(effects.get_field('due_at').column)} <= %s) "
        f"AND NOT EXISTS (SELECT 1 FROM {quote(jobs.db_table)} WHERE "
        f"{quote(jobs.get_field('campaign').column)} = %s "
        f"AND {quote(jobs.get_field('state').column)} IN ({states}))"
    )
    params = [campaign_id, EffectState.PENDING.value, target, campaign_id]
    return sql, [*params, *(state.value for state in UNFINISHED_JOB_STATES)]


def clock_quiet_value(campaign: Campaign, minutes: int) -> RawSQL:
    """The campaign's clock after ``minutes`` as an SQL value for an update of its row:
    moved by them when nothing stands in between (:func:`_quiet_sql`), else unchanged (a
    job must move it). Compare-and-set on the clock the caller read under the campaign's
    lock; evaluated by the statement that writes it, after every writer of effects and
    jobs (each holds that lock) committed."""
    clock = connection.ops.quote_name(Campaign._meta.get_field("clock").column)
    quiet, params = _quiet_sql(campaign.pk, campaign.clock + minutes)
    return RawSQL(  # noqa: S611 - names from the models, values as parameters
        f"CASE WHEN {clock} = %s AND {quiet} THEN %s ELSE {clock} END",
        (campaign.clock, *params, campaign.clock + minutes),
        output_field=PositiveBigIntegerField(),
    )


def clock_move_quiet(campaign: Campaign, minutes: int) -> bool:
    """Move the clock by ``minutes`` at once, with no job, if nothing stands in between
    (:func:`_quiet_sql`); whether it moved. The caller holds the campaign's row lock and
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

    ``locked``: the campaign row the caller's transaction holds locked already (an
    action's time, rules.clock.action_time): not fetched and locked again.

    ``kind`` says who asked: the referee (``advance``) or an action that took time
    (``action``, rules.clock.action_time).

    The job's target is fixed when it starts (the clock then, plus ``minutes``), after
    every earlier job of the campaign: two advances asked for at once add up. A
    referee's advance that crosses nothing (:func:`clock_move_quiet`) moves the clock in
    this transaction and its job is done when it is returned.
    """
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
        # The referee asked: say so if it cannot run now. An action's time (kind
        # ``action``) is part of an action that needs no broker: its job waits in the
        # database for the watchdog instead.
        _require_broker()
    try:
        # Inside the caller's transaction and lock no savepoint is needed: without a
        # request id there is no unique conflict to recover from.
        with transaction.atomic(savepoint=locked is None or bool(request_id)):
            # Under the campaign's lock, as archiving (campaigns.services.campaign_archive).
            if locked is None or locked.pk != campaign_id:
                locked = Campaign.objects.select_for_update().get(pk=campaign_id)
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
                _enqueue_in_turn(job)
            if kind == ClockJobKind.ADVANCE:  # the referee's: an entry of the campaign log
                ClockEntry.objects.create(
                    campaign_id=campaign_id,
                    kind=ClockEntryKind.ADVANCE,
                    actor=job.requested_by,
                    clock=start,
                    minutes=minutes,
                    words=f"advanced the clock by {duration_words(minutes)}"
                    if until is None
                    else f"advanced the clock to a date, {duration_words(minutes)} ahead",
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
    _enqueue_in_turn(job)
    return job


def clock_job_resume(*, job_id: int, actor: Any = None) -> ClockJob:
    """Enqueue a job again: after its choice is answered, after a failure, or a lost task.

    ``actor``: who resumed it, for the campaign log (a ``resume`` entry)."""
    _require_broker()
    with transaction.atomic():
        campaign_id = ClockJob.objects.values_list("campaign_id", flat=True).get(pk=job_id)
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)  # lock first
        refuse_archived(campaign)
        job = ClockJob.objects.select_for_update().get(pk=job_id)
        if job.state == ClockJobState.DONE:
            raise ResolutionConflict(f"clock job {job.pk} is already done")
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
                    f"Clock job {job.pk} waits its turn behind clock job {ahead}, which "
                    "stopped on a choice: answer it, then resume that one; this one follows."
                )
        if job.state == ClockJobState.WAITING and job.waiting_on_id is not None:
            character = Character.objects.get(pk=job.waiting_on_id)
            if character.pending_choice is not None:
                raise ResolutionConflict(
                    # ruling G-3: the clock waits on the decision
                    f"{character.name} still waits on a choice: "
                    f"{character.pending_choice['prompt']} Answer it first."
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
        _enqueue(job.pk)
    return job


# -- the advance -----------------------------------------------------------------------------
def clock_advance_run(*, job_id: int) -> ClockJob | None:
    """Run the campaign's unfinished jobs, oldest first, until ``job_id`` is finished or waits.

    Safe to call any number of times, at once or one after the other (retries,
    duplicated deliveries, a second worker): every batch re-reads the state under the
    campaign lock and moves effects by compare-and-set.
    """
    try:
        while _advance_batch(job_id):
            pass
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
                _enqueue_next(job.campaign_id, after=job.pk)  # the campaign's clock goes on
    return ClockJob.objects.filter(pk=job_id).first()


@dataclass
class _Batch:
    """What one batch did, written in bulk at its end."""

    resolutions: list[Resolution] = field(default_factory=list)
    # Loaded effects whose state changed (done or cancelled), in order.
    touched: list[ScheduledEffect] = field(default_factory=list)
    # (resolution, effect) for each applied effect, to link them once ids exist.
    applied: list[tuple[Resolution, ScheduledEffect]] = field(default_factory=list)
    new_effects: list[ScheduledEffect] = field(default_factory=list)
    # Effects that existed before the batch but were not loaded, cancelled by key:
    # (character id, keys, the resolution that cancelled them), in order.
    cancelled_keys: list[tuple[int, set[str], Resolution]] = field(default_factory=list)
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

    def cancel(
        self,
        character_id: int,
        keys: Iterable[str],
        loaded: list[ScheduledEffect],
        by: Resolution,
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


def _advance_batch(job_id: int) -> bool:
    """One transaction of the advance; True when there is more to do for ``job_id``."""
    with transaction.atomic():
        campaign_id = ClockJob.objects.values_list("campaign_id", flat=True).get(pk=job_id)
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
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
        if job.target is None:
            # "until <date>": the date, or where the clock is if an earlier job passed it
            until = job.until
            job.target = (
                campaign.clock + job.minutes if until is None else max(until, campaign.clock)
            )
            job.clock_start = campaign.clock
            job.state = ClockJobState.RUNNING
            job.started_at = now
        report = _job_report(job, campaign, now)
        target = job.target
        loaded = list(
            ScheduledEffect.objects.filter(
                campaign=campaign, state=EffectState.PENDING, due_at__lte=target
            ).order_by("due_at", "id")[: _batch_size()]
        )
        batch = _run_effects(campaign, loaded) if loaded else _Batch()
        _write(batch)
        if batch.last_minute is not None:
            campaign.clock = max(campaign.clock, batch.last_minute)
        if batch.stop is not None:
            reason, character, minute = batch.stop
            campaign.clock = max(campaign.clock, minute)
            job.state = ClockJobState.WAITING
            job.reason = reason
            job.waiting_on = character
        elif not loaded:
            campaign.clock = max(campaign.clock, target)
            job.state = ClockJobState.DONE
            job.finished_at = now
        campaign.save(update_fields=["clock", "dice_counter"])
        job.done += batch.handled
        job.total = job.done
        if job.state != ClockJobState.DONE:
            job.total += ScheduledEffect.objects.filter(
                campaign=campaign, state=EffectState.PENDING, due_at__lte=target
            ).count()
        job.skipped = [*job.skipped, *batch.skipped]
        job.clock_reached = campaign.clock
        if job.kind == ClockJobKind.CATCH_UP:
            # It moves no clock: its report spans the minutes of the effects it applied,
            # all of them due before the clock it started at (issue 34).
            if (span := batch.report.span()) is not None:
                first, last = span
                if report.characters:  # an earlier batch's events
                    first, last = min(first, report.clock_from), max(last, report.clock_to)
                report.clock_from, report.clock_to = first, last
        else:
            report.clock_to = max(report.clock_to, campaign.clock)
        if batch.report.entries:
            report.characters = batch.report.merged_into(report.characters)
            report.updated_at = now
        report.save(update_fields=["clock_from", "clock_to", "characters", "updated_at"])
        job.save()
        publish_resolutions(campaign.pk, campaign.ruleset, batch.resolutions)
        if job.state != ClockJobState.RUNNING:
            # What it did, then its state (``clock_job.updated`` stays the last word). A
            # live tick's report gathers the hour: sent when the tick changed someone.
            if job.kind != ClockJobKind.LIVE or batch.report.entries:
                publish_clock_report(job, report)
            publish_clock_job(job)
        if job.state == ClockJobState.DONE and job.pk == job_id:
            _enqueue_next(campaign.pk, after=job.pk)  # the campaign's next job, in its turn
        return job.pk != job_id or job.state == ClockJobState.RUNNING


def _live_report(campaign: Campaign, now: datetime) -> ClockReport:
    """The report a live tick at real moment ``now`` adds to: its campaign's report of
    that real hour (made by the hour's first tick; caller holds the campaign's lock)."""
    hour = now.replace(minute=0, second=0, microsecond=0)
    report = ClockReport.objects.filter(campaign=campaign, hour=hour).first()
    if report is None:
        report = ClockReport.objects.create(
            campaign=campaign,
            kind=ClockJobKind.LIVE,
            clock_from=campaign.clock,
            clock_to=campaign.clock,
            hour=hour,
            updated_at=now,
        )
    return report


def _job_report(job: ClockJob, campaign: Campaign, now: datetime) -> ClockReport:
    """The job's report (caller holds the campaign's lock): made when the job starts, or
    the hour's report a live tick was given (:func:`_live_report`)."""
    report = None
    if job.report_id is not None:
        report = ClockReport.objects.filter(pk=job.report_id).first()
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


def _run_effects(campaign: Campaign, loaded: list[ScheduledEffect]) -> _Batch:
    """Apply the loaded effects in order, in memory; stop where the rules say so."""
    ruleset = get_ruleset(campaign.ruleset)
    options = {**ruleset.options, **campaign.options}
    tables = campaign_tables(campaign)
    locked = (
        Character.objects.select_for_update()
        .filter(pk__in={e.character_id for e in loaded})
        .order_by("pk")
    )
    if use_copy():
        # Each sheet as JSON text too, for its first resolution's sheet before: the COPY
        # sends it as it came instead of encoding it again (ResolutionWriter).
        locked = locked.annotate(sheet_json=Cast("sheet", TextField()))
    characters = {c.pk: c for c in locked}
    batch = _Batch()
    # The resolutions go to the database as they are made (ResolutionWriter).
    with ResolutionWriter(len(loaded)) as writer:
        for character in characters.values():
            writer.known_text(character.sheet, getattr(character, "sheet_json", None))
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
                resolution = build_resolution(
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
                # The ruleset refuses this effect now (its wound was undone...): it is
                # cancelled and listed on the job for the referee; its dice are not used.
                effect.state = EffectState.CANCELLED
                batch.touched.append(effect)
                batch.skipped.append(
                    {
                        "effect": effect.pk,
                        "kind": effect.kind,
                        "character": character.pk,
                        "due_at": effect.due_at,
                        "error": str(error),
                    }
                )
                batch.handled += 1
                batch.last_minute = effect.due_at
                continue
            campaign.dice_counter = generator.counter
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
                hidden=not entry_seen(
                    resolution, referee=False, applies_hidden_effect=effect.hidden
                ).told,
            )
            character.sheet = result.sheet
            character.version = resolution.version
            character.pending_choice = choice
            batch.changed_characters[character.pk] = character
            batch.resolutions.append(resolution)
            writer.add(resolution)
            effect.state = EffectState.DONE
            batch.touched.append(effect)
            batch.applied.append((resolution, effect))
            batch.cancel(character.pk, result.cancel_effects, loaded, resolution)
            new_effects = build_scheduled_effects(resolution=resolution, result=result)
            batch.new_effects.extend(new_effects)
            if new_effects:
                earliest = min(e.due_at for e in new_effects)
                if batch.earliest_new is None or earliest < batch.earliest_new:
                    batch.earliest_new = earliest
            batch.handled += 1
            batch.last_minute = effect.due_at
            if choice is not None:  # ruling G-3: catch-up stops at a decision
                batch.stop = (
                    f"{character.name} has a choice to make after “{effect_words(effect)}” "
                    f"({choice['prompt']}). Answer it, then resume.",
                    character,
                    effect.due_at,
                )
                break
    return batch


def _write(batch: _Batch) -> None:
    """Write a batch in bulk: the same rows ``rules.play.services.persist_result``
    writes one by one."""
    # The resolutions are in already (ResolutionWriter): link each applied effect to its own.
    for resolution, effect in batch.applied:
        effect.resolution = resolution
    if batch.touched:
        for effect in batch.touched:  # the canceller has its id now
            _copy_canceller_id(effect)
        # Compare-and-set: every effect the batch applied or cancelled was still pending.
        changed = bulk_set(
            ScheduledEffect,
            batch.touched,
            ["state", "resolution", "cancelled_by"],
            where_pending=True,
        )
        if changed != len(batch.touched):
            raise ClockConflict(
                f"{len(batch.touched) - changed} effects were no longer pending; batch undone"
            )
    for character_id, keys, by in batch.cancelled_keys:
        ScheduledEffect.objects.filter(
            character_id=character_id, key__in=keys, state=EffectState.PENDING
        ).update(state=EffectState.CANCELLED, cancelled_by_id=by.pk)
    if batch.new_effects:
        # Their ``created_by`` resolutions have ids now: copy them to the column.
        for new_effect in batch.new_effects:
            assert new_effect.created_by is not None
            new_effect.created_by_id = new_effect.created_by.pk
            _copy_canceller_id(new_effect)
        if use_copy():
            copy_rows(ScheduledEffect, batch.new_effects, with_pk=False)
        else:
            ScheduledEffect.objects.bulk_create(batch.new_effects)
    if batch.changed_characters:
        now = timezone.now()
        characters = list(batch.changed_characters.values())
        for character in characters:
            character.updated_at = now
        if use_copy():
            if missing := sheets_from_log(batch.resolutions, now):
                raise ClockConflict(f"{missing} characters' sheets were not set; batch undone")
        else:
            bulk_set(Character, characters, ["sheet", "version", "pending_choice", "updated_at"])


def _copy_canceller_id(effect: ScheduledEffect) -> None:
    """The resolution that cancelled ``effect`` in this batch was set before it had an
    id (off PostgreSQL ids come with the bulk insert): copy it to the column."""
    if effect.state == EffectState.CANCELLED and effect.cancelled_by is not None:
        effect.cancelled_by_id = effect.cancelled_by.pk


# -- the live clock --------------------------------------------------------------------------
def duration_words(minutes: int) -> str:
    """In-game minutes for the log: "7 days", "1 hour 30 minutes"."""
    days, rest = divmod(int(minutes), 24 * 60)
    hours, mins = divmod(rest, 60)
    parts = [
        f"{n} {unit}{'' if n == 1 else 's'}"
        for n, unit in ((days, "day"), (hours, "hour"), (mins, "minute"))
        if n
    ]
    return " ".join(parts) or "0 minutes"


def ratio_words(ratio: Decimal) -> str:
    """A live clock's rate for people: "real time", "1 hour a minute", "2.5 minutes a minute"."""
    ratio = Decimal(ratio)
    if ratio == 1:
        return "real time"
    if ratio == ratio.to_integral_value():
        return f"{duration_words(int(ratio))} a minute"
    return f"{format(ratio.normalize(), 'f')} minutes a minute"


def _live_entry(campaign: Campaign, before: Decimal, after: Decimal, actor: Any) -> None:
    """The campaign log's entry for a change of the live clock (none when unchanged)."""
    if before == after:
        return
    if after == 0:
        kind, words = ClockEntryKind.LIVE_OFF, "stopped the live clock"
    elif before == 0:
        kind, words = ClockEntryKind.LIVE_ON, f"ran the clock with real time: {ratio_words(after)}"
    else:
        kind = ClockEntryKind.LIVE_RATE
        words = f"changed the live clock from {ratio_words(before)} to {ratio_words(after)}"
    ClockEntry.objects.create(
        campaign=campaign,
        kind=kind,
        actor=actor if getattr(actor, "is_authenticated", False) else None,
        clock=campaign.clock,
        words=words,
        ratio_before=before,
        ratio_after=after,
    )


def clock_live_set(
    *, campaign_id: int, ratio: Decimal, now: datetime | None = None, actor: Any = None
) -> Campaign:
    """Run the campaign's clock with real time at ``ratio`` game minutes per real minute.

    0 stops it. Time already elapsed at the old ratio is advanced first, so changing
    the ratio never loses or double-counts in-game time. A change is an entry of the
    campaign log, with ``actor``.
    """
    ratio = Decimal(ratio)
    if not Decimal(0) <= ratio <= Decimal(MAX_LIVE_RATIO):
        raise ValidationError(
            {"ratio": [f"a live clock runs at 0 to {MAX_LIVE_RATIO} minutes per real minute"]}
        )
    now = now or timezone.now()
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
        if ratio > 0:
            refuse_archived(campaign)
        if campaign.live_ratio > 0 and campaign.live_last_tick is not None:
            _tick_campaign(campaign, now, force=True)
        _live_entry(campaign, campaign.live_ratio, ratio, actor)
        campaign.live_ratio = ratio
        campaign.live_last_tick = now if ratio > 0 else None
        campaign.full_clean(exclude=["created_by"])
        campaign.save(update_fields=["live_ratio", "live_last_tick"])
    return campaign


def _live_minutes(ratio: Decimal, last_tick: datetime, now: datetime) -> tuple[int, datetime]:
    """Whole in-game minutes since ``last_tick`` and the real moment they end at."""
    elapsed = Decimal((now - last_tick) // timedelta(microseconds=1))
    minutes = int((elapsed * ratio / _MICROSECONDS_PER_MINUTE).to_integral_value(ROUND_FLOOR))
    if minutes <= 0:
        return 0, last_tick
    used = (Decimal(minutes) * _MICROSECONDS_PER_MINUTE / ratio).to_integral_value(ROUND_FLOOR)
    return minutes, last_tick + timedelta(microseconds=int(used))


def _tick_campaign(campaign: Campaign, now: datetime, *, force: bool = False) -> ClockJob | None:
    """Advance one live campaign by the real time since its last tick (caller in a transaction).

    The last tick moves by compare-and-set, so a duplicated or concurrent tick does
    nothing. While an earlier job is unfinished (waiting on a choice, say) the tick
    waits and the real time keeps counting: the next tick catches up.
    """
    last_tick = campaign.live_last_tick
    if campaign.live_ratio <= 0 or last_tick is None:
        return None
    if not force and campaign.clock_jobs.filter(state__in=UNFINISHED_JOB_STATES).exists():
        return None
    minutes, new_tick = _live_minutes(campaign.live_ratio, last_tick, now)
    if minutes == 0:
        return None
    moved = Campaign.objects.filter(
        pk=campaign.pk, live_last_tick=last_tick, live_ratio=campaign.live_ratio
    ).update(live_last_tick=new_tick)
    if moved != 1:
        return None  # another tick got there first
    campaign.live_last_tick = new_tick
    job = ClockJob.objects.create(
        campaign=campaign,
        kind=ClockJobKind.LIVE,
        minutes=minutes,
        report=_live_report(campaign, now),
    )
    _enqueue_in_turn(job)
    return job


def clock_live_tick(*, now: datetime | None = None) -> list[ClockJob]:
    """Celery beat's tick: advance every live campaign, and re-enqueue jobs whose task is lost."""
    now = now or timezone.now()
    jobs: list[ClockJob] = []
    for campaign in Campaign.objects.filter(live_ratio__gt=0, live_last_tick__isnull=False):
        with transaction.atomic():
            job = _tick_campaign(campaign, now)
        if job is not None:
            jobs.append(job)
    clock_watchdog(now=now)
    return jobs


def clock_watchdog(*, now: datetime | None = None) -> list[int]:
    """Celery beat's watchdog: enqueue again every queued or running job whose heartbeat
    is stale (its worker died, or its message was lost with the broker); their ids.

    The heartbeat moves by compare-and-set, so two watchdogs at once send a job once,
    and a job is sent again at most once per stale period while no worker takes it.
    A second delivery of a job that is in fact alive changes nothing: every batch
    re-reads the state under the campaign lock. Jobs of a campaign that waits on a
    choice are left alone (they wait their turn, ruling G-3).
    """
    now = now or timezone.now()
    cutoff = now - _stale_after()
    unfinished = (ClockJobState.QUEUED, ClockJobState.RUNNING)
    stale = (
        ClockJob.objects.filter(state__in=unfinished, heartbeat_at__lt=cutoff)
        .exclude(campaign__clock_jobs__state=ClockJobState.WAITING)
        .order_by("id")
        .values_list("pk", flat=True)
    )
    sent: list[int] = []
    for job_id in stale:
        with transaction.atomic():
            moved = ClockJob.objects.filter(
                pk=job_id, state__in=unfinished, heartbeat_at__lt=cutoff
            ).update(heartbeat_at=now)
            if moved:
                logger.warning("clock job %s: its heartbeat is stale; enqueued again", job_id)
                _enqueue(job_id)
                sent.append(job_id)
    return sent
