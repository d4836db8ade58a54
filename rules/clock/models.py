"""The clock's records: one row per advance of a campaign's clock (docs/clock.md).

The table keeps its first name, ``rules_clockjob`` (the model moved here from the play's
app without touching the data: migrations ``rules 0006`` and ``clock 0001``).
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from campaigns.models import Campaign
from characters.models import Character
from core.fields import someone_or_nobody


class ClockJobState(models.TextChoices):
    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Running")
    WAITING = "waiting", _("Waiting on a choice")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")


UNFINISHED_JOB_STATES = (ClockJobState.QUEUED, ClockJobState.RUNNING, ClockJobState.WAITING)


class ClockJobKind(models.TextChoices):
    ADVANCE = "advance", _("Advanced by the referee")
    LIVE = "live", _("Live clock")
    ACTION = "action", _("Time an action took")
    # No time passes: the effects an undo or redo brought back that are due already
    # apply at once, in time order (rules.clock.services.clock_catch_up_start, docs/clock.md).
    CATCH_UP = "catch_up", _("Effects an undo brought back, applied as they fell due")


class ClockReport(models.Model):
    """What one clock job did, told per character (rules.clock.report, docs/clock.md).

    Each job has one; a live clock's ticks of one real hour share one (``hour``), so a
    referee reads one report an hour rather than one a minute. Built by the job's
    batches as they apply effects, under the campaign's lock.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="clock_reports")
    kind = models.CharField(
        max_length=16, choices=ClockJobKind.choices, default=ClockJobKind.ADVANCE
    )
    requested_by = someone_or_nobody()
    clock_from = models.PositiveBigIntegerField()
    clock_to = models.PositiveBigIntegerField()
    # [{id, name, state_before, state_after, events: [...]}] (rules.clock.report).
    characters = models.JSONField(default=list, blank=True)
    # A live clock's report: the real hour (its start) whose ticks it gathers.
    hour = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["campaign", "updated_at"], name="clock_report_updated")]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "hour"],
                condition=models.Q(hour__isnull=False),
                name="one_live_report_per_hour",
            ),
        ]

    def __str__(self) -> str:
        return f"clock report {self.pk} of {self.campaign}: {self.clock_from}-{self.clock_to}"


class ClockReportPart(models.Model):
    """One batch's events, the report's ``characters`` shape: a worker's job stores its
    report as these parts, one per batch that applied something.

    Rewriting a long advance's report at every batch grew with the square of its events,
    and merging the parts into it once when the job stopped still cost a tenth of the
    catch-up's CPU (issue 39); readers merge them, in id order, after the report's own
    (``rules.clock.report.report_characters``).
    """

    report = models.ForeignKey(ClockReport, on_delete=models.CASCADE, related_name="parts")
    # The entries as JSON text, not ``jsonb``: the database never looks inside a part,
    # and parsing a long catch-up's 7 MB of them cost PostgreSQL 0.4 s (issue 39).
    characters = models.TextField(default="[]")

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"part {self.pk} of clock report {self.report_id}"


class ClockJob(models.Model):
    """One advance of a campaign's clock, run by a Celery task (docs/clock.md).

    A campaign's jobs run one after the other in id order; each fixes its target
    (the clock when it starts plus ``minutes``) when it starts, so two advances
    asked for at once move the clock by both, one after the other.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="clock_jobs")
    kind = models.CharField(
        max_length=16, choices=ClockJobKind.choices, default=ClockJobKind.ADVANCE
    )
    requested_by = someone_or_nobody()
    # The client's own key for the request: sending it again returns the same job.
    request_id = models.CharField(max_length=64, blank=True, default="")
    minutes = models.PositiveBigIntegerField()
    # "Until <date>": the minute to reach, whatever the clock when the job starts (null:
    # the clock then plus ``minutes``).
    until = models.PositiveBigIntegerField(null=True, blank=True)
    state = models.CharField(
        max_length=16, choices=ClockJobState.choices, default=ClockJobState.QUEUED
    )
    clock_start = models.PositiveBigIntegerField(null=True, blank=True)
    target = models.PositiveBigIntegerField(null=True, blank=True)
    clock_reached = models.PositiveBigIntegerField(null=True, blank=True)
    # Progress: effects handled so far, and those plus the ones still due before target.
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    # Why the job waits or failed, for people.
    reason = models.TextField(blank=True, default="")
    waiting_on = models.ForeignKey(
        Character, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Effects the ruleset refused (RuleError): [{effect, kind, character, due_at, error}].
    skipped = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    # Started in its action's own transaction (rules.clock.services.clock_job_send), not
    # by a worker: it took no turn of the queue (what was left went to a worker after).
    started_in_action = models.BooleanField(default=False, db_default=False)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    # The last sign of life of the job's task: set when the job is queued, at every
    # batch, and when the watchdog enqueues it again. A queued or running job whose
    # heartbeat is stale has lost its task (``rules.clock.watchdog.clock_watchdog``).
    heartbeat_at = models.DateTimeField(default=timezone.now)
    # What it did (set when it starts; live ticks of one real hour share one).
    report = models.ForeignKey(
        ClockReport, null=True, blank=True, on_delete=models.SET_NULL, related_name="jobs"
    )

    class Meta:
        db_table = "rules_clockjob"  # its first name: the move kept the data in place
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["campaign", "state"], name="rules_clock_campaig_901b6f_idx"),
            models.Index(
                fields=["heartbeat_at"],
                condition=models.Q(state__in=["queued", "running"]),
                name="clock_job_unfinished_heartbeat",
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "request_id"],
                condition=~models.Q(request_id=""),
                name="one_clock_job_per_request_id",
            ),
            models.CheckConstraint(
                condition=models.Q(minutes__gte=1)
                | models.Q(kind=ClockJobKind.CATCH_UP, minutes=0),
                name="clock_job_moves_the_clock",
            ),
            models.CheckConstraint(
                condition=models.Q(done__lte=models.F("total")), name="clock_job_done_le_total"
            ),
        ]

    def __str__(self) -> str:
        return f"clock job {self.pk} of {self.campaign}: +{self.minutes} min, {self.state}"


class ClockEntryKind(models.TextChoices):
    ADVANCE = "advance", _("Clock advanced")
    LIVE_ON = "live_on", _("Live clock started")
    LIVE_OFF = "live_off", _("Live clock stopped")
    LIVE_RATE = "live_rate", _("Live clock's rate changed")
    RESUME = "resume", _("Clock resumed")


class ClockEntry(models.Model):
    """What someone did to the clock, for the campaign log beside its resolutions: an
    advance asked for, the live clock switched on or off or its rate changed, a stopped
    advance resumed (``GET campaigns/{id}/clock/log/``). Append-only."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="clock_entries")
    kind = models.CharField(max_length=16, choices=ClockEntryKind.choices)
    actor = someone_or_nobody()
    clock = models.PositiveBigIntegerField()  # the in-game minute it was done at
    # What was done, in words that need no calendar ("advanced the clock by 7 days").
    words = models.TextField()
    minutes = models.PositiveBigIntegerField(null=True, blank=True)  # an advance's
    ratio_before = models.DecimalField(max_digits=9, decimal_places=3, null=True, blank=True)
    ratio_after = models.DecimalField(max_digits=9, decimal_places=3, null=True, blank=True)
    job = models.ForeignKey(
        ClockJob, null=True, blank=True, on_delete=models.SET_NULL, related_name="entries"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-clock", "-id"]
        indexes = [models.Index(fields=["campaign", "clock"], name="clock_entry_campaign_clock")]

    def __str__(self) -> str:
        return f"{self.campaign} at {self.clock}: {self.words}"
