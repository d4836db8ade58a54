"""API tokens on the account page, in a real browser: make one (shown once), use it
from the API, revoke it."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect
from rest_framework.test import APIClient

from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_make_use_and_revoke_a_token(new_page, referee, campaign):
    page = new_page()
    log_in(page, "referee")
    page.get_by_role("link", name="referee").click()
    expect(page.get_by_role("heading", name="API tokens")).to_be_visible()
    expect(page.get_by_text("You have no tokens.")).to_be_visible()

    page.get_by_label("Name").fill("Discord bot")
    page.get_by_label("It may").select_option("player")
    page.get_by_label("Campaign").select_option(label=campaign.name)
    page.get_by_role("button", name="Make the token").click()

    expect(page.get_by_text("it is shown this once")).to_be_visible()
    secret = page.get_by_label("The new token").input_value()
    assert len(secret) == 64
    row = page.get_by_role("row", name="Discord bot")
    expect(row).to_contain_text("play")
    expect(row).to_contain_text(campaign.name)
    expect(row).to_contain_text("never")

    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
    assert api.get(reverse("api-campaigns")).status_code == 200

    page.reload()
    expect(page.get_by_label("The new token")).to_have_count(0)
    expect(page.get_by_role("row", name="Discord bot")).to_contain_text("never")

    page.get_by_role("button", name="Revoke Discord bot").click()
    expect(page.get_by_text("Token revoked")).to_be_visible()
    expect(page.get_by_role("row", name="Discord bot")).to_have_count(0)
    assert api.get(reverse("api-campaigns")).status_code == 401
