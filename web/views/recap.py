"""The session recap page (issue 25): a span of the campaign told per character, the dice
that mattered and where the clock went, read through ``rules.logbook.recap``; downloadable
as Markdown (``?format=md``) to paste into a campaign journal or Discord.

Thin: access through ``campaigns.access``, the recap from the logbook's selector; the page
only words the span's bounds for people and puts the summaries in plain words
(``web.plain``).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from campaigns.access import access_campaign
from campaigns.selectors import campaign_calendar
from core.said import said
from rules.engine.calendar import date_at
from rules.engine.text import duration_text
from rules.logbook.recap import (
    PARAMETERS,
    RecapWindow,
    campaign_recap,
    recap_file_name,
    recap_markdown,
    recap_window,
)
from web.plain import plain_message, roll_label, summary_said
from web.views.clock import entry_url

# With no span asked for, the page tells the last day of real time: about one session.
DEFAULT_HOURS = 24
FORM_FIELDS = ("from_date", "to_date", "real_from", "real_to")


def _plain(recap: dict[str, Any]) -> dict[str, Any]:
    """The recap with its summaries and roll labels in plain words (web.plain), as every
    page shows the log."""
    characters = []
    for character in recap["characters"]:
        entries = []
        for entry in character["entries"]:
            dice = [
                {**roll, "label": plain_message(roll_label(roll)).rstrip(".")}
                for roll in entry["dice"]
            ]
            summary = plain_message(summary_said(entry))
            entries.append(
                {
                    **entry,
                    "summary": summary,
                    "said_summary": summary,
                    "title": said(entry.get("title")),
                    "date": said(entry.get("date")),
                    "dice": dice,
                }
            )
        characters.append(
            {
                **character,
                "state_before": said(character.get("state_before")),
                "state_after": said(character.get("state_after")),
                "entries": entries,
            }
        )
    clock = recap["clock"]
    lines = [
        {
            **line,
            "summary": summary_said(line),
            "said_summary": summary_said(line),
            "date": said(line.get("date")),
        }
        for line in clock.get("entries", ())
    ]
    return {**recap, "characters": characters, "clock": {**clock, "entries": lines}}


def _local_input(moment: Any) -> str:
    """A datetime as a ``datetime-local`` field's value, in the server's time zone."""
    return timezone.localtime(moment).strftime("%Y-%m-%dT%H:%M")


# A real time the page could not read, in its words (the API says it its own way).
REAL_TIME_WORDS = gettext_lazy("A real time is a date and a time, such as 2025-03-01 19:00.")


@login_required
def campaign_recap_page(request: HttpRequest, campaign_id: int) -> HttpResponse:
    membership = access_campaign(request.user, campaign_id)
    campaign = membership.campaign
    asked = {key: str(request.GET.get(key, "")).strip() for key in PARAMETERS}
    error = ""
    if not any(asked.values()):
        since = timezone.now() - timedelta(hours=DEFAULT_HOURS)
        window = RecapWindow(real_from=since)
        asked["real_from"] = _local_input(since)
    else:
        try:
            window = recap_window(campaign, request.GET)
        except ValidationError as problem:
            problems = {
                key: str(REAL_TIME_WORDS) if key.startswith("real_") else " ".join(messages)
                for key, messages in (
                    problem.message_dict.items()
                    if hasattr(problem, "error_dict")
                    else [("", problem.messages)]
                )
            }
            error = " ".join([*problems.values(), _("The last day is shown instead.")])
            window = RecapWindow(real_from=timezone.now() - timedelta(hours=DEFAULT_HOURS))
    recap = _plain(campaign_recap(membership, window))
    if request.GET.get("format") == "md" and not error:
        response = HttpResponse(recap_markdown(recap), content_type="text/markdown; charset=utf-8")
        name = recap_file_name(campaign, recap)
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response
    for character in recap["characters"]:
        for entry in character["entries"]:
            entry["url"] = entry_url(campaign, character["id"], entry["clock"], entry["id"])
    for line in recap["clock"]["entries"]:
        line["report_url"] = (
            reverse("clock-report", args=[campaign.pk, line["job"]]) if line["job"] else ""
        )
    query = {key: value for key, value in asked.items() if value}
    context = {
        "campaign": campaign,
        "is_referee": membership.is_referee,
        "recap": recap,
        "values": asked,
        "passed_words": said(duration_text(recap["clock"]["passed"] or 0)),
        "has_calendar": campaign_calendar(campaign) is not None,
        "example_date": date_at(campaign_calendar(campaign), campaign.clock).text.split(",")[0],
        "download_url": f"{request.path}?{urlencode({**query, 'format': 'md'})}",
        "file_name": recap_file_name(campaign, recap),
        "error": error,
    }
    return render(request, "campaigns/recap.html", context, status=400 if error else 200)
