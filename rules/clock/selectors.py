"""Reads of the campaign clock (docs/clock.md): its jobs, as the API shows them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from django.conf import settings
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.http import Http404

from campaigns.models import Campaign
from campaigns.selectors import clock_date, clock_display
from characters.models import Character
from core.cleaning import valid_id
from rules.clock.models import (
    UNFINISHED_JOB_STATES,
    ClockEntry,
    ClockJob,
    ClockJobState,
    ClockReport,
    ClockReportPart,
)
from rules.clock.report import hidden_resolutions, report_characters, report_for_viewer
from rules.clock.text import entry_summary
from rules.log.filters import LogFilters
from rules.log.models import Resolution
from rules.log.selectors import LatestRow

# The latest clock job's id and state in a live page's stamp (rules.log.selectors.live_witness).
LATEST_CLOCK_JOB: LatestRow = ("job", ClockJob, (("pk", "id"), ("state", "state")))


def clock_jobs_for_campaign(campaign: Campaign, *, limit: int = 50) -> list[ClockJob]:
    """The campaign's latest clock jobs, newest first (with who asked: no query per job)."""
    return list(
        ClockJob.objects.filter(campaign=campaign)
        .select_related("requested_by")
        .order_by("-id")[:limit]
    )


@dataclass(frozen=True)
class ClockHold:
    """What holds the campaign's clock and what moves it on, for the dashboard (issue 34).

    ``job`` is the campaign's oldest unfinished job (its jobs run one after the other,
    oldest first), or, when none is unfinished, the latest job if it failed. ``behind``:
    the jobs queued after it, oldest first; each runs once the ones before it ended.
    ``choice_open``: the job waits on a character whose choice is still to be answered
    (answer it first, ruling G-3); ``resumable``: resuming would set the job going now."""

    job: ClockJob
    behind: list[ClockJob]
    choice_open: bool
    resumable: bool

    @property
    def stopped(self) -> bool:
        """The job waits on a choice or failed: a person must act for the clock to go on."""
        return self.job.state in (ClockJobState.WAITING, ClockJobState.FAILED)


def clock_hold(campaign: Campaign) -> ClockHold | None:
    """What holds the campaign's clock (:class:`ClockHold`), or None when nothing does:
    every job is done (or the latest failed one was followed by a job that ran). Two
    queries, three when the clock waits on a character."""
    jobs = list(
        ClockJob.objects.filter(campaign=campaign, state__in=UNFINISHED_JOB_STATES)
        .select_related("requested_by")
        .order_by("id")
    )
    if not jobs:
        latest = clock_jobs_for_campaign(campaign, limit=1)
        if not latest or latest[0].state != ClockJobState.FAILED:
            return None
        jobs = latest
    head, behind = jobs[0], jobs[1:]
    choice_open = False
    if head.state == ClockJobState.WAITING and head.waiting_on_id is not None:
        choice = (
            Character.objects.filter(pk=head.waiting_on_id)
            .values_list("pending_choice", flat=True)
            .first()
        )
        choice_open = choice is not None  # SQL NULL and JSON null alike
    resumable = (
        head.state in (ClockJobState.WAITING, ClockJobState.FAILED)
        and not choice_open
        and campaign.archived_at is None
    )
    return ClockHold(job=head, behind=behind, choice_open=choice_open, resumable=resumable)


def first_waiting_job(campaign_id: int) -> int | None:
    """The id of the campaign's oldest job stopped on a choice (ruling G-3), or None."""
    return (
        ClockJob.objects.filter(campaign_id=campaign_id, state=ClockJobState.WAITING)
        .order_by("id")
        .values_list("pk", flat=True)
        .first()
    )


# clock_job_view: find the campaign's first job waiting on a choice itself
Ask = Literal["ask"]


def _waits_for(job: ClockJob, first_waiting: int | Ask | None) -> int | None:
    """The earlier job a queued job waits behind because that one stopped on a choice:
    its id, or None (the job is not queued, or nothing stops the jobs before it). It
    runs once that one is resumed and done (issue 34)."""
    if job.state != ClockJobState.QUEUED:
        return None
    waiting = first_waiting_job(job.campaign_id) if first_waiting == "ask" else first_waiting
    return waiting if isinstance(waiting, int) and waiting < job.pk else None


def clock_job_for_campaign(campaign: Campaign, job_id: int | str) -> ClockJob:
    """One job of the campaign, with its report; a job of another campaign answers 404
    like a missing one."""
    try:
        return ClockJob.objects.select_related("report", "requested_by").get(
            campaign=campaign, pk=valid_id(job_id)
        )
    except (ClockJob.DoesNotExist, ValueError, TypeError):
        raise Http404("no such clock job") from None


def own_character_ids(campaign: Campaign, user_id: int) -> set[int]:
    """The ids of the user's characters in the campaign (what a player's report shows)."""
    return set(
        Character.objects.filter(campaign=campaign, owner_id=user_id).values_list("pk", flat=True)
    )


