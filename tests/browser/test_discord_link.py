"""Linking Discord from the account page, in a real browser (issue 38): a code made on the
page, typed in Discord (a ``/sawbones link`` interaction signed as Discord signs it, sent to
the live server), and the page shows the link; unlinked again from the page."""

from __future__ import annotations

import json
import time
from urllib import request as urlrequest

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from playwright.sync_api import expect

from accounts.models import DiscordLink
from discord_play.tests.conftest import APPLICATION_ID, DISCORD_IDS, command
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_link_discord_from_the_account_page(new_page, live_server, settings, player):
    key = Ed25519PrivateKey.generate()
    public = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    settings.SAWBONES_DISCORD_PUBLIC_KEY = public.hex()
    settings.SAWBONES_DISCORD_APPLICATION_ID = APPLICATION_ID

    page = new_page()
    log_in(page, "player")
    page.goto("/account/")
    section = page.locator("#discord")
    expect(section.get_by_role("heading", name="Link Discord")).to_be_visible()
    expect(section.get_by_text("No Discord user is linked.")).to_be_visible()
    section.get_by_role("button", name="Make a link code").click()
    expect(section.get_by_text("It works once, for ten minutes.")).to_be_visible()
    code = section.get_by_label("The link code").input_value()

    # what Discord sends when the player types /sawbones link code:<code>
    body = json.dumps(command("stranger", "link", code=code)).encode()
    stamp = str(int(time.time()))
    sent = urlrequest.Request(  # noqa: S310 - the test's own live server
        f"{live_server.url}/discord/interactions/",
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "X-Signature-Ed25519": key.sign(stamp.encode() + body).hex(),
            "X-Signature-Timestamp": stamp,
        },
    )
    with urlrequest.urlopen(sent, timeout=10) as answer:  # noqa: S310
        told = json.loads(answer.read())
    assert "act as player" in told["data"]["content"]

    page.reload()
    expect(section).to_contain_text(f"with the number {DISCORD_IDS['stranger']}")
    assert DiscordLink.objects.get(user=player).discord_user_id == DISCORD_IDS["stranger"]
    section.get_by_role("button", name="Unlink Discord").click()
    expect(page.locator("#discord").get_by_text("No Discord user is linked.")).to_be_visible()
    assert not DiscordLink.objects.exists()
