"""What the rules tell a campaign's webhooks (docs/webhooks.md): every resolution, every
decision left waiting, and each clock job that ends a run. Called inside the writing
transaction; ``webhooks.services.events_record`` delivers after it commits and builds
nothing for a campaign without webhooks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from characters.choices import public_choice
from rules.models import ClockJob, Resolution
from rules.selectors import clock_job_view, resolution_view
from webhooks.services import events_record


def record_resolutions(
    campaign_id: int, ruleset_key: str, resolutions: Sequence[Resolution]
) -> None:
    """``resolution.created`` for each (as the referee sees it: the referee registered
    the webhook), and ``choice.pending`` after one that leaves a decision waiting."""

    def events() -> list[tuple[str, dict[str, Any]]]:
        built: list[tuple[str, dict[str, Any]]] = []
        for resolution in resolutions:
            built.append(
                (
                    "resolution.created",
                    resolution_view(resolution, ruleset_key=ruleset_key, viewer_is_referee=True),
                )
            )
            if resolution.pending_choice is not None:
                built.append(
                    (
                        "choice.pending",
                        {
                            "character": resolution.character_id,
                            "resolution": resolution.pk,
                            "choice": public_choice(resolution.pending_choice),
                        },
                    )
                )
        return built

    if resolutions:
        events_record(campaign_id=campaign_id, events=events)


def record_clock_job(job: ClockJob) -> None:
    """``clock_job.updated`` when a job is done, waits on a choice, or failed."""
    events_record(
        campaign_id=job.campaign_id, events=lambda: [("clock_job.updated", clock_job_view(job))]
    )