def clock_report_view(
    report: ClockReport | None, *, own: set[int] | None, job: ClockJob | None = None
) -> dict[str, Any]:
    """A job's report as the viewer may read it (rules.clock.report): ``own`` None for the
    referee (everything), else the player's character ids (theirs only, hidden events
    left out until revealed, ruling G-4). No report: an empty one, over the time ``job``
    covered if it ran (an advance that crossed nothing moved the clock at once, issue 30)."""
    if report is None:
        ran = job is not None and job.clock_start is not None
        return {
            "id": None,
            "kind": job.kind if ran and job is not None else None,
            "from": job.clock_start if ran and job is not None else None,
            "to": job.clock_reached if ran and job is not None else None,
            "characters": [],
        }
    characters = report_characters(report)
    revealed: set[int] = set()
    if own is not None:
        hidden = hidden_resolutions(characters)
        if hidden:
            revealed = set(
                Resolution.objects.filter(pk__in=hidden, revealed=True).values_list("pk", flat=True)
            )
    return {
        "id": report.pk,
        "kind": report.kind,
        "from": report.clock_from,
        "to": report.clock_to,
        "characters": report_for_viewer(characters, own=own, revealed=revealed),
    }


def clock_jobs_health(now: datetime) -> dict[str, int]:
    """What to alert on (docs/operations.md): jobs whose task is lost for longer than the
    watchdog should ever let happen (two stale periods), and jobs failed in the last day."""
    stale = timedelta(seconds=float(settings.SAWBONES_CLOCK_STALE_SECONDS))
    return {
        "stuck_jobs": ClockJob.objects.filter(
            state__in=(ClockJobState.QUEUED, ClockJobState.RUNNING),
            heartbeat_at__lt=now - 2 * stale,
        ).count(),
        "failed_jobs_last_day": ClockJob.objects.filter(
            state=ClockJobState.FAILED, finished_at__gte=now - timedelta(days=1)
        ).count(),
    }


def clock_job_view(
    job: ClockJob,
    *,
    viewer_own: set[int] | None = None,
    campaign: Campaign | None = None,
    first_waiting: int | Ask | None = "ask",
) -> dict[str, Any]:
    """A job as the API shows it. Progress is the in-game time covered: known when the
    job starts and never going back, unlike the count of effects (an effect can schedule
    another inside the window, so ``total`` may grow while the job runs).

    ``viewer_own``: a player's character ids (None: the referee). A player reads why the
    clock waits only when it waits on their own character, and the skipped effects of
    their own characters only. ``first_waiting``: the campaign's oldest job waiting on a
    choice (:func:`first_waiting_job`), when the caller knows it already (a list of jobs).
    """
    clock = job.clock_reached
    campaign = campaign if campaign is not None else job.campaign  # its calendar
    reason, skipped = job.reason, job.skipped
    if viewer_own is not None:
        if job.waiting_on_id not in viewer_own:
            reason = ""
        skipped = [s for s in skipped if s.get("character") in viewer_own]
    minutes_total = None if job.target is None else job.target - (job.clock_start or 0)
    minutes_done = None if clock is None or job.clock_start is None else clock - job.clock_start
    return {
        "id": job.pk,
        "kind": job.kind,
        "from": job.clock_start,
        "to": clock,
        "requested_by": job.requested_by_id,
        "requested_by_name": job.requested_by.get_username() if job.requested_by else None,
        "state": job.state,
        "minutes": job.minutes,
        "done": job.done,
        "total": job.total,
        "minutes_done": minutes_done,
        "minutes_total": minutes_total,
        "clock_start": job.clock_start,
        "target": job.target,
        "clock": clock,
        "clock_display": None if clock is None else clock_display(clock, campaign),
        "date": None if clock is None else clock_date(clock, campaign),
        "reason": reason,
        "waiting_on": job.waiting_on_id,
        "waits_for": _waits_for(job, first_waiting),
        "skipped": skipped,
        "created_at": job.created_at,
        "started_at": job.started_at,
        "finished_at": job.finished_at,
    }


# -- the clock in the campaign log --------------------------------------------------------------
def clock_log(campaign: Campaign, filters: LogFilters) -> QuerySet[ClockEntry]:
    """What people did to the clock, filtered as the log of resolutions is, newest first
    (in-game time). Every member reads it: the clock is the whole campaign's. An entry is
    about no character and no roll: filtering by either leaves none; ``action`` is the
    entry's kind (``advance``, ``live_on``, ``live_off``, ``live_rate``, ``resume``)."""
    rows = ClockEntry.objects.filter(campaign=campaign).select_related("actor", "job", "campaign")
    if filters.character is not None or filters.roll:
        return rows.none()
    if filters.action:
        rows = rows.filter(kind=filters.action)
    return filters.narrow(rows, "words").order_by("-clock", "-id")


