"""The campaign log's filters (issue 13), read from a query string: by character, action,
who, roll label, in-game time and text. Shared by the log of resolutions
(``rules.logbook.selectors.campaign_log``) and the clock's own entries
(``rules.clock.selectors.clock_log``), which sit side by side above the play."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter

from core.cleaning import MAX_ID, valid_id
from core.openapi import PAGE_PARAMETERS, error_answer, whole_parameter
from core.query import QueryParameters

FILTERS = ("character", "action", "who", "roll", "from", "to", "q")
CLOCK_MAX = 2**53


@dataclass(frozen=True)
class LogFilters:
    character: int | None = None
    action: str = ""
    who: str = ""  # a user id, or "clock" for what the clock applied
    roll: str = ""
    clock_from: int | None = None
    clock_to: int | None = None
    text: str = ""

    def narrow(self, rows: QuerySet[Any], text_field: str) -> QuerySet[Any]:
        """``rows`` (a log's entries: ``actor``, ``clock``) kept to who made them, the
        in-game bounds and the text (searched in ``text_field``)."""
        if self.who == "clock":
            rows = rows.filter(actor__isnull=True)
        elif self.who:
            rows = rows.filter(actor_id=int(self.who))
        if self.clock_from is not None:
            rows = rows.filter(clock__gte=self.clock_from)
        if self.clock_to is not None:
            rows = rows.filter(clock__lte=self.clock_to)
        if self.text:
            rows = rows.filter(**{f"{text_field}__icontains": self.text})
        return rows


def in_game_minute(
    value: str,
    name: str,
    *,
    not_whole: str = "an in-game minute: a whole number",
    out_of_range: str = "an in-game minute from 0",
) -> int:
    """``value`` read as an in-game minute (0 to CLOCK_MAX); otherwise a ValidationError
    on ``name`` that says ``not_whole`` or ``out_of_range`` (the recap says its own)."""
    try:
        minute = int(value)
    except ValueError:
        raise ValidationError({name: [not_whole]}) from None
    if not 0 <= minute <= CLOCK_MAX:
        raise ValidationError({name: [out_of_range]})
    return minute


# What the API's schema says of each filter (log_filter_parameters): the server checks
# the same.
WHO_PATTERN = r"clock|[1-9][0-9]{0,8}"
TEXT_MAX = {"action": 64, "roll": 200, "q": 200}
_EXACT = {
    "character": re.compile(r"[1-9][0-9]{0,18}"),
    "who": re.compile(WHO_PATTERN),
    "from": re.compile(r"0|[1-9][0-9]{0,15}"),
    "to": re.compile(r"0|[1-9][0-9]{0,15}"),
}


def log_filters(data: Mapping[str, Any], *, exact: bool = False) -> LogFilters:
    """The filters of a query string; a bad one is a 400 (ValidationError).

    The log page's form sends every filter, the unused ones blank, and people type
    spaces: there a blank filter is no filter and spaces are trimmed. ``exact`` (the
    API) takes each filter as its schema says: a number's digits and nothing else, a
    ``who`` matching its pattern, never blank (issue 27)."""
    if exact:
        for key, pattern in _EXACT.items():
            if key in data and not pattern.fullmatch(str(data[key])):
                raise ValidationError({key: ["not a value this filter takes (see the schema)"]})
    raw = {key: str(data.get(key, "") or "").strip() for key in FILTERS}
    for key, value in raw.items():
        if len(value) > TEXT_MAX.get(key, 200) or "\x00" in value:
            raise ValidationError({key: ["too long, or not text"]})
    character = None
    if raw["character"]:
        try:
            character = valid_id(raw["character"])
        except (ValueError, TypeError):
            raise ValidationError({"character": ["a character id"]}) from None
    who = raw["who"]
    if who and not re.fullmatch(WHO_PATTERN, who):
        raise ValidationError({"who": ['a user id, or "clock"']})
    if who and who != "clock":
        try:
            who = str(valid_id(who))
        except (ValueError, TypeError):
            raise ValidationError({"who": ['a user id, or "clock"']}) from None
    return LogFilters(
        character=character,
        action=raw["action"],
        who=who,
        roll=raw["roll"],
        clock_from=in_game_minute(raw["from"], "from") if raw["from"] else None,
        clock_to=in_game_minute(raw["to"], "to") if raw["to"] else None,
        text=raw["q"],
    )


def text_schema(longest: int) -> dict[str, Any]:
    """Text of a filter: up to ``longest`` characters, none of them NUL."""
    return {"type": "string", "maxLength": longest, "pattern": "^[^\\u0000]*$"}


# The in-game bounds, shared with the recap (rules.logbook.api).
MINUTE_PARAMETERS = [
    whole_parameter("from", 0, CLOCK_MAX, "from this in-game minute"),
    whole_parameter("to", 0, CLOCK_MAX, "up to this in-game minute"),
]


def log_filter_parameters(action: str, who: str, text: str) -> list[OpenApiParameter]:
    """The filters as API schema parameters; ``action``, ``who`` and ``text`` say what
    those match in the list at hand."""
    return [
        whole_parameter("character", 1, MAX_ID, "one character's entries"),
        OpenApiParameter("action", text_schema(TEXT_MAX["action"]), description=action),
        OpenApiParameter(
            "who", {"type": "string", "pattern": f"^(?:{WHO_PATTERN})$"}, description=who
        ),
        OpenApiParameter(
            "roll", text_schema(TEXT_MAX["roll"]), description="text of a roll's label"
        ),
        *MINUTE_PARAMETERS,
        OpenApiParameter("q", text_schema(TEXT_MAX["q"]), description=text),
    ]


# A filter the server does not take (the log's pages).
BAD_FILTER = error_answer(400, "Bad filter: field errors (`{filter: [messages]}`).")


def log_page_query(action: str, who: str, text: str) -> type[QueryParameters]:
    """The query of a page of a log with its filters (:func:`log_filter_parameters`), for a
    view's ``query_parameters``."""

    class FilterQuery(QueryParameters):
        parameters = [*PAGE_PARAMETERS, *log_filter_parameters(action, who, text)]

    return FilterQuery
