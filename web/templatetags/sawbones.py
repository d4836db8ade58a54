"""Template helpers of the pages: clock and durations, dice, sheet pictures.

``sheet_view`` asks the ruleset's presentation (``web/rulesets/<key>.py``) what its
picture needs, so the templates in ``templates/sheets/`` only draw.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from django import template
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from campaigns.models import Campaign
from campaigns.selectors import clock_display
from core.said import said as _said
from rules.clock.models import ClockJobKind
from rules.engine.dice import Roll
from rules.engine.text import value_words
from web import rulesets
from web.forms import humanize as _humanize
from web.plain import roll_label as _roll_label
from web.plain import summary_said as _summary_said

register = template.Library()

GOOD = {"standing", "fresh", "alive", "ok"}
BAD = {"dead", "incapacitated", "dying", "terminal"}


@register.filter
def clock(minutes: int | None, campaign: Any = None) -> str:
    """In-game minute -> the date in the campaign's calendar ("Moonday 6 Bloom 1000,
    01:30"); without a calendar (or no campaign given) "Day 3, 14:20" (ruling G-1)."""
    return _said(
        clock_display(int(minutes or 0), campaign if isinstance(campaign, Campaign) else None)
    )


@register.filter
def duration(minutes: int | None) -> str:
    """A span of in-game minutes for people, in the page's language: "45 min", "2 h 10 min",
    "3 days 4 h" (German "2 Std. 10 Min.", "3 Tage 4 Std.")."""
    total = max(0, int(minutes or 0))
    days, rest = divmod(total, 24 * 60)
    hours, mins = divmod(rest, 60)
    values = {"days": days, "hours": hours, "mins": mins}
    if days >= 365:
        years, days = divmod(days, 365)
        values.update(years=years, days=days)
        if days:
            return (
                ngettext("%(years)s year %(days)s d", "%(years)s years %(days)s d", years) % values
            )
        return ngettext("%(years)s year", "%(years)s years", years) % values
    if days:
        if hours:
            return ngettext("%(days)s day %(hours)s h", "%(days)s days %(hours)s h", days) % values
        return ngettext("%(days)s day", "%(days)s days", days) % values
    if hours:
        return (_("%(hours)s h %(mins)s min") if mins else _("%(hours)s h")) % values
    return _("%(mins)s min") % values


@register.filter
def queued_job_words(job: Any, campaign: Any = None) -> str:
    """A clock job waiting its turn, for the dashboard (issue 34): "An advance of 7 days,
    asked by rhea.", "What an undo brought back that is due already." """
    who = job.requested_by.get_username() if job.requested_by_id else None
    if job.kind == ClockJobKind.ADVANCE:
        values = {"who": who, "duration": duration(job.minutes)}
        if job.until is not None:
            values["until"] = clock(job.until, campaign)
            if who:
                return _("An advance until %(until)s, asked by %(who)s.") % values
            return _("An advance until %(until)s.") % values
        if who:
            return _("An advance of %(duration)s, asked by %(who)s.") % values
        return _("An advance of %(duration)s.") % values
    if job.kind == ClockJobKind.LIVE:
        return _("The live clock's %(duration)s.") % {"duration": duration(job.minutes)}
    if job.kind == ClockJobKind.ACTION:
        return _("The %(duration)s an action took.") % {"duration": duration(job.minutes)}
    return _("What an undo brought back that is due already.")


@register.filter
def sheet_value(value: Any) -> str:
    """A sheet's value in words (issue 34): yes, no, none, the number or the word, in the
    page's language."""
    return _said(value_words(value))


@register.filter
def humanize(key: str) -> str:
    return _humanize(str(key))


@register.filter
def status_tone(status: str) -> str:
    """good / bad / warn: the colour of a state word."""
    if status in GOOD:
        return "good"
    if status in BAD:
        return "bad"
    return "warn"


@register.filter
def dice_faces(roll: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each die of a roll, marked kept or dropped (``kept`` is a multiset of faces)."""
    left = Counter(roll.get("kept", ()))
    faces = []
    for face in roll.get("dice", ()):
        kept = left[face] > 0
        if kept:
            left[face] -= 1
        faces.append({"face": face, "kept": kept})
    return faces


@register.filter
def is_shuffle(roll: Mapping[str, Any]) -> bool:
    return Roll.from_dict(roll).kind == "shuffle"


@register.filter
def is_pool(roll: Mapping[str, Any]) -> bool:
    """A dice pool (``3d6>=5``): its kept dice are the hits, its total how many."""
    return Roll.from_dict(roll).kind == "pool"


@register.filter
def dropped_any(roll: Mapping[str, Any]) -> bool:
    return Roll.from_dict(roll).dropped_any


@register.filter
def get(mapping: Mapping[str, Any] | None, key: str) -> Any:
    if not mapping:
        return None
    return mapping.get(key)


@register.simple_tag
def sheet_view(
    ruleset: str,
    sheet: Mapping[str, Any],
    effects: Iterable[Any] = (),
    referee: bool = False,
    raw: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What the ruleset's picture needs:
    ``{% sheet_view key sheet effects is_referee raw_sheet as v %}``."""
    return rulesets.sheet_view(
        ruleset, sheet, effects or (), referee=bool(referee), raw=raw or None
    )


@register.filter
def ruleset_name(key: str) -> str:
    from rules.engine.registry import get_ruleset

    try:
        return _said(get_ruleset(key).name)
    except (ImportError, AttributeError, ValueError):
        return _humanize(key)


@register.filter
def minutes_until(due: int, now: int) -> int:
    return max(0, int(due) - int(now))


@register.filter
def effect_text(effect: Any) -> str:
    """A scheduled effect for people: its kind, and what it is about when the payload says."""
    kind = _humanize(effect.kind)
    payload = effect.payload or {}
    if payload.get("disease"):
        return _("%(kind)s: %(disease)s") % {"kind": kind, "disease": payload["disease"]}
    if payload.get("wound") is not None:
        return _("%(kind)s (wound %(wound)s)") % {"kind": kind, "wound": payload["wound"]}
    return kind


@register.filter
def die_sides(roll: Mapping[str, Any]) -> str:
    sides = Roll.from_dict(roll).sides
    return "" if sides is None else str(sides)


@register.filter
def roll_label(roll: Mapping[str, Any]) -> str:
    """A roll's label (a stored roll dict) in the page's language: ``{{ roll|roll_label }}``."""
    return _roll_label(roll)


@register.filter
def summary_said(entry: Mapping[str, Any]) -> str:
    """An entry's summary (a dict of a report, the recap, a digest) in the page's
    language: ``{{ event|summary_said }}`` (web.plain.summary_said)."""
    return _summary_said(entry)


@register.filter
def said(text: Any) -> str:
    """An engine message (a summary, a label, a prompt) in the page's language."""
    return _said(text)
