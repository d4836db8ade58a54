"""The session recap (issue 25, docs/api.md): a span of the campaign told as the table would
retell it, per character, what happened in order (every entry of their log: actions,
choices, what the clock applied, edits, undos), the dice that mattered, and where the clock
went (from, to, in the campaign's calendar, with what people did to it).

The span is real time, in-game time, or both (``recap_window``). A player reads their own
characters only, and the entries the referee keeps hidden (a hidden roll or a hidden
effect, ruling G-4) stay out of their recap until revealed, as in the advance report. The
clock's entries are the clock's (``rules.clock.selectors.clock_lines``): the logbook sits
above the clock and the play.

Read-only; one query for the entries, one for the hidden effects among them, one for the
clock's entries, whatever the span.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, time
from typing import Any

from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.text import slugify
from django.utils.translation import gettext

from campaigns.models import Campaign, Membership
from campaigns.selectors import campaign_calendar, clock_date, clock_display
from core.said import said
from rules.clock.selectors import ClockLine, clock_lines
from rules.engine.calendar import DAY, Calendar, CalendarError, date_at, minute_of
from rules.engine.dice import Roll
from rules.engine.registry import get_ruleset
from rules.engine.text import duration_text
from rules.log.filters import in_game_minute
from rules.log.models import Resolution
from rules.log.redaction import entries_applying_hidden_effects, entry_seen
from rules.log.selectors import entry_author_words

# The query string's names (docs/api.md, "The session recap").
PARAMETERS = ("from", "to", "from_date", "to_date", "real_from", "real_to")
# Entries in one recap at most (a session is far fewer); past it ``truncated`` is true.
RECAP_LIMIT = 2000
_TIME = re.compile(
    r"^(?P<date>.+?)(?:(?:,\s*|\s+|T)(?P<hour>\d{1,2}):(?P<minute>\d{2}))?$", re.DOTALL
)
_CALENDAR_DATE = re.compile(r"^(?P<year>-?\d+)-(?P<month>.+)-(?P<day>\d+)$")
# A date as the pages show it (rules.engine.calendar.date_at): "Moonday 6 Bloom 1000",
# the week day left out or not (issue 34).
_SHOWN_DATE = re.compile(r"^(?:\S+\s+)?(?P<day>\d+)\s+(?P<month>.+?)\s+(?P<year>-?\d+)$")
_DAY = re.compile(r"^(?:day\s*)?(?P<day>\d+)$", re.IGNORECASE)
_WHOLE = re.compile(r"0|[1-9][0-9]{0,15}")  # an in-game minute as the API's schema says it


@dataclass(frozen=True)
class RecapWindow:
    """The span a recap tells: in-game minutes and real time, each bound included (None:
    no bound). Both kinds given: what falls inside both."""

    clock_from: int | None = None
    clock_to: int | None = None
    real_from: datetime | None = None
    real_to: datetime | None = None


def date_minute(calendar: Calendar | None, text: str, *, end: bool) -> int:
    """The in-game minute a date of the calendar names: as the pages show it (``Moonday 6
    Bloom 1000, 08:30``, the week day optional) or ``1000-Bloom-6`` or ``1000-2-6`` (year,
    month by name or number, day), without a calendar the day's number (``3``, ``Day 3``
    or ``Day 3, 08:30``), each with a time if wanted (``1000-2-6 08:30``). A date without a time is
    its day's first minute, or its last when ``end``. CalendarError in plain words."""
    found = _TIME.match(text.strip())
    date = found.group("date") if found else ""
    hour = int(found.group("hour")) if found and found.group("hour") else None
    minute = int(found.group("minute")) if found and found.group("minute") else 0
    if calendar is None:
        day = _DAY.match(date)
        if day is None:
            raise CalendarError("A date is a day's number (3, or Day 3), with a time if wanted.")
        first = minute_of(None, day=int(day.group("day")), hour=hour or 0, minute=minute)
    else:
        parts = _CALENDAR_DATE.match(date) or _SHOWN_DATE.match(date)
        if parts is None:
            raise CalendarError(
                "A date reads year-month-day in the campaign's calendar (1000-Bloom-6 or "
                "1000-2-6) or as the pages write it (Moonday 6 Bloom 1000), with a time if "
                "wanted (6 Bloom 1000, 08:30)."
            )
        month: int | str = parts.group("month")
        if str(month).isdigit():
            month = int(month)
        first = minute_of(
            calendar,
            year=int(parts.group("year")),
            month=month,
            day=int(parts.group("day")),
            hour=hour or 0,
            minute=minute,
        )
    return first + DAY - 1 if end and hour is None else first


