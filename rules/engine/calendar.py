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
from typing import Any

from rules.engine.text import clock_text

DAY = 24 * 60
HOUR = 60
MAX_NAME = 40
MAX_MONTHS = 100
MAX_WEEKDAYS = 100
MAX_MONTH_DAYS = 1000
MAX_YEAR = 1_000_000


class CalendarError(ValueError):
    """A calendar or a date that cannot be: its message is a plain sentence for people."""


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
    text: str

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


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise CalendarError(f"Give each {what} a name.")
    name = value.strip()
    if len(name) > MAX_NAME:
        raise CalendarError(
            f"A {what}'s name is at most {MAX_NAME} characters: {name[:20]}… is longer."
        )
    if "\x00" in name:
        raise CalendarError(f"A {what}'s name cannot hold that character.")
    return name


def _refuse_twice(names: list[str], what: str) -> None:
    """Two months (or week days) of one name: a date naming it would always mean the
    first, so the calendar is refused (issue 34)."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise CalendarError(
                f"Two {what}s are called {name}: give each {what} a name of its own, or a "
                "date naming it would always mean the first."
            )
        seen.add(name)


def _whole(value: Any, low: int, high: int, message: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise CalendarError(message)
    return value


def parse_calendar(data: Mapping[str, Any] | None) -> Calendar | None:
    """A calendar from its JSON form (:func:`calendar_data`); None or ``{}``: the default.

    Raises :class:`CalendarError` with a plain sentence: no months, a month of 0 days, a
    name over 40 characters, an epoch day outside its month...
    """
    if not data:
        return None
    if not isinstance(data, Mapping):
        raise CalendarError("A calendar is months, week days and the date the clock starts at.")
    raw_months = data.get("months")
    if not isinstance(raw_months, list) or not raw_months:
        raise CalendarError("A calendar needs at least one month.")
    if len(raw_months) > MAX_MONTHS:
        raise CalendarError(f"A calendar has at most {MAX_MONTHS} months.")
    months = []
    for raw in raw_months:
        if not isinstance(raw, Mapping):
            raise CalendarError("Each month has a name and a number of days.")
        name = _name(raw.get("name"), "month")
        days = _whole(
            raw.get("days"),
            1,
            MAX_MONTH_DAYS,
            f"{name} needs a number of days from 1 to {MAX_MONTH_DAYS}.",
        )
        months.append((name, days))
    _refuse_twice([name for name, _ in months], "month")
    raw_weekdays = data.get("weekdays", [])
    if not isinstance(raw_weekdays, list) or len(raw_weekdays) > MAX_WEEKDAYS:
        raise CalendarError(f"A week has at most {MAX_WEEKDAYS} days, each a name.")
    weekdays = tuple(_name(raw, "week day") for raw in raw_weekdays)
    _refuse_twice(list(weekdays), "week day")
    epoch = data.get("epoch") or {}
    if not isinstance(epoch, Mapping):
        raise CalendarError("The start date is a year, a month and a day.")
    year = _whole(
        epoch.get("year", 1),
        -MAX_YEAR,
        MAX_YEAR,
        f"The start year is a whole number from {-MAX_YEAR} to {MAX_YEAR}.",
    )
    month = _whole(
        epoch.get("month", 1),
        1,
        len(months),
        f"The start month is a month of the calendar: 1 to {len(months)}.",
    )
    month_name, month_days = months[month - 1]
    day = _whole(
        epoch.get("day", 1),
        1,
        month_days,
        f"The start day must fall inside {month_name}: 1 to {month_days}.",
    )
    weekday = 0
    named = epoch.get("weekday")
    if named not in (None, ""):
        if not weekdays:
            raise CalendarError("The start date names a week day, but the calendar has no week.")
        if named not in weekdays:
            raise CalendarError(
                f"The start week day must be one of the week's: {', '.join(weekdays)}."
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
    text = f"{in_year + 1} {name} {year}, {hour:02d}:{mins:02d}"
    if weekday is not None:
        text = f"{weekday} {text}"
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
    hour = _whole(hour, 0, 23, "An hour is 0 to 23.")
    minute = _whole(minute, 0, 59, "A minute is 0 to 59.")
    if calendar is None:
        day = _whole(day, 1, 10**9, "A day is a whole number, from 1.")
        return (day - 1) * DAY + hour * HOUR + minute
    if year is None:
        raise CalendarError("Say which year.")
    year = _whole(year, -MAX_YEAR, MAX_YEAR, "That year is out of reach.")
    names = [name for name, _ in calendar.months]
    if isinstance(month, str):
        if month not in names:
            raise CalendarError(f"There is no month called {month[:MAX_NAME]}.")
        month = names.index(month) + 1
    month = _whole(month, 1, len(names), f"A month is 1 to {len(names)}.")
    length = calendar.months[month - 1][1]
    day = _whole(day, 1, length, f"{names[month - 1]} has days 1 to {length}.")
    in_year = sum(days for _, days in calendar.months[: month - 1]) + day - 1
    days = (year - calendar.epoch_year) * calendar.year_days + in_year - calendar.epoch_offset
    if days < 0:
        raise CalendarError("That date is before the campaign's clock started.")
    return days * DAY + hour * HOUR + minute


# -- presets ------------------------------------------------------------------------------------
PLAIN_MONTHS = (
    ("January", 31),
    ("February", 28),
    ("March", 31),
    ("April", 30),
    ("May", 31),
    ("June", 30),
    ("July", 31),
    ("August", 31),
    ("September", 30),
    ("October", 31),
    ("November", 30),
    ("December", 31),
)
PLAIN_WEEK = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
TEN_DAY_MONTHS = tuple(
    (name, 30)
    for name in (
        "Vendémiaire",
        "Brumaire",
        "Frimaire",
        "Nivôse",
        "Pluviôse",
        "Ventôse",
        "Germinal",
        "Floréal",
        "Prairial",
        "Messidor",
        "Thermidor",
        "Fructidor",
    )
)
TEN_DAY_WEEK = (
    "Primidi",
    "Duodi",
    "Tridi",
    "Quartidi",
    "Quintidi",
    "Sextidi",
    "Septidi",
    "Octidi",
    "Nonidi",
    "Décadi",
)
# Each preset: its label for people and its calendar (None: the default, "Day N").
PRESETS: dict[str, tuple[str, Calendar | None]] = {
    "days": ("Day 1, Day 2... (no calendar)", None),
    "twelve_months": (
        "A plain year: twelve months, 365 days, seven-day weeks",
        Calendar(PLAIN_MONTHS, PLAIN_WEEK, 1000, 1, 1, 0),
    ),
    "ten_day_weeks": (
        "Twelve months of 30 days in 10-day weeks",
        Calendar(TEN_DAY_MONTHS, TEN_DAY_WEEK, 1000, 1, 1, 0),
    ),
}


def preset(key: str) -> Calendar | None:
    if key not in PRESETS:
        raise CalendarError(f"No preset called {key[:MAX_NAME]}: {', '.join(PRESETS)}.")
    return PRESETS[key][1]
