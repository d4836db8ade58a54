"""The chances of an action, shown under its form as the values are typed (htmx)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from campaigns.services import campaign_create
from characters.models import Character
from rules.log.models import Resolution
from rules.play.services import character_create
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_typing_the_damage_shows_its_exact_chances_and_changes_nothing(new_page, referee, player):
    campaign = campaign_create(user=referee, name="Harrow Keep", ruleset="hit_dice")
    membership = Membership.objects.create(campaign=campaign, user=player, role="player")
    aldo = character_create(
        membership=membership,
        name="Aldo",
        sheet={"level": 2, "hit_dice": 2, "hp": 5, "strength_save": 10, "will_save": 10},
    )
    page = new_page()
    log_in(page, "player")
    page.goto(f"/characters/{aldo.pk}/")

    page.locator("#action-damage summary").click()
    page.get_by_label("Amount").fill("8")

    odds = page.locator("#odds-damage")
    # 8 on 5 hp: overflow 3, DC 23; each save passes on 13-20 with +10 (2/5).
    expect(odds).to_contain_text("What can come of it")
    expect(odds.locator(".odds-row")).to_have_count(4)
    expect(odds).to_contain_text("Minor wound, keeps standing")
    expect(odds).to_contain_text("4/25")
    expect(odds).to_contain_text("9/25")
    expect(odds).to_contain_text("DC 23")

    page.get_by_label("Amount").fill("3")
    expect(odds).to_contain_text("no injury save")
    expect(odds.locator(".odds-row")).to_have_count(1)

    aldo.refresh_from_db()
    assert aldo.version == 1
    assert Resolution.objects.filter(character=aldo).count() == 1
    assert Campaign.objects.get(pk=campaign.pk).dice_counter == 0
    assert Character.objects.get(pk=aldo.pk).sheet["hp"] == 5
