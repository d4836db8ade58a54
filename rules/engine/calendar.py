"""A campaign's calendar: the in-game minute (ruling G-1) as a date people read.

Pure functions, no Django. The clock counts minutes from 0; a calendar only says how to
show them: months (a name and a number of days, the same every year), week days (names,
any number, or none) and the epoch (the date at minute 0, whose week day is the first
named unless the epoch names another). No calendar (``None``) is the default: "Day N,
HH:MM", as the rulesets write it (``rules.engine.text.clock_text``).

A calendar never moves the clock: changing it changes how the same minute reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from rules.engine.text import clock_text
from rules.engine.words import Message, say, word

DAY = 24 * 60
HOUR = 60
MAX_NAME = 40
MAX_MONTHS = 100
MAX_WEEKDAYS = 100
MAX_MONTH_DAYS = 1000
MAX_YEAR = 1_000_000


class CalendarError(ValueError):
    """A calendar or a date that cannot be: its message is a plain sentence for people, a
    message (:mod:`rules.engine.words`)."""


NO_MONTH = word("A calendar needs at least one month.")


@dataclass(frozen=True)
class Calendar:
    months: tuple[tuple[str, int], ...]
    weekdays: tuple[str, ...] = ()
    epoch_year: int = 1
    epoch_month: int = 1  # 1-based
    epoch_day: int = 1  # 1-based
    epoch_weekday: int = 0  # index into weekdays

    @property
    def year_days(self) -> int:
        return sum(days for _, days in self.months)

    @property
    def epoch_offset(self) -> int:
        """The epoch's day of its year, from 0."""
        return sum(days for _, days in self.months[: self.epoch_month - 1]) + self.epoch_day - 1


@dataclass(frozen=True)
class GameDate:
    """A minute as a date. Without a calendar ``year``, ``month``, ``month_name`` and
    ``weekday`` are None and ``day`` counts from the campaign's start (Day 1)."""

    year: int | None
    month: int | None
    month_name: str | None
    day: int
    weekday: str | None
    hour: int
    minute: int
    text: str  # a message: "1 January 1000, 06:00" (the date's order is the language's)

    def as_dict(self) -> dict[str, Any]:
        return {
            "year": self.year,
            "month": self.month,
            "month_name": self.month_name,
            "day": self.day,
            "weekday": self.weekday,
            "hour": self.hour,
            "minute": self.minute,
            "text": self.text,
        }


# What a calendar names: its months, or its week days (a sentence each for either: a
# language words "month" and "week day" differently in them).
Named = Literal["month", "week day"]


def _name(value: Any, what: Named) -> str:
    month = what == "month"
    if not isinstance(value, str) or not value.strip():
        raise CalendarError(
            word("Give each month a name.") if month else word("Give each week day a name.")
        )
    name = value.strip()
    if len(name) > MAX_NAME:
        raise CalendarError(
            say(
                "A month's name is at most {limit} characters: {name}… is longer.",
                limit=MAX_NAME,
                name=name[:20],
            )
            if month
            else say(
                "A week day's name is at most {limit} characters: {name}… is longer.",
                limit=MAX_NAME,
                name=name[:20],
            )
        )
    if "\x00" in name:
        raise CalendarError(
            word("A month's name cannot hold that character.")
            if month
            else word("A week day's name cannot hold that character.")
        )
    return name


def _refuse_twice(names: list[str], what: Named) -> None:
    """Two months (or week days) of one name: a date naming it would always mean the
    first, so the calendar is refused (issue 34)."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise CalendarError(
                say(
                    "Two months are called {name}: give each month a name of its own, or a "
                    "date naming it would always mean the first.",
                    name=name,
                )
                if what == "month"
                else say(
                    "Two week days are called {name}: give each week day a name of its own, "
                    "or a date naming it would always mean the first.",
                    name=name,
                )
            )
        seen.add(name)


def _whole(value: Any, low: int, high: int, message: Message) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise CalendarError(message)
    return value


def _parse_months(raw_months: Any) -> list[tuple[str, int]]:
    """The calendar's months from their JSON form: each a name and a number of days."""
    if not isinstance(raw_months, list) or not raw_months:
        raise CalendarError(NO_MONTH)
    if len(raw_months) > MAX_MONTHS:
        raise CalendarError(say("A calendar has at most {limit} months.", limit=MAX_MONTHS))
    months = []
    for raw in raw_months:
        if not isinstance(raw, Mapping):
            raise CalendarError(word("Each month has a name and a number of days."))
        name = _name(raw.get("name"), "month")
        days = _whole(
            raw.get("days"),
            1,
            MAX_MONTH_DAYS,
            say(
                "{month} needs a number of days from 1 to {limit}.",
                month=name,
                limit=MAX_MONTH_DAYS,
            ),
        )
        months.append((name, days))
    _refuse_twice([name for name, _ in months], "month")
    return months


