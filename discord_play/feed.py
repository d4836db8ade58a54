"""The Discord format of a campaign's webhooks (docs/discord.md, docs/webhooks.md): each
event as a message for a Discord channel's webhook URL, made when it is sent
(``webhook_delivery.services``, above this app, imports it).

What the channel is told:

* ``resolution.created`` of an action, a choice, an edit, an undo...: one message, what
  happened and its dice (the hidden ones never, ``discord_play.redaction``), a link to it
  in the log; a death in red;
* ``clock_job.report``: what the clock did, deaths and notable events first
  (``telling.report_message``), within Discord's limits;
* nothing for the rest: the effects the clock applies are told by its report (an advance
  of two weeks would otherwise post hundreds of messages), a pending choice by the message
  of what asked it, a job's state by its report.
"""

from __future__ import annotations

import json
from typing import Any

from discord_play import messages as m
from discord_play.redaction import public_report
from discord_play.telling import report_message, resolution_embed
from rules.clock.models import ClockJob, ClockReport
from rules.log.models import Resolution, ResolutionKind
from webhooks.models import WebhookEvent


def _number(value: Any) -> int:
    """An id from the event's JSON (0, which no row has, when it is none)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def discord_message(event: WebhookEvent) -> dict[str, Any] | None:
    """The Discord message of one event, or None when the channel is not told of it."""
    body = json.loads(event.body)
    data = body.get("data") or {}
    if event.type == "resolution.created":
        if data.get("kind") == ResolutionKind.EFFECT:
            return None  # told by the clock's report
        resolution_id = _number(data.get("id"))
        resolution = (
            Resolution.objects.select_related("character__campaign")
            .filter(pk=resolution_id)
            .first()
        )
        if resolution is None:
            return None  # deleted with its character since
        return m.message(embeds=[resolution_embed(resolution)])
    if event.type == "clock_job.report":
        job = (
            ClockJob.objects.select_related("campaign")
            .filter(pk=_number(data.get("job")), campaign_id=event.campaign_id)
            .first()
        )
        if job is None:
            return None
        report_id = _number((data.get("report") or {}).get("id"))
        report = ClockReport.objects.filter(pk=report_id, campaign_id=job.campaign_id).first()
        told = public_report(report, job=job)
        if not told["characters"]:
            return None  # nothing the table may read happened
        return report_message(job.campaign, told, job)
    return None