def clock_entries_between(
    campaign: Campaign, low: int | None, high: int | None, filters: LogFilters
) -> list[ClockEntry]:
    """The clock's entries from in-game minute ``low`` (included) to ``high`` (left out;
    None: no bound), as :func:`clock_log` filters them: the log page puts them among the
    resolutions of one of its pages."""
    rows = clock_log(campaign, filters)
    if low is not None:
        rows = rows.filter(clock__gte=low)
    if high is not None:
        rows = rows.filter(clock__lt=high)
    return list(rows)


def clock_entry_view(entry: ClockEntry) -> dict[str, Any]:
    """An entry of the clock's log as the API shows it."""
    actor = entry.actor.get_username() if entry.actor else None
    job = entry.job
    return {
        "id": entry.pk,
        "kind": entry.kind,
        "actor": entry.actor_id,
        "actor_name": actor,
        "clock": entry.clock,
        "clock_display": clock_display(entry.clock, entry.campaign),
        "date": clock_date(entry.clock, entry.campaign),
        "summary": entry_summary(entry, actor),
        "minutes": entry.minutes,
        "ratio_before": entry.ratio_before,
        "ratio_after": entry.ratio_after,
        "job": entry.job_id,
        "from": job.clock_start if job is not None else None,
        "to": job.clock_reached if job is not None else None,
        "created_at": entry.created_at,
    }


@dataclass(frozen=True)
class ClockLine:
    """One thing someone did to the clock, as the log tells it (the session recap:
    rules.logbook.recap)."""

    id: int
    kind: str  # advance, live_on, live_off, live_rate, resume
    clock: int  # the in-game minute it was done at
    summary: str  # one sentence: "referee advanced the clock by 7 days."
    actor: int | None
    actor_name: str | None
    job: int | None  # an advance's or a resume's clock job
    job_from: int | None  # where that job took the clock from, and to (once it ran)
    job_to: int | None
    created_at: datetime


def clock_lines(
    campaign: Campaign,
    *,
    clock_from: int | None,
    clock_to: int | None,
    real_from: datetime | None,
    real_to: datetime | None,
) -> list[ClockLine]:
    """The clock's entries done from in-game minute ``clock_from`` to ``clock_to`` and
    from ``real_from`` to ``real_to`` (each bound included; None: no bound), oldest
    first. Every member of the campaign may read them."""
    rows = ClockEntry.objects.filter(campaign=campaign).select_related("actor", "job")
    if clock_from is not None:
        rows = rows.filter(clock__gte=clock_from)
    if clock_to is not None:
        rows = rows.filter(clock__lte=clock_to)
    if real_from is not None:
        rows = rows.filter(created_at__gte=real_from)
    if real_to is not None:
        rows = rows.filter(created_at__lte=real_to)
    lines = []
    for entry in rows.order_by("clock", "id"):
        actor = entry.actor.get_username() if entry.actor else None
        job = entry.job
        lines.append(
            ClockLine(
                id=entry.pk,
                kind=entry.kind,
                clock=entry.clock,
                summary=entry_summary(entry, actor),
                actor=entry.actor_id,
                actor_name=actor,
                job=entry.job_id,
                job_from=job.clock_start if job is not None else None,
                job_to=job.clock_reached if job is not None else None,
                created_at=entry.created_at,
            )
        )
    return lines


# -- word to the players -----------------------------------------------------------------------
NEWS_LIMIT = 20


def reports_since(
    campaign: Campaign,
    *,
    own: set[int],
    since: datetime | None,
    until: datetime | None = None,
) -> list[dict[str, Any]]:
    """What the clock did to a player's characters (``own``) in the reports changed after
    ``since`` (None: all) and not after ``until`` (None: now), oldest first, at most the
    latest :data:`NEWS_LIMIT`; reports that touched none of them are left out (the "since
    you last looked" panel, the e-mail digest)."""
    if not own:
        return []
    # with events: merged, or a running job's batches' (rules.clock.report)
    rows = ClockReport.objects.filter(campaign=campaign).filter(
        ~Q(characters=[]) | Exists(ClockReportPart.objects.filter(report=OuterRef("pk")))
    )
    if since is not None:
        rows = rows.filter(updated_at__gt=since)
    if until is not None:
        rows = rows.filter(updated_at__lte=until)
    views = [clock_report_view(r, own=own) for r in reversed(rows.order_by("-id")[:NEWS_LIMIT])]
    return [view for view in views if view["characters"]]


def last_failed_clock_job(now: datetime) -> dict[str, Any] | None:
    """The latest clock job that failed in the last day: which, in which campaign, why.

    Said, not a 503: a failed job waits for a person (its cause fixed, then resumed),
    while the workers may be perfectly well; /metrics' SawbonesClockJobFailed alerts.
    Shown by /health/worker/ (config/health.py).
    """
    job = (
        ClockJob.objects.filter(
            state=ClockJobState.FAILED, finished_at__gte=now - timedelta(days=1)
        )
        .order_by("-finished_at", "-id")
        .values("id", "campaign_id", "reason", "finished_at")
        .first()
    )
    if job is None:
        return None
    return {
        "id": job["id"],
        "campaign": job["campaign_id"],
        "reason": job["reason"][:300],
        "finished_at": job["finished_at"],
    }
