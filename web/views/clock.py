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
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from campaigns.access import access_campaign
from campaigns.models import Campaign
from campaigns.selectors import campaign_calendar
from rules.clock.report import notable_first
from rules.clock.selectors import clock_job_for_campaign, clock_report_view, own_character_ids
from rules.engine.calendar import (
    Calendar,
    CalendarError,
    calendar_data,
    date_at,
    parse_calendar,
    preset,
)
from web.htmx import is_htmx
from web.plain import error_text, summary_said

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
            {
                **event,
                "url": entry_url(campaign, entry["id"], event["clock"], event["resolution"]),
                "said_summary": summary_said(event),
            }
            for event in entry["events"]
        ]
        changed = entry["state_before"] != entry["state_after"]
        characters.append({**entry, "events": events, "changed": changed})
    notable = [
        {
            **row,
            "url": entry_url(campaign, row["character"], row["clock"], row["resolution"]),
            "said_summary": summary_said(row),
        }
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
        **report_context(campaign, clock_report_view(job.report, own=own, job=job)),
    }
    if is_htmx(request):  # under the dashboard's "In-game time" (h2)
        return render(request, "campaigns/_report.html", {**context, "hl": 3})
    return render(request, "campaigns/report.html", {**context, "hl": 2})


# -- the calendar on the settings page ------------------------------------------------------
def calendar_form_values(campaign: Campaign) -> dict[str, Any]:
    """The settings page's calendar fields, filled from the campaign's calendar."""
    data = calendar_data(campaign_calendar(campaign))
    epoch = data.get("epoch") or {}
    return {
        "months": "\n".join(f"{m['name']}, {m['days']}" for m in data.get("months", [])),
        "weekdays": ", ".join(data.get("weekdays", [])),
        "year": epoch.get("year", 1),
        "month": epoch.get("month", 1),
        "day": epoch.get("day", 1),
        "weekday": epoch.get("weekday", ""),
    }


def _whole(value: Any, what: str) -> int:
    text = str(value or "").strip()
    try:
        return int(text)
    except ValueError:
        raise CalendarError(_START_WORDS[what]) from None


# The start date's parts as a person reads their error: a sentence each, a language may
# word "year", "month" and "day" differently in them.
_START_WORDS = {
    "year": gettext_lazy("The start year is a whole number."),
    "month": gettext_lazy("The start month is a whole number."),
    "day": gettext_lazy("The start day is a whole number."),
}


def posted_calendar(data: Any) -> dict[str, Any]:
    """The calendar the settings form describes, as the API takes it: months one a line
    ("Frost, 30"), week days separated by commas, the start date. CalendarError in plain
    words for a line it cannot read."""
    months = []
    for line in str(data.get("months", "")).splitlines():
        if not line.strip():
            continue
        name, comma, days = line.rpartition(",")
        if not comma or not days.strip().isdigit():
            raise CalendarError(
                _(
                    "Write each month on its own line: its name, a comma and its number of "
                    "days (Frost, 30)."
                )
            )
        months.append({"name": name.strip(), "days": int(days)})
    written = str(data.get("weekdays", ""))
    weekdays = [w.strip() for w in written.split(",")] if written.strip() else []
    if "" in weekdays:  # issue 34: dropped without a word before
        raise CalendarError(
            _(
                "A week day has no name: write the names separated by commas, with a name "
                "between every two commas (Sunday, Moonday, Tiwsday)."
            )
        )
    epoch: dict[str, Any] = {
        "year": _whole(data.get("year", 1), "year"),
        "month": _whole(data.get("month", 1), "month"),
        "day": _whole(data.get("day", 1), "day"),
    }
    weekday = str(data.get("weekday", "")).strip()
    if weekday:
        epoch["weekday"] = weekday
    return {"months": months, "weekdays": weekdays, "epoch": epoch}


def calendar_preview_rows(calendar: Calendar | None, clock: int) -> list[tuple[str, str]]:
    """What the clock would read in ``calendar``: now, and some steps ahead."""
    return [
        (label, date_at(calendar, clock + minutes).text)
        for label, minutes in (
            (_("Now"), 0),
            (_("In a day"), DAY),
            (_("In a week"), 7 * DAY),
            (_("In 100 days"), 100 * DAY),
        )
    ]


@login_required
def calendar_preview(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The settings page's preview (htmx): the clock read in the calendar being typed, or
    why that calendar cannot be. Changes nothing."""
    membership = access_campaign(request.user, campaign_id)
    campaign = membership.campaign
    error = ""
    rows: list[tuple[str, str]] = []
    try:
        key = str(request.GET.get("preset", "")).strip()
        calendar = preset(key) if key else parse_calendar(posted_calendar(request.GET))
        if not key and calendar is None:
            raise CalendarError(_("A calendar needs at least one month."))
        rows = calendar_preview_rows(calendar, campaign.clock)
    except CalendarError as problem:
        error = error_text(problem)
    return render(
        request, "campaigns/_calendar_preview.html", {"rows": rows, "preview_error": error}
    )
