"""How the play asks the clock to move for the time actions took, and to apply the
effects an undo brought back that are due already, without importing it.

The clock (``rules.clock.services``) sits above the play: it applies scheduled effects as the
play's resolutions. An action's time moves the clock (docs/clock.md, "Time that actions
take"), so the play calls the clock through this port, which ``rules.clock.services`` registers
when Django starts (``rules.clock.apps.ClockConfig.ready``): imports run one way.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from django.core.exceptions import ImproperlyConfigured
from django.db.models import Model

from campaigns.models import Campaign
from rules.play.models import Resolution


class ActionClock(Protocol):
    """What the play needs of the clock."""

    def job_for(self, *, campaign: Campaign, minutes: int, actor: Any) -> Model | None:
        """The unsaved clock job one action's ``minutes`` need, or None (the clock does
        not move: no time passed, or the campaign's actions do not move it). The play
        writes it with the action's own rows, then calls :meth:`send`."""
        ...

    def send(self, job: Model) -> None:
        """Run a job written in the current transaction once it commits."""
        ...

    def pass_time(
        self, *, campaign: Campaign, resolutions: Iterable[Resolution], actor: Any
    ) -> Model | None:
        """Move the clock once by the longest time these resolutions took (a party
        action); the caller holds the campaign row lock. The job started, or None."""
        ...

    def catch_up(self, *, campaign: Campaign, actor: Any) -> Model:
        """Apply the campaign's effects due already, in time order, without moving the
        clock (effects an undo brought back); the caller holds the campaign row lock.
        The job queued: it runs once the transaction commits."""
        ...


_registered: list[ActionClock] = []


def register_action_clock(clock: ActionClock) -> None:
    """Called once by the clock's app at start; registering again replaces it."""
    _registered[:] = [clock]


def action_clock() -> ActionClock:
    if not _registered:
        raise ImproperlyConfigured("rules.clock is not installed: actions cannot move the clock")
    return _registered[0]
