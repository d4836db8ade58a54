"""condition_monitor in a real browser: the referee wounds a character through the damage
form, the player's open sheet redraws the track (an SVG with its text alternative) and
the dying countdown, the player stabilizes her, and the clock's buttons move the
countdown of another character's terminal wound until it kills (rulings CM-3..CM-5)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from campaigns.models import Membership, Role
from campaigns.services import campaign_create
from rules.play.services import character_create, resolution_create_action
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_wound_watch_the_track_and_stabilize(new_page, referee, player):
    campaign = campaign_create(user=referee, name="Neon Alley", ruleset="condition_monitor")
    Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)
    membership = Membership.objects.get(campaign=campaign, user=referee)
    ines = character_create(
        membership=membership,
        name="Ines",
        sheet={"strength": 3, "willpower": 3},
        owner_id=player.pk,
    )
    pim = character_create(membership=membership, name="Pim", sheet={"strength": 1})
    resolution_create_action(
        character_id=pim.pk,
        actor=referee,
        by_referee=True,
        action="damage",
        params={"amount": 6, "kind": "aggravated", "soak_dice": 0},
    )

    # The player keeps Ines's sheet open: ten empty boxes.
    mine = new_page()
    log_in(mine, "player")
    mine.goto(f"/characters/{ines.pk}/")
    track = mine.locator("svg.cm-svg")
    expect(track).to_have_attribute("aria-label", "Condition monitor: all 10 boxes empty")

    # The referee wounds her through the form: three kinds to choose from, no soak.
    ref = new_page()
    log_in(ref, "referee")
    ref.goto(f"/characters/{ines.pk}/")
    ref.get_by_text("Take damage", exact=True).first.click()
    kinds = ref.get_by_label("Kind of damage")
    expect(kinds.locator("option")).to_have_text(["Choose…", "Normal", "Lethal", "Aggravated"])
    ref.get_by_label("Amount").fill("4")
    kinds.select_option(label="Lethal")
    ref.get_by_label("Soak pool").fill("0")
    ref.locator("#action-damage button[type=submit]").click()
    expect(ref.locator("#live .notice")).to_contain_text("Takes 4 lethal damage")

    # The player's sheet follows: every box lethal, dying against the clock.
    expect(track).to_have_attribute(
        "aria-label", "Condition monitor: 10 lethal of 10 boxes marked", timeout=5000
    )
    expect(mine.locator(".cm-clock")).to_have_text(
        "Dying: must be stabilized by Day 1, 01:00, 1 h left."
    )
    expect(mine.locator(".sheet-head .badge")).to_have_text("dying")
    expect(mine.locator("figure.cm-track figcaption")).to_have_text("[X]" * 10)
    assert mine.locator("svg.cm-svg g.cm-lethal").count() == 10

    # She is stabilized by her player in time: incapacitated, the countdown gone.
    mine.get_by_text("Stabilize", exact=True).first.click()
    mine.locator("#action-stabilize button[type=submit]").click()
    expect(mine.locator(".sheet-head .badge")).to_have_text("incapacitated")
    expect(mine.locator(".cm-clock")).to_have_count(0)
    expect(mine.locator(".cm-state")).to_have_text("Incapacitated: every box is marked.")

    # On the referee's dashboard Pim's terminal wound counts down; five minutes kill him.
    ref.goto(f"/campaigns/{campaign.pk}/")
    card = ref.locator(".pc-card", has_text="Pim")
    expect(card.locator(".cm-clock")).to_have_text(
        "Terminal wound: dies at Day 1, 00:05 unless stabilized, 5 min left."
    )
    ref.get_by_role("button", name="+10 min").click()
    expect(card.locator(".badge")).to_have_text("dead", timeout=30_000)
    expect(card.locator(".cm-state")).to_have_text("Dead.")
