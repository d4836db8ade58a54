"""The clock is never stuck (issue 34), in a real browser: the condition_monitor demo's
two-advance story, as a new referee plays it. A character is made dying, the clock is
advanced a week (it stops on the dying hour's choice, ruling CM-4) and a week again
without answering (the second advance is queued behind the first and the page says
so); the choices are answered from the page's own link and the clock resumed from its
own button, and it ends two weeks on, running again."""

from __future__ import annotations

import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from playwright.sync_api import expect

from campaigns.models import Campaign
from rules.clock.models import ClockJob, ClockJobState
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WEEK = 7 * 24 * 60


def test_two_advances_behind_a_choice_end_with_the_clock_running_from_the_page(new_page, settings):
    settings.SAWBONES_EMBEDDED = True
    call_command("seed_demo", stdout=io.StringIO())
    settings.SAWBONES_EMBEDDED = False
    referee = get_user_model().objects.get(username="referee")
    referee.set_password("pw-referee")
    referee.save(update_fields=["password"])
    campaign = Campaign.objects.get(ruleset="condition_monitor")
    start = campaign.clock

    page = new_page()
    log_in(page, "referee")
    page.goto(f"/campaigns/{campaign.pk}/")
    # 1. make a character dying: Brannoc's full track of normal boxes turns lethal
    page.locator(".pc-card", has_text="Brannoc").get_by_role("link").first.click()
    page.get_by_text("Take damage", exact=True).first.click()
    page.get_by_label("Amount").fill("4")
    page.get_by_label("Kind of damage").select_option(label="Lethal")
    page.get_by_label("Soak pool").fill("0")
    page.locator("#action-damage button[type=submit]").click()
    expect(page.locator(".sheet-head .badge")).to_have_text("dying")
    page.goto(f"/campaigns/{campaign.pk}/")

    # 2. advance a week: the clock stops on the dying hour's choice
    status = page.locator("#clock-status")
    page.get_by_label("Custom").fill("1")
    page.get_by_label("Unit").select_option(label="weeks")
    page.get_by_role("button", name="Advance", exact=True).click()
    expect(status).to_contain_text("The clock stopped at", timeout=30_000)
    expect(status.get_by_role("link", name="Answer the choice")).to_be_visible()

    # 3. without answering, advance a week again: queued, and the page says behind what
    page.get_by_label("Custom").fill("1")
    page.get_by_role("button", name="Advance", exact=True).click()
    expect(status).to_contain_text("1 more clock job waits behind it", timeout=30_000)
    expect(status.locator(".clock-behind")).to_have_text("An advance of 7 days, asked by referee.")
    expect(status).to_contain_text("The clock stopped at")
    expect(page.get_by_role("button", name="Advance", exact=True)).to_be_enabled()
    assert page.locator("[data-clock-progress]").is_hidden()

    # 4. answer every choice from the page's link, resume from its button, until it runs
    for _ in range(6):
        expect(status.locator(".clock-stop")).to_be_visible()
        answer = status.get_by_role("link", name="Answer the choice")
        if answer.count():
            answer.click()
            page.get_by_role("button", name="Stabilizes by itself").click()
            expect(page.locator("#choice")).to_have_count(0)
            page.goto(f"/campaigns/{campaign.pk}/")
            continue
        status.get_by_role("button", name="Resume the clock").click()
        expect(page.locator("[data-clock-progress]")).to_be_hidden(timeout=30_000)
        page.reload()
        if not status.locator(".clock-stop").count():
            break
    expect(status.locator(".clock-stop")).to_have_count(0)
    campaign.refresh_from_db()
    assert campaign.clock == start + 2 * WEEK
    assert set(ClockJob.objects.filter(campaign=campaign).values_list("state", flat=True)) == {
        ClockJobState.DONE
    }
    expect(page.locator("#clock-display")).to_have_text(re.compile(r"^Day 15, "))
    # and it runs again: the next advance moves it at once
    page.get_by_role("button", name="+1 h").click()
    expect(page.locator("#clock-display")).to_have_text(re.compile(r"^Day 15, 01:00"))
