"""What a public Discord message may show of what happened: the one place the Discord
interface hides things (ruling G-4: hidden rolls, and what hidden effects did, are the
referee's until revealed). It uses the forms the players already read (a resolution as a
player sees it, an advance report as a player reads it), so a switch to another redaction
is made here alone."""

from __future__ import annotations

from typing import Any

from rules.clock.models import ClockJob, ClockReport
from rules.clock.report import report_characters
from rules.clock.selectors import clock_report_view
from rules.log.models import Resolution
from rules.log.selectors import resolution_view


def public_resolution(resolution: Resolution, *, ruleset_key: str) -> dict[str, Any]:
    """A resolution as a player reads it: hidden rolls and what the referee keeps to
    themself (``outcome.referee_only``) left out until revealed."""
    return resolution_view(resolution, ruleset_key=ruleset_key, viewer_is_referee=False)


def public_report(report: ClockReport | None, *, job: ClockJob | None = None) -> dict[str, Any]:
    """An advance report as the whole table may read it: every character, each as its
    player reads it (the hidden events left out until revealed)."""
    everyone = (
        {int(entry["id"]) for entry in report_characters(report)} if report is not None else set()
    )
    return clock_report_view(report, own=everyone, job=job)