def _real(value: str, name: str, *, end: bool) -> datetime:
    """An ISO 8601 date and time (``2025-03-01T19:00:00+01:00``; without a zone, the
    server's), or a date alone: its first moment, or its last when ``end``."""
    moment = parse_datetime(value)
    if moment is None:
        day = parse_date(value) if len(value) == 10 else None
        if day is None:
            raise ValidationError(
                {name: ["A real time is an ISO date and time, such as 2025-03-01T19:00."]}
            )
        moment = datetime.combine(day, time.max if end else time.min)
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment)
    return moment


def recap_window(
    campaign: Campaign, data: Mapping[str, Any], *, exact: bool = False
) -> RecapWindow:
    """The span a query string asks for: ``from`` and ``to`` (in-game minutes), or
    ``from_date`` and ``to_date`` (dates of the campaign's calendar), and ``real_from``
    and ``real_to`` (ISO date-times). A bad one is a ValidationError (400) in plain words.

    The page's form sends its boxes blank and people type spaces: there a blank minute
    is no bound. ``exact`` (the API) takes a minute as its schema says, digits only,
    never blank (as the log's filters, rules.log.filters)."""
    if exact:
        for key in ("from", "to"):
            if key in data and not _WHOLE.fullmatch(str(data[key])):
                raise ValidationError({key: ["An in-game minute is a whole number from 0."]})
    raw = {key: str(data.get(key, "") or "").strip() for key in PARAMETERS}
    for key, value in raw.items():
        if len(value) > 100 or "\x00" in value:
            raise ValidationError({key: ["Too long, or not text."]})
    calendar = campaign_calendar(campaign)
    bounds: dict[str, int | None] = {}
    for side, end in (("from", False), ("to", True)):
        minutes, date = raw[side], raw[f"{side}_date"]
        if minutes and date:
            raise ValidationError({f"{side}_date": [f"Give {side} or {side}_date, not both."]})
        if minutes:
            bounds[side] = in_game_minute(
                minutes,
                side,
                not_whole="An in-game minute is a whole number.",
                out_of_range="An in-game minute is a whole number from 0.",
            )
        elif date:
            try:
                bounds[side] = date_minute(calendar, date, end=end)
            except CalendarError as error:
                raise ValidationError({f"{side}_date": [str(error)]}) from None
        else:
            bounds[side] = None
    low, high = bounds["from"], bounds["to"]
    if low is not None and high is not None and low > high:
        raise ValidationError({"to": ["The end of the span comes before its start."]})
    real_from = _real(raw["real_from"], "real_from", end=False) if raw["real_from"] else None
    real_to = _real(raw["real_to"], "real_to", end=True) if raw["real_to"] else None
    if real_from is not None and real_to is not None and real_from > real_to:
        raise ValidationError({"real_to": ["The end of the span comes before its start."]})
    return RecapWindow(low, high, real_from, real_to)


def dice_that_mattered(resolution: Resolution, *, referee: bool) -> list[dict[str, Any]]:
    """The rolls that decided something: those of an entry that changed the character's
    sheet or asked for a choice (a save that changed nothing decided nothing); shuffles,
    which only order a deck, left out; hidden rolls only for the referee (G-4,
    rules.log.redaction)."""
    if resolution.sheet_before == resolution.sheet_after and resolution.pending_choice is None:
        return []
    shown = []
    for data in entry_seen(resolution, referee=referee).rolls:
        roll = Roll.from_dict(data)
        if roll.kind == "shuffle":
            continue
        shown.append(
            {
                "label": said(roll.label),
                "expression": roll.expression,
                "dice": list(roll.dice),
                "kept": list(roll.kept),
                "total": roll.total,
            }
        )
    return shown


def _line_view(line: ClockLine, campaign: Campaign) -> dict[str, Any]:
    return {
        "id": line.id,
        "kind": line.kind,
        "clock": line.clock,
        "date": clock_display(line.clock, campaign),
        "summary": line.summary,
        "actor": line.actor,
        "job": line.job,
        "from": line.job_from,
        "to": line.job_to,
        "created_at": line.created_at,
    }