def parse_calendar(data: Mapping[str, Any] | None) -> Calendar | None:
    """A calendar from its JSON form (:func:`calendar_data`); None or ``{}``: the default.

    Raises :class:`CalendarError` with a plain sentence: no months, a month of 0 days, a
    name over 40 characters, an epoch day outside its month...
    """
    if not data:
        return None
    if not isinstance(data, Mapping):
        raise CalendarError(
            word("A calendar is months, week days and the date the clock starts at.")
        )
    months = _parse_months(data.get("months"))
    raw_weekdays = data.get("weekdays", [])
    if not isinstance(raw_weekdays, list) or len(raw_weekdays) > MAX_WEEKDAYS:
        raise CalendarError(
            say("A week has at most {limit} days, each a name.", limit=MAX_WEEKDAYS)
        )
    weekdays = tuple(_name(raw, "week day") for raw in raw_weekdays)
    _refuse_twice(list(weekdays), "week day")
    epoch = data.get("epoch") or {}
    if not isinstance(epoch, Mapping):
        raise CalendarError(word("The start date is a year, a month and a day."))
    year = _whole(
        epoch.get("year", 1),
        -MAX_YEAR,
        MAX_YEAR,
        say(
            "The start year is a whole number from {low} to {high}.",
            low=-MAX_YEAR,
            high=MAX_YEAR,
        ),
    )
    month = _whole(
        epoch.get("month", 1),
        1,
        len(months),
        say("The start month is a month of the calendar: 1 to {last}.", last=len(months)),
    )
    month_name, month_days = months[month - 1]
    day = _whole(
        epoch.get("day", 1),
        1,
        month_days,
        say(
            "The start day must fall inside {month}: 1 to {last}.",
            month=month_name,
            last=month_days,
        ),
    )
    weekday = 0
    named = epoch.get("weekday")
    if named not in (None, ""):
        if not weekdays:
            raise CalendarError(
                word("The start date names a week day, but the calendar has no week.")
            )
        if named not in weekdays:
            raise CalendarError(
                say("The start week day must be one of the week's: {weekdays}.", weekdays=weekdays)
            )
        weekday = weekdays.index(named)
    return Calendar(tuple(months), weekdays, year, month, day, weekday)


def calendar_data(calendar: Calendar | None) -> dict[str, Any]:
    """The calendar's JSON form (``{}`` for the default)."""
    if calendar is None:
        return {}
    epoch: dict[str, Any] = {
        "year": calendar.epoch_year,
        "month": calendar.epoch_month,
        "day": calendar.epoch_day,
    }
    if calendar.weekdays:
        epoch["weekday"] = calendar.weekdays[calendar.epoch_weekday]
    return {
        "months": [{"name": name, "days": days} for name, days in calendar.months],
        "weekdays": list(calendar.weekdays),
        "epoch": epoch,
    }


def date_at(calendar: Calendar | None, minute: int) -> GameDate:
    """The date and time at in-game ``minute`` (from 0)."""
    days, rest = divmod(int(minute), DAY)
    hour, mins = divmod(rest, HOUR)
    if calendar is None:
        return GameDate(None, None, None, days + 1, None, hour, mins, clock_text(int(minute)))
    years, in_year = divmod(calendar.epoch_offset + days, calendar.year_days)
    month = 0
    for _, length in calendar.months:
        if in_year < length:
            break
        in_year -= length
        month += 1
    name = calendar.months[month][0]
    weekday = None
    if calendar.weekdays:
        weekday = calendar.weekdays[(calendar.epoch_weekday + days) % len(calendar.weekdays)]
    year = calendar.epoch_year + years
    time = f"{hour:02d}:{mins:02d}"
    if weekday is None:
        text = say(
            "{day} {month} {year}, {time}", day=in_year + 1, month=name, year=year, time=time
        )
    else:
        text = say(
            "{weekday} {day} {month} {year}, {time}",
            weekday=weekday,
            day=in_year + 1,
            month=name,
            year=year,
            time=time,
        )
    return GameDate(year, month + 1, name, in_year + 1, weekday, hour, mins, text)


