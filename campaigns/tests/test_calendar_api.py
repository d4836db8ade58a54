"""The campaign's calendar through the API (issue 25): GET/PUT campaigns/{id}/calendar/,
the ``date`` beside every clock, plain 400s, and a calendar change never moves the clock."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns.models import Campaign

pytestmark = pytest.mark.django_db

DAY = 24 * 60
TWO_MONTHS: dict[str, Any] = {
    "months": [{"name": "Frost", "days": 10}, {"name": "Bloom", "days": 10}],
    "weekdays": ["Sunday", "Moonday", "Tiwsday", "Wodensday"],
    "epoch": {"year": 1000, "month": 1, "day": 1},
}


def url(campaign: Campaign, rest: str = "") -> str:
    return f"/api/v1/campaigns/{campaign.pk}/{rest}"


def test_two_ten_day_months_read_after_fifteen_days_and_ninety_minutes(
    campaign, referee, player, client_for
):
    Campaign.objects.filter(pk=campaign.pk).update(clock=15 * DAY + 90)
    answer = client_for(referee).put(url(campaign, "calendar/"), TWO_MONTHS, format="json")
    assert answer.status_code == 200, answer.content
    expected = {
        "year": 1000,
        "month": 2,
        "month_name": "Bloom",
        "day": 6,
        "weekday": "Wodensday",  # 15 days after a Sunday in a four-day week: 15 % 4 = 3
        "hour": 1,
        "minute": 30,
        "text": "Wodensday 6 Bloom 1000, 01:30",
    }
    assert answer.json()["date"] == expected
    detail = client_for(player).get(url(campaign)).json()
    assert detail["date"] == expected
    assert detail["clock_display"] == "Wodensday 6 Bloom 1000, 01:30"
    assert detail["clock"] == 15 * DAY + 90  # the clock did not move
    calendar = client_for(player).get(url(campaign, "calendar/")).json()
    assert calendar["months"] == TWO_MONTHS["months"]
    assert calendar["epoch"] == {"year": 1000, "month": 1, "day": 1, "weekday": "Sunday"}
    assert calendar["default"] is False


def test_the_default_calendar_keeps_day_n(campaign, referee, client_for):
    Campaign.objects.filter(pk=campaign.pk).update(clock=2 * DAY + 61)
    detail = client_for(referee).get(url(campaign)).json()
    assert detail["clock_display"] == "Day 3, 01:01"
    assert detail["date"] == {
        "year": None,
        "month": None,
        "month_name": None,
        "day": 3,
        "weekday": None,
        "hour": 1,
        "minute": 1,
        "text": "Day 3, 01:01",
    }
    assert client_for(referee).get(url(campaign, "calendar/")).json()["default"] is True


def test_presets_and_back_to_the_default(campaign, referee, client_for):
    ref = client_for(referee)
    body = ref.put(url(campaign, "calendar/"), {"preset": "twelve_months"}, format="json").json()
    assert len(body["months"]) == 12 and body["date"]["text"] == "Monday 1 January 1000, 00:00"
    body = ref.put(url(campaign, "calendar/"), {"preset": "ten_day_weeks"}, format="json").json()
    assert len(body["weekdays"]) == 10
    body = ref.put(url(campaign, "calendar/"), {"preset": "days"}, format="json").json()
    assert body["default"] is True and body["date"]["text"] == "Day 1, 00:00"


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"months": []}, "at least one month"),
        ({"months": [{"name": "Frost", "days": 0}]}, "Frost needs a number of days"),
        ({"months": [{"name": "x" * 41, "days": 3}]}, "at most 40 characters"),
        ({**TWO_MONTHS, "weekdays": ["y" * 41]}, "at most 40 characters"),
        ({**TWO_MONTHS, "epoch": {"year": 1000, "month": 2, "day": 11}}, "inside Bloom"),
        ({"preset": "lunar"}, ""),
        ({}, "at least one month"),
    ],
)
def test_a_calendar_that_cannot_be_is_a_plain_400_and_changes_nothing(
    campaign, referee, client_for, body, words
):
    before = Campaign.objects.values("calendar", "clock").get(pk=campaign.pk)
    answer = client_for(referee).put(url(campaign, "calendar/"), body, format="json")
    assert answer.status_code == 400
    assert words in str(answer.json())
    assert Campaign.objects.values("calendar", "clock").get(pk=campaign.pk) == before


def test_players_read_the_calendar_and_only_the_referee_sets_it(
    campaign, player, outsider, client_for
):
    assert client_for(player).get(url(campaign, "calendar/")).status_code == 200
    assert (
        client_for(player).put(url(campaign, "calendar/"), TWO_MONTHS, format="json").status_code
        == 403
    )
    assert client_for(outsider).get(url(campaign, "calendar/")).status_code == 404


@pytest.mark.django_db(transaction=True)
def test_advance_by_days_hours_minutes_or_until_a_date(campaign, referee, client_for):
    ref = client_for(referee)
    ref.put(url(campaign, "calendar/"), TWO_MONTHS, format="json")
    advance = url(campaign, "clock/advance/")
    job = ref.post(advance, {"days": 1, "hours": 2, "minutes": 3}, format="json").json()
    assert (job["from"], job["to"]) == (0, DAY + 123)
    assert job["date"]["text"] == "Moonday 2 Frost 1000, 02:03"
    job = ref.post(
        advance,
        {"until": {"year": 1000, "month": "Bloom", "day": 6, "hour": 1, "minute": 30}},
        format="json",
    ).json()
    assert job["to"] == 15 * DAY + 90
    campaign.refresh_from_db()
    assert campaign.clock == 15 * DAY + 90


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"until": {"year": 1000, "month": 1, "day": 1}}, "already past"),
        ({"until": {"year": 1000, "month": 2, "day": 11}}, "Bloom has days 1 to 10"),
        ({"until": {"year": 999, "month": 2, "day": 1}}, "before the campaign's clock started"),
        ({"until": {"year": 1000, "month": 2, "day": 1}, "days": 1}, "not both"),
        ({"days": 0, "hours": 0}, "at least one minute"),
        ({}, "at least one minute"),
    ],
)
def test_bad_advances_are_plain_400s(campaign, referee, client_for, body, words):
    ref = client_for(referee)
    ref.put(url(campaign, "calendar/"), TWO_MONTHS, format="json")
    Campaign.objects.filter(pk=campaign.pk).update(clock=DAY)
    answer = ref.post(url(campaign, "clock/advance/"), body, format="json")
    assert answer.status_code == 400
    assert words in str(answer.json())
    campaign.refresh_from_db()
    assert campaign.clock == DAY


def test_until_a_day_without_a_calendar(campaign, referee, client_for):
    Campaign.objects.filter(pk=campaign.pk).update(clock=DAY)
    answer = client_for(referee).post(
        url(campaign, "clock/advance/"), {"until": {"day": 1, "hour": 6}}, format="json"
    )
    assert answer.status_code == 400
    assert "already past: the clock is at Day 2, 00:00" in str(answer.json())


def test_the_calendar_travels_with_an_export(campaign, referee, client_for):
    ref = client_for(referee)
    ref.put(url(campaign, "calendar/"), TWO_MONTHS, format="json")
    export = ref.get(url(campaign, "export/")).json()
    made = ref.post("/api/v1/campaigns/import/", {"export": export}, format="json")
    assert made.status_code == 201
    assert made.json()["date"]["text"] == "Sunday 1 Frost 1000, 00:00"


def test_a_preset_beside_a_calendar_of_ones_own_is_refused(client_for, referee, campaign):
    """A preset replaces the whole calendar: months sent beside it would go unread (and
    unchecked: schemathesis sent a month number no calendar has)."""
    answer = client_for(referee).put(
        f"/api/v1/campaigns/{campaign.pk}/calendar/",
        {"preset": "days", "epoch": {"year": 1, "month": 10**15, "day": 942}},
        format="json",
    )
    assert answer.status_code == 400
    assert "preset" in answer.json()
    campaign.refresh_from_db()
    assert campaign.calendar in (None, {}, "")
