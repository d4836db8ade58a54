"""What the clock tells a campaign's webhooks of its own (docs/webhooks.md): each clock job
that ends a run, and what it did (its report). The resolutions it writes are published by
the play's one publisher (``rules.log.events.publish_resolutions``)."""

from __future__ import annotations

from rules.clock.models import ClockJob, ClockReport
from rules.clock.selectors import clock_job_view, clock_report_view
from webhooks.services import events_record


def publish_clock_job(job: ClockJob) -> None:
    """``clock_job.updated`` when a job is done, waits on a choice, or failed."""
    events_record(
        campaign_id=job.campaign_id, events=lambda: [("clock_job.updated", clock_job_view(job))]
    )


def publish_clock_report(job: ClockJob, report: ClockReport) -> None:
    """``clock_job.report`` when a job is done or waits: its report as the referee reads it
    (the referee registered the webhook)."""
    events_record(
        campaign_id=job.campaign_id,
        events=lambda: [
            (
                "clock_job.report",
                {
                    "job": job.pk,
                    "kind": job.kind,
                    "state": job.state,
                    "report": clock_report_view(report, own=None),
                },
            )
        ],
    )