def _clock_span(
    campaign: Campaign, window: RecapWindow, rows: list[Resolution], lines: list[ClockLine]
) -> tuple[int | None, int | None]:
    """Where the clock went in the span: its in-game bounds where asked (never past the
    clock now); else from the start or to now when the real time is open on that side;
    else what the entries and the clock's entries touched."""
    lows = [r.clock for r in rows] + [
        line.job_from if line.job_from is not None else line.clock for line in lines
    ]
    highs = [r.clock for r in rows] + [
        line.job_to if line.job_to is not None else line.clock for line in lines
    ]
    if window.clock_from is not None:
        low: int | None = min(window.clock_from, campaign.clock)
    elif window.real_from is None:
        low = 0
    else:
        low = min(lows) if lows else None
    if window.clock_to is not None:
        high: int | None = min(window.clock_to, campaign.clock)
    elif window.real_to is None:
        high = campaign.clock
    else:
        high = max(highs) if highs else None
    if low is not None and high is not None and high < low:
        high = low
    return low, high


def _recap_rows(membership: Membership, window: RecapWindow) -> tuple[list[Resolution], bool]:
    """The span's entries the member may be told, in clock order, and whether the span
    held more than :data:`RECAP_LIMIT`."""
    referee = membership.is_referee
    rows_query = Resolution.objects.filter(campaign_id=membership.campaign_id).select_related(
        "actor", "character"
    )
    if not referee:
        rows_query = rows_query.filter(character__owner_id=membership.user_id)
    if window.clock_from is not None:
        rows_query = rows_query.filter(clock__gte=window.clock_from)
    if window.clock_to is not None:
        rows_query = rows_query.filter(clock__lte=window.clock_to)
    if window.real_from is not None:
        rows_query = rows_query.filter(created_at__gte=window.real_from)
    if window.real_to is not None:
        rows_query = rows_query.filter(created_at__lte=window.real_to)
    rows = list(rows_query.order_by("clock", "id")[: RECAP_LIMIT + 1])
    truncated = len(rows) > RECAP_LIMIT
    rows = rows[:RECAP_LIMIT]
    if not referee:  # what a player may not be told yet (G-4, rules.log.redaction)
        secret = entries_applying_hidden_effects(rows)
        rows = [
            r
            for r in rows
            if entry_seen(r, referee=False, applies_hidden_effect=r.pk in secret).told
        ]
    return rows, truncated


def _entry_view(
    row: Resolution, campaign: Campaign, labels: Mapping[str, str], *, referee: bool
) -> dict[str, Any]:
    return {
        "id": row.pk,
        "clock": row.clock,
        "date": clock_display(row.clock, campaign),
        "kind": row.kind,
        "action": row.action,
        "title": said(labels.get(row.action, row.get_kind_display())),
        "actor": row.actor_id,
        "by": entry_author_words(row),
        "summary": row.said_summary,
        "undoes": row.undoes_id,
        "choice": row.pending_choice is not None,
        "dice": dice_that_mattered(row, referee=referee),
    }


def _characters_told(
    rows: list[Resolution], campaign: Campaign, *, referee: bool
) -> list[dict[str, Any]]:
    """Each character's span, in the order of their first entry: their state before and
    after, and their entries in their own order."""
    ruleset = get_ruleset(campaign.ruleset)
    labels = {spec.key: spec.label for spec in ruleset.actions}
    ordered: dict[int, list[Resolution]] = {}
    for row in rows:
        ordered.setdefault(row.character_id, []).append(row)
    characters = []
    for character_id, entries in ordered.items():
        entries.sort(key=lambda r: r.version)  # each character's own order
        first, last = entries[0], entries[-1]
        characters.append(
            {
                "id": character_id,
                "name": last.character.name,
                # a character created in the span starts as created
                "state_before": ruleset.status(first.sheet_before or first.sheet_after),
                "state_after": ruleset.status(last.sheet_after),
                "entries": [_entry_view(r, campaign, labels, referee=referee) for r in entries],
            }
        )
    return characters


