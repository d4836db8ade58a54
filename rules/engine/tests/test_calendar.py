"""A campaign's calendar (issue 25): dates from in-game minutes and back, plain errors,
presets. Pure: no Django. Properties over any calendar, plus the issue's own example."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.engine.calendar import (
    DAY,
    PRESETS,
    Calendar,
    CalendarError,
    calendar_data,
    date_at,
    minute_of,
    parse_calendar,
    preset,
)

TWO_MONTHS: dict[str, Any] = {
    "months": [{"name": "Frost", "days": 10}, {"name": "Bloom", "days": 10}],
    "weekdays": ["Sunday", "Moonday", "Tiwsday"],
    "epoch": {"year": 1000, "month": 1, "day": 1},
}


def test_two_ten_day_months_after_fifteen_days_and_ninety_minutes():
    calendar = parse_calendar(TWO_MONTHS)
    date = date_at(calendar, 15 * DAY + 90)
    assert date.as_dict() == {
        "year": 1000,
        "month": 2,
        "month_name": "Bloom",
        "day": 6,
        "weekday": "Sunday",  # 15 days after a Sunday, in a three-day week
        "hour": 1,
        "minute": 30,
        "text": "Sunday 6 Bloom 1000, 01:30",
    }
    # the epoch may name its week day: 15 days later (five whole weeks) is that day again
    shifted = parse_calendar({**TWO_MONTHS, "epoch": {**TWO_MONTHS["epoch"], "weekday": "Tiwsday"}})
    assert date_at(shifted, 15 * DAY + 90).text == "Tiwsday 6 Bloom 1000, 01:30"
    assert date_at(shifted, 16 * DAY).weekday == "Sunday"


def test_no_calendar_keeps_day_n():
    assert date_at(None, 0).text == "Day 1, 00:00"
    assert date_at(None, 9 * DAY + 14 * 60 + 30).as_dict() == {
        "year": None,
        "month": None,
        "month_name": None,
        "day": 10,
        "weekday": None,
        "hour": 14,
        "minute": 30,
        "text": "Day 10, 14:30",
    }
    assert parse_calendar(None) is None and parse_calendar({}) is None


def test_a_year_rolls_over_and_the_epoch_may_start_mid_year():
    calendar = parse_calendar({**TWO_MONTHS, "epoch": {"year": 5, "month": 2, "day": 9}})
    assert date_at(calendar, 0).text == "Sunday 9 Bloom 5, 00:00"
    assert date_at(calendar, 2 * DAY).text == "Tiwsday 1 Frost 6, 00:00"
    assert minute_of(calendar, year=6, month="Frost", day=1) == 2 * DAY


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"months": []}, "at least one month"),
        ({"months": [{"name": "Frost", "days": 0}]}, "Frost needs a number of days"),
        ({"months": [{"name": "F" * 41, "days": 3}]}, "at most 40 characters"),
        ({"months": [{"name": "", "days": 3}]}, "Give each month a name"),
        ({**TWO_MONTHS, "weekdays": ["W" * 41]}, "at most 40 characters"),
        ({**TWO_MONTHS, "epoch": {"year": 1, "month": 2, "day": 11}}, "inside Bloom: 1 to 10"),
        ({**TWO_MONTHS, "epoch": {"year": 1, "month": 3, "day": 1}}, "1 to 2"),
        ({**TWO_MONTHS, "epoch": {"year": 1, "month": 1, "day": 1, "weekday": "Fri"}}, "one of"),
        ({"months": [{"name": "Frost", "days": True}]}, "number of days"),
        # issue 34: a duplicate name would always mean the first
        ({"months": [{"name": "Frost", "days": 3}] * 2}, "Two months are called Frost"),
        ({**TWO_MONTHS, "weekdays": ["Sun", "Moon", "Sun"]}, "Two week days are called Sun"),
    ],
)
def test_a_calendar_that_cannot_be_is_refused_in_plain_words(data, words):
    with pytest.raises(CalendarError, match=words):
        parse_calendar(data)


def test_a_date_before_the_start_or_outside_a_month_is_refused():
    calendar = parse_calendar(TWO_MONTHS)
    with pytest.raises(CalendarError, match="before"):
        minute_of(calendar, year=999, month=2, day=10)
    with pytest.raises(CalendarError, match="Bloom has days 1 to 10"):
        minute_of(calendar, year=1000, month="Bloom", day=11)
    with pytest.raises(CalendarError, match="no month called"):
        minute_of(calendar, year=1000, month="Mud", day=1)


def test_the_presets():
    assert preset("days") is None
    plain = preset("twelve_months")
    assert plain is not None and plain.year_days == 365 and len(plain.weekdays) == 7
    assert date_at(plain, 59 * DAY).text == "Thursday 1 March 1000, 00:00"
    tens = preset("ten_day_weeks")
    assert tens is not None and len(tens.weekdays) == 10 and tens.year_days == 360
    assert date_at(tens, 10 * DAY).weekday == tens.weekdays[0]
    assert set(PRESETS) == {"days", "twelve_months", "ten_day_weeks"}
    with pytest.raises(CalendarError):
        preset("lunar")


names = st.text(alphabet="abcdefghij", min_size=1, max_size=8)


@st.composite
def calendars(draw: Any) -> Calendar:
    # each name once: a calendar with two months (or week days) of one name is refused
    months = draw(
        st.lists(
            st.tuples(names, st.integers(1, 40)),
            min_size=1,
            max_size=8,
            unique_by=lambda month: month[0],
        )
    )
    weekdays = draw(st.lists(names, max_size=9, unique=True))
    month = draw(st.integers(1, len(months)))
    day = draw(st.integers(1, months[month - 1][1]))
    weekday = draw(st.integers(0, max(0, len(weekdays) - 1)))
    return Calendar(
        tuple(months), tuple(weekdays), draw(st.integers(-3000, 3000)), month, day, weekday
    )


@settings(max_examples=300, deadline=None)
@given(calendars(), st.integers(0, 50 * 365 * DAY))
def test_a_date_names_its_minute_again(calendar, minute):
    date = date_at(calendar, minute)
    assert date.month is not None and date.year is not None
    assert 1 <= date.month <= len(calendar.months)
    assert 1 <= date.day <= calendar.months[date.month - 1][1]
    assert date.month_name == calendar.months[date.month - 1][0]
    assert (date.hour, date.minute) == divmod(minute % DAY, 60)
    back = minute_of(
        calendar, year=date.year, month=date.month, day=date.day, hour=date.hour, minute=date.minute
    )
    assert back == minute


@settings(max_examples=200, deadline=None)
@given(calendars(), st.integers(0, 20 * 365 * DAY))
def test_the_next_day_is_the_next_date_and_week_day(calendar, minute):
    today, tomorrow = date_at(calendar, minute), date_at(calendar, minute + DAY)
    assert today.month is not None and today.year is not None
    if calendar.weekdays:
        week = calendar.weekdays
        # names may repeat: compare positions through the day count instead
        days = minute // DAY
        assert today.weekday == week[(calendar.epoch_weekday + days) % len(week)]
        assert tomorrow.weekday == week[(calendar.epoch_weekday + days + 1) % len(week)]
    if today.day < calendar.months[today.month - 1][1]:
        assert (tomorrow.year, tomorrow.month, tomorrow.day) == (
            today.year,
            today.month,
            today.day + 1,
        )
    else:
        assert tomorrow.day == 1
        assert (tomorrow.year, tomorrow.month) in (
            (today.year, today.month + 1),
            (today.year + 1, 1),
        )


@settings(max_examples=200, deadline=None)
@given(calendars())
def test_a_calendar_reads_back_from_its_json(calendar):
    assert parse_calendar(calendar_data(calendar)) == calendar or len(set(calendar.weekdays)) < len(
        calendar.weekdays
    )


def test_the_minute_zero_is_the_epoch():
    calendar = parse_calendar(TWO_MONTHS)
    assert date_at(calendar, 0).text == "Sunday 1 Frost 1000, 00:00"
    assert minute_of(calendar, year=1000, month=1, day=1) == 0
