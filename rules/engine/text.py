"""The words every ruleset writes the same way: a summary sentence, the campaign time.

Summaries are built from parts ("takes 4 damage", "is down") joined into one sentence;
the campaign clock is written "Day N, HH:MM" (ruling G-1) by the rulesets and the pages
alike (``campaigns.selectors.clock_display`` answers with this function). Each is a
:class:`~rules.engine.words.Message`: English as a str, and said again in the reader's
language by the Django side.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from rules.engine.words import Message, joined, say, say_plural, word

HOUR = 60
DAY = 24 * HOUR
NOTHING = word("Nothing happens.")


def sentence(parts: Iterable[str]) -> Message:
    """The non-empty parts joined with "; ", capitalised, ending with a full stop."""
    kept = [part for part in parts if part]
    if not kept:
        return NOTHING
    return joined(kept)


def clock_text(minute: int) -> Message:
    """Ruling G-1: "Day N, HH:MM", day 1 starting at minute 0."""
    day, rest = divmod(minute, DAY)
    return say("Day {day}, {time}", day=day + 1, time=f"{rest // HOUR:02d}:{rest % HOUR:02d}")


def duration_text(minutes: int) -> Message:
    """In-game minutes for people: "7 days", "1 hour 30 minutes", "0 minutes"."""
    days, rest = divmod(int(minutes), DAY)
    hours, mins = divmod(rest, HOUR)
    parts: list[Message] = []
    if days:
        parts.append(say_plural("{count} day", "{count} days", days))
    if hours:
        parts.append(say_plural("{count} hour", "{count} hours", hours))
    if mins:
        parts.append(say_plural("{count} minute", "{count} minutes", mins))
    if not parts:
        return say_plural("{count} minute", "{count} minutes", 0)
    return Message("", parts=parts, separator=" ")


def field_words(key: str) -> Message:
    """A sheet field in words for a sentence: "major_wound_marks" -> "major wound marks".

    The message id is the field's words: a ruleset lists its fields' words with
    :func:`~rules.engine.words.word` (``FIELD_WORDS``) so that the catalogues hold them.
    """
    return word(key.replace("_", " "))


def value_words(value: Any) -> str:
    """A sheet value in a sentence: "6", "yes", "no", "none", short JSON otherwise."""
    if isinstance(value, bool):
        return word("yes") if value else word("no")
    if value is None:
        return word("none")
    if isinstance(value, str):
        return value or word("nothing")
    text = json.dumps(value, separators=(", ", ": "))
    return text if len(text) <= 60 else text[:57] + "..."
