"""What the clock tells a campaign's webhooks of its own (docs/webhooks.md): each clock job
that ends a run. The resolutions it writes are published by the play's one publisher
(``rules.play.events.publish_resolutions``)."""

from __future__ import annotations

from rules.clock.models import ClockJob
from rules.clock.selectors import clock_job_view
from webhooks.services import events_record


def publish_clock_job(job: ClockJob) -> None:
    """``clock_job.updated`` when a job is done, waits on a choice, or failed."""
    events_record(
        campaign_id=job.campaign_id, events=lambda: [("clock_job.updated", clock_job_view(job))]
    )
