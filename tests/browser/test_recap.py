"""The session recap and the e-mail digest's opt-in in a real browser (issue 25): after a
week on the demo the referee reads the recap, downloads it as Markdown, and a player opts
in to the digest; each page audited with axe in both themes at both widths."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from rules.clock.services import clock_advance_run, clock_advance_start
from tests.browser.conftest import log_in
from tests.browser.test_accessibility import check_everywhere

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def demo(settings: Any) -> Campaign:
    settings.SAWBONES_EMBEDDED = True
    call_command("seed_demo", stdout=io.StringIO())
    settings.SAWBONES_EMBEDDED = False
    for user in get_user_model().objects.filter(username__in=["referee", "player1"]):
        user.set_password(f"pw-{user.username}")
        user.save(update_fields=["password"])
    campaign = Campaign.objects.get(ruleset="old_school")
    referee = campaign.memberships.get(role="referee").user
    job = clock_advance_start(campaign_id=campaign.pk, minutes=7 * 24 * 60, requested_by=referee)
    clock_advance_run(job_id=job.pk)
    return campaign


def test_the_recap_reads_a_week_and_downloads_it(new_page, demo):
    page = new_page()
    log_in(page, "referee")
    page.goto(f"/campaigns/{demo.pk}/")
    page.get_by_role("link", name="Session recap").click()
    page.get_by_label("From", exact=True).first.fill("1")
    page.get_by_label("To", exact=True).first.fill("8")
    page.get_by_label("From", exact=True).nth(1).fill("")
    page.get_by_role("button", name="Tell this span").click()
    expect(page.get_by_role("heading", name="Where the clock went")).to_be_visible()
    expect(page.locator("main")).to_contain_text("From Day 1, 00:00 to Day 8, 00:00: 7 days.")
    expect(page.get_by_role("heading", name="Dorn Ironhand")).to_be_visible()
    expect(page.locator("main")).to_contain_text("advanced the clock by 7 days")
    with page.expect_download() as download:
        page.get_by_role("link", name="Download as Markdown").click()
    assert download.value.suggested_filename.endswith("-recap-day-1-to-day-8.md")
    failures: list[str] = []
    check_everywhere(page, "referee recap", failures)

    player = new_page()
    log_in(player, "player1")
    player.goto(f"/campaigns/{demo.pk}/recap/?from_date=1&to_date=8")
    expect(player.get_by_role("heading", name="Dorn Ironhand")).to_be_visible()
    expect(player.get_by_role("heading", name="Pell of the Reeds")).to_have_count(0)
    check_everywhere(player, "player recap", failures)
    assert not failures, "\n".join(failures)


def test_a_player_opts_in_to_the_digest(new_page, demo):
    page = new_page()
    log_in(page, "player1")
    page.goto(f"/campaigns/{demo.pk}/")
    page.get_by_label("E-mail me what happens to my characters").check()
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_label("E-mail me what happens to my characters")).to_be_checked()
    membership = Membership.objects.get(campaign=demo, user__username="player1")
    assert membership.email_digest
    failures: list[str] = []
    check_everywhere(page, "player campaign page with the digest", failures)
    assert not failures, "\n".join(failures)
