"""The dashboard's "until a date" (issue 25): the referee advances the clock to a date of
the campaign's own calendar, picked by day, month name, year and time; a date already past
is refused in plain words (audited with axe as it is left)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from campaigns.models import Campaign
from campaigns.services import campaign_create
from rules.clock.models import ClockJob
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TWO_MONTHS = {
    "months": [{"name": "Frost", "days": 10}, {"name": "Bloom", "days": 10}],
    "weekdays": ["Sunday", "Moonday", "Tiwsday"],
    "epoch": {"year": 1000, "month": 1, "day": 1},
}


def test_the_referee_advances_until_a_date_of_the_calendar(new_page, referee):
    campaign = campaign_create(user=referee, name="Harrow Keep", ruleset="hit_dice")
    Campaign.objects.filter(pk=campaign.pk).update(calendar=TWO_MONTHS)
    page = new_page()
    log_in(page, "referee")
    page.goto(f"/campaigns/{campaign.pk}/")
    clock = page.locator("#clock-display")
    expect(clock).to_have_text("Sunday 1 Frost 1000, 00:00")
    # filled with tomorrow morning in the campaign's calendar
    expect(page.get_by_label("Month")).to_have_value("1")
    expect(page.get_by_label("Day", exact=True)).to_have_value("2")

    page.get_by_label("Day", exact=True).fill("6")
    page.get_by_label("Month").select_option(label="Bloom")
    page.get_by_label("Year").fill("1000")
    page.get_by_label("at", exact=True).fill("01:30")
    page.get_by_role("button", name="Run until then").click()
    expect(clock).to_have_text("Sunday 6 Bloom 1000, 01:30")
    job = ClockJob.objects.get(campaign=campaign)
    assert (job.clock_start, job.clock_reached) == (0, 15 * 24 * 60 + 90)

    # a date the clock has passed: said in plain words, nothing sent
    page.get_by_label("Day", exact=True).fill("2")
    page.get_by_label("Month").select_option(label="Frost")
    page.get_by_role("button", name="Run until then").click()
    expect(page.locator("[data-clock-error]")).to_contain_text("past")
    assert ClockJob.objects.filter(campaign=campaign).count() == 1
