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


def test_an_archived_campaign_offers_only_what_can_be_done(new_page, referee, player):
    """Issue 34: the clock buttons and the action forms stayed on an archived campaign's
    pages (their use refused); the pages now say what can be done instead."""
    from rules.play.dice_rotation import campaign_archive

    campaign = campaign_create(user=referee, name="Harrow Keep", ruleset="hit_dice")
    membership = Membership.objects.create(campaign=campaign, user=player, role="player")
    aldo = character_create(membership=membership, name="Aldo", sheet={"level": 2, "hit_dice": 2})
    resolution_create_action(
        character_id=aldo.pk,
        actor=referee,
        by_referee=True,
        action="damage",
        params={"amount": 1},
    )
    campaign_archive(campaign_id=campaign.pk)
    page = new_page()
    log_in(page, "referee")
    page.goto(f"/campaigns/{campaign.pk}/")
    expect(page.locator("#clock-archived")).to_have_text(
        "The clock is stopped while the campaign is archived."
    )
    for name in ("+1 h", "Advance", "Run until then", "Set"):
        expect(page.get_by_role("button", name=name, exact=True)).to_have_count(0)
    expect(page.get_by_role("heading", name="Party action")).to_have_count(0)
    expect(page.get_by_role("button", name="Create character")).to_have_count(0)
    page.locator("#archived-notice").get_by_role("link", name="Bring it back into play").click()
    expect(page.get_by_role("button", name="Bring it back into play")).to_be_in_viewport()

    page.goto(f"/characters/{aldo.pk}/")
    expect(page.locator("#archived-actions")).to_contain_text(
        "This campaign is archived: nothing can happen to Aldo until you bring it back into play"
    )
    expect(page.locator(".actions-panel form")).to_have_count(0)
    expect(page.locator(".log-undo button", has_text="Undo")).to_have_count(0)
    expect(page.get_by_role("link", name="Edit Aldo")).to_have_count(0)
    page.goto(f"/characters/{aldo.pk}/edit/")
    expect(page.locator("#archived-notice")).to_contain_text("Aldo cannot be changed")
    expect(page.locator("main form")).to_have_count(0)