def campaign_recap(membership: Membership, window: RecapWindow) -> dict[str, Any]:
    """The recap of the span as the member may read it (module docstring)."""
    campaign = membership.campaign
    rows, truncated = _recap_rows(membership, window)
    characters = _characters_told(rows, campaign, referee=membership.is_referee)
    lines = clock_lines(
        campaign,
        clock_from=window.clock_from,
        clock_to=window.clock_to,
        real_from=window.real_from,
        real_to=window.real_to,
    )
    low, high = _clock_span(campaign, window, rows, lines)
    return {
        "campaign": {"id": campaign.pk, "name": campaign.name},
        "window": {
            "from": window.clock_from,
            "to": window.clock_to,
            "real_from": window.real_from,
            "real_to": window.real_to,
        },
        "clock": {
            "from": low,
            "to": high,
            "from_date": None if low is None else clock_date(low, campaign),
            "to_date": None if high is None else clock_date(high, campaign),
            "passed": None if low is None or high is None else high - low,
            "entries": [_line_view(line, campaign) for line in lines],
        },
        "characters": characters,
        "truncated": truncated,
    }


# -- the recap as Markdown ---------------------------------------------------------------------
_MARKDOWN = re.compile(r"([\\`*_~|<>\[\]#])")


def _md(text: Any) -> str:
    """Text as Markdown shows it (Discord's too): its marks escaped, on one line."""
    return _MARKDOWN.sub(r"\\\1", " ".join(str(text).split()))


def _dice_words(dice: list[dict[str, Any]]) -> str:
    return "; ".join(
        f"{roll['label'] or gettext('roll')}: {roll['expression']} = {roll['total']}"
        + (f" ({', '.join(map(str, roll['dice']))})" if len(roll["dice"]) > 1 else "")
        for roll in dice
    )


def recap_markdown(recap: Mapping[str, Any]) -> str:
    """The recap as Markdown, to paste into a campaign journal or Discord, in the active
    language (the names people typed stay as typed)."""
    clock = recap["clock"]
    name = _md(recap["campaign"]["name"])
    lines = ["# " + gettext("%(campaign)s: session recap") % {"campaign": name}, ""]
    span = None
    if clock["from_date"] is not None and clock["to_date"] is not None:
        span = {"from": _md(clock["from_date"]["text"]), "to": _md(clock["to_date"]["text"])}
        lines += ["*" + gettext("%(from)s to %(to)s") % span + "*", ""]
    lines += ["## " + gettext("Where the clock went"), ""]
    if clock["passed"] is None or span is None:
        lines.append(gettext("The clock did not move in this span."))
    else:
        passed = said(duration_text(clock["passed"]))
        lines.append(gettext("From %(from)s to %(to)s: %(passed)s.") % {**span, "passed": passed})
    for entry in clock["entries"]:
        lines.append(f"- **{_md(entry['date'])}**: {_md(entry['summary'])}")
    lines.append("")
    if not recap["characters"]:
        lines += [gettext("Nothing happened to anyone's characters in this span."), ""]
    for character in recap["characters"]:
        lines += _character_markdown(character)
    if recap["truncated"]:
        only = gettext("Only the first %(count)s entries: ask for a shorter span.")
        lines += ["*" + only % {"count": RECAP_LIMIT} + "*", ""]
    return "\n".join(lines).rstrip() + "\n"


def _character_markdown(character: Mapping[str, Any]) -> list[str]:
    state = _md(character["state_after"])
    if character["state_before"] != character["state_after"]:
        state = gettext("%(before)s, then %(after)s") % {
            "before": _md(character["state_before"]),
            "after": state,
        }
    lines = [f"## {_md(character['name'])} ({state})", ""]
    for entry in character["entries"]:
        by = gettext("by %(who)s") % {"who": _md(entry["by"])}
        lines.append(
            f"- **{_md(entry['date'])}** · {_md(entry['title'])} ({by}): {_md(entry['summary'])}"
        )
        if entry["dice"]:
            lines.append(
                "  - " + gettext("Dice: %(dice)s") % {"dice": _md(_dice_words(entry["dice"]))}
            )
    lines.append("")
    return lines


def recap_file_name(campaign: Campaign, recap: Mapping[str, Any]) -> str:
    """``harrow-keep-recap-1000-bloom-6-to-1000-bloom-9.md``: after the campaign and the
    dates the span covers in its calendar."""
    calendar = campaign_calendar(campaign)

    def day(minute: int | None) -> str:
        if minute is None:
            return ""
        date = date_at(calendar, minute)
        if date.year is None:
            return f"day-{date.day}"
        return slugify(f"{date.year} {date.month_name} {date.day}")

    clock = recap["clock"]
    start, end = day(clock["from"]), day(clock["to"])
    span = start if start == end else f"{start}-to-{end}"
    name = slugify(campaign.name)[:60].strip("-") or f"campaign-{campaign.pk}"
    return f"{name}-recap{'-' + span if span else ''}.md"
