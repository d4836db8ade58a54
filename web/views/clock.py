"""Pages of the campaign clock's reports (issue 25): what an advance did, told in plain
words, the notable first, each linked to its entry of the log.

Thin: access through ``campaigns.access``, reads through ``rules.clock.selectors``; the
words are put together here and in ``templates/campaigns/_report.html``.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode

from campaigns.access import access_campaign
from campaigns.models import Campaign
from rules.clock.report import notable_first
from rules.clock.selectors import clock_job_for_campaign, clock_report_view, own_character_ids
from web.htmx import is_htmx

DAY = 24 * 60
# A report longer than this folds by character (<details>), the notable kept in view.
FOLD_CHARACTERS = 3
FOLD_EVENTS = 12


def entry_url(campaign: Campaign, character_id: int, clock: int, resolution_id: int | None) -> str:
    """The log page at one entry: its character, its day, the entry's anchor."""
    day = clock // DAY + 1
    query = urlencode({"character": character_id, "from_day": day, "to_day": day})
    anchor = f"#entry-{resolution_id}" if resolution_id is not None else ""
    return f"{reverse('campaign-log', args=[campaign.pk])}?{query}{anchor}"


def report_context(campaign: Campaign, report: dict[str, Any]) -> dict[str, Any]:
    """What the report's template draws: the notable first, then each character."""
    characters = []
    for entry in report["characters"]:
        events = [
            {**event, "url": entry_url(campaign, entry["id"], event["clock"], event["resolution"])}
            for event in entry["events"]
        ]
        changed = entry["state_before"] != entry["state_after"]
        characters.append({**entry, "events": events, "changed": changed})
    notable = [
        {**row, "url": entry_url(campaign, row["character"], row["clock"], row["resolution"])}
        for row in notable_first(report["characters"])
    ]
    count = sum(len(entry["events"]) for entry in characters)
    return {
        "report": report,
        "report_characters": characters,
        "report_notable": notable,
        "report_events": count,
        "report_folds": len(characters) > FOLD_CHARACTERS or count > FOLD_EVENTS,
    }


@login_required
def clock_job_report(request: HttpRequest, campaign_id: int, job_id: int) -> HttpResponse:
    """What a clock job did: the fragment the dashboard shows when an advance ends
    (htmx), or a page of its own (a link, a bookmark)."""
    membership = access_campaign(request.user, campaign_id)
    campaign = membership.campaign
    job = clock_job_for_campaign(campaign, job_id)
    own = None if membership.is_referee else own_character_ids(campaign, membership.user_id)
    context = {
        "campaign": campaign,
        "job": job,
        "is_referee": membership.is_referee,
        **report_context(campaign, clock_report_view(job.report, own=own)),
    }
    if is_htmx(request):  # under the dashboard's "In-game time" (h2)
        return render(request, "campaigns/_report.html", {**context, "hl": 3})
    return render(request, "campaigns/report.html", {**context, "hl": 2})
