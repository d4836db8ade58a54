"""Every page works under the Content-Security-Policy: no violation reported, no
console error, and htmx and the app's script still do their work (no inline script)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from campaigns.models import Membership
from rules.play.services import character_create
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", function (event) {
  window.__violations.push(event.violatedDirective + " " + event.blockedURI);
});
"""


def watched(new_page: Any) -> tuple[Page, list[str]]:
    page = new_page()
    page.add_init_script(WATCH)
    problems: list[str] = []
    # Chromium reports a blocked script, style or connection as a console error
    # "Refused to ... Content Security Policy"; other errors (a poll aborted by the next
    # navigation) are not the policy's.
    page.on(
        "console",
        lambda message: (
            problems.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    return page, problems


def visit(page: Page, path: str) -> None:
    response = page.goto(path)
    assert response is not None and response.status == 200, path
    assert "script-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_load_state("networkidle")
    assert page.evaluate("window.__violations") == [], path


def test_pages_run_under_the_policy(new_page, referee, campaign, player):
    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(
        membership=membership, name="Aldo", sheet={"level": 2, "hit_dice": 2, "hp": 10}
    )
    anonymous, anonymous_problems = watched(new_page)
    for path in ("/", "/login/", "/signup/", "/api/docs/"):
        visit(anonymous, path)
    expect(anonymous.locator(".swagger-ui")).to_be_visible()  # the API docs' own script ran

    page, problems = watched(new_page)
    log_in(page, "referee")
    for path in ("/", "/account/", f"/campaigns/{campaign.pk}/", f"/characters/{aldo.pk}/"):
        visit(page, path)

    # htmx under the policy: an action form answers in place.
    page.get_by_text("Take damage", exact=True).first.click()
    page.locator("#a-damage-f-p-amount").fill("3")
    page.locator("#action-damage button[type=submit]").click()
    expect(page.locator("#live .notice")).to_contain_text("Takes 3 damage")
    assert page.evaluate("window.__violations") == []
    # the app's own script under the policy: a clock button posts to the API.
    page.goto(f"/campaigns/{campaign.pk}/")
    page.get_by_role("button", name="+1 h").click()
    expect(page.locator("#clock-display")).to_contain_text("01:00")
    assert page.evaluate("window.__violations") == []
    assert problems == [] and anonymous_problems == []
