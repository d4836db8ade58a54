"""The whole log of a campaign (issue 13): every character's resolutions, newest first,
filtered by character, action, who, roll label, in-game time and text.

A referee reads everything; a player reads the entries of their own characters (other
players' sheets are not theirs to see). Hidden rolls stay the referee's (ruling G-4,
``rules.play.selectors.resolution_view``). The query is one page and one count, whatever the
length of the log (``select_related``: no query per entry).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import QuerySet, TextField
from django.db.models.functions import Cast

from campaigns.models import Membership
from core.cleaning import valid_id
from rules.play.models import Resolution

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


def _minute(value: str, name: str) -> int:
    try:
        minute = int(value)
    except ValueError:
        raise ValidationError({name: ["an in-game minute: a whole number"]}) from None
    if not 0 <= minute <= CLOCK_MAX:
        raise ValidationError({name: ["an in-game minute from 0"]})
    return minute


# What the API's schema says of each filter (rules.logbook.api): the server checks the same.
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
        clock_from=_minute(raw["from"], "from") if raw["from"] else None,
        clock_to=_minute(raw["to"], "to") if raw["to"] else None,
        text=raw["q"],
    )


def campaign_log(membership: Membership, filters: LogFilters) -> QuerySet[Resolution]:
    """The entries the member may read, filtered, newest first."""
    rows = Resolution.objects.filter(campaign_id=membership.campaign_id).select_related(
        "actor", "character"
    )
    if not membership.is_referee:
        rows = rows.filter(character__owner_id=membership.user_id)
    if filters.character is not None:
        rows = rows.filter(character_id=filters.character)
    if filters.action:
        rows = rows.filter(action=filters.action)
    if filters.who == "clock":
        rows = rows.filter(actor__isnull=True)
    elif filters.who:
        rows = rows.filter(actor_id=int(filters.who))
    if filters.roll:
        rows = rows.annotate(rolls_text=Cast("rolls", TextField())).filter(
            rolls_text__icontains=filters.roll
        )
    if filters.clock_from is not None:
        rows = rows.filter(clock__gte=filters.clock_from)
    if filters.clock_to is not None:
        rows = rows.filter(clock__lte=filters.clock_to)
    if filters.text:
        rows = rows.filter(summary__icontains=filters.text)
    return rows.order_by("-clock", "-id")


def log_choices(membership: Membership) -> tuple[list[Any], list[Any]]:
    """The characters and the people the log page offers as filters."""
    characters = membership.campaign.characters.order_by("name", "pk")
    if not membership.is_referee:
        characters = characters.filter(owner_id=membership.user_id)
    members = membership.campaign.memberships.select_related("user").order_by("user__username")
    return list(characters), [m.user for m in members]


def party_characters(membership: Membership) -> list[Any]:
    """The characters a party action may pick: the campaign's, not retired, by name."""
    return list(
        membership.campaign.characters.filter(retired_at__isnull=True).order_by("name", "pk")
    )
