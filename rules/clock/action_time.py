"""Time that actions take (docs/clock.md, "Time that actions take").

An action whose result reports ``elapsed_minutes`` (a search of 3 squares: 30 minutes,
a night's sleep: 8 hours) moves the campaign clock by that time when it ends, unless the
campaign's "actions move the clock" option (``Campaign.actions_move_clock``) is off.
The clock moves through its own machinery: a :class:`~rules.play.models.ClockJob` of kind
``action``, queued behind any earlier job of the campaign and run by the same task as a
referee's advance, so whatever falls due in between applies in time order, exactly once,
and a decision on the way stops it (ruling G-3) like any advance.

A party action (rules.play.party) moves the clock once, by the longest time any of its
characters' actions took.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Model

from campaigns.models import Campaign
from rules.clock.models import ClockJob, ClockJobKind
from rules.clock.services import clock_advance_start, clock_job_send, clock_job_unsaved
from rules.play.models import Resolution

__all__ = ["ClockForActions", "action_time_job", "action_time_pass", "elapsed_words"]

# The play (below the clock) reaches these through its port, rules.play.action_clock,
# where this app registers ClockForActions when Django starts (rules.clock.apps).


def moves_clock(campaign: Campaign, minutes: int) -> bool:
    """Whether actions that took ``minutes`` move the campaign's clock (its option)."""
    return minutes > 0 and campaign.actions_move_clock


def action_time_pass(
    *, campaign: Campaign, resolutions: Iterable[Resolution], actor: Any
) -> ClockJob | None:
    """Queue the clock's move by the longest time the resolutions took, or None.

    Callers hold the campaign row lock (the action's transaction): the job is created
    in it and its task runs once it commits.
    """
    minutes = max((resolution.elapsed_minutes for resolution in resolutions), default=0)
    if not moves_clock(campaign, minutes):
        return None
    return clock_advance_start(
        campaign_id=campaign.pk,
        minutes=minutes,
        requested_by=actor,
        kind=ClockJobKind.ACTION,
        locked=campaign,
    )


def action_time_job(*, campaign: Campaign, minutes: int, actor: Any) -> ClockJob | None:
    """The unsaved job one action's time needs, or None: a single action writes it in
    its own statement with its log row (rules.play.services), then sends it."""
    if not moves_clock(campaign, minutes):
        return None
    return clock_job_unsaved(
        campaign_id=campaign.pk, minutes=minutes, requested_by=actor, kind=ClockJobKind.ACTION
    )


def elapsed_words(minutes: int) -> str:
    """ "8 hours", "30 minutes", "1 day 2 hours": the time an action took, for the log."""
    days, rest = divmod(int(minutes), 24 * 60)
    hours, mins = divmod(rest, 60)
    parts = [
        f"{n} {unit}{'' if n == 1 else 's'}"
        for n, unit in ((days, "day"), (hours, "hour"), (mins, "minute"))
        if n
    ]
    return " ".join(parts)


class ClockForActions:
    """The clock as the play sees it (rules.play.action_clock.ActionClock)."""

    def job_for(self, *, campaign: Campaign, minutes: int, actor: Any) -> ClockJob | None:
        return action_time_job(campaign=campaign, minutes=minutes, actor=actor)

    def send(self, job: Model) -> None:
        assert isinstance(job, ClockJob)
        clock_job_send(job)

    def pass_time(
        self, *, campaign: Campaign, resolutions: Iterable[Resolution], actor: Any
    ) -> ClockJob | None:
        return action_time_pass(campaign=campaign, resolutions=resolutions, actor=actor)