def minute_of(
    calendar: Calendar | None,
    *,
    year: int | None = None,
    month: int | str | None = None,
    day: int,
    hour: int = 0,
    minute: int = 0,
) -> int:
    """The in-game minute a date names (the inverse of :func:`date_at`); ``month`` by
    number (from 1) or by name. Without a calendar ``day`` counts from Day 1. A date
    before the clock's start is a :class:`CalendarError`."""
    hour = _whole(hour, 0, 23, word("An hour is 0 to 23."))
    minute = _whole(minute, 0, 59, word("A minute is 0 to 59."))
    if calendar is None:
        day = _whole(day, 1, 10**9, word("A day is a whole number, from 1."))
        return (day - 1) * DAY + hour * HOUR + minute
    if year is None:
        raise CalendarError(word("Say which year."))
    year = _whole(year, -MAX_YEAR, MAX_YEAR, word("That year is out of reach."))
    names = [name for name, _ in calendar.months]
    if isinstance(month, str):
        if month not in names:
            raise CalendarError(say("There is no month called {month}.", month=month[:MAX_NAME]))
        month = names.index(month) + 1
    month = _whole(month, 1, len(names), say("A month is 1 to {last}.", last=len(names)))
    length = calendar.months[month - 1][1]
    day = _whole(
        day, 1, length, say("{month} has days 1 to {last}.", month=names[month - 1], last=length)
    )
    in_year = sum(days for _, days in calendar.months[: month - 1]) + day - 1
    days = (year - calendar.epoch_year) * calendar.year_days + in_year - calendar.epoch_offset
    if days < 0:
        raise CalendarError(word("That date is before the campaign's clock started."))
    return days * DAY + hour * HOUR + minute


# -- presets ------------------------------------------------------------------------------------
# The presets' months and week days are the app's words, messages (a referee's own
# calendar names them as typed). Once a campaign takes a preset, its calendar is stored
# as the names' text (:func:`calendar_data`): the referee's from then on.
PLAIN_MONTHS: tuple[tuple[str, int], ...] = (
    (word("January"), 31),
    (word("February"), 28),
    (word("March"), 31),
    (word("April"), 30),
    (word("May"), 31),
    (word("June"), 30),
    (word("July"), 31),
    (word("August"), 31),
    (word("September"), 30),
    (word("October"), 31),
    (word("November"), 30),
    (word("December"), 31),
)
PLAIN_WEEK: tuple[str, ...] = (
    word("Monday"),
    word("Tuesday"),
    word("Wednesday"),
    word("Thursday"),
    word("Friday"),
    word("Saturday"),
    word("Sunday"),
)
TEN_DAY_MONTHS: tuple[tuple[str, int], ...] = tuple(
    (name, 30)
    for name in (
        word("Vendémiaire"),
        word("Brumaire"),
        word("Frimaire"),
        word("Nivôse"),
        word("Pluviôse"),
        word("Ventôse"),
        word("Germinal"),
        word("Floréal"),
        word("Prairial"),
        word("Messidor"),
        word("Thermidor"),
        word("Fructidor"),
    )
)
TEN_DAY_WEEK: tuple[str, ...] = (
    word("Primidi"),
    word("Duodi"),
    word("Tridi"),
    word("Quartidi"),
    word("Quintidi"),
    word("Sextidi"),
    word("Septidi"),
    word("Octidi"),
    word("Nonidi"),
    word("Décadi"),
)
# Each preset: its label for people (a message) and its calendar (None: the default,
# "Day N").
PRESETS: dict[str, tuple[str, Calendar | None]] = {
    "days": (word("Day 1, Day 2... (no calendar)"), None),
    "twelve_months": (
        word("A plain year: twelve months, 365 days, seven-day weeks"),
        Calendar(PLAIN_MONTHS, PLAIN_WEEK, 1000, 1, 1, 0),
    ),
    "ten_day_weeks": (
        word("Twelve months of 30 days in 10-day weeks"),
        Calendar(TEN_DAY_MONTHS, TEN_DAY_WEEK, 1000, 1, 1, 0),
    ),
}


def preset(key: str) -> Calendar | None:
    if key not in PRESETS:
        raise CalendarError(
            say(
                "No preset called {preset}: {presets}.",
                preset=key[:MAX_NAME],
                presets=list(PRESETS),
            )
        )
    return PRESETS[key][1]
