"""How the log's readers ask the clock what people did to it, without importing it.

The clock's entries (advances asked for, the live clock switched on or off, resumes:
``rules.clock.models.ClockEntry``) belong to ``rules.clock``; the session recap
(``rules.logbook.recap``) tells them beside the resolutions, and the logbook sits on the
clock's layer, where neither imports the other. So the play owns this port and the clock
plugs itself in when Django starts (``rules.clock.apps.ClockConfig.ready``), as it does
for the time actions take (``rules.play.action_clock``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from django.core.exceptions import ImproperlyConfigured

from campaigns.models import Campaign


@dataclass(frozen=True)
class ClockLine:
    """One thing someone did to the clock, as the log tells it."""

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


class ClockRecord(Protocol):
    """What the log's readers need of the clock."""

    def lines(
        self,
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
        ...


_registered: list[ClockRecord] = []


def register_clock_record(record: ClockRecord) -> None:
    """Called once by the clock's app at start; registering again replaces it."""
    _registered[:] = [record]


def clock_record() -> ClockRecord:
    if not _registered:
        raise ImproperlyConfigured("rules.clock is not installed: the log cannot tell the clock")
    return _registered[0]
