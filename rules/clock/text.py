"""The clock's words: an effect, a duration, a live clock's rate, as the log, the jobs'
reasons and the pages say them."""

from __future__ import annotations

from decimal import Decimal

from rules.log.models import ScheduledEffect


def effect_words(effect: ScheduledEffect) -> str:
    """A scheduled effect in words, for the reason the clock stopped: "wound 2 worsens"."""
    words = effect.kind.replace("_", " ")
    payload = effect.payload or {}
    if payload.get("wound") is not None and words.startswith("wound "):
        return f"wound {payload['wound']} {words.removeprefix('wound ')}"
    if payload.get("disease"):
        return f"{words} ({payload['disease']})"
    return words


def duration_words(minutes: int) -> str:
    """In-game minutes for the log: "7 days", "1 hour 30 minutes"."""
    days, rest = divmod(int(minutes), 24 * 60)
    hours, mins = divmod(rest, 60)
    parts = [
        f"{n} {unit}{'' if n == 1 else 's'}"
        for n, unit in ((days, "day"), (hours, "hour"), (mins, "minute"))
        if n
    ]
    return " ".join(parts) or "0 minutes"


def ratio_words(ratio: Decimal) -> str:
    """A live clock's rate for people: "real time", "1 hour a minute", "2.5 minutes a minute"."""
    ratio = Decimal(ratio)
    if ratio == 1:
        return "real time"
    if ratio == ratio.to_integral_value():
        return f"{duration_words(int(ratio))} a minute"
    return f"{format(ratio.normalize(), 'f')} minutes a minute"
