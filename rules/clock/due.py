"""What is due on a campaign's clock: its pending effects in the order they apply, and
its unfinished clock jobs, read by the job machine (rules.clock.services) and its batches
(rules.clock.batch), some as statements compiled once (rules.log.statements)."""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, PositiveBigIntegerField, QuerySet, Value
from django.db.models.expressions import RawSQL

from rules.clock.models import UNFINISHED_JOB_STATES, ClockJob
from rules.log.models import CampaignTable, EffectState, ScheduledEffect
from rules.log.rows import EffectRow
from rules.log.statements import CompiledQuery


def due_effects(campaign_id: int, target: int | Value) -> QuerySet[ScheduledEffect]:
    """The campaign's pending effects due by ``target``, in the order they apply."""
    return ScheduledEffect.objects.filter(
        campaign_id=campaign_id, state=EffectState.PENDING, due_at__lte=target
    ).order_by("due_at", "id")


# :data:`UNFINISHED_JOB_STATES` as a list of SQL literals, ``'queued', ...``. A search of a
# campaign's jobs in a prepared statement names the states in its text, not as parameters:
# its generic plan then sees how rare unfinished jobs are (the column's statistics) and
# reads the ``(campaign, state)`` index, where with the states as parameters it guessed and
# scanned the table, every job of every campaign (issue 39, docs/performance.md "Prepared
# searches"). The states are the models' constants.
assert all(state.value.isalpha() and state.value.islower() for state in UNFINISHED_JOB_STATES)
UNFINISHED_STATES_SQL = ", ".join(f"'{state.value}'" for state in UNFINISHED_JOB_STATES)


def unfinished_states() -> RawSQL:
    """``state__in=unfinished_states()``: :data:`UNFINISHED_STATES_SQL` as a queryset's
    right-hand side."""
    return RawSQL(UNFINISHED_STATES_SQL, ())  # noqa: S611 - the models' constants


def earlier_jobs(campaign_id: int, job_id: int) -> QuerySet[ClockJob]:
    """The campaign's unfinished jobs before ``job_id`` (it is their turn first); the
    states in the statement's text (a prepared statement's plan: ``unfinished_states``)."""
    return ClockJob.objects.filter(
        campaign_id=campaign_id, state__in=unfinished_states(), pk__lt=job_id
    )


# By the number of rows read: compiled once each (issue 39), Django's compiling of this
# statement cost about what it takes to run; prepared, its generic plan reads the effects
# in the index's order up to the limit and the jobs by the states in its text, whichever
# campaign it is run for (rules/play/tests/test_action_queries.py).
_FIRST_DUE: dict[int, CompiledQuery[ScheduledEffect]] = {}


def first_due(campaign_id: int, target: int, job_id: int, limit: int) -> list[tuple[Any, ...]]:
    """One statement: the campaign's effects due by ``target`` (an action's job's first
    batch, if it runs in the action: rules.clock.services.clock_job_send), each row with
    whether an earlier job is unfinished (then it is not this job's turn), and whether
    the campaign has edited tables (if not, its batches need not read them); at most
    ``limit`` rows."""
    query = _FIRST_DUE.setdefault(
        limit, CompiledQuery[ScheduledEffect]("campaign", "target", "job")
    )
    if not query.ready():
        marks = query.marks
        # the target as an expression: an int below the column's range (a mark is
        # negative) would be answered "no row" by Django without a statement
        due = due_effects(
            marks["campaign"], Value(marks["target"], PositiveBigIntegerField())
        ).annotate(
            earlier_job=Exists(earlier_jobs(marks["campaign"], marks["job"])),
            edited_tables=Exists(CampaignTable.objects.filter(campaign_id=marks["campaign"])),
        )
        query.compile(due.values_list(*EffectRow.COLUMNS, "earlier_job", "edited_tables")[:limit])
    return query.rows(campaign=campaign_id, target=target, job=job_id)
