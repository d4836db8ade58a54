"""The words every ruleset writes the same way: a summary sentence, the campaign time.

Summaries are built from parts ("takes 4 damage", "is down") joined into one sentence;
the campaign clock is written "Day N, HH:MM" (ruling G-1) by the rulesets and the pages
alike (``campaigns.selectors.clock_display`` answers with this function).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

HOUR = 60
DAY = 24 * HOUR
NOTHING = "Nothing happens."


def sentence(parts: Iterable[str]) -> str:
    """The non-empty parts joined with "; ", capitalised, ending with a full stop."""
    text = "; ".join(part for part in parts if part)
    if not text:
        return NOTHING
    return text[0].upper() + text[1:] + ("" if text.endswith(".") else ".")


def clock_text(minute: int) -> str:
    """Ruling G-1: "Day N, HH:MM", day 1 starting at minute 0."""
    day, rest = divmod(minute, DAY)
    return f"Day {day + 1}, {rest // HOUR:02d}:{rest % HOUR:02d}"


def duration_text(minutes: int) -> str:
    """In-game minutes for people: "7 days", "1 hour 30 minutes", "0 minutes"."""
    days, rest = divmod(int(minutes), DAY)
    hours, mins = divmod(rest, HOUR)
    parts = [
        f"{n} {unit}{'' if n == 1 else 's'}"
        for n, unit in ((days, "day"), (hours, "hour"), (mins, "minute"))
        if n
    ]
    return " ".join(parts) or "0 minutes"


def field_words(key: str) -> str:
    """A sheet field in words for a sentence: "major_wound_marks" -> "major wound marks"."""
    return key.replace("_", " ")


def value_words(value: Any) -> str:
    """A sheet value in a sentence: "6", "yes", "no", "none", short JSON otherwise."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    if isinstance(value, str):
        return value or "nothing"
    text = json.dumps(value, separators=(", ", ": "))
    return text if len(text) <= 60 else text[:57] + "..."
