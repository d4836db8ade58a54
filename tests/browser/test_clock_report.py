"""The advance report in a real browser (issue 25): the referee advances a week on the
demo's old school campaign and the advance ends with what happened to whom (audited with
axe as it is left)."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from playwright.sync_api import expect

from campaigns.models import Campaign
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def demo(settings: Any) -> Campaign:
    settings.SAWBONES_EMBEDDED = True
    call_command("seed_demo", stdout=io.StringIO())
    settings.SAWBONES_EMBEDDED = False
    for user in get_user_model().objects.filter(username__in=["referee", "player1"]):
        user.set_password(f"pw-{user.username}")
        user.save(update_fields=["password"])
    return Campaign.objects.get(ruleset="old_school")


def test_a_week_on_the_demo_ends_with_its_report(new_page, demo):
    page = new_page()
    log_in(page, "referee")
    page.goto(f"/campaigns/{demo.pk}/")
    page.get_by_label("Custom").fill("1")
    page.get_by_label("Unit").select_option(value="10080")  # weeks
    expect(page.get_by_label("Unit")).to_have_value("10080")
    page.get_by_role("button", name="Advance", exact=True).click()
    expect(page.locator("#clock-display")).to_have_text("Day 8, 00:00")
    report = page.locator("#clock-report")
    expect(report.get_by_role("heading", name="What the clock did")).to_contain_text(
        "Day 1, 00:00 to Day 8, 00:00"
    )
    # both demo characters slept (or not) every night: a long report, folded by character
    dorn = report.locator("summary", has_text="Dorn Ironhand")
    expect(dorn).to_contain_text("7 events")
    expect(report.locator("summary", has_text="Pell of the Reeds")).to_be_visible()
    dorn.click()
    first = report.get_by_role("link", name="In the log").first
    first.click()
    page.wait_for_url("**/log/**")
    expect(page.locator(".log-entry").first).to_be_visible()


def test_a_player_sees_the_week_on_their_next_visit(new_page, demo):
    player = new_page()
    log_in(player, "player1")
    player.goto(f"/campaigns/{demo.pk}/")  # seen: nothing yet
    expect(player.locator("#news")).to_have_count(0)
    page = new_page()
    log_in(page, "referee")
    page.goto(f"/campaigns/{demo.pk}/")
    page.get_by_label("Custom").fill("1")
    page.get_by_label("Unit").select_option(value="10080")  # weeks
    expect(page.get_by_label("Unit")).to_have_value("10080")
    page.get_by_role("button", name="Advance", exact=True).click()
    expect(page.locator("#clock-display")).to_have_text("Day 8, 00:00")
    player.reload()
    news = player.locator("#news")
    expect(news.get_by_role("heading", name="Since you last looked")).to_be_visible()
    expect(news).to_contain_text("Dorn Ironhand")
    expect(news).not_to_contain_text("Pell of the Reeds")  # player2's
