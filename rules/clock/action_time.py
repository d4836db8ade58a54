"""Time that actions take (docs/clock.md, "Time that actions take").

An action whose result reports ``elapsed_minutes`` (a search of 3 squares: 30 minutes,
a night's sleep: 8 hours) moves the campaign clock by that time when it ends, unless the
campaign's "actions move the clock" option (``Campaign.actions_move_clock``) is off.

When nothing falls due in that time (no pending effect of the campaign due by the new
minute, the action's own included, and no unfinished clock job), the clock moves in the
action's own transaction, compare-and-set, with no job, no task and no worker
(``rules.clock.services.clock_move_quiet``). Otherwise it moves through its own
machinery: a :class:`~rules.clock.models.ClockJob` of kind ``action``, queued behind any
earlier job of the campaign and run by the same task as a referee's advance, so whatever
falls due in between applies in time order, exactly once, and a decision on the way
stops it (ruling G-3) like any advance.

A party action (rules.play.party) moves the clock once, by the longest time any of its
characters' actions took.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from campaigns.models import Campaign
from rules.clock.models import ClockJob, ClockJobKind
from rules.clock.services import (
    clock_job_send,
    clock_job_unsaved,
    clock_move_quiet,
    clock_quiet_value,
)
from rules.clock.text import duration_words
from rules.log.models import Resolution

__all__ = ["ActionTime", "action_time", "action_time_pass", "elapsed_words"]

# The play, above the clock, calls these (rules.play.services, rules.play.party).


def moves_clock(campaign: Campaign, minutes: int) -> bool:
    """Whether actions that took ``minutes`` move the campaign's clock (its option)."""
    return minutes > 0 and campaign.actions_move_clock


def action_time_pass(
    *, campaign: Campaign, resolutions: Iterable[Resolution], actor: Any
) -> ClockJob | None:
    """Move the clock by the longest time the resolutions took: at once when nothing
    falls due (None), else through the job (returned), run in the action's transaction
    when small enough, else sent (:func:`~rules.clock.services.clock_job_send`).

    Callers hold the campaign row lock (the action's transaction) and have written the
    actions' rows and effects."""
    minutes = max((resolution.elapsed_minutes for resolution in resolutions), default=0)
    if not moves_clock(campaign, minutes):
        return None
    if clock_move_quiet(campaign, minutes):
        return None
    job = clock_job_unsaved(
        campaign_id=campaign.pk, minutes=minutes, requested_by=actor, kind=ClockJobKind.ACTION
    )
    clock_job_send(job, campaign)  # which writes it
    return job


@dataclass
class ActionTime:
    """One action's time as the play writes it with the action's rows
    (``rules.log.statements.write_action``): either ``job``, written in the action's
    statement and sent, or ``clock``, the campaign's clock as that statement sets it (an
    SQL value: moved when nothing stands in between, else unchanged; a job is queued
    after, :meth:`written`)."""

    campaign: Campaign
    minutes: int
    actor: Any
    target: int
    clock: Any = None
    job: ClockJob | None = None

    def written(self, clock: int | None) -> ClockJob | None:
        """The job, once the action's statement set the clock to ``clock``: the one that
        statement wrote, or a new one if the clock did not move (written as :meth:`send`
        runs or sends it: once, as it ends, when it runs in the action); None if it moved."""
        if self.job is None and clock != self.target:
            self.job = clock_job_unsaved(
                campaign_id=self.campaign.pk,
                minutes=self.minutes,
                requested_by=self.actor,
                kind=ClockJobKind.ACTION,
            )
        return self.job

    def send(self, *, webhooked: bool = True) -> None:
        """Run or send the job (:func:`~rules.clock.services.clock_job_send`) once the action
        wrote everything it schedules; ``webhooked``: False when the action read under the
        campaign's lock that it has no webhook URL."""
        if self.job is not None:
            clock_job_send(self.job, self.campaign, webhooked=webhooked)


def action_time(
    *, campaign: Campaign, minutes: int, actor: Any, due: Iterable[int] = ()
) -> ActionTime | None:
    """How one action's ``minutes`` move the clock, or None (they do not). ``due``: the
    minutes the action's own new effects fall due at; one of them by the new minute needs
    the job, written in the action's statement with its log row (rules.play.services)."""
    if not moves_clock(campaign, minutes):
        return None
    time = ActionTime(
        campaign=campaign, minutes=minutes, actor=actor, target=campaign.clock + minutes
    )
    if any(minute <= time.target for minute in due):
        time.job = clock_job_unsaved(
            campaign_id=campaign.pk, minutes=minutes, requested_by=actor, kind=ClockJobKind.ACTION
        )
    else:
        time.clock = clock_quiet_value(campaign, minutes)
    return time


def elapsed_words(minutes: int) -> str:
    """ "8 hours", "30 minutes", "1 day 2 hours": the time an action took, for the log;
    nothing for an action that took none."""
    return duration_words(minutes) if minutes else ""
