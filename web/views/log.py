"""The campaign log page (issue 13): every entry the viewer may read, newest first,
filtered and paginated (rules.logbook.selectors). In-game time is asked for in days, the
game's words."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from campaigns.access import access_campaign
from core.said import said
from rules.clock.action_time import elapsed_words
from rules.clock.selectors import clock_entries_between, clock_entry_view
from rules.engine.registry import get_ruleset
from rules.log.filters import log_filters
from rules.log.selectors import entry_author_words, resolution_view, verify_resolution_rolls
from rules.logbook.selectors import campaign_log, log_choices
from web.plain import summary_said
from web.rulesets import ruleset_decisions

# What the log holds beside the ruleset's actions (rules.play.undo, rules.play.editing): each a
# value of the action filter (issue 29).
BY_HAND = (
    ("undo", gettext_lazy("Undo")),
    ("redo", gettext_lazy("Redo")),
    ("rename", gettext_lazy("Edit: rename")),
    ("level_up", gettext_lazy("Edit: level up")),
    ("correct", gettext_lazy("Edit: correction")),
    ("retire", gettext_lazy("Edit: retire")),
    ("return", gettext_lazy("Edit: back from retirement")),
)
PAGE_SIZE = 50
DAY = 24 * 60

# A filter the log cannot use (a hand-edited address), in the page's words (issue 29);
# rules.logbook.selectors keeps the precise messages for the API.
FILTER_WORDS = {
    "character": gettext_lazy("Pick a character from the list."),
    "who": gettext_lazy("Pick someone from the list, or the clock."),
    "from": gettext_lazy("A day is a whole number, from 1."),
    "to": gettext_lazy("A day is a whole number, from 1."),
}


def _filter_words(problem: ValidationError) -> str:
    if not hasattr(problem, "error_dict"):
        return " ".join(problem.messages)
    said = [
        str(FILTER_WORDS.get(key, _("A search is at most 200 letters.")))
        for key in problem.error_dict
    ]
    return " ".join([*dict.fromkeys(said), _("The whole log is shown.")])


def _days_to_minutes(data: Any) -> dict[str, str]:
    """The page's "from day" / "to day" as the log's in-game minutes (ruling G-1)."""
    query = {key: data.get(key, "") for key in ("character", "action", "who", "roll", "q")}
    for name, key, last in (("from_day", "from", False), ("to_day", "to", True)):
        raw = str(data.get(name, "") or "").strip()
        if raw:
            try:
                day = int(raw)
            except ValueError:
                raise ValidationError(_("A day is a whole number, from 1.")) from None
            if not 1 <= day <= 10**9:
                raise ValidationError(_("A day is a whole number, from 1."))
            query[key] = str(day * DAY - 1 if last else (day - 1) * DAY)
    return query


def _with_clock_entries(
    campaign: Any, entries: list[dict[str, Any]], page: Any, filters: Any
) -> list[dict[str, Any]]:
    """The page's entries with what people did to the clock in the same span of in-game
    time (rules.clock.selectors.clock_log): from the page's oldest entry (the last page:
    from the start) up to the previous page's oldest (the first page: to now), so each
    clock entry is on one page. Newest first; at one minute, the clock's entry first."""
    clocks = [entry["clock"] for entry in entries]
    low = min(clocks) if clocks and page.has_next() else None
    high = None
    if page.has_previous():
        newer = page.paginator.page(page.previous_page_number()).object_list
        high = min(resolution.clock for resolution in newer)
    shown = []
    for row in clock_entries_between(campaign, low, high, filters):
        view = clock_entry_view(row)
        view["is_clock"] = True
        view["said_summary"] = summary_said(view)
        view["report_url"] = (
            reverse("clock-report", args=[campaign.pk, row.job_id]) if row.job_id else ""
        )
        shown.append(view)
    merged = [*shown, *entries]  # sorted is stable: the clock's first at a minute
    return sorted(merged, key=lambda entry: -entry["clock"])


@login_required
def campaign_log_page(request: HttpRequest, campaign_id: int) -> HttpResponse:
    membership = access_campaign(request.user, campaign_id)
    campaign = membership.campaign
    ruleset = get_ruleset(campaign.ruleset)
    error = ""
    try:
        filters = log_filters(_days_to_minutes(request.GET))
    except ValidationError as problem:
        error = _filter_words(problem)
        filters = log_filters({})
    rows = campaign_log(membership, filters)
    page = Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    labels = {spec.key: said(spec.label) for spec in ruleset.actions}
    entries = []
    for resolution in page.object_list:
        view = resolution_view(
            resolution, ruleset_key=ruleset.key, viewer_is_referee=membership.is_referee
        )
        view["character_name"] = resolution.character.name
        view["said_summary"] = resolution.said_summary
        view["actor_name"] = entry_author_words(resolution)
        view["title"] = labels.get(resolution.action, resolution.get_kind_display())
        view["took"] = said(elapsed_words(resolution.elapsed_minutes))
        entries.append(view)
    entries = _with_clock_entries(campaign, entries, page, filters)
    characters, members = log_choices(membership)
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "campaign": campaign,
        "is_referee": membership.is_referee,
        "entries": entries,
        "page": page,
        "query": query.urlencode(),
        "values": request.GET,
        "characters": characters,
        "actions": ruleset.actions,
        "decisions": list(ruleset_decisions(ruleset.key).items()),
        "by_hand": BY_HAND,
        "members": members,
        "error": error,
    }
    return render(request, "campaigns/log.html", context, status=400 if error else 200)


@login_required
def campaign_dice_page(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Verify the dice (issue 29): the server rolls every die of the entries the member
    may read again from the campaign's seed and counter (rules.log.selectors.
    verify_resolution_rolls) and says whether each matches the log, newest first."""
    membership = access_campaign(request.user, campaign_id)
    campaign = membership.campaign
    ruleset = get_ruleset(campaign.ruleset)
    labels = {spec.key: said(spec.label) for spec in ruleset.actions}
    page = Paginator(campaign_log(membership, log_filters({})), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    checked = []
    for resolution in page.object_list:
        if resolution.dice_counter_end <= resolution.dice_counter_start:
            continue  # no die was rolled
        checked.append(
            {
                "resolution": resolution,
                "title": labels.get(resolution.action, resolution.get_kind_display()),
                "matches": verify_resolution_rolls(resolution, campaign),
            }
        )
    context = {
        "campaign": campaign,
        "checked": checked,
        "page": page,
        "all_match": all(row["matches"] for row in checked),
    }
    return render(request, "campaigns/dice_check.html", context)
