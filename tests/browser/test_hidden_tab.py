"""A page nobody sees sends no polls and holds no stream (static/js/sawbones.js): a
player with the sheet open in a background tab costs the server nothing, and sees the
news once back. The stream itself: tests/browser/test_live_stream.py."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, Request, expect

from campaigns.models import Membership
from campaigns.services import campaign_create
from rules.play.services import character_create, resolution_create_action
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _hide(page: Page, hidden: bool) -> None:
    """What the browser does when the tab goes behind another, or comes back."""
    page.evaluate(
        """hidden => {
            Object.defineProperty(document, "hidden", {value: hidden, configurable: true});
            document.dispatchEvent(new Event("visibilitychange"));
        }""",
        hidden,
    )


def _polls_during(page: Page, seconds: float, path: str) -> int:
    seen: list[str] = []

    def note(request: Request) -> None:
        if path in request.url:
            seen.append(request.url)

    page.on("request", note)
    page.wait_for_timeout(seconds * 1000)  # Playwright delivers events while it waits
    page.remove_listener("request", note)
    return len(seen)


def test_a_hidden_sheet_does_not_poll_and_catches_up_when_shown(new_page, referee, player):
    campaign = campaign_create(user=referee, name="Harrow Keep", ruleset="hit_dice")
    membership = Membership.objects.create(campaign=campaign, user=player, role="player")
    aldo = character_create(membership=membership, name="Aldo", sheet={"hp": 9})
    page = new_page()
    log_in(page, "player")
    page.route("**/live/events/**", lambda route: route.fulfill(status=204))  # no stream
    page.goto(f"/characters/{aldo.pk}/")
    live = f"/characters/{aldo.pk}/live/"
    assert _polls_during(page, 2.5, live) >= 2  # a shown sheet without a stream polls

    _hide(page, True)
    page.wait_for_timeout(300)  # a poll already on its way may still land
    assert _polls_during(page, 3.0, live) == 0
    resolution_create_action(
        character_id=aldo.pk,
        actor=referee,
        by_referee=True,
        action="damage",
        params={"amount": 4},
    )
    hit_points = page.locator('[aria-label^="Hit points"]').first
    expect(hit_points).to_have_attribute("aria-label", re.compile(r"Hit points: 9 "))
    _hide(page, False)
    expect(hit_points).to_have_attribute("aria-label", re.compile(r"Hit points: 5 "), timeout=3_000)
