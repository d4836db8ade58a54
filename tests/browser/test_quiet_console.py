"""Ordinary play logs no console error (issue 34): htmx said "htmx:sendAbort" and
"htmx:afterRequest" on the console whenever a person's action overtook the page's own
refresh (a form that aborted the live sheet's request in flight, the odds of an action
aborting each other while typing). On a slow network (every request 600 ms, so each
refresh is still out when the person acts) the referee plays on a sheet and advances
the clock on the dashboard, and nothing reaches the console."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import ConsoleMessage, Page, expect

from campaigns.models import Membership, Role
from campaigns.services import campaign_create
from rules.play.services import character_create
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def listen(page: Page) -> list[str]:
    errors: list[str] = []

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(message.text)

    page.on("console", console)
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def slow_network(page: Page, latency: int) -> None:
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": latency, "downloadThroughput": -1, "uploadThroughput": -1},
    )


def refresh(page: Page, region: str) -> None:
    """The region asks for its fragment, as the event stream's "changed" makes it."""
    page.evaluate(f"htmx.trigger(document.querySelector('{region}'), 'sawbones:changed')")


def test_playing_while_the_pages_refresh_logs_no_console_error(new_page, referee, player):
    campaign = campaign_create(user=referee, name="Harrow Keep", ruleset="hit_dice")
    membership = Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)
    aldo = character_create(
        membership=membership, name="Aldo", sheet={"level": 5, "hit_dice": 5, "hp": 30}
    )
    page = new_page()
    errors = listen(page)
    log_in(page, "referee")
    page.goto(f"/characters/{aldo.pk}/")
    slow_network(page, 600)
    notice = page.locator("#live .notice")
    for hp in (29, 28, 27):
        if page.locator("#action-damage").get_attribute("open") is None:
            page.locator("#action-damage summary").click()
        amount = page.get_by_label("Amount")
        amount.press_sequentially("123", delay=150)  # each key asks the odds again
        amount.fill("1")
        refresh(page, "#live")  # the sheet's refresh is out...
        page.locator("#action-damage button[type=submit]").click()  # ...when the referee acts
        expect(notice).to_contain_text("Takes 1 damage", timeout=30_000)
        expect(notice).to_contain_text(f"to {hp})", timeout=30_000)
    page.wait_for_timeout(1500)  # the refreshes asked for meanwhile come back
    expect(notice).to_contain_text("to 27)")  # no older answer was swapped in over it

    page.goto(f"/campaigns/{campaign.pk}/")
    clock = page.locator("#clock-display")
    for step in range(1, 4):
        refresh(page, "#dash-live")
        page.get_by_role("button", name="+10 min").click()
        expect(clock).to_have_text(re.compile(rf"Day 1, 00:{step}0"), timeout=30_000)
    page.wait_for_timeout(1500)
    assert errors == []
