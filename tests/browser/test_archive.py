"""The referee archives a finished campaign from its page: asked first, then the page
says it is archived and shows the dice seed it revealed (docs/dice.md)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from campaigns.services import campaign_create
from rules.play.services import character_create, resolution_create_action
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_archiving_asks_first_then_reveals_the_seed(new_page, referee, player):
    campaign = campaign_create(user=referee, name="Harrow Keep", ruleset="hit_dice")
    Campaign.objects.filter(pk=campaign.pk).update(actions_move_clock=False)
    membership = Membership.objects.create(campaign=campaign, user=player, role="player")
    aldo = character_create(membership=membership, name="Aldo", sheet={"level": 2, "hit_dice": 2})
    resolution_create_action(
        character_id=aldo.pk, actor=referee, by_referee=True, action="long_rest", params={}
    )
    secret = Campaign.objects.get(pk=campaign.pk).dice_seed
    page = new_page()
    log_in(page, "referee")
    page.goto(f"/campaigns/{campaign.pk}/")
    archive = page.get_by_role("button", name="Archive this campaign")

    asked: list[str] = []

    def refuse(dialog) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", refuse)
    archive.click()
    expect(archive).to_be_visible()  # refused: nothing happened
    assert asked and "Archive this campaign?" in asked[0]
    assert Campaign.objects.get(pk=campaign.pk).archived_at is None

    page.once("dialog", lambda dialog: dialog.accept())
    archive.click()

    expect(page.locator("#archived-notice")).to_contain_text("This campaign is archived")
    expect(page.get_by_role("button", name="Bring it back into play")).to_be_visible()
    expect(page.locator("#dice .dice-seed").first).to_have_text(secret)
    assert Campaign.objects.get(pk=campaign.pk).archived_at is not None
