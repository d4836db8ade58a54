"""The clock's words: an effect, a duration, a live clock's rate, as the log, the jobs'
reasons and the pages say them."""

from __future__ import annotations

from decimal import Decimal

from django.utils.formats import number_format
from django.utils.translation import gettext, ngettext

from rules.clock.models import ClockEntry, ClockEntryKind
from rules.log.models import ScheduledEffect
from rules.log.rows import EffectRow


def effect_words(effect: ScheduledEffect | EffectRow) -> str:
    """A scheduled effect in words, for the reason the clock stopped: "wound 2 worsens"."""
    words = effect.kind.replace("_", " ")
    payload = effect.payload or {}
    if payload.get("wound") is not None and words.startswith("wound "):
        return f"wound {payload['wound']} {words.removeprefix('wound ')}"
    if payload.get("disease"):
        return f"{words} ({payload['disease']})"
    return words


def duration_words(minutes: int) -> str:
    """In-game minutes for the log, in the active language: "7 days", "1 hour 30 minutes"."""
    days, rest = divmod(int(minutes), 24 * 60)
    hours, mins = divmod(rest, 60)
    parts = []
    if days:
        parts.append(ngettext("%(count)s day", "%(count)s days", days) % {"count": days})
    if hours:
        parts.append(ngettext("%(count)s hour", "%(count)s hours", hours) % {"count": hours})
    if mins or not parts:
        parts.append(ngettext("%(count)s minute", "%(count)s minutes", mins) % {"count": mins})
    return " ".join(parts)


def ratio_words(ratio: Decimal) -> str:
    """A live clock's rate for people: "real time", "1 hour a minute", "2.5 minutes a minute"."""
    ratio = Decimal(ratio)
    if ratio == 1:
        return gettext("real time")
    if ratio == ratio.to_integral_value():
        return gettext("%(duration)s a minute") % {"duration": duration_words(int(ratio))}
    return gettext("%(count)s minutes a minute") % {
        "count": number_format(ratio.normalize(), use_l10n=True)
    }


def entry_words(entry: ClockEntry) -> str:
    """What a clock entry did, in the active language (the row keeps it in English)."""
    minutes = int(entry.minutes or 0)
    before, after = entry.ratio_before, entry.ratio_after
    if entry.kind == ClockEntryKind.ADVANCE:
        if entry.words.startswith("advanced the clock to a date"):
            return gettext("advanced the clock to a date, %(duration)s ahead") % {
                "duration": duration_words(minutes)
            }
        return gettext("advanced the clock by %(duration)s") % {"duration": duration_words(minutes)}
    if entry.kind == ClockEntryKind.RESUME:
        return gettext("resumed the clock")
    if entry.kind == ClockEntryKind.LIVE_OFF:
        return gettext("stopped the live clock")
    if entry.kind == ClockEntryKind.LIVE_ON and after is not None:
        return gettext("ran the clock with real time: %(rate)s") % {"rate": ratio_words(after)}
    if entry.kind == ClockEntryKind.LIVE_RATE and before is not None and after is not None:
        return gettext("changed the live clock from %(before)s to %(after)s") % {
            "before": ratio_words(before),
            "after": ratio_words(after),
        }
    return entry.words


def entry_summary(entry: ClockEntry, actor: str | None) -> str:
    """The clock entry as a sentence of the log: "alice advanced the clock by 7 days."."""
    words = entry_words(entry)
    if actor:
        return gettext("%(actor)s %(words)s.") % {"actor": actor, "words": words}
    return gettext("Someone %(words)s.") % {"words": words}
