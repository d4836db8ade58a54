"""The clock as the play sees it: the time actions take (rules.clock.action_time) and
the catch-up after an undo (docs/clock.md, "Undo and the clock").

``rules.clock.apps`` registers :class:`ClockForPlay` in the play's port,
``rules.play.action_clock``, when Django starts.
"""

from __future__ import annotations

from typing import Any

from campaigns.models import Campaign
from rules.clock.action_time import ClockForActions
from rules.clock.models import ClockJob
from rules.clock.services import clock_catch_up_start


class ClockForPlay(ClockForActions):
    """Everything the play asks of the clock (rules.play.action_clock.ActionClock)."""

    def catch_up(self, *, campaign: Campaign, actor: Any) -> ClockJob:
        return clock_catch_up_start(campaign=campaign, requested_by=actor)
